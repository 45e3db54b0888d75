"""Authoring a whole benchmark task from an empty canvas, as a user does it: New Task, the task
fields, palette adds, wiring by dragging, the bot config node created from the inspector's field,
save as a dataset file, and the command line scores the file."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QPushButton

from gindex_studio.core.flows.flow import flow_from_nodes

from .conftest import click, drag, vp_point

ROOT = Path(__file__).resolve().parents[2]


def palette_add(window, text: str) -> str:
    """Type in the palette's filter and press Enter; returns the id of the node added."""
    ed = window.editor
    before = set(ed.doc.node_ids())
    window.palette.search.clear()
    QTest.keyClicks(window.palette.search, text)
    QTest.keyClick(window.palette.search, Qt.Key_Return)
    (new,) = set(ed.doc.node_ids()) - before
    return new


def wire(ed, src: str, dst: str) -> None:
    a, b = ed.scene.nodes[src], ed.scene.nodes[dst]
    drag(ed.view, vp_point(ed.view, a.output_ports[0].scenePos()), vp_point(ed.view, b.input_port.scenePos()))


def select(ed, node_id: str) -> None:
    ed.view.centerOn(ed.scene.nodes[node_id])
    click(ed.view, ed.scene.nodes[node_id].scenePos())
    assert ed.scene.selected_node_ids() == [node_id]


def test_author_a_task_with_its_config_node_save_it_and_the_cli_scores_it(window, qtbot, tmp_path):
    window.actions["file.new_task"].trigger()
    ed = window.editor
    qtbot.wait(1)  # the new tab's first fit
    header = ed.prompt_box
    assert header.isVisible() and window.actions["file.as_task"].isChecked()
    QTest.keyClicks(header.title, "Search and reply")
    QTest.keyClicks(header.domain, "telegram-search")
    QTest.keyClicks(header.prompt, "When a Telegram message arrives, search Google for its text and reply with the first result")

    receive = palette_add(window, "telegram receiver")
    search = palette_add(window, "http request")
    send = palette_add(window, "telegram sender")
    assert [ed.doc.node(i).type for i in (receive, search, send)] == [
        "chatbot-telegram-receive", "http request", "chatbot-telegram-send"]
    wire(ed, receive, search)
    wire(ed, search, send)
    assert ed.doc.node(receive).ports == [[search]] and ed.doc.node(search).ports == [[send]]

    # the receiver's Bot field: "Create new chatbot-telegram-node…" (the last entry), by keyboard
    select(ed, receive)
    field = window.inspector.editors["bot"]
    field.combo.setFocus()
    QTest.keyClick(field.combo, Qt.Key_End)
    (bot,) = ed.doc.config_ids()
    assert ed.doc.node(bot).type == "chatbot-telegram-node"
    assert ed.doc.node(receive).data["bot"] == bot
    assert field.value() == bot
    # the sender picks the same bot from its list
    select(ed, send)
    field = window.inspector.editors["bot"]
    field.combo.setFocus()
    QTest.keyClick(field.combo, Qt.Key_Down)
    assert ed.doc.node(send).data["bot"] == bot
    # edit the bot itself: the pencil beside the field shows it in the inspector
    QTest.mouseClick(field.edit_button, Qt.LeftButton)
    assert window.inspector.node_id == bot
    name = window.inspector.editors["botname"]
    QTest.keyClicks(name, "searchbot")
    QTest.keyClick(name, Qt.Key_Return)
    assert ed.doc.node(bot).data["botname"] == "searchbot"
    assert not [p for p in ed.doc.problems() if "config" in p.kind]

    path = tmp_path / "telegram-search-1.json"
    window.dialogs.next_save_path = str(path)
    window.actions["file.save"].trigger()
    saved = json.loads(path.read_text())
    assert list(saved) == ["title", "text", "flow", "name"]
    assert saved["title"] == "Search and reply" and saved["name"] == "telegram-search"
    assert saved["text"].startswith("When a Telegram message arrives")
    assert {n["type"] for n in saved["flow"]} == {
        "chatbot-telegram-receive", "http request", "chatbot-telegram-send", "chatbot-telegram-node"}

    # a model that forgot the reply: Δ > 0, and the CLI reads the task file as the reference
    generated = tmp_path / "generated.json"
    generated.write_text(json.dumps([n for n in saved["flow"] if n["id"] != send]))
    out = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "score", str(path), str(generated), "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["missing_nodes"] == [send] and result["delta"] > 0
    same = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "score", str(path), str(path), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert json.loads(same.stdout)["delta"] == 0


