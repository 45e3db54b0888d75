"""The curation matrix on worker processes (``PairPool``) and with the batched cache reads gives
the exact matrix the plain search gives, stores it in the cache, and stops on a cancel."""
from __future__ import annotations

import random
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

from gindex_studio.core.curation import analysis as an
from gindex_studio.core.curation.cache import DeltaCache
from gindex_studio.core.curation.engine import Cancelled, PairEngine
from gindex_studio.core.curation.pairpool import PairPool
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.flows.generate import MIDDLE_TYPES, perturb, random_flow
from gindex_studio.core.scoring.divergence import ScoreOptions
from gindex_studio.core.scoring.matching import CancelToken

from test_curation import brute_matrix  # its folder is on sys.path (rootdir-relative test modules)


def _flows(seed: int, n: int):
    rng = random.Random(seed)
    temps = [random_flow(rng.randint(5, 14), rng, f"d{d}x", palette=rng.sample(MIDDLE_TYPES, 3)) for d in range(3)]
    flows = [perturb(temps[i % 3], rng, 0.3, prefix=f"c{i}x") for i in range(n)]
    flows.append(flow_from_nodes([]))
    flows.append(flows[4].copy())  # the same content twice: one digest, one cache key
    return flows


def _matrix(engine, order, deadline=None, **kw):
    rows = list(an.matrix_rows(engine, order, deadline, **kw))
    return [r.r for r in rows], np.vstack([r.values for r in rows]), np.vstack([r.exact for r in rows])


@pytest.mark.parametrize("profile", ["paper", "companion"])
def test_pool_matrix_equals_the_plain_search(tmp_path, profile):
    opts = ScoreOptions(profile=profile)
    flows = _flows(3, 22)
    expected = np.array([[float(v) for v in row] for row in brute_matrix(flows, opts)])
    order = list(range(len(flows)))
    random.Random(1).shuffle(order)
    engine = PairEngine(flows, opts, cache=DeltaCache(tmp_path / "c.sqlite"))
    engine.pool = PairPool(engine.prepared, profile, workers=2)
    try:
        rs, values, exact = _matrix(engine, order, ahead_pairs=50)
    finally:
        engine.pool.close()
        engine.pool = None
    assert rs == list(range(len(order))) and exact.all()
    assert np.array_equal(values, expected[np.ix_(order, order)])
    assert engine.stats.searched > 0
    engine.flush()
    # a second engine reads every value from the cache (batched reads), searching nothing
    again = PairEngine(flows, opts, cache=DeltaCache(tmp_path / "c.sqlite"))
    _rs, values2, _e = _matrix(again, order)
    assert np.array_equal(values2, values) and again.stats.searched == 0
    assert again.delta(order[0], order[1]) == Fraction(brute_matrix([flows[order[0]], flows[order[1]]], opts)[0][1])


def test_pooled_rows_equal_matrix_rows_from_a_partly_known_matrix(tmp_path, monkeypatch):
    """``matrix_rows_pooled`` (the matrix job's rows once its pool runs): the same rows as
    ``matrix_rows``, from a cache holding some of the pairs already, with an empty program and
    one content twice in a shuffled order; what it found is in the cache afterwards (a new engine
    searches nothing), not in the engine's memory."""
    flows = _flows(7, 24)
    expected = np.array([[float(v) for v in row] for row in brute_matrix(flows)])
    order = list(range(len(flows)))
    random.Random(2).shuffle(order)
    n = len(order)
    path = tmp_path / "c.sqlite"
    some = PairEngine(flows, cache=DeltaCache(path))
    for i, j in [(order[a], order[b]) for a in range(0, n, 3) for b in range(1, n, 4)]:
        some.delta(i, j)
    some.flush()
    engine = PairEngine(flows, cache=DeltaCache(path))
    known = engine.known_matrix(order, order, None)
    assert 0 < known.have.sum() < n * n
    submitted = []
    engine.pool = PairPool(engine.prepared, "paper", workers=2)
    submit = engine.pool.submit
    monkeypatch.setattr(engine.pool, "submit", lambda pairs, d: submitted.extend(pairs) or submit(pairs, d))
    rows = [r for r in range(n) if not known.have[r].all()]
    try:
        got = list(an.matrix_rows_pooled(engine, order, rows, known.values, known.lower, known.exact, known.have,
                                          ahead_pairs=40))
    finally:
        engine.pool.close()
        engine.pool = None
    assert [r.r for r in got] == rows
    assert np.array_equal(known.values, expected[np.ix_(order, order)]) and known.exact.all()
    assert np.array_equal(known.lower, known.values)
    for r in got:
        assert np.array_equal(r.values, expected[order[r.r], order])
    pos = {p: k for k, p in enumerate(order)}
    held = set(some._known)  # the cache keys of the pairs on disk before
    assert all(pos[j] >= pos[i] and engine._key(i, j) not in held for i, j in submitted)
    assert len(submitted) == len(set(submitted))  # each unordered pair once, never one the cache held
    assert engine.stats.searched == len(submitted) and not engine._known
    engine.flush()
    again = PairEngine(flows, cache=DeltaCache(path))
    _rs, values, _e = _matrix(again, order)
    assert np.array_equal(values, expected[np.ix_(order, order)]) and again.stats.searched == 0


