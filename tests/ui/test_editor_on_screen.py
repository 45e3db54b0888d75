"""The editor on a 1366×768 laptop screen: the quick-add popup stays on the screen, the canvas does
not move when a bar above it appears, the navigator keeps off the nodes, and History speaks in the
library's labels."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.ui.model.commands import add_nodes

from tests.ui.conftest import vp_point


def available() -> QRect:
    return QGuiApplication.primaryScreen().availableGeometry()


def open_flow(window, nodes):
    ed = window.add_editor(flow_from_nodes(nodes), None)
    QApplication.processEvents()
    return ed


def double_click_canvas(ed, qtbot, at: QPoint):
    """Double-click the canvas at ``at``: the quick-add popup opens on the second press, so the
    last release reaches the popup (it holds the pointer), as on a real screen."""
    vp = ed.view.viewport()
    QTest.mouseDClick(vp, Qt.LeftButton, Qt.NoModifier, at)
    popup = ed.quick_add_popup
    qtbot.waitUntil(popup.isVisible)
    if QApplication.mouseButtons() & Qt.LeftButton:
        QTest.mouseRelease(popup, Qt.LeftButton, Qt.NoModifier, popup.mapFromGlobal(vp.mapToGlobal(at)))
    assert not QApplication.mouseButtons()
    return popup


def test_window_is_the_laptop_screen(window):
    assert available().width() <= 1366 and available().height() <= 768
    assert available().contains(window.frameGeometry())


def test_quick_add_near_the_canvas_corner_opens_wholly_on_screen(window, qtbot):
    ed = open_flow(window, [{"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [[]]}])
    vp = ed.view.viewport()
    for at in (QPoint(vp.width() - 6, vp.height() - 6), QPoint(vp.width() - 6, 8), QPoint(8, vp.height() - 6)):
        assert ed.view.item_at(at) is None
        popup = double_click_canvas(ed, qtbot, at)
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
    popup = double_click_canvas(ed, qtbot, at)
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


def _navigator_rect(ed) -> QRect:
    """The navigator's rectangle in the canvas viewport's pixels."""
    m = ed.minimap
    return QRect(ed.view.viewport().mapFrom(m.parentWidget(), m.pos()), m.size())


def test_navigator_sits_in_a_corner_no_node_is_under(window, qtbot):
    ed = open_flow(window, [{"id": "far", "type": "debug", "x": 6000, "y": 4000, "wires": []}])
    vp = ed.view.viewport()
    w, h = vp.width(), vp.height()
    # a node where the navigator first sits (bottom-right) and one at the bottom-left
    nodes = [{"id": "br", "type": "inject", "x": w - 160, "y": h - 90, "wires": [[]]},
             {"id": "bl", "type": "inject", "x": 110, "y": h - 90, "wires": [[]]}]
    ed.push(add_nodes(ed.doc, nodes, "Add"))
    ed.view.zoom_reset()
    ed.view.centerOn(QPointF(w / 2 - 60 + 60, h / 2 - 40 + 40))
    QApplication.processEvents()
    qtbot.waitUntil(ed.minimap.isVisible)
    QTest.qWait(300)
    br = ed.view.mapFromScene(ed.scene.nodes["br"].sceneBoundingRect()).boundingRect()
    bl = ed.view.mapFromScene(ed.scene.nodes["bl"].sceneBoundingRect()).boundingRect()
    assert vp.rect().contains(br) and vp.rect().contains(bl)
    nav = _navigator_rect(ed)
    assert vp.rect().contains(nav)
    assert not nav.intersects(br) and not nav.intersects(bl)
    assert ed.minimap.corner.startswith("top") and not ed.minimap.translucent
    # drag the bottom-left node away: the navigator stays where it is (no jumping about)
    corner = ed.minimap.corner
    ed.view.centerOn(ed.view.mapToScene(vp.rect().center()) + QPointF(5, 0))
    QApplication.processEvents()
    assert ed.minimap.corner == corner


def test_navigator_over_nodes_in_every_corner_lets_them_show_through(window, qtbot):
    ed = open_flow(window, [{"id": "far", "type": "debug", "x": 9000, "y": 6000, "wires": []}])
    vp = ed.view.viewport()
    nodes = [{"id": f"g{c}_{r}", "type": "change", "x": 60 + 130 * c, "y": 20 + 30 * r, "wires": [[]]}
             for c in range(vp.width() // 130 + 2) for r in range(vp.height() // 30 + 2)]
    ed.push(add_nodes(ed.doc, nodes, "Add"))
    ed.view.zoom_reset()
    ed.view.centerOn(QPointF(vp.width() / 2, vp.height() / 2))
    QApplication.processEvents()
    qtbot.waitUntil(ed.minimap.isVisible)
    QTest.qWait(300)
    m = ed.minimap
    assert m.translucent
    nav = _navigator_rect(ed)
    # the canvas beneath, the navigator as drawn, and the navigator drawn opaque: at a point of a
    # node's body under the navigator, away from the navigator's own picture's border
    under = [r.intersected(nav.adjusted(4, 4, -4, -4)) for r in m.node_rects()]
    c = max(under, key=lambda r: r.width() * r.height()).center()
    at = vp.mapTo(ed.view, c)

    def pixel():
        QApplication.processEvents()
        return ed.view.grab().toImage().pixelColor(at)

    seen = pixel()
    m.hide()
    beneath = pixel()
    m.show()
    m.translucent = False
    opaque = pixel()
    m.translucent = True

    def dist(a, b):
        return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue())

    assert dist(seen, beneath) < dist(opaque, beneath)
    # the pointer over it: opaque, to read it and click
    QTest.mouseMove(m, QPoint(m.width() // 2, m.height() // 2))
    qtbot.waitUntil(m.underMouse)
    assert dist(pixel(), opaque) < 10


def test_history_speaks_the_library_labels(window, qtbot):
    """Add (quick-add), edit (an inspector checkbox), move (drag) and delete (the Delete key), as
    a user does: History names types, attributes and nodes as the palette, inspector and canvas
    show them, never by type id, attribute key or node id."""
    from tests.ui.conftest import drag

    ed = open_flow(window, [{"id": "d1", "type": "debug", "x": 200, "y": 150, "wires": []}])
    ed.view.zoom_reset()
    ed.view.centerOn(QPointF(400, 250))
    vp = ed.view.viewport()
    popup = double_click_canvas(ed, qtbot, vp_point(ed.view, QPointF(500, 350)))
    QTest.keyClicks(popup.edit, "button")
    assert popup.types_shown()[0] == "ui_button"
    QTest.keyClick(popup.edit, Qt.Key_Return)
    button = next(i for i in ed.doc.node_ids() if ed.doc.node(i).type == "ui_button")

    QTest.mouseClick(vp, Qt.LeftButton, Qt.NoModifier, vp_point(ed.view, QPointF(200, 150)))
    assert window.inspector.node_id == "d1"
    box = window.inspector.editors["tosidebar"]
    window.inspector.scroll.ensureWidgetVisible(box)
    QTest.mouseClick(box, Qt.LeftButton, Qt.NoModifier, QPoint(8, box.height() // 2))
    assert ed.doc.node("d1").data["tosidebar"] is False

    drag(ed.view, vp_point(ed.view, QPointF(200, 150)), vp_point(ed.view, QPointF(260, 150)))
    QTest.mouseClick(vp, Qt.LeftButton, Qt.NoModifier, vp_point(ed.view, ed.scene.nodes[button].scenePos()))
    assert ed.scene.selected_node_ids() == [button]
    QTest.keyClick(ed.view, Qt.Key_Delete)
    assert not ed.doc.has(button)

    model = window.undo_view.model()
    texts = [model.index(k, 0).data() for k in range(model.rowCount())]
    assert texts == ["<opened>", "Add button", "Edit To debug window of debug", "Move debug", "Delete button"]
    assert not any(w in t for t in texts for w in ("ui_button", "tosidebar", "d1", button))
    assert window.actions["edit.undo"].text() == "&Undo Delete button"
