"""Δ: the spec's worked examples, the axioms of Eq. 1, and agreement with independent searches."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gindex_studio.core.scoring.divergence import ScoreOptions, score
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.flows.generate import perturb, random_flow
from tests.core.scoring.reference_impl import delta_brute, delta_networkx

PAPER = ScoreOptions()
COMPANION = ScoreOptions(profile="companion")


def inj(id_="i", topic="t", to=("d",), **extra):
    return {"id": id_, "type": "inject", "topic": topic, **extra, "wires": [list(to)]}


def dbg(id_="d", to=()):
    return {"id": id_, "type": "debug", "wires": [list(to)] if to else []}


REF = [inj(), dbg()]
WORKED = [
    # generated, paper Δ, companion Δ, companion Δ with the flows swapped
    ([inj("a", to=()), dbg("b")], Fraction(3, 4), Fraction(0), Fraction(0)),
    ([inj("a", topic="u", to=("b",)), dbg("b")], Fraction(3, 4), Fraction(3, 4), Fraction(3, 4)),
    ([inj("a", to=("b",), payload="1"), dbg("b")], Fraction(7, 16), Fraction(0), Fraction(7, 16)),
    ([inj("a", to=("b", "c")), dbg("b"), dbg("c")], Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)),
    ([dbg("b", to=("a",)), inj("a", to=())], Fraction(3, 4), Fraction(3, 4), Fraction(3, 4)),
]


@pytest.mark.parametrize("gen,paper,companion,swapped", WORKED)
def test_spec_worked_examples(gen, paper, companion, swapped):
    ref, g = flow_from_nodes(REF), flow_from_nodes(gen)
    assert score(ref, g, PAPER).delta == float(paper)
    assert score(ref, g, COMPANION).delta == float(companion)
    assert score(g, ref, COMPANION).delta == float(swapped)
    assert score(g, ref, PAPER).delta == float(paper)  # paper is symmetric


def test_report_of_a_function_and_dataflow_error():
    ref = flow_from_nodes(REF)
    gen = flow_from_nodes([inj("a", to=(), payload="1"), dbg("b")])
    r = score(ref, gen)
    # inject (w=1/2) and debug (w=1) cannot both map: i→d has no counterpart; debug alone gives S = 1
    assert r.s_exact == "1" and r.delta == 0.75
    assert r.missing_edges == [["i", "d"]] and r.extra_edges == [] and r.edge_delta == 1.0
    kinds = {e["kind"] for e in r.errors["function"]}
    assert "missing-node" in kinds and "extra-node" in kinds
    assert r.errors["dataflow"] == [{"kind": "missing-edge", "edge": ["i", "d"]}]
    assert r.errors["syntax"] is None and r.exact and r.theta == 0.25


def test_differing_keys_and_matched_edges():
    ref = flow_from_nodes(REF)
    gen = flow_from_nodes([inj("a", to=("b",), payload="1"), dbg("b")])
    r = score(ref, gen)
    pair = r.pair_of("i")
    assert pair.generated == "a" and pair.w == 0.5 and pair.w_exact == "1/2" and pair.differing_keys == ["payload"]
    assert r.matched_edges == [[["i", "d"], ["a", "b"]]]
    assert r.edge_delta == 0.0


def test_empty_flows_and_no_common_type():
    empty = flow_from_nodes([])
    ref = flow_from_nodes(REF)
    assert score(empty, ref).delta == 1.0 and score(ref, empty).delta == 1.0
    other = flow_from_nodes([{"id": "x", "type": "function", "func": "", "wires": []}])
    r = score(ref, other)
    assert r.delta == 1.0 and r.mapping == []


def test_ignored_keys_and_json_equality():
    a = flow_from_nodes([{"id": "1", "type": "change", "x": 1, "y": 2, "z": "t", "name": "A", "info": "i",
                          "rules": [{"t": "set", "p": "payload"}], "n": 1, "b": True, "wires": []}])
    b = flow_from_nodes([{"id": "2", "type": "change", "x": 9, "y": 9, "z": "u", "name": "B", "info": "j",
                          "rules": [{"p": "payload", "t": "set"}], "n": 1.0, "b": True, "wires": []}])
    assert score(a, b).delta == 0.0
    c = flow_from_nodes([{"id": "2", "type": "change", "rules": [{"p": "payload", "t": "set"}], "n": 1, "b": 1,
                          "wires": []}])
    assert score(a, c).s_exact == "2/3"  # a boolean never equals a number (paper)
    # companion compares "info" (not ignored there): a has it, c lacks it → 3 of a's 4 keys equal
    assert score(a, c, COMPANION).s_exact == "3/4"
    # from c's side only rules, n, b are compared, and Python == makes True equal 1
    assert score(c, a, COMPANION).s_exact == "1"


def test_companion_null_and_missing_are_equal():
    a = flow_from_nodes([{"id": "1", "type": "debug", "k": None, "j": 2, "wires": []}])
    b = flow_from_nodes([{"id": "2", "type": "debug", "j": 2, "wires": []}])
    assert score(a, b, COMPANION).delta == 0.0
    assert score(a, b, PAPER).delta == 0.75  # paper: k on one side only → w = 1/2


def test_options_ignore_types_port_aware_and_fill_defaults():
    ref = flow_from_nodes([{"id": "t", "type": "tab", "label": "Flow 1"}] + REF)
    gen = flow_from_nodes([{"id": "t2", "type": "tab", "label": "Other"}, inj("a", to=("b",)), dbg("b")])
    assert score(ref, gen).delta == 0.0
    assert score(ref, gen, ScoreOptions(ignore_types={"tab"})).n_reference == 2
    sw_ref = flow_from_nodes([{"id": "s", "type": "switch", "wires": [["d"], []]}, dbg("d")])
    sw_gen = flow_from_nodes([{"id": "s", "type": "switch", "wires": [[], ["d"]]}, dbg("d")])
    assert score(sw_ref, sw_gen).delta == 0.0
    assert score(sw_ref, sw_gen, ScoreOptions(port_aware=True)).delta == 0.75


def test_dangling_wires_and_duplicate_ids_are_warnings():
    ref = flow_from_nodes([inj(to=("d", "ghost")), dbg(), dbg()])
    r = score(ref, flow_from_nodes(REF))
    assert r.delta == 0.0
    assert any("ghost" in w for w in r.warnings) and any("duplicate" in w for w in r.warnings)


def test_self_loop_needs_a_self_loop_partner():
    loop = flow_from_nodes([{"id": "f", "type": "function", "func": "", "wires": [["f"]]}])
    plain = flow_from_nodes([{"id": "g", "type": "function", "func": "", "wires": []}])
    assert score(loop, plain).delta == 1.0
    assert score(loop, loop).delta == 0.0


# ----- generated flows: axioms and agreement with independent searches ----------------------

TYPES = ["inject", "debug", "function", "change"]
VALUES = st.one_of(st.sampled_from(["a", "b", ""]), st.sampled_from([0, 1, 1.0, 2]), st.booleans(), st.none(),
                   st.just({"k": 1}), st.just([1, "x"]))


@st.composite
def small_flows(draw, max_nodes=5, prefix="n"):
    n = draw(st.integers(0, max_nodes))
    ids = [f"{prefix}{i}" for i in range(n)]
    nodes = []
    for i in range(n):
        attrs = draw(st.dictionaries(st.sampled_from(["topic", "func", "rules", "p"]), VALUES, max_size=2))
        targets = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)) if ids else []
        nodes.append({"id": ids[i], "type": draw(st.sampled_from(TYPES)), **attrs, "wires": [targets]})
    return nodes


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(small_flows(prefix="a"), small_flows(prefix="b"), st.sampled_from(["paper", "companion"]))
@pytest.mark.slow
def test_matches_brute_force(a, b, profile):
    got = score(flow_from_nodes(a), flow_from_nodes(b), ScoreOptions(profile=profile))
    want = delta_brute(a, b, profile)
    assert got.delta == float(want)
    assert got.exact
    assert 0.0 <= got.delta <= 1.0


@SETTINGS
@given(small_flows(prefix="a"), small_flows(prefix="b"))
@pytest.mark.slow
def test_paper_is_symmetric(a, b):
    fa, fb = flow_from_nodes(a), flow_from_nodes(b)
    assert score(fa, fb).delta == score(fb, fa).delta


@SETTINGS
@given(small_flows(prefix="a"))
@pytest.mark.slow
def test_zero_for_a_relabelled_copy(a):
    rename = {n["id"]: "z" + n["id"] for n in a}
    b = [{**n, "id": rename[n["id"]], "x": 5, "name": "renamed", "wires": [[rename[t] for t in n["wires"][0]]]}
         for n in a]
    d = score(flow_from_nodes(a), flow_from_nodes(b)).delta
    assert d == (0.0 if a else 1.0)


@SETTINGS
@given(small_flows(prefix="a"), small_flows(prefix="b"))
@pytest.mark.slow
def test_zero_only_when_identical_and_one_only_without_similar_nodes(a, b):
    r = score(flow_from_nodes(a), flow_from_nodes(b))
    if r.delta == 0.0:
        assert r.n_reference == r.n_generated == len(r.mapping)
        assert all(p.w == 1 for p in r.mapping) and not r.missing_edges and not r.extra_edges
    from tests.core.scoring.reference_impl import w_ref

    def loop(n):
        return n["id"] in n["wires"][0]

    # spec §1: a pair is an association vertex only if both or neither node has a self-loop, so
    # "Δ = 1 iff no pair has w > 0" holds for pairs that can associate (all pairs in a DAG)
    any_similar = any(w_ref(u, v, "paper") > 0 and loop(u) == loop(v) for u in a for v in b)
    assert (r.delta == 1.0) == (not any_similar or not a or not b)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("profile", ["paper", "companion"])
def test_matches_networkx_max_weight_clique(seed, profile):
    rng = random.Random(seed)
    n = rng.randint(6, 11)
    a = random_flow(n, rng, "a")
    b = perturb(a, rng, 0.2) if seed % 2 else random_flow(rng.randint(6, 11), rng, "b")
    got = score(a, b, ScoreOptions(profile=profile))
    want = delta_networkx([x.data for x in a.nodes], [x.data for x in b.nodes], profile)
    assert got.delta == float(want)


def test_deadline_gives_an_honest_bound():
    rng = random.Random(5)
    a, b = random_flow(90, rng, "a"), random_flow(90, random.Random(99), "b")
    r = score(a, b, ScoreOptions(deadline=0.05))
    assert r.delta_lower <= r.delta
    if not r.exact:
        assert any("deadline" in w for w in r.warnings)
    exact = score(a, b, ScoreOptions(deadline=None)) if r.exact else None
    if exact is not None:
        assert exact.delta == r.delta


def test_warm_start_keeps_the_exact_answer():
    rng = random.Random(3)
    a = random_flow(30, rng, "a")
    b = perturb(a, rng, 0.1)
    first = score(a, b)
    again = score(a, b, warm=[(p.reference, p.generated) for p in first.mapping])
    assert again.delta == first.delta and again.search_nodes <= first.search_nodes