def test_pooled_rows_keep_a_cut_search_and_stop_on_cancel(tmp_path):
    flows = [random_flow(120, random.Random(3), "a"), random_flow(120, random.Random(1003), "b"),
             *_flows(8, 4)]
    n = len(flows)
    engine = PairEngine(flows, cache=DeltaCache(tmp_path / "c.sqlite"))
    engine.pool = PairPool(engine.prepared, "paper", workers=2)
    arrays = [np.full((n, n), np.nan), np.full((n, n), np.nan), np.zeros((n, n), bool)]
    try:
        got = list(an.matrix_rows_pooled(engine, list(range(n)), list(range(n)), *arrays, np.zeros((n, n), bool),
                                          deadline=0.05))
    finally:
        engine.pool.close()
        engine.pool = None
    values, lower, exact = arrays
    assert len(got) == n and not exact[0, 1] and not exact[1, 0]  # the two large random flows: cut
    assert lower[0, 1] <= values[0, 1] and lower[0, 1] == lower[1, 0]
    key = engine._key(0, 1)
    assert engine._estimates[key][2] == 0.05 and float(engine._estimates[key][0]) == values[0, 1]
    engine.flush()
    again = PairEngine(flows, cache=DeltaCache(tmp_path / "c.sqlite"))
    assert again.known_matrix([0], [1], 0.05).have.all() and not again.known_matrix([0], [1], None).have.any()

    token = CancelToken()
    engine = PairEngine(flows, cancel=token)
    pool = engine.pool = PairPool(engine.prepared, "paper", workers=2)
    rows = an.matrix_rows_pooled(engine, list(range(n)), list(range(n)), *[a.copy() for a in arrays],
                                 np.zeros((n, n), bool))
    threading.Timer(0.1, token.set).start()
    with pytest.raises(Cancelled):
        list(rows)  # the first row waits for the two flows' search, which has no deadline here
    assert engine.pool is None
    assert all(not p.is_alive() for p in (pool._pool._processes or {}).values())  # noqa: SLF001


def test_a_block_and_a_cut_search_through_the_pool(tmp_path):
    flows = _flows(5, 16)
    engine = PairEngine(flows, ScoreOptions(), cache=DeltaCache(tmp_path / "c.sqlite"))
    engine.pool = PairPool(engine.prepared, "paper", workers=2)
    try:
        rows, cols = list(range(0, 8)), list(range(8, len(flows)))
        rs, values, _exact = _matrix(engine, rows, 0.5, cols=cols)
        got = engine.estimate_many([(0, 1), (1, 0), (0, 1)], 0.5)  # a pair twice in one batch
    finally:
        engine.pool.close()
        engine.pool = None
    expected = np.array([[float(v) for v in row] for row in brute_matrix(flows)])
    assert values.shape == (8, len(cols)) and np.array_equal(values, expected[np.ix_(rows, cols)])
    assert got[0] == got[1] == got[2] and got[0][2]


