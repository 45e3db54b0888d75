"""Curation core (issue 9): results equal a brute-force computation over every pair."""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gindex_studio.core.curation import analysis as an
from gindex_studio.core.curation.cache import DeltaCache, content_digest
from gindex_studio.core.curation.engine import PairEngine
from gindex_studio.core.scoring.divergence import ScoreOptions, delta_from_s, prepare
from gindex_studio.core.flows.generate import MIDDLE_TYPES, perturb, random_flow
from gindex_studio.core.scoring.matching import max_common_subgraph


def brute_matrix(flows, options=ScoreOptions()):
    """Exact Δ of every ordered pair, straight from the search (no bounds, no thresholds)."""
    ps = [prepare(f, options) for f in flows]
    out = []
    for a in ps:
        row = []
        for b in ps:
            if a.n == 0 or b.n == 0:
                row.append(Fraction(1))
                continue
            m = max_common_subgraph(a.graph, b.graph, options.profile)
            row.append(delta_from_s(Fraction(*m.weight), a.n, b.n))
        out.append(row)
    return out


def planted(seed: int = 7):
    """4 domains of perturbed templates with planted duplicates, a leak and a mislabel.

    Returns flows, domains, curriculum indices, test indices and the planted facts."""
    rng = random.Random(seed)
    temps = [random_flow(rng.randint(6, 14), rng, f"d{d}x", palette=rng.sample(MIDDLE_TYPES, 3)) for d in range(4)]
    flows, domains = [], []
    for i in range(28):
        d = i % 4
        flows.append(perturb(temps[d], rng, 0.3, prefix=f"c{i}x"))
        domains.append(f"dom{d}")
    dup_exact = len(flows)
    flows.append(_fresh_copy(flows[0], "dupx"))  # fresh ids, moved: Δ = 0
    domains.append("dom0")
    near = len(flows)
    flows.append(_one_attr_changed(flows[5], "nearx"))
    domains.append("dom1")
    mislabel = len(flows)
    flows.append(perturb(temps[2], rng, 0.1, prefix="misx"))
    domains.append("dom3")  # a dom2 program labelled dom3
    curriculum = list(range(len(flows)))
    leak = len(flows)
    flows.append(_fresh_copy(flows[9], "leakx"))
    domains.append("dom1")
    far_task = len(flows)
    flows.append(random_flow(9, rng, "farx", palette=rng.sample(MIDDLE_TYPES, 3)))
    domains.append("dom0")
    tests = [leak, far_task] + [len(flows) + k for k in range(4)]
    for k in range(4):
        flows.append(perturb(temps[k], rng, 0.3, prefix=f"t{k}x"))
        domains.append(f"dom{k}")
    facts = dict(dup_exact=(0, dup_exact), near=(5, near), mislabel=mislabel, leak=(leak, 9))
    return flows, domains, curriculum, tests, facts


def _fresh_copy(flow, prefix):
    from gindex_studio.core.flows.flow import flow_from_nodes

    nodes = [dict(n.data) for n in flow.copy().nodes]
    remap = {n["id"]: f"{prefix}{k}" for k, n in enumerate(nodes)}
    for n in nodes:
        n["id"] = remap[n["id"]]
        n["wires"] = [[remap.get(t, t) for t in port] for port in n.get("wires", [])]
        n["x"] = n.get("x", 0) + 13
    return flow_from_nodes(nodes)


def _one_attr_changed(flow, prefix):
    from gindex_studio.core.flows.flow import flow_from_nodes

    copy = _fresh_copy(flow, prefix)
    nodes = [dict(n.data) for n in copy.nodes]
    victim = max(nodes, key=lambda n: len([k for k in n if k not in ("id", "type", "wires", "x", "y", "z", "name")]))
    key = next(k for k in victim if k not in ("id", "type", "wires", "x", "y", "z", "name"))
    victim[key] = "planted-change"
    return flow_from_nodes(nodes)


@pytest.fixture(scope="module")
def world():
    flows, domains, cur, tests, facts = planted()
    return flows, domains, cur, tests, facts, brute_matrix(flows)


