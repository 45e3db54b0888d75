"""packaging/x11_check.py gives up on a window as soon as the application has exited (issue 26,
item 11: it waited its full 30 s after the studio had already gone)."""
import importlib.util
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _x11_check():
    spec = importlib.util.spec_from_file_location("x11_check", REPO / "packaging" / "x11_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xdotool")), reason="needs Xvfb and xdotool")
def test_an_application_that_exits_at_once_is_reported_at_once(tmp_path):
    x11 = _x11_check()
    scene = {"name": "gone", "args": [], "title": re.compile("never"), "close_key": "ctrl+q"}
    cmd = [sys.executable, "-c", "import sys; print('no PySide6 here'); sys.exit(3)"]
    t0 = time.perf_counter()
    res = x11.run_scene(cmd, scene, tmp_path, "t", {"PATH": "/usr/bin:/bin"})
    assert time.perf_counter() - t0 < 10
    assert not res["ok"]
    assert "exited with status 3" in res["error"] and "no PySide6 here" in res["error"]
    assert "within 30 s" not in res["error"]
