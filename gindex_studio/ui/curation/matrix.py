"""The Δ matrix the heatmap draws, as a model it observes: programs along the rows (``order``)
and columns (``cols``), and per cell the best Δ found (``values``), its lower bound (``lower``)
and whether it is exact (``exact``), in display order (see ``core.curation.matrix_state``).

Signals: ``reset`` (new programs: everything unknown), ``reordered`` (the same cells in a new
order), ``valuesChanged`` (a preview filled unknown cells), ``rowsChanged(first, count)`` (a band
of display rows arrived).
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Signal

from gindex_studio.core.curation import matrix_state


class MatrixModel(QObject):
    reset = Signal()
    reordered = Signal()
    valuesChanged = Signal()
    rowsChanged = Signal(int, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.labels: list[str] = []
        self.domains: list[str] = []
        self.order: list[int] = []  # program of each display row
        self.cols: list[int] = []  # program of each display column (the same as order when square)
        self.values = np.zeros((0, 0))
        self.lower = np.zeros((0, 0))
        self.exact = np.zeros((0, 0), dtype=bool)

    def set_programs(self, labels: list[str], domains: list[str], order: list[int],
                     cols: list[int] | None = None) -> None:
        """Programs in display ``order`` along the rows and ``cols`` along the columns (default:
        the same, a square matrix); every cell unknown until rows arrive."""
        self.labels, self.domains, self.order = list(labels), list(domains), list(order)
        self.cols = list(order) if cols is None else list(cols)
        n, m = len(self.order), len(self.cols)
        self.values = np.full((n, m), np.nan)
        self.lower = np.full((n, m), np.nan)
        self.exact = np.zeros((n, m), dtype=bool)
        self.reset.emit()

    @property
    def square(self) -> bool:
        return self.cols == self.order

    def reorder(self, order: list[int]) -> None:
        """Show the same cells (of a square matrix) in a new display order."""
        self.values = matrix_state.reordered(self.values, self.order, order)
        self.lower = matrix_state.reordered(self.lower, self.order, order)
        self.exact = matrix_state.reordered(self.exact, self.order, order)
        self.order = list(order)
        self.cols = list(order)
        self.reordered.emit()

    def set_coarse(self, matrix: np.ndarray) -> None:
        """A preview filling every unknown cell (replaced as rows arrive)."""
        unknown = ~self.exact & np.isnan(self.lower)
        self.values[unknown] = matrix[unknown]
        self.valuesChanged.emit()

    def set_rows(self, first: int, values: np.ndarray, lower: np.ndarray, exact: np.ndarray) -> None:
        """A band of complete rows from display row ``first``."""
        k = len(values)
        self.values[first:first + k] = values
        self.lower[first:first + k] = lower
        self.exact[first:first + k] = exact
        self.rowsChanged.emit(first, k)

    def matrix(self) -> np.ndarray:
        """The values in program-index order (NaN where unknown); square matrices only."""
        assert self.square
        return matrix_state.in_program_order(self.values, self.order)

    def complete_rows(self) -> int:
        return matrix_state.complete_rows(self.lower)

    def cells_cut(self) -> int:
        return matrix_state.cells_cut(self.exact)