def brute_groups(members, D, t):
    parent = {m: m for m in members}

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for a in members:
        for b in members:
            if a < b and min(D[a][b], D[b][a]) <= t:
                parent[find(a)] = find(b)
    groups = {}
    for m in members:
        groups.setdefault(find(m), []).append(m)
    return sorted((sorted(g) for g in groups.values() if len(g) > 1), key=lambda g: (-len(g), g[0]))


@pytest.mark.parametrize("t", [Fraction(0), Fraction(5, 100), Fraction(15, 100), Fraction(3, 10)])
def test_duplicate_groups_equal_brute_force(world, t):
    flows, domains, cur, tests, facts, D = world
    members = cur + tests
    rep = an.duplicate_groups(PairEngine(flows), members, t)
    assert [g.members for g in rep.groups] == brute_groups(sorted(members), D, t)
    for g in rep.groups:
        for a, b, v in g.pairs:
            assert v == D[a][b] and v <= t
        assert g.exact == sorted({x for a in g.members for b in g.members if a != b and D[a][b] == 0 for x in (a, b)})
    assert rep.pairs_total == len(members) * (len(members) - 1) // 2
    assert rep.pairs_searched < rep.pairs_total  # bounds spared searches


def test_planted_duplicates_found(world):
    flows, domains, cur, tests, facts, D = world
    rep = an.duplicate_groups(PairEngine(flows), cur, Fraction(5, 100))
    a, b = facts["dup_exact"]
    group = next(g for g in rep.groups if a in g.members)
    assert b in group.members and {a, b} <= set(group.exact)
    near = facts["near"]
    assert D[near[0]][near[1]] > 0
    assert any(set(near) <= set(g.members) for g in rep.groups)


@pytest.mark.parametrize("t", [Fraction(0), Fraction(1, 10), Fraction(1, 4)])
def test_omega_and_leaks_equal_brute_force(world, t):
    flows, domains, cur, tests, facts, D = world
    eng = PairEngine(flows)
    om = an.omega(eng, tests, cur)
    for task in tests:
        best = min(D[task][c] for c in cur)
        assert om[task].delta == best and D[task][om[task].index] == best
    lk = an.leaks(eng, tests, cur, t)
    expected = sorted((min(D[x][c] for c in cur), x) for x in tests if min(D[x][c] for c in cur) <= t)
    assert [(x.delta, x.task) for x in lk] == expected
    # the thresholded search (no Ω given) finds the same leaks
    assert [(x.delta, x.task) for x in an.leaks(PairEngine(flows), tests, cur, t)] == expected
    task, source = facts["leak"]
    assert any(x.task == task and x.delta == 0 and D[task][x.nearest] == 0 for x in lk)


def test_neighbours_mislabels_outliers_equal_brute_force(world):
    flows, domains, cur, tests, facts, D = world
    members = cur + tests
    nb = an.neighbours(PairEngine(flows), members, domains)
    for i in members:
        same = [D[i][j] for j in members if j != i and domains[j] == domains[i]]
        other = [D[i][j] for j in members if domains[j] != domains[i]]
        assert nb[i].same.delta == min(same) and D[i][nb[i].same.index] == min(same)
        assert domains[nb[i].same.index] == domains[i]
        assert nb[i].other.delta == min(other) and domains[nb[i].other.index] != domains[i]
    expected = sorted(i for i in members if min(D[i][j] for j in members if domains[j] != domains[i])
                      < min(D[i][j] for j in members if j != i and domains[j] == domains[i]))
    assert sorted(n.index for n in an.mislabels(nb)) == expected
    assert facts["mislabel"] in expected
    t = Fraction(1, 2)
    assert sorted(n.index for n in an.outliers(nb, t)) == sorted(
        i for i in members if min(D[i][j] for j in members if j != i and domains[j] == domains[i]) >= t)


