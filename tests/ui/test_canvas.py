"""The canvas: drawing, wiring by drag, selection, delete, splice, zoom/pan, undo of each."""
from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.ui.canvas.items import Decoration
from gindex_studio.ui.library_access import node_type_color

from .conftest import click, drag, snapshot, vp_point


def test_nodes_are_drawn_at_their_place_in_their_colour(editor, library):
    a, b = editor.scene.nodes["a"], editor.scene.nodes["b"]
    assert (a.pos().x(), a.pos().y()) == (100, 100)
    assert a.look.label == "tick" and a.look.inputs == 0 and a.look.outputs == 1
    assert b.look.inputs == 1 and b.look.outputs == 0
    assert a._fill == QColor(node_type_color(library, "inject"))
    assert a.input_port is None and len(a.output_ports) == 1
    assert b.input_port is not None and not b.output_ports


def test_wire_by_dragging_between_ports_and_undo(editor):
    before = snapshot(editor.doc)
    a, b = editor.scene.nodes["a"], editor.scene.nodes["b"]
    drag(editor.view, vp_point(editor.view, a.output_ports[0].scenePos()), vp_point(editor.view, b.input_port.scenePos()))
    assert editor.doc.node("a").ports == [["b"]]
    wire = editor.scene.wires[("a", 0, "b")]
    assert wire.path().pointAtPercent(0) == a.output_pos(0)
    assert wire.path().pointAtPercent(1) == b.input_pos()
    assert editor.undo_stack.undoText().startswith("Wire")
    editor.undo_stack.undo()
    assert snapshot(editor.doc) == before and not editor.scene.wires
    editor.undo_stack.redo()
    assert ("a", 0, "b") in editor.scene.wires


def test_wire_dragged_backwards_from_an_input_port(editor):
    a, b = editor.scene.nodes["a"], editor.scene.nodes["b"]
    drag(editor.view, vp_point(editor.view, b.input_port.scenePos()), vp_point(editor.view, a.scenePos()))
    assert editor.doc.node("a").ports == [["b"]]


def test_wire_dropped_on_empty_canvas_opens_quick_add_for_nodes_with_input(editor, qtbot):
    a = editor.scene.nodes["a"]
    drag(editor.view, vp_point(editor.view, a.output_ports[0].scenePos()), vp_point(editor.view, QPointF(250, 330)))
    popup = editor.quick_add_popup
    assert popup is not None and popup.isVisible() and popup.need_input
    lib = editor.doc.library
    assert popup.types_shown() and all(lib.get(t).inputs for t in popup.types_shown())
    assert "inject" not in popup.types_shown()
    qtbot.keyClicks(popup.edit, "debug")
    QTest.keyClick(popup.edit, Qt.Key_Return)
    new = [i for i in editor.doc.node_ids() if i not in ("a", "b")]
    assert len(new) == 1 and editor.doc.node(new[0]).type == "debug"
    assert editor.doc.node("a").ports == [[new[0]]]
    assert ("a", 0, new[0]) in editor.scene.wires
    editor.undo_stack.undo()  # one entry: node and wire
    assert editor.doc.node_ids() == ["a", "b"] and editor.doc.node("a").ports == [[]]


def test_click_ctrl_click_and_rubber_band_select(editor):
    click(editor.view, editor.scene.nodes["a"].scenePos())
    assert editor.scene.selected_node_ids() == ["a"]
    click(editor.view, editor.scene.nodes["b"].scenePos(), Qt.ControlModifier)
    assert sorted(editor.scene.selected_node_ids()) == ["a", "b"]
    click(editor.view, QPointF(250, 400))
    assert editor.scene.selected_node_ids() == []
    drag(editor.view, vp_point(editor.view, QPointF(20, 40)), vp_point(editor.view, QPointF(200, 160)))
    assert editor.scene.selected_node_ids() == ["a"]


