"""The inject node in the inspector, driven as a user does: its Properties are rows of ``msg.``
property = typed value (saved as Node-RED 4 saves them: the payload and a string topic in the
node's own keys), and its "at a specific time" field takes typed digits where the user clicks."""
from __future__ import annotations

import json

import pytest

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox, QPushButton, QToolButton

from gindex_studio.ui.panels.inject_props import InjectPropsEditor
from gindex_studio.ui.panels.repeat_field import RepeatField

from .runtime_support import fire_and_collect
from .test_authoring import select
from .test_structured_editors import open_flow, pick, retype

#: an inject node as Node-RED 4's palette drops it (20-inject.html's defaults), placed on a tab
INJECT = {"id": "i", "type": "inject", "z": "t", "name": "", "props": [{"p": "payload"}, {"p": "topic", "vt": "str"}],
          "repeat": "", "crontab": "", "once": False, "onceDelay": 0.1, "topic": "", "payload": "",
          "payloadType": "date", "x": 150, "y": 150, "wires": [["d"]]}
DEBUG = {"id": "d", "type": "debug", "z": "t", "name": "", "active": True, "tosidebar": True, "console": False,
         "tostatus": False, "complete": "true", "targetType": "full", "statusVal": "", "statusType": "auto",
         "x": 400, "y": 150, "wires": []}


def _nodes():
    return [{"id": "t", "type": "tab", "label": "Flow 1"}, dict(INJECT), dict(DEBUG)]


def _props(window) -> InjectPropsEditor:
    w = window.inspector.editors["props"]
    assert isinstance(w, InjectPropsEditor)
    return w


def _author_props(window, ed) -> None:
    """msg.payload = "go" (string); + add; msg.status = 3 (number)."""
    select(ed, "i")
    props = _props(window)
    assert [r.name.text() for r in props.rows] == ["payload", "topic"]
    assert not {"payload", "payloadType", "topic"} & set(window.inspector.editors)  # rows of the list, not fields
    payload = props.rows[0].field
    window.inspector.scroll.ensureWidgetVisible(payload)
    assert payload.kind.currentText() == "timestamp"
    pick(payload.kind, "string")
    retype(_props(window).rows[0].field.edit, "go")
    add = props.findChild(QPushButton, "add-rule")
    window.inspector.scroll.ensureWidgetVisible(add)
    QTest.mouseClick(add, Qt.LeftButton)
    row = _props(window).rows[2]
    assert row.name.hasFocus()  # the keyboard is in the new row's property name
    QTest.keyClicks(row.name, "status")
    QTest.keyClick(row.name, Qt.Key_Return)
    row = _props(window).rows[2]
    window.inspector.scroll.ensureWidgetVisible(row)
    pick(row.field.kind, "number")
    retype(_props(window).rows[2].field.edit, "3")


def test_properties_are_rows_saved_as_node_red_saves_them(window, tmp_path):
    ed = open_flow(window, _nodes())
    _author_props(window, ed)
    path = tmp_path / "inject.json"
    window.dialogs.next_save_path = str(path)
    window.actions["file.save"].trigger()
    saved = {n["id"]: n for n in json.loads(path.read_text())}
    assert saved["i"] == {"id": "i", "type": "inject", "z": "t", "name": "",
                          "props": [{"p": "payload"}, {"p": "topic", "vt": "str"}, {"p": "status", "v": "3", "vt": "num"}],
                          "repeat": "", "crontab": "", "once": False, "onceDelay": 0.1, "topic": "", "payload": "go",
                          "payloadType": "str", "x": 150, "y": 150, "wires": [["d"]]}
    # pick string, type go, name status, pick number, type 3: five edits ("+ add" alone writes nothing)
    assert ed.undo_stack.count() == 5
    assert {ed.undo_stack.text(k) for k in range(5)} == {"Edit Properties of inject"}
    while ed.undo_stack.canUndo():
        ed.undo_stack.undo()
    assert ed.doc.node("i").data == INJECT
    assert [(r.name.text(), r.field.value()) for r in _props(window).rows] == [
        ("payload", ("", "date")), ("topic", ("", "str"))]


