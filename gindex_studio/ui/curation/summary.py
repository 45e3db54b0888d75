"""The domain × domain summary shown instead of the full Δ matrix above ``FULL_MATRIX_LIMIT``
programs: one cell per pair of domains coloured by the mean Δ of a sample of its pairs; hover
tells that mean (and how many pairs it comes from) and the block's least Δ, exact over all of
its pairs, with the two programs; a click asks for the block (``pairClicked(a, b)``, domain
indices) to be opened as a matrix of its own."""
from __future__ import annotations

import numpy as np

from gindex_studio.core.curation.analysis import SummaryRow

from gindex_studio.ui.curation.heatmap import HeatmapView


class DomainSummaryView(HeatmapView):
    """``set_domains(names, sizes)``, then ``set_summary_row`` as domain rows arrive."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.names: list[str] = []
        self.rows_done: set[int] = set()
        self.sizes: list[int] = []
        self.least = np.zeros((0, 0))
        self.sampled = np.zeros((0, 0), dtype=np.int64)
        self.total = np.zeros((0, 0), dtype=np.int64)
        self.least_exact = np.zeros((0, 0), dtype=bool)
        self.least_pair: list[list] = []
        self.info.setText("Domain × domain summary (colour: mean Δ of a sample of pairs): hover a block for its "
                          "mean and its exact least Δ, click it to open the block's programs")

    def set_domains(self, names: list[str], sizes: list[int]) -> None:
        self.names, self.sizes = list(names), list(sizes)
        d = len(names)
        self.matrix.set_programs(self.names, self.names, list(range(d)))
        self.least = np.full((d, d), np.nan)
        self.sampled = np.zeros((d, d), dtype=np.int64)
        self.total = np.zeros((d, d), dtype=np.int64)
        self.least_pair = [[None] * d for _ in range(d)]
        self.least_exact = np.zeros((d, d), dtype=bool)
        self.rows_done: set[int] = set()
        self.program_labels: list[str] = []  # program index → label (for the least pair)

    def set_summary_row(self, row: SummaryRow) -> None:
        a = row.a
        self.rows_done.add(a)
        self.least[a], self.sampled[a], self.total[a] = row.least, row.sampled, row.total
        self.least_pair[a] = list(row.least_pair) or [None] * len(self.names)
        self.least_exact[a] = row.least_exact if len(row.least_exact) else False
        complete = row.exact & (row.sampled == row.total)
        self.matrix.set_rows(a, row.mean[None, :], np.where(complete, row.mean, np.nan)[None, :], complete[None, :])

    def describe(self, r: int, c: int) -> str:
        a, b = self.names[r], self.names[c]
        head = f"{a} ({self.sizes[r]}) × {b} ({self.sizes[c]})"
        if r not in self.rows_done:
            return head + ":  not computed yet"
        if self.sampled[r, c] == 0:
            return head + ":  no pair (a single program)"
        how = ("all pairs" if self.matrix.exact[r, c]
               else f"{self.sampled[r, c]:,} sampled pairs of {self.total[r, c]:,}")
        if not self.least_exact[r, c]:
            return (head + f":  mean Δ {self.matrix.values[r, c]:.4f} ({how}); least Δ ≤ {self.least[r, c]:.4f} (the sample's; "
                           f"the exact least over all {self.total[r, c]:,} pairs is being searched); click to open the block")
        pair = self.least_pair[r][c]
        between = ""
        if pair is not None and self.program_labels:
            between = f": {self.program_labels[pair[0]].rsplit('/', 1)[-1]} × {self.program_labels[pair[1]].rsplit('/', 1)[-1]}"
        return (head + f":  mean Δ {self.matrix.values[r, c]:.4f} ({how}); least Δ {self.least[r, c]:.4f} "
                       f"(exact, over all {self.total[r, c]:,} pairs{between}); click to open the block")
