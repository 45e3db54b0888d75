"""Cooperative cancellation of the exact search (``max_common_subgraph(..., cancel=...)``).

A cancelled search stops within 128 search nodes and returns like a deadline-cut one: the best
mapping found (a valid common subgraph), ``exact=False``, a proven upper bound, and
``cancelled=True``. Both searches are checked: the native one (it runs without the GIL and reads
the Budget's cancel byte directly) and the pure-Python one.
"""
from __future__ import annotations

import random
import threading
import time
from fractions import Fraction

import pytest

from gindex_studio.core import native
from gindex_studio.core.scoring import matching as M
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score
from gindex_studio.core.flows.generate import perturb, random_flow

from cpu_clock import cpu_seconds, thread_clock

#: CPU seconds a search may spend after its token is set. Measured: well under 1 ms; an uncancelled
#: search of these pairs runs for minutes. CPU time of the searching thread, not elapsed time: a
#: loaded machine stretches the latter without limit (see tests/cpu_clock.py).
PROMPT = 0.5
#: CPU seconds the search runs before it is cancelled (it is well inside its search by then)
UNDER_WAY = 0.15


@pytest.fixture(params=["native", "python"])
def search_mode(request, monkeypatch):
    if request.param == "native":
        monkeypatch.setenv("GINDEX_PURE_PYTHON", "0")
        if not M.native_search_available():
            pytest.skip("native search extension not built")
    else:
        monkeypatch.setenv("GINDEX_PURE_PYTHON", "1")
    assert M.native_search_available() == (request.param == "native")
    return request.param


def far_pair(seed: int = 3, n: int = 120, options: ScoreOptions = ScoreOptions()):
    """Two unrelated 120-node programs: proving their optimum takes hours."""
    a = random_flow(n, random.Random(seed), "a")
    b = random_flow(n, random.Random(1000 + seed), "b")
    return prepare(a, options).graph, prepare(b, options).graph


def run_and_cancel(g1, g2, token, after: float = UNDER_WAY, **kw):
    """Search in a thread, set ``token`` once the thread has spent ``after`` CPU seconds; (match,
    CPU seconds the thread spent from the set to its return)."""
    out, clock = [], []
    ready = threading.Event()

    def work():
        clock.append(thread_clock())
        ready.set()
        m = M.max_common_subgraph(g1, g2, cancel=token, **kw)
        out.append((m, time.thread_time()))

    th = threading.Thread(target=work)
    th.start()
    assert ready.wait(60)
    while (cpu_seconds(clock[0]) or 0.0) < after and th.is_alive():
        time.sleep(0.005)  # waiting for work done, whatever the load
    assert th.is_alive(), "the search finished before it could be cancelled: not a hard pair"
    at_set = cpu_seconds(clock[0])
    token.set()
    th.join(120)  # a hang guard only: an uncancelled search of these pairs runs for minutes
    assert not th.is_alive(), "the cancelled search did not stop"
    m, cpu_end = out[0]
    return m, cpu_end - at_set


def assert_valid(g1: M.Graph, g2: M.Graph, m: M.Match) -> None:
    """``m.pairs`` is a common subgraph (paper profile: Eq. 12, edges agree both ways) of weight S."""
    us = [u for u, _v, _w in m.pairs]
    vs = [v for _u, v, _w in m.pairs]
    assert len(set(us)) == len(us) and len(set(vs)) == len(vs)
    total = Fraction(0)
    for u, v, (num, den) in m.pairs:
        assert g1.sigs[u].type == g2.sigs[v].type
        assert Fraction(num, den) > 0
        total += Fraction(num, den)
    for u1, v1, _ in m.pairs:
        for u2, v2, _ in m.pairs:
            if u1 != u2:
                assert g1.has_edge(u1, u2) == g2.has_edge(v1, v2)
    assert total == Fraction(*m.weight)
    assert Fraction(*m.upper) >= Fraction(*m.weight)


