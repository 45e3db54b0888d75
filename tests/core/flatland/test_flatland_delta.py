"""The flatland Δ profile: weights by hand, Δ on small programs by hand, and the exact search
against a brute-force maximum over all valid mappings on random programs with loops (cycles)."""
import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score as flow_score
from gindex_studio.core.flatland.program import FlatNode, FlatProgram
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file, load_text
from gindex_studio.core.flatland.score import score
from gindex_studio.core.flatland.weights import weight, weight_fraction


def test_weights_by_hand():
    assert weight("move", {"dist": 5, "penup": False}, "move", {"dist": 5.0, "penup": False}) == (1, 1)
    assert weight("move", {"dist": 5, "penup": False}, "move", {"dist": 6, "penup": False}) == (1, 2)
    assert weight("move", {"dist": 5, "penup": True}, "move", {"dist": 6, "penup": False}) == (0, 1)
    assert weight("turn", {"theta": 90}, "turn", {"theta": 180}) == (3, 4)
    assert weight("turn", {"theta": -90}, "turn", {"theta": 270}) == (1, 1)  # mod 360
    assert weight("turn", {"theta": 359}, "turn", {"theta": 1}) == (1, 180)  # not circular: 1 − 358/360
    assert weight("turn", {"theta": 370}, "turn", {"theta": 10}) == (1, 1)
    assert weight("loop", {"varname": "i", "start": 0, "end": 4}, "loop", {"varname": "k", "start": 0, "end": 5}) == (1, 2)
    assert weight("move", {"dist": 1, "penup": False}, "turn", {"theta": 1}) == (0, 1)
    # info: x terms 1 − 64/128 = 0.5 and 1; mean 0.75; heading 90 vs 0 → 0.75; (0.75 + 0.75) / 2
    assert weight_fraction("info", {"position": [64, 64], "theta": 90}, "info",
                           {"position": [0, 64], "theta": 0}) == Fraction(3, 4)
    # info rounding as the reference's numpy.round: terms 0.91 (1 − 11/128) and 0.62 (1 − 48/128 =
    # 0.625, half to even), mean 0.765 → 0.76 (rint(76.5) = 76)
    assert weight_fraction("info", {"position": [97, 55], "theta": 0}, "info",
                           {"position": [108, 7], "theta": 0}) == (Fraction(76, 100) + 1) / 2


_ANGLES = st.one_of(st.sampled_from([0, 90, -90, 360, 359.9999995, 720.5, 1e-7, 5e-7, 1.5e-6, 1e9, float("nan")]),
                    st.floats(-1e4, 1e4), st.integers(-800, 800))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["move", "turn", "loop", "info"]), st.booleans(), _ANGLES, _ANGLES,
       st.lists(st.floats(-300, 300), min_size=4, max_size=4), st.sampled_from([1, 2, 2.0]), st.sampled_from([1, 2]),
       st.booleans(), st.integers(0, 2))
def test_integer_weights_equal_the_fractions(t, same, a, b, pos, d1, d2, pen, lo):
    """``weight`` (integers) gives exactly ``weight_fraction`` (Fractions) in lowest terms."""
    pa = {"dist": d1, "penup": pen, "theta": a, "start": lo, "end": 4, "position": pos[:2]}
    pb = {"dist": d2, "penup": not pen if same else pen, "theta": b, "start": 0, "end": 4, "position": pos[2:]}
    f = weight_fraction(t, pa, t, pb)
    assert weight(t, pa, t, pb) == (f.numerator, f.denominator)
    assert weight(t, pa, "loop" if t != "loop" else "move", pb) == (0, 1)


def _prog(nodes, edges, start=(64, 64, 0)):
    """nodes: {id: (type, params)}; edges: [(src, port, dst)]; a start node pointing at the first."""
    ns = {"__START__": FlatNode("__START__", "info", {"position": [start[0], start[1]], "theta": start[2]}, {})}
    for nid, (t, p) in nodes.items():
        ns[nid] = FlatNode(nid, t, dict(p), {})
    if nodes:
        ns["__START__"].targets["out"] = [next(iter(nodes))]
    for s, port, d in edges:
        ns[s].targets.setdefault(port, []).append(d)
    return FlatProgram(ns)


