"""A node the sandbox does not run is reported on that node, in red, in the studio: Deploy &
run on the real default path (the studio's own sandboxed Node-RED), pressed as a user would."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QToolBar

from gindex_studio.core.flows.flow import flow_from_nodes

SHOTS = os.environ.get("GINDEX_TEST_SHOTS")


def _flow():
    return [
        {"id": "t1", "type": "tab", "label": "hostile"},
        {"id": "in1", "type": "inject", "z": "t1", "name": "go", "payload": "", "payloadType": "date", "topic": "",
         "once": True, "x": 100, "y": 60, "wires": [["ex"]]},
        {"id": "ex", "type": "exec", "z": "t1", "name": "who am I", "command": "id", "addpay": "", "append": "",
         "useSpawn": "false", "timer": "", "x": 280, "y": 60, "wires": [["dbg"], [], []]},
        {"id": "rd", "type": "file in", "z": "t1", "name": "shadow", "filename": "/etc/shadow", "format": "utf8",
         "x": 280, "y": 140, "wires": [["dbg"]]},
        {"id": "dbg", "type": "debug", "z": "t1", "name": "out", "active": True, "tosidebar": True,
         "complete": "false", "x": 460, "y": 60, "wires": []},
    ]


@pytest.mark.slow
def test_refused_nodes_are_red_on_their_nodes_and_in_problems(window, qtbot, nodered):
    made = []

    def factory(progress):
        from gindex_studio.core.nodered.runtime import connect

        rt = connect(progress=progress)
        made.append(rt)
        return rt

    ctl = window.features["run"].controller
    ctl.worker.factory = factory
    ed = window.add_editor(flow_from_nodes(_flow()), None)
    window.tabs.setCurrentWidget(ed)
    button = window.findChild(QToolBar, "toolbar-main").widgetForAction(window.actions["run.deploy"])
    QTest.mouseClick(button, Qt.LeftButton)
    qtbot.waitUntil(lambda: sum(p.kind == "refused" for p in ed.doc.problems()) == 2, timeout=60000)
    assert made and made[0].sandboxed
    refused = {p.node_id: p.message for p in ed.doc.problems() if p.kind == "refused"}
    assert refused["ex"].startswith("refused: runs programs on the host")
    assert refused["rd"].startswith("refused: reads or writes the host's files")
    for node_id in ("ex", "rd"):
        item = ed.scene.nodes[node_id]
        qtbot.waitUntil(lambda: "refused" in dict(item.look.problems), timeout=3000)
        assert item._status == "refused"
        assert item._status_color == item.colors.color("error")
    qtbot.waitUntil(lambda: window.problems.topLevelItemCount() >= 2, timeout=3000)
    rows = [window.problems.topLevelItem(i) for i in range(window.problems.topLevelItemCount())]
    red = QColor(rows[0].foreground(0).color())
    refused_rows = [r for r in rows if r.text(0) == "refused"]
    assert len(refused_rows) == 2 and all(r.foreground(0).color() == red for r in refused_rows)
    if SHOTS:
        window.grab().save(str(Path(SHOTS) / "refused-on-canvas.png"))
    ctl.shutdown()
