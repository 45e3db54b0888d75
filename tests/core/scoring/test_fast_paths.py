"""The fast paths around the search give exactly what the plain code gives (issue 15):
signatures built without canonicalising plain scalars, the companion's w counted with set
operations, the weights of all pairs computed inline, Δ with integers, and the lazily built report."""
from __future__ import annotations

import math
import pickle
import random
from fractions import Fraction

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gindex_studio.core.scoring.divergence import ScoreOptions, delta_from_s, prepare, score
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.flows.generate import perturb, random_flow
from gindex_studio.core.scoring.matching import _weights, build_graph
from gindex_studio.core import native
from gindex_studio.core.scoring.builtin_profiles import PAPER_IGNORED
from gindex_studio.core.scoring.similarity import (
    IGNORED,
    canonical_json,
    canonical_python,
    signature,
    similarity,
)

NAN = float("nan")  # one object, shared by the generated nodes (identity makes it equal in a set)
scalars = st.sampled_from([None, True, False, 0, 1, 1.0, 2, "1", "a", "b", "", 2.5])
with_nan = st.one_of(scalars, st.just(NAN))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(
    st.sampled_from(["p", "q"]), inner, max_size=2), max_leaves=4)
keys = st.sampled_from(["topic", "payload", "func", "w", "info", "name", "x", "rules", "outputs"])
nodes = st.builds(lambda t, d: {"type": t, **d}, st.sampled_from(["inject", "function"]),
                  st.dictionaries(keys, values, max_size=5))


def plain_signature(data: dict, profile: str):
    """The signature's fields as the spec's plain reading gives them (every value canonicalised)."""
    if profile == "paper":
        vals = {k: canonical_json(v) for k, v in data.items() if k not in PAPER_IGNORED}
    else:
        vals = {k: canonical_python(v) for k, v in data.items() if k not in IGNORED}
    return str(data.get("type")), frozenset(vals), frozenset(vals.items()), vals


def plain_similarity(a: dict, b: dict, profile: str) -> tuple[int, int]:
    """w as similarity.py computed it before the fast paths: key by key for the companion."""
    ta, ka, ia, va = plain_signature(a, profile)
    tb, kb, ib, vb = plain_signature(b, profile)
    if ta != tb:
        return 0, 1
    if profile == "paper":
        den = len(ka | kb)
        return (1, 1) if den == 0 else (len(ia & ib), den)
    den = len(ka)
    return (1, 1) if den == 0 else (sum(1 for k, v in va.items() if vb.get(k) == v), den)


@settings(max_examples=300, deadline=None)
@given(nodes, st.sampled_from(["paper", "companion"]))
@pytest.mark.slow
def test_signature_equals_the_plain_canonical_form(data, profile):
    s = signature(data, profile)
    assert (s.type, s.keys, s.items, s.values) == plain_signature(data, profile)


@settings(max_examples=400, deadline=None)
@given(nodes, nodes, st.sampled_from(["paper", "companion"]))
@pytest.mark.slow
def test_similarity_equals_the_key_by_key_count(a, b, profile):
    assert similarity(signature(a, profile), signature(b, profile), profile) == plain_similarity(a, b, profile)


def test_companion_nan_is_never_equal_and_missing_is_null():
    a = {"type": "t", "v": NAN, "n": None, "k": 1}
    b = {"type": "t", "v": NAN, "k": True}  # the same NaN object; "n" missing; True == 1
    assert similarity(signature(a, "companion"), signature(b, "companion"), "companion") == (2, 3)
    assert plain_similarity(a, b, "companion") == (2, 3)
    a = {"type": "t", "n": None, "m": None, "k": 1}  # no NaN: the set-operation count
    b = {"type": "t", "m": None, "k": True}
    assert similarity(signature(a, "companion"), signature(b, "companion"), "companion") == (3, 3)
    assert similarity(signature(b, "companion"), signature(a, "companion"), "companion") == (2, 2)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, with_nan, max_size=4), st.dictionaries(keys, with_nan, max_size=4))
