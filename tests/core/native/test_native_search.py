"""The native (C) searches against the pure-Python reference searches, for both profiles: the
McSplit search (paper) and the maximum-weight clique search (companion).

In each profile both searches walk the same tree, so on a finished search they agree on S, the node count, the
proven upper bound and the threshold flag exactly; the mappings may differ only when several
optima exist (they never do below, since the trees are the same, but only S is promised).
"""
from __future__ import annotations

import os
import random
import signal
import threading
import time
from contextlib import contextmanager
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gindex_studio.core import native
from gindex_studio.core.scoring import matching as M
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.flows.generate import perturb, random_flow
from tests.core.scoring.test_divergence import small_flows

try:
    from gindex_studio.core.native import _mcsplit  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the build
    pytest.skip(f"native search extension not importable ({e}); the pure-Python search is in use",
                allow_module_level=True)


def test_the_built_extension_is_current():
    assert native.EXTENSION is _mcsplit, "stale build of gindex_studio.core.native._mcsplit: run `python3 -m pip install -e .`"


@contextmanager
def mode(native: bool):
    """Force the native or the pure-Python search for the calls inside."""
    old = os.environ.get("GINDEX_PURE_PYTHON")
    os.environ["GINDEX_PURE_PYTHON"] = "0" if native else "1"
    try:
        assert M.native_search_available() == native
        yield
    finally:
        if old is None:
            del os.environ["GINDEX_PURE_PYTHON"]
        else:
            os.environ["GINDEX_PURE_PYTHON"] = old


PROFILES = ("paper", "companion")


def both(g1, g2, profile="paper", **kw):
    with mode(True):
        n = M.max_common_subgraph(g1, g2, profile, **kw)
    with mode(False):
        p = M.max_common_subgraph(g1, g2, profile, **kw)
    return n, p


def assert_valid(g1, g2, m: M.Match, profile="paper"):
    """The mapping is a common subgraph (Eq. 12; the companion's adjacency) of total weight S."""
    _raw, w, _scale = M._weights(g1, g2, profile, profile == "paper")
    pairs = [(u, v) for u, v, _ in m.pairs]
    assert M.consistent_subset(g1, g2, pairs, w, "and" if profile == "paper" else "or") == pairs
    assert sum(Fraction(*f) for _u, _v, f in m.pairs) == Fraction(*m.weight)


def assert_same(n: M.Match, p: M.Match, g1=None, g2=None, profile="paper"):
    assert n.weight == p.weight
    assert n.exact == p.exact
    assert n.improved == p.improved
    if p.exact:
        assert n.upper == p.upper
        assert n.nodes == p.nodes
    if g1 is not None:
        assert_valid(g1, g2, n, profile)


def graphs(a, b, port_aware=False, profile="paper"):
    opts = ScoreOptions(port_aware=port_aware, profile=profile)
    return prepare(a, opts).graph, prepare(b, opts).graph


# ----- hypothesis: small flows -------------------------------------------------------------------

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def ported_flows(draw, max_nodes=7, prefix="n"):
    """Small flows whose nodes have up to three output ports (switch-like), self-loops allowed."""
    n = draw(st.integers(0, max_nodes))
    ids = [f"{prefix}{i}" for i in range(n)]
    nodes = []
    for i in range(n):
        ports = draw(st.integers(1, 3))
        wires = [draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)) for _ in range(ports)]
        attrs = draw(st.dictionaries(st.sampled_from(["p", "q"]), st.sampled_from([0, 1, "x"]), max_size=2))
        nodes.append({"id": ids[i], "type": draw(st.sampled_from(["switch", "function", "debug"])), **attrs,
                      "wires": wires})
    return nodes


@SETTINGS
@given(small_flows(prefix="a"), small_flows(prefix="b"), st.booleans(), st.sampled_from(PROFILES))
@pytest.mark.slow
def test_small_flows_agree(a, b, port_aware, profile):
    g1, g2 = graphs(flow_from_nodes(a), flow_from_nodes(b), port_aware, profile)
    n, p = both(g1, g2, profile)
    assert_same(n, p, g1, g2, profile)
    assert n.exact