def test_a_cancel_stops_the_pool_and_raises():
    flows = _flows(6, 30)
    token = CancelToken()
    engine = PairEngine(flows, ScoreOptions(), cancel=token)
    pool = engine.pool = PairPool(engine.prepared, "paper", workers=2)
    rows = an.matrix_rows(engine, list(range(len(flows))), None, ahead_pairs=10_000)
    next(rows)
    threading.Timer(0.0, token.set).start()
    time.sleep(0.05)
    with pytest.raises(Cancelled):
        list(rows)
    assert engine.pool is None
    assert all(not p.is_alive() for p in (pool._pool._processes or {}).values())  # noqa: SLF001


def test_least_reads_the_cache_in_bulk_and_equals_the_plain_search(tmp_path, monkeypatch):
    flows = _flows(7, 24)
    brute = brute_matrix(flows)
    rows, cols = list(range(0, 12)), list(range(12, len(flows)))
    expected = min(brute[i][j] for i in rows for j in cols if i != j)
    first = PairEngine(flows, ScoreOptions(), cache=DeltaCache(tmp_path / "c.sqlite"))
    got = first.least(rows, cols, chunk=5)
    assert got[0] == expected == brute[got[1]][got[2]]
    first.flush()
    again = PairEngine(flows, ScoreOptions(), cache=DeltaCache(tmp_path / "c.sqlite"))
    monkeypatch.setattr(DeltaCache, "get_one", lambda *a: pytest.fail("a pair looked up alone"))
    assert again.least(rows, cols, chunk=5) == got and again.stats.searched == 0


def _blocks(flows, k=3):
    return [[i for i in range(len(flows)) if i % k == d] for d in range(k)]


@pytest.mark.parametrize("profile", ["paper", "companion"])
def test_summary_least_on_the_pool_equals_one_process(profile):
    flows = _flows(8, 30)
    blocks = _blocks(flows)
    plain = list(an.domain_summary(PairEngine(flows, ScoreOptions(profile=profile)), blocks, 4, None, workers=1))
    engine = PairEngine(flows, ScoreOptions(profile=profile))
    pooled = list(an.domain_summary(engine, blocks, 4, None, workers=2))
    brute = brute_matrix(flows, ScoreOptions(profile=profile))
    assert engine.pool is None  # stopped at the end
    for p, q in zip(plain[len(blocks):], pooled[len(blocks):]):
        assert np.array_equal(p.least, q.least, equal_nan=True) and list(p.least_exact) == list(q.least_exact)
        for b, (i, j) in enumerate(q.least_pair):  # the pair holds the block's least, exact
            want = min(brute[x][y] for x in blocks[q.a] for y in blocks[b] if x != y)
            assert float(want) == q.least[b] == float(brute[i][j])


def test_a_cancel_stops_the_summary_pool():
    flows = _flows(9, 30)
    token = CancelToken()
    engine = PairEngine(flows, ScoreOptions(), cancel=token)
    rows = an.domain_summary(engine, _blocks(flows), 4, None, workers=2)
    for _ in range(3):
        next(rows)  # the sampled rows
    token.set()
    with pytest.raises(Cancelled):
        list(rows)
    assert engine.pool is None


def test_the_matrix_job_on_a_pool_equals_one_process(tmp_path):
    from gindex_studio.core.support import workers
    from gindex_studio.core.jobs.curation import matrix_job

    flows = _flows(10, 40)
    order = list(range(len(flows)))
    brute = brute_matrix(flows)

    pools = []

    def run(pool_min_pairs, cache):
        values = np.full((len(order), len(order)), np.nan)
        gen = workers.run(matrix_job, flows, ScoreOptions(), str(tmp_path / cache), None, order, None, None,
                          0.0, False, None, 2, pool_min_pairs, timeout=120)
        try:
            while True:
                kind, value = next(gen)
                if kind == "band":
                    first, vals, _lo, exact = value
                    assert exact.all()
                    values[first:first + len(vals)] = vals
                elif kind == "pool":
                    pools.append((cache, value))
        except StopIteration:
            return values

    pooled, plain = run(0, "a.sqlite"), run(10**9, "b.sqlite")
    assert pools == [("a.sqlite", 2)]  # the pool ran in the first job only
    assert np.array_equal(pooled, plain)
    assert all(pooled[i][j] == float(brute[i][j]) for i in order for j in order)
