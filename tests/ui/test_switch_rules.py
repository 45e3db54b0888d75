"""The switch node's rules in the inspector, driven as a user does: one row per rule (operator
menu, typed value, the output it sends to), "+ add", reorder, remove; the node's Outputs and its
wires follow the rules; every edit is one undo entry; what is saved is what Node-RED 4 writes."""
from __future__ import annotations

import json

import pytest

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton, QToolButton

from gindex_studio.ui.model.commands import SetWires
from gindex_studio.ui.panels.switch_rules import SwitchRulesEditor

from .runtime_support import fire_and_collect
from .test_authoring import select
from .test_structured_editors import open_flow, pick, retype

#: a switch as Node-RED 4's palette drops it (10-switch.html's defaults), then placed and wired
SWITCH = {"id": "s", "type": "switch", "z": "t", "name": "", "property": "payload", "propertyType": "msg",
          "rules": [{"t": "eq", "v": "", "vt": "str"}], "checkall": "true", "repair": False, "outputs": 1,
          "x": 300, "y": 150, "wires": [[]]}


def _nodes(**switch):
    return [{"id": "t", "type": "tab", "label": "Flow 1"}, dict(SWITCH, **switch),
            {"id": "a", "type": "debug", "z": "t", "x": 500, "y": 100, "wires": []},
            {"id": "b", "type": "debug", "z": "t", "x": 500, "y": 200, "wires": []},
            {"id": "c", "type": "debug", "z": "t", "x": 500, "y": 300, "wires": []}]


def _rules(window) -> SwitchRulesEditor:
    w = window.inspector.editors["rules"]
    assert isinstance(w, SwitchRulesEditor)
    return w


def _press(window, button) -> None:
    window.inspector.scroll.ensureWidgetVisible(button)
    QTest.mouseClick(button, Qt.LeftButton)


def _author_two_rules(window, ed):
    """Row 1: == "ok"; "+ add"; row 2: otherwise."""
    select(ed, "s")
    rules = _rules(window)
    assert "outputs" not in window.inspector.editors  # Outputs follow the rules: no field of their own
    retype(rules.rows[0].value_field.edit, "ok")
    _press(window, rules.findChild(QPushButton, "add-rule"))
    row2 = rules.rows[1]
    assert row2.value_field.edit.hasFocus()  # the keyboard is in the new rule
    window.inspector.scroll.ensureWidgetVisible(row2)
    pick(row2.op, "otherwise")
    return rules


def test_rules_are_rows_and_the_outputs_follow_them(window, tmp_path):
    ed = open_flow(window, _nodes())
    rules = _author_two_rules(window, ed)
    data = ed.doc.node("s").data
    assert data["rules"] == [{"t": "eq", "v": "ok", "vt": "str"}, {"t": "else"}]
    assert data["outputs"] == 2 and data["wires"] == [[], []]
    assert len(ed.scene.nodes["s"].output_ports) == 2  # the canvas draws the second port
    assert [r.port.text() for r in rules.rows] == ["→ 1", "→ 2"]
    assert not rules.rows[1].value_field.isVisibleTo(rules)  # "otherwise" takes no value
    assert [ed.undo_stack.text(k) for k in range(ed.undo_stack.count())] == ["Edit Rules of switch"] * 3

    # what is saved is what Node-RED's editor writes for the same clicks
    path = tmp_path / "switch.json"
    window.dialogs.next_save_path = str(path)
    window.actions["file.save"].trigger()
    saved = {n["id"]: n for n in json.loads(path.read_text())}
    assert saved["s"] == {"id": "s", "type": "switch", "z": "t", "name": "", "property": "payload",
                          "propertyType": "msg", "rules": [{"t": "eq", "v": "ok", "vt": "str"}, {"t": "else"}],
                          "checkall": "true", "repair": False, "outputs": 2, "x": 300, "y": 150, "wires": [[], []]}

    ed.undo_stack.undo()
    ed.undo_stack.undo()
    data = ed.doc.node("s").data
    assert data["outputs"] == 1 and data["wires"] == [[]] and data["rules"] == [{"t": "eq", "v": "ok", "vt": "str"}]
    assert len(ed.scene.nodes["s"].output_ports) == 1
    assert len(_rules(window).rows) == 1  # the rows follow undo


