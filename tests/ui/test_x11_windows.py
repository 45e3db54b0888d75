"""The studio's windows on a real X server as a laptop user meets them: Xvfb at 1366×768 with a
window manager (openbox), driven with xdotool (XTEST), the way a mouse and keyboard would.

For the main window, the compare view and the curation window: the window opens inside the
screen as it opens (no script resizes it), it is drawn, and its close key ends the process with
status 0. In the curation window the pointer sweeps the heatmap, which must not widen the window.
Skips, naming the Debian packages, only where the X server or its tools are not installed
(``packaging/install-test-tools.sh`` installs them).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio.paths import DEMO_DIR

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging"))
import x11_check as xc  # noqa: E402

SCREEN = (1366, 768)
REF = DEMO_DIR / "programs" / "telegram-2-reply" / "telegram-2-reply-4.json"
GEN = DEMO_DIR / "generated" / "telegram-2-reply-4.txt"


def _start_openbox(disp: str, home: Path) -> tuple[subprocess.Popen | None, str]:
    """openbox managing ``disp`` (None and its last output when it exited or did not take the screen
    within 30 s). Its home is private, so a user's or another run's openbox settings play no part."""
    log = home / "openbox.log"
    env = {**os.environ, "DISPLAY": disp, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_CACHE_HOME": str(home / "cache"), "XDG_DATA_HOME": str(home / "data")}
    env.pop("SESSION_MANAGER", None)
    with open(log, "wb") as out:
        wm = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=out, stderr=subprocess.STDOUT)
    end = time.perf_counter() + 30
    while "_NET_SUPPORTING_WM_CHECK" not in subprocess.run(["xprop", "-display", disp, "-root"], capture_output=True,
                                                            text=True).stdout:
        if time.perf_counter() > end or wm.poll() is not None:
            wm.kill()
            wm.wait()
            said = " | ".join(log.read_text(errors="replace").split("\n")[-5:]).strip(" |")
            return None, f"exit status {wm.returncode}; it said: {said or 'nothing'}"
        time.sleep(0.05)
    return wm, ""


@pytest.fixture(scope="module")
def display(tmp_path_factory):
    """Xvfb at 1366×768 with openbox. openbox once exited with status 1 on a fresh server on the CI
    machine (not seen here in 10 tries), so a server whose window manager does not start is replaced
    by a fresh one, twice at most; the failure names what openbox printed each time."""
    why = xc.preflight([sys.executable])
    if why is None and shutil.which("openbox") is None:
        why = "openbox not installed (Debian: apt-get install openbox)"
    if why:
        pytest.skip(why)
    reasons = []
    for attempt in range(3):
        xvfb, disp = xc.start_xvfb(SCREEN)
        wm, reason = _start_openbox(disp, tmp_path_factory.mktemp("openbox"))
        if wm is not None:
            break
        xvfb.kill()
        xvfb.wait()
        reasons.append(f"{disp}: {reason}")
    else:
        pytest.fail("openbox did not start: " + "; ".join(reasons))
    yield disp
    wm.terminate()
    wm.wait()
    xvfb.terminate()
    xvfb.wait()


def _frame(disp: str, wid: str) -> tuple[int, int, int, int]:
    """The window's frame on the screen as the window manager draws it: the client's absolute
    position and size (xwininfo) grown by _NET_FRAME_EXTENTS (left, right, top, bottom)."""
    info = subprocess.run(["xwininfo", "-display", disp, "-id", wid], capture_output=True, text=True).stdout
    field = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in info.splitlines()) if v}
    x, y = int(field["Absolute upper-left X"]), int(field["Absolute upper-left Y"])
    w, h = int(field["Width"]), int(field["Height"])
    out = subprocess.run(["xprop", "-display", disp, "-id", wid, "_NET_FRAME_EXTENTS"], capture_output=True, text=True).stdout
    m = re.search(r"=\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)", out)
    left, right, top, bottom = map(int, m.groups()) if m else (0, 0, 0, 0)
    return x - left, y - top, w + left + right, h + top + bottom


class Studio:
    """One studio process on the display, with a fresh home."""

    def __init__(self, disp: str, args: list[str], tmp: Path):
        self.disp = disp
        env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
        env.update(DISPLAY=disp, HOME=str(tmp), XDG_CONFIG_HOME=str(tmp / "config"), XDG_DATA_HOME=str(tmp / "data"),
                   XDG_CACHE_HOME=str(tmp / "cache"))
        self.log = open(tmp / "studio.log", "w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "gindex_studio", *args], env=env, cwd=tmp,
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def window(self, title: str) -> str:
        wid = xc.find_window(self.disp, re.compile(title), time.perf_counter() + 40)
        if wid is None:
            self.log.seek(0)
            pytest.fail(f"no window titled /{title}/ within 40 s; the studio said: {self.log.read()[-1500:]}")
        xc.settle(self.disp, wid, quiet=1.0, limit=30)
        return wid

    def close_with(self, wid: str, key: str) -> None:
        """Press ``key`` in the window, as a keyboard would, until the process ends (a busy machine may
        still be handling the window's first events: the key is pressed again every 5 s, 6 times at most)."""
        code = None
        try:
            for _ in range(6):
                xc._x(self.disp, "windowactivate", "--sync", wid)
                xc._x(self.disp, "key", "--clearmodifiers", key)  # XTEST: as a keyboard would
                try:
                    code = self.proc.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    continue
            if code is None:
                active = xc._x(self.disp, "getactivewindow")
                self.log.seek(0)
                pytest.fail(f"still running 30 s after {key} (active window {active!r}, the studio's {wid!r}); "
                            f"it said: {self.log.read()[-1500:]}")
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.log.seek(0)
        out = self.log.read()
        self.log.close()
        assert code == 0 and "Traceback" not in out, out[-2000:]


def _assert_on_screen(disp: str, wid: str) -> tuple[int, int, int, int]:
    x, y, w, h = _frame(disp, wid)
    assert x >= 0 and y >= 0 and x + w <= SCREEN[0] and y + h <= SCREEN[1], (x, y, w, h)
    assert w >= 900 and h >= 560, f"the window opened at {w}×{h}: too small to work in"
    return x, y, w, h


def test_main_window_opens_within_the_screen_and_quits(display, tmp_path):
    s = Studio(display, [], tmp_path)
    wid = s.window(r"— gindex-studio$")
    _assert_on_screen(display, wid)
    s.close_with(wid, "ctrl+q")


def test_compare_window_opens_within_the_screen_and_closes(display, tmp_path):
    s = Studio(display, ["compare", str(REF), str(GEN)], tmp_path)
    wid = s.window(r"telegram-2-reply-4\.json ↔ telegram-2-reply-4\.txt — Compare — gindex-studio$")
    _assert_on_screen(display, wid)
    s.close_with(wid, "ctrl+w")


def test_curation_window_keeps_its_width_while_the_pointer_sweeps_the_heatmap(display, tmp_path):
    s = Studio(display, ["curate", str(DEMO_DIR / "experiment.json"), "--window"], tmp_path)
    wid = s.window(r"Curat")
    x, y, w, h = _assert_on_screen(display, wid)
    for i in range(60):  # across the left two thirds of the window, where the heatmap is
        xc._x(display, "mousemove", "--sync", str(x + 60 + (i * 37) % int(w * 0.55)), str(y + 120 + (i * 53) % int(h * 0.6)))
        time.sleep(0.02)
    assert _frame(display, wid)[2] == w, "hovering the heatmap changed the window's width"
    s.close_with(wid, "ctrl+w")
