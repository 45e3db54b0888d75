"""The command line on hostile Flatland programs (issue 26 items 1-3): exit 1 with one line naming
the file and the node, no traceback, no numpy warning, at once; nothing read outside the library
folders; deep nesting is a clear error."""
from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings

import pytest

from gindex_studio.cli import main
from gindex_studio.core.flatland.resolve import LIBRARY_DIR
from tests.core.flatland.test_flatland_hostile import _fan_out

SQUARE = str(LIBRARY_DIR / "square.fbp")
DEEP = 100_000


def _program(dist: str) -> str:
    return f"main(start) -> a(move 10 0)\na -> b(move {dist} 0)\nb -> main(end)\n{{}} -> main()\n"


CASES = {
    "factorial.fbp": (_program("(factorial 100000000)"), "factorial.fbp:2:13: node 'b' (move dist): (factorial"),
    "tower.fbp": (_program("(expt 10 (expt 10 10))"), "tower.fbp:2:13: node 'b' (move dist): (expt 10 (expt"),
    "comb.fbp": (_program("(comb 100000000 50000000)"), "comb.fbp:2:13: node 'b' (move dist): (comb"),
    "expt400.fbp": (_program("(expt 10 400)"), "expt400.fbp:2:13: node 'b' (move dist): (expt 10 400): 10 to the"),
    "inf.fbp": (_program("inf"), "inf.fbp:2:13: node 'b' (move dist): inf: its value is inf, not a finite"),
    "nan.fbp": (_program("(- inf inf)"), "nan.fbp:2:16: node 'b' (move dist): inf: its value is inf"),
    "far.fbp": (_program("1e300"), "far.fbp:2:6: node 'b' (move dist): 1e+300 is out of range"),
    "deep.fbp": (_program("(" * DEEP + "+ 1 2" + ")" * DEEP), "deep.fbp:2:112: parentheses nested deeper than 100"),
    "deep.lisp": ("(begin " + "(" * DEEP + ")" * DEEP + ")\n", "deep.lisp:1:107: parentheses nested deeper than 100"),
    "deep.json": ("[" * DEEP + "]" * DEEP, "deep.json: the JSON is nested deeper than 100 levels"),
    "state.fbp": (_program("1").replace("{}", '{"position":' + "[" * DEEP + "]" * DEEP + "}"),
                  "state.fbp:4:1: the start state is nested deeper than 4 levels"),
    # issue 36, item 6: a 1 KB program expanding to 2**20 and 2**30 nodes (27.7 s and 1.2 GB in draw,
    # a MemoryError traceback in compare, and running until killed)
    "fan20.fbp": (_fan_out(20), "fan20.fbp:63:36: the run line's flow 'f20' expands to more than 100,000 nodes"),
    "fan30.fbp": (_fan_out(30), "fan30.fbp:93:36: the run line's flow 'f30' expands to more than 100,000 nodes"),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("command", ["draw", "score", "augment"])
def test_hostile_reference_is_one_line_at_once(name, command, tmp_path, capsys):
    text, message = CASES[name]
    path = tmp_path / name
    path.write_text(text)
    argv = {"draw": ["flatland", "draw", str(path), "-o", str(tmp_path / "o.png")],
            "score": ["score", "--profile", "flatland", str(path), SQUARE],
            "augment": ["flatland", "augment", str(path), "-n", "2", "-o", str(tmp_path / "out")]}[command]
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(argv) == 1
    assert time.perf_counter() - t < 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err and len(err) < 300


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_generated_program_costs_its_line(name, tmp_path, capsys):
    """Read leniently, a hostile line is dropped and reported as the syntax issue."""
    text, message = CASES[name]
    gen = tmp_path / name
    gen.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["flatland", "compare", "--json", SQUARE, str(gen)]) == 0
    r = json.loads(capsys.readouterr().out)
    assert 0 < r["delta"] <= 1 and r["syntax"] is not None
    assert message.split(": ", 1)[1][:25] in r["syntax"]["message"]


def test_an_include_outside_the_library_leaks_nothing(tmp_path, capsys):
    secret = tmp_path / "secret.fbp"
    secret.write_text("x(start) -> a(move HUNTER2PASSWORD 0)\na -> x(end)\n")
    (tmp_path / "work").mkdir()
    uses = 'p(start) -> s(x)\ns -> p(end)\n{} -> p()\n'
    for include in (str(secret), "../secret.fbp"):
        gen = tmp_path / "work" / "gen.fbp"
        gen.write_text(f'#include "{include}"\n{uses}')
        assert main(["score", "--profile", "flatland", "--json", SQUARE, str(gen)]) == 0
        out = capsys.readouterr()
        assert "HUNTER2PASSWORD" not in out.out + out.err and include in out.out
        assert main(["flatland", "draw", str(gen), "-o", str(tmp_path / "o.png")]) == 1
        err = capsys.readouterr().err
        assert "HUNTER2PASSWORD" not in err and err.count("\n") == 1
        assert f"gen.fbp:1:1: #include '{include}': only a file name or a path inside a library folder" in err


def test_library_command_with_deep_json(tmp_path, capsys, monkeypatch):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "deep.json").write_text('{"types": ' + "[" * DEEP + "]" * DEEP + "}")
    assert main(["library", "--library", str(lib)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "deep.json: JSON nested deeper than 100 levels" in err
    from gindex_studio.core.flows.library import NodeLibrary

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("GINDEX_LIBRARY_PATH", str(lib))
    monkeypatch.setattr(NodeLibrary, "_bundled", None)
    monkeypatch.setattr(NodeLibrary, "user_errors", [])
    assert main(["library"]) == 0  # the user folder is left out, and said so
    out = capsys.readouterr()
    assert "inject" in out.out and "a user library folder was left out" in out.err and "deep.json" in out.err
    monkeypatch.setattr(NodeLibrary, "_bundled", None)


@pytest.mark.parametrize("name", ["tower.fbp", "deep.lisp"])
def test_in_a_subprocess(name, tmp_path):
    text, message = CASES[name]
    path = tmp_path / name
    path.write_text(text)
    p = subprocess.run([sys.executable, "-W", "error", "-m", "gindex_studio.cli", "flatland", "draw", str(path),
                        "-o", str(tmp_path / "o.png")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and message in p.stderr, p.stderr
