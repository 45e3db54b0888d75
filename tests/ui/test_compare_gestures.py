"""Edits on the compare canvases, made as a user makes them: mouse events at the middle of a wire,
the centre of a port, a node's body; F8 then Delete; the texts around the canvases follow edits.

Every gesture goes through the real window (menus, shortcuts, overlay drawn), on the demo pair
``telegram-2-reply-4`` (2 function and 4 dataflow differences)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from .conftest import drag, shown_compare_window, snapshot, vp_point
from .test_compare import demo_pair, settle


@pytest.fixture(params=[(1600, 1000), (1366, 768)], ids=["1600x1000", "1366x768"])
def cwin(qtbot, library, tmp_path, monkeypatch, request):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    win = shown_compare_window(qtbot, library, *request.param)
    assert win.open_pair(*demo_pair("telegram-2-reply"))
    settle(qtbot, win.view)
    yield win
    win.view.runner.cancel()
    win.view.runner.wait(5000)
    win.controller.runner.wait(5000)


def readable(ed, scene_point: QPointF) -> None:
    """Zoom to 100 % around a point, as a user does before fine work."""
    ed.view.zoom_reset()
    ed.view.centerOn(scene_point)


def press_key(win, ed, key) -> None:
    """Press a key on a canvas; the window's shortcut acts (offscreen: trigger it if it did not)."""
    ed.view.setFocus()
    QTest.keyClick(ed.view.viewport(), key)


def near(wire, p: QPointF, px: float = 16.0) -> bool:
    """True when ``p`` lies within ``px``/2 of ``wire`` (a click there may fairly take either)."""
    from PySide6.QtGui import QPainterPathStroker

    stroker = QPainterPathStroker()
    stroker.setWidth(px)
    return stroker.createStroke(wire.path()).contains(p)


def wire_count(doc) -> int:
    return sum(len(t) for n in doc.flow.nodes for t in n.ports)


def test_clicking_the_middle_of_any_wire_selects_it_and_delete_removes_it(cwin, qtbot):
    for role in ("reference", "generated"):
        ed = cwin.view.editors[role]
        for key, wire in list(ed.scene.wires.items()):
            mid = wire.path().pointAtPercent(0.5)
            readable(ed, mid)
            QTest.mouseClick(ed.view.viewport(), Qt.LeftButton, Qt.NoModifier, vp_point(ed.view, mid))
            assert ed.scene.selected_wires() == [key], f"{role} wire {key}: click at its middle missed it"
    ed = cwin.view.gen
    key, wire = next(iter(ed.scene.wires.items()))
    mid = wire.path().pointAtPercent(0.5)
    readable(ed, mid)
    QTest.mouseClick(ed.view.viewport(), Qt.LeftButton, Qt.NoModifier, vp_point(ed.view, mid))
    nodes, wires = len(ed.doc.node_ids()), wire_count(ed.doc)
    press_key(cwin, ed, Qt.Key_Delete)
    assert key[2] not in ed.doc.node(key[0]).ports[key[1]]
    assert (len(ed.doc.node_ids()), wire_count(ed.doc)) == (nodes, wires - 1)
    settle(qtbot, cwin.view)
    assert key not in ed.scene.wires


def test_clicking_along_a_wire_hits_it_at_most_points(cwin):
    """19 points along each wire: every one away from node bodies and from other wires (where
    two wires run together either may be meant) hits the wire."""
    ed = cwin.view.gen
    for key, wire in ed.scene.wires.items():
        hits = tried = 0
        missed = []
        for k in range(1, 20):
            p = wire.path().pointAtPercent(k / 20)
            if any(n.scene_body().adjusted(-12, -12, 12, 12).contains(p) for n in ed.scene.nodes.values()):
                continue
            if any(k2 != key and near(w2, p) for k2, w2 in ed.scene.wires.items()):
                continue
            readable(ed, p)
            ed.scene.clear_wire_selection()
            QTest.mouseClick(ed.view.viewport(), Qt.LeftButton, Qt.NoModifier, vp_point(ed.view, p))
            tried += 1
            if ed.scene.selected_wires() == [key]:
                hits += 1
            else:
                missed.append((k, ed.scene.selected_wires()))
        assert tried >= 8 and hits == tried, f"wire {key}: {hits} of {tried} points hit; missed {missed}"


def test_dragging_from_a_port_centre_to_another_node_makes_a_wire(cwin, qtbot):
    ed = cwin.view.gen
    doc = ed.doc
    # an output port and a node with an input that it does not feed yet
    src = next(i for i, it in ed.scene.nodes.items() if it.output_ports)
    dst = next(i for i, it in ed.scene.nodes.items()
               if it.input_port is not None and i != src and i not in doc.node(src).ports[0])
    a, b = ed.scene.nodes[src], ed.scene.nodes[dst]
    ed.view.fit()
    depth = ed.undo_stack.count()
    drag(ed.view, vp_point(ed.view, a.output_ports[0].scenePos()), vp_point(ed.view, b.input_port.scenePos()))
    assert dst in doc.node(src).ports[0]
    assert ed.undo_stack.count() == depth + 1 and ed.undo_stack.undoText().startswith("Wire")
    settle(qtbot, cwin.view)
    assert (src, 0, dst) in ed.scene.wires


