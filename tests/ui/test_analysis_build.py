"""The Analysis window's File menu driven by its shortcuts, and the "New Experiment from Outputs"
dialog filled in by typing and clicking: the experiment it writes is the core's, and it joins the
window as a system; bad input stays in the dialog."""
from __future__ import annotations

import json
import shutil

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.core.benchmark.study import load_study, open_inputs
from gindex_studio.paths import DEMO_DIR

STUDY = DEMO_DIR / "study" / "study.json"


@pytest.fixture
def harness(tmp_path):
    """cur/<domain>/<domain>-1.json, refs/<domain>-4.json and outputs.jsonl with 2 attempts per task:
    the reference itself and an unreadable answer."""
    refs, cur = tmp_path / "refs", tmp_path / "cur"
    refs.mkdir()
    lines = []
    for d in ("http", "twitter", "cron-schedule"):
        (cur / d).mkdir(parents=True)
        shutil.copy(DEMO_DIR / "programs" / d / f"{d}-1.json", cur / d)
        shutil.copy(DEMO_DIR / "programs" / d / f"{d}-4.json", refs)
        flow = json.loads((refs / f"{d}-4.json").read_text())["flow"]
        lines.append(json.dumps({"task_id": f"{d}-4", "outputs": [json.dumps(flow), "I cannot do that"]}))
    (tmp_path / "outputs.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.fixture
def awin(qtbot, library):
    from gindex_studio.ui.analysis.window import AnalysisWindow

    win = AnalysisWindow(library)
    win.resize(1366, 768)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.runner.wait(10_000)


def type_into(qtbot, edit, text):
    qtbot.mouseClick(edit, Qt.LeftButton)
    edit.selectAll()
    QTest.keyClick(edit, Qt.Key_Delete)
    QTest.keyClicks(edit, text)


def open_dialog(awin, qtbot):
    QTest.keySequence(awin, "Ctrl+N")
    qtbot.waitUntil(lambda: getattr(awin, "build_dialog", None) is not None and awin.build_dialog.isVisible())
    return awin.build_dialog


def test_dialog_builds_the_experiment_and_adds_it_as_a_system(awin, qtbot, harness):
    dlg = open_dialog(awin, qtbot)
    dlg.ask_path = lambda kind, title: str(harness / "outputs.jsonl") if kind == "open" else None
    type_into(qtbot, dlg.edits["curriculum"], str(harness / "cur"))
    type_into(qtbot, dlg.edits["tasks"], str(harness / "refs"))
    qtbot.mouseClick(dlg.findChild(type(dlg.build_button), "browse-outputs"), Qt.LeftButton)
    assert dlg.edits["outputs"].text() == str(harness / "outputs.jsonl")
    type_into(qtbot, dlg.edits["compute"], "74.75")
    type_into(qtbot, dlg.edits["samples"], "40, http=80")
    type_into(qtbot, dlg.edits["system"], "mine")
    type_into(qtbot, dlg.edits["output"], str(harness / "out" / "exp.json"))
    with qtbot.waitSignal(awin.analysed, timeout=60_000):
        qtbot.mouseClick(dlg.build_button, Qt.LeftButton)
    assert not shiboken6.isValid(dlg) or not dlg.isVisible()  # closed
    exp = load_experiment(harness / "out" / "exp.json")
    assert [t.id for t in exp.tasks] == ["cron-schedule-4", "http-4", "twitter-4"]
    assert [len(t.attempts) for t in exp.tasks] == [2, 2, 2]
    assert {c.domain: c.samples for c in exp.curriculum} == {"cron-schedule": 40, "http": 80, "twitter": 40}
    assert [s.label for s in awin.systems] == ["mine"]
    row = awin.analysis.summary[0]
    assert row.g_index.value == compute_gindex(exp, workers=1).g_index
    assert row.theta.value == 0.5 and row.skill.value == 0.0  # one perfect, one empty attempt per task
    assert awin.table.item(0, 0).text() == "mine"


def test_dialog_keeps_bad_input_and_writes_nothing(awin, qtbot, harness):
    dlg = open_dialog(awin, qtbot)
    type_into(qtbot, dlg.edits["curriculum"], str(harness / "cur"))
    type_into(qtbot, dlg.edits["tasks"], str(harness / "refs"))
    type_into(qtbot, dlg.edits["outputs"], str(harness / "outputs.jsonl"))
    type_into(qtbot, dlg.edits["output"], str(harness / "exp.json"))
    qtbot.mouseClick(dlg.build_button, Qt.LeftButton)
    assert dlg.isVisible() and dlg.error.text() == "Training compute: required"
    type_into(qtbot, dlg.edits["compute"], "74.75")
    type_into(qtbot, dlg.edits["samples"], "lots")
    qtbot.mouseClick(dlg.build_button, Qt.LeftButton)
    assert dlg.error.text() == "Samples per domain: lots: give a whole number, or DOMAIN=NUMBER (at most 9,223,372,036,854,775,807)"
    type_into(qtbot, dlg.edits["samples"], "")
    (harness / "outputs.jsonl").write_text('{"task_id": "http-4", "output": "x"}\n')
    qtbot.mouseClick(dlg.build_button, Qt.LeftButton)
    assert "no output for task 'cron-schedule-4'" in dlg.error.text()
    assert dlg.isVisible() and dlg.edits["compute"].text() == "74.75"  # everything typed is kept
    assert not (harness / "exp.json").exists() and awin.systems == []


@pytest.mark.slow
def test_add_experiment_and_save_study_from_the_file_menu(awin, qtbot, tmp_path):
    menu = next(a.menu() for a in awin.menuBar().actions() if a.text().replace("&", "") == "File")
    assert [a.objectName() for a in menu.actions()] == ["analysis.add", "analysis.new", "analysis.save_study",
                                                        "analysis.report", "analysis.close", "", "file.quit"]
    awin.ask_open_paths = lambda *a: [str(DEMO_DIR / "study" / "gpt2-small.json"), str(DEMO_DIR / "experiment.json")]
    with qtbot.waitSignal(awin.analysed, timeout=60_000):
        QTest.keySequence(awin, "Ctrl+O")
    assert [s.label for s in awin.systems] == ["gpt2-small", "demo-gpt2-medium"]
    awin.ask_save_path = lambda *a: str(tmp_path / "mine.json")
    QTest.keySequence(awin, "Ctrl+S")
    study = load_study(tmp_path / "mine.json")
    assert [e.path for e in study.entries] == [(DEMO_DIR / "study" / "gpt2-small.json").resolve(),
                                               (DEMO_DIR / "experiment.json").resolve()]
    name, pairs = open_inputs([tmp_path / "mine.json"])
    assert name == "mine" and [lab for lab, _ in pairs] == ["gpt2-small", "demo-gpt2-medium"]


def test_studio_file_menu_builds_an_experiment(window, qtbot):
    act = window.actions["file.new_experiment"]
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.menu() and a.text().replace("&", "") == "File")
    assert act in file_menu.actions()
    from gindex_studio.ui.analysis import window as aw

    act.trigger()
    win = aw.WINDOWS[-1]
    qtbot.waitUntil(lambda: win.build_dialog.isVisible())
    win.build_dialog.reject()
    win.close()
