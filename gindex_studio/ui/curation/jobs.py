"""Curation work off the GUI thread: the report (pruned searches) and the summary in threads, the
full Δ matrix (row by row) in a worker process. Each job owns its ``PairEngine`` (engines are not
shared between threads or processes); all read and write the same disk cache. Cancelling a thread
job sets the engine's token: the running search stops within a few hundred search nodes;
cancelling the matrix kills its process."""
from __future__ import annotations

import threading
import time
import weakref
from typing import Callable

from PySide6.QtCore import QThread, QTimer, Signal

from gindex_studio.core.curation import analysis as an
from gindex_studio.core.curation.engine import Cancelled
from gindex_studio.core.curation.report import analyse
from gindex_studio.core.jobs import curation as curation_jobs
from gindex_studio.core.scoring.matching import CancelToken
from gindex_studio.ui.process_runner import WorkerJob


def _progress_of(job) -> Callable[[int, int], None]:
    """The engine's progress callback for ``job``: it reaches the job through a weak reference.
    ``job.progress.emit`` would make a cycle (job → engine → bound signal → job) that only the
    garbage collector frees, in whichever thread it happens to run: Qt objects must die on the
    GUI thread, when the window lets them go."""
    ref = weakref.ref(job)

    def progress(done: int, total: int) -> None:
        j = ref()
        if j is not None:
            j.progress.emit(done, total)

    return progress


class _ReportInputs:
    """What both report jobs are given: the workspace, an engine, the thresholds and the hold
    (a mixin before the job's Qt class, whose ``__init__(parent)`` it calls)."""

    def __init__(self, ws, engine, thresholds, parent=None, hold: threading.Event | None = None,
                 hold_seconds: float = 10.0):
        super().__init__(parent)
        self.ws, self.engine, self.thresholds = ws, engine, thresholds
        self.hold, self.hold_seconds = hold, hold_seconds


class ReportJob(_ReportInputs, WorkerJob):
    """One ``analyse`` pass in a worker process (``curation_jobs.report_job``, on an engine of its
    own over ``engine``'s programs and disk cache); ``finished_report(report)`` or
    ``failed(message)``; ``progress(done, total)`` within each batch of the engine's queries.

    ``hold``: an event the job waits for (on a 20 ms timer, held counts as running) before it
    starts its worker, at most ``hold_seconds`` (the window holds its first report until the
    matrix is on screen: both share the cores). A cancel ends the hold at once."""

    finished_report = Signal(object)
    failed = Signal(str)
    progress = Signal(int, int)
    _timer: QTimer | None = None  # the hold's
    _until = 0.0

    def call(self):
        self.engine.flush()
        return curation_jobs.report_job, (self.ws, _cache_path(self.engine), self.engine.digests, self.thresholds)

    def start(self) -> None:
        if self.hold is None or self.hold.is_set():
            super().start()
            return
        self._state = "running"  # held
        self._until = time.monotonic() + self.hold_seconds
        self._timer = QTimer(self)
        self._timer.setInterval(20)
        self._timer.timeout.connect(self._held)
        self._timer.start()

    def _held(self) -> None:
        if self._state == "running" and self.worker is None and (self.hold.is_set() or time.monotonic() >= self._until):
            self._timer.stop()
            super().start()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        super().cancel()

    def wait(self, ms: int = 30_000) -> bool:
        end = time.monotonic() + ms / 1000
        while self._state == "running" and self.worker is None:  # held: only the timeout can end it here
            if time.monotonic() >= end:
                return False
            if self.hold.is_set() or time.monotonic() >= self._until:
                self._held()
            else:
                time.sleep(min(0.02, max(0.0, end - time.monotonic())))
        return super().wait(max(0, int((end - time.monotonic()) * 1000)))

    def on_event(self, kind, value) -> None:
        if kind == "progress":
            self.progress.emit(*value)

    def on_done(self, report) -> None:
        self.finished_report.emit(report)

    def on_failed(self, line) -> None:
        self.failed.emit(line)


class ThreadReportJob(_ReportInputs, QThread):
    """One ``analyse`` pass in a thread, for an engine whose searches run elsewhere (a Dask
    cluster's); ``finished_report(report)`` or ``failed(message)``;
    ``progress(done, total)`` within each batch of the engine's queries (on a cluster: units).

    ``hold``: an event the job waits for before it starts searching, at most ``hold_seconds``
    (the window holds its first report until the matrix is on screen: both share one
    interpreter, and the report's preparation would slow the matrix down; the first band takes
    about 1 s of CPU, so 10 s leaves room on a busy machine). A cancel ends the hold at once."""

    finished_report = Signal(object)
    failed = Signal(str)
    progress = Signal(int, int)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.token = CancelToken()
        self._stop = threading.Event()

    def cancel(self) -> None:
        self.token.set()
        self._stop.set()

    def run(self) -> None:
        self.engine.cancel = self.token  # here, not at construction: the engine may still serve a job that stops
        self.engine.progress = _progress_of(self)
        if self.hold is not None:
            end = time.monotonic() + self.hold_seconds
            while not self.hold.is_set() and not self._stop.is_set() and time.monotonic() < end:
                self.hold.wait(0.02)
        if self.token.is_set():
            return
        try:
            rep = analyse(self.ws, self.engine, *self.thresholds)
        except Cancelled:
            return
        except Exception as e:  # reported, never lost in a thread
            self.failed.emit(f"{type(e).__name__}: {e}")
            return
        self.finished_report.emit(rep)


