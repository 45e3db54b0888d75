"""The fast paths around the search give exactly what the plain code gives (issue 15):
signatures built without canonicalising plain scalars, the companion's w counted with set
operations, the weights of all pairs computed inline, Δ with integers, and the lazily built report."""
from __future__ import annotations

import math
import pickle
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from gindex_studio.core.divergence import ScoreOptions, delta_from_s, prepare, score
from gindex_studio.core.flow import flow_from_nodes
from gindex_studio.core.generate import perturb, random_flow
from gindex_studio.core.matching import _weights, build_graph
from gindex_studio.core.similarity import (IGNORED, PAPER_IGNORED, canonical_json, canonical_python, signature,
                                           similarity)

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
def test_signature_equals_the_plain_canonical_form(data, profile):
    s = signature(data, profile)
    assert (s.type, s.keys, s.items, s.values) == plain_signature(data, profile)


@settings(max_examples=400, deadline=None)
@given(nodes, nodes, st.sampled_from(["paper", "companion"]))
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
def test_companion_w_with_nan_values(a, b):
    a, b = {"type": "t", **a}, {"type": "t", **b}
    assert similarity(signature(a, "companion"), signature(b, "companion"), "companion") == \
        plain_similarity(a, b, "companion")


@settings(max_examples=150, deadline=None)
@given(st.lists(nodes, min_size=0, max_size=6), st.lists(nodes, min_size=0, max_size=6),
       st.sampled_from(["paper", "companion"]), st.sets(st.integers(0, 5), max_size=2),
       st.sets(st.integers(0, 5), max_size=2))
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
