"""What is known of a Δ matrix while its rows arrive: the arrays the curation window's matrix
model keeps, and the facts its progress line states (rows complete, cells a deadline cut).

Arrays are in display order: ``values`` the best Δ found (or a preview; NaN unknown), ``lower``
the search's lower bound (NaN until the cell's row is searched), ``exact`` whether the search
proved ``values`` (lower = value).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def complete_rows(lower: np.ndarray) -> int:
    """Display rows whose every cell has been searched (no NaN lower bound)."""
    return int((~np.isnan(lower).any(axis=1)).sum()) if lower.size else 0


def cells_cut(exact: np.ndarray) -> int:
    """Cells whose search a deadline cut: Δ is only bounded (an interval), not exact."""
    return int((~exact).sum())


def in_program_order(values: np.ndarray, order: Sequence[int]) -> np.ndarray:
    """A square display-order matrix (row and column k are program ``order[k]``) indexed by
    program instead."""
    n = len(order)
    out = np.full((n, n), np.nan)
    idx = np.array(order, dtype=int)
    out[np.ix_(idx, idx)] = values
    return out


def reordered(values: np.ndarray, order: Sequence[int], new_order: Sequence[int]) -> np.ndarray:
    """A square display-order matrix shown in ``new_order`` (the same programs) instead of ``order``."""
    pos = {p: k for k, p in enumerate(order)}
    perm = [pos[p] for p in new_order]
    return values[np.ix_(perm, perm)]
