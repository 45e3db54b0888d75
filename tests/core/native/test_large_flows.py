"""Large flows cost what their candidate pairs cost (issue 24, item 2).

A flow from ``divergence.SPARSE_FROM`` vertices on is kept sparse (an edge array, no n² bitsets);
the native McSplit drops every vertex without a same-type partner before building anything and
reads the rest as an edge array. These tests check that the sparse and restricted ways give the
very same search (S, bound, node count, mapping) as the dense bitsets, and that a long chain is
scored without ever building its bitsets. Deadlines and Ctrl-C on the ``score`` command are in
tests/reliability/test_large_flow_cli.py.
"""
from __future__ import annotations

import random

import pytest

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.flows.generate import perturb, random_flow
from gindex_studio.core import native
from gindex_studio.core.scoring import divergence, matching as M
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score

needs_native = pytest.mark.skipif(not native.available(), reason="the native search is not in use")


def chain(n: int, kind: str = "function", prefix: str = "n") -> list[dict]:
    return [{"id": f"{prefix}{i}", "type": kind, "name": f"step {i % 7}", "func": "return msg;",
             "wires": [[f"{prefix}{i + 1}"]] if i + 1 < n else [[]]} for i in range(n)]


def as_sparse(g: M.Graph) -> M.Graph:
    """The same graph kept sparse (edge array only)."""
    flat = g.edge_array()
    edges = [tuple(flat[i:i + 3]) for i in range(0, len(flat), 3)]
    return M.sparse_graph(list(g.ids), list(g.sigs), edges, list(g.selfloop))


def same_match(a: M.Match, b: M.Match):
    assert (a.pairs, a.weight, a.upper, a.exact, a.nodes, a.improved) == \
        (b.pairs, b.weight, b.upper, b.exact, b.nodes, b.improved)


def test_sparse_graph_bitsets_and_edges_are_those_of_the_dense_one():
    for seed in range(5):
        f = random_flow(40, random.Random(seed), "a")
        for port_aware in (False, True):
            g = prepare(f, ScoreOptions(port_aware=port_aware)).graph
            s = as_sparse(g)
            assert s.sparse and s == g and s.n_edges == g.n_edges
            assert s.adj_out == g.adj_out and s.adj_in == g.adj_in  # built on demand
            assert not s.sparse and s == g


