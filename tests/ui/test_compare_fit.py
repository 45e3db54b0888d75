"""The compare window as it opens on the 1366×768 screen: both programs whole in view at one
shared zoom, refitted (still at one zoom) when the window is resized."""
from __future__ import annotations

from PySide6.QtWidgets import QApplication

from .test_compare import settle
from .test_compare_layout import open_demo_task


def _zooms(win):
    return {r: ed.view.zoom() for r, ed in win.view.editors.items()}


def _all_in_view(win):
    for ed in win.view.editors.values():
        shown = ed.view.visible_scene_rect()
        assert all(shown.contains(item.sceneBoundingRect()) for item in ed.scene.nodes.values())


def test_both_sides_share_one_fit_zoom_and_refit_on_resize(qtbot, library):
    from gindex_studio.ui.compare.window import CompareWindow

    win = CompareWindow(library)
    win.dialogs.ask_save = lambda _name: "discard"
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    avail = win.screen().availableGeometry()
    assert avail.contains(win.frameGeometry())
    open_demo_task(qtbot, win)
    z = _zooms(win)
    assert z["reference"] == z["generated"] and z["reference"] > 0.5
    _all_in_view(win)
    win.resize(1000, 600)  # smaller: the programs must shrink to stay whole
    qtbot.waitUntil(lambda: _zooms(win)["reference"] < z["reference"] - 0.05, timeout=5000)
    qtbot.wait(50)
    QApplication.processEvents()
    settle(qtbot, win.view)
    z2 = _zooms(win)
    assert z2["reference"] == z2["generated"]
    _all_in_view(win)
    # the user's own zoom survives a change of room
    win.view.gen.view.zoom_in()
    mine = win.view.gen.view.zoom()
    win.resize(1100, 650)
    qtbot.wait(100)
    assert win.view.gen.view.zoom() == mine
