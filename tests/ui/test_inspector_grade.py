"""The inspector as a Node-RED user expects it (issue 23), and the editor defects of that issue:
human labels, typed and code editors, the Repeat control, fields readable at 1366×768, the
Drawing dock only on Flatland programs, backward wires drawn clear of nodes, damaged and binary
files. Driven through the real widgets at the pixels a user would press."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtGui import QColor, QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QDialog, QLineEdit, QPlainTextEdit, QSpinBox, QWidget, QAbstractSpinBox

import gindex_studio
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.ui.panels.code_editor import CodeDialog, CodeEditor, CodeField
from gindex_studio.ui.panels.repeat_field import RepeatField

from .conftest import click

#: the narrowest a field may be and still show a readable value (about ten characters)
READABLE = 80

NODES = [
    {"id": "i", "type": "inject", "name": "morning", "x": 120, "y": 100, "wires": [["f"]], "repeat": "",
     "crontab": "30 07 * * 1,2,3,4,5", "payload": "", "payloadType": "date", "topic": ""},
    {"id": "f", "type": "function", "name": "compute", "x": 320, "y": 100, "wires": [["c"]],
     "func": "return msg;", "outputs": 1},
    {"id": "c", "type": "change", "name": "", "x": 520, "y": 100, "wires": [["d"]],
     "rules": [{"t": "set", "p": "payload", "pt": "msg", "to": "$sum(payload.items.(price * quantity)) * 1.2",
                "tot": "jsonata"}], "action": "", "property": "", "from": "", "to": "", "reg": False},
    {"id": "d", "type": "debug", "name": "", "x": 720, "y": 100, "wires": [], "active": True, "tosidebar": True,
     "console": False, "tostatus": False, "complete": "false", "statusVal": "", "statusType": "auto"},
    {"id": "j", "type": "json", "name": "", "x": 320, "y": 240, "wires": [[]], "property": "payload", "action": ""},
    {"id": "h", "type": "http request", "name": "", "x": 520, "y": 240, "wires": [[]], "method": "GET",
     "ret": "txt", "paytoqs": "ignore", "url": "http://example.org"},
]


def _open(window, qtbot, nodes=NODES):
    window.resize(1366, 768)
    ed = window.add_editor(flow_from_nodes(nodes), None)
    qtbot.waitUntil(lambda: ed.view.zoom() < 1.6)
    ed.view.zoom_reset()
    ed.view.centerOn(420, 170)
    QApplication.processEvents()
    return ed


def _select(ed, node_id):
    click(ed.view, ed.scene.nodes[node_id].scenePos())  # the node's body
    assert ed.scene.selected_node_ids() == [node_id]


def _labels(insp) -> dict[str, str]:
    page = insp.scroll.widget()
    return {w.objectName()[6:]: re.sub("<[^>]+>", "", w.text()) for w in page.findChildren(QWidget)
            if w.objectName().startswith("label:") and hasattr(w, "text")}


def test_labels_are_node_reds_words_not_keys(window, qtbot):
    ed = _open(window, qtbot)
    insp = window.inspector
    _select(ed, "f")
    labels = _labels(insp)
    assert labels["func"] == "On Message" and labels["initialize"] == "On Start"
    _select(ed, "h")
    labels = _labels(insp)
    assert labels["ret"] == "Return" and labels["paytoqs"] == "Payload"
    assert insp.editors["paytoqs"].currentText() == "Ignore"  # an enum, not "invalid JSON"
    assert not [p for p in ed.doc.problems() if p.node_id == "h"]
    _select(ed, "d")
    assert _labels(insp)["tosidebar"] == "To debug window"
    _select(ed, "j")
    action = insp.editors["action"]
    assert isinstance(action, QComboBox) and action.currentText() == "Convert between JSON String & Object"
    assert [action.itemText(k) for k in range(action.count())] == [
        "Convert between JSON String & Object", "Always convert to JSON String", "Always convert to JavaScript Object"]


def test_change_node_hides_legacy_attributes_until_set(window, qtbot):
    ed = _open(window, qtbot)
    _select(ed, "c")
    insp = window.inspector
    assert not {"action", "property", "from", "to", "reg"} & set(insp.editors)
    assert "rules" in insp.editors
    from gindex_studio.ui.model.commands import SetAttribute

    ed.push(SetAttribute(ed.doc, "c", "property", "payload", "legacy"))
    assert "property" in insp.editors and _labels(insp)["property"] == "Property (legacy)"


def test_unknown_attribute_label_is_humanised(window, qtbot):
    ed = _open(window, qtbot, [{"id": "u", "type": "function", "x": 100, "y": 100, "wires": [[]],
                                "retryDelayMs": 3}])
    _select(ed, "u")
    assert _labels(window.inspector)["retryDelayMs"] == "Retry delay ms"


def test_every_field_readable_at_1366x768(window, qtbot):
    ed = _open(window, qtbot)
    insp = window.inspector
    dock = window.docks["inspector"]
    assert dock.width() <= 420  # the dock as it opens
    for nid in ("i", "f", "c", "d", "j", "h"):
        _select(ed, nid)
        QApplication.processEvents()
        page, viewport = insp.scroll.widget(), insp.scroll.viewport()
        assert page.minimumSizeHint().width() <= viewport.width(), nid  # nothing wider than its dock
        assert page.width() <= viewport.width(), nid
        for w in page.findChildren(QWidget):
            if w.isVisibleTo(page) and isinstance(w, (QLineEdit, QComboBox, QPlainTextEdit)) \
                    and not isinstance(w.parent(), (QComboBox, QAbstractSpinBox)):
                if isinstance(w, QComboBox) and w.objectName().startswith("type:"):
                    continue  # a typed value's type menu: a short word by design
                assert w.width() >= READABLE, (nid, w.objectName() or type(w).__name__, w.width())
    _select(ed, "c")
    value = insp.scroll.widget().findChild(QLineEdit, "value:to")
    assert value.width() >= 170  # a JSONata expression gets the row's width (it was ~65 px)
    before = value.width()
    window.resizeDocks([dock], [dock.width() + 120], Qt.Horizontal)
    QApplication.processEvents()
    assert value.width() >= before + 80  # and grows with the dock


def test_function_code_editor_indents_highlights_and_commits(window, qtbot):
    ed = _open(window, qtbot)
    _select(ed, "f")
    field = window.inspector.editors["func"]
    assert isinstance(field, CodeField) and field.editor.height() >= 200
    code = field.editor
    code.setFocus()
    code.selectAll()
    QTest.keyClicks(code, "if (msg.payload) {")
    QTest.keyClick(code, Qt.Key_Return)
    QTest.keyClicks(code, "msg.payload = 1;")
    QTest.keyClick(code, Qt.Key_Return)
    QTest.keyClicks(code, "}")
    assert code.toPlainText() == "if (msg.payload) {\n    msg.payload = 1;\n}"
    QTest.keyClick(code, Qt.Key_Return, Qt.ControlModifier)
    assert ed.doc.node("f").data["func"] == "if (msg.payload) {\n    msg.payload = 1;\n}"
    assert code.gutter.width() >= code.fontMetrics().horizontalAdvance("99")
    formats = code.document().firstBlock().layout().formats()
    keyword = [f for f in formats if f.start == 0 and f.length == 2]  # "if"
    assert keyword and keyword[0].format.foreground().color() != code.palette().text().color()
    ed.undo_stack.undo()
    assert ed.doc.node("f").data["func"] == "return msg;"


def test_edit_code_dialog_is_large_and_writes_back(window, qtbot):
    ed = _open(window, qtbot)
    _select(ed, "f")
    field = window.inspector.editors["func"]
    seen = {}

    def answer():
        d = QApplication.activeModalWidget()
        seen["size"] = (d.width(), d.height())
        d.editor.setPlainText("return null;")
        d.accept()

    QTimer.singleShot(0, answer)
    QTest.mouseClick(field.open_button, Qt.LeftButton)
    screen = window.screen().availableGeometry()
    assert seen["size"][0] >= min(900, 0.8 * screen.width()) and seen["size"][1] >= min(600, 0.8 * screen.height())
    assert seen["size"][0] > 2 * field.width()  # far larger than the in-dock editor
    assert ed.doc.node("f").data["func"] == "return null;"


def test_expression_editor_on_a_change_rule(window, qtbot):
    ed = _open(window, qtbot)
    _select(ed, "c")
    more = window.inspector.scroll.widget().findChild(QWidget, "expand:to")
    assert more.isVisible()

    def answer():
        d = QApplication.activeModalWidget()
        assert isinstance(d, CodeDialog) and "(price * quantity)" in d.text()
        d.editor.setPlainText("$sum(payload)\n* 2")
        d.accept()

    QTimer.singleShot(0, answer)
    QTest.mouseClick(more, Qt.LeftButton)
    assert ed.doc.node("c").data["rules"][0]["to"] == "$sum(payload)\n* 2"


def test_inject_repeat_reads_cron_and_writes_an_interval(window, qtbot):
    ed = _open(window, qtbot)
    _select(ed, "i")
    rep = window.inspector.editors["repeat"]
    assert isinstance(rep, RepeatField)
    assert rep.mode.currentText() == "at a specific time" and rep.at.time().toString("HH:mm") == "07:30"
    rep.mode.setFocus()
    rep.mode.setCurrentIndex(rep.mode.findData("interval"))
    rep.mode.activated.emit(rep.mode.currentIndex())
    every = rep.findChild(QSpinBox, "repeat-every")
    every.setValue(5)
    rep.unit.setCurrentIndex(rep.unit.findData("minutes"))
    rep.unit.activated.emit(rep.unit.currentIndex())
    data = ed.doc.node("i").data
    assert (data["repeat"], data["crontab"]) == ("300", "")
    while ed.undo_stack.canUndo():
        ed.undo_stack.undo()
    data = ed.doc.node("i").data
    assert (data["repeat"], data["crontab"]) == ("", "30 07 * * 1,2,3,4,5")


def test_drawing_dock_only_on_flatland_programs(window, qtbot):
    _open(window, qtbot)
    assert not window.docks["drawing"].isVisible()
    window.add_editor(flow_from_nodes([{"id": "s", "type": "info", "x": 100, "y": 100, "wires": [[]]}]), None)
    QApplication.processEvents()
    assert window.docks["drawing"].isVisible()
    window.tabs.setCurrentIndex(0)
    QApplication.processEvents()
    assert not window.docks["drawing"].isVisible()


def test_backward_wire_on_the_same_row_is_drawn_around_the_nodes(window, qtbot):
    ed = _open(window, qtbot, [
        {"id": "a", "type": "function", "x": 200, "y": 200, "wires": [["b"]]},
        {"id": "b", "type": "function", "x": 400, "y": 200, "wires": [["a"]]},
        {"id": "m", "type": "function", "x": 300, "y": 120, "wires": [[]]},
    ])
    ed.view.centerOn(300, 220)
    QApplication.processEvents()
    wire = ed.scene.wires[("b", 0, "a")]
    path = wire.mapToScene(wire.path())
    bodies = [ed.scene.nodes[i].scene_body() for i in ("a", "b", "m")]
    n = 200
    inside = [path.pointAtPercent(k / n) for k in range(3, n - 2)
              if any(r.adjusted(2, 2, -2, -2).contains(path.pointAtPercent(k / n)) for r in bodies)]
    assert not inside  # never through a node's body
    assert path.boundingRect().bottom() > max(r.bottom() for r in bodies[:2]) + 10  # it loops below
    # and it is drawn: the pixel at the middle of its lane has the wire's colour
    mid = path.pointAtPercent(0.5)
    img = ed.view.viewport().grab().toImage()
    p = ed.view.mapFromScene(mid)
    near = [QColor(img.pixel(p.x(), p.y() + d)) for d in (-1, 0, 1)]
    bg = QColor(img.pixel(p.x(), p.y() + 12))
    assert any(abs(c.lightness() - bg.lightness()) > 40 for c in near)


def test_deleting_the_only_wire_in_leaves_problems_as_the_guide_says(window, qtbot):
    ed = _open(window, qtbot, [
        {"id": "a", "type": "inject", "x": 200, "y": 200, "wires": [["b"]]},
        {"id": "b", "type": "debug", "x": 420, "y": 200, "wires": []},
    ])
    from gindex_studio.ui.model.commands import SetWires

    ed.push(SetWires(ed.doc, "a", [[]]))
    assert ed.doc.problems() == []
    guide = Path(gindex_studio.__file__).parent.parent / "resources" / "guide" / "user-guide.md"
    text = guide.read_text(encoding="utf-8")
    assert "A node whose\n   input has no wire is not a problem" in text
    assert "an unwired input are listed" not in text


def test_png_and_damaged_files(window, qtbot, tmp_path):
    png = tmp_path / "shot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    window.open_files([str(png)], wait=True)
    (title, text), = window.dialogs.errors
    assert "is a PNG image, not a flow" in text and "Expecting value" not in text
    damaged = tmp_path / "flow.json"
    good = json.dumps([{"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [["b"]]},
                       {"id": "b", "type": "debug", "x": 300, "y": 100, "wires": []},
                       {"id": "c", "type": "debug", "x": 300, "y": 200, "wires": []}])
    damaged.write_text(good[: good.rindex('{"id": "c"') + 12], encoding="utf-8")
    before = damaged.read_bytes()
    window.open_files([str(damaged)], wait=True)
    assert window.dialogs.asked_recover and "can be recovered" in window.dialogs.asked_recover[0]
    ed = window.editor
    assert sorted(ed.doc.node_ids())[:2] == ["a", "b"] and ed.path is None and ed.is_dirty()
    assert ed.banner.isVisible() and "Recovered from a damaged file" in ed.banner.text()
    assert ed.suggested_name == "flow-recovered.json"
    assert damaged.read_bytes() == before


def test_no_import_cycle_between_inspector_and_change_rules():
    root = Path(gindex_studio.__file__).parent / "ui" / "panels"

    def imports(name):
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}

    assert "gindex_studio.ui.panels.inspector" not in imports("change_rules")
    assert "gindex_studio.ui.panels.row_list" in imports("change_rules")
    assert "gindex_studio.ui.panels.inspector" not in imports("row_list")
    assert "gindex_studio.ui.panels.json_editor" in imports("row_list")
    assert "gindex_studio.ui.panels.inspector" not in imports("json_editor")


def test_zoom_label_follows_the_tab(window, qtbot):
    a = _open(window, qtbot)
    b = window.add_editor(flow_from_nodes([{"id": "x", "type": "debug", "x": 100, "y": 100, "wires": []}]), None)
    QApplication.processEvents()
    b.view.zoom_reset()
    a_zoom = a.view.zoom()
    window.tabs.setCurrentWidget(a)
    assert window.status_label.text() == f"{a_zoom * 100:.0f} %"
    window.tabs.setCurrentWidget(b)
    assert window.status_label.text() == f"{b.view.zoom() * 100:.0f} %"
    a.view.zoom_reset()  # a background tab's zoom does not write the label
    assert window.status_label.text() == f"{b.view.zoom() * 100:.0f} %"


def test_save_as_suggests_the_tasks_name_in_the_last_folder(window, qtbot, tmp_path):
    from gindex_studio.ui.app import suggested_file_name

    flow_file = tmp_path / "work" / "a.json"
    flow_file.parent.mkdir()
    flow_file.write_text(json.dumps({"title": "Reply with search", "text": "p", "name": "telegram-2-reply",
                                     "flow": NODES[:2]}), encoding="utf-8")
    window.open_files([str(flow_file)], wait=True)
    opened = window.editor
    opened.suggested_name = "untitled.json"  # as an untitled task has
    assert suggested_file_name(opened) == "telegram-2-reply - Reply with search.json"
    window.new_task()
    ed = window.editor  # an untitled task: Save As starts in the folder last used
    seen = []
    window.dialogs.save_file = lambda s: seen.append(s) or None
    window.save_as(ed)
    assert seen and seen[0].startswith(str(flow_file.parent))  # the folder last used


def test_paste_lands_at_the_pointer(window, qtbot):
    ed = _open(window, qtbot)
    text = json.dumps([{"id": "p", "type": "debug", "x": 0, "y": 0, "wires": []}])
    vp = ed.view.viewport()
    target = vp.rect().center() + QPointF(150, 90).toPoint()
    QTest.mouseMove(vp, target)
    from PySide6.QtGui import QCursor

    QCursor.setPos(vp.mapToGlobal(target))
    (nid,) = ed.paste(text)
    want = ed.view.mapToScene(target)
    x, y = ed.doc.position(nid)
    assert abs(x - want.x()) <= 20 and abs(y - want.y()) <= 20
