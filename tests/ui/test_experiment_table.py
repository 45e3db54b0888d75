"""The experiment's task table (issue 32, item 8): at 1366×768 it shows at least eight rows of
tasks, and typing in its filter filters only: the task on screen stays the current one."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from .test_compare_layout import open_demo_task
from .test_compare_room import new_window


def rows_in_view(table) -> int:
    vp = table.viewport().rect()
    return sum(1 for r in range(table.model().rowCount())
               if vp.contains(table.visualRect(table.model().index(r, 0)).adjusted(0, 0, 0, -1).topLeft())
               and table.visualRect(table.model().index(r, 0)).bottom() <= vp.bottom())


def test_at_1366x768_the_task_table_shows_eight_rows(qtbot, library):
    win = new_window(qtbot, library)
    open_demo_task(qtbot, win)
    table = win.tasks.table
    assert table.model().rowCount() >= 8
    assert rows_in_view(table) >= 8, (table.viewport().height(), table.rowHeight(0))
    for side in win.view.sides.values():  # the canvases keep room to read a program
        assert side.editor.view.viewport().height() >= 150


def test_typing_in_the_filter_does_not_switch_the_task(qtbot, library):
    win = new_window(qtbot, library)
    k = open_demo_task(qtbot, win)
    opened = []
    win.tasks.task_selected.connect(opened.append)
    ref_before = win.view.ref.doc.flow.to_json_value()
    search = win.tasks.search
    QTest.mouseClick(search, Qt.LeftButton, Qt.NoModifier, QPoint(10, search.height() // 2))
    QTest.keyClicks(search, "tele")  # the current task's domain: its row stays, selected
    assert opened == [] and win.current_task == k
    cur = win.tasks.table.currentIndex()
    assert cur.isValid() and win.tasks.proxy.mapToSource(cur).row() == k
    search.clear()
    QTest.keyClicks(search, "template")  # other tasks only: the current row goes, no other is opened
    assert win.tasks.proxy.rowCount() >= 1
    assert opened == [] and win.current_task == k
    assert not win.tasks.table.selectionModel().hasSelection()
    for _ in range(len("template")):
        QTest.keyClick(search, Qt.Key_Backspace)
    assert win.tasks.proxy.rowCount() > 1 and opened == [] and win.current_task == k
    assert win.view.ref.doc.flow.to_json_value() == ref_before