def test_neighbours_read_a_filled_cache_in_bulk_and_search_nothing(tmp_path, world, monkeypatch):
    """The report after a full matrix: every value is on disk. The neighbours come out the same,
    nothing is searched, and the cache is asked a run of pairs at a time (never pair by pair)."""
    flows, domains, cur, tests, facts, D = world
    members = cur + tests
    filler = PairEngine(flows, cache=DeltaCache(tmp_path / "cache.sqlite"))
    list(an.matrix_rows(filler, list(range(len(flows)))))
    filler.flush()
    cache = DeltaCache(tmp_path / "cache.sqlite")
    asked = {"one": 0, "runs": 0}
    get_one, get_pairs = cache.get_one, cache.get_pairs
    monkeypatch.setattr(cache, "get_one", lambda *a: asked.__setitem__("one", asked["one"] + 1) or get_one(*a))
    monkeypatch.setattr(cache, "get_pairs", lambda *a: asked.__setitem__("runs", asked["runs"] + 1) or get_pairs(*a))
    monkeypatch.setattr("gindex_studio.core.curation.engine.NEAREST_BLOCK", 5)  # several blocks of bounds
    engine = PairEngine(flows, cache=cache)
    nb = an.neighbours(engine, members, domains)
    plain = an.neighbours(PairEngine(flows), members, domains)
    assert nb == plain
    assert engine.stats.searched == 0 and asked["one"] == 0 and 0 < asked["runs"]
    assert not engine._asked  # nothing is left marked as asked for a later query


def test_coverage_counts_and_means(world):
    flows, domains, cur, tests, facts, D = world
    eng = PairEngine(flows)
    om = an.omega(eng, tests, cur)
    cov = {c.domain: c for c in an.coverage(eng, domains, cur, tests, om)}
    for d in sorted(set(domains)):
        c_idx = [i for i in cur if domains[i] == d]
        t_idx = [i for i in tests if domains[i] == d]
        pairs = [D[a][b] for k, a in enumerate(c_idx) for b in c_idx[k + 1:]]
        assert cov[d].curriculum == len(c_idx) and cov[d].tests == len(t_idx)
        assert cov[d].mean_within == pytest.approx(float(sum(pairs) / len(pairs)), abs=1e-12)
        assert cov[d].mean_omega == pytest.approx(float(sum(min(D[x][c] for c in cur) for x in t_idx) / len(t_idx)))


def test_companion_profile_is_asymmetric_and_still_exact():
    rng = random.Random(2)
    base = random_flow(8, rng, "a")
    flows = [base] + [perturb(base, rng, 0.2, prefix=f"p{k}x") for k in range(6)]
    opts = ScoreOptions(profile="companion")
    D = brute_matrix(flows, opts)
    t = Fraction(2, 10)
    rep = an.duplicate_groups(PairEngine(flows, opts), range(len(flows)), t)
    assert [g.members for g in rep.groups] == brute_groups(list(range(len(flows))), D, t)
    eng = PairEngine(flows, opts)
    for i in range(len(flows)):
        for j in range(len(flows)):
            assert eng.delta(i, j) == D[i][j]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12), st.floats(0.0, 0.6))
def test_bounds_never_exceed_delta(seed, n, rate):
    rng = random.Random(seed)
    a = random_flow(n, rng, "a")
    flows = [a, perturb(a, rng, rate), random_flow(max(1, n - 2), rng, "b"), _fresh_copy(a, "z")]
    D = brute_matrix(flows)
    lb = PairEngine(flows).bounds(range(len(flows)))
    assert (lb <= np.array(D, dtype=float)).all()


def test_bounds_never_exceed_delta_on_the_demo_programs():
    from gindex_studio.core.curation.workspace import load_workspace
    from gindex_studio.paths import DEMO_DIR

    flows = [it.flow for it in load_workspace(DEMO_DIR / "programs").items]
    for opts in (ScoreOptions(), ScoreOptions(port_aware=True)):
        D = np.array(brute_matrix(flows, opts), dtype=float)
        lb = PairEngine(flows, opts).bounds(range(len(flows)))
        assert (lb <= D).all()
        assert (lb > 0.05).sum() > 0.9 * lb.size  # and they rule most pairs out


# ----- the cache ---------------------------------------------------------------------------------


