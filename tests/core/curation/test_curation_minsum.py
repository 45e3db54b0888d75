"""Curation's count bound ``Σ_g w_g·min(c_ig, c_jg)`` (``engine._MinSum``) has one sparse level per
distinct count: a program of 20,000 equal nodes made 20,000 levels (curate took 31 s on it, as
a hostile input of issue 36), now a handful; the sums are those of the plain formula."""
import random
import time

import numpy as np

from gindex_studio.core.curation.engine import _MinSum


def _plain(counts, weights, i, j):
    return sum(weights[g] * min(x, counts[j].get(g, 0)) for g, x in counts[i].items())


def test_the_sums_are_those_of_the_formula():
    rng = random.Random(5)
    width = 30
    counts = [{g: rng.choice([1, 1, 2, 3, 7, 40]) for g in rng.sample(range(width), rng.randint(0, 12))}
              for _ in range(25)]
    counts.append({0: 20_000})
    weights = np.array([rng.random() for _ in range(width)])
    m = _MinSum(counts, width, weights)
    got = m.block(np.arange(len(counts)))
    want = np.array([[_plain(counts, weights, i, j) for j in range(len(counts))] for i in range(len(counts))])
    assert np.allclose(got, want, rtol=0, atol=1e-9)
    assert len(m.levels) == len({x for c in counts for x in c.values()})


def test_a_program_of_20000_equal_nodes_is_quick():
    counts = [{0: 20_000}, {0: 3, 1: 2}, {1: 5}]
    start = time.perf_counter()
    m = _MinSum(counts, 2)
    got = m.block(np.arange(3))
    assert time.perf_counter() - start < 1
    assert got.tolist() == [[20_000, 3, 0], [3, 5, 2], [0, 2, 5]]
