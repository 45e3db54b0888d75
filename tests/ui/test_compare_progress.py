"""A long experiment in the compare window: rows appear while the g-index is computed, the
progress bar moves, and a click on Cancel stops the work (the worker thread, and the worker
processes of a big experiment) with the rows done kept; "Compute again" then gives the core's
g-index. The 40 × 1,200 timings are in bench/bench_experiment_progress.py."""
from __future__ import annotations

import os
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gindex_studio.core.benchmark.generate_experiment import write_experiment
from gindex_studio.core.benchmark.gindex import compute_gindex

from .conftest import shown_compare_window


@pytest.fixture(scope="module")
def long_experiment(tmp_path_factory):
    folder = tmp_path_factory.mktemp("long")
    # long enough that the user can cancel after the first complete row (Ω runs in the studio process)
    write_experiment(folder, tasks=12, programs=4320, domains=6, sizes=(10, 30), seed=7)
    return folder / "experiment.json"


@pytest.fixture
def cwin(qtbot, library):
    win = shown_compare_window(qtbot, library, 1366, 768)
    yield win
    win.controller.cancel()
    win.controller.runner.wait(10_000)
    win.view.runner.cancel()
    win.view.runner.wait(5000)


class Watch:
    """What the user sees over time: rows in the table, the bar's value, the final result."""

    def __init__(self, win):
        self.rows, self.values, self.results = [], [], []
        panel = win.tasks
        panel.model.rowsInserted.connect(lambda *_a: self.rows.append((time.perf_counter(), panel.model.rowCount())))
        panel.progress.valueChanged.connect(lambda v: self.values.append(v))
        win.controller.result_changed.connect(lambda r: self.results.append(time.perf_counter()))


def click_centre(button):
    QTest.mouseClick(button, Qt.LeftButton, Qt.NoModifier, button.rect().center())


def worker_idle(win) -> bool:
    runner = win.controller.runner
    return runner.pool.activeThreadCount() == 0 and runner.worker is None


def group_members(pgid: int) -> list[int]:
    """Live processes of process group ``pgid`` (Linux: read from /proc; zombies are not live)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append(int(d))
    return out


@pytest.mark.slow
def test_rows_fill_in_the_bar_moves_and_cancel_stops_the_work(cwin, qtbot, long_experiment):
    watch = Watch(cwin)
    panel = cwin.tasks
    assert cwin.open_experiment(str(long_experiment))
    assert cwin.controller._workers(cwin.controller.experiment) == 1  # this one runs in the studio's process
    assert panel.progress.isVisible() and panel.stop_button.isVisible()
    qtbot.waitUntil(lambda: panel.model.completed >= 1, timeout=60_000)
    assert not watch.results, "the experiment finished before it could be cancelled: make it longer"
    # rows came one at a time, each task's row before the g-index was known
    counts = [n for _t, n in watch.rows]
    assert counts[:3] == [1, 2, 3] and panel.model.rowCount() == 12
    assert any(r.omega is not None for r in panel.model.rows) and any(r.omega is None for r in panel.model.rows)
    pending = next(r for r in range(12) if panel.model.rows[r].omega is None)
    from gindex_studio.ui.compare.task_table import COLUMNS

    assert panel.model.index(pending, COLUMNS.index("Ω")).data() == "…"  # Ω not known yet
    # the bar moved forward (it takes a step at most every PROGRESS_MS: a few so far)
    assert len(set(watch.values)) >= 2 and watch.values == sorted(watch.values)
    # the bar shows the latest step within PROGRESS_MS (it is not repainted for every step)
    qtbot.waitUntil(lambda: "Ω of the tasks" in panel.progress.format(), timeout=5_000)
    done_before = panel.model.completed
    # the user clicks Cancel
    assert panel.stop_button.text() == "Cancel"
    click_centre(panel.stop_button)
    qtbot.waitUntil(lambda: worker_idle(cwin), timeout=60_000)  # how promptly: tests/core/benchmark/test_gindex_progress.py
    assert panel.model.completed < 12, "the work ran to its end: the cancel stopped nothing"
    qtbot.wait(300)
    assert not watch.results and cwin.controller.result is None  # no result arrives after a cancel
    assert panel.model.completed >= done_before and panel.model.rowCount() == 12  # the rows done stay
    assert not panel.progress.isVisible() and panel.stop_button.text() == "Compute again"
    assert "Cancelled" in panel.components.text()
    # and computes again on request, to the core's value, the bar moving forward step by step
    watch.values.clear()
    click_centre(panel.stop_button)
    qtbot.waitUntil(lambda: cwin.controller.result is not None, timeout=120_000)
    assert len(set(watch.values)) >= 5 and watch.values == sorted(watch.values)
    expected = compute_gindex(cwin.controller.experiment, workers=1)
    assert cwin.controller.result.g_index == expected.g_index
    assert f"{expected.g_index:,.3f}" in panel.g_label.text()
    assert not panel.stop_button.isVisible() and not panel.progress.isVisible()


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
def test_the_work_runs_in_a_worker_process_and_cancel_kills_it_with_its_pool(cwin, qtbot, long_experiment):
    cwin.controller.workers = 2  # as for a big experiment on 4 cores or more (PROCESS_PAIRS, PROCESS_CORES)
    panel = cwin.tasks
    assert cwin.open_experiment(str(long_experiment))
    # a fresh worker process with 2 of its own: 6-12 s idle, over 60 s beside three test workers and
    # two busy processes on 2 cores
    qtbot.waitUntil(lambda: "Ω" in panel.progress.format() and panel.model.completed >= 1, timeout=180_000)
    pid = cwin.controller.runner.pid
    assert pid is not None and pid != os.getpid()  # the g-index is computed in another process
    assert cwin.controller.runner.pool.activeThreadCount() == 0  # not in a thread of the studio
    members = group_members(pid)  # the worker and its 2 Ω processes, in a group of their own
    assert pid in members and len(members) == 3 and cwin.controller.result is None
    click_centre(panel.stop_button)
    qtbot.waitUntil(lambda: worker_idle(cwin) and not group_members(pid), timeout=5_000)  # killed at once
    assert panel.model.completed < 12, "the work ran to its end: the cancel stopped nothing"
    qtbot.wait(200)
    assert cwin.controller.result is None and panel.stop_button.text() == "Compute again"
    assert panel.model.completed >= 1 and panel.model.rowCount() == 12  # the rows done stay


def test_a_burst_of_progress_steps_moves_the_bar_a_few_times_and_ends_on_the_last(cwin, qtbot):
    """The core reports thousands of steps; the bar (which repaints the window at once on every
    new value) takes the first at once and then the latest at most every PROGRESS_MS."""
    from gindex_studio.ui.compare.experiment import PROGRESS_MS, STAGE_SPAN

    panel = cwin.tasks
    values = []
    panel.progress.valueChanged.connect(values.append)
    panel.progress.show()
    t0 = time.perf_counter()
    for done in range(1, 2001):
        cwin.controller.progress.emit("omega", done, 2000)
    burst = time.perf_counter() - t0
    assert len(values) <= 2 + burst * 1000 / PROGRESS_MS  # not one repaint per step
    lo, hi = STAGE_SPAN["omega"]
    qtbot.waitUntil(lambda: panel.progress.value() == hi and panel.progress.format() == "Ω of the tasks: 2,000 of 2,000",
                    timeout=5_000)
    assert values[0] == lo + (hi - lo) // 2000 and values == sorted(values)
