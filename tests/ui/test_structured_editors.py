"""Structured editors in the inspector, driven as a user does: a typed value (``payload`` with
``payloadType``) is one control; a change node's rules are rows of set / change / delete / move
with Add, remove, reorder and the raw JSON one click away. Every edit is one undo entry."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton, QToolButton

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.ui.panels.change_rules import ChangeRulesEditor, RuleRow
from gindex_studio.ui.panels.typed_value import TypedValueField

from .test_authoring import select


def open_flow(window, nodes):
    return window.add_editor(flow_from_nodes(nodes), None)


def pick(combo, text: str) -> None:
    """Open the combo's list with a click, walk to ``text`` with the arrow keys and press Enter
    (one choice, as a user makes it: the entries passed on the way are not chosen)."""
    target = combo.findText(text)
    assert target >= 0, text
    QTest.mouseClick(combo, Qt.LeftButton)
    view = combo.view()
    assert view.isVisible()
    while view.currentIndex().row() != target:
        QTest.keyClick(view, Qt.Key_Down if view.currentIndex().row() < target else Qt.Key_Up)
    QTest.keyClick(view, Qt.Key_Return)
    assert combo.currentText() == text and not view.isVisible()


def retype(edit, text: str) -> None:
    QTest.mouseClick(edit, Qt.LeftButton)
    edit.selectAll()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, Qt.Key_Return)


def test_a_typed_value_is_one_control_and_each_edit_is_one_undo_entry(window):
    ed = open_flow(window, [{"id": "i", "type": "inject", "name": "tick", "payload": "5", "payloadType": "num",
                             "x": 200, "y": 150, "wires": [[]]}])
    select(ed, "i")
    field = window.inspector.editors["props"].rows[0].field  # msg.payload: the first of the Properties
    assert isinstance(field, TypedValueField)
    assert "payloadType" not in window.inspector.editors  # not a second, unrelated field
    assert (field.kind.currentText(), field.edit.text()) == ("number", "5")
    window.inspector.scroll.ensureWidgetVisible(field)

    pick(field.kind, "string")
    assert ed.doc.node("i").data["payloadType"] == "str" and ed.doc.node("i").data["payload"] == "5"
    assert ed.undo_stack.count() == 1
    retype(field.edit, "hello")
    assert ed.doc.node("i").data["payload"] == "hello"
    assert ed.undo_stack.count() == 2 and ed.undo_stack.undoText() == "Edit Properties of tick"

    pick(field.kind, "timestamp")  # a timestamp takes no text
    assert ed.doc.node("i").data["payloadType"] == "date" and not field.edit.isEnabled()

    ed.undo_stack.undo()
    ed.undo_stack.undo()
    assert ed.doc.node("i").data["payload"] == "5" and ed.doc.node("i").data["payloadType"] == "str"
    field = window.inspector.editors["props"].rows[0].field
    assert (field.kind.currentText(), field.edit.text()) == ("string", "5")  # the control follows undo


def test_a_typed_value_the_node_lacks_writes_both_keys_at_once(window):
    ed = open_flow(window, [{"id": "t", "type": "template", "name": "page", "x": 200, "y": 150, "wires": [[]]}])
    select(ed, "t")
    field = window.inspector.editors["field"]
    window.inspector.scroll.ensureWidgetVisible(field)
    pick(field.kind, "flow.")
    data = ed.doc.node("t").data
    assert data["fieldType"] == "flow" and data["field"] == "payload"  # the default value, written with its type
    assert ed.undo_stack.count() == 1


def rows(editor: ChangeRulesEditor) -> list[RuleRow]:
    return editor.rows


def test_change_rules_are_rows_added_edited_reordered_and_removed(window, qtbot):
    ed = open_flow(window, [{"id": "c", "type": "change", "name": "prep", "x": 200, "y": 150, "wires": [[]],
                             "rules": [{"t": "set", "p": "payload", "pt": "msg", "to": "hi", "tot": "str", "dc": True}]}])
    select(ed, "c")
    rules = window.inspector.editors["rules"]
    assert isinstance(rules, ChangeRulesEditor)
    (first,) = rows(rules)
    assert first.action.currentText() == "Set" and first.to.edit.text() == "hi"
    assert not first.from_.isVisibleTo(rules)  # set has no "from"

    add = rules.findChild(QPushButton, "add-rule")
    window.inspector.scroll.ensureWidgetVisible(add)
    QTest.mouseClick(add, Qt.LeftButton)
    assert [r["t"] for r in ed.doc.node("c").data["rules"]] == ["set", "set"]
    assert ed.undo_stack.count() == 1
    second = rows(rules)[1]
    assert second.isVisibleTo(rules)

    pick(second.action, "Change")
    assert second.from_.isVisibleTo(rules) and second.to.isVisibleTo(rules)
    retype(second.prop.edit, "topic")
    retype(second.from_.edit, "old")
    retype(second.to.edit, "new")
    assert ed.doc.node("c").data["rules"][1] == {
        "t": "change", "p": "topic", "pt": "msg", "from": "old", "fromt": "str", "to": "new", "tot": "str"}
    assert ed.undo_stack.count() == 5  # add, action, property, from, to: one entry each
    # the first rule's unknown key (deep clone) is kept through the edits
    assert ed.doc.node("c").data["rules"][0]["dc"] is True

    up = rows(rules)[1].findChild(QToolButton, "rule-up")
    QTest.mouseClick(up, Qt.LeftButton)
    assert [r["t"] for r in ed.doc.node("c").data["rules"]] == ["change", "set"]
    assert [r.action.currentText() for r in rows(rules)] == ["Change", "Set"]

    pick(rows(rules)[1].action, "Delete")
    assert ed.doc.node("c").data["rules"][1] == {"t": "delete", "p": "payload", "pt": "msg", "dc": True}
    assert not rows(rules)[1].to.isVisibleTo(rules)

    remove = rows(rules)[0].findChild(QToolButton, "rule-remove")
    QTest.mouseClick(remove, Qt.LeftButton)
    assert [r["t"] for r in ed.doc.node("c").data["rules"]] == ["delete"]
    assert len(rows(rules)) == 1

    # undo walks back through every step, and the rows follow
    while ed.undo_stack.canUndo():
        ed.undo_stack.undo()
    assert ed.doc.node("c").data["rules"] == [{"t": "set", "p": "payload", "pt": "msg", "to": "hi", "tot": "str", "dc": True}]
    assert [r.action.currentText() for r in rows(window.inspector.editors["rules"])] == ["Set"]


def test_move_rule_targets_only_properties(window):
    ed = open_flow(window, [{"id": "c", "type": "change", "x": 200, "y": 150, "wires": [[]],
                             "rules": [{"t": "set", "p": "payload", "pt": "msg", "to": "5", "tot": "num"}]}])
    select(ed, "c")
    (row,) = window.inspector.editors["rules"].rows
    pick(row.action, "Move")
    assert [row.to.kind.itemData(k) for k in range(row.to.kind.count())] == ["msg", "flow", "global"]
    assert ed.doc.node("c").data["rules"] == [{"t": "move", "p": "payload", "pt": "msg", "to": "5", "tot": "msg"}]


def test_the_raw_json_of_the_rules_stays_available(window):
    ed = open_flow(window, [{"id": "c", "type": "change", "x": 200, "y": 150, "wires": [[]],
                             "rules": [{"t": "delete", "p": "x", "pt": "msg"}]}])
    select(ed, "c")
    rules = window.inspector.editors["rules"]
    raw = rules.findChild(QToolButton, "rules-json")
    window.inspector.scroll.ensureWidgetVisible(raw)
    QTest.mouseClick(raw, Qt.LeftButton)
    assert rules.json.isVisibleTo(rules) and not rules.add_button.isVisibleTo(rules)
    text = rules.json.text
    QTest.mouseClick(text.viewport(), Qt.LeftButton)
    text.selectAll()
    QTest.keyClicks(text, '[{"t": "delete", "p": "y", "pt": "flow"}')  # missing bracket
    QTest.keyClick(text, Qt.Key_Return, Qt.ControlModifier)
    assert rules.json.error.isVisibleTo(rules) and "Not valid JSON" in rules.json.error.text()
    assert ed.doc.node("c").data["rules"] == [{"t": "delete", "p": "x", "pt": "msg"}]  # nothing written
    QTest.keyClick(text, Qt.Key_End, Qt.ControlModifier)
    QTest.keyClicks(text, "]")
    QTest.keyClick(text, Qt.Key_Return, Qt.ControlModifier)
    assert ed.doc.node("c").data["rules"] == [{"t": "delete", "p": "y", "pt": "flow"}]
    QTest.mouseClick(raw, Qt.LeftButton)  # back to the rows, which show the JSON's rule
    (row,) = rules.rows
    assert (row.action.currentText(), row.prop.kind.currentText(), row.prop.edit.text()) == ("Delete", "flow.", "y")


def test_a_long_property_path_shows_its_start_in_a_narrow_row(window):
    """Issue 32, item 10: a change rule showed "lMessage.chat.id" (the end of a long path, its
    start scrolled away); the field shows the path from its start, the whole path in its tooltip."""
    path = "payload.originalMessage.chat.id"
    ed = open_flow(window, [{"id": "c", "type": "change", "x": 200, "y": 150, "wires": [[]],
                             "rules": [{"t": "set", "p": "chatId", "pt": "msg", "to": path, "tot": "msg"}]}])
    select(ed, "c")
    (row,) = window.inspector.editors["rules"].rows
    edit = row.to.edit
    assert edit.text() == path and edit.cursorPosition() == 0 and edit.toolTip() == path
    retype(row.prop.edit, "chat")  # an edit elsewhere in the rule rebuilds nothing and keeps the start shown
    (row,) = window.inspector.editors["rules"].rows
    assert row.to.edit.cursorPosition() == 0
