"""The core nodes' plain options as Node-RED 4's dialogs show them, driven as a user does: a
delay shows the fields of the action picked, a trigger's "extend" is a checkbox writing a boolean,
typed values offer the dialog's types."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox

from .test_authoring import select
from .test_structured_editors import open_flow, pick

#: Node-RED 4's defaults (89-delay.html, 89-trigger.html)
DELAY = {"id": "d", "type": "delay", "name": "", "pauseType": "delay", "timeout": "5", "timeoutUnits": "seconds",
         "rate": "1", "nbRateUnits": "1", "rateUnits": "second", "randomFirst": "1", "randomLast": "5",
         "randomUnits": "seconds", "drop": False, "allowrate": False, "outputs": 1, "x": 200, "y": 100, "wires": [[]]}
TRIGGER = {"id": "g", "type": "trigger", "name": "", "op1": "1", "op2": "0", "op1type": "val", "op2type": "val",
           "duration": "250", "extend": "false", "overrideDelay": "false", "units": "ms", "reset": "",
           "bytopic": "all", "topic": "topic", "outputs": 1, "x": 200, "y": 200, "wires": [[]]}


def test_a_delay_shows_the_fields_of_its_action(window):
    ed = open_flow(window, [dict(DELAY)])
    select(ed, "d")
    insp = window.inspector
    assert {"timeout", "timeoutUnits"} <= set(insp.editors) and not {"rate", "randomFirst", "drop"} & set(insp.editors)
    action = insp.editors["pauseType"]
    insp.scroll.ensureWidgetVisible(action)
    pick(action, "Rate Limit (all messages)")
    assert ed.doc.node("d").data["pauseType"] == "rate"
    assert {"rate", "rateUnits", "nbRateUnits", "drop"} <= set(insp.editors) and "timeout" not in insp.editors
    window.resize(1366, 768)
    QApplication.processEvents()
    assert insp.scroll.horizontalScrollBar().maximum() == 0  # a long choice does not widen the page
    ed.undo_stack.undo()
    assert "timeout" in insp.editors and "rate" not in insp.editors  # the rows follow undo


def test_a_trigger_has_checkboxes_and_its_dialogs_value_types(window):
    ed = open_flow(window, [dict(TRIGGER)])
    select(ed, "g")
    insp = window.inspector
    extend = insp.editors["extend"]
    assert isinstance(extend, QCheckBox) and not extend.isChecked()
    insp.scroll.ensureWidgetVisible(extend)
    QTest.mouseClick(extend, Qt.LeftButton, pos=QPoint(8, extend.height() // 2))  # on its box
    assert ed.doc.node("g").data["extend"] is True  # a boolean, as Node-RED's checkbox writes it
    send = insp.editors["op1"]
    assert send.kind.currentText() == "string"  # Node-RED shows the old "val" as a string
    kinds = [send.kind.itemText(k) for k in range(send.kind.count())]
    assert kinds[-2:] == ["the msg object", "nothing"] and "expression" not in kinds
    assert "topic" not in insp.editors  # "each msg.topic" is not picked
    pick(insp.editors["bytopic"], "each msg.topic")
    assert "topic" in insp.editors


def test_a_triggers_then_is_a_choice_written_to_its_duration(window):
    ed = open_flow(window, [dict(TRIGGER)])
    select(ed, "g")
    insp = window.inspector
    then = insp.editors["duration"]
    insp.scroll.ensureWidgetVisible(then)
    assert (then.mode.currentText(), then.amount.text()) == ("wait for", "250")
    pick(then.mode, "resend it every")
    assert ed.doc.node("g").data["duration"] == "-250"  # Node-RED stores a repeat as a negative duration
    QTest.mouseClick(then.amount, Qt.LeftButton)
    then.amount.selectAll()
    QTest.keyClicks(then.amount, "5")
    QTest.keyClick(then.amount, Qt.Key_Return)
    assert ed.doc.node("g").data["duration"] == "-5"
    pick(then.mode, "wait to be reset")
    assert ed.doc.node("g").data["duration"] == "0" and not then.amount.isVisibleTo(then)
    # edits of one attribute in a row merge into one entry, as typing in any inspector field does
    assert ed.undo_stack.count() == 1
    ed.undo_stack.undo()
    assert ed.doc.node("g").data["duration"] == "250"
    assert (then.mode.currentText(), then.amount.text()) == ("wait for", "250") and then.amount.isVisibleTo(then)
