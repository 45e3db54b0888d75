"""Attempts (experiment format 2) in the compare view: the chooser lists each attempt with its Δ,
choosing one shows that attempt's program and score, later attempts are view only; the Analysis
window's click opens a task there."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.paths import DEMO_DIR

from gindex_studio.ui.compare.panel import fmt

from .conftest import shown_compare_window
from .test_compare import settle

EXP = DEMO_DIR / "study" / "gpt2-medium.json"


@pytest.fixture
def cwin(qtbot, library):
    win = shown_compare_window(qtbot, library, 1366, 768)
    win.dialogs.ask_save = lambda *_a: "discard"  # closing never waits on a message box
    yield win
    win.view.runner.wait(5000)
    win.controller.runner.wait(5000)


def test_choosing_an_attempt_shows_and_scores_it(cwin, qtbot):
    exp = load_experiment(EXP)
    expected = compute_gindex(exp, workers=1)
    # the task whose attempts differ most
    t = max(expected.tasks, key=lambda r: max(r.attempt_deltas) - min(r.attempt_deltas))
    assert len(set(t.attempt_deltas)) > 1
    assert cwin.open_experiment(str(EXP))
    qtbot.waitUntil(lambda: cwin.controller.result is not None, timeout=30_000)
    cwin.tasks.select_task(t.index)
    settle(qtbot, cwin.view)
    combo = cwin.tasks.attempt
    assert combo.isVisible() and combo.count() == len(t.attempt_deltas) == 4
    assert [combo.itemText(k).split(" · Δ ")[0] for k in range(4)] == [f"attempt {k + 1} of 4" for k in range(4)]
    assert cwin.view.result.delta == t.attempt_deltas[0]
    for k in (1, 2, 3):
        combo.setFocus()
        QTest.keyClick(combo, Qt.Key_Down)  # the next attempt, as a user steps through them
        qtbot.waitUntil(lambda k=k: cwin.current_attempt == k)
        settle(qtbot, cwin.view)
        shown = exp.tasks[t.index].attempts[k]
        gen_ids = sorted(n.id for n in cwin.view.editors["generated"].doc.flow.nodes)
        assert gen_ids == sorted(n.id for n in shown.generated.nodes)
        assert cwin.view.result.delta == pytest.approx(t.attempt_deltas[k])
        assert combo.currentText() == f"attempt {k + 1} of 4 · Δ {fmt(t.attempt_deltas[k])} (view only)"
        assert not cwin.view.editors["generated"].isEnabled()  # view only
        assert "view only" in cwin.statusBar().currentMessage()
    # back to the first attempt: editable again
    QTest.keyClick(combo, Qt.Key_Home)
    qtbot.waitUntil(lambda: cwin.current_attempt == 0)
    settle(qtbot, cwin.view)
    assert cwin.view.editors["generated"].isEnabled()
    assert cwin.view.result.delta == t.attempt_deltas[0]
    assert not cwin.controller.dirty


def test_one_attempt_hides_the_chooser(cwin, qtbot):
    assert cwin.open_experiment(str(DEMO_DIR / "experiment.json"))
    qtbot.waitUntil(lambda: cwin.controller.result is not None and cwin.current_task is not None, timeout=30_000)
    settle(qtbot, cwin.view)
    assert not cwin.tasks.attempt.isVisible()
    assert cwin.view.editors["generated"].isEnabled()
