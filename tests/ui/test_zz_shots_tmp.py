import pytest
from PySide6.QtWidgets import QApplication
from gindex_studio.ui.theme import apply_theme
from .test_authoring import select
from .test_structured_editors import open_flow

NODES = [{"id": "t", "type": "tab", "label": "Flow 1"},
 {"id": "i", "type": "inject", "z": "t", "name": "weekdays 9:00", "props": [{"p": "payload"}, {"p": "topic", "vt": "str"}, {"p":"status","v":"3","vt":"num"}],
  "repeat": "", "crontab": "00 09 * * 1,2,3,4,5", "once": False, "onceDelay": 0.1, "topic": "", "payload": "", "payloadType": "date", "x": 150, "y": 150, "wires": [["s"]]},
 {"id": "s", "type": "switch", "z": "t", "name": "", "property": "payload.status", "propertyType": "msg",
  "rules": [{"t": "neq", "v": "ok", "vt": "str"}, {"t": "btwn", "v": "1", "vt": "num", "v2": "5", "v2t": "num"}, {"t": "else"}], "checkall": "false", "repair": False, "outputs": 3, "x": 300, "y": 150, "wires": [["c"], [], []]},
 {"id": "c", "type": "change", "z": "t", "name": "", "rules": [{"t": "set", "p": "chatId", "pt": "msg", "to": "payload.originalMessage.chat.id", "tot": "msg"}], "x": 450, "y": 150, "wires": [[]]},
]

@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("node", ["s", "i", "c"])
def test_shot(window, theme, node):
    apply_theme(theme)
    try:
        window.resize(1366, 768)
        ed = open_flow(window, NODES)
        select(ed, node)
        if node == "i":
            ins = window.inspector
            ins.scroll.ensureWidgetVisible(ins.editors["repeat"])
        QApplication.processEvents()
        window.grab().save(f"/tmp/rules-{node}-{theme}.png")
    finally:
        apply_theme("light")
