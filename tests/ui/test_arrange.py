"""Auto-layout, align/distribute, problems panel, actions registry, app entry."""
from __future__ import annotations

import os

import itertools
import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from gindex_studio.core.flows.flow import flow_from_nodes, read_flow_file
from gindex_studio.core.editing.layout import layered_layout

from .conftest import DEMO_PROGRAMS, snapshot


def overlaps(ed):
    rects = [(i, it.scene_body()) for i, it in ed.scene.nodes.items() if it.isVisible()]
    return [(a, b) for (a, ra), (b, rb) in itertools.combinations(rects, 2) if ra.intersects(rb)]


def crossings(ed):
    import itertools as it

    segs = []
    for (s, p, d), w in ed.scene.wires.items():
        segs.append((w.src.output_pos(p), w.dst.input_pos(), s, d))
    n = 0
    for (a1, a2, s1, d1), (b1, b2, s2, d2) in it.combinations(segs, 2):
        if {s1, d1} & {s2, d2}:
            continue
        if _cross(a1, a2, b1, b2):
            n += 1
    return n


def _cross(p1, p2, p3, p4):
    def o(a, b, c):
        return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x())

    return o(p1, p2, p3) * o(p1, p2, p4) < 0 and o(p3, p4, p1) * o(p3, p4, p2) < 0


def piled_flow(n=18, seed=3):
    rnd = random.Random(seed)
    nodes = []
    for i in range(n):
        targets = sorted({f"n{j}" for j in rnd.sample(range(i + 1, n), min(2, n - i - 1))}) if i < n - 1 else []
        nodes.append({"id": f"n{i}", "type": "function" if i else "inject", "name": f"step {i}",
                      "x": 200, "y": 200, "wires": [targets]})
    return flow_from_nodes(nodes)


def test_auto_layout_removes_overlaps_goes_left_to_right_and_undoes(make_editor):
    ed = make_editor(piled_flow())
    before = snapshot(ed.doc)
    assert overlaps(ed)
    ed.auto_layout()
    assert overlaps(ed) == []
    for (s, _p, d) in ed.scene.wires:
        assert ed.scene.nodes[s].pos().x() < ed.scene.nodes[d].pos().x()
    assert ed.undo_stack.undoText() == "Auto-layout" and ed.undo_stack.count() == 1
    ed.undo_stack.undo()
    assert snapshot(ed.doc) == before


@pytest.mark.parametrize("path", DEMO_PROGRAMS[::4], ids=lambda p: p.stem)
def test_auto_layout_of_demo_programs_has_no_overlaps(make_editor, path):
    ed = make_editor(read_flow_file(path))
    ed.auto_layout()
    assert overlaps(ed) == []


def test_layout_has_few_crossings_on_a_crossed_ladder():
    # two chains wired across: the layout must uncross them
    ids = ["a1", "a2", "a3", "b1", "b2", "b3"]
    edges = [("a1", "b2"), ("b1", "a2"), ("a2", "b3"), ("b2", "a3")]
    pos = layered_layout(ids, edges, {})
    from PySide6.QtCore import QPointF

    segs = [(QPointF(*pos[s]), QPointF(*pos[d])) for s, d in edges]
    assert sum(_cross(a, b, c, d) for (a, b), (c, d) in itertools.combinations(segs, 2)) == 0


def test_layout_of_cycles_and_unwired_nodes_terminates_without_overlap(make_editor):
    ed = make_editor(flow_from_nodes([
        {"id": "a", "type": "function", "x": 0, "y": 0, "wires": [["b"]]},
        {"id": "b", "type": "function", "x": 0, "y": 0, "wires": [["a", "b"]]},
        {"id": "c", "type": "debug", "x": 0, "y": 0, "wires": []},
        {"id": "d", "type": "debug", "x": 0, "y": 0, "wires": []},
    ]))
    ed.auto_layout()
    assert overlaps(ed) == []