def _restricted_pairs():
    """Pairs where many vertices have no partner: the second flow lacks some of the first's
    types (and the other way), so the native search drops them."""
    for seed in range(6):
        rng = random.Random(seed)
        a = random_flow(30 + 5 * seed, rng, "a")
        b = perturb(a, rng, 0.2) if seed % 2 else random_flow(25, random.Random(100 + seed), "b")
        keep = {n.type for n in b.nodes[: len(b.nodes) // 2]}
        nodes = [dict(n.data) for n in b.nodes if n.type in keep]
        yield a, flow_from_nodes(nodes)


@needs_native
@pytest.mark.parametrize("port_aware", [False, True])
def test_dropping_vertices_without_a_partner_keeps_the_search(port_aware):
    """The same S, bound, node count and mapping: dense or sparse graphs, C or the Python
    reference (which keeps every vertex), exact or cut by a node limit."""
    opts = ScoreOptions(port_aware=port_aware)
    checked = 0
    for a, b in _restricted_pairs():
        g1, g2 = prepare(a, opts).graph, prepare(b, opts).graph
        ref = M._search_once(g1, g2, "paper", None, (), None, None)
        assert ref.exact
        for x, y in ((as_sparse(g1), g2), (g1, as_sparse(g2)), (as_sparse(g1), as_sparse(g2))):
            same_match(M._search_once(x, y, "paper", None, (), None, None), ref)
            limit = max(1, ref.nodes // 2)
            same_match(M._search_once(x, y, "paper", None, (), None, None, limit),
                       M._search_once(g1, g2, "paper", None, (), None, None, limit))
            assert x.sparse or x is g1  # the search read the edge array, not bitsets
        with _pure_python():
            py = M._search_once(g1, g2, "paper", None, (), None, None)
        assert (py.pairs, py.weight, py.upper, py.nodes) == (ref.pairs, ref.weight, ref.upper, ref.nodes)
        # the general way (weights dict + native.search) reads sparse graphs too
        w = M._weights(g1, g2, "paper", True)[1]
        assert M._NativeMcSplit(as_sparse(g1), as_sparse(g2), w, 1).run(-1, None)[4] == ref.nodes
        checked += 1
    assert checked == 6


class _pure_python:
    def __enter__(self):
        import os
        self.old = os.environ.get("GINDEX_PURE_PYTHON")
        os.environ["GINDEX_PURE_PYTHON"] = "1"

    def __exit__(self, *exc):
        import os
        if self.old is None:
            del os.environ["GINDEX_PURE_PYTHON"]
        else:
            os.environ["GINDEX_PURE_PYTHON"] = self.old


@needs_native
def test_a_long_chain_is_scored_without_its_bitsets():
    """20,000 function nodes against a flow without one (no pair: S = 0) and against flows with
    one or two: the chain stays sparse through prepare, the search and the report (its n² bits,
    50 MB here and 1.25 GB at 100,000 nodes, are never made)."""
    n = 20_000
    big = flow_from_nodes(chain(n))
    p1 = prepare(big)
    assert n > divergence.SPARSE_FROM and p1.graph.sparse and p1.graph.n_edges == n - 1
    other = flow_from_nodes([{"id": "h", "type": "http in", "wires": [["r"]]}, {"id": "r", "type": "http response"}])
    r = divergence.score_prepared(p1, prepare(other))
    assert (r.delta, r.s_exact, r.exact, r.search_nodes) == (1.0, "0", True, 1)
    assert len(r.missing_edges) == n - 1 and len(r.missing_nodes) == n
    two = chain(2, prefix="m")
    two[0]["name"] = "step 3"  # equal to n3's name: a better partner than the rest
    r = divergence.score_prepared(p1, prepare(flow_from_nodes(two)))
    assert r.exact and r.n_reference == n and len(r.mapping) == 2 and len(r.matched_edges) == 1
    assert p1.graph.sparse


def test_sparse_and_dense_reports_agree_on_a_large_flow(monkeypatch):
    """The report (edges, missing and extra) and Δ of a flow above SPARSE_FROM are those of the
    same flow reduced with bitsets."""
    rng = random.Random(5)
    a = random_flow(45, rng, "a")
    b = perturb(a, rng, 0.1)
    dense = score(a, b)
    assert dense.exact and dense.missing_edges and dense.matched_edges
    monkeypatch.setattr(divergence, "SPARSE_FROM", 20)
    assert prepare(a).graph.sparse
    sparse = score(a, b)
    assert sparse.to_dict() | {"seconds": 0} == dense.to_dict() | {"seconds": 0}


def _many_pairs():
    """Two 1,500-node chains of one type with distinct names: 2.25 million candidate pairs, whose
    weights alone take seconds of CPU before any search node."""
    a = chain(1500, prefix="a")
    b = chain(1500, prefix="b")
    for i, d in enumerate(a + b):
        d["name"] = f"x{i}"
    return prepare(flow_from_nodes(a)).graph, prepare(flow_from_nodes(b)).graph


@needs_native
def test_a_deadline_passing_while_pairs_are_weighed_ends_before_the_search():
    g1, g2 = _many_pairs()
    m = M.max_common_subgraph(g1, g2, deadline=0.0)
    # cut in the weights (not one search node), with the bound every mapping obeys: S <= min(n1, n2)
    assert (m.exact, m.nodes, m.weight, m.upper, m.pairs) == (False, 0, (0, 1), (1500, 1), [])


@needs_native
def test_signals_interrupt_the_weighing_of_many_pairs():
    """Ctrl-C (here: an alarm whose handler raises) stops the weights loop, which holds the GIL."""
    import signal
    import time

    g1, g2 = _many_pairs()

    class Interrupted(Exception):
        pass

    def handler(signum, frame):
        raise Interrupted

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        t = time.thread_time()
        with pytest.raises(Interrupted):
            M.max_common_subgraph(g1, g2)
        assert time.thread_time() - t < 0.5  # CPU, not elapsed time: the whole loop takes seconds
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ----- the deadline in the reduction (prepare's budget) and the result of no search -------------

@pytest.mark.slow
def test_prepare_stops_at_its_deadline_and_otherwise_gives_the_same_reduction():
    import time

    from gindex_studio.core.support.budget import Budget

    big = flow_from_nodes(chain(30_000))
    with pytest.raises(divergence.DeadlinePassed):
        prepare(big, budget=Budget(time.perf_counter()))  # already passed: before any work
    assert prepare(big, budget=Budget(time.perf_counter() + 3600)) == prepare(big)
    # a deadline passing during the reduction: the clock is read every _CLOCK_EVERY nodes, in the
    # vertex loop, between slices of signatures and in the wires loop
    import gc

    gc.collect()
    gc.disable()  # a full collection inside one of the two runs would be counted as its work
    try:
        t = time.thread_time()
        full = prepare(big)
        whole = time.thread_time() - t
        t = time.thread_time()
        with pytest.raises(divergence.DeadlinePassed):
            prepare(big, budget=Budget(time.perf_counter() + whole / 4))
        cut = time.thread_time() - t
    finally:
        gc.enable()
    assert cut < whole  # cut part way (CPU: the machine's load does not count)
    small = flow_from_nodes(chain(50))
    assert prepare(small, budget=Budget(time.perf_counter() + 3600)) == prepare(small)
    assert full.n == 30_000


def test_vertex_count_is_the_reduced_graphs_size():
    rng = random.Random(3)
    f = random_flow(60, rng, "a")
    nodes = [dict(n.data) for n in f.nodes] + [dict(f.nodes[0].data)]  # a duplicate id: one vertex
    f = flow_from_nodes(nodes)
    for ignored in (frozenset(), frozenset({"debug", "function"})):
        opts = ScoreOptions(ignore_types=ignored)
        assert divergence.vertex_count(f, opts) == prepare(f, opts).n


def test_unsearched_gives_the_proven_interval_and_no_report():
    from fractions import Fraction

    r = divergence.unsearched(100, 4, ScoreOptions(), "why")
    assert (r.delta, r.exact, r.s_exact, r.search_nodes) == (1.0, False, "0", 0)
    assert r.delta_lower == float(divergence.delta_from_s(Fraction(4), 100, 4))
    assert r.mapping is None and r.errors is None and "no search ran (why)" in r.warnings[0]
    assert r.to_dict()["missing_edges"] is None
    empty = divergence.unsearched(0, 4, ScoreOptions(), "why")
    assert empty.exact and empty.delta == 1.0 and not empty.warnings


def test_json_value_serialises_as_to_dict():
    import orjson

    opt = orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_DATACLASS
    rng = random.Random(8)
    a = random_flow(40, rng, "a")
    for b in (perturb(a, rng, 0.2), random_flow(30, rng, "b")):
        for r in (score(a, b), score(a, b, ScoreOptions(port_aware=True))):
            assert orjson.dumps(r.json_value(), option=opt) == orjson.dumps(r.to_dict(), option=opt)
