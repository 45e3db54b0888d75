"""The curation window's views readable at 1366×768 (issue 23): the near-duplicates' Δ not cut,
the three coverage tables each on a page of its own with the whole height, an empty outliers
table that says so, the map's legend (colour = domain, shape = role), the heatmap's domains
named on both axes where their band has room (and told on hover where it has not), a filter
over the split."""
from __future__ import annotations

import pytest

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gindex_studio.ui.curation.heatmap import domain_colors

from .curation_support import demo_window, drag_slider, hover  # noqa: F401 (a fixture)


def _show_tab(win, name):
    """Click the window's tab ``name``, as a user does."""
    bar = win.tabs.tabBar()
    k = next(i for i in range(bar.count()) if bar.tabText(i).startswith(name))
    QTest.mouseClick(bar, Qt.LeftButton, Qt.NoModifier, bar.tabRect(k).center())
    assert win.tabs.currentIndex() == k


def _click_page(tabs, name):
    bar = tabs.tabBar()
    k = next(i for i in range(bar.count()) if bar.tabText(i).startswith(name))
    QTest.mouseClick(bar, Qt.LeftButton, Qt.NoModifier, bar.tabRect(k).center())
    assert tabs.currentIndex() == k


def _cells_fit(table) -> None:
    """Every cell's text is as narrow as its column (nothing cut or elided)."""
    fm = table.fontMetrics()
    for r in range(table.rowCount()):
        for c in range(table.columnCount()):
            text = table.item(r, c).text()
            assert fm.horizontalAdvance(text) <= table.columnWidth(c), f"{text!r} cut in column {c}"


@pytest.mark.slow
def test_nearest_in_group_shows_the_whole_name_and_delta_in_view(demo_window):
    win = demo_window
    _show_tab(win, "Near-duplicates")
    tree = win.duplicates.tree
    fm = tree.fontMetrics()
    col = 3
    texts = [tree.topLevelItem(k).child(m).text(col) for k in range(tree.topLevelItemCount())
             for m in range(tree.topLevelItem(k).childCount())]
    assert texts and all(t.endswith(")") for t in texts)  # "name.json (0.0237)"
    widest = max(fm.horizontalAdvance(t) for t in texts)
    assert widest <= tree.columnWidth(col)
    # and the column is on screen at 1366×768, not behind a horizontal scroll
    assert tree.header().sectionViewportPosition(col) + widest <= tree.viewport().width()
    # every text of the tree is whole: a group's line (its Δ range, "identical inside") too
    for k in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(k)
        rect = tree.visualItemRect(top)
        if top.isFirstColumnSpanned():
            assert rect.x() + fm.horizontalAdvance(top.text(0)) <= tree.viewport().width(), top.text(0)
        else:
            for c in range(tree.columnCount()):
                assert fm.horizontalAdvance(top.text(c)) <= tree.columnWidth(c), top.text(c)
        for m in range(top.childCount()):
            for c in range(tree.columnCount()):
                assert fm.horizontalAdvance(top.child(m).text(c)) <= tree.columnWidth(c), top.child(m).text(c)


@pytest.mark.slow
def test_coverage_tables_each_get_a_page_of_their_own(demo_window):
    win = demo_window
    _show_tab(win, "Coverage")
    cov = win.coverage
    for name, table in (("Domains", cov.table), ("Likely mislabelled", cov.mis)):
        _click_page(cov.pages, name)
        QApplication.processEvents()
        assert table.isVisible() and table.rowCount() > 0
        # every row of the table in view at once (16 domains; 6 likely mislabelled)
        assert table.viewport().height() >= table.rowCount() * table.rowHeight(0), name
        _cells_fit(table)
    assert cov.pages.tabText(0) == f"Domains ({cov.table.rowCount()})"
    assert cov.pages.tabText(1) == f"Likely mislabelled ({cov.mis.rowCount()})"


@pytest.mark.slow
def test_an_empty_outliers_table_says_so(demo_window, qtbot):
    win = demo_window
    _show_tab(win, "Coverage")
    cov = win.coverage
    _click_page(cov.pages, "Outliers")
    drag_slider(qtbot, cov.slider.slider, 200)  # Δ ≥ 1: no program that far from its domain
    qtbot.waitUntil(lambda: cov.out.rowCount() == 0)
    assert cov.out_empty.isVisible() and "No outliers at this threshold" in cov.out_empty.text()
    assert cov.out.viewport().rect().contains(cov.out_empty.geometry().center())
    assert cov.pages.tabText(2) == "Outliers (0)"
    drag_slider(qtbot, cov.slider.slider, 20)  # Δ ≥ 0.1: some are
    qtbot.waitUntil(lambda: cov.out.rowCount() > 0)
    assert not cov.out_empty.isVisible()
    assert cov.pages.tabText(2) == f"Outliers ({cov.out.rowCount()})"


