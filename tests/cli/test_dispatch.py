"""Dispatch: exit statuses, usage errors and the bare ``gindex-studio`` path, driven through a
subprocess as a user would."""
import pytest

from cli_run import run  # tests/cli is on sys.path (rootdir-relative test modules)


@pytest.mark.parametrize("args,needle", [
    (("score", "missing.json", "missing2.json"), "no such file"),
    (("omega", "--curriculum", "nowhere", "--tasks", "x.json"), "must be a folder"),
    (("gindex", "nope.json"), "nope.json"),
    (("compare", "nope.json", "nope2.json"), "no such file"),
])
def test_bad_input_exits_1_with_one_line(args, needle):
    code, out, err = run(*args)
    assert code == 1
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_usage_error_exits_2():
    code, _out, err = run("score", "--profile", "nonsense", "a", "b")
    assert code == 2 and "usage" in err


def test_no_display_is_one_line_not_a_crash():
    code, _out, err = run(env={"PATH": "/usr/bin:/bin"})
    assert code == 1 and "no display" in err and len(err.strip().splitlines()) == 1
