"""McSplit's symmetry breaking (``matching._symmetry_side``; the same in C): interchangeable
vertices (twins, and vertices with no neighbour left to match) are branched on once. Exact:
S equals an exhaustive search on flows built to be full of such vertices, in both searches,
which still walk the same tree (same node count)."""
from __future__ import annotations

import os
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.scoring import matching as M
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare
from tests.core.scoring.reference_impl import delta_brute


@st.composite
def twin_rich(draw, prefix: str, max_nodes: int = 6):
    """Function nodes with few distinct attributes: stars (a parent and identical leaves),
    short chains and isolated nodes, plus an odd node of another type."""
    nodes, k = [], 0

    def node(kind="function"):
        nonlocal k
        k += 1
        n = {"id": f"{prefix}{k}", "type": kind, "wires": [[]]}
        if kind == "function":
            n["func"] = draw(st.sampled_from(["a", "b"]))
            n["outputs"] = 1
        nodes.append(n)
        return n

    while len(nodes) < max_nodes:
        shape = draw(st.sampled_from(["star", "chain", "alone", "other"]))
        room = max_nodes - len(nodes)
        if shape == "star" and room >= 2:
            parent = node()
            for _ in range(draw(st.integers(1, room - 1))):
                parent["wires"][0].append(node()["id"])
        elif shape == "chain" and room >= 2:
            a, b = node(), node()
            a["wires"][0].append(b["id"])
        elif shape == "other":
            node("debug")
        else:
            node()
        if draw(st.booleans()):
            break
    return nodes


def _search(g1, g2, native: bool) -> M.Match:
    old = os.environ.get("GINDEX_PURE_PYTHON")
    os.environ["GINDEX_PURE_PYTHON"] = "0" if native else "1"
    try:
        return M.max_common_subgraph(g1, g2, "paper")
    finally:
        if old is None:
            del os.environ["GINDEX_PURE_PYTHON"]
        else:
            os.environ["GINDEX_PURE_PYTHON"] = old


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(twin_rich("a"), twin_rich("b"))
@pytest.mark.slow
def test_symmetry_keeps_s_exact(a, b):
    g1, g2 = prepare(flow_from_nodes(a)).graph, prepare(flow_from_nodes(b)).graph
    want = delta_brute(a, b, "paper")
    for native in ((True, False) if M.native.available() else (False,)):
        for x, y in ((g1, g2), (g2, g1)):
            m = _search(x, y, native)
            assert m.exact
            s = Fraction(*m.weight)
            got = 1 - s * s / (x.n * y.n) if x.n and y.n else Fraction(1)
            assert got == want
    if M.native.available():  # the same tree in C and in Python
        assert _search(g1, g2, True).nodes == _search(g1, g2, False).nodes


def test_twins_and_free_vertices_are_found():
    """A star with three identical leaves: the leaves are twins; the parent is not."""
    nodes = [{"id": "p", "type": "function", "func": "x", "wires": [["l1", "l2", "l3"]]}]
    nodes += [{"id": f"l{i}", "type": "function", "func": "y", "wires": [[]]} for i in (1, 2, 3)]
    g = prepare(flow_from_nodes(nodes)).graph
    other = prepare(flow_from_nodes([{"id": "q", "type": "function", "func": "y", "wires": [[]]}])).graph
    raw, w, _scale = M._weights(g, other, "paper", True)
    s = M._McSplit(g, other, w, _scale)
    leaves = [s.pos[g.ids.index(f"l{i}")] for i in (1, 2, 3)]
    parent = s.pos[g.ids.index("p")]
    assert len({s.tw1[i] for i in leaves}) == 1
    assert s.tw1[parent] not in {s.tw1[i] for i in leaves}


def test_symmetry_cuts_the_tree():
    """Seven isolated identical nodes against a chain of four plus three isolated nodes (S = 5 · 1/2:
    the chain gives two independent nodes): one branch per choice up to a swap. Before the
    symmetry this search took 2,243 nodes (39 the other way round)."""
    a = [{"id": f"a{i}", "type": "function", "func": "f", "outputs": 1, "wires": [[]]} for i in range(7)]
    b = [{"id": f"b{i}", "type": "function", "func": "g", "outputs": 1, "wires": [[f"b{i + 1}"]] if i < 3 else [[]]}
         for i in range(7)]
    g1, g2 = prepare(flow_from_nodes(a)).graph, prepare(flow_from_nodes(b)).graph
    for x, y, most in ((g1, g2, 102), (g2, g1, 13)):
        for native in ((True, False) if M.native.available() else (False,)):
            m = M._search_once(x, y, M.profiles.get("paper"), None, (), None, None) if native else None
            if not native:
                old = os.environ.get("GINDEX_PURE_PYTHON")
                os.environ["GINDEX_PURE_PYTHON"] = "1"
                try:
                    m = M._search_once(x, y, M.profiles.get("paper"), None, (), None, None)
                finally:
                    if old is None:
                        del os.environ["GINDEX_PURE_PYTHON"]
                    else:
                        os.environ["GINDEX_PURE_PYTHON"] = old
            assert m.exact and Fraction(*m.weight) == Fraction(5, 2)
            assert m.nodes == most
