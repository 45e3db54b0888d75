"""The flatland profile's own search (core/flatland/search.py and its C twin): the same S as the
generic weighted McSplit of ``matching`` on random Flatland-like programs (chains of primitives
with loops, so cycles), the same tree in C and in Python, and a deadline-cut search that still
returns a valid interval."""
import random

import pytest

from gindex_studio.core.scoring import matching
from gindex_studio.core.scoring.search_base import consistent_subset, frac
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare
from gindex_studio.core.flatland import search as fs
from gindex_studio.core.flatland.program import FlatNode, FlatProgram
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file

OPTS = ScoreOptions(profile="flatland")


def random_program(rng: random.Random, n: int) -> FlatProgram:
    """A chain of n primitives from the start node; each loop's body is a short chain that leads
    back to it (a cycle); parameters from small sets so that equal and graded weights both occur."""
    nodes = {"__START__": FlatNode("__START__", "info", {"position": [rng.choice([10, 64]), 64],
                                                         "theta": rng.choice([0, 90])}, {})}
    prev, k = "__START__", 0

    def add(t, p):
        nonlocal k
        k += 1
        nid = f"n{k}"
        nodes[nid] = FlatNode(nid, t, p, {})
        return nid

    def prim():
        if rng.random() < 0.5:
            return add("move", {"dist": rng.choice([5, 10, 20]), "penup": rng.random() < 0.3})
        return add("turn", {"theta": rng.choice([1, 45, 90, -90, 180])})

    while k < n:
        if rng.random() < 0.2 and n - k >= 3:
            loop = add("loop", {"varname": "i", "start": 0, "end": rng.choice([4, 8, 360])})
            nodes[prev].targets.setdefault("out", []).append(loop)
            body = [prim() for _ in range(rng.randint(1, 2))]
            nodes[loop].targets["body"] = [body[0]]
            for a, b in zip(body, body[1:]):
                nodes[a].targets["out"] = [b]
            nodes[body[-1]].targets["out"] = [loop]
            prev = loop
        else:
            x = prim()
            nodes[prev].targets.setdefault("out", []).append(x)
            prev = x
    return FlatProgram(nodes)


def _graphs(a: FlatProgram, b: FlatProgram):
    return prepare(a.to_flow(), OPTS).graph, prepare(b.to_flow(), OPTS).graph


def _mcsplit_s(g1, g2):
    """S·D and D by the generic search (pure Python McSplit: exact, independent of flatland.search)."""
    raw, w, scale = matching._weights(g1, g2, "flatland", loops_must_agree=False)
    best, _pairs, _upper, exact, _nodes = matching._McSplit(g1, g2, w, scale).run(-1, None)
    assert exact
    return max(best, 0), scale


@pytest.mark.parametrize("seed", range(40))
def test_same_s_as_the_generic_search(seed):
    rng = random.Random(seed)
    a, b = random_program(rng, rng.randint(4, 12)), random_program(rng, rng.randint(4, 12))
    g1, g2 = _graphs(a, b)
    expected, scale = _mcsplit_s(g1, g2)
    m = matching.max_common_subgraph(g1, g2, "flatland")
    assert m.exact
    assert m.weight == frac(expected, scale)
    # the mapping is valid and adds up to S
    pairs = [(u, v) for u, v, _w in m.pairs]
    assert consistent_subset(g1, g2, pairs, {p: 1 for p in pairs}, "and") == pairs
    raw, w, _ = matching._weights(g1, g2, "flatland", loops_must_agree=False)
    assert sum(w[p] for p in pairs) == expected


@pytest.mark.skipif(not fs.native_available(), reason="the C extension is not built")
@pytest.mark.parametrize("seed", range(15))
def test_c_and_python_walk_the_same_tree(seed, monkeypatch):
    rng = random.Random(100 + seed)
    a, b = random_program(rng, rng.randint(8, 20)), random_program(rng, rng.randint(8, 20))
    g1, g2 = _graphs(a, b)
    i1, i2 = fs.info(g1), fs.info(g2)
    W = fs.weights(i1, i2)
    native = fs.run_search(i1, i2, W, -1, None)
    monkeypatch.setenv("GINDEX_PURE_PYTHON", "1")
    pure = fs.run_search(i1, i2, W, -1, None)
    assert native[0] == pure[0] and native[2:] == pure[2:]  # S, upper, exact, node count, root bound
    assert sorted(native[1]) == sorted(pure[1])
    # with a floor at S nothing is found, in both, after the same tree
    assert fs.run_search(i1, i2, W, native[0], None)[1] is None
    monkeypatch.setenv("GINDEX_PURE_PYTHON", "0")
    assert fs.run_search(i1, i2, W, native[0], None)[1] is None


@pytest.mark.parametrize("pure", ["0", "1"])
def test_library_pairs_match_the_generic_search_both_ways(pure, monkeypatch):
    monkeypatch.setenv("GINDEX_PURE_PYTHON", pure)
    progs = [load_file(LIBRARY_DIR / f"{n}.fbp") for n in ("circle", "square", "wheel", "stickfigure")]
    for p in progs:
        for q in progs:
            g1, g2 = _graphs(p, q)
            expected, scale = _mcsplit_s(g1, g2)
            m = matching.max_common_subgraph(g1, g2, "flatland")
            assert m.exact and m.weight == frac(expected, scale)


