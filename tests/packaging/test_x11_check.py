"""packaging/x11_check.py without an X server: waiting for a window ends when the studio's process
has exited (issue 26.11: the check waited its full 30 s after the application had already quit)."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "x11_check.py"


def _x11_check():
    spec = importlib.util.spec_from_file_location("x11_check", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_waiting_for_a_window_stops_when_the_studio_has_exited(monkeypatch):
    x11 = _x11_check()
    calls = []
    monkeypatch.setattr(x11, "_x", lambda display, *args: calls.append(args) or "")  # no window, ever
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    t0 = time.perf_counter()
    assert x11.find_window(":99", re.compile("gindex-studio"), t0 + 30, gone) is None
    assert len(calls) == 1  # one last look for the window, then no more polling
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        calls.clear()
        assert x11.find_window(":99", re.compile("gindex-studio"), time.perf_counter() + 0.3, running) is None
        assert len(calls) > 1  # a live studio is polled until the deadline
    finally:
        running.kill()
        running.wait()