def test_delta_by_hand_loop_vs_unrolled():
    loop = _prog({"l": ("loop", {"varname": "i", "start": 0, "end": 2}), "m": ("move", {"dist": 5, "penup": False})},
                 [("l", "body", "m"), ("m", "out", "l")])
    chain = _prog({"m": ("move", {"dist": 5, "penup": False}), "n": ("move", {"dist": 5, "penup": False})},
                  [("m", "out", "n")])
    # loop: 3 nodes; chain: 3 nodes. Best mapping: start→start (1) and one move (1): the edge
    # start→l has no image when l is unmapped, start→m in chain is an edge but start→m in loop is
    # none, so {start, m↔n}: start→n is none in chain, start→m none in loop: S = 2
    r = score(loop, chain)
    assert r.s_exact == "2" and r.delta == pytest.approx(1 - 4 / 9)
    assert r.exact


def test_body_and_out_edges_are_different():
    a = _prog({"l": ("loop", {"varname": "i", "start": 0, "end": 2}), "m": ("move", {"dist": 5, "penup": False})},
              [("l", "body", "m")])
    b = _prog({"l": ("loop", {"varname": "i", "start": 0, "end": 2}), "m": ("move", {"dist": 5, "penup": False})},
              [("l", "out", "m")])
    assert score(a, a).delta == 0
    assert score(a, b).s_exact == "2"  # start + loop, or start + move: never all three


def test_identical_library_programs_have_zero_delta_and_symmetry():
    progs = [load_file(LIBRARY_DIR / f"{n}.fbp") for n in ("circle", "square", "wheel", "polygon")]
    for p in progs:
        assert score(p, p).delta == 0
    for p, q in itertools.combinations(progs, 2):
        assert score(p, q).s_exact == score(q, p).s_exact


def brute_force_s(a: FlatProgram, b: FlatProgram) -> Fraction:
    """max Σ w over all partial injections whose pairs are pairwise compatible (spec §3)."""
    ida, idb = list(a.nodes), list(b.nodes)

    def label(p, x, y):
        for port in ("out", "body"):
            if y in p.nodes[x].targets.get(port, []):
                return port
        return ""

    w = {(x, y): weight_fraction(a.nodes[x].type, a.nodes[x].params, b.nodes[y].type, b.nodes[y].params)
         for x in ida for y in idb}
    best = Fraction(0)

    def extend(i, chosen, used, total):
        nonlocal best
        best = max(best, total)
        if i == len(ida):
            return
        extend(i + 1, chosen, used, total)
        x = ida[i]
        for y in idb:
            if y in used or w[(x, y)] == 0:
                continue
            if all(label(a, x, x2) == label(b, y, y2) and label(a, x2, x) == label(b, y2, y) for x2, y2 in chosen):
                extend(i + 1, chosen + [(x, y)], used | {y}, total + w[(x, y)])

    extend(0, [], set(), Fraction(0))
    return best


_node = st.one_of(
    st.tuples(st.just("move"), st.fixed_dictionaries({"dist": st.sampled_from([5, 10]), "penup": st.booleans()})),
    st.tuples(st.just("turn"), st.fixed_dictionaries({"theta": st.sampled_from([0, 90, 45.5, 270])})),
    st.tuples(st.just("loop"), st.fixed_dictionaries({"varname": st.just("i"), "start": st.sampled_from([0, 1]),
                                                       "end": st.sampled_from([3, 4])})),
)


@st.composite
def programs(draw):
    n = draw(st.integers(1, 5))
    nodes = {f"n{i}": draw(_node) for i in range(n)}
    ids = list(nodes)
    edges = []
    for s in ids:
        ports = ["out", "body"] if nodes[s][0] == "loop" else ["out"]
        for port in ports:
            for d in draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)):
                edges.append((s, port, d))  # cycles and self-loops allowed
    start = draw(st.tuples(st.sampled_from([0, 64, 100]), st.sampled_from([64, 10]), st.sampled_from([0, 90])))
    return _prog(nodes, edges, start)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), programs())
@pytest.mark.slow
def test_exact_search_equals_brute_force(a, b):
    r = score(a, b)
    assert r.exact
    assert Fraction(r.s_exact) == brute_force_s(a, b)
    assert 0 <= r.delta <= 1
    assert Fraction(score(b, a).s_exact) == Fraction(r.s_exact)  # symmetric


