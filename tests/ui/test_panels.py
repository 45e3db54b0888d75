"""Palette, quick-add and inspector, driven through their widgets; every edit undoes exactly."""
from __future__ import annotations


from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDropEvent, QFontInfo
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QPushButton, QToolButton

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.ui.canvas.view import PALETTE_MIME
from gindex_studio.ui.panels.inspector import JsonEditor
from gindex_studio.ui.panels.code_editor import CodeEditor

from .conftest import click, snapshot, vp_point


def test_palette_lists_categories_and_filters(window, library):
    pal = window.palette
    assert pal.tree.topLevelItemCount() >= 10
    assert "inject" in pal.type_items and pal.type_items["ui_group"].parent().text(0) == "Configuration"
    QTest.keyClicks(pal.search, "http req")
    assert "http request" in pal.visible_types() and "debug" not in pal.visible_types()
    pal.search.clear()
    assert "debug" in pal.visible_types()


def test_palette_drag_onto_canvas_adds_a_node_and_undo(window, qtbot):
    ed = window.new_file()
    mime = window.palette.tree.mimeData([window.palette.type_items["change"]])
    assert bytes(mime.data(PALETTE_MIME)) == b"change"
    target = vp_point(ed.view, QPointF(300, 200))
    drop = QDropEvent(QPointF(target), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    ed.view.dragEnterEvent(drop)
    ed.view.dropEvent(drop)
    (nid,) = ed.doc.node_ids()
    data = ed.doc.node(nid).data
    assert data["type"] == "change" and (data["x"], data["y"]) == (300, 200)
    assert "rules" in data and data["wires"] == [[]]  # library defaults and one output port
    assert ed.scene.nodes[nid].pos() == QPointF(300, 200)
    ed.undo_stack.undo()
    assert ed.doc.node_ids() == [] and not ed.scene.nodes
    ed.undo_stack.redo()
    assert ed.doc.node_ids() == [nid]


def test_palette_activation_adds_at_view_centre(window):
    ed = window.new_file()
    item = window.palette.type_items["debug"]
    window.palette.tree.itemActivated.emit(item, 0)
    (nid,) = ed.doc.node_ids()
    assert ed.doc.node(nid).type == "debug"


def test_quick_add_by_typing_on_the_canvas_recent_first(editor, qtbot):
    before = snapshot(editor.doc)
    editor.view.setFocus()
    QTest.keyClicks(editor.view, "f")
    popup = editor.quick_add_popup
    assert popup.isVisible() and popup.edit.text() == "f"
    QTest.keyClicks(popup.edit, "unction")
    assert popup.types_shown()[0] == "function"
    QTest.keyClick(popup.edit, Qt.Key_Return)
    assert not popup.isVisible()
    (nid,) = [i for i in editor.doc.node_ids() if i not in ("a", "b")]
    assert editor.doc.node(nid).type == "function" and nid in editor.scene.nodes
    assert editor.scene.selected_node_ids() == [nid]
    # the type just used comes first next time
    editor.view.setFocus()
    editor.open_quick_add(QPointF(0, 0))
    assert editor.quick_add_popup.types_shown()[0] == "function"
    editor.quick_add_popup.close()
    editor.undo_stack.undo()
    assert snapshot(editor.doc) == before


def test_quick_add_fuzzy_matches_description_and_label(editor):
    popup = editor.open_quick_add(QPointF(0, 0), "htreq")
    assert "http request" in popup.types_shown()[:3]
    popup.edit.setText("spreadsheet")  # no type is called that: descriptions and categories count
    shown = popup.types_shown()
    popup.close()
    assert all(isinstance(t, str) for t in shown)


def _select(ed, node_id):
    click(ed.view, ed.scene.nodes[node_id].scenePos())
    assert ed.scene.selected_node_ids() == [node_id]


def test_inspector_edits_every_kind_and_undo_restores(window, qtbot):
    flow = flow_from_nodes([
        {"id": "f", "type": "function", "name": "calc", "func": "return msg;", "outputs": 1, "x": 200, "y": 100, "wires": [[]]},
        {"id": "i", "type": "inject", "name": "", "once": False, "x": 100, "y": 200, "wires": [[]]},
        {"id": "h", "type": "http request", "method": "GET", "x": 100, "y": 300, "wires": [[]]},
        {"id": "c", "type": "switch", "rules": [{"t": "set"}], "x": 300, "y": 300, "wires": [[]]},
    ])
    ed = window.add_editor(flow, None)
    qtbot.waitUntil(lambda: ed.view.zoom() < 1.6)
    ed.view.zoom_reset()
    ed.view.centerOn(200, 200)
    before = snapshot(ed.doc)
    insp = window.inspector

    _select(ed, "f")
    assert insp.node_id == "f"
    name = insp.editors["name"]
    assert isinstance(name, QLineEdit) and name.text() == "calc"
    name.setFocus()
    name.selectAll()
    QTest.keyClicks(name, "compute")
    QTest.keyClick(name, Qt.Key_Return)
    assert ed.doc.node("f").data["name"] == "compute"
    assert ed.scene.nodes["f"].look.label == "compute"  # the canvas redraws the label
    code = insp.editors["func"].editor
    assert isinstance(code, CodeEditor) and QFontInfo(code.font()).fixedPitch()
    code.setPlainText("msg.payload = 2;\nreturn msg;")
    code.editing_finished.emit()
    assert ed.doc.node("f").data["func"] == "msg.payload = 2;\nreturn msg;"
    spin = insp.editors["outputs"]
    assert isinstance(spin, QDoubleSpinBox)
    spin.setValue(2)
    spin.editingFinished.emit()
    assert ed.doc.node("f").data["outputs"] == 2
    assert len(ed.scene.nodes["f"].output_ports) == 2  # the port count follows
    assert list(ed.doc.node("f").data)[:4] == ["id", "type", "name", "func"]  # key order kept

    _select(ed, "i")
    box = insp.editors["once"]
    assert isinstance(box, QCheckBox)
    box.click()
    assert ed.doc.node("i").data["once"] is True

    _select(ed, "h")
    combo = insp.editors["method"]
    assert isinstance(combo, QComboBox)
    combo.setCurrentIndex(combo.findData("POST"))
    assert ed.doc.node("h").data["method"] == "POST"

    _select(ed, "c")
    rules = insp.editors["rules"]  # a switch's rules are rows (test_switch_rules) with the raw JSON a click away
    rules.raw.click()
    js = rules.json
    assert isinstance(js, JsonEditor) and js.isVisibleTo(rules)
    js.text.setPlainText('[{"t": "set", }')
    assert js.error.isVisible() and "Not valid JSON" in js.error.text() and "line 1" in js.error.text()
    js.committed.emit()
    assert ed.doc.node("c").data["rules"] == [{"t": "set"}]  # refused
    js.text.setPlainText('[{"t": "move"}]')
    assert not js.error.isVisible()
    js.committed.emit()
    assert ed.doc.node("c").data["rules"] == [{"t": "move"}]

    names = [ed.undo_stack.text(k) for k in range(ed.undo_stack.count())]
    assert names == ["Rename calc", "Edit On Message of compute", "Edit Outputs of compute",
                     "Edit Inject once after start of inject", "Edit Method of http request", "Edit Rules of switch"]
    while ed.undo_stack.canUndo():
        ed.undo_stack.undo()
    assert snapshot(ed.doc) == before
    while ed.undo_stack.canRedo():
        ed.undo_stack.redo()
    assert ed.doc.node("c").data["rules"] == [{"t": "move"}] and ed.doc.node("f").data["name"] == "compute"


def test_inspector_adds_and_removes_attributes_and_shows_unknown_as_json(window, qtbot):
    flow = flow_from_nodes([{"id": "u", "type": "debug", "custom": {"k": 1}, "x": 100, "y": 100, "wires": []}])
    ed = window.add_editor(flow, None)
    before = snapshot(ed.doc)
    ed.scene.select_nodes(["u"])
    insp = window.inspector
    assert isinstance(insp.editors["custom"], JsonEditor)
    insp.new_key.setText("extra")
    insp.new_value.setText('{"a": [1, 2]}')
    add = [b for b in insp.findChildren(QPushButton) if b.objectName() == "add-attribute"]
    add[0].click()
    assert ed.doc.node("u").data["extra"] == {"a": [1, 2]}
    assert "extra" in insp.editors
    rm = [b for b in insp.findChildren(QToolButton) if b.objectName() == "remove:custom"]
    rm[0].click()
    assert "custom" not in ed.doc.node("u").data and "custom" not in insp.editors
    ed.undo_stack.undo()
    assert list(ed.doc.node("u").data).index("custom") == 2  # back in its place
    ed.undo_stack.undo()
    assert snapshot(ed.doc) == before


def test_inspector_shows_type_description(window, library):
    flow = flow_from_nodes([{"id": "f", "type": "function", "x": 100, "y": 100, "wires": [[]]}])
    ed = window.add_editor(flow, None)
    ed.scene.select_nodes(["f"])
    from PySide6.QtWidgets import QLabel

    desc = window.inspector.findChild(QLabel, "description")
    assert desc.text() == library.get("function").description


def test_undo_history_view_lists_named_entries(window):
    ed = window.new_file()
    ed.add_node("inject", QPointF(100, 100))
    ed.add_node("debug", QPointF(300, 100))
    model = window.undo_view.model()
    texts = [model.index(k, 0).data() for k in range(model.rowCount())]
    assert texts == ["<opened>", "Add inject", "Add debug"]
    assert window.actions["edit.undo"].text() == "&Undo Add debug"
    window.actions["edit.undo"].trigger()
    assert len(ed.doc.node_ids()) == 1