def test_a_bare_array_becomes_a_task_and_back_with_undo(window, tmp_path):
    ed = window.new_file()
    assert not ed.prompt_box.isVisible() and not window.actions["file.as_task"].isChecked()
    window.actions["file.as_task"].trigger()
    assert ed.prompt_box.isVisible() and ed.doc.flow.container.kind == "dataset"
    QTest.keyClicks(ed.prompt_box.title, "T")
    path = tmp_path / "t.json"
    window.dialogs.next_save_path = str(path)
    window.save()
    assert json.loads(path.read_text()) == {"title": "T", "text": "", "flow": [], "name": ""}
    window.actions["file.as_task"].trigger()
    assert not ed.prompt_box.isVisible() and ed.doc.flow.container.kind == "array"
    window.save()
    assert json.loads(path.read_text()) == []
    ed.undo_stack.undo()  # back to the task, title kept
    assert ed.doc.task_field("title") == "T" and window.actions["file.as_task"].isChecked()


def test_a_dangling_config_reference_is_a_problem_row(window, qtbot):
    flow = flow_from_nodes([
        {"id": "r", "type": "chatbot-telegram-receive", "name": "incoming", "bot": "gone", "x": 100, "y": 100, "wires": [[]]},
        {"id": "t", "type": "ui_tab", "name": "Home"},
        {"id": "s", "type": "chatbot-telegram-send", "bot": "t", "x": 300, "y": 100, "wires": []},
    ])
    ed = window.add_editor(flow, None)
    window.problems.refresh()
    rows = [[window.problems.topLevelItem(k).text(c) for c in range(3)] for k in range(window.problems.topLevelItemCount())]
    assert ["missing-config", "incoming", "Bot: no chatbot-telegram-node node with id 'gone' in this flow"] in rows
    assert ["wrong-config-type", "telegram sender", 'Bot: "Home" is a ui_tab, not a chatbot-telegram-node'] in rows
    # the field shows the dangling id rather than hiding it
    select(ed, "r")
    assert window.inspector.editors["bot"].combo.currentText().startswith("⚠ gone")


def test_a_cycle_is_one_problem_row_naming_its_nodes(window):
    flow = flow_from_nodes([
        {"id": "a1", "type": "function", "name": "parse", "x": 100, "y": 100, "wires": [["b2"]]},
        {"id": "b2", "type": "function", "name": "format", "x": 300, "y": 100, "wires": [["a1"]]},
    ])
    ed = window.add_editor(flow, None)
    window.problems.refresh()
    assert window.problems.topLevelItemCount() == 1
    row = window.problems.topLevelItem(0)
    assert (row.text(0), row.text(2)) == ("cycle", '2 nodes wired in a loop: "parse" → "format"')
    assert ed.doc.problems_by_node().keys() == {"a1", "b2"}  # both nodes carry the badge


def test_config_nodes_from_the_palette_are_edited_and_deleted_in_the_inspector(window):
    ed = window.new_file()
    item = window.palette.type_items["chatbot-telegram-node"]
    window.palette.tree.itemActivated.emit(item, 0)
    (bot,) = ed.doc.config_ids()
    assert window.inspector.node_id == bot and bot not in ed.scene.nodes
    assert ed.config_button.isVisibleTo(ed) and ed.config_button.text() == "Config nodes (1)"
    assert window.inspector.findChild(QLabel, "config-users").text() == "Config node, used by 0 nodes"
    delete = window.inspector.findChild(QPushButton, "delete-config")
    QTest.mouseClick(delete, Qt.LeftButton)
    assert ed.doc.config_ids() == [] and window.inspector.node_id is None
    ed.undo_stack.undo()
    assert ed.doc.config_ids() == [bot]


def test_palette_ranks_exact_matches_first_and_enter_adds_the_top_match(window):
    ed = window.new_file()
    QTest.keyClicks(window.palette.search, "function")
    shown = window.palette.visible_types()
    assert shown[0] == "function"
    assert "exec" not in shown[:2]  # the rest of the "functional" category comes after name matches
    QTest.keyClick(window.palette.search, Qt.Key_Return)
    (nid,) = ed.doc.node_ids()
    assert ed.doc.node(nid).type == "function"


def body(ed, node_id):
    item = ed.scene.nodes[node_id]
    return item.mapRectToScene(item.body())


def test_two_adds_in_a_row_do_not_overlap(window):
    ed = window.new_file()
    for _ in range(3):
        window.palette.tree.itemActivated.emit(window.palette.type_items["debug"], 0)
    window.palette.tree.itemActivated.emit(window.palette.type_items["change"], 0)
    ids = ed.doc.node_ids()
    boxes = [body(ed, i) for i in ids]
    assert len(ids) == 4
    for k in range(len(boxes)):
        for j in range(k + 1, len(boxes)):
            assert not boxes[k].intersects(boxes[j]), (ids[k], ids[j])
    # quick-add at an occupied place too
    popup = ed.open_quick_add(ed.scene.nodes[ids[0]].scenePos(), "inject")
    QTest.keyClick(popup.edit, Qt.Key_Return)
    (new,) = set(ed.doc.node_ids()) - set(ids)
    assert not any(body(ed, new).intersects(b) for b in boxes)
