"""Selecting programs selects them everywhere (issue 9): a heatmap cell, a point on the map or
a row of the split table selects the programs in the near-duplicates tree, the leaks table and
the coverage lists too. Real mouse clicks, offscreen."""
from __future__ import annotations

import pytest

from PySide6.QtCore import QPointF, Qt

from .curation_support import demo_window as window  # noqa: F401 - the fixture
from .curation_support import index_of


def tree_selection(win) -> set[int]:
    """Programs whose rows are selected in the near-duplicates tree."""
    return {it.data(0, Qt.UserRole)[0] for it in win.duplicates.tree.selectedItems() if it.data(0, Qt.UserRole)}


def table_rows(table) -> set[int]:
    return {ix.row() for ix in table.selectionModel().selectedRows()}


def expected_leak_rows(win) -> set[int]:
    sel = set(win.model.selection)
    return {r for r, x in enumerate(win.model.leaks()) if {x.task, x.nearest} & sel}


def assert_shown_everywhere(win):
    sel = set(win.model.selection)
    members = {m for g in win.model.report.duplicates.groups for m in g.members}
    assert tree_selection(win) == sel & members
    assert table_rows(win.leaks.table) == expected_leak_rows(win)
    assert set(win.split.selected()) == sel
    mis_rows = {r for r, n in enumerate(win.model.report.mislabels) if n.index in sel}
    assert table_rows(win.coverage.mis) == mis_rows


@pytest.mark.slow
def test_clicking_a_heatmap_cell_selects_both_programs_everywhere(window, qtbot):
    hm = window.heatmap
    i, j = index_of(window, "youtube-resume-4.json"), index_of(window, "youtube-resume-1.json")
    qtbot.mouseClick(hm.plot.viewport(), Qt.LeftButton, pos=hm.cell_center(hm.matrix.order.index(i), hm.matrix.order.index(j)))
    assert window.model.selection == sorted([i, j])
    assert_shown_everywhere(window)
    # the leak (youtube-resume-4 → youtube-resume-1) and the identical pair's group members are selected
    assert len(table_rows(window.leaks.table)) >= 1 and tree_selection(window) == {i, j}


@pytest.mark.slow
def test_clicking_a_map_point_selects_the_program_in_the_duplicates_and_leaks(window, qtbot):
    view = window.map
    window.tabs.setCurrentWidget(view)
    qtbot.wait(50)
    vb = view.plot.getViewBox()
    i = index_of(window, "gmail-send-4.json")  # a test task, a leak, and in a near-duplicate group
    x, y = view.points[i]
    qtbot.mouseClick(view.plot.viewport(), Qt.LeftButton, pos=view.plot.mapFromScene(vb.mapViewToScene(QPointF(x, y))))
    assert i in window.model.selection
    assert_shown_everywhere(window)
    assert i in tree_selection(window) and table_rows(window.leaks.table)


@pytest.mark.slow
def test_selecting_a_split_row_selects_it_everywhere_and_another_clears_it(window, qtbot):
    split = window.split
    window.tabs.setCurrentWidget(split)
    table = split.table
    i = index_of(window, "youtube-resume-4.json")
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualItemRect(table.item(i, 0)).center())
    assert window.model.selection == [i]
    assert_shown_everywhere(window)
    assert i in tree_selection(window) and table_rows(window.leaks.table)
    k = index_of(window, "twitter-1.json")
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualItemRect(table.item(k, 0)).center())
    assert window.model.selection == [k]
    assert_shown_everywhere(window)
    assert i not in tree_selection(window)


@pytest.mark.slow
def test_a_mislabel_click_selects_the_program_in_the_other_views(window, qtbot):
    view = window.coverage
    window.tabs.setCurrentWidget(view)
    mis = view.mis
    assert mis.rowCount() > 0
    qtbot.mouseClick(mis.viewport(), Qt.LeftButton, pos=mis.visualItemRect(mis.item(0, 0)).center())
    n = window.model.report.mislabels[0]
    assert window.model.selection == [n.index]
    assert_shown_everywhere(window)
