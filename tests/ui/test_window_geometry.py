"""Every window opens within the screen's available geometry (the test session's offscreen
screen is 1366×768, tests/conftest.py), and remembers its size, position and maximised state,
restored only when the saved geometry still fits the screen."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from gindex_studio.paths import DEMO_DIR


def available() -> QRect:
    return QGuiApplication.primaryScreen().availableGeometry()


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)


def _main(library, settings, tmp_path):
    from gindex_studio.ui.app import MainWindow

    return MainWindow(settings=settings, autosave_dir=str(tmp_path / "autosave"), library=library)


def _compare(library, settings, tmp_path):
    from gindex_studio.ui.compare.window import CompareWindow

    return CompareWindow(library, settings=settings)


def _curation(library, settings, tmp_path):
    from gindex_studio.core.curation.cache import DeltaCache
    from gindex_studio.core.curation.workspace import load_workspace
    from gindex_studio.ui.curation.window import CurationWindow

    return CurationWindow(load_workspace(DEMO_DIR / "experiment.json"), DeltaCache(tmp_path / "c.sqlite"), library,
                          deadline=0.01, settings=settings)


def _analysis(library, settings, tmp_path):
    from gindex_studio.ui.analysis.window import AnalysisWindow

    return AnalysisWindow(library, settings=settings)


WINDOWS = {"main": _main, "compare": _compare, "curation": _curation, "analysis": _analysis}


def _open(qtbot, make, library, settings, tmp_path):
    win = make(library, settings, tmp_path)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    QApplication.processEvents()
    return win


def _close(win):
    if hasattr(win, "dialogs") and hasattr(win.dialogs, "ask_save"):
        win.dialogs.ask_save = lambda *_a: "discard"
    win.close()
    QApplication.processEvents()


def test_the_test_screen_is_a_laptop(qapp):
    assert (available().width(), available().height()) == (1366, 768)


@pytest.mark.parametrize("kind", list(WINDOWS))
def test_each_window_opens_within_the_screen_and_centred(qtbot, library, settings, tmp_path, kind):
    win = _open(qtbot, WINDOWS[kind], library, settings, tmp_path)
    try:
        assert available().contains(win.frameGeometry()), (kind, win.frameGeometry(), available())
        assert available().contains(win.geometry())
        # centred, and as large as the screen allows (the preferred sizes are all larger or close)
        g = win.frameGeometry()
        assert abs(g.center().x() - available().center().x()) <= 2
        # less only the room kept for a window manager's frame before it is known
        from gindex_studio.ui.window_geometry import FRAME

        assert g.width() >= 1300
        assert g.height() >= available().height() - FRAME.top() - FRAME.bottom() - 2
    finally:
        _close(win)


@pytest.mark.parametrize("kind", list(WINDOWS))
def test_size_position_and_maximised_state_are_remembered_per_window(qtbot, library, settings, tmp_path, kind):
    win = _open(qtbot, WINDOWS[kind], library, settings, tmp_path)
    win.setGeometry(QRect(60, 70, 1100, 620))
    QApplication.processEvents()
    _close(win)
    again = _open(qtbot, WINDOWS[kind], library, settings, tmp_path)
    assert again.geometry() == QRect(60, 70, 1100, 620)
    # the other windows' keys are their own
    assert all(k.split("/")[0] in (kind if kind != "main" else "main",) for k in settings.allKeys()
               if k.endswith("/geometry"))
    again.showMaximized()
    QApplication.processEvents()
    _close(again)
    third = _open(qtbot, WINDOWS[kind], library, settings, tmp_path)
    try:
        assert third.isMaximized()
    finally:
        _close(third)


def test_a_saved_geometry_that_no_longer_fits_the_screen_is_not_restored(qtbot, library, settings, tmp_path):
    win = _open(qtbot, _compare, library, settings, tmp_path)
    win.setGeometry(QRect(0, 0, 1900, 1150))  # as on a bigger monitor
    QApplication.processEvents()
    _close(win)
    again = _open(qtbot, _compare, library, settings, tmp_path)
    try:
        assert available().contains(again.frameGeometry())
    finally:
        _close(again)