def test_cache_returns_the_same_values_and_recomputes_only_changed_pairs(tmp_path, world):
    flows, domains, cur, tests, facts, D = world
    flows = flows[:12]
    path = tmp_path / "cache.sqlite"
    cache = DeltaCache(path)
    eng = PairEngine(flows, cache=cache)
    n = len(flows)
    first = [[eng.delta(i, j) for j in range(n)] for i in range(n)]
    eng.flush()
    assert first == [row[:n] for row in D[:n]]
    assert eng.stats.searched == n * (n + 1) // 2  # symmetric: each unordered pair (and i = i) once
    cache.close()

    cache = DeltaCache(path)
    again = PairEngine(flows, cache=cache)
    assert [[again.delta(i, j) for j in range(n)] for i in range(n)] == first
    assert again.stats.searched == 0

    edited = list(flows)
    edited[3] = _one_attr_changed(flows[3], "edit")
    assert content_digest(edited[3]) != content_digest(flows[3])
    moved = _fresh_copy(flows[4], "q")  # new ids: new content, same Δ to everything
    edited[4] = moved
    third = PairEngine(edited, cache=cache)
    for i in range(n):
        for j in range(n):
            third.delta(i, j)
    # pairs touching program 3 or 4: with itself, each other and the other n - 2 programs
    assert third.stats.searched == 2 * (n - 2) + 3
    third.flush()
    cache.close()


@pytest.mark.parametrize("snapshot", [True, False])
def test_known_matrix_reads_the_cache_in_bulk_and_leaves_edited_pairs_unknown(tmp_path, world, snapshot):
    flows, domains, cur, tests, facts, D = world
    flows = flows[:14]
    n = len(flows)
    order = list(range(n))[::-1]
    cache = DeltaCache(tmp_path / "cache.sqlite")
    eng = PairEngine(flows, cache=cache)
    rows = list(an.matrix_rows(eng, order))
    values = np.vstack([r.values for r in rows])
    if snapshot:
        eng.save_matrix(order, values, np.vstack([r.lower for r in rows]), np.vstack([r.exact for r in rows]), None)
    eng.flush()
    expected = np.array([[float(D[i][j]) for j in order] for i in order])
    assert np.array_equal(values, expected)

    again = PairEngine(flows, cache=DeltaCache(tmp_path / "cache.sqlite"))
    known = again.known_matrix(order, order, 0.05)
    assert known.have.all() and known.exact.all()
    assert np.array_equal(known.values, expected) and np.array_equal(known.lower, expected)
    assert again.stats.searched == 0 and again._prepared is None  # nothing searched, nothing even prepared

    edited = list(flows)
    edited[3] = _one_attr_changed(flows[3], "edit")
    third = PairEngine(edited, cache=DeltaCache(tmp_path / "cache.sqlite"))
    cols = [1, 3, 5, 7]
    known = third.known_matrix(order, cols, None)
    r3, c3 = order.index(3), cols.index(3)
    unknown = np.argwhere(~known.have)
    assert {(int(r), int(c)) for r, c in unknown} == {(r, c3) for r in range(n)} | {(r3, c) for c in range(len(cols))}
    mask = known.have
    assert np.array_equal(known.values[mask], expected[:, [order.index(c) for c in cols]][mask])


@settings(max_examples=200, deadline=None)
@given(st.integers(-2**63, 2**63), st.integers(-2**63, 2**63), st.one_of(st.integers(-10**30, 10**30).map(str), st.text()),
       st.one_of(st.integers(1, 10**30).map(str), st.text()))
def test_the_fast_row_checksum_is_the_general_one(a, b, num, den):
    """Rows are written and read with ``_delta_mac`` (built in one step): the same bytes as
    ``_mac`` of the same parts, for the digits the cache writes and for any text a damaged or
    edited file may hold."""
    cache = DeltaCache(None)
    opts = '{"profile":"paper"}'
    assert cache._delta_mac(opts)(a, b, num, den) == cache._mac(opts, a, b, num, den)