def test_moving_or_removing_a_rule_moves_or_drops_the_wires_of_its_output(window):
    three = [{"t": "eq", "v": "1", "vt": "num"}, {"t": "eq", "v": "2", "vt": "num"}, {"t": "else"}]
    ed = open_flow(window, _nodes(rules=three, outputs=3, wires=[["a"], ["b"], ["c"]]))
    select(ed, "s")
    rules = _rules(window)
    _press(window, rules.rows[2].findChild(QToolButton, "rule-up"))
    data = ed.doc.node("s").data
    assert [r["t"] for r in data["rules"]] == ["eq", "else", "eq"]
    assert data["wires"] == [["a"], ["c"], ["b"]]  # "otherwise" still sends to c
    _press(window, rules.rows[0].findChild(QToolButton, "rule-remove"))
    data = ed.doc.node("s").data
    assert data["rules"] == [{"t": "else"}, {"t": "eq", "v": "2", "vt": "num"}]
    assert data["outputs"] == 2 and data["wires"] == [["c"], ["b"]]
    assert ed.undo_stack.count() == 2
    ed.undo_stack.undo()
    ed.undo_stack.undo()
    data = ed.doc.node("s").data
    assert data["rules"] == three and data["outputs"] == 3 and data["wires"] == [["a"], ["b"], ["c"]]


def test_each_operator_shows_the_fields_it_needs(window):
    ed = open_flow(window, _nodes())
    select(ed, "s")
    rules = _rules(window)
    row = rules.rows[0]
    window.inspector.scroll.ensureWidgetVisible(row)
    pick(row.op, "is between")
    assert row.value2.isVisibleTo(rules) and row.and_label.isVisibleTo(rules)
    assert row.value_field.kind.currentText() == "number"  # Node-RED's default for a range
    retype(row.value_field.edit, "1")
    row = _rules(window).rows[0]
    retype(row.value2.edit, "5")
    assert ed.doc.node("s").data["rules"] == [{"t": "btwn", "v": "1", "vt": "num", "v2": "5", "v2t": "num"}]

    row = _rules(window).rows[0]
    pick(row.op, "matches regex")
    assert row.case.isVisibleTo(rules) and not row.value2.isVisibleTo(rules)
    QTest.mouseClick(row.case, Qt.LeftButton)
    # the regex has Node-RED's value field, not the range's (which keeps "1" to "5" for a way back)
    assert ed.doc.node("s").data["rules"] == [{"t": "regex", "v": "", "vt": "str", "case": True}]

    row = _rules(window).rows[0]
    pick(row.op, "is of type")
    assert row.is_type.isVisibleTo(rules) and not row.value_field.isVisibleTo(rules)
    pick(row.is_type, "number")
    assert ed.doc.node("s").data["rules"] == [{"t": "istype", "v": "number", "vt": "number"}]
    assert ed.undo_stack.count() == 7  # seven edits, seven entries


@pytest.mark.slow
def test_a_switch_edited_through_the_rows_routes_in_the_real_node_red(window, nodered_session):
    nodes = _nodes()
    nodes.insert(1, {"id": "i", "type": "inject", "z": "t", "props": [{"p": "payload"}], "repeat": "",
                     "crontab": "", "once": False, "onceDelay": 0.1, "topic": "", "payload": "fine",
                     "payloadType": "str", "x": 100, "y": 150, "wires": [["s"]]})
    ed = open_flow(window, nodes)
    _author_two_rules(window, ed)
    # wire the outputs as a user would have: 1 → a, 2 → b
    ed.push(SetWires(ed.doc, "s", [["a"], ["b"]]))
    flow = [dict(ed.doc.node(i).data) for i in ed.doc.node_ids()]
    result = nodered_session.deploy(flow)
    assert result.clean, result.problems
    assert fire_and_collect(nodered_session, "i") == [("b", "fine")]  # not "ok": only "otherwise" matched


def test_shift_tab_from_a_new_rules_value_reaches_its_operator(window):
    """After "+ add" the keyboard is in the new rule's value; Shift+Tab goes back through its type
    menu to its operator (it went to the row's ✕ ▼ ▲ and never reached the operator: the
    authoring count test had to click it)."""
    ed = open_flow(window, _nodes())
    select(ed, "s")
    rules = _rules(window)
    _press(window, rules.findChild(QPushButton, "add-rule"))
    row2 = rules.rows[1]
    assert row2.value_field.edit.hasFocus()
    seen = []
    for _ in range(2):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key_Backtab)
        seen.append(QApplication.focusWidget())
    assert seen == [row2.value_field.kind, row2.op]
    QTest.keyClick(row2.op, Qt.Key_Down)  # the operator changes from the keyboard
    assert row2.op.currentIndex() == 1
