"""Nothing is lost: edits made on the compare canvases are asked about before the window closes or
another pair or experiment replaces them, and "Save" writes what the canvas shows.

Edits are made as a user makes them (a node dragged by its body, a wire clicked at its middle and
deleted with the Delete key); the answers to the questions are scripted."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from gindex_studio.core.flows.flow import read_flow_file
from gindex_studio.paths import DEMO_DIR

from .conftest import drag, shown_compare_window, vp_point
from .test_compare import demo_pair, settle


class Asked:
    """Scripted questions that record what was asked."""

    def __init__(self):
        self.errors, self.asked = [], []
        self.answer = "cancel"
        self.next_file = None

    def error(self, title, text):
        self.errors.append((title, text))

    def ask_save(self, name):
        self.asked.append(name)
        return self.answer

    def save_file(self, title, suggestion, filt=""):
        return self.next_file

    def open_file(self, title, filt):
        return self.next_file

    def open_directory(self, title):
        return None

    def ask_pair(self, reference=""):
        return None


@pytest.fixture
def pair(tmp_path):
    ref, gen = demo_pair("telegram-2-reply")
    shutil.copy(ref, tmp_path / "ref.json")
    shutil.copy(gen, tmp_path / "gen.txt")
    return str(tmp_path / "ref.json"), str(tmp_path / "gen.txt")


@pytest.fixture
def cwin(qtbot, library, pair):
    win = shown_compare_window(qtbot, library, 1366, 768)
    win.dialogs = Asked()
    assert win.open_pair(*pair)
    settle(qtbot, win.view)
    yield win
    win.dialogs.answer = "discard"
    win.view.runner.wait(5000)
    win.controller.runner.wait(5000)


def drag_a_node(ed, dx=80, dy=40) -> tuple[str, tuple]:
    """Drag a node by the middle of its body; returns its id and its stored position before."""
    nid = next(i for i, it in ed.scene.nodes.items() if ed.doc.stored_position(i) is not None)
    item = ed.scene.nodes[nid]
    before = ed.doc.stored_position(nid)
    start = vp_point(ed.view, item.scene_body().center())
    drag(ed.view, start, start + QPointF(dx, dy).toPoint())
    assert ed.doc.stored_position(nid) != before
    return nid, before


def delete_a_wire(ed):
    key, wire = next(iter(ed.scene.wires.items()))
    mid = wire.path().pointAtPercent(0.5)
    ed.view.zoom_reset()
    ed.view.centerOn(mid)
    QTest.mouseClick(ed.view.viewport(), Qt.LeftButton, Qt.NoModifier, vp_point(ed.view, mid))
    assert ed.scene.selected_wires() == [key]
    ed.view.setFocus()
    QTest.keyClick(ed.view.viewport(), Qt.Key_Delete)
    assert key[2] not in ed.doc.node(key[0]).ports[key[1]]
    return key


def test_an_untouched_pair_closes_without_a_question(cwin):
    assert cwin.close()
    assert cwin.dialogs.asked == []


def test_closing_after_a_drag_asks_and_cancel_keeps_the_edit(cwin, qtbot):
    ed = cwin.view.ref
    ed.view.zoom_reset()
    nid, before = drag_a_node(ed)
    moved = ed.doc.stored_position(nid)
    assert not cwin.close()
    assert cwin.dialogs.asked == ["the reference program"]
    assert cwin.isVisible() and ed.doc.stored_position(nid) == moved
    assert ed.scene.nodes[nid].scenePos() != QPointF(*before)  # still drawn where it was dropped


def test_save_writes_what_the_canvas_shows_and_then_nothing_is_asked(cwin, qtbot, tmp_path, pair):
    ed = cwin.view.ref
    ed.view.zoom_reset()
    nid, _before = drag_a_node(ed)
    moved = ed.doc.stored_position(nid)
    cwin.dialogs.answer, cwin.dialogs.next_file = "save", pair[0]
    assert cwin.close()
    saved = read_flow_file(pair[0]).by_id()[nid].data
    assert (saved["x"], saved["y"]) == pytest.approx(moved)
    cwin.dialogs.asked.clear()
    cwin.show()
    assert cwin.close() and cwin.dialogs.asked == []


def test_opening_another_pair_after_an_edit_asks_first(cwin, qtbot, pair):
    ed = cwin.view.gen
    key = delete_a_wire(ed)
    settle(qtbot, cwin.view)
    title = cwin.windowTitle()
    other = demo_pair("gmail-send")
    assert not cwin.open_pair(*other)  # cancelled: the edited pair stays
    assert cwin.dialogs.asked == ["the generated program"]
    assert key[2] not in ed.doc.node(key[0]).ports[key[1]] and cwin.windowTitle() == title
    assert key not in ed.scene.wires
    cwin.dialogs.answer = "discard"
    assert cwin.open_pair(*other)
    settle(qtbot, cwin.view)
    assert "gmail-send" in cwin.windowTitle()


def test_opening_another_experiment_over_edited_tasks_asks_first(cwin, qtbot, tmp_path):
    dst = tmp_path / "demo"
    for sub in ("programs", "generated"):
        shutil.copytree(Path(DEMO_DIR, sub), dst / sub)
    shutil.copy(Path(DEMO_DIR, "experiment.json"), dst / "experiment.json")
    exp = str(dst / "experiment.json")
    assert cwin.open_experiment(exp)
    qtbot.waitUntil(lambda: cwin.controller.result is not None and cwin.current_task is not None, timeout=10_000)
    k = cwin.controller.experiment.task_index("telegram-2-reply-4")
    cwin.tasks.select_task(k)
    assert cwin.current_task == k
    settle(qtbot, cwin.view)
    delete_a_wire(cwin.view.gen)
    assert not cwin.open_experiment(exp)
    assert cwin.dialogs.asked == [cwin.controller.experiment.name]
    assert cwin.controller.dirty and k in cwin.controller.edited


def test_a_missing_tab_or_config_node_is_not_copied_across(qtbot, library):
    """Issue 7, defect 6: a reference with a second workspace tab and a config node the generated
    program lacks. Clicking those differences in the list and pressing Copy Node Across
    (Ctrl+Shift+N) changes nothing and says why; a program node still copies."""
    from gindex_studio.core.flows.flow import flow_from_nodes

    ref = flow_from_nodes([
        {"id": "t1", "type": "tab", "label": "Flow 1"},
        {"id": "t2", "type": "tab", "label": "Flow 2"},
        {"id": "bot", "type": "chatbot-telegram-node", "botname": "b"},
        {"id": "a", "type": "inject", "z": "t1", "x": 100, "y": 100, "topic": "t", "wires": [["b"]]},
        {"id": "b", "type": "debug", "z": "t1", "x": 300, "y": 100, "wires": []},
        {"id": "c", "type": "debug", "z": "t1", "x": 300, "y": 200, "wires": []},
    ])
    gen = flow_from_nodes([
        {"id": "t1", "type": "tab", "label": "Flow 1"},
        {"id": "x", "type": "inject", "z": "t1", "x": 100, "y": 100, "topic": "t", "wires": [["y"]]},
        {"id": "y", "type": "debug", "z": "t1", "x": 300, "y": 100, "wires": []},
    ])
    win = shown_compare_window(qtbot, library, 1366, 768)
    win.dialogs = Asked()
    v = win.view
    v.set_pair(ref, gen, ref_name="ref", gen_name="gen")
    settle(qtbot, v)
    missing = {d.reference[0]: k for k, d in enumerate(v.diffs) if d.kind == "missing-node"}
    assert {"t2", "bot", "c"} <= set(missing)
    lst = v.panel.diff_list
    for nid in ("t2", "bot"):
        before = [n.data for n in v.gen.doc.flow.nodes]
        item = lst.item(missing[nid])
        lst.scrollToItem(item)
        QTest.mouseClick(lst.viewport(), Qt.LeftButton, Qt.NoModifier, lst.visualItemRect(item).center())
        assert v.diff_index == missing[nid]
        assert not v.copy_node_button.isEnabled() and "not copied" in v.copy_node_button.text()
        QTest.keyClick(lst, Qt.Key_N, Qt.ControlModifier | Qt.ShiftModifier)  # Copy Node Across
        assert [n.data for n in v.gen.doc.flow.nodes] == before and v.gen.undo_stack.count() == 0
        assert "not a program node" in win.statusBar().currentMessage()
    item = lst.item(missing["c"])
    QTest.mouseClick(lst.viewport(), Qt.LeftButton, Qt.NoModifier, lst.visualItemRect(item).center())
    assert v.copy_node_button.isEnabled()
    QTest.mouseClick(v.copy_node_button, Qt.LeftButton)
    assert v.gen.doc.has("c") and v.gen.doc.node("c").type == "debug"
    assert [n.type for n in v.gen.doc.flow.nodes].count("tab") == 1
    settle(qtbot, v)
    assert "c" in v.gen.scene.nodes
    win.dialogs.answer = "discard"
    v.runner.wait(5000)
