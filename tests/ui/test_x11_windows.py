"""The studio's windows on a real X server as a laptop user meets them: Xvfb at 1366×768 with a
window manager (openbox), driven with xdotool (XTEST), the way a mouse and keyboard would.

For the main window, the compare view and the curation window: the window opens inside the
screen as it opens (no script resizes it), it is drawn, and its close key ends the process with
status 0. In the curation window the pointer sweeps the heatmap, which must not widen the window.
Skips, naming the Debian packages, only where the X server or its tools are not installed
(``packaging/install-test-tools.sh`` installs them).
"""
from __future__ import annotations

import re
import subprocess
import time

import pytest

from gindex_studio.paths import DEMO_DIR

from .x11_support import SCREEN, Studio, display, xc  # noqa: F401 (display: the fixture)

REF = DEMO_DIR / "programs" / "telegram-2-reply" / "telegram-2-reply-4.json"
GEN = DEMO_DIR / "generated" / "telegram-2-reply-4.txt"


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


def _assert_on_screen(disp: str, wid: str) -> tuple[int, int, int, int]:
    x, y, w, h = _frame(disp, wid)
    assert x >= 0 and y >= 0 and x + w <= SCREEN[0] and y + h <= SCREEN[1], (x, y, w, h)
    assert w >= 900 and h >= 560, f"the window opened at {w}×{h}: too small to work in"
    return x, y, w, h


@pytest.mark.slow
def test_main_window_opens_within_the_screen_and_quits(display, tmp_path):
    s = Studio(display, [], tmp_path)
    wid = s.window(r"— gindex-studio$")
    _assert_on_screen(display, wid)
    s.close_with(wid, "ctrl+q")


@pytest.mark.slow
def test_compare_window_opens_within_the_screen_and_closes(display, tmp_path):
    s = Studio(display, ["compare", str(REF), str(GEN)], tmp_path)
    wid = s.window(r"telegram-2-reply-4\.json ↔ telegram-2-reply-4\.txt — Compare — gindex-studio$")
    _assert_on_screen(display, wid)
    s.close_with(wid, "ctrl+w")


@pytest.mark.slow
def test_curation_window_keeps_its_width_while_the_pointer_sweeps_the_heatmap(display, tmp_path):
    s = Studio(display, ["curate", str(DEMO_DIR / "experiment.json"), "--window"], tmp_path)
    wid = s.window(r"Curat")
    x, y, w, h = _assert_on_screen(display, wid)
    for i in range(60):  # across the left two thirds of the window, where the heatmap is
        xc._x(display, "mousemove", "--sync", str(x + 60 + (i * 37) % int(w * 0.55)), str(y + 120 + (i * 53) % int(h * 0.6)))
        time.sleep(0.02)
    assert _frame(display, wid)[2] == w, "hovering the heatmap changed the window's width"
    s.close_with(wid, "ctrl+w")
