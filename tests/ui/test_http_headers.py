"""The http request node's Headers in the inspector, driven as a user does: "+ add", a known
header picked from the name menu offers that header's known values; "other" takes typed text;
saved as Node-RED 4 saves them."""
from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton

from gindex_studio.ui.panels.http_headers import HeadersEditor

from .test_authoring import select
from .test_structured_editors import open_flow, pick, retype

#: an http request node as Node-RED 4's palette drops it (21-httprequest.html's defaults)
REQUEST = {"id": "h", "type": "http request", "z": "t", "name": "", "method": "GET", "ret": "txt", "paytoqs": False,
           "url": "", "tls": "", "persist": False, "proxy": "", "insecureHTTPParser": False, "authType": "",
           "senderr": False, "headers": [], "x": 200, "y": 150, "wires": [[]]}


def _headers(window) -> HeadersEditor:
    w = window.inspector.editors["headers"]
    assert isinstance(w, HeadersEditor)
    return w


def _add(window) -> None:
    add = _headers(window).findChild(QPushButton, "add-rule")
    window.inspector.scroll.ensureWidgetVisible(add)
    QTest.mouseClick(add, Qt.LeftButton)


def test_headers_are_rows_saved_as_node_red_saves_them(window, tmp_path):
    ed = open_flow(window, [{"id": "t", "type": "tab", "label": "Flow 1"}, dict(REQUEST)])
    select(ed, "h")
    _add(window)
    row = _headers(window).rows[0]
    window.inspector.scroll.ensureWidgetVisible(row)
    assert row.name.kind.currentText() == "other" and row.name.edit.hasFocus()
    pick(row.name.kind, "Content-Type")
    row = _headers(window).rows[0]
    assert not row.name.edit.isEnabled()  # a known name takes no text
    pick(row.value_field.kind, "application/json")  # offered because the name is Content-Type

    _add(window)
    row = _headers(window).rows[1]
    window.inspector.scroll.ensureWidgetVisible(row)
    assert row.value_field.kind.findText("application/json") < 0  # "other" names have no known values
    QTest.keyClicks(row.name.edit, "X-Token")
    QTest.keyClick(row.name.edit, Qt.Key_Return)
    retype(_headers(window).rows[1].value_field.edit, "abc")

    path = tmp_path / "request.json"
    window.dialogs.next_save_path = str(path)
    window.actions["file.save"].trigger()
    saved = {n["id"]: n for n in json.loads(path.read_text())}
    assert saved["h"] == dict(REQUEST, headers=[
        {"keyType": "Content-Type", "keyValue": "", "valueType": "application/json", "valueValue": ""},
        {"keyType": "other", "keyValue": "X-Token", "valueType": "other", "valueValue": "abc"}])
    assert ed.undo_stack.count() == 6  # add, name, value, add, name, value
    while ed.undo_stack.canUndo():
        ed.undo_stack.undo()
    assert ed.doc.node("h").data == REQUEST and _headers(window).rows == []
