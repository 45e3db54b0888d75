"""The studio without a sandbox, and with the user's own Node-RED (issue 31, items 4 and 5): it
asks once per session, with a warning, before a model's flow runs with the user's rights; a
Node-RED in Preferences is used only when "run the models' flows" is ticked. Real clicks."""
from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.ui.nodered import consent

FLOW = [{"id": "t1", "type": "tab", "label": "run"},
        {"id": "in1", "type": "inject", "z": "t1", "name": "seven", "payload": "7", "payloadType": "num",
         "x": 100, "y": 60, "wires": [["dbg"]]},
        {"id": "dbg", "type": "debug", "z": "t1", "name": "out", "active": True, "tosidebar": True,
         "complete": "false", "x": 300, "y": 60, "wires": []}]


@pytest.fixture
def no_bubblewrap(tmp_path, monkeypatch, nodered):
    """A PATH with node, npm and prlimit but no bwrap: a machine where no sandbox can be made."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("node", "npm", "prlimit", "ldd"):
        if shutil.which(tool):
            (bin_dir / tool).symlink_to(shutil.which(tool))
    monkeypatch.setenv("PATH", str(bin_dir))
    consent.forget()
    yield
    consent.forget()


def _answer(qtbot, button_text: str, seen: list) -> None:
    """Click ``button_text`` in the warning once it is shown (it is modal: a timer clicks it)."""
    def click():
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.objectName() == "unsandboxed-warning":
            seen.append(box.text() + "\n" + box.informativeText())
            button = next(b for b in box.buttons() if b.text() == button_text)
            QTest.mouseClick(button, Qt.LeftButton)
        else:
            QTimer.singleShot(50, click)
    QTimer.singleShot(50, click)


@pytest.mark.slow
def test_no_sandbox_asks_once_with_a_warning(window, qtbot, no_bubblewrap):
    ctl = window.features["run"].controller
    ed = window.add_editor(flow_from_nodes(FLOW), None)
    window.tabs.setCurrentWidget(ed)
    seen: list[str] = []
    _answer(qtbot, "Don't run", seen)
    QTest.keyClick(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: any("not run: no sandbox for flows" in t for t in ctl.panel.visible_texts()),
                    timeout=30_000)
    assert len(seen) == 1 and "with your own rights" in seen[0] and "apt-get install bubblewrap" in seen[0]
    assert ctl.worker.runtime is None  # nothing ran
    # asked again (the answer was no), from the Debug dock's button; this time: run without the sandbox
    _answer(qtbot, "Run without sandbox", seen)
    QTest.mouseClick(ctl.panel.deploy_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: "deployed" in window.statusBar().currentMessage(), timeout=60_000)
    assert len(seen) == 2
    assert ctl.worker.runtime is not None and not ctl.worker.runtime.sandboxed
    # the rest of the session: not asked again
    window.statusBar().clearMessage()
    QTest.mouseClick(ctl.panel.deploy_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: "deployed" in window.statusBar().currentMessage(), timeout=30_000)
    assert len(seen) == 2
    ctl.shutdown()


def test_the_users_node_red_needs_its_trust_ticked(window, qtbot, user_nodered):
    from gindex_studio.ui.preferences import Preferences, PreferencesDialog

    Preferences(node_red_url=user_nodered.url, node_red_token=user_nodered.token).save(window.settings)
    ctl = window.features["run"].controller
    ed = window.add_editor(flow_from_nodes(FLOW), None)
    window.tabs.setCurrentWidget(ed)
    QTest.keyClick(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: any("would run the model's flow unsandboxed" in t for t in ctl.panel.visible_texts()),
                    timeout=30_000)
    assert ctl.worker.runtime is None
    # the choice, ticked in Preferences as a user would
    d = PreferencesDialog(Preferences.load(window.settings))
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    assert not d.node_red_trust.isChecked() and "sandbox" in d.node_red_trust.toolTip()
    QTest.mouseClick(d.node_red_trust, Qt.LeftButton, pos=QPoint(6, d.node_red_trust.height() // 2))
    assert d.value().node_red_trust
    d.value().save(window.settings)
    QTest.keyClick(window, Qt.Key_F5)
    qtbot.waitUntil(lambda: "deployed" in window.statusBar().currentMessage(), timeout=30_000)
    assert ctl.worker.runtime is not None and not ctl.worker.runtime.private
    ctl.shutdown()
