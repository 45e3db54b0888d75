"""``gindex-studio library``, driven through a subprocess as a user would, bad input included."""
import json

from cli_run import run  # tests/cli is on sys.path (rootdir-relative test modules)


def test_library_lists_types():
    code, out, err = run("library", "--json")
    assert code == 0, err
    types = {t["type"] for t in json.loads(out)["types"]}
    assert {"inject", "http request", "ui_slider", "maya-browser-open"} <= types


def test_a_missing_library_folder_is_one_line_exit_1(tmp_path):
    code, out, err = run("library", "--library", "/nonexistent")  # issue 26.9: exited 0, the folder silently skipped
    assert code == 1 and out == "" and err == "gindex-studio: /nonexistent: no such folder\n"
    (tmp_path / "f.json").write_text("{}")
    code, out, err = run("library", "--library", tmp_path / "f.json")
    assert code == 1 and out == "" and err == f"gindex-studio: {tmp_path / 'f.json'}: not a folder\n"
