"""The facts the curation window states about its Δ matrix, computed in the core: rows complete,
cells a deadline cut, the program-order matrix, a reorder; and each member's nearest in a
near-duplicate group. Checked against plain loops on random matrices."""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np

from gindex_studio.core.curation import matrix_state
from gindex_studio.core.curation.analysis import DuplicateGroup


def _random_state(rng: random.Random, n: int):
    values = np.array([[rng.random() for _ in range(n)] for _ in range(n)])
    lower = values.copy()
    exact = np.ones((n, n), dtype=bool)
    for _ in range(rng.randrange(n * n + 1)):
        r, c = rng.randrange(n), rng.randrange(n)
        if rng.random() < 0.5:
            lower[r, c] = np.nan  # not searched yet
        else:
            lower[r, c] = values[r, c] / 2  # cut: an interval
            exact[r, c] = False
    return values, lower, exact


def test_rows_complete_and_cells_cut_count_as_loops_do():
    rng = random.Random(7)
    for n in (0, 1, 2, 5, 9):
        values, lower, exact = _random_state(rng, n)
        rows = sum(1 for r in range(n) if all(not np.isnan(lower[r, c]) for c in range(n)))
        cut = sum(1 for r in range(n) for c in range(n) if not exact[r, c])
        assert matrix_state.complete_rows(lower) == rows
        assert matrix_state.cells_cut(exact) == cut


def test_program_order_and_reorder_move_each_cell_with_its_pair():
    rng = random.Random(11)
    n = 8
    by_program = np.array([[rng.random() for _ in range(n)] for _ in range(n)])
    order = list(range(n))
    rng.shuffle(order)
    shown = np.array([[by_program[order[r], order[c]] for c in range(n)] for r in range(n)])
    assert np.array_equal(matrix_state.in_program_order(shown, order), by_program)
    new_order = list(range(n))
    rng.shuffle(new_order)
    again = matrix_state.reordered(shown, order, new_order)
    assert all(again[r, c] == by_program[new_order[r], new_order[c]] for r in range(n) for c in range(n))


def test_each_members_nearest_is_the_least_delta_ties_to_the_lowest_index():
    rng = random.Random(3)
    for _ in range(20):
        members = sorted(rng.sample(range(30), rng.randrange(2, 8)))
        pairs = sorted({(a, b, Fraction(rng.randrange(4), 8)) for a in members for b in members
                        if a < b and rng.random() < 0.7})
        nearest = DuplicateGroup(members, pairs).nearest()
        for m in members:
            cands = [(v, b if a == m else a) for a, b, v in pairs if m in (a, b)]
            assert nearest.get(m) == (min(cands) if cands else None)
