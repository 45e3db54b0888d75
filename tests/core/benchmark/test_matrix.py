"""The row-by-row Δ matrix (core.benchmark.matrix) equals the plain pair-by-pair matrix it
replaced: every cell, on random programs, on one process and on two; rows come in order as they
are complete; the CLI's streamed JSON is json_out's output byte for byte."""
from __future__ import annotations

import io
import random
from contextlib import redirect_stdout
from fractions import Fraction

import numpy as np
import pytest

from gindex_studio.core.benchmark.matrix import delta_rows, pair_match, plan_units, races
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.flows.generate import perturb, random_flow
from gindex_studio.core.support import limits
from gindex_studio.core.scoring.divergence import ScoreOptions, delta_from_s, prepare
from gindex_studio.core.scoring.matching import max_common_subgraph


def _programs(seed: int, n: int):
    rng = random.Random(seed)
    bases = [random_flow(rng.randint(4, 16), rng, f"b{k}") for k in range(4)]
    flows = [perturb(bases[i % 4], rng, 0.3, prefix=f"c{i}") for i in range(n)]
    flows.append(flow_from_nodes([]))  # an empty program: Δ = 1 against everything
    return flows


def _old_matrix(prepared, profile):
    """The matrix as ``curriculum.delta_matrix`` computed it before: one plain search per cell."""
    n = len(prepared)
    out = [[0.0] * n for _ in range(n)]
    for i, a in enumerate(prepared):
        for j, b in enumerate(prepared):
            m = max_common_subgraph(a.graph, b.graph, profile)
            out[i][j] = float(delta_from_s(Fraction(*m.weight), a.n, b.n))
    return out


@pytest.mark.parametrize("profile", ["paper", "companion"])
@pytest.mark.parametrize("seed", [2, 5])
def test_rows_equal_the_pair_by_pair_matrix(profile, seed):
    opts = ScoreOptions(profile=profile)
    prepared = [prepare(f, opts) for f in _programs(seed, 17)]
    expected = _old_matrix(prepared, profile)
    for workers, unit in ((1, 4096), (1, 7), (2, 7)):
        got = list(delta_rows(prepared, profile, workers=workers, unit_pairs=unit))
        assert [i for i, _r in got] == list(range(len(prepared)))
        assert [r.tolist() for _i, r in got] == expected, (workers, unit)


def test_a_raced_pair_has_the_same_weight_as_either_orientation():
    rng = random.Random(3)
    assert races("paper") and not races("companion")
    for k in range(30):
        a = prepare(random_flow(rng.randint(3, 18), rng, "a"))
        b = prepare(random_flow(rng.randint(3, 18), rng, "b"))
        raced = pair_match(a, b, "paper")
        assert raced.exact and raced.improved
        assert Fraction(*raced.weight) == Fraction(*max_common_subgraph(a.graph, b.graph, "paper").weight) \
            == Fraction(*max_common_subgraph(b.graph, a.graph, "paper").weight)


def test_rows_come_before_the_whole_matrix_is_done():
    prepared = [prepare(f) for f in _programs(8, 30)]
    seen = []
    rows = delta_rows(prepared, "paper", workers=2, unit_pairs=20, progress=lambda d, t: seen.append((d, t)))
    i, first = next(rows)
    total = len(prepared) * (len(prepared) + 1) // 2
    assert i == 0 and len(first) == len(prepared) and seen and seen[-1][0] < total
    rest = list(rows)
    assert [k for k, _r in rest] == list(range(1, len(prepared))) and seen[-1] == (total, total)


def test_closing_the_rows_early_stops_the_workers():
    prepared = [prepare(f) for f in _programs(9, 30)]
    rows = delta_rows(prepared, "paper", workers=2, unit_pairs=10)
    next(rows)
    rows.close()  # no worker is left behind (the pool is stopped); a new run works
    assert len(list(delta_rows(prepared[:5], "paper", workers=2, unit_pairs=3))) == 5


@pytest.mark.parametrize("n,symmetric", [(1, True), (7, True), (50, True), (50, False), (3, False)])
def test_units_cover_every_row_once_in_order(n, symmetric):
    units = plan_units(n, symmetric, unit_pairs=40)
    assert [i for u in units for i in u] == list(range(n))
    assert all(len(u) >= 1 for u in units)


def test_largest_matrix_pair_is_the_first_largest_in_row_order():
    rng = random.Random(4)
    flows = [random_flow(rng.randint(1, 20), rng, f"p{k}") for k in range(23)] + [flow_from_nodes([])]
    ignore = frozenset({"debug"})

    def pairs(a, b):
        return limits.same_type_pairs(a, b, ignore)

    brute = None
    for i, a in enumerate(flows):
        for j, b in enumerate(flows):
            if brute is None or pairs(a, b) > brute[0]:
                brute = (pairs(a, b), i, j)
    assert limits.largest_matrix_pair(flows, ignore, block=5) == brute
    assert limits.largest_matrix_pair([]) is None


def test_streamed_json_is_json_out_byte_for_byte():
    from gindex_studio.cli.common import json_out, json_out_rows

    def captured(fn):
        out = io.StringIO()
        with redirect_stdout(out):
            fn()
        return out.getvalue()

    doc = {"files": ['x\n  "delta": []', "b.json"], "delta": None, "profile": "paper", "syntax": [None, {"line": 1}]}
    for rows in ([[0.0]], [[0.0, 1e-05], [0.25, 0.1234567890123]]):
        assert captured(lambda: json_out_rows(doc, "delta", (np.array(r) for r in rows))) == \
            captured(lambda: json_out({**doc, "delta": rows}))
