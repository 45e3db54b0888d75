"""``gindex-studio score``, driven through a subprocess as a user would, bad input included."""
import json


from cli_run import PROGRAMS, REF, run, write  # tests/cli is on sys.path (rootdir-relative test modules)


def test_score_json_shape_and_values(tmp_path):
    ref = write(tmp_path, "ref.json", REF)
    gen = write(tmp_path, "gen.json", [{"id": "a", "type": "inject", "topic": "t", "payload": "1", "wires": [["b"]]},
                                       {"id": "b", "type": "debug", "wires": []}])
    code, out, err = run("score", ref, gen, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["delta"] == 0.4375 and data["theta"] == 0.5625 and data["exact"] is True
    assert data["errors"]["syntax"] is None
    assert any(m["reference"] == "i" and m["generated"] == "a" and m["w"] == 0.5 for m in data["mapping"])
    code, out, _ = run("score", ref, gen, "--json", "--profile", "companion")
    assert json.loads(out)["delta"] == 0.0


def test_score_text_output_and_broken_model_text(tmp_path):
    ref = write(tmp_path, "ref.json", REF)
    gen = write(tmp_path, "gen.txt", "Here you go:\n```json\n" + json.dumps(REF)[:40])
    code, out, err = run("score", ref, gen)
    assert code == 0, err
    assert "Δ = " in out and "syntax: line" in out


def test_broken_reference_is_bad_input(tmp_path):
    ref = write(tmp_path, "ref.json", "[{\"id\": ")
    code, _out, err = run("score", ref, ref)
    assert code == 1 and "not valid JSON" in err and len(err.strip().splitlines()) == 1


# ----- start-up (issue 24.5): what the score path must not import ---------------------------------

NEVER_ON_SCORE = ("scipy", "PySide6", "shiboken6", "pyqtgraph", "dask", "distributed", "sqlite3")


def _imported_by_score(whole: bool = False) -> set[str]:
    """Top-level packages in ``sys.modules`` after ``gindex-studio score`` of two small demo flows
    (``whole``: the full module names)."""
    import subprocess
    import sys

    from cli_run import TREE

    http = PROGRAMS / "http"
    code = ("import sys, io, contextlib, runpy\n"
            f"sys.argv = ['gindex-studio', 'score', {str(http / 'http-1.json')!r}, {str(http / 'http-2.json')!r}]\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    try: runpy.run_module('gindex_studio.cli', run_name='__main__')\n"
            "    except SystemExit as e: assert not e.code, e.code\n"
            "assert out.getvalue().startswith('Δ = 0.190000'), out.getvalue()\n"
            f"print(' '.join(sorted({{m if {whole!r} else m.split('.')[0] for m in sys.modules}})))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "PYTHONPATH": TREE})
    assert p.returncode == 0, p.stderr
    return set(p.stdout.split())


def test_score_imports_no_scipy_qt_dask_or_cache():
    assert _imported_by_score() & set(NEVER_ON_SCORE) == set()


def test_score_imports_no_numpy():
    assert "numpy" not in _imported_by_score()


def test_score_imports_no_other_command_and_no_hashing():
    """A run builds only its own command's parser: no other command module (nor what they import)
    is loaded; hashlib (the file stamps of the studio's saving) loads only where it is used."""
    from gindex_studio.cli import commands

    loaded = _imported_by_score(whole=True)
    others = {f"gindex_studio.cli.{m}" for m in commands.COMMANDS.values()} - {"gindex_studio.cli.score"}
    assert "gindex_studio.cli.score" in loaded
    assert loaded & others == set()
    assert loaded & {"hashlib", "secrets", "gindex_studio.core.curation", "gindex_studio.core.benchmark"} == set()
