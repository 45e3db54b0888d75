"""The compare window as it opens on the 1366×768 screen gives the canvases the room (issue 23):
each canvas at least 200 px tall with eight rows of the task table in view (issue 32), the config-nodes menu
in the side's header row, scroll bars only while a program is partly out of view; after
maximising both canvases refit; the current task's row is scrolled into view however the task
was opened (from elsewhere, or with Navigate → Next/Previous Task)."""
from __future__ import annotations

import os

import pytest

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gindex_studio.paths import DEMO_DIR

from .test_compare import settle
from .test_compare_layout import open_demo_task


def new_window(qtbot, library):
    """A compare window as it opens (placed by the window-geometry helper: not resized here)."""
    from gindex_studio.ui.compare.window import CompareWindow

    win = CompareWindow(library)
    win.dialogs.ask_save = lambda _name: "discard"
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def _in(outer, inner) -> bool:
    """``inner``'s rectangle lies within ``outer``'s (both in window coordinates)."""
    win = outer.window()
    o = outer.rect().translated(outer.mapTo(win, QPoint(0, 0)))
    i = inner.rect().translated(inner.mapTo(win, QPoint(0, 0)))
    return o.contains(i)


def _row_in_view(table, row) -> bool:
    r = table.visualRect(row)
    return r.isValid() and table.viewport().rect().contains(r)


def test_at_1366x768_each_canvas_is_200px_tall_with_eight_task_rows_in_view(qtbot, library):
    win = new_window(qtbot, library)
    assert win.screen().availableGeometry().contains(win.frameGeometry())
    open_demo_task(qtbot, win)
    v = win.view
    assert v.side_splitter.orientation() == Qt.Vertical  # the demo's wide flows: stacked
    for role, side in v.sides.items():
        vp = side.editor.view.viewport()
        assert vp.height() >= 200, f"{role} canvas is {vp.width()}×{vp.height()}"
        # both programs whole in view at the fit zoom: no scroll bar takes room
        assert not side.editor.view.horizontalScrollBar().isVisible()
        assert not side.editor.view.verticalScrollBar().isVisible()
        # the config-nodes menu is in the header row, no bar of its own above the canvas
        assert side.config_button.isVisible() and _in(side.header, side.config_button)
        assert not side.editor.tab_row.isVisible()
    table = win.tasks.table
    assert table.viewport().height() >= 8 * table.rowHeight(0)
    # the summary beside the table: the g-index and the filters whole, the components' text
    # cut to two lines with the whole of it in the tooltip
    t = win.tasks
    for w in (t.g_label, t.failures, t.domain, t.search, t.count_label, t.save_button):
        assert w.isVisible() and _in(t.summary, w)
    assert t.count_label.width() >= t.count_label.fontMetrics().horizontalAdvance(t.count_label.text())
    shown = t.components.shown_text()
    assert shown and t.components.toolTip().startswith(t.components.text()) and "mean θ" in t.components.text()
    assert shown == t.components.text() or shown.endswith("…")
    assert t.components.text().startswith(shown.rstrip("…"))


@pytest.mark.slow
def test_zooming_in_brings_the_scroll_bars_and_fit_takes_them_away(qtbot, library):
    win = new_window(qtbot, library)
    open_demo_task(qtbot, win)
    ed = win.view.gen
    h = ed.view.viewport().height()
    ed.view.setFocus()
    win.activateWindow()
    QTest.mouseClick(ed.view.viewport(), Qt.LeftButton, Qt.NoModifier, QPoint(5, 5))  # empty canvas: focus
    for _ in range(3):
        QTest.keyClick(ed.view, Qt.Key_Equal, Qt.ControlModifier)  # View → Zoom In
    qtbot.waitUntil(lambda: ed.view.horizontalScrollBar().isVisible(), timeout=3000)
    assert ed.view.viewport().height() < h  # the bars came and took their room
    QTest.keyClick(ed.view, Qt.Key_0, Qt.ControlModifier)  # View → Fit (Ctrl+0)
    qtbot.waitUntil(lambda: not ed.view.horizontalScrollBar().isVisible(), timeout=3000)
    assert ed.view.viewport().height() == h