@pytest.mark.slow
def test_companion_w_with_nan_values(a, b):
    a, b = {"type": "t", **a}, {"type": "t", **b}
    assert similarity(signature(a, "companion"), signature(b, "companion"), "companion") == \
        plain_similarity(a, b, "companion")


@settings(max_examples=150, deadline=None)
@given(st.lists(nodes, min_size=0, max_size=6), st.lists(nodes, min_size=0, max_size=6),
       st.sampled_from(["paper", "companion"]), st.sets(st.integers(0, 5), max_size=2),
       st.sets(st.integers(0, 5), max_size=2))
@pytest.mark.slow
def test_weights_equal_similarity_of_every_pair(d1, d2, profile, loops1, loops2):
    def graph(datas, loops, prefix):
        ids = [f"{prefix}{i}" for i in range(len(datas))]
        edges = [(i, 0, i) for i in loops if i < len(datas)]
        return build_graph(ids, [signature(d, profile) for d in datas], edges)

    g1, g2 = graph(d1, loops1, "a"), graph(d2, loops2, "b")
    agree = profile == "paper"
    raw, w, scale = _weights(g1, g2, profile, agree)
    expected = {}
    for u, a in enumerate(d1):
        for v, b in enumerate(d2):
            if agree and g1.selfloop[u] != g2.selfloop[v]:
                continue
            num, den = plain_similarity(a, b, profile)
            if num > 0:
                expected[(u, v)] = (num, den)
    assert raw == expected
    assert scale == math.lcm(*[d for _n, d in expected.values()]) if expected else scale == 1
    assert all(Fraction(w[k], scale) == Fraction(*expected[k]) for k in expected)


REPORT = ("mapping", "missing_nodes", "extra_nodes", "matched_edges", "missing_edges", "extra_edges",
          "edge_delta", "errors")


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["paper", "companion"]), st.booleans(), st.randoms())
def test_lazy_report_equals_the_report_built_at_once(seed, profile, port_aware, order):
    rng = random.Random(seed)
    a = random_flow(rng.randint(0, 12), rng, "a")
    b = perturb(a, rng, 0.3, prefix="b") if rng.random() < 0.7 else random_flow(rng.randint(0, 12), rng, "b")
    opts = ScoreOptions(profile=profile, port_aware=port_aware)
    first = score(a, b, opts).to_dict()  # every field built on the way
    r = score(a, b, opts)
    names = list(REPORT)
    order.shuffle(names)
    for name in names[:3]:  # some fields first, in any order, then the rest
        getattr(r, name)
    again = pickle.loads(pickle.dumps(score(a, b, opts)))  # a pickled result carries its report
    for d in (r.to_dict(), again.to_dict()):
        d.pop("seconds")
    first.pop("seconds")
    assert r.to_dict() | {"seconds": 0} == first | {"seconds": 0}
    assert again.to_dict() | {"seconds": 0} == first | {"seconds": 0}
    # the report against its definition (spec §3), derived here from the mapping and the edge sets
    phi = {p["reference"]: p["generated"] for p in first["mapping"]}
    ids1 = [n.id for n in a.vertex_nodes()]
    ids2 = [n.id for n in b.vertex_nodes()]
    assert first["missing_nodes"] == [k for k in ids1 if k not in phi]
    assert first["extra_nodes"] == [k for k in ids2 if k not in set(phi.values())]
    e1, e2 = a.edges(port_aware), b.edges(port_aware)
    image = lambda e: (phi.get(e[0]),) + tuple(e[1:-1]) + (phi.get(e[-1]),)  # noqa: E731
    matched = sorted(e for e in e1 if e[0] in phi and e[-1] in phi and image(e) in e2)
    assert sorted(tuple(m[0]) for m in first["matched_edges"]) == matched
    assert sorted(tuple(e) for e in first["missing_edges"]) == sorted(e1 - set(matched))
    assert sorted(tuple(e) for e in first["extra_edges"]) == sorted(e2 - {image(e) for e in matched})
    k = len(matched)
    assert first["edge_delta"] == (1.0 if not e1 or not e2 else float(1 - Fraction(k * k, len(e1) * len(e2))))
    assert len(first["errors"]["dataflow"]) == len(e1) - k + len(e2) - k
    # Δ with integers equals the Fraction formula of the spec
    s = Fraction(first["s_exact"])
    pa, pb = prepare(a, opts), prepare(b, opts)
    assert first["delta"] == float(delta_from_s(s, pa.n, pb.n))
    assert first["theta"] == float(1 - delta_from_s(s, pa.n, pb.n))
    assert first["s"] == float(s)


