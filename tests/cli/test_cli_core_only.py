"""A core-only install (no ``[gui]`` extra, issue 26.10): the command line works, and what needs the
studio's windows says in one line what to install. PySide6 is made unimportable in a subprocess by
a meta-path finder that refuses it, as on a machine where it was never installed."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gindex_studio.paths import DEMO_DIR, RESOURCES

HINT = "pip install 'gindex-studio[gui]'"
BLOCKER = """
import sys

class _NoQt:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoQt())
import runpy
sys.argv = ['gindex-studio', *sys.argv[1:]]
runpy.run_module('gindex_studio.cli', run_name='__main__', alter_sys=True)
"""
ROOT = Path(__file__).resolve().parents[2]


def run_without_qt(*args, cwd=ROOT):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    p = subprocess.run([sys.executable, "-c", BLOCKER, *map(str, args)], capture_output=True, text=True,
                       timeout=120, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def test_the_blocker_really_hides_qt():
    code = BLOCKER.split("import runpy")[0] + "import PySide6\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "ModuleNotFoundError: No module named 'PySide6'" in p.stderr


@pytest.mark.parametrize("args, what", [
    (["curate", DEMO_DIR / "programs", "--window", "--no-cache"], "curate --window needs Qt"),
    (["gui"], "the studio window needs Qt"),
    (["compare", DEMO_DIR / "programs" / "http" / "http-1.json", DEMO_DIR / "programs" / "http" / "http-2.json"],
     "the studio window needs Qt"),
    ([DEMO_DIR / "programs" / "http" / "http-1.json"], "the studio window needs Qt"),
])
def test_a_window_without_qt_is_one_line_naming_what_to_install(args, what):
    code, out, err = run_without_qt(*args)
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [err.strip()] and "Traceback" not in err
    assert err.startswith(f"gindex-studio: {what}, which is not installed; ") and HINT in err


def test_an_html_report_without_qt_is_refused_before_any_scoring(tmp_path):
    out_file = tmp_path / "r.html"
    code, out, err = run_without_qt("report", DEMO_DIR / "study" / "study.json", "-o", out_file)
    assert code == 1 and out == "" and not out_file.exists()
    assert err.strip() == (f"gindex-studio: report -o (its figures are drawn with Qt; --json needs no Qt) needs Qt, "
                           f"which is not installed; install the studio's windows with: {HINT}")


def test_the_command_line_itself_runs_without_qt(tmp_path):
    http = DEMO_DIR / "programs" / "http"
    code, out, err = run_without_qt("score", http / "http-1.json", http / "http-2.json")
    assert code == 0 and out.startswith("Δ = 0.190000"), err
    code, out, err = run_without_qt("flatland", "draw", RESOURCES / "flatland" / "car.fbp", "-o", tmp_path / "car.png")
    assert code == 0 and (tmp_path / "car.png").read_bytes().startswith(b"\x89PNG"), err