def test_flatland_profile_through_the_generic_scorer():
    p = load_text("p(start) -> m(move 5 0)\nm -> p(end)\n{} -> p()\n", kind="fbp")
    q = load_text("p(start) -> m(move 6 0)\nm -> p(end)\n{} -> p()\n", kind="fbp")
    opts = ScoreOptions(profile="flatland")
    assert opts.port_aware
    r = flow_score(p.to_flow(), q.to_flow(), opts)
    assert r.s_exact == "3/2" and r.delta == pytest.approx(1 - 2.25 / 4)
    assert r.mapping[1].differing_keys == ["dist"]


def test_out_and_body_to_one_target_is_labelled_out():
    """As the reference's get_edgetype: a loop wired to one node by both ports has an out edge."""
    loop = {"l": ("loop", {"varname": "i", "start": 0, "end": 3}), "m": ("move", {"dist": 5, "penup": False})}
    both = _prog(loop, [("l", "out", "m"), ("l", "body", "m")])
    out = _prog(loop, [("l", "out", "m")])
    body = _prog(loop, [("l", "body", "m")])
    assert score(both, out).delta == 0
    assert score(both, body).s_exact == "2"
    assert Fraction(score(both, body).s_exact) == brute_force_s(both, body)


@pytest.mark.parametrize("seed", range(150))
def test_cycle_warnings_without_the_full_check_are_the_same(seed, monkeypatch):
    """``prepare`` skips ``checks.cycle_problems`` for a Flatland flow whose only cycles run through
    loop bodies; on random Flatland-typed flows (out and body wires, self-loops, cycles through
    out wires, a body port on a non-loop, a third port, a wire doubled on both ports, a dangling
    wire, now and then a node of another type) the warnings are those of the full check."""
    import random

    from gindex_studio.core.scoring import divergence
    from gindex_studio.core.flows.flow import flow_from_nodes

    rng = random.Random(seed)
    n = rng.randint(1, 9)
    ids = [f"n{k}" for k in range(n)]
    datas = []
    for k in range(n):
        t = rng.choice(["move", "turn", "loop", "info"] + (["inject"] if rng.random() < 0.05 else []))
        ports = [[], []] if t == "loop" or rng.random() < 0.1 else [[]]
        ports += [[]] if rng.random() < 0.1 else []
        for port in ports:
            for _ in range(rng.choice([0, 1, 1, 2])):
                forward = k + 1 < n and rng.random() < 0.8  # mostly forward: cycles stay the exception
                port.append(ids[rng.randint(k + 1, n - 1)] if forward else
                            rng.choice(ids + (["gone"] if rng.random() < 0.05 else [])))
        datas.append({"id": ids[k], "type": t, "wires": ports})
    for k, d in enumerate(datas[:-1]):  # a loop's body that leads back to it: a cycle only through the body
        if d["type"] == "loop" and rng.random() < 0.6:
            d["wires"][1] = [ids[k + 1]]
            datas[k + 1]["wires"][0].append(ids[k])
    flow = flow_from_nodes(datas)
    opts = ScoreOptions(profile="flatland")
    fast = divergence.prepare(flow, opts).warnings
    import dataclasses

    from gindex_studio.core.support import profiles

    monkeypatch.setitem(profiles._REGISTRY, "flatland",
                        dataclasses.replace(profiles.get("flatland"), no_cycle_warnings=lambda *a: False))
    assert fast == divergence.prepare(flow, opts).warnings


def test_a_cycle_through_a_third_port_is_warned_about():
    """The wires of every port but a loop's body close cycles (as ``checks.cycle_problems`` reads
    them): a cycle through a node's third port is a cycle warning, not a loop."""
    from gindex_studio.core.flows.flow import flow_from_nodes

    for t in ("turn", "loop"):
        flow = flow_from_nodes([{"id": "a", "type": "move", "wires": [["b"]]},
                                {"id": "b", "type": t, "wires": [[], [], ["a"]]}])
        warnings = prepare(flow, ScoreOptions(profile="flatland")).warnings
        assert len(warnings) == 1 and warnings[0].startswith("cycle: 2 nodes wired in a loop"), warnings
