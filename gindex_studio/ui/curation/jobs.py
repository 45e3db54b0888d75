"""Curation work off the GUI thread: the report (pruned searches) and the full Δ matrix (row by
row). Each job owns its ``PairEngine`` (engines are not shared between threads); both read and
write the same disk cache. Cancelling sets the engine's token: the running search stops within
a few hundred search nodes."""
from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QThread, Signal

from gindex_studio.core.curation import analysis as an
from gindex_studio.core.curation.engine import Cancelled
from gindex_studio.core.curation.report import analyse
from gindex_studio.core.matching import CancelToken


class ReportJob(QThread):
    """One ``analyse`` pass; ``finished_report(report)`` or ``failed(message)``."""

    finished_report = Signal(object)
    failed = Signal(str)

    def __init__(self, ws, engine, thresholds, parent=None):
        super().__init__(parent)
        self.ws, self.engine, self.thresholds = ws, engine, thresholds
        self.token = CancelToken()
        engine.cancel = self.token

    def cancel(self) -> None:
        self.token.set()

    def run(self) -> None:
        try:
            rep = analyse(self.ws, self.engine, *self.thresholds)
        except Cancelled:
            return
        except Exception as e:  # reported, never lost in a thread
            self.failed.emit(f"{type(e).__name__}: {e}")
            return
        self.finished_report.emit(rep)


class MatrixJob(QThread):
    """The full Δ matrix in display ``order``: first a coarse preview, then bands of complete rows
    (each band at most ``band_seconds`` of work, the first as soon as its first row is done).

    Signals: ``coarse(matrix)``, ``band(first_row, values, lower, exact)`` (arrays rows × n),
    ``progress(done_rows, n)``, ``done(seconds)``."""

    coarse = Signal(object)
    band = Signal(int, object, object, object)
    progress = Signal(int, int)
    done = Signal(float)
    failed = Signal(str)

    def __init__(self, engine, order, deadline: float | None = 0.05, band_seconds: float = 0.25,
                 preview: bool = True, parent=None):
        super().__init__(parent)
        self.engine, self.order = engine, list(order)
        self.deadline, self.band_seconds, self.preview = deadline, band_seconds, preview
        self.token = CancelToken()
        engine.cancel = self.token

    def cancel(self) -> None:
        self.token.set()

    def run(self) -> None:
        start = time.perf_counter()
        n = len(self.order)
        try:
            if self.preview and n > 48:
                self.coarse.emit(an.coarse_matrix(self.engine, self.order, 24, self.deadline))
            rows, t0 = [], time.perf_counter()
            for row in an.matrix_rows(self.engine, self.order, self.deadline):
                rows.append(row)
                if time.perf_counter() - t0 >= self.band_seconds or row.r == n - 1 or row.r == 0:
                    self._emit(rows)
                    self.progress.emit(row.r + 1, n)
                    self.engine.flush()
                    rows, t0 = [], time.perf_counter()
        except Cancelled:
            self.engine.flush()
            return
        except Exception as e:
            self.failed.emit(f"{type(e).__name__}: {e}")
            return
        self.engine.flush()
        self.done.emit(time.perf_counter() - start)

    def _emit(self, rows) -> None:
        self.band.emit(rows[0].r, np.vstack([r.values for r in rows]), np.vstack([r.lower for r in rows]),
                       np.vstack([r.exact for r in rows]))