def test_a_cancelled_search_returns_at_once_with_a_valid_bound(search_mode):
    g1, g2 = far_pair()
    m, latency = run_and_cancel(g1, g2, M.CancelToken())
    assert latency < PROMPT, f"{search_mode}: spent {latency * 1000:.1f} ms of CPU after the cancel"
    assert m.cancelled and not m.exact
    assert m.nodes > 0 and m.pairs, "the mapping found so far is kept"
    assert_valid(g1, g2, m)
    # the bound is proven: no longer search beats it, and it is the search's own (below the root's)
    longer = M.max_common_subgraph(g1, g2, deadline=0.3)
    assert Fraction(*m.upper) >= Fraction(*longer.weight)
    assert Fraction(*longer.upper) >= Fraction(*m.weight)
    _raw, w, scale = M._weights(g1, g2, "paper", True)
    root = sum(c[2] for c in M._McSplit(g1, g2, w, scale).root)
    assert Fraction(*m.upper) <= Fraction(root, scale)


def test_a_threading_event_cancels_too(search_mode):
    """Any object with is_set() works (the native search polls it with the GIL, less often)."""
    g1, g2 = far_pair(5)
    m, latency = run_and_cancel(g1, g2, threading.Event())
    assert latency < PROMPT
    assert m.cancelled and not m.exact
    assert_valid(g1, g2, m)


def test_cancel_and_deadline_together(search_mode):
    g1, g2 = far_pair(6)
    token = M.CancelToken()
    m, latency = run_and_cancel(g1, g2, token, deadline=30.0)
    assert latency < PROMPT and m.cancelled and not m.exact
    cut = M.max_common_subgraph(g1, g2, deadline=0.05, cancel=M.CancelToken())
    assert not cut.exact and not cut.cancelled, "a deadline cut is not a cancellation"


def test_cancelled_before_it_starts(search_mode):
    g1, g2 = far_pair()
    token = M.CancelToken()
    token.set()
    t = time.thread_time()
    m = M.max_common_subgraph(g1, g2, cancel=token)
    assert time.thread_time() - t < 0.5  # CPU: a search of minutes never started
    assert m.cancelled and not m.exact
    assert_valid(g1, g2, m)


def test_an_unset_token_changes_nothing(search_mode):
    rng = random.Random(11)
    a = random_flow(30, rng, "a")
    b = perturb(a, rng, 0.15)
    g1, g2 = prepare(a).graph, prepare(b).graph
    plain = M.max_common_subgraph(g1, g2)
    token = M.CancelToken()
    with_token = M.max_common_subgraph(g1, g2, cancel=token)
    assert plain.exact and with_token.exact and not with_token.cancelled
    assert (plain.weight, plain.nodes, plain.pairs) == (with_token.weight, with_token.nodes, with_token.pairs)
    token.set()  # set after the search finished: nothing to cancel, the next search stops
    assert M.max_common_subgraph(g1, g2, cancel=token).weight <= plain.weight
    token.clear()
    assert not token.is_set() and token.set_at is None
    assert M.max_common_subgraph(g1, g2, cancel=token).exact


def test_cancel_token_is_an_event():
    token = M.CancelToken()
    assert isinstance(token, threading.Event)
    assert not token.is_set() and not token.wait(0.001)
    threading.Timer(0.02, token.set).start()
    assert token.wait(2.0)
    assert token.is_set() and token.flag[0] == 1 and token.set_at is not None


def test_score_passes_cancel_through(search_mode):
    a = random_flow(120, random.Random(3), "a")
    b = random_flow(120, random.Random(1003), "b")
    token = M.CancelToken()
    out = []
    th = threading.Thread(target=lambda: out.append(score(a, b, cancel=token)))
    th.start()
    time.sleep(0.2)  # cancelled while it runs or before it starts: either way it stops
    token.set()
    th.join(120)  # a hang guard only
    assert not th.is_alive(), "the cancelled score did not stop"
    r = out[0]
    assert not r.exact and r.delta_lower <= r.delta
    assert any("cancelled" in w for w in r.warnings)