def test_report_fields_are_plain_attributes_after_the_first_access():
    a = flow_from_nodes([{"id": "i", "type": "inject", "topic": "t", "wires": [["d"]]},
                         {"id": "d", "type": "debug", "wires": []}])
    r = score(a, a)
    assert "mapping" not in vars(r)
    assert [p.reference for p in r.mapping] == ["d", "i"] or [p.reference for p in r.mapping] == ["i", "d"]
    assert "mapping" in vars(r) and "_report_src" not in vars(r)
    assert r.matched_edges == [[["i", "d"], ["i", "d"]]] and r.errors["function"] == []
    try:
        r.no_such_field
    except AttributeError:
        pass
    else:
        raise AssertionError("unknown attributes must still raise AttributeError")


def _wired(n: int, wires: list[tuple[int, int, int]], types: list[str]) -> list[dict]:
    nodes = [{"id": f"n{i}", "type": types[i % len(types)], "wires": [[], []]} for i in range(n)]
    for s, p, d in wires:
        if f"n{d}" not in nodes[s]["wires"][p]:
            nodes[s]["wires"][p].append(f"n{d}")
    return nodes


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, 1), st.integers(0, n)), max_size=10))),
    st.sampled_from(["paper", "companion", "flatland"]), st.sampled_from([(), ("b",)]),
    st.sampled_from([["a", "b"], ["move", "loop", "turn"]]), st.booleans())
@pytest.mark.slow
def test_prepare_warnings_equal_the_full_cycle_check(nw, profile, ignore, types, dup):
    """prepare runs checks.cycle_problems only when its cheap test finds a possible loop: the
    warnings are those of always running it (wires against file order, self-loops, loops through
    ignored types or a Flatland loop's body port, dangling wires, duplicate ids)."""
    from gindex_studio.core.scoring.divergence import loop_warnings
    from gindex_studio.core.support.summary import summarise

    n, wires = nw
    nodes = _wired(n, wires, types)  # a target n is a dangling wire
    if dup:
        nodes.append({"id": "n0", "type": "a", "wires": [["n0"]]})
    flow = flow_from_nodes(nodes)
    opts = ScoreOptions(profile=profile, ignore_types=ignore)
    reader = [p.message for p in flow.problems if p.kind in ("dangling-wire", "duplicate-id", "invalid-node", "encoding")]
    assert prepare(flow, opts).warnings == summarise(reader + loop_warnings(flow))


nan_values = st.recursive(with_nan, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(
    st.sampled_from(["p", "q"]), inner, max_size=2), max_leaves=4)
nan_nodes = st.builds(lambda t, d: {"type": t, **d}, st.sampled_from(["inject", "function", "debug"]),
                      st.dictionaries(keys, nan_values, max_size=5))


def _native_or_skip():
    from gindex_studio.core.scoring import matching

    if not matching.native_search_available():
        import pytest

        pytest.skip("the C extension is not in use (GINDEX_PURE_PYTHON or not built): nothing native to compare")
    return matching


