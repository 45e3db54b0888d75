"""What the curation window tests share: scripted dialogs, opening a window and waiting for its
work, and gestures (hover, slider drag) at the pixels a user would use."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionSlider

from gindex_studio.core.curation.cache import DeltaCache
from gindex_studio.ui.curation.window import CurationWindow


class ScriptedCurationDialogs:
    def __init__(self):
        self.errors, self.save_path, self.compute, self.domain = [], None, None, None
        self.save_answer, self.asked_save = "discard", []

    def error(self, title, text):
        self.errors.append((title, text))

    def save_file(self, suggestion):
        return self.save_path

    def ask_compute(self):
        return self.compute

    def ask_domain(self, current, names):
        return self.domain

    def ask_save(self, name):
        self.asked_save.append(name)
        return self.save_answer


def open_window(qtbot, ws, tmp_path, wait=True, **kw) -> CurationWindow:
    """A shown 1366×768 curation window on ``ws`` with a fresh cache; with ``wait``, its report
    and its matrix (or summary) finished."""
    win = CurationWindow(ws, DeltaCache(tmp_path / "cache.sqlite"), **{"deadline": None, **kw})
    win.dialogs = ScriptedCurationDialogs()
    qtbot.addWidget(win)
    win.resize(1366, 768)
    win.show()
    qtbot.waitExposed(win)
    if wait:
        win.wait_for_report()
        win.wait_for_matrix()
        qtbot.waitUntil(lambda: win._matrix_job is None or not win._matrix_job.isRunning(), timeout=60_000)
        QApplication.processEvents()
    return win


@pytest.fixture
def demo_window(qtbot, tmp_path, monkeypatch):
    """The curation window on the demo experiment, its report and full matrix done."""
    from gindex_studio.core.curation.workspace import load_workspace
    from gindex_studio.paths import DEMO_DIR

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = open_window(qtbot, load_workspace(DEMO_DIR / "experiment.json"), tmp_path)
    qtbot.waitUntil(lambda: win.matrix_seconds is not None, timeout=60_000)
    yield win
    close_window(win)


def close_window(win) -> None:
    """Close ``win`` (its jobs stop) and collect its garbage now, while no job thread runs: a
    collection that frees Qt wrappers while the next window's jobs run crashed the suite once."""
    for cw in win.compare_windows:
        cw.close()
    win.close()
    QApplication.processEvents()
    gc.collect()


def index_of(win, tail):
    return next(i for i, it in enumerate(win.model.ws.items) if it.label.endswith(tail))


def hover(widget, pos):
    """A mouse move with no button held, as the pointer passing over (QTest.mouseMove moves the
    cursor, which the offscreen platform does not turn into events)."""
    ev = QMouseEvent(QEvent.MouseMove, QPointF(pos), QPointF(widget.mapToGlobal(pos)), Qt.NoButton, Qt.NoButton,
                     Qt.NoModifier)
    QApplication.sendEvent(widget, ev)


def compared(win):
    """(reference, generated) file names of the last compare window opened."""
    cw = win.compare_windows[-1]
    ref, gen = cw.windowTitle().split(" — ")[0].split(" ↔ ")  # "REF ↔ GEN — Compare — gindex-studio"
    assert Path(cw.view.ref.doc.path).name == ref
    return ref, gen


def _slider_geometry(slider):
    opt = QStyleOptionSlider()
    slider.initStyleOption(opt)
    style = slider.style()
    handle = style.subControlRect(QStyle.CC_Slider, opt, QStyle.SC_SliderHandle, slider)
    groove = style.subControlRect(QStyle.CC_Slider, opt, QStyle.SC_SliderGroove, slider)
    return handle, groove


def drag_slider(qtbot, slider, value: int) -> None:
    """Press on the slider's handle, drag it to where ``value`` lies and release."""
    handle, groove = _slider_geometry(slider)
    span = groove.width() - handle.width()
    x = groove.x() + QStyle.sliderPositionFromValue(slider.minimum(), slider.maximum(), value, span) + handle.width() // 2
    start = handle.center()
    end = QPoint(x, start.y())
    qtbot.mousePress(slider, Qt.LeftButton, pos=start)
    for k in range(1, 6):  # a few steps, as a hand moves
        p = start + (end - start) * (k / 5)
        ev = QMouseEvent(QEvent.MouseMove, QPointF(p), QPointF(slider.mapToGlobal(p)), Qt.LeftButton, Qt.LeftButton,
                         Qt.NoModifier)
        QApplication.sendEvent(slider, ev)
    qtbot.mouseRelease(slider, Qt.LeftButton, pos=end)