class MatrixJob(WorkerJob):
    """The full Δ matrix in display ``order`` (rows; columns ``cols``, default the same): first a
    coarse preview, then bands of complete rows (each band at most ``band_seconds`` of work, the
    first as soon as its first row is done). It runs in a worker process
    (``curation_jobs.matrix_job`` on an engine of its own over ``engine``'s programs and disk
    cache), whose searches after the first band run on a process per core (``PairPool``, in the
    worker's process group: ``cancel`` ends them with it): the GUI thread only reads the bands
    from a pipe, at most ``READ_BUDGET`` at a time.

    Signals: ``coarse(matrix)``, ``band(first_row, values, lower, exact)`` (arrays rows × n),
    ``progress(done_rows, n)``, ``arranged(order, points)``, ``done(seconds)``, ``failed(line)``,
    ``finished()`` (done, failed or cancelled). ``cancel()`` kills the process at once: the bands
    read so far stay, nothing arrives after it.

    With ``arrange`` (every program's domain; ``order`` then holds every program once), a
    complete square matrix is also arranged in the worker: ``arranged`` carries the clustering
    display order (``analysis.cluster_order``) and the 2-D map (``classical_mds``), emitted just
    before ``done``."""

    coarse = Signal(object)
    band = Signal(int, object, object, object)
    progress = Signal(int, int)
    arranged = Signal(object, object)
    done = Signal(float)
    failed = Signal(str)

    def __init__(self, engine, order, deadline: float | None = 0.05, band_seconds: float = 0.25,
                 preview: bool = True, parent=None, cols=None, arrange=None):
        super().__init__(parent)
        self.engine, self.order = engine, list(order)
        self.cols = None if cols is None else list(cols)
        self.arrange = None if arrange is None or cols is not None else list(arrange)
        self.deadline, self.band_seconds, self.preview = deadline, band_seconds, preview
        #: the worker's ``PairPool``: processes (None: one per core) and the cells left after the
        #: first band from which it starts (``curation_jobs.matrix_job``)
        self.workers, self.pool_min_pairs = None, curation_jobs.POOL_MIN_PAIRS
        self.cpu_seconds: float | None = None

    def call(self):
        self.engine.flush()  # what the engine found is on disk for the worker
        return curation_jobs.matrix_job, (self.engine._flows, self.engine.options, _cache_path(self.engine),
                                        self.engine.digests, self.order, self.cols, self.deadline,
                                        self.band_seconds, self.preview, self.arrange, self.workers,
                                        self.pool_min_pairs)

    def on_event(self, kind, value) -> None:
        if kind in ("band", "progress", "arranged"):  # the signal of that name, with the value's items
            getattr(self, kind).emit(*value)
        elif kind == "coarse":
            self.coarse.emit(value)
        elif kind == "cpu":
            self.cpu_seconds = value  # the job's CPU, its pool's included (benchmarks read it)

    def on_done(self, seconds) -> None:
        self.done.emit(seconds)

    def on_failed(self, line) -> None:
        self.failed.emit(line)


def _cache_path(engine) -> str | None:
    """The engine's disk cache, for a worker's engine (None: no cache, or one in memory)."""
    cache = engine.cache
    return str(cache.path) if cache is not None and cache.path is not None and cache.on_disk else None


class SummaryJob(QThread):
    """The domain × domain summary (``analysis.domain_summary``), a domain row at a time: every
    row from the samples first, then every row again with its exact least Δ (the blocks on a
    ``PairPool``, a process per core; a cancel stops it).

    Signals: ``row(SummaryRow)``, ``progress(rows_done, 2 × domains)``, ``done(seconds)``,
    ``failed(message)``."""

    row = Signal(object)
    progress = Signal(int, int)
    done = Signal(float)
    failed = Signal(str)

    def __init__(self, engine, blocks, per_domain: int = 10, deadline: float | None = 0.05, parent=None):
        super().__init__(parent)
        self.engine, self.blocks, self.per_domain, self.deadline = engine, blocks, per_domain, deadline
        self.workers: int | None = None  # the exact least Δ's processes (None: one per core)
        self.token = CancelToken()

    def cancel(self) -> None:
        self.token.set()

    def run(self) -> None:
        start = time.perf_counter()
        self.engine.cancel = self.token
        try:
            for k, r in enumerate(an.domain_summary(self.engine, self.blocks, self.per_domain, self.deadline,
                                                    workers=self.workers), 1):
                self.row.emit(r)
                self.progress.emit(k, 2 * len(self.blocks))
                self.engine.flush()
        except Cancelled:
            self.engine.flush()
            return
        except Exception as e:
            self.failed.emit(f"{type(e).__name__}: {e}")
            return
        self.done.emit(time.perf_counter() - start)