@settings(max_examples=300, deadline=None)
@given(st.lists(nan_nodes, max_size=4), st.sampled_from(["paper", "companion"]))
@pytest.mark.slow
def test_native_signatures_equal_signature(datas, profile):
    from gindex_studio.core.scoring.similarity import Signature, signatures

    _native_or_skip()
    got = signatures(datas, profile)
    for s, d in zip(got, datas, strict=True):
        e = signature(d, profile)
        assert type(s) is Signature
        assert (s.type, s.keys, s.items, s.values, s.none_keys, s.self_equal) == \
            (e.type, e.keys, e.items, e.values, e.none_keys, e.self_equal)
        assert s == e and hash(s.items) == hash(e.items)


@settings(max_examples=300, deadline=None)
@given(st.lists(nan_nodes, max_size=6), st.lists(nan_nodes, max_size=6), st.sampled_from(["paper", "companion"]),
       st.sets(st.integers(0, 5), max_size=2), st.sets(st.integers(0, 5), max_size=2))
@pytest.mark.slow
def test_native_weights_equal_python_weights(d1, d2, profile, loops1, loops2):
    """native.weights against the Python loop, NaN values included (nested ones compare by
    identity in a set, a top-level one in the companion's key-by-key count never equals)."""
    import os

    _native_or_skip()

    def graph(datas, loops, prefix):
        ids = [f"{prefix}{i}" for i in range(len(datas))]
        return build_graph(ids, [signature(d, profile) for d in datas], [(i, 0, i) for i in loops if i < len(datas)])

    g1, g2 = graph(d1, loops1, "a"), graph(d2, loops2, "b")
    from gindex_studio.core.benchmark.curriculum import _weights_to

    for su in g1.sigs:  # Ω's per-node weights as floats (curriculum.lower_bounds)
        others = [sv for sv in g2.sigs if sv.type == su.type]
        native = _weights_to(su, others, profile)
        os.environ["GINDEX_PURE_PYTHON"] = "1"
        try:
            assert native == _weights_to(su, others, profile)
        finally:
            del os.environ["GINDEX_PURE_PYTHON"]
    for agree in (True, False):
        native = _weights(g1, g2, profile, agree)
        os.environ["GINDEX_PURE_PYTHON"] = "1"
        try:
            python = _weights(g1, g2, profile, agree)
        finally:
            del os.environ["GINDEX_PURE_PYTHON"]
        assert native == python
        from gindex_studio.core.scoring.matching import _quick_bound, _weights_full

        _r, w, _s, quick, total = _weights_full(g1, g2, profile, agree)
        assert (quick, total) == (_quick_bound(g1, g2, w), sum(w.values()))


wire_lists = st.lists(st.one_of(st.lists(st.sampled_from(["n0", "n1", "n2", "n3", "zz", 7, None, ("n1",)]).map(
    lambda t: list(t) if isinstance(t, tuple) else t), max_size=4),
                                st.sampled_from(["n0", "n1", "n2", 3])), max_size=3)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(wire_lists, st.just(None), st.just("n1")), min_size=1, max_size=4), st.booleans(),
       st.sampled_from(["paper", "companion", "flatland"]))
