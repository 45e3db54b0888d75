"""Curation work off the GUI thread: the report (pruned searches) and the full Δ matrix (row by
row). Each job owns its ``PairEngine`` (engines are not shared between threads); both read and
write the same disk cache. Cancelling sets the engine's token: the running search stops within
a few hundred search nodes."""
from __future__ import annotations

import threading
import time
import weakref
from typing import Callable

import numpy as np
from PySide6.QtCore import QThread, Signal

from gindex_studio.core.curation import analysis as an
from gindex_studio.core.curation.engine import Cancelled
from gindex_studio.core.curation.report import analyse
from gindex_studio.core.scoring.matching import CancelToken


#: seconds per pair of the coarse preview (a preview: the rows bring the real values)
PREVIEW_DEADLINE = 0.002
#: from this many cells to compute on, the matrix job searches on worker processes (one per core)
POOL_MIN_CELLS = 40_000


def _pool_for(engine, cells: int):
    """A ``PairPool`` on every core for ``engine`` when ``cells`` are worth it (and there is
    more than one core), else None."""
    import os

    if cells < POOL_MIN_CELLS or (os.cpu_count() or 1) < 2:
        return None
    from gindex_studio.core.curation.pairpool import PairPool

    return PairPool(engine.prepared, engine.options.profile)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, end) of each run of True in ``mask``."""
    out, start = [], None
    for k, v in enumerate(list(mask) + [False]):
        if v and start is None:
            start = k
        elif not v and start is not None:
            out.append((start, k))
            start = None
    return out


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


class ReportJob(QThread):
    """One ``analyse`` pass; ``finished_report(report)`` or ``failed(message)``;
    ``progress(done, total)`` within each batch of the engine's queries (on a cluster: units).

    ``hold``: an event the job waits for before it starts searching, at most ``hold_seconds``
    (the window holds its first report until the matrix is on screen: both share one
    interpreter, and the report's preparation would slow the matrix down; the first band takes
    about 1 s of CPU, so 10 s leaves room on a busy machine). A cancel ends the hold at once."""

    finished_report = Signal(object)
    failed = Signal(str)
    progress = Signal(int, int)

    def __init__(self, ws, engine, thresholds, parent=None, hold: threading.Event | None = None,
                 hold_seconds: float = 10.0):
        super().__init__(parent)
        self.ws, self.engine, self.thresholds = ws, engine, thresholds
        self.hold, self.hold_seconds = hold, hold_seconds
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


class MatrixJob(QThread):
    """The full Δ matrix in display ``order`` (rows; columns ``cols``, default the same): first a coarse preview, then bands of complete rows
    (each band at most ``band_seconds`` of work, the first as soon as its first row is done).

    Signals: ``coarse(matrix)``, ``band(first_row, values, lower, exact)`` (arrays rows × n),
    ``progress(done_rows, n)``, ``arranged(order, points)``, ``done(seconds)``.

    With ``arrange`` (every program's domain; ``order`` then holds every program once), a
    complete square matrix is also arranged here, off the GUI thread: ``arranged`` carries the
    clustering display order (``analysis.cluster_order``) and the 2-D map (``classical_mds``),
    emitted just before ``done``."""

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
        self.token = CancelToken()
        self._pool = None

    def cancel(self) -> None:
        self.token.set()

    def run(self) -> None:
        start = time.perf_counter()
        n = len(self.order)
        self.engine.cancel = self.token  # here: setting it when built took the cancel from the job being stopped
        try:
            known = self.engine.known_matrix(self.order, self.cols or self.order, self.deadline)
            self.values, self.lower, self.exact = known.values, known.lower, known.exact
            complete = known.have.all(axis=1)
            done = int(complete.sum())
            for first, last in _runs(complete):  # rows already known (the cache): shown at once
                self.band.emit(first, known.values[first:last], known.lower[first:last], known.exact[first:last])
            if done:
                self.progress.emit(done, n)
            todo = [r for r in range(n) if not complete[r]]
            if todo and self.preview and len(todo) * len(self.cols or self.order) > 48 * 48:
                quick = PREVIEW_DEADLINE if self.deadline is None else min(self.deadline, PREVIEW_DEADLINE)
                self.coarse.emit(an.coarse_matrix(self.engine, self.order, 24, quick, self.cols))
            rows, t0, first = [], time.perf_counter(), True
            for row in an.matrix_rows(self.engine, self.order, self.deadline, rows=todo, cols=self.cols):
                if rows and rows[-1].r + 1 != row.r:  # a band holds consecutive rows only
                    self._emit(rows)
                    rows = []
                rows.append(row)
                done += 1
                if first or done == n or time.perf_counter() - t0 >= self.band_seconds:
                    self._emit(rows)
                    self.progress.emit(done, n)
                    self.engine.flush()
                    if first:  # the preview and the first band came from here (sooner); the rest from workers
                        self._pool = self.engine.pool = _pool_for(self.engine, (len(todo) - 1) * len(self.cols or self.order))
                    rows, t0, first = [], time.perf_counter(), False
            if rows:
                self._emit(rows)
                self.progress.emit(done, n)
        except Cancelled:
            self.engine.flush()
            return
        except Exception as e:
            self.failed.emit(f"{type(e).__name__}: {e}")
            return
        finally:
            self._close_pool()
        self.engine.flush()
        if self.cols is None and not complete.all():  # kept whole: the next window reads it at once
            self.engine.save_matrix(self.order, self.values, self.lower, self.exact, self.deadline)
        if self.arrange is not None:
            self._arrange()
        self.done.emit(time.perf_counter() - start)

    def _close_pool(self) -> None:
        """The workers end with the job (at once when it was cancelled)."""
        pool, self._pool = self._pool, None
        if self.engine.pool is pool:
            self.engine.pool = None
        if pool is not None:
            pool.stop() if self.token.is_set() else pool.close()

    def _arrange(self) -> None:
        n = len(self.order)
        idx = np.asarray(self.order, dtype=np.int64)
        matrix = np.full((n, n), np.nan)
        matrix[np.ix_(idx, idx)] = self.values
        matrix = np.nan_to_num(matrix, nan=1.0)
        self.arranged.emit(*an.arrange(matrix, self.arrange, self.engine.cache))

    def _emit(self, rows) -> None:
        for r in rows:
            self.values[r.r], self.lower[r.r], self.exact[r.r] = r.values, r.lower, r.exact
        self.band.emit(rows[0].r, np.vstack([r.values for r in rows]), np.vstack([r.lower for r in rows]),
                       np.vstack([r.exact for r in rows]))


class SummaryJob(QThread):
    """The domain × domain summary (``analysis.domain_summary``), a domain row at a time: every
    row from the samples first, then every row again with its exact least Δ.

    Signals: ``row(SummaryRow)``, ``progress(rows_done, 2 × domains)``, ``done(seconds)``,
    ``failed(message)``."""

    row = Signal(object)
    progress = Signal(int, int)
    done = Signal(float)
    failed = Signal(str)

    def __init__(self, engine, blocks, per_domain: int = 10, deadline: float | None = 0.05, parent=None):
        super().__init__(parent)
        self.engine, self.blocks, self.per_domain, self.deadline = engine, blocks, per_domain, deadline
        self.token = CancelToken()

    def cancel(self) -> None:
        self.token.set()

    def run(self) -> None:
        start = time.perf_counter()
        self.engine.cancel = self.token
        try:
            for k, r in enumerate(an.domain_summary(self.engine, self.blocks, self.per_domain, self.deadline), 1):
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
