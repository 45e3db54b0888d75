"""``gindex-studio library``, driven through a subprocess as a user would, bad input included."""
import json

from cli_run import run  # tests/cli is on sys.path (rootdir-relative test modules)


def test_library_lists_types():
    code, out, err = run("library", "--json")
    assert code == 0, err
    types = {t["type"] for t in json.loads(out)["types"]}
    assert {"inject", "http request", "ui_slider", "maya-browser-open"} <= types