def test_after_maximising_both_canvases_refit_at_one_zoom(qtbot, library):
    win = new_window(qtbot, library)
    win.resize(1000, 600)
    qtbot.wait(50)
    open_demo_task(qtbot, win)
    before = {r: ed.view.zoom() for r, ed in win.view.editors.items()}
    heights = {r: ed.view.viewport().height() for r, ed in win.view.editors.items()}
    win.showMaximized()
    qtbot.waitUntil(lambda: win.view.ref.view.zoom() > before["reference"] + 0.05, timeout=5000)
    qtbot.wait(100)
    QApplication.processEvents()
    settle(qtbot, win.view)
    avail = win.screen().availableGeometry()
    assert win.width() > 1000 and win.frameGeometry().height() <= avail.height()
    z = {r: ed.view.zoom() for r, ed in win.view.editors.items()}
    assert z["reference"] == z["generated"]
    for r, ed in win.view.editors.items():
        assert ed.view.viewport().height() > heights[r]
        shown = ed.view.visible_scene_rect()
        assert all(shown.contains(i.sceneBoundingRect()) for i in ed.scene.nodes.values()), f"{r} cut off"


@pytest.mark.slow
def test_a_task_opened_from_elsewhere_has_its_row_in_view(qtbot, library):
    """As Analysis's click-through does: a new window, the experiment, then show_task."""
    win = new_window(qtbot, library)
    assert win.open_experiment(os.path.join(DEMO_DIR, "experiment.json"))
    last = len(win.controller.experiment.tasks) - 1
    win.show_task(last)
    qtbot.waitUntil(lambda: win.controller.result is not None, timeout=20_000)
    qtbot.wait(50)
    t = win.tasks
    row = t.proxy.mapFromSource(t.model.index(last, 0))
    assert t.table.currentIndex().row() == row.row()
    qtbot.waitUntil(lambda: _row_in_view(t.table, row), timeout=3000)
    assert win.current_task == last


@pytest.mark.slow
def test_next_and_previous_task_follow_the_table_and_keep_the_row_in_view(qtbot, library):
    win = new_window(qtbot, library)
    open_demo_task(qtbot, win)
    t = win.tasks
    # sort by Δ, as a user clicking the header: Next Task follows that order
    header = t.table.horizontalHeader()
    QTest.mouseClick(header.viewport(), Qt.LeftButton, Qt.NoModifier,
                     QPoint(header.sectionViewportPosition(3) + 5, header.height() // 2))
    order = t.visible_tasks()
    ids = [task.id for task in win.controller.experiment.tasks]
    start = order.index(ids[win.current_task])
    win.activateWindow()
    seen = []
    for _ in range(len(order) - start - 1):
        QTest.keyClick(win.view.ref.view, Qt.Key_PageDown, Qt.ControlModifier)
        settle(qtbot, win.view)
        seen.append(ids[win.current_task])
        row = t.proxy.mapFromSource(t.model.index(win.current_task, 0))
        assert _row_in_view(t.table, row), f"{seen[-1]}'s row is out of view"
        assert win.view.sides["reference"].name == seen[-1]
    assert seen == order[start + 1:]
    assert not win.step_task(1)  # the last row: nothing further
    QTest.keyClick(win.view.ref.view, Qt.Key_PageUp, Qt.ControlModifier)
    settle(qtbot, win.view)
    assert ids[win.current_task] == order[-2]
    assert _row_in_view(t.table, t.proxy.mapFromSource(t.model.index(win.current_task, 0)))


def test_sorting_or_filtering_the_table_keeps_the_current_tasks_row_in_view(qtbot, library):
    win = new_window(qtbot, library)
    open_demo_task(qtbot, win, "url-skill-4")
    t = win.tasks
    header = t.table.horizontalHeader()
    current = lambda: t.proxy.mapFromSource(t.model.index(win.current_task, 0))  # noqa: E731
    for col in (0, 0, 6, 3):  # Task, Task descending, TC, Δ: the row moves in the table
        QTest.mouseClick(header.viewport(), Qt.LeftButton, Qt.NoModifier,
                         QPoint(header.sectionViewportPosition(col) + 5, header.height() // 2))
        qtbot.waitUntil(lambda: _row_in_view(t.table, current()), timeout=2000)
    QTest.keyClicks(t.search, "4")  # a filter that keeps the task
    qtbot.waitUntil(lambda: _row_in_view(t.table, current()), timeout=2000)
