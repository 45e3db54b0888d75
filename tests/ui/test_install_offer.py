"""The studio's offer to install a missing node type's module asks first (issue 31, item 3): a
dialog names the module; Cancel installs nothing; a module name that is a path (the flow is a
model's) is refused without asking."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox, QPushButton

from fake_npm_registry import Registry, serve


@pytest.fixture
def registry(tmp_path, monkeypatch):
    reg = Registry()  # knows no module: an install that goes ahead is refused by it, in one line
    with serve(reg):
        monkeypatch.setenv("npm_config_registry", reg.url)
        monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
        from gindex_studio.core.nodered import modules

        monkeypatch.setattr(modules, "extras_dir", lambda base=None: tmp_path / "extra")
        yield reg


def _install_button(window, module):
    probs = window.problems
    for i in range(probs.topLevelItemCount()):
        b = probs.itemWidget(probs.topLevelItem(i), 3)
        if b is not None and b.text() == f"Install {module}":
            return b
    return None


@pytest.mark.slow
def test_installing_a_module_asks_first_and_refuses_paths(window, qtbot, user_nodered, registry, tmp_path):
    from gindex_studio.core.flows.flow import flow_from_nodes
    from gindex_studio.core.nodered.runtime import RemoteRuntime

    ctl = window.features["run"].controller
    ctl.worker.factory = lambda progress: RemoteRuntime(user_nodered.url, user_nodered.token)
    flow = [{"id": "t", "type": "tab"},
            {"id": "d", "type": "gindex-double", "z": "t", "module": "node-red-contrib-gindex-double", "x": 100,
             "y": 80, "wires": []},
            {"id": "e", "type": "evil-node", "z": "t", "module": "file:../../evil", "x": 300, "y": 80, "wires": []}]
    ed = window.add_editor(flow_from_nodes(flow), None)
    window.tabs.setCurrentWidget(ed)
    QTest.keyClick(window, Qt.Key_F5)  # Deploy & run: both types are missing, each with an Install button
    qtbot.waitUntil(lambda: _install_button(window, "node-red-contrib-gindex-double") is not None
                    and _install_button(window, "file:../../evil") is not None, timeout=20_000)
    # a path the flow names: refused at once, one line, no dialog
    QTest.mouseClick(_install_button(window, "file:../../evil"), Qt.LeftButton)
    assert window.statusBar().currentMessage() == (
        "Node-RED: 'file:../../evil' is not installed: only a plain npm package name is installed (name or "
        "@scope/name: no version, path, URL, git spec or tarball)")
    assert window.findChildren(QMessageBox, "install-confirm") == [] and registry.requests == []
    # a plain name: the dialog names it; Cancel installs nothing
    QTest.mouseClick(_install_button(window, "node-red-contrib-gindex-double"), Qt.LeftButton)
    box = ctl.install_box
    qtbot.waitUntil(box.isVisible, timeout=3000)
    assert box.text() == "Install the npm module node-red-contrib-gindex-double into the studio's private Node-RED?"
    assert "without running its install scripts" in box.informativeText()
    QTest.mouseClick(box.button(QMessageBox.Cancel), Qt.LeftButton)
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=3000)
    qtbot.wait(300)
    assert registry.requests == [] and not (tmp_path / "extra").exists()
    # Install: it goes ahead (this registry has no such module: one line, nothing lost)
    QTest.mouseClick(_install_button(window, "node-red-contrib-gindex-double"), Qt.LeftButton)
    box = ctl.install_box
    qtbot.waitUntil(box.isVisible, timeout=3000)
    QTest.mouseClick(box.findChild(QPushButton, "install-confirm-yes"), Qt.LeftButton)
    qtbot.waitUntil(lambda: any("has no module node-red-contrib-gindex-double" in t
                                for t in ctl.panel.visible_texts()), timeout=30_000)
    assert registry.requests == ["node-red-contrib-gindex-double"]
    assert ed.doc.has("d") and ed.doc.has("e")