def test_nodes_without_positions_are_placed_without_changing_the_file(make_editor):
    nodes = [{"id": f"n{i}", "type": "function", "wires": [[f"n{i + 1}"]] if i < 5 else []} for i in range(6)]
    ed = make_editor(flow_from_nodes(nodes))
    assert overlaps(ed) == []
    assert all("x" not in ed.doc.node(i).data for i in ed.doc.node_ids())


def test_align_and_distribute_selection(make_editor):
    ed = make_editor(flow_from_nodes([
        {"id": "a", "type": "debug", "x": 100, "y": 100, "wires": []},
        {"id": "b", "type": "debug", "x": 140, "y": 180, "wires": []},
        {"id": "c", "type": "debug", "x": 120, "y": 400, "wires": []},
    ]))
    before = snapshot(ed.doc)
    ed.scene.select_nodes(["a", "b", "c"])
    ed.align_selection("left")
    xs = {ed.scene.nodes[i].scene_body().left() for i in "abc"}
    assert len(xs) == 1
    ed.distribute_selection("v")
    ys = sorted(ed.scene.nodes[i].pos().y() for i in "abc")
    assert ys[1] - ys[0] == pytest.approx(ys[2] - ys[1])
    assert [ed.undo_stack.text(k) for k in range(2)] == ["Align left", "Distribute vertically"]
    ed.undo_stack.undo()
    ed.undo_stack.undo()
    assert snapshot(ed.doc) == before


def test_problems_panel_lists_and_jumps(window, qtbot):
    flow = flow_from_nodes([
        {"id": "t1", "type": "tab", "label": "One"}, {"id": "t2", "type": "tab", "label": "Two"},
        {"id": "a", "type": "mystery", "z": "t2", "x": 100, "y": 100, "wires": [["gone"]]},
        {"id": "b", "type": "inject", "z": "t1", "x": 100, "y": 100, "wires": [[]]},
        {"id": "b", "type": "inject", "z": "t1", "x": 300, "y": 100, "wires": [[]]},
        {"id": "c", "type": "change", "z": "t1", "rules": "[oops", "x": 300, "y": 300, "wires": [[]]},
    ])
    ed = window.add_editor(flow, None)
    qtbot.waitUntil(lambda: window.problems.topLevelItemCount() > 0)
    kinds = sorted(window.problems.topLevelItem(k).text(0) for k in range(window.problems.topLevelItemCount()))
    assert {"unknown-type", "dangling-wire", "duplicate-id"} <= set(kinds)
    row = next(window.problems.topLevelItem(k) for k in range(window.problems.topLevelItemCount())
               if window.problems.topLevelItem(k).text(0) == "unknown-type")
    window.problems.itemClicked.emit(row, 0)
    assert ed.tabs.currentIndex() == 1 and ed.scene.selected_node_ids() == ["a"]
    assert window.inspector.node_id == "a"
    assert ed.view.visible_scene_rect().contains(ed.scene.nodes["a"].pos())


def test_actions_have_node_red_shortcuts_shown_in_tooltips_and_menus(window):
    A = window.actions
    expect = {"edit.copy": "Ctrl+C", "edit.paste": "Ctrl+V", "edit.cut": "Ctrl+X", "edit.delete": "Del",
              "edit.undo": "Ctrl+Z", "edit.redo": "Ctrl+Y", "edit.select_all": "Ctrl+A",
              "view.zoom_in": "Ctrl+=", "view.zoom_out": "Ctrl+-", "view.fit": "Ctrl+0",
              "arrange.left": "Alt+A, L"}
    for aid, keys in expect.items():
        assert A[aid].shortcut().toString() == keys
        assert A[aid].shortcut().toString(QKeySequence.NativeText) in A[aid].toolTip()
    menus = [a.menu() for a in window.menuBar().actions() if a.menu()]
    in_menus = {x.objectName() for m in menus for x in m.actions()}
    assert set(A.actions) <= in_menus
    sequences = [a.shortcut().toString() for a in A.actions.values() if not a.shortcut().isEmpty()]
    assert len(sequences) == len(set(sequences))  # no clashes