def test_cut_searches_are_kept_and_not_repeated(tmp_path):
    rng = random.Random(2)
    template = random_flow(60, rng, "a")  # large near-copies: their searches outlast 128 steps
    flows = [perturb(template, rng, 0.2, prefix=f"p{k}x") for k in range(4)] + [random_flow(5, rng, f"s{k}x") for k in range(6)]
    cache = DeltaCache(tmp_path / "cache.sqlite")
    eng = PairEngine(flows, cache=cache)
    # a deadline of 0 seconds cuts every search that is not over at once
    first = eng.estimate_many([(i, j) for i in range(10) for j in range(10)], 0.0)
    eng.flush()
    cut = [k for k, (_v, _lo, ex) in enumerate(first) if not ex]
    assert 0 < len(cut) < len(first)
    again = PairEngine(flows, cache=DeltaCache(tmp_path / "cache.sqlite"))
    second = again.estimate_many([(i, j) for i in range(10) for j in range(10)], 0.0)
    assert second == first and again.stats.searched == 0
    longer = PairEngine(flows, cache=DeltaCache(tmp_path / "cache.sqlite"))
    longer.estimate_many([(i, j) for i in range(10) for j in range(10)], None)  # exact asks search again
    assert longer.stats.searched == len({longer._key(k // 10, k % 10) for k in cut})
    for (v, lo, ex), (i, j) in zip(first, [(i, j) for i in range(10) for j in range(10)]):
        assert lo <= longer.delta(i, j) <= v


def test_digest_ignores_position_only():
    rng = random.Random(1)
    f = random_flow(6, rng, "a")
    moved = f.copy()
    for node in moved.nodes:
        node.data["x"] = node.data.get("x", 0) + 50
    assert content_digest(moved) == content_digest(f)
    renamed = f.copy()
    renamed.nodes[0].data["name"] = "another name"
    assert content_digest(renamed) != content_digest(f)


# ----- order and map -------------------------------------------------------------------------


def test_cluster_order_keeps_domains_contiguous_and_is_a_permutation(world):
    flows, domains, cur, tests, facts, D = world
    M = np.array(D, dtype=float)
    order = an.cluster_order(M, domains)
    assert sorted(order) == list(range(len(flows)))
    seen = []
    for i in order:
        if not seen or seen[-1] != domains[i]:
            assert domains[i] not in seen
            seen.append(domains[i])


def test_classical_mds_recovers_planar_distances():
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(12, 2))
    d = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    got = an.classical_mds(d)
    assert np.allclose(np.linalg.norm(got[:, None] - got[None], axis=-1), d, atol=1e-9)


def test_classical_mds_of_a_large_matrix_equals_the_full_eigendecomposition():
    """Above 64 programs only the top eigenpairs are computed: the same points as a full eigh."""
    rng = np.random.default_rng(5)
    pts = rng.normal(size=(300, 4)) * np.array([3.0, 2.0, 0.5, 0.2])
    d = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    d = np.clip(d / d.max() + rng.uniform(0, 0.02, d.shape), 0, 1)  # not Euclidean: noise, asymmetry
    got = an.classical_mds(d)
    sym = (d + d.T) / 2
    n = len(d)
    j = np.eye(n) - np.ones((n, n)) / n
    vals, vecs = np.linalg.eigh(-0.5 * j @ (sym * sym) @ j)
    want = vecs[:, [-1, -2]] * np.sqrt(vals[[-1, -2]])
    for k in range(2):
        col = want[:, k]
        if col[np.argmax(np.abs(col))] < 0:
            want[:, k] = -col
    assert np.allclose(got, want, atol=1e-8)


def test_arrangement_is_kept_in_the_cache_for_the_same_matrix_only(tmp_path, world, monkeypatch):
    flows, domains, cur, tests, facts, D = world
    M = np.array(D, dtype=float)
    cache = DeltaCache(tmp_path / "cache.sqlite")
    order, points = an.arrange(M, domains, cache)
    assert order == an.cluster_order(M, domains) and np.array_equal(points, an.classical_mds(M))
    cache.close()
    cache = DeltaCache(tmp_path / "cache.sqlite")

    def fail(*_a):
        raise AssertionError("computed again")

    with monkeypatch.context() as mp:
        mp.setattr(an, "cluster_order", fail)
        mp.setattr(an, "classical_mds", fail)
        again = an.arrange(M, domains, cache)
    assert again[0] == order and np.array_equal(again[1], points)
    other = list(domains)
    other[0] = "moved"
    assert an.arrange(M, other, cache)[0] == an.cluster_order(M, other)  # other domains: computed
    M2 = M.copy()
    M2[0, 1] = M2[1, 0] = 0.5
    assert np.array_equal(an.arrange(M2, domains, cache)[1], an.classical_mds(M2))


# ----- the least Δ of a block (the domain summary) ----------------------------------------------


@pytest.mark.parametrize("profile", ["paper", "companion"])
def test_least_of_a_block_equals_brute_force(world, profile):
    flows, domains, cur, tests, facts, D = world
    opts = ScoreOptions(profile=profile)
    M = D if profile == "paper" else brute_matrix(flows, opts)
    names = sorted(set(domains))
    blocks = [[i for i, d in enumerate(domains) if d == n] for n in names]
    eng = PairEngine(flows, opts)
    for a in blocks:
        for b in blocks:
            got = eng.least(a, b)
            want = min(M[i][j] for i in a for j in b if i != j)
            assert got[0] == want and M[got[1]][got[2]] == want and got[1] in a and got[2] in b and got[1] != got[2]
    assert eng.least([3], [3]) is None and eng.least([], [1, 2]) is None


def test_least_searches_fewer_pairs_than_the_block_and_a_start_prunes_more(world):
    flows, domains, cur, tests, facts, D = world
    a = [i for i, d in enumerate(domains) if d == "dom0"]
    b = [i for i, d in enumerate(domains) if d == "dom2"]
    eng = PairEngine(flows)
    plain = eng.least(a, b)
    cold = eng.stats.searched
    assert cold < len(a) * len(b)
    eng2 = PairEngine(flows)
    start = (D[a[0]][b[0]], a[0], b[0])
    assert eng2.least(a, b, start)[0] == plain[0]
    assert eng2.stats.searched <= cold


def test_domain_summary_least_is_exact_over_the_whole_block(world):
    flows, domains, cur, tests, facts, D = world
    names = sorted(set(domains))
    blocks = [[i for i, d in enumerate(domains) if d == n] for n in names]
    d = len(blocks)
    rows = list(an.domain_summary(PairEngine(flows), blocks, per_domain=2))
    assert [r.a for r in rows] == list(range(d)) * 2
    first, final = rows[:d], rows[d:]
    for r in first:  # the sample's least: never below the block's, flagged as not exact
        for b, block in enumerate(blocks):
            sa, sb = an.summary_sample(blocks[r.a], 2), an.summary_sample(block, 2)
            vals = [float(D[i][j]) for i in sa for j in sb if i != j]
            assert r.least[b] == min(vals) and not r.least_exact[b]
            assert r.mean[b] == pytest.approx(np.mean(vals), abs=1e-12) and r.sampled[b] == len(vals)
    for r in final:
        for b, block in enumerate(blocks):
            want = min(D[i][j] for i in blocks[r.a] for j in block if i != j)
            assert r.least_exact[b] and r.least[b] == float(want)
            i, j = r.least_pair[b]
            assert D[i][j] == want and i in blocks[r.a] and j in block
            assert r.mean[b] == first[r.a].mean[b]  # the mean stays the sample's
    # the sample alone missed some block's least: the exact search matters here
    assert any(f.least[b] < s.least[b] for s, f in zip(first, final) for b in range(d))


@pytest.mark.parametrize("n", [1, 2, 3, 7, 58, 200])
def test_top_eigenpairs_equal_a_full_eigendecomposition(n):
    rng = np.random.default_rng(n)
    a = rng.random((n, n))
    a = (a + a.T) / 2
    vals, vecs = an.top_eigenpairs(a, 2)
    want_vals, want_vecs = np.linalg.eigh(a)
    k = min(2, n)
    assert np.allclose(vals, want_vals[::-1][:k], rtol=0, atol=1e-10)
    for i in range(k):
        got, want = vecs[:, i], want_vecs[:, -1 - i]
        assert min(np.abs(got - want).max(), np.abs(got + want).max()) < 1e-8


@pytest.mark.parametrize("ahead, expected", [
    (0, ["s0", "y0", "s1", "y1", "s2", "y2", "s3", "y3"]),  # no pool: one row at a time
    (7, ["s0", "s1", "s2", "y0", "s3", "y1", "y2", "y3"]),  # rows of 3 pairs started while < 7 are under way
])
def test_pipelined_starts_rows_ahead_while_fewer_pairs_than_the_limit_are_under_way(ahead, expected):
    log = []

    def start(r):
        log.append(f"s{r}")
        return 3, r * 10

    for r, job in an._pipelined([0, 1, 2, 3], start, ahead):
        assert job == r * 10
        log.append(f"y{r}")
    assert log == expected