def test_drag_node_moves_it_with_grid_snap_and_undo(editor):
    before = snapshot(editor.doc)
    a = editor.scene.nodes["a"]
    start = vp_point(editor.view, a.scenePos())
    drag(editor.view, start, start + (vp_point(editor.view, QPointF(163, 147)) - vp_point(editor.view, QPointF(100, 100))))
    d = editor.doc.node("a").data
    assert (d["x"], d["y"]) == (160, 140)  # snapped to the 20 px grid
    assert (a.pos().x(), a.pos().y()) == (160, 140)
    editor.undo_stack.undo()
    assert snapshot(editor.doc) == before and a.pos() == QPointF(100, 100)


def test_delete_key_removes_nodes_and_their_wires_and_undo_restores(editor):
    editor.doc.node("a").data["wires"] = [["b"]]
    editor.scene.rebuild()
    before = snapshot(editor.doc)
    click(editor.view, editor.scene.nodes["b"].scenePos())
    QTest.keyClick(editor.view, Qt.Key_Delete)  # the view passes Delete to the window's action
    if editor.doc.has("b"):  # a bare editor has no window actions: use the editor's method
        editor.delete_selection()
    assert not editor.doc.has("b") and editor.doc.node("a").ports == [[]]
    assert "b" not in editor.scene.nodes and not editor.scene.wires
    editor.undo_stack.undo()
    assert snapshot(editor.doc) == before and ("a", 0, "b") in editor.scene.wires


def test_delete_a_selected_wire(editor):
    editor.doc.node("a").data["wires"] = [["b"]]
    editor.scene.rebuild()
    w = editor.scene.wires[("a", 0, "b")]
    click(editor.view, w.path().pointAtPercent(0.5))
    assert editor.scene.selected_wires() == [("a", 0, "b")]
    editor.delete_selection()
    assert editor.doc.node("a").ports == [[]] and editor.doc.has("b")
    editor.undo_stack.undo()
    assert editor.doc.node("a").ports == [["b"]]


