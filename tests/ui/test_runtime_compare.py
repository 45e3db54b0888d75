"""Behaviour beside Δ in the compare window, nrlint and missing modules in the studio (issue 25):
a real Node-RED (the session's, reached through Preferences' Node-RED URL and token), real clicks."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "runtime"
HTTP1 = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"
SHOTS = os.environ.get("GINDEX_TEST_SHOTS")


@pytest.fixture
def prefs_to(user_nodered, tmp_path, monkeypatch):
    """Preferences naming the session's Node-RED (URL + admin token), as a user would set them."""
    from gindex_studio.ui import preferences

    settings = QSettings(str(tmp_path / "studio.ini"), QSettings.IniFormat)
    preferences.Preferences(node_red_url=user_nodered.url, node_red_token=user_nodered.token,
                            node_red_trust=True).save(settings)
    monkeypatch.setattr(preferences, "STUDIO_SETTINGS", [settings])
    return settings


def _experiment(tmp_path):
    broken = json.loads((DEMO / "one-constant.json").read_text())
    nodes = broken["flow"] if isinstance(broken, dict) else broken
    z = next(n.get("z") for n in nodes if n.get("z"))
    nodes.append({"id": "ghost", "type": "frobnicate", "z": z, "x": 500, "y": 300, "wires": []})
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    exp = {"format": "gindex-studio.experiment/1", "name": "probes", "system": "s", "priors": 0.0001,
           "compute": {"total": 4}, "curriculum": [{"domain": "http", "programs": [str(HTTP1)], "samples": 10}],
           "tasks": [{"id": "same", "domain": "calc", "reference": str(DEMO / "reference.json"),
                      "generated": {"file": str(DEMO / "same-behaviour.json")}},
                     {"id": "broken", "domain": "calc", "reference": str(DEMO / "reference.json"),
                      "generated": {"file": str(tmp_path / "broken.json")}}]}
    (tmp_path / "exp.json").write_text(json.dumps(exp))
    return tmp_path / "exp.json"


@pytest.mark.slow
def test_run_probes_beside_delta_and_in_the_task_table(qtbot, library, prefs_to, tmp_path):
    from tests.ui.conftest import shown_compare_window
    from gindex_studio.ui.compare.task_table import COLUMNS

    win = shown_compare_window(qtbot, library, 1400, 900)
    c = win.controller
    assert win.open_experiment(str(_experiment(tmp_path)))
    qtbot.waitUntil(lambda: c.result is not None and not c.timer.isActive() and not c.runner.busy, timeout=30_000)
    g_before = c.result.g_index
    panel, ctl = win.view.panel, win.features["probes"].controller
    for k, (text, cell) in enumerate([
            ("runs: yes · behaves like the reference on 2 of 2 probes", "2/2"),
            ("runs: no · behaves like the reference on 1 of 2 probes · generated: 1 runtime problem",
             "no run (1/2)")]):
        win.show_task(k)
        qtbot.waitUntil(lambda: win.view.result is not None and not win.view.runner.busy, timeout=10_000)
        delta = win.view.result.delta
        assert panel.behaviour_label.text() == "behaviour: not run"
        with qtbot.waitSignal(ctl.finished, timeout=60_000) as sig:
            QTest.mouseClick(panel.probe_button, Qt.LeftButton)
        assert sig.args[0] is not None
        assert panel.behaviour_label.text() == text
        assert win.view.result.delta == delta and c.result.g_index == g_before  # beside, never folded in
        row = win.tasks.proxy.mapFromSource(win.tasks.model.index(k, COLUMNS.index("Behaves")))
        assert row.data() == cell
    # the generated side's runtime problem sits on its node, as in the studio's Problems
    gen = win.view.editors["generated"].doc
    assert [(p.kind, p.node_id) for p in gen.problems() if p.kind == "missing-type"] == [("missing-type", "ghost")]
    assert "DIFFERENT" in panel.behaviour_label.toolTip()
    if SHOTS:
        win.grab().save(str(Path(SHOTS) / "compare-probes.png"))
    # a new pair forgets the behaviour shown; Run → Run Probes (Ctrl+F5) runs again
    win.show_task(0)
    assert panel.behaviour_label.text() == "behaviour: not run"
    with qtbot.waitSignal(ctl.finished, timeout=60_000):
        QTest.keyClick(win, Qt.Key_F5, Qt.ControlModifier)
    assert panel.behaviour_label.text().startswith("runs: yes · behaves like the reference on 2 of 2")
    win.close()
    assert not ctl.running and not ctl.thread.isRunning()


