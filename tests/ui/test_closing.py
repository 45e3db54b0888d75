"""Closing a window whose work runs off the GUI thread: the work is cancelled, the window waits
until it has really ended, and what the window owned is freed there and then, on the GUI thread
(not later by the garbage collector, which may run in any thread: a worker reporting while the
GUI thread destroys its receiver deadlocked a run, and Qt wrappers freed by a collection in a
job's thread crashed two)."""
from __future__ import annotations

import gc
import threading
import weakref

import pytest

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QApplication

from gindex_studio.core.benchmark import analysis as core_analysis
from gindex_studio.core.benchmark.curriculum import Cancelled
from gindex_studio.paths import DEMO_DIR

STUDY = DEMO_DIR / "study" / "study.json"


@pytest.fixture
def collector_off(monkeypatch):
    """No cyclic collection while the test runs: neither the automatic one nor the GUI thread's
    (ui/gui_gc's timer collects through ``gc.collect``), so what is freed is freed by the window
    letting it go."""
    was_on = gc.isenabled()
    gc.collect()
    gc.disable()
    monkeypatch.setattr(gc, "collect", lambda generation=2: 0)
    yield
    monkeypatch.undo()
    if was_on:
        gc.enable()


def delete_now() -> None:
    """Run the deferred deletions posted by a closed WA_DeleteOnClose window."""
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    QApplication.processEvents()


def test_closing_the_analysis_window_cancels_its_scoring_and_waits_for_it(qtbot, library, monkeypatch, collector_off):
    real = core_analysis.compute_gindex
    started, seen = threading.Event(), {}

    def held(exp, *args, cancel=None, **kw):
        """The real computation, held at its start until the window cancels it."""
        seen["cancel"] = cancel
        started.set()
        try:
            if cancel is not None:
                cancel.wait(120)
            return real(exp, *args, cancel=cancel, **kw)
        except BaseException as e:
            seen["raised"] = e
            raise
        finally:
            seen["ended"] = True

    monkeypatch.setattr(core_analysis, "compute_gindex", held)
    from gindex_studio.ui.analysis.window import WINDOWS, open_analysis

    win = open_analysis([str(STUDY)], library)  # as File → Analysis… then a study
    qtbot.waitExposed(win)
    assert started.wait(60), "the scoring did not start"
    win.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=10_000)
    qtbot.keyClick(win, Qt.Key_W, Qt.ControlModifier)  # File → Close
    # close() returned only after the work ended, and it ended because it was cancelled
    assert seen.get("ended"), "the window closed while its scoring still ran"
    assert seen["cancel"] is not None and seen["cancel"].is_set()
    assert isinstance(seen.get("raised"), Cancelled)
    assert win.runner.pool.activeThreadCount() == 0 and win.systems == []
    alive = weakref.ref(win)
    delete_now()
    assert win not in WINDOWS
    del win
    assert alive() is None, "the closed window is left in a reference cycle"


@pytest.mark.slow
def test_closing_the_curation_window_frees_its_jobs_and_engines_at_once(qtbot, tmp_path, monkeypatch,
                                                                         collector_off):
    """With the collector off, the closed window, its jobs (worker-process jobs) and its engines are gone as
    soon as the window is deleted: nothing is left in a reference cycle."""
    from gindex_studio.ui.curation.window import WINDOWS, open_curation

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = open_curation(str(DEMO_DIR / "experiment.json"))
    qtbot.waitExposed(win)
    win.wait_for_report()
    win.wait_for_matrix()
    qtbot.waitUntil(lambda: win._matrix_job is None or not win._matrix_job.isRunning(), timeout=60_000)
    assert win._report_job is not None and win._report_job.isFinished()  # it ran (in a worker process)
    refs = {"window": weakref.ref(win), "report job": weakref.ref(win._report_job),
            "report engine": weakref.ref(win._report_engine)}
    if win._matrix_engine is not None:
        refs["matrix engine"] = weakref.ref(win._matrix_engine)
    if win._matrix_job is not None:
        refs["matrix job"] = weakref.ref(win._matrix_job)
    win.close()
    delete_now()
    assert win not in WINDOWS
    del win
    assert [name for name, ref in refs.items() if ref() is not None] == []
