"""Issue 32's Done-when: the 8-node task "every weekday at 9:00, GET a status URL; if ``status`` is
not 'ok' send a Telegram message, else log 'fine'", authored from an empty canvas at 1366×768 with
mouse and keyboard only, takes at most 45 actions; the flow it saves has the asked structure and
runs so in the real Node-RED.

Every input goes through ``Inputs`` (a click, a drag, a key press = 1; a word typed into one field
= 1; a click lands only on pixels shown on screen, keys go to the focused widget); the test never
edits the model. Saving is Ctrl+S into the scripted Save dialog's answer. The nodes: inject → http request → json → switch,
whose rule 1 (``msg.payload.status == "ok"``) goes to change (payload = "fine") → debug and whose
rule 2 (otherwise) goes to the Telegram sender with its bot (a config node): eight nodes."""
from __future__ import annotations

import json

import pytest

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox, QPushButton

from .input_counter import Inputs
from .status_task import LIMIT, URL, check_runs, check_structure


def _node_at(ed, node_type: str):
    (nid,) = [i for i in ed.scene.nodes if ed.doc.node(i).type == node_type]
    return nid


def _click_node(io: Inputs, ed, node_id: str) -> None:
    item = ed.scene.nodes[node_id]
    centre = item.mapRectToScene(item.body()).center()
    pos = ed.view.mapFromScene(centre)
    assert ed.view.viewport().rect().contains(pos), f"{ed.doc.node(node_id).type} is off screen at {pos}"
    io.click(ed.view.viewport(), pos, f"select {ed.doc.node(node_id).type}")
    assert ed.scene.selected_node_ids() == [node_id]


def _pick(io: Inputs, inspector, combo, keys: list, what: str) -> None:
    """Open ``combo`` with a click, press ``keys`` in its list (a letter jumps to the entry starting
    with it, End to the last) and Enter."""
    y = io.reveal(inspector.scroll, combo)
    io.click(combo, QPoint(combo.width() // 2, y), f"open {what}")
    assert combo.view().isVisible()
    for k in keys:
        if isinstance(k, str):
            io.type(k, f"{what}: {k}")
        else:
            io.key(k, what=f"{what}: key")
    io.key(Qt.Key_Return, what=f"{what}: Enter")


def _field(io: Inputs, inspector, edit, text: str, what: str, at_end: bool = False) -> None:
    """Click into a text field (an empty one, or right of its text when ``at_end``) and type; the
    field commits when the next click takes the focus away."""
    assert at_end or edit.text() == "", (what, edit.text())
    y = io.reveal(inspector.scroll, edit)
    io.click(edit, QPoint(edit.width() - 6 if at_end else edit.width() // 2, y), f"click {what}")
    io.type(text, what)


def _quick_add(io: Inputs, name: str) -> None:
    """Type a node's name where the keyboard is (the canvas: its first key opens the quick-add
    popup, or the popup's field) and press Enter."""
    io.type(name, f"type {name!r}")
    io.key(Qt.Key_Return, what="Enter")


def author(window, io: Inputs):
    """The authoring, gesture by gesture; returns the editor."""
    assert window.editor is None  # the studio as it starts: the first palette add opens a new flow
    insp = window.inspector

    # the first node from the palette's filter (Enter adds the top match in a new flow), set at once
    io.click(window.palette.search, what="click palette filter")
    io.type("inject")
    io.key(Qt.Key_Return, what="Enter")
    ed = window.editor
    inject = _node_at(ed, "inject")
    rep = insp.editors["repeat"]
    _pick(io, insp, rep.mode, ["a"], "inject: repeat")
    le = rep.at.lineEdit()
    days = [[b for b in rep.findChildren(QCheckBox, f"day:{d}") if b.isVisibleTo(rep)][0] for d in ("Sat", "Sun")]
    io.reveal(insp.scroll, days[1])  # one scroll shows the time and the days
    y = io.reveal(insp.scroll, le)
    fm = le.fontMetrics()
    io.click(le, QPoint(le.contentsRect().left() + 2 + fm.horizontalAdvance("0"), y), "inject: hour")
    io.type("09", "inject: hour")
    for day, box in zip(("Sat", "Sun"), days):
        io.click(box, QPoint(8, io.reveal(insp.scroll, box)), f"inject: untick {day}")

    # the next nodes typed on the canvas: each Enter adds the match wired from the selected node
    _click_node(io, ed, inject)
    _quick_add(io, "http request")
    http = _node_at(ed, "http request")
    _field(io, insp, insp.editors["url"], URL, "http: URL")
    _click_node(io, ed, http)
    for name in ("json", "switch", "change", "debug"):
        _quick_add(io, name)
    # a node typed in on the canvas is not scrolled into view (the palette's Enter scrolls to it):
    # change and switch are now right of the visible canvas
    io.key(Qt.Key_0, Qt.ControlModifier, "Ctrl+0: fit the flow to the window")

    change = _node_at(ed, "change")
    _click_node(io, ed, change)
    to = insp.editors["rules"].rows[0].to
    _field(io, insp, to.edit, "fine", "change: to the value")

    switch = _node_at(ed, "switch")
    _click_node(io, ed, switch)
    prop = insp.editors["property"]
    _field(io, insp, prop.edit, ".status", "switch: property", at_end=True)
    rules = insp.editors["rules"]
    _field(io, insp, rules.rows[0].value_field.edit, "ok", "switch: rule 1 value")
    add = rules.findChild(QPushButton, "add-rule")
    y = io.reveal(insp.scroll, add)
    io.click(add, QPoint(add.width() // 2, y), "switch: + add")
    rules = insp.editors["rules"]
    _pick(io, insp, rules.rows[1].op, [Qt.Key_End], "switch: rule 2 operator")  # (Shift+Tab from the new
    # rule's value reaches its type menu, then the remove button: never the operator)

    # the Telegram sender from the switch's free output (rule 2), and its bot: a new config node
    _click_node(io, ed, switch)
    _quick_add(io, "telegram sender")
    _pick(io, insp, insp.editors["bot"].combo, [Qt.Key_End], "sender: bot")  # End: "Create new …"
    return ed


def _author_and_save(window, qtbot, tmp_path) -> Inputs:
    window.resize(1366, 768)
    qtbot.wait(50)
    assert (window.width(), window.height()) == (1366, 768)
    io = Inputs(window)
    author(window, io)
    path = tmp_path / "status.json"
    window.dialogs.next_save_path = str(path)  # the Save dialog's answer (the dialog is scripted)
    io.key(Qt.Key_S, Qt.ControlModifier, "Ctrl+S")
    print(f"\nauthoring the status task took {io.count} actions:\n  " + "\n  ".join(io.log))
    check_structure(json.loads(path.read_text()))
    return io


def test_the_status_task_takes_at_most_45_actions_and_saves_the_asked_flow(window, qtbot, tmp_path):
    io = _author_and_save(window, qtbot, tmp_path)
    assert io.count <= LIMIT, io.log


@pytest.mark.slow
def test_the_saved_flow_deploys_and_routes_the_status_in_the_real_node_red(window, qtbot, tmp_path, nodered_session):
    _author_and_save(window, qtbot, tmp_path)
    check_runs(nodered_session, json.loads((tmp_path / "status.json").read_text()))
