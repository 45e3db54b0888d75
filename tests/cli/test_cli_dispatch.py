"""Dispatch: exit statuses, usage errors and the bare ``gindex-studio`` path, driven through a
subprocess as a user would."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_run import PROGRAMS, run  # tests/cli is on sys.path (rootdir-relative test modules)

ROOT = Path(__file__).resolve().parents[2]


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


NO_DISPLAY = {"PATH": "/usr/bin:/bin"}  # no DISPLAY: the studio path answers with one line instead of a window


@pytest.mark.parametrize("word, hint", [
    ("scroe", "did you mean 'score'?"),
    ("Gindex", "did you mean 'gindex'?"),
    ("flatlnd", "did you mean 'flatland'?"),
    ("xyzzy", "commands: score, matrix, omega, gindex, library, compare, gui, curate, experiment, attempt, report, "
                  "flatland, run, probe, lint"),
])
def test_a_mistyped_command_is_a_usage_error_with_the_nearest_command(tmp_path, word, hint):
    # issue 23: `gindex-studio scroe a.json b.json` opened the studio with a stack of "Cannot open file" boxes
    from cli_run import TREE

    code, out, err = run(word, "a.json", "b.json", cwd=tmp_path, env=dict(NO_DISPLAY, PYTHONPATH=TREE))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert lines[0].startswith("usage: gindex-studio")
    assert lines[-1] == f"gindex-studio: error: '{word}' is neither a command nor a file ({hint})"


@pytest.mark.parametrize("name", ["scroe", "notes.json", "sub/scroe"])
def test_file_arguments_still_go_to_the_studio(tmp_path, name):
    """A first argument that exists, or has an extension or a path separator, is a file for the studio."""
    from cli_run import TREE

    if name == "scroe":
        (tmp_path / name).write_text("[]")
    code, out, err = run(name, cwd=tmp_path, env=dict(NO_DISPLAY, PYTHONPATH=TREE))
    assert code == 1 and "no display to open the studio window on" in err


def test_help_says_what_the_numbers_are_and_that_files_open_the_studio():
    code, out, err = run("--help")
    assert code == 0, err
    for term in ("Δ (divergence)", "θ = 1 − Δ", "Ω ", "g-index ", "curriculum ", "gindex-studio FILE…"):
        assert term in out, term


def test_every_command_has_a_description_and_shared_ideas_share_a_metavar():
    import argparse

    from gindex_studio.cli.dispatch import build_parser

    def parsers(p, name="gindex-studio"):
        yield name, p
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for sub_name, sub in a.choices.items():
                    yield from parsers(sub, f"{name} {sub_name}")

    found = dict(parsers(build_parser()))
    assert len(found) == 1 + 15 + 1 + 4  # the top, 15 commands, experiment new, flatland's 4 actions
    assert [n for n, p in found.items() if not (p.description or "").strip()] == []
    metavars = {}
    for n, p in found.items():
        for a in p._actions:
            for opt in a.option_strings:
                metavars.setdefault(opt, set()).add(a.metavar)
    assert metavars["--tasks"] == {"FILE_OR_DIR"} and metavars["--curriculum"] == {"DIR"}
    assert metavars["--library"] == {"DIR"} and metavars["--workers"] == {"N"} and metavars["--seed"] == {"N"}
    pairs = {n: [a.metavar for a in p._actions if not a.option_strings and a.dest in ("reference", "generated")]
             for n, p in found.items()}
    assert {n: m for n, m in pairs.items() if m} == {
        f"gindex-studio {c}": ["REF", "GEN"] for c in ("score", "compare", "probe", "flatland compare")}


@pytest.mark.parametrize("args, usage", [
    (("score", "a.json", "b.json", "--bogus"), "usage: gindex-studio score "),
    (("flatland", "draw", "a.fbp", "-o", "a.png", "--bogus"), "usage: gindex-studio flatland draw "),
    (("--bogus",), "usage: gindex-studio [-h]"),
])
def test_an_unknown_option_shows_the_usage_of_its_command(args, usage):
    code, _out, err = run(*args)
    assert code == 2 and err.startswith(usage) and err.strip().endswith("unrecognized arguments: --bogus")


def test_the_command_table_names_what_each_module_adds():
    """``commands.COMMANDS`` and the modules agree: each command's parser, built alone (as a run
    builds it), holds that command, and the full parser holds exactly the table's commands."""
    import argparse

    from gindex_studio.cli import commands
    from gindex_studio.cli.dispatch import build_parser

    def subcommands(p):
        (sub,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        return list(sub.choices)

    assert subcommands(build_parser()) == list(commands.COMMANDS)
    for command, module in commands.COMMANDS.items():
        alone = subcommands(build_parser(command))
        assert command in alone
        assert {commands.COMMANDS[c] for c in alone} == {module}


def _large_flow(tmp_path, name="large.json"):
    """A flow of at least ``files.LARGE_READ_BYTES`` that is quick to score: three nodes, one of
    them carrying a 16 MiB ``func`` (and a name outside ASCII, to cross the relay's reads)."""
    from gindex_studio.core.flows import files

    nodes = [{"id": "i", "type": "inject", "name": "début ✓", "wires": [["f"]]},
             {"id": "f", "type": "function", "name": "façade", "func": "//" + "é" * (files.LARGE_READ_BYTES // 2),
              "wires": [["d"]]},
             {"id": "d", "type": "debug", "wires": []}]
    p = tmp_path / name
    p.write_text(json.dumps(nodes, ensure_ascii=False))
    assert p.stat().st_size >= files.LARGE_READ_BYTES
    return p


#: runs ``main(argv)`` with os.fork counted and prints what happened as JSON; then, with
#: ``"in_process"``, runs it again with ``take_over_if_large`` off. A fresh interpreter: a command
#: forks only when it is the process's one thread, and a pytest worker keeps threads of earlier
#: tests (a Dask client's, a thread pool's).
_FORK_SCRIPT = """
import contextlib, io, json, os, sys
from gindex_studio.cli import bounded
from gindex_studio.cli.dispatch import main
argv, again = json.loads(sys.argv[1]), sys.argv[2] == "in_process"
forks, fork = [], os.fork
os.fork = lambda: forks.append(1) or fork()
runs = []
for take_over in ([True, False] if again else [True]):
    if not take_over:
        bounded.take_over_if_large = lambda _args: None
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    runs.append({"code": code, "out": out.getvalue(), "err": err.getvalue(), "forks": len(forks),
                 "in_child": bounded._in_child})
print(json.dumps(runs))
"""


def _run_counting_forks(argv, again=False) -> list[dict]:
    p = subprocess.run([sys.executable, "-c", _FORK_SCRIPT, json.dumps(argv), "in_process" if again else "once"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_command_reading_a_large_file_in_a_child_says_what_it_says_in_process(tmp_path, as_json):
    """``bounded.take_over_if_large``: the command forks at its start, the child does the command,
    its output reaches the parent's streams whole, and the status is the child's; the same
    command without the fork says the same."""
    large = _large_flow(tmp_path)
    small = PROGRAMS / "http" / "http-1.json"
    argv = ["matrix", str(large), str(small), str(large), *(["--json"] if as_json else [])]
    child, here = _run_counting_forks(argv, again=True)
    # one fork (the child forks no further); we are the parent
    assert child["forks"] == 1 and not child["in_child"]
    assert here["forks"] == 1  # none more without the take-over
    assert child["code"] == here["code"] == 0
    assert (child["out"], child["err"]) == (here["out"], here["err"])
    assert "large.json" in child["out"]


def test_a_child_that_finds_bad_input_gives_its_one_line_and_status(tmp_path):
    large = _large_flow(tmp_path)
    [run] = _run_counting_forks(["matrix", str(large), str(tmp_path / "missing.json")])
    assert run["code"] == 1
    assert run["forks"] == 1  # the child read the large file, then found the missing one
    err = run["err"]
    assert err.count("\n") == 1 and err.startswith("gindex-studio: ") and "missing.json" in err


def test_a_process_with_a_window_open_is_never_forked(tmp_path, qapp, monkeypatch):
    """Once a command has opened a window (``curate --window``), nothing forks: a process with a
    Qt application is never forked, and a read in the core never forks (it has no hook a command
    line could set): a large file is read where it is read."""
    import argparse

    from gindex_studio.cli import bounded
    from gindex_studio.core.flows import files

    large = _large_flow(tmp_path)
    forks, fork = [], os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    bounded.take_over_if_large(argparse.Namespace(flows=[str(large)]))
    assert len(files.read_user_bytes(large)) == large.stat().st_size
    assert forks == [] and not hasattr(files, "before_large_read")


def test_the_command_line_finds_a_large_input_in_a_named_folder_and_only_by_stat(tmp_path):
    """``bounded.large_input``: a large file named, or in a named folder, is found; small files, a
    named pipe (never opened), a missing path and a command reading its standard input are not."""
    import argparse

    from gindex_studio.cli import bounded

    folder = tmp_path / "programs" / "http"
    folder.mkdir(parents=True)
    (folder / "small.json").write_text("[]")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    ns = argparse.Namespace
    assert bounded.large_input(ns(curriculum=str(tmp_path / "programs"), tasks=[str(fifo), "missing.json"])) is None
    large = _large_flow(folder)
    assert bounded.large_input(ns(curriculum=str(tmp_path / "programs"), tasks=[str(fifo)])) == str(large)
    assert bounded.large_input(ns(tasks=[str(fifo), str(large)], deadline=None)) == str(large)
    assert bounded.large_input(ns(tasks=[str(large)], token="-")) is None