def test_keyboard_shortcuts_drive_the_editor(window, qtbot):
    from PySide6.QtTest import QTest

    ed = window.add_editor(flow_from_nodes([
        {"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [[]]},
        {"id": "b", "type": "debug", "x": 300, "y": 100, "wires": []},
    ]), None)
    window.activateWindow()
    ed.view.setFocus()
    qtbot.waitUntil(ed.view.hasFocus)
    QTest.keyClick(ed.view, Qt.Key_A, Qt.ControlModifier)
    assert sorted(ed.scene.selected_node_ids()) == ["a", "b"]
    QTest.keyClick(ed.view, Qt.Key_Delete)
    assert ed.doc.node_ids() == []
    QTest.keyClick(ed.view, Qt.Key_Z, Qt.ControlModifier)
    assert ed.doc.node_ids() == ["a", "b"]
    QTest.keyClick(ed.view, Qt.Key_Y, Qt.ControlModifier)
    assert ed.doc.node_ids() == []


def test_main_opens_the_demo_when_given_no_files(monkeypatch, qtbot, tmp_path):
    from PySide6.QtWidgets import QApplication

    import gindex_studio.ui.app as app

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    seen = {}

    def fake_exec():
        win = app.LAST_WINDOW
        qtbot.waitUntil(lambda: bool(win.editors()), timeout=5000)
        seen["path"] = win.editor.path
        seen["title"] = win.editor.title()
        seen["nodes"] = len(win.editor.scene.nodes)
        win.close_editor(win.editor, ask=False)
        win.close()
        win.autosave.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", staticmethod(fake_exec))
    monkeypatch.setattr(app.MainWindow, "offer_restore", lambda self: 0)
    assert app.main([]) == 0
    # the demo is an untitled copy of the bundled program (Save never writes into the resources)
    assert seen["path"] is None and seen["nodes"] > 3
    assert seen["title"] == f"{os.path.basename(app.demo_program())} (copy)"


def test_config_nodes_are_listed_and_open_in_the_inspector(window, qtbot):
    path = next(p for p in DEMO_PROGRAMS if p.parent.name == "template-form")
    window.open_files([str(path)], wait=True)
    ed = window.editor
    configs = ed.doc.config_ids()
    assert configs and not set(configs) & set(ed.scene.nodes)  # not drawn
    assert ed.config_button.isVisible() and str(len(configs)) in ed.config_button.text()
    ed._fill_config_menu()
    ed.config_menu.actions()[0].trigger()
    assert window.inspector.node_id == configs[0]


def test_far_zoom_draws_nodes_in_one_batch_and_they_stay_clickable(make_editor):
    nodes = [{"id": f"n{i}", "type": "function", "x": 100 + 200 * (i % 10), "y": 100 + 80 * (i // 10),
              "wires": [[f"n{i + 1}"]] if i < 99 else []} for i in range(100)]
    ed = make_editor(flow_from_nodes(nodes))
    ed.view.set_zoom(0.2)
    assert ed.scene.low_detail
    assert ed.scene.nodes["n5"].flags() & ed.scene.nodes["n5"].GraphicsItemFlag.ItemHasNoContents
    ed.view.centerOn(ed.scene.nodes["n5"])
    from .conftest import click

    click(ed.view, ed.scene.nodes["n5"].scenePos())
    assert ed.scene.selected_node_ids() == ["n5"]
    from PySide6.QtGui import QImage, QPainter

    img = QImage(ed.view.viewport().size(), QImage.Format_ARGB32)
    p = QPainter(img)
    ed.view.render(p)
    p.end()
    at = ed.view.mapFromScene(ed.scene.nodes["n6"].scenePos())
    from gindex_studio.ui.library_access import node_type_color

    assert img.pixelColor(at).name() == node_type_color(ed.doc.library, "function")  # drawn in its colour
    ed.view.set_zoom(1.0)
    assert not ed.scene.low_detail and not (ed.scene.nodes["n5"].flags() & ed.scene.nodes["n5"].GraphicsItemFlag.ItemHasNoContents)
