"""The Analysis window computes its numbers in a worker process (issue 24, item 1): what it shows
is the core's ``analyse`` to the last digit, a newer request or closing the window kills the
running worker (no process left), and a computation that fails says so."""
from __future__ import annotations

import multiprocessing as mp
import os
import time
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gindex_studio.core.benchmark.analysis import System, analyse, table_header, table_rows
from gindex_studio.core.benchmark.gindex import _finish

from tests.ui.test_analysis import systems  # noqa: F401  (the module's fixture: the demo study, scored)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _window(qtbot, library):
    from gindex_studio.ui.analysis.window import AnalysisWindow

    win = AnalysisWindow(library)
    win.resize(1366, 768)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def _large(systems, tasks: int):
    """Each system with its scored tasks repeated to ``tasks`` (fresh ids): an analysis of
    seconds, long enough to be interrupted."""
    out = []
    for s in systems:
        res, exp = s.result, s.experiment
        by_id = {t.id: t for t in exp.tasks}
        new_tasks, new_results = [], []
        for j in range(tasks):
            r = res.tasks[j % len(res.tasks)]
            tid = f"{r.id}#{j}"
            new_tasks.append(replace(by_id[r.id], id=tid))
            new_results.append(replace(r, index=j, id=tid))
        out.append(System(s.label, replace(exp, tasks=new_tasks), _finish(replace(res, tasks=new_results))))
    return out


@pytest.mark.slow
def test_the_window_shows_the_cores_numbers_computed_in_a_worker(qtbot, library, systems):  # noqa: F811
    win = _window(qtbot, library)
    shown = [System(s.label, s.experiment, s.result) for s in systems]
    win.set_systems(shown)
    assert win.busy and win.analyser.worker is not None  # nothing computed on the GUI thread
    pid = None
    while pid is None and win.busy:  # the worker is another process than the studio's
        pid = win.analyser.pid
        qtbot.wait(5)
    assert pid is not None and pid != os.getpid()
    assert win.wait_idle(60_000)
    core = analyse(systems, k=1)
    assert win.analysis.to_dict() == core.to_dict()  # every number, to the last digit
    assert win.analysis.systems == shown
    t = win.table
    assert [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())] == table_header(core)
    assert [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())] == table_rows(core)
    x, y = win.figures["theta_size"].scatter(core.arrays[1].label).getData()
    assert x.tolist() == core.arrays[1].size.tolist() and y.tolist() == core.arrays[1].theta.tolist()
    assert win.tabs.count() == 5  # the comparison and the four tabs of figures


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
def test_another_k_and_closing_the_window_kill_the_running_worker(qtbot, library, systems):  # noqa: F811
    win = _window(qtbot, library)
    big = _large(systems, 2500)
    win.set_systems(big)
    qtbot.waitUntil(lambda: win.analyser.pid is not None, timeout=30_000)
    first = win.analyser.pid
    assert _alive(first)
    # another k while it computes: that worker is killed, a new one starts
    win.k_spin.setFocus()
    win.k_spin.selectAll()
    QTest.keyClicks(win.k_spin, "2")
    QTest.keyClick(win.k_spin, Qt.Key_Return)
    assert not _alive(first)
    qtbot.waitUntil(lambda: win.analyser.pid is not None, timeout=30_000)
    second = win.analyser.pid
    assert second != first and _alive(second)
    assert win.busy and not win.analyser.worker.ended  # still computing when the window closes
    t0 = time.perf_counter()
    win.close()
    assert time.perf_counter() - t0 < 3.0
    assert not _alive(second)
    assert win.analyser.worker is None
    assert not [p for p in mp.active_children() if p.pid in (first, second)]
    assert win.analysis is None  # nothing arrived, then or later
    qtbot.wait(100)
    assert win.analysis is None


def test_a_failing_computation_shows_a_message(qtbot, library, systems, monkeypatch):  # noqa: F811
    from gindex_studio.ui.analysis import window as wmod

    said = []
    monkeypatch.setattr(wmod.QMessageBox, "warning", lambda _parent, title, text: said.append((title, text)))
    win = _window(qtbot, library)
    failed = []
    win.failed.connect(failed.append)
    # a result whose first task lost its per-domain distances: the responsiveness curves fail
    bad = systems[0].result
    broken = replace(bad, tasks=[replace(bad.tasks[0], gd={})] + list(bad.tasks[1:]))
    with pytest.raises(KeyError):
        analyse([System("broken", systems[0].experiment, broken)])  # the core fails on it too
    win.set_systems([System("broken", systems[0].experiment, broken)])
    assert win.wait_idle(60_000)
    assert failed and failed[0].startswith("The analysis failed: KeyError")
    assert said == [("Analysis", failed[0])]
    assert win.status_label.text() == failed[0]
    assert win.analysis is None and not win.busy and win.analyser.worker is None
