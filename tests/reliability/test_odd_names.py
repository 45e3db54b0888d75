"""File names a message cannot print as they are (issue 36, found by the hostile corpus): a name
holding a newline made two stderr lines, a name longer than the file system takes (ENAMETOOLONG
from ``Path.is_file()``) an OSError traceback. Now one line each: control characters escaped
(``cli.common.one_line``), the system's refusal in words."""
import pytest

from gindex_studio.cli.common import one_line
from gindex_studio.cli.dispatch import main
from tests.reliability.test_user_files import DEMO, REF


def test_control_characters_are_escaped():
    assert one_line("a\nb\r\tc\x1b[2Jd\u2028e\x85f") == "a\\nb\\r\\tc\\x1b[2Jd\\u2028e\\x85f"
    assert one_line("plain ü ✓") == "plain ü ✓"


def test_a_newline_in_a_file_name_stays_on_one_line(tmp_path, capsys):
    bad = tmp_path / "a\nb.json"
    bad.write_text("[1,2,3]")
    assert main(["score", str(bad), str(REF)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a\\nb.json" in err


@pytest.mark.parametrize("argv", [
    lambda p: ["omega", "--curriculum", str(DEMO / "programs"), "--tasks", p],
    lambda p: ["curate", p, "--no-cache"],
    lambda p: ["score", p, str(REF)],
])
def test_a_name_beyond_name_max_is_one_line(argv, tmp_path, capsys):
    long = str(tmp_path / ("n" * 300 + ".json"))
    assert main(argv(long)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith("gindex-studio: ")
    assert long in err