def test_the_map_has_a_legend_of_domains_and_roles_and_a_domain_click_selects_it(demo_window, qtbot):
    win = demo_window
    _show_tab(win, "Map")
    qtbot.waitUntil(lambda: len(win.map.points) == len(win.model.ws.items), timeout=20_000)
    legend = win.map.legend
    assert legend.isVisible()
    entries = {legend.item(k).text(): legend.item(k) for k in range(legend.count())}
    items = win.model.ws.items
    domains = sorted({it.domain for it in items})
    assert {"curriculum", "test"} <= set(entries) and set(domains) <= set(entries)
    colors = domain_colors(domains)
    for d in domains:  # the swatch is the domain's colour, as on the points and the heatmap's bands
        img = entries[d].icon().pixmap(14, 14).toImage()
        assert img.pixelColor(7, 7).rgb() == colors[d].rgb(), d
    # every entry drawn inside the legend (none cut off at its bottom)
    for it in entries.values():
        assert legend.viewport().rect().contains(legend.visualItemRect(it)), it.text()
    rect = legend.visualItemRect(entries["twitter"])
    QTest.mouseClick(legend.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    assert win.model.selection == [i for i, it in enumerate(items) if it.domain == "twitter"]


def _pixel_rect(heatmap, label):
    return label.mapRectToScene(label.boundingRect())


def test_heatmap_names_domains_on_top_and_left_only_where_they_fit(demo_window, qtbot):
    win = demo_window
    hm = win.heatmap
    QApplication.processEvents()
    items = win.model.ws.items
    count = {d: sum(1 for it in items if it.domain == d) for d in {it.domain for it in items}}
    shown = {axis: [(lab, cells) for lab, a, cells in hm.band_labels if a == axis and lab.isVisible()] for axis in (0, 1)}
    names = {axis: {lab.textItem.toPlainText() for lab, _c in shown[axis]} for axis in (0, 1)}
    big = {d for d, n in count.items() if n >= 3}
    single = {d for d, n in count.items() if n == 1}
    assert big and single
    assert names[0] >= big and names[1] >= big  # the top axis is named too
    assert (names[0] | names[1]) & single  # one-program slivers named too, where a name fits (issue 32)
    # no two names on an axis overlap
    for axis in (0, 1):
        rects = sorted((_pixel_rect(hm, lab) for lab, _c in shown[axis]),
                       key=lambda r: r.top() if axis == 0 else r.left())
        for a, b in zip(rects, rects[1:]):
            assert not a.intersects(b), (a, b)
    # a left-out name is told when its band is hovered
    d = sorted(single)[0]
    r = next(k for k, i in enumerate(hm.matrix.order) if items[i].domain == d)
    vb = hm.plot.getViewBox()
    for where in (QPointF(-1.0, r + 0.5), QPointF(r + 0.5, -1.0)):  # its band on the left, then on top
        pos = hm.plot.mapFromScene(vb.mapViewToScene(where))
        hover(hm.plot.viewport(), pos)
        assert hm.hover_text.startswith(f"{d}: 1 program"), hm.hover_text


def test_the_split_filter_hides_the_rows_that_do_not_match(demo_window, qtbot):
    win = demo_window
    _show_tab(win, "Split")
    split = win.split
    items = win.model.ws.items
    QTest.mouseClick(split.filter, Qt.LeftButton)
    QTest.keyClicks(split.filter, "youtube-resume")
    shown = [r for r in range(split.table.rowCount()) if not split.table.isRowHidden(r)]
    assert shown == [i for i, it in enumerate(items) if "youtube-resume" in it.label]
    assert split.count.text() == f"{len(shown)} of {len(items)} programs"
    split.filter.clear()
    QTest.keyClicks(split.filter, "TEST  gmail")  # words in any order and case: role and domain
    shown = [r for r in range(split.table.rowCount()) if not split.table.isRowHidden(r)]
    assert shown == [i for i, it in enumerate(items) if it.role == "test" and it.domain == "gmail-send"]
    # a role change keeps the filter
    split.table.selectRow(shown[0])
    QTest.mouseClick(split.role_buttons["curriculum"], Qt.LeftButton)
    assert [r for r in range(split.table.rowCount()) if not split.table.isRowHidden(r)] == []
    split.filter.clear()
    assert not any(split.table.isRowHidden(r) for r in range(split.table.rowCount()))


@pytest.mark.slow
def test_the_leaks_table_is_whole_in_view(demo_window):
    win = demo_window
    _show_tab(win, "Leaks")
    table = win.leaks.table
    assert table.rowCount() == 4
    _cells_fit(table)
    last = table.columnCount() - 1
    assert table.horizontalHeader().sectionViewportPosition(last) + table.columnWidth(last) <= table.viewport().width()
