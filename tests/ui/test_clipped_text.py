"""Text that was clipped or wrong (issue 32, item 10, the compare and curation windows' part): the
attribute table's "reference" and "generated" headers are whole however long the attribute names,
a pair opened from the curation window names its sides by their programs' roles (not
Reference / Generated), and the heatmap names narrow domain bands wherever a name fits."""
from __future__ import annotations

import pytest

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QStyle

from .conftest import click, shown_compare_window
from .curation_support import demo_window  # noqa: F401  (a fixture)
from .test_compare import demo_pair, settle


def test_the_attribute_tables_headers_are_whole_at_1366x768(qtbot, library):
    win = shown_compare_window(qtbot, library, 1366, 768)
    win.open_pair(*demo_pair("telegram-2-reply"))
    settle(qtbot, win.view)
    from gindex_studio.ui.compare.view import RIGHT_MIN

    ms = win.view.main_splitter  # the score column as narrow as it goes (its handle dragged right)
    ms.setSizes([ms.width() - RIGHT_MIN, RIGHT_MIN])
    QApplication.processEvents()
    table = win.view.attr.table
    ed = win.view.ref
    for item in list(ed.scene.nodes.values()):  # each node, clicked where a user clicks it
        click(ed.view, item.scene_body().center())
        QApplication.processEvents()
        if table.rowCount() == 0:
            continue
        h = table.horizontalHeader()
        fm = h.fontMetrics()
        for c in (2, 3):
            word = table.horizontalHeaderItem(c).text()
            margin = h.style().pixelMetric(QStyle.PM_HeaderMargin, None, h)
            assert h.sectionSize(c) >= fm.horizontalAdvance(word) + 2 * margin + 2, (word, h.sectionSize(c))


@pytest.mark.slow
def test_a_pair_opened_from_leaks_is_named_by_its_programs_roles(demo_window, qtbot):  # noqa: F811
    from gindex_studio.ui.compare.window import WINDOWS

    win = demo_window
    win.tabs.setCurrentWidget(win.leaks)
    table = win.leaks.table
    assert table.rowCount() > 0
    before = len(WINDOWS)
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualItemRect(table.item(0, 0)).center())
    qtbot.waitUntil(lambda: len(WINDOWS) > before, timeout=10_000)
    cwin = WINDOWS[-1]
    cwin.dialogs.ask_save = lambda *_a: "discard"  # the fixture closes it
    i, j = table.item(0, 0).data(Qt.UserRole)
    items = win.model.ws.items
    for role, k in (("reference", i), ("generated", j)):
        title = cwin.view.sides[role].title.text()
        assert f"<b>{items[k].role.capitalize()}</b>" in title, title
        assert "Generated" not in title and "Reference" not in title
    assert cwin.docks["inspector"].windowTitle() == f"Inspector ({items[i].role})"


@pytest.mark.slow
def test_narrow_domain_bands_are_named_where_a_name_fits(demo_window, qtbot):  # noqa: F811
    hm = demo_window.heatmap
    hm.fit_labels()
    px = hm.plot.getViewBox().viewPixelSize()
    line = hm.fontMetrics().height()
    rows = [(label, cells) for label, axis, cells in hm.band_labels if axis == 0]
    narrow = [label for label, cells in rows if cells / px[1] < line]
    line = rows[0][0].boundingRect().height()  # a name's line as drawn, with its margins
    assert narrow, "the demo has bands thinner than a line at this size"
    assert any(label.isVisible() for label in narrow)  # named, where there is room
    shown = sorted(label.pos().y() / px[1] for label, _c in rows if label.isVisible())
    assert all(b - a >= line - 0.5 for a, b in zip(shown, shown[1:]))  # and no two names overlap