def test_dragging_a_node_moves_it_in_the_document_with_an_undo_entry(cwin, qtbot):
    for ed in cwin.view.editors.values():
        nid = next(i for i, it in ed.scene.nodes.items() if ed.doc.stored_position(i) is not None)
        item = ed.scene.nodes[nid]
        readable(ed, item.scenePos())
        before = ed.doc.stored_position(nid)
        depth = ed.undo_stack.count()
        start = vp_point(ed.view, item.scenePos())
        drag(ed.view, start, start + QPointF(80, 60).toPoint())
        after = ed.doc.stored_position(nid)
        assert after != before and after[0] == pytest.approx(before[0] + 80, abs=20)
        assert ed.undo_stack.count() == depth + 1
        ed.undo_stack.undo()
        assert ed.doc.stored_position(nid) == before


def test_f8_three_times_then_delete_deletes_exactly_the_difference_shown(cwin, qtbot):
    v = cwin.view
    for _ in range(3):
        press_key(cwin, v.ref, Qt.Key_F8)
    if v.diff_index != 2:  # no active window here: the shortcut did not reach the window
        v.diff_index = -1
        for _ in range(3):
            cwin.actions["compare.next"].trigger()
    d = v.diffs[v.diff_index]
    assert d.kind == "missing-edge"  # the demo pair's third difference
    before = {r: snapshot(ed.doc) for r, ed in v.editors.items()}
    nodes = {r: len(ed.doc.node_ids()) for r, ed in v.editors.items()}
    wires = {r: wire_count(ed.doc) for r, ed in v.editors.items()}
    # what is selected is the difference, nothing more
    assert v.ref.scene.selected_node_ids() == [] and len(v.ref.scene.selected_wires()) == 1
    cwin.actions["edit.delete"].trigger()
    assert len(v.ref.doc.node_ids()) == nodes["reference"]
    assert wire_count(v.ref.doc) == wires["reference"] - 1
    assert snapshot(v.gen.doc) == before["generated"]
    src, dst = d.edge[0], d.edge[-1]
    assert dst not in [t for p in v.ref.doc.node(src).ports for t in p]
    v.ref.undo_stack.undo()
    assert snapshot(v.ref.doc) == before["reference"]


def test_a_selected_missing_wire_keeps_its_missing_colour(cwin):
    v = cwin.view
    v.goto_difference(next(k for k, d in enumerate(v.diffs) if d.kind == "missing-edge"))
    (key,) = v.ref.scene.selected_wires()
    wire = v.ref.scene.wires[key]
    from PySide6.QtGui import QColor

    from gindex_studio.ui.canvas.look import DEFAULT_LOOK

    assert wire.pen().color() == QColor(DEFAULT_LOOK.wire("missing").color)
    assert wire.halo is not None and wire.halo.isVisible()  # the selection shows as a halo under it
    assert wire.pen().style() == Qt.DashLine


def test_headers_banner_status_and_differences_follow_edits(cwin, qtbot):
    v = cwin.view
    ref_title = v.sides["reference"].title
    assert "6 nodes and 1 config node" in ref_title.text()  # as drawn: the tab is no node (issue 32)
    victim = v.ref.scene.nodes[next(iter(v.ref.scene.nodes))]
    v.ref.scene.select_nodes([victim.node_id])
    cwin.actions["edit.delete"].trigger()
    settle(qtbot, v)
    assert "5 nodes and 1 config node" in ref_title.text()
    cwin.statusBar().showMessage("a message about the first pair")
    # a pair whose model text had nothing recoverable, then the user adds nodes
    ref_p, _gen = demo_pair("telegram-2-reply")
    assert cwin.open_pair(ref_p, None, "Sorry, I cannot write that flow.")
    settle(qtbot, v)
    assert cwin.statusBar().currentMessage() == ""
    gen = v.sides["generated"]
    assert "0 nodes" in gen.title.text() and gen.banner.isVisible()
    v.gen.add_node("inject", QPointF(100, 100))
    settle(qtbot, v)
    assert "1 node" in gen.title.text() and "0 recovered" not in gen.title.text()
    assert not gen.banner.isVisible()
    v.gen.undo_stack.undo()
    settle(qtbot, v)
    assert gen.banner.isVisible()


def test_identical_programs_say_they_match(cwin, qtbot):
    ref_p, _gen = demo_pair("telegram-2-reply")
    assert cwin.open_pair(ref_p, ref_p)
    settle(qtbot, cwin.view)
    assert cwin.view.result.delta == 0
    lst = cwin.view.panel.diff_list
    assert lst.count() == 1 and "match" in lst.item(0).text()