def dense_cyclic_pair(n: int = 60, options: ScoreOptions = ScoreOptions(profile="companion")):
    """Two unrelated dense cyclic graphs of one node type: hard for the companion search, whose
    assignment bound (n) stays far above the best clique; the Python search spends seconds
    building its association graph (n² vertices) already."""
    from gindex_studio.core.flows.flow import flow_from_nodes

    def dense(seed, prefix):
        rng = random.Random(seed)
        return flow_from_nodes([{"id": f"{prefix}{i}", "type": "function",
                                 "wires": [[f"{prefix}{j}" for j in range(n) if j != i and rng.random() < 0.5]]}
                                for i in range(n)])

    return prepare(dense(1, "a"), options).graph, prepare(dense(2, "b"), options).graph


def test_the_companion_search_cancels(search_mode):
    """Cancelled while the Python search builds its association graph, or while the native one
    searches: either way it returns promptly, with a valid clique and a proven bound."""
    g1, g2 = dense_cyclic_pair()
    m, latency = run_and_cancel(g1, g2, M.CancelToken(), after=0.2, profile="companion")
    assert latency < PROMPT
    assert m.cancelled and not m.exact
    assert Fraction(*m.upper) >= Fraction(*m.weight)
    _raw, w, _scale = M._weights(g1, g2, "companion", False)
    pairs = [(u, v) for u, v, _ in m.pairs]
    assert M.consistent_subset(g1, g2, pairs, w, "or") == pairs
    if search_mode == "native":
        assert m.nodes > 0 and m.pairs and Fraction(*m.upper) <= g1.n


def test_native_budget_argument():
    """The C searches read a Budget as it is: no budget, one never cancelled, a flag of no byte
    (ValueError), an object that is no Budget (AttributeError)."""
    from types import SimpleNamespace

    from gindex_studio.core.support.budget import Budget

    if native.EXTENSION is None:
        pytest.skip("native search extension not built")
    E = [{}]
    search = native.EXTENSION.search
    assert search(E, E, E, E, {(0, 0): 3}, [0], [0], -1, budget=None) == (3, [(0, 0)], 3, True, 3)
    assert search(E, E, E, E, {(0, 0): 3}, [0], [0], -1, budget=Budget())[3] is True
    with pytest.raises(ValueError):  # an empty buffer has no flag byte
        search(E, E, E, E, {(0, 0): 3}, [0], [0], -1,
               budget=SimpleNamespace(stop_at=None, flag=bytearray(0), poll=None))
    with pytest.raises(AttributeError):
        search(E, E, E, E, {(0, 0): 3}, [0], [0], -1, budget=42)

    class Broken:
        def is_set(self):
            raise RuntimeError("boom")

    g1, g2 = far_pair()
    with pytest.raises(RuntimeError, match="boom"):  # an error in is_set() surfaces, not a crash
        M._NativeMcSplit(g1, g2, M._weights(g1, g2, "paper", True)[1], 1).run(-1, Budget(poll=Broken()))
    c1, c2 = dense_cyclic_pair(40)
    with pytest.raises(RuntimeError, match="boom"):
        M._NativeCliqueSearch(c1, c2, M._weights(c1, c2, "companion", False)[1]).run(-1, Budget(poll=Broken()))


def test_a_budget_reaches_the_search_as_one_absolute_time(search_mode):
    """The search reads the Budget's ``stop_at`` as the absolute ``time.perf_counter()`` time it is
    (no second clock, no seconds counted again from the search's start): a time already passed
    stops it at its first look (128 nodes: ``solve``'s weights do not earn it a fresh deadline),
    and a search given a time 0.2 s ahead returns no earlier than that time."""
    from gindex_studio.core.support.budget import Budget, clock

    g1, g2 = far_pair()
    past = M.max_common_subgraph(g1, g2, budget=Budget(clock() - 1.0))
    assert not past.exact and not past.cancelled and past.nodes <= 128
    assert_valid(g1, g2, past)
    ahead = Budget(clock() + 0.2)
    m = M.max_common_subgraph(g1, g2, budget=ahead)
    assert clock() >= ahead.stop_at and not m.exact and not m.cancelled and m.nodes > 128
