"""The editor on a 1366×768 laptop screen: the quick-add popup stays on the screen, the canvas does
not move when a bar above it appears, the navigator keeps off the nodes, and History speaks in the
library's labels."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gindex_studio.core.flows.flow import flow_from_nodes

from tests.ui.conftest import vp_point


def available() -> QRect:
    return QGuiApplication.primaryScreen().availableGeometry()


def open_flow(window, nodes):
    ed = window.add_editor(flow_from_nodes(nodes), None)
    QApplication.processEvents()
    return ed


def test_window_is_the_laptop_screen(window):
    assert available().width() <= 1366 and available().height() <= 768
    assert available().contains(window.frameGeometry())


def test_quick_add_near_the_canvas_corner_opens_wholly_on_screen(window, qtbot):
    ed = open_flow(window, [{"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [[]]}])
    vp = ed.view.viewport()
    for at in (QPoint(vp.width() - 6, vp.height() - 6), QPoint(vp.width() - 6, 8), QPoint(8, vp.height() - 6)):
        assert ed.view.item_at(at) is None
        QTest.mouseDClick(vp, Qt.LeftButton, Qt.NoModifier, at)
        popup = ed.quick_add_popup
        qtbot.waitUntil(popup.isVisible)
        assert available().contains(popup.frameGeometry()), (at, popup.frameGeometry())
        assert popup.width() >= 300 and popup.height() >= 300  # whole, not squeezed
        # beside the point double-clicked: one of its corners is there
        g, corner = popup.frameGeometry(), vp.mapToGlobal(at)
        assert min(abs(g.left() - corner.x()), abs(g.right() + 1 - corner.x())) <= 1
        assert min(abs(g.top() - corner.y()), abs(g.bottom() + 1 - corner.y())) <= 1
        QTest.keyClick(popup.edit, Qt.Key_Escape)
        qtbot.waitUntil(lambda: not popup.isVisible())


def test_quick_add_from_the_keyboard_then_enter_adds_the_node_there(window, qtbot):
    ed = open_flow(window, [{"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [[]]}])
    vp = ed.view.viewport()
    at = QPoint(vp.width() - 4, vp.height() - 4)
    QTest.mouseDClick(vp, Qt.LeftButton, Qt.NoModifier, at)
    popup = ed.quick_add_popup
    qtbot.waitUntil(popup.isVisible)
    QTest.keyClicks(popup.edit, "debug")
    QTest.keyClick(popup.edit, Qt.Key_Return)
    added = [i for i in ed.doc.node_ids() if i != "a"]
    assert len(added) == 1 and ed.doc.node(added[0]).type == "debug"
    assert abs(vp_point(ed.view, QPointF(*ed.doc.position(added[0]))).x() - at.x()) <= 25


def _screen_pos(ed, node_id) -> QPoint:
    item = ed.scene.nodes[node_id]
    return ed.view.viewport().mapToGlobal(ed.view.mapFromScene(item.scenePos()))


def test_config_nodes_bar_appearing_does_not_move_the_canvas(window, qtbot):
    ed = open_flow(window, [{"id": "a", "type": "inject", "x": 200, "y": 200, "wires": [[]]},
                            {"id": "b", "type": "debug", "x": 500, "y": 300, "wires": []}])
    qtbot.waitUntil(lambda: ed.view.viewport().height() > 300)
    assert not ed.tab_row.isVisible()
    before = {i: _screen_pos(ed, i) for i in ("a", "b")}
    top = ed.view.mapToGlobal(QPoint(0, 0)).y()
    ed.add_config_node("ui_group")  # what the inspector's "create" does for a node's field
    QApplication.processEvents()
    qtbot.waitUntil(lambda: ed.config_button.isVisible())
    assert ed.view.mapToGlobal(QPoint(0, 0)).y() > top  # the bar took room above the canvas
    assert {i: _screen_pos(ed, i) for i in ("a", "b")} == before
    ed.undo_stack.undo()  # the bar goes: the nodes stay put again
    QApplication.processEvents()
    qtbot.waitUntil(lambda: not ed.tab_row.isVisible())
    assert {i: _screen_pos(ed, i) for i in ("a", "b")} == before


def test_find_bar_opening_does_not_move_the_canvas(window, qtbot):
    ed = open_flow(window, [{"id": "a", "type": "inject", "x": 200, "y": 200, "wires": [[]]}])
    before = _screen_pos(ed, "a")
    ed.open_find()
    qtbot.waitUntil(ed.find_bar.isVisible)
    QApplication.processEvents()
    assert _screen_pos(ed, "a") == before