@pytest.mark.parametrize("pure", ["0", "1"])
def test_deadline_cut_search_keeps_a_valid_interval(pure, monkeypatch):
    monkeypatch.setenv("GINDEX_PURE_PYTHON", pure)
    rng = random.Random(7)
    a, b = random_program(rng, 18), random_program(rng, 20)
    g1, g2 = _graphs(a, b)
    exact = matching.max_common_subgraph(g1, g2, "flatland")
    cut = matching.max_common_subgraph(g1, g2, "flatland", deadline=0.0)
    f = lambda t: t[0] / t[1]  # noqa: E731
    assert f(cut.weight) <= f(exact.weight) <= f(cut.upper)
    if not cut.exact:
        assert cut.nodes < exact.nodes


def test_threshold_skips_or_beats(monkeypatch):
    rng = random.Random(3)
    a, b = random_program(rng, 15), random_program(rng, 15)
    g1, g2 = _graphs(a, b)
    m = matching.max_common_subgraph(g1, g2, "flatland")
    above = matching.max_common_subgraph(g1, g2, "flatland", threshold=m.weight)
    assert not above.improved and above.exact
    below = matching.max_common_subgraph(g1, g2, "flatland", threshold=(m.weight[0] - 1, m.weight[1]))
    assert below.improved and below.weight == m.weight


def test_forced_choices_that_conflict_end_the_node_and_s_stays_exact(monkeypatch):
    """Roots with one choice left are taken together; when an earlier forced partner rules out a
    later one the node ends. That case occurs on these programs, and S is still the generic one."""
    monkeypatch.setenv("GINDEX_PURE_PYTHON", "1")
    seen = {"forced": 0, "conflict": 0}
    real = fs._Side._force

    def watch(self, i, cur, D, mapping, decided, forced):
        seen["forced"] += 1
        before = len(mapping)
        real(self, i, cur, D, mapping, decided, forced)
        assert len(mapping) == before and not any(decided[x] for x, _ in forced)  # undone
        # replay: does a forced partner leave its root's domain after the earlier ones?
        nd, dec = list(D), list(decided)
        for x, v in forced:
            if v >= 0:
                if not (nd[x] >> v) & 1:
                    seen["conflict"] += 1
                    break
                for y in self.order:
                    if not dec[y] and y != x:
                        r = self.rel1[x].get(y)
                        nd[y] &= (~(1 << v) & ~self.nbmask2[v]) if r is None else ~(1 << v) & self.nb2[v].get(r, 0)
            dec[x] = True

    monkeypatch.setattr(fs._Side, "_force", watch)
    for seed in range(60):
        rng = random.Random(10000 + seed)
        a, b = random_program(rng, rng.randint(3, 14)), random_program(rng, rng.randint(3, 14))
        g1, g2 = _graphs(a, b)
        expected, scale = _mcsplit_s(g1, g2)
        m = matching.max_common_subgraph(g1, g2, "flatland")
        assert m.exact and m.weight == frac(expected, scale)
    assert seen["forced"] > 0 and seen["conflict"] > 0


@pytest.mark.skipif(not fs.native_available(), reason="the C extension is not built")
def test_c_info_builds_the_python_structure(monkeypatch):
    """``_flatsearch.info`` gives the buffers and max_rel the Python ``_Info`` builds, on random
    programs, on graphs with random wires (any direction, several ports, self-loops, both ways
    between two vertices), and on the 64-vertex edge; past 64 vertices or port 23 it declines."""
    rng = random.Random(11)
    graphs = [prepare(random_program(rng, rng.randint(1, 40)).to_flow(), OPTS).graph for _ in range(30)]
    for n in (1, 2, 5, 17, 63, 64):
        out = [{} for _ in range(n)]
        for _ in range(rng.randint(0, 3 * n)):
            x, y, p = rng.randrange(n), rng.randrange(n), rng.choice([0, 0, 1, 2, 23])
            out[x][p] = out[x].get(p, 0) | (1 << y)
        graphs.append(matching.Graph([str(k) for k in range(n)], [None] * n, out, [{} for _ in range(n)],
                                     [frozenset()] * n, 0))
    assert any(g.n == 64 and any(24 > p > 1 for d in g.adj_out for p in d) for g in graphs)
    for g in graphs:
        native = fs.native.flat_info(g.n, g.adj_out)
        python = object.__new__(fs._Info)
        python.n, python._g = g.n, g
        python._structure()
        python._native = None
        python_native = python.native()
        assert native[:3] == python_native and native[3] == python.max_rel
    big = [{0: 1 << 64}] + [{} for _ in range(64)]
    assert fs.native.flat_info(65, big) is None
    assert fs.native.flat_info(2, [{24: 2}, {}]) is None
    assert fs.native.flat_info(2, [{0: 4}, {}]) is None  # a target that is not a vertex
    monkeypatch.setenv("GINDEX_PURE_PYTHON", "1")
    g = graphs[0]
    assert fs._Info(g).native() == fs.native.flat_info(g.n, g.adj_out)[:3]