@SETTINGS
@given(ported_flows(prefix="a"), ported_flows(prefix="b"), st.booleans(), st.sampled_from(PROFILES))
@pytest.mark.slow
def test_multi_port_flows_agree(a, b, port_aware, profile):
    g1, g2 = graphs(flow_from_nodes(a), flow_from_nodes(b), port_aware, profile)
    n, p = both(g1, g2, profile)
    assert_same(n, p, g1, g2, profile)
    assert n.exact


# ----- seeded generated pairs --------------------------------------------------------------------

def pair(n: int, kind: str, seed: int):
    rng = random.Random(1000 * n + seed)
    a = random_flow(n, rng, "a")
    b = perturb(a, rng, 0.1) if kind == "near" else random_flow(n, random.Random(77 * seed + n), "b")
    return a, b


# far pairs of 60 nodes take the Python search minutes: far stops at 30 (45 for a few seeds)
CASES = [(n, "near", s) for n in (10, 20, 30, 45, 60) for s in range(4)]
CASES += [(n, "far", s) for n in (10, 20, 30) for s in range(4)] + [(45, "far", s) for s in (3, 5)]


@pytest.mark.parametrize("port_aware", [False, True])
@pytest.mark.parametrize("n,kind,seed", CASES)
@pytest.mark.slow
def test_generated_pairs_agree(n, kind, seed, port_aware):
    a, b = pair(n, kind, seed)
    g1, g2 = graphs(a, b, port_aware)
    n_, p = both(g1, g2)
    assert_same(n_, p, g1, g2)
    assert n_.exact and n_.improved


# the companion search's assignment bound makes far pairs as easy as near ones, even in Python
COMPANION_CASES = [(n, kind, s) for n in (10, 20, 30, 45) for kind in ("near", "far") for s in range(3)]
COMPANION_CASES += [(60, "far", 0), (60, "near", 1)]


@pytest.mark.parametrize("port_aware", [False, True])
@pytest.mark.parametrize("n,kind,seed", COMPANION_CASES)
@pytest.mark.slow
def test_companion_generated_pairs_agree(n, kind, seed, port_aware):
    a, b = pair(n, kind, seed)
    g1, g2 = graphs(a, b, port_aware, "companion")
    n_, p = both(g1, g2, "companion")
    assert_same(n_, p, g1, g2, "companion")
    assert n_.exact and n_.improved


def test_words_beyond_two_machine_words():
    """n > 128: vertex sets of three 64-bit words."""
    rng = random.Random(4)
    a = random_flow(150, rng, "a")
    b = perturb(a, rng, 0.05)
    g1, g2 = graphs(a, b)
    assert g1.n > 128 and g2.n > 128
    n, p = both(g1, g2)
    assert_same(n, p, g1, g2)
    assert n.exact


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("n,kind,seed", [(30, "near", 1), (30, "far", 2), (45, "near", 0), (20, "far", 3)])
@pytest.mark.slow
def test_thresholds_agree(n, kind, seed, profile):
    a, b = pair(n, kind, seed)
    g1, g2 = graphs(a, b, profile=profile)
    with mode(True):
        s = Fraction(*M.max_common_subgraph(g1, g2, profile).weight)
    for t in (s - Fraction(1, 7), s - Fraction(1, 10**6), s, s + Fraction(1, 3), Fraction(0), Fraction(10**9)):
        n_, p = both(g1, g2, profile, threshold=(t.numerator, t.denominator))
        assert_same(n_, p)
        assert n_.improved == (t < s)
        if n_.improved:
            assert Fraction(*n_.weight) == s
        assert Fraction(*n_.upper) >= s
    # as Ω uses it: S² > Q
    _raw, w, scale = M._weights(g1, g2, profile, profile == "paper")
    qb = Fraction(M._quick_bound(g1, g2, w), scale)  # at or above it the C weights prune at once
    for q in (s * s - 1, s * s, s * s + Fraction(1, 5), Fraction(-1), qb * qb, qb * qb - Fraction(1, 10**9),
              qb * qb + Fraction(1, 10**9)):
        for given in (q, (q.numerator, q.denominator)):  # a Fraction or integers (num, den)
            n_, p = both(g1, g2, profile, threshold_sq=given)
            assert_same(n_, p)
            assert n_.improved == (s * s > q)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("n,kind,seed", [(30, "near", 0), (60, "near", 2), (30, "far", 1), (20, "far", 0)])