@pytest.mark.slow
def test_prepare_builds_the_graph_of_the_flows_edges(wires, port_aware, profile):
    """prepare builds the Graph's adjacency while reading the wires; it is build_graph of the
    flow's edge set (spec §1: ports as normalise_wires reads them, duplicates once, dangling
    wires dropped), under flatland without self-loops and with a body wire doubling out dropped."""
    from gindex_studio.core.flows.flow import normalise_wires

    nodes = [{"id": f"n{i}", "type": "move" if profile == "flatland" else "t", **({} if w is None else {"wires": w})}
             for i, w in enumerate(wires)]
    flow = flow_from_nodes(nodes)
    opts = ScoreOptions(profile=profile, port_aware=port_aware)
    p = prepare(flow, opts)
    ids = [d["id"] for d in nodes]
    idx = {k: i for i, k in enumerate(ids)}
    triples = []
    for k, d in enumerate(nodes):
        ports = normalise_wires(d.get("wires"))
        for port, targets in enumerate(ports):
            for t in targets:
                if t not in idx or (opts.profile.name == "flatland" and (t == ids[k] or (port == 1 and t in ports[0]))):
                    continue
                triples.append((k, port if opts.port_aware else 0, idx[t]))
    g = build_graph(ids, p.graph.sigs, triples)
    assert (p.graph.adj_out, p.graph.adj_in, p.graph.selfloop, p.graph.n_edges) == \
        (g.adj_out, g.adj_in, g.selfloop, g.n_edges)
    assert p.edges == {(ids[s], q, ids[t]) if opts.port_aware else (ids[s], ids[t]) for s, q, t in triples}


@settings(max_examples=2000, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 10**6), st.integers(0, 5000), st.integers(0, 5000))
@pytest.mark.slow
def test_delta_by_integer_division_is_the_rounded_fraction(num, den, n1, n2):
    """Δ and θ from integer true division are the floats of the exact Fractions, to the last bit."""
    from gindex_studio.core.scoring.divergence import _delta_of

    d = delta_from_s(Fraction(num, den), n1, n2)
    assert _delta_of((num, den), n1, n2) == (float(d), float(1 - d))


def _steps(fn):
    """``fn()`` with max_common_subgraph taking its step-by-step way (weights dicts, then search)."""
    import pytest

    from gindex_studio.core import native

    with pytest.MonkeyPatch.context() as m:
        m.setattr(native, "solve", None)
        return fn()


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 24), st.booleans(), st.sampled_from([None, "any", "tight", "above"]))
def test_one_call_search_equals_the_steps(seed, n, port_aware, threshold):
    """native.solve (weights, group ids and search in one call, the paper profile) gives the
    Match the weights dicts and native.search give: pairs with their exact w, S, the bound, the
    node count and ``improved``, with and without Ω's threshold, self-loops and ports included."""
    from gindex_studio.core.scoring.matching import max_common_subgraph

    matching = _native_or_skip()
    assert native.solve is not None
    rng = random.Random(seed)
    a = random_flow(n, rng, "a")
    b = perturb(a, rng, 0.3) if rng.random() < 0.6 else random_flow(rng.randint(1, n), rng, "b")
    nodes_a = a.to_json_value()
    if rng.random() < 0.5 and nodes_a:  # a self-loop and a second port
        k = rng.randrange(len(nodes_a))
        nodes_a[k]["wires"] = [[nodes_a[k]["id"]], [nodes_a[-1]["id"]]]
    opts = ScoreOptions(port_aware=port_aware)
    g1, g2 = prepare(flow_from_nodes(nodes_a), opts).graph, prepare(b, opts).graph
    thr = None
    if threshold is not None:
        s = _steps(lambda: max_common_subgraph(g1, g2)).weight
        n12 = g1.n * g2.n
        exact_s2 = Fraction(*s) ** 2
        thr = {"any": (0, 1), "tight": exact_s2 - Fraction(1, 7 * n12 + 1), "above": exact_s2}[threshold]
        thr = thr if isinstance(thr, tuple) else (thr.numerator, thr.denominator)
    one = max_common_subgraph(g1, g2, threshold_sq=thr)
    steps = _steps(lambda: max_common_subgraph(g1, g2, threshold_sq=thr))
    assert one == steps