@pytest.mark.slow
def test_lint_and_install_offer_in_problems(window, qtbot, nodered, user_nodered, tmp_path, monkeypatch):
    from gindex_studio.core.flows.flow import flow_from_nodes
    from gindex_studio.core.nodered.runtime import RemoteRuntime, free_port
    from gindex_studio.ui.preferences import Preferences

    prefs = Preferences(lint_rules=["function-eslint", "no-unnamed-functions"])
    prefs.save(window.settings)
    ctl = window.features["run"].controller
    ctl.worker.factory = lambda progress: RemoteRuntime(user_nodered.url, user_nodered.token)
    flow = [{"id": "t", "type": "tab"},
            {"id": "f", "type": "function", "z": "t", "func": "total = 1;\nreturn msg;", "x": 100, "y": 80,
             "wires": [["d"]]},
            {"id": "d", "type": "gindex-double", "z": "t", "module": "node-red-contrib-gindex-double", "x": 300,
             "y": 80, "wires": []}]
    ed = window.add_editor(flow_from_nodes(flow), None)
    window.tabs.setCurrentWidget(ed)
    QTest.keyClick(window, Qt.Key_F5, Qt.ShiftModifier)  # Run → Lint
    qtbot.waitUntil(lambda: any(p.kind == "lint" for p in ed.doc.problems()), timeout=20_000)
    lint = sorted((p.message, p.node_id) for p in ed.doc.problems() if p.kind == "lint")
    assert lint == [("function-eslint: [msg] 'total' is not defined.", "f"),
                    ("no-unnamed-functions: Function node has no name", "f")]
    QTest.keyClick(window, Qt.Key_F5)  # Deploy & run: the missing type joins the lint findings
    qtbot.waitUntil(lambda: any(p.kind == "missing-type" for p in ed.doc.problems()), timeout=20_000)
    assert sum(p.kind == "lint" for p in ed.doc.problems()) == 2
    probs = window.problems
    qtbot.waitUntil(lambda: any(probs.itemWidget(probs.topLevelItem(i), 3) is not None
                                for i in range(probs.topLevelItemCount())), timeout=3000)
    row = next(probs.topLevelItem(i) for i in range(probs.topLevelItemCount())
               if probs.topLevelItem(i).text(0) == "missing-type")
    button = probs.itemWidget(row, 3)
    assert button.text() == "Install node-red-contrib-gindex-double"
    if SHOTS:
        window.grab().save(str(Path(SHOTS) / "problems-lint-install.png"))
    # offline (the registry unreachable): one clear line, nothing lost
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{free_port()}/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    from gindex_studio.core.nodered import modules

    monkeypatch.setattr(modules, "extras_dir", lambda base=None: tmp_path / "extra")
    QTest.mouseClick(button, Qt.LeftButton)  # the studio asks first (tests/ui/test_install_offer.py)
    qtbot.waitUntil(lambda: ctl.install_box.isVisible(), timeout=3000)
    QTest.mouseClick(ctl.install_box.findChild(QPushButton, "install-confirm-yes"), Qt.LeftButton)
    qtbot.waitUntil(lambda: any("cannot reach the npm registry" in t for t in ctl.panel.visible_texts()),
                    timeout=60_000)
    assert "node-red-contrib-gindex-double" in window.statusBar().currentMessage()
    assert ed.doc.has("d")


def test_preferences_dialog_keeps_node_red_and_lint_rules(qtbot, tmp_path):
    from gindex_studio.ui.preferences import Preferences, PreferencesDialog

    d = PreferencesDialog(Preferences())
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    QTest.keyClicks(d.node_red, "http://127.0.0.1:1880")
    QTest.keyClicks(d.node_red_token, "s3cret")
    lint = d.lint
    item = lint.findItems("no-loops", Qt.MatchExactly)[0]
    rect = lint.visualItemRect(item)
    QTest.mouseClick(lint.viewport(), Qt.LeftButton, pos=rect.center())  # select the row
    QTest.keyClick(lint.viewport(), Qt.Key_Space)  # and uncheck it
    v = d.value()
    assert (v.node_red_url, v.node_red_token) == ("http://127.0.0.1:1880", "s3cret")
    assert "no-loops" not in v.lint_rules and "function-eslint" in v.lint_rules
    settings = QSettings(str(tmp_path / "p.ini"), QSettings.IniFormat)
    v.save(settings)
    assert Preferences.load(settings) == v
    Preferences(lint_rules=[]).save(settings)
    assert Preferences.load(settings).lint_rules == []