def test_removing_the_payload_row_removes_the_payload_keys(window):
    ed = open_flow(window, _nodes())
    select(ed, "i")
    props = _props(window)
    window.inspector.scroll.ensureWidgetVisible(props.rows[0])
    QTest.mouseClick(props.rows[0].findChild(QToolButton, "rule-remove"), Qt.LeftButton)
    data = ed.doc.node("i").data
    assert data["props"] == [{"p": "topic", "vt": "str"}] and "payload" not in data and "payloadType" not in data


def _click_section(field, text_before: str) -> None:
    """Click the time field inside the digits after ``text_before`` (the hour: "", the minute: "12:")."""
    le = field.lineEdit()
    fm = le.fontMetrics()
    x = le.contentsRect().left() + 2 + fm.horizontalAdvance(text_before) + fm.horizontalAdvance("0")
    QTest.mouseClick(le, Qt.LeftButton, pos=QPoint(x, le.height() // 2))


def test_the_time_takes_typed_digits_where_the_user_clicks(window):
    ed = open_flow(window, _nodes())
    select(ed, "i")
    rep = window.inspector.editors["repeat"]
    assert isinstance(rep, RepeatField)
    window.inspector.scroll.ensureWidgetVisible(rep)
    pick(rep.mode, "at a specific time")
    assert ed.doc.node("i").data["crontab"] == "00 12 * * *"
    at = rep.at
    window.inspector.scroll.ensureWidgetVisible(at)
    _click_section(at, "")
    QTest.keyClicks(QApplication.focusWidget(), "09")
    QTest.keyClick(QApplication.focusWidget(), Qt.Key_Tab)
    assert ed.doc.node("i").data["crontab"] == "00 09 * * *"
    _click_section(at, "09:")
    QTest.keyClicks(QApplication.focusWidget(), "30")
    QTest.keyClick(QApplication.focusWidget(), Qt.Key_Return)
    assert ed.doc.node("i").data["crontab"] == "30 09 * * *"
    # weekdays: untick Saturday and Sunday
    for day in ("Sat", "Sun"):
        box = [b for b in rep.findChildren(QCheckBox, f"day:{day}") if b.isVisibleTo(rep)][0]
        window.inspector.scroll.ensureWidgetVisible(box)
        QTest.mouseClick(box, Qt.LeftButton)
    assert ed.doc.node("i").data["crontab"] == "30 09 * * 1,2,3,4,5"
    box = [b for b in rep.findChildren(QCheckBox, "day:Sun") if b.isVisibleTo(rep)][0]
    QTest.mouseClick(box, Qt.LeftButton)
    assert ed.doc.node("i").data["crontab"] == "30 09 * * 1,2,3,4,5,0"  # Node-RED lists Sunday last
    assert ed.doc.node("i").data["repeat"] == ""


@pytest.mark.slow
def test_the_properties_arrive_in_the_real_node_red(window, nodered_session):
    ed = open_flow(window, _nodes())
    _author_props(window, ed)
    result = nodered_session.deploy([dict(ed.doc.node(i).data) for i in ed.doc.node_ids()])
    assert result.clean, result.problems
    ((debug, msg),) = fire_and_collect(nodered_session, "i")
    assert debug == "d"
    assert msg["payload"] == "go" and msg["status"] == 3 and msg["topic"] == ""


def test_inject_once_after_takes_the_delay_as_node_red_writes_it(window):
    ed = open_flow(window, _nodes())
    select(ed, "i")
    insp = window.inspector
    assert "onceDelay" not in insp.editors  # only with "Inject once after start" ticked
    once = insp.editors["once"]
    insp.scroll.ensureWidgetVisible(once)
    QTest.mouseClick(once, Qt.LeftButton, pos=QPoint(8, once.height() // 2))
    assert ed.doc.node("i").data["once"] is True
    delay = insp.editors["onceDelay"]
    assert delay.text() == "0.1"
    insp.scroll.ensureWidgetVisible(delay)
    QTest.mouseClick(delay, Qt.LeftButton)
    QTest.keyClick(delay, Qt.Key_Return)
    assert ed.doc.node("i").data["onceDelay"] == 0.1  # looked at, not changed: the number stays
    retype(delay, "2.5x")  # the box takes a number only
    assert ed.doc.node("i").data["onceDelay"] == "2.5"  # Node-RED's text box writes the text