@pytest.mark.slow
def test_warm_starts_agree(n, kind, seed, profile):
    a, b = pair(n, kind, seed)
    g1, g2 = graphs(a, b, profile=profile)
    with mode(True):
        first = M.max_common_subgraph(g1, g2, profile)
    full = [(u, v) for u, v, _ in first.pairs]
    rng = random.Random(seed)
    part = rng.sample(full, len(full) // 2)
    wrong = [(u, (v + 1) % g2.n) for u, v in full]  # mostly invalid pairs: kept only where valid
    for warm in (full, part, wrong, []):
        n_, p = both(g1, g2, profile, warm=warm)
        assert_same(n_, p, g1, g2, profile)
        assert n_.weight == first.weight and n_.exact
        assert n_.improved  # no threshold: a warm start alone never makes the result "not improved"


@pytest.mark.parametrize("profile", PROFILES)
def test_score_is_the_same_in_both_modes(profile):
    a, b = pair(45, "near", 1)
    with mode(True):
        n = score(a, b, ScoreOptions(profile=profile))
    with mode(False):
        p = score(a, b, ScoreOptions(profile=profile))
    assert (n.s_exact, n.delta, n.exact, n.search_nodes) == (p.s_exact, p.delta, p.exact, p.search_nodes)



# ----- node limits and the race of the two orientations (Ω's threshold searches) -------------------

@pytest.mark.parametrize("n,kind,seed", [(20, "near", 0), (30, "far", 1), (45, "near", 2)])
def test_node_limits_agree(n, kind, seed):
    """A search cut by its node limit stops at the same node in both modes, with the same best
    mapping and proven bound; with a limit it does not reach it is the unlimited search."""
    a, b = pair(n, kind, seed)
    g1, g2 = graphs(a, b)
    with mode(True):
        full = M._search_once(g1, g2, "paper", None, (), None, None)
    assert full.nodes > 8
    for limit in (1, 2, 7, full.nodes // 2, full.nodes - 1, full.nodes, full.nodes + 1):
        res = []
        for native in (True, False):
            with mode(native):
                res.append(M._search_once(g1, g2, "paper", None, (), None, None, limit))
        n_, p = res
        assert (n_.weight, n_.upper, n_.exact, n_.nodes) == (p.weight, p.upper, p.exact, p.nodes)
        if limit < full.nodes:
            assert not n_.exact and n_.nodes == limit + 1
            assert Fraction(*n_.upper) >= Fraction(*full.weight) >= Fraction(*n_.weight)
        else:
            assert n_ == full


@pytest.mark.parametrize("native", [True, False])
def test_the_race_is_exact_whichever_orientation_finishes(native, monkeypatch):
    """Ω's searches race both orientations: S, the threshold flag and exactness are those of a
    single search, the mapping is one of (g1, g2), the node count is that of every attempt; on
    these pairs the race is decided by each orientation some of the time."""
    monkeypatch.setattr(M, "_RACE_NODES", 4)
    monkeypatch.setattr(M, "_RACE_GROWTH", 2)
    attempts = []
    real, attempt = M._search_once, M._race_attempt
    monkeypatch.setattr(M, "_race_attempt",
                        lambda g1, g2, *a: attempts.append((g1, attempt(g1, g2, *a))) or attempts[-1][1])
    winners = set()
    with mode(native):
        for seed in range(12):
            rng = random.Random(seed)  # few types: the orientation matters (big g1, small g2: either way)
            a = random_flow(rng.randint(10, 14), rng, "a", palette=["function", "change"])
            b = random_flow(rng.randint(4, 7), rng, "b", palette=["function", "change"])
            g1, g2 = graphs(a, b)
            s = Fraction(*real(g1, g2, "paper", None, (), None, None).weight)
            for q in (s * s - Fraction(1, 9), s * s, Fraction(0)):
                attempts.clear()
                m = M.max_common_subgraph(g1, g2, threshold_sq=q)
                assert m.exact and m.improved == (s * s > q)
                if m.improved:
                    assert Fraction(*m.weight) == s
                    assert_valid(g1, g2, m)
                assert m.nodes == sum(x.nodes for _g, x in attempts)
                winners.add(attempts[-1][0] is g2)
    assert winners == {False, True}


def test_each_race_attempt_need_only_beat_the_best_mapping_found_before_it(monkeypatch):
    """After an attempt finds a mapping of weight w, the next attempts are asked for S² > w²
    (the best so far is their floor); when the last attempt beats nothing, the mapping found
    before it is the answer, exact, with its own weight as the bound."""
    monkeypatch.setattr(M, "_RACE_NODES", 2)
    monkeypatch.setattr(M, "_RACE_GROWTH", 2)
    calls = []
    attempt = M._race_attempt
    monkeypatch.setattr(M, "_race_attempt", lambda g1, g2, prof, whole, floor, *a: calls.append(
        (floor, attempt(g1, g2, prof, whole, floor, *a))) or calls[-1][1])
    proved_by_a_later_attempt = 0
    for seed in range(20):
        rng = random.Random(seed)
        a = random_flow(rng.randint(9, 13), rng, "a", palette=["function", "change"])
        b = random_flow(rng.randint(5, 8), rng, "b", palette=["function", "change"])
        g1, g2 = graphs(a, b)
        s = Fraction(*M._search_once(g1, g2, "paper", None, (), None, None).weight)
        calls.clear()
        m = M.max_common_subgraph(g1, g2, threshold_sq=(-1, 1))
        assert m.exact and m.improved and Fraction(*m.weight) == s and Fraction(*m.upper) == s
        assert_valid(g1, g2, m)
        best = None
        for floor, got in calls:
            assert floor == ((-1, 1) if best is None else (best[0] ** 2, best[1] ** 2))
            if got.improved:
                best = got.weight
        proved_by_a_later_attempt += not calls[-1][1].improved
    assert proved_by_a_later_attempt  # some races end with an attempt proving an earlier mapping best


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(1, 40))
def test_a_race_with_tiny_budgets_finds_the_single_search_s(seed, budget):
    """Many attempts, each starting from the best found so far: the same S as one search."""
    rng = random.Random(seed)
    a = random_flow(rng.randint(3, 12), rng, "a", palette=["function", "change", "debug"])
    b = random_flow(rng.randint(3, 12), rng, "b", palette=["function", "change", "debug"])
    g1, g2 = graphs(a, b)
    s = Fraction(*M._search_once(g1, g2, "paper", None, (), None, None).weight)
    keep = M._RACE_NODES, M._RACE_GROWTH
    M._RACE_NODES, M._RACE_GROWTH = budget, 2
    try:
        for q in (None, s * s - Fraction(1, 7), s * s):
            m = M.max_common_subgraph(g1, g2, threshold_sq=(-1, 1) if q is None else q)
            assert m.exact and m.improved == (q is None or s * s > q)
            if m.improved:
                assert Fraction(*m.weight) == s == Fraction(*m.upper)
                assert_valid(g1, g2, m)
    finally:
        M._RACE_NODES, M._RACE_GROWTH = keep


def test_a_raced_search_cut_by_its_deadline_keeps_an_honest_bound():
    a = random_flow(120, random.Random(3), "a")
    b = random_flow(120, random.Random(1003), "b")
    g1, g2 = graphs(a, b)
    with mode(True):
        found = M.max_common_subgraph(g1, g2, deadline=0.2)
        cut = M.max_common_subgraph(g1, g2, deadline=0.05, threshold_sq=(0, 1))
    assert not cut.exact and cut.nodes > 0
    assert Fraction(*cut.upper) >= max(Fraction(*found.weight), Fraction(*cut.weight))
    assert_valid(g1, g2, cut)


# ----- deadline ----------------------------------------------------------------------------------

@pytest.mark.slow
def test_deadline_gives_an_honest_upper_bound_on_a_hard_pair():
    a = random_flow(120, random.Random(3), "a")
    b = random_flow(120, random.Random(1003), "b")
    g1, g2 = graphs(a, b)
    with mode(True):
        t = time.thread_time()  # CPU of this thread, where the search runs: load does not stretch it
        cut = M.max_common_subgraph(g1, g2, deadline=0.05)
        spent = time.thread_time() - t
        longer = M.max_common_subgraph(g1, g2, deadline=1.0)
    with mode(False):
        py = M.max_common_subgraph(g1, g2, deadline=0.3)
    assert not cut.exact and spent < 1.0
    assert cut.nodes > 0
    # the true S is out of reach (hours); every S found is a lower bound on it
    true_lower = max(Fraction(*m.weight) for m in (cut, longer, py))
    for m in (cut, longer, py):
        assert Fraction(*m.upper) >= true_lower
        assert Fraction(*m.upper) >= Fraction(*m.weight)
        assert_valid(g1, g2, m)
    # the bound is the search's own, not a trivial one: at most the sum of the class bounds
    _raw, w, scale = M._weights(g1, g2, "paper", True)
    root = sum(c[2] for c in M._McSplit(g1, g2, w, scale).root)
    assert Fraction(*cut.upper) <= Fraction(root, scale)


def test_deadline_in_a_thread_releases_the_interpreter():
    """The C search runs without the GIL: the main thread keeps running meanwhile."""
    a = random_flow(120, random.Random(5), "a")
    b = random_flow(120, random.Random(1005), "b")
    g1, g2 = graphs(a, b)
    out = []
    with mode(True):
        th = threading.Thread(target=lambda: out.append(M.max_common_subgraph(g1, g2, deadline=0.3)))
        th.start()
        spins = 0
        t = time.perf_counter()
        while th.is_alive() and time.perf_counter() - t < 5:
            spins += 1
        th.join()
    assert out and not out[0].exact
    assert spins > 1000


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_signals_interrupt_a_long_search():
    """Ctrl-C (here: an alarm whose handler raises) stops the C search as it stops Python code."""
    a = random_flow(120, random.Random(6), "a")
    b = random_flow(120, random.Random(1006), "b")
    g1, g2 = graphs(a, b)

    class Interrupted(Exception):
        pass

    def handler(signum, frame):
        raise Interrupted

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        t = time.thread_time()
        with mode(True), pytest.raises(Interrupted):
            M.max_common_subgraph(g1, g2, deadline=120.0)  # the deadline only guards against a hang
        # the search stopped at the signal, not at its deadline: it spent a fraction of the CPU
        # it would have by then (CPU time, not elapsed time: a loaded machine stretches the latter)
        assert time.thread_time() - t < 2.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ----- dispatch ----------------------------------------------------------------------------------

def test_pure_python_switch_and_overflow_fallback(monkeypatch):
    a, b = pair(20, "near", 0)
    g1, g2 = graphs(a, b)
    with mode(True):
        want = M.max_common_subgraph(g1, g2)

    class Boom(M._NativeMcSplit):
        def run(self, *args):
            raise AssertionError("the native search must not run")

    monkeypatch.setattr(M, "_NativeMcSplit", Boom)
    with mode(False):
        assert M.max_common_subgraph(g1, g2).weight == want.weight
    monkeypatch.setattr(M, "_NATIVE_LIMIT", 10)  # weights that would not fit in 64-bit sums
    with mode(True):
        got = M.max_common_subgraph(g1, g2)
    assert (got.weight, got.nodes) == (want.weight, want.nodes)


def test_native_rejects_malformed_input():
    E = [{}]
    assert _mcsplit.search(E, E, E, E, {(0, 0): 3}, [0], [0], -1) == (3, [(0, 0)], 3, True, 3)
    with pytest.raises(ValueError):  # a generated vertex that does not exist
        _mcsplit.search(E, E, E, E, {(0, 5): 3}, [0], [0], -1)
    with pytest.raises((ValueError, OverflowError)):  # a set beyond the vertices (one word)
        _mcsplit.search([{0: 1 << 70}], E, E, E, {(0, 0): 3}, [0], [0], -1)
    many = [{} for _ in range(70)]  # two words
    for bad in (1 << 130, -1):
        with pytest.raises((ValueError, OverflowError)):
            _mcsplit.search([{0: bad}] + many[1:], many, E, E, {(0, 0): 3}, [0] * 70, [0], -1)
    with pytest.raises(ValueError):  # a group id out of range
        _mcsplit.search(E, E, E, E, {(0, 0): 3}, [7], [0], -1)
    with pytest.raises(OverflowError):
        _mcsplit.search(E, E, E, E, {(0, 0): 3}, [0], [0], 1 << 62)


def test_native_arguments_are_named():
    """Every argument can be named; the budget (budget, check_signals, node_limit) only by name;
    an unknown or repeated name is a TypeError."""
    from gindex_studio.core.support.budget import Budget

    E = [{}]
    want = (3, [(0, 0)], 3, True, 3)
    assert _mcsplit.search(adj_out1=E, adj_in1=E, adj_out2=E, adj_in2=E, weights={(0, 0): 3}, gid1=[0], gid2=[0],
                           floor=-1, budget=None, check_signals=False, node_limit=0) == want
    assert native.search(E, E, E, E, {(0, 0): 3}, [0], [0], -1, budget=Budget.after(5.0)) == want
    with pytest.raises(TypeError):  # the older budget arguments are gone
        _mcsplit.search(E, E, E, E, {(0, 0): 3}, [0], [0], -1, remaining=5.0)
    with pytest.raises(TypeError):  # the budget is keyword only
        _mcsplit.search(E, E, E, E, {(0, 0): 3}, [0], [0], -1, None)
    with pytest.raises(TypeError):
        _mcsplit.search(E, E, E, E, {(0, 0): 3}, [0], [0], -1, deadline=1.0)
    with pytest.raises(TypeError):
        _mcsplit.search(E, E, E, E, {(0, 0): 3}, [0], [0], floor=-1, gid1=[0])
    with pytest.raises(TypeError):  # a required argument missing
        _mcsplit.search(E, E, E, E, {(0, 0): 3}, [0], [0])
    with pytest.raises(TypeError):  # solve: names only
        _mcsplit.solve([])


def test_a_search_reads_the_bitsets_of_vertices_with_a_partner_only():
    """A big flow against a small one (curate's neighbour searches, issue 36): the C search reads
    the bitsets of the vertices that have a partner only (reading all of them, a 20,000-node flow
    cost 2 s a search); the same match as from the graph's edge array."""
    n = 3000  # below divergence.SPARSE_FROM: bitsets
    big = [{"id": f"f{i}", "type": "function", "func": "return msg;", "wires": [[f"f{i + 1}"]]} for i in range(n - 1)]
    big.append({"id": f"f{n - 1}", "type": "debug", "wires": []})
    small = [{"id": "a", "type": "inject", "wires": [["d"]]}, {"id": "d", "type": "debug", "wires": []}]
    g1, g2 = graphs(flow_from_nodes(big), flow_from_nodes(small))
    assert not g1.sparse and g1.n == n
    with mode(True):
        before = _mcsplit.masks_read()
        m = M.max_common_subgraph(g1, g2)
        read = _mcsplit.masks_read() - before
        edges = g1.edge_array()
        sparse = M.sparse_graph(g1.ids, g1.sigs, zip(edges[::3], edges[1::3], edges[2::3]), g1.selfloop)
        assert sparse.sparse and M.max_common_subgraph(sparse, g2) == m
    assert [(g1.ids[u], g2.ids[v]) for u, v, _ in m.pairs] == [(f"f{n - 1}", "d")]
    assert 0 < read <= 4  # the two debug nodes' wires (before: the 2 x 2,999 masks of the chain)


# ----- the companion search: deadline, signals, dispatch, malformed input --------------------------

def test_companion_deadline_gives_an_honest_upper_bound():
    from tests.core.scoring.test_cancel import dense_cyclic_pair

    g1, g2 = dense_cyclic_pair(40)
    with mode(True):
        cut = M.max_common_subgraph(g1, g2, "companion", deadline=0.05)
        longer = M.max_common_subgraph(g1, g2, "companion", deadline=0.5)
    assert not cut.exact and cut.nodes > 0
    true_lower = max(Fraction(*m.weight) for m in (cut, longer))
    for m in (cut, longer):
        assert Fraction(*m.upper) >= true_lower
        assert_valid(g1, g2, m, "companion")
    # the bound is the search's own: at most the root's assignment bound (every w is 1 here: n)
    assert Fraction(*cut.upper) <= g1.n


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs POSIX interval timers")
def test_signals_interrupt_a_long_companion_search():
    from tests.core.scoring.test_cancel import dense_cyclic_pair

    g1, g2 = dense_cyclic_pair(40)

    class Interrupted(Exception):
        pass

    def handler(signum, frame):
        raise Interrupted

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        t = time.thread_time()
        with mode(True), pytest.raises(Interrupted):
            M.max_common_subgraph(g1, g2, "companion", deadline=120.0)  # the deadline only guards against a hang
        # stopped at the signal, not at the deadline (CPU time of this thread, as above)
        assert time.thread_time() - t < 2.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_companion_pure_python_switch_and_overflow_fallback(monkeypatch):
    a, b = pair(20, "far", 0)
    g1, g2 = graphs(a, b, profile="companion")
    with mode(True):
        want = M.max_common_subgraph(g1, g2, "companion")

    class Boom(M._NativeCliqueSearch):
        def run(self, *args):
            raise AssertionError("the native search must not run")

    monkeypatch.setattr(M, "_NativeCliqueSearch", Boom)
    with mode(False):
        assert M.max_common_subgraph(g1, g2, "companion").weight == want.weight
    monkeypatch.setattr(M, "_NATIVE_LIMIT", 10)  # weights that would not fit in 64-bit sums
    with mode(True):
        got = M.max_common_subgraph(g1, g2, "companion")
    assert (got.weight, got.nodes) == (want.weight, want.nodes)


def test_native_clique_search_rejects_malformed_input():
    E = [{}]
    cs = _mcsplit.clique_search
    assert cs(E, E, E, E, [(0, 0)], [3], [0], -1) == (3, [(0, 0)], 3, True, 2)
    assert cs(E, E, E, E, [], [], [], -1) == (0, [], 0, True, 1)  # the empty clique beats the floor
    with pytest.raises(ValueError):  # a generated vertex that does not exist
        cs(E, E, E, E, [(0, 5)], [3], [0], -1)
    with pytest.raises(ValueError):  # one weight per vertex
        cs(E, E, E, E, [(0, 0)], [3, 4], [0], -1)
    with pytest.raises(TypeError):
        cs(E, E, E, E, [0], [3], [0], -1)
    with pytest.raises(ValueError):  # a type id out of range
        cs(E, E, E, E, [(0, 0)], [3], [5], -1)
    with pytest.raises(OverflowError):
        cs(E, E, E, E, [(0, 0)], [3], [0], 1 << 62)
    with pytest.raises((ValueError, OverflowError)):  # a set beyond the vertices
        cs([{0: 1 << 70}], E, E, E, [(0, 0)], [3], [0], -1)


def test_max_assignment_against_brute_force():
    import itertools

    rng = random.Random(8)
    for _ in range(300):
        nr = rng.randint(1, 4)
        nc = rng.randint(nr, 5)
        mat = [[rng.choice([0, 0, 1, 2, 5, 7]) for _ in range(nc)] for _ in range(nr)]
        want = max(sum(mat[r][c] for r, c in enumerate(cols)) for cols in itertools.permutations(range(nc), nr))
        assert M.max_assignment(mat) == want