def test_drop_node_onto_wire_splices_it(make_editor):
    ed = make_editor(flow_from_nodes([
        {"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [["b"]]},
        {"id": "b", "type": "debug", "x": 500, "y": 100, "wires": []},
        {"id": "c", "type": "function", "x": 300, "y": 300, "wires": [[]]},
    ]))
    before = snapshot(ed.doc)
    c = ed.scene.nodes["c"]
    drag(ed.view, vp_point(ed.view, c.scenePos()), vp_point(ed.view, QPointF(300, 100)))
    assert ed.doc.node("a").ports == [["c"]] and ed.doc.node("c").ports == [["b"]]
    assert set(ed.scene.wires) == {("a", 0, "c"), ("c", 0, "b")}
    assert ed.undo_stack.undoText().startswith("Splice")
    ed.undo_stack.undo()
    assert snapshot(ed.doc) == before


def test_zoom_keys_wheel_fit_and_middle_button_pan(editor):
    v = editor.view
    v.zoom_in()
    assert abs(v.zoom() - 1.25) < 1e-6
    v.zoom_out()
    v.zoom_out()
    assert v.zoom() < 1
    v.fit()
    r = v.visible_scene_rect()
    for item in editor.scene.nodes.values():
        assert r.contains(item.sceneBoundingRect())
    z = v.zoom()
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QWheelEvent

    center = v.viewport().rect().center()
    ev = QWheelEvent(QPointF(center), QPointF(v.viewport().mapToGlobal(center)), QPoint(0, 0), QPoint(0, 120),
                     Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    v.wheelEvent(ev)
    assert v.zoom() > z
    c0 = v.visible_scene_rect().center()
    drag(v, QPoint(500, 300), QPoint(400, 250), button=Qt.MiddleButton)
    c1 = v.visible_scene_rect().center()
    assert c1.x() > c0.x() + 20 and c1.y() > c0.y() + 10
    assert editor.doc.node("a").data["x"] == 100  # panning edits nothing


def test_space_drag_pans(editor):
    v = editor.view
    c0 = v.visible_scene_rect().center()
    QTest.keyPress(v, Qt.Key_Space)
    from PySide6.QtCore import QPoint

    drag(v, QPoint(600, 500), QPoint(500, 500))
    QTest.keyRelease(v, Qt.Key_Space)
    assert v.visible_scene_rect().center().x() > c0.x() + 50
    assert editor.scene.selected_node_ids() == []


def test_problem_badges_are_drawn_and_follow_edits(make_editor):
    ed = make_editor(flow_from_nodes([
        {"id": "a", "type": "no-such-type", "x": 100, "y": 100, "wires": [["a", "ghost"]]},
        {"id": "b", "type": "debug", "x": 300, "y": 100, "wires": []},
    ]))
    kinds = {k for k, _ in ed.scene.nodes["a"].look.problems}
    assert kinds == {"unknown-type", "self-loop", "dangling-wire"}
    assert ed.scene.nodes["a"].look.unknown and ed.scene.nodes["a"]._status
    assert ed.scene.nodes["b"].look.problems == ()
    from gindex_studio.ui.model.commands import SetWires

    ed.push(SetWires(ed.doc, "a", [[]]))
    assert {k for k, _ in ed.scene.nodes["a"].look.problems} == {"unknown-type"}


def test_overlay_api_for_the_compare_view(editor):
    editor.doc.node("a").data["wires"] = [["b"]]
    editor.scene.rebuild()
    seen = []
    editor.scene.node_selected.connect(seen.append)
    editor.scene.set_node_decoration("a", Decoration(color="#2ca02c", mark="matched", label="w=0.83"))
    editor.scene.set_node_decoration("b", Decoration(color="#d62728", mark="missing"))
    editor.scene.set_edge_style("a", 0, "b", "missing")
    assert editor.scene.nodes["a"].decoration.label == "w=0.83"
    w = editor.scene.wires[("a", 0, "b")]
    assert w.style == "missing" and w.pen().style() == Qt.DashLine
    editor.scene.rebuild()  # decorations survive a rebuild
    assert editor.scene.nodes["b"].decoration.mark == "missing"
    assert editor.scene.wires[("a", 0, "b")].style == "missing"
    editor.scene.clear_decorations()
    assert editor.scene.nodes["a"].decoration is None and editor.scene.wires[("a", 0, "b")].style is None
    editor.scene.select_nodes(["b"])
    assert seen[-1] == "b"


def test_workspace_tabs_follow_z(make_editor):
    ed = make_editor(flow_from_nodes([
        {"id": "t1", "type": "tab", "label": "Main"},
        {"id": "t2", "type": "tab", "label": "Other"},
        {"id": "a", "type": "inject", "z": "t1", "x": 100, "y": 100, "wires": [[]]},
        {"id": "b", "type": "debug", "z": "t2", "x": 100, "y": 100, "wires": []},
    ]))
    assert ed.tabs.isVisible() and [ed.tabs.tabText(k) for k in range(ed.tabs.count())] == ["Main", "Other"]
    assert "t1" not in ed.scene.nodes  # tabs are not drawn as nodes
    assert ed.scene.nodes["a"].isVisible() and not ed.scene.nodes["b"].isVisible()
    ed.tabs.setCurrentIndex(1)
    assert not ed.scene.nodes["a"].isVisible() and ed.scene.nodes["b"].isVisible()
    nid = ed.add_node("function", QPointF(200, 200))
    assert ed.doc.node(nid).data["z"] == "t2"
    ed.focus_node("a")
    assert ed.tabs.currentIndex() == 0 and ed.scene.selected_node_ids() == ["a"]


def test_the_whole_drawn_port_and_a_margin_start_a_wire(make_editor):
    """Press anywhere on the drawn port square (outer half included) or a few pixels beyond."""
    from gindex_studio.ui.canvas import geometry as g

    for dx in (0.0, g.PORT / 2 - 1, g.PORT / 2 + 3, -(g.PORT / 2 - 1)):
        ed = make_editor()
        a, b = ed.scene.nodes["a"], ed.scene.nodes["b"]
        start = a.output_ports[0].scenePos() + QPointF(dx, 0)
        drag(ed.view, vp_point(ed.view, start), vp_point(ed.view, b.input_port.scenePos()))
        assert ed.doc.node("a").ports == [["b"]], f"press {dx:+} px from the port centre made no wire"
        assert ed.scene.selected_node_ids() == []  # no rubber band, no move