def test_one_call_search_is_used_and_keeps_unreduced_weights(monkeypatch):
    from gindex_studio.core.scoring.matching import max_common_subgraph

    matching = _native_or_skip()
    calls = []
    real = native.solve
    monkeypatch.setattr(native, "solve", lambda **kw: calls.append(1) or real(**kw))
    nodes_a = [{"id": "a", "type": "inject", "topic": "t", "payload": "1", "info": "x"},
               {"id": "b", "type": "debug", "active": True, "x": 1}]
    nodes_b = [{"id": "c", "type": "inject", "topic": "t", "payload": "2", "repeat": ""},
               {"id": "d", "type": "debug", "active": True}]
    g1, g2 = prepare(flow_from_nodes(nodes_a)).graph, prepare(flow_from_nodes(nodes_b)).graph
    m = max_common_subgraph(g1, g2)
    assert calls == [1]
    assert m.pairs == [(0, 0, (1, 3)), (1, 1, (1, 1))]
    assert m == _steps(lambda: max_common_subgraph(g1, g2))


def _bit_edges(adj):
    return [(s, p, m.bit_length() - 1 - b) for s, ports in enumerate(adj) for p, m in ports.items()
            for b in range(m.bit_length()) if m >> (m.bit_length() - 1 - b) & 1]


def _prepared_in_python(flow, opts):
    import os

    os.environ["GINDEX_PURE_PYTHON"] = "1"
    try:
        return prepare(flow, opts)
    finally:
        del os.environ["GINDEX_PURE_PYTHON"]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 200), st.floats(0, 3), st.booleans(), st.sampled_from(["paper", "companion"]))
def test_native_prepare_equals_the_python_loop(seed, n, density, dup, profile):
    """prepare's vertices and wires in C (native.flow_graph) give the Prepared of the Python
    loop: flows of up to 200 nodes (several 64-bit words per bitset), wires forward and backward
    (cycles), self-loops, dangling and non-string targets, flat wire lists, duplicated ids."""
    matching = _native_or_skip()
    rng = random.Random(seed)
    nodes = []
    for i in range(n):
        ports = [[rng.choice([f"n{rng.randrange(n)}", f"n{rng.randrange(n)}", "gone", 5])
                  for _ in range(int(rng.expovariate(1 / (density + 1e-9))) if density else 0)]
                 for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.1:
            ports = [t for p in ports for t in p]  # a flat list: one port
        nodes.append({"id": f"n{i}", "type": rng.choice("ab"), "wires": ports})
        if dup and rng.random() < 0.05:
            nodes.append({"id": f"n{i}", "type": "b", "wires": [[f"n{i}"]]})
    flow = flow_from_nodes(nodes)
    opts = ScoreOptions(profile=profile)
    got = prepare(flow, opts)
    built = native.flow_graph(flow.nodes, frozenset(), frozenset({0}))
    assert built is not None
    want = _prepared_in_python(flow, opts)
    assert got == want
    assert got.graph.ids == want.graph.ids and got.graph.sigs == want.graph.sigs
    g = nx.DiGraph()
    g.add_nodes_from(range(got.n))
    g.add_edges_from((s, t) for s, _p, t in _bit_edges(got.graph.adj_out))
    assert built[5] is not nx.is_directed_acyclic_graph(g)  # the cycle flag that decides the full check


def test_native_prepare_is_used_for_the_plain_options_only(monkeypatch):
    """The C path takes the paper and companion profiles without ignored types or ports; every
    other option goes through the Python loop."""
    from gindex_studio.core.scoring import divergence

    _native_or_skip()
    calls = []
    real = divergence._prepare_python
    monkeypatch.setattr(divergence, "_prepare_python", lambda *a: calls.append(a[1]) or real(*a))
    flow = flow_from_nodes([{"id": "a", "type": "t", "wires": [["b"]]}, {"id": "b", "type": "t"}])
    for opts in (ScoreOptions(), ScoreOptions(profile="companion"), ScoreOptions(fill_defaults=True)):
        prepare(flow, opts)
    assert calls == []
    others = [ScoreOptions(port_aware=True), ScoreOptions(ignore_types=("t",)), ScoreOptions(profile="flatland")]
    for opts in others:
        prepare(flow, opts)
    assert calls == others
