"""The native McSplit keeps a large graph's relations and partner sets as lists (issue 24, item 2).

From ``_mcsplit.set_sparse_from(n)`` kept vertices on (1,024 by default) ``search`` and ``solve``
build no W-word mask per relation, neighbourhood or weight level (their n² bits): the search tests
the same sets from lists. Above ``set_symmetry_pairs_upto(n)`` vertices (128) the symmetry tables
(twins, same partners) are found by sorting hashes instead of trying every pair. These tests force the lists on small pairs (``set_sparse_from(0)``) and
check that the search is the very same as with masks: S, mapping, proven bound, exactness, node
count, under thresholds, warm starts and node limits; and that a long chain whose every vertex can
match costs memory in its edges, not n².
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.flows.generate import perturb, random_flow
from gindex_studio.core import native
from gindex_studio.core.scoring import matching as M
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score

pytestmark = pytest.mark.skipif(not native.available(), reason="the native search is not in use")

ROOT = Path(__file__).resolve().parents[3]


@contextmanager
def sparse_from(n: int):
    old = native.EXTENSION.set_sparse_from(n)
    try:
        yield
    finally:
        native.EXTENSION.set_sparse_from(old)


def lists_and_masks(fn):
    """fn() with lists forced on every graph, then with masks on every graph."""
    with sparse_from(0):
        a = fn()
    with sparse_from(1 << 30):
        b = fn()
    return a, b


def key(m: M.Match):
    return (m.pairs, m.weight, m.upper, m.exact, m.nodes, m.improved)


def graphs(a, b, port_aware=False, profile="paper"):
    opts = ScoreOptions(port_aware=port_aware, profile=profile)
    return prepare(a, opts).graph, prepare(b, opts).graph


def pair(n: int, kind: str, seed: int):
    rng = random.Random(1000 * n + seed)
    a = random_flow(n, rng, "a")
    b = perturb(a, rng, 0.1) if kind == "near" else random_flow(n, random.Random(77 * seed + n), "b")
    return a, b


CASES = [(n, kind, s) for n in (10, 30, 70, 150) for kind in ("near", "far") for s in range(3)
         if not (kind == "far" and n > 30)]


@pytest.mark.parametrize("port_aware", [False, True])
@pytest.mark.parametrize("n,kind,seed", CASES)
@pytest.mark.slow
def test_lists_give_the_search_of_masks(n, kind, seed, port_aware):
    a, b = pair(n, kind, seed)
    g1, g2 = graphs(a, b, port_aware)
    sp, dn = lists_and_masks(lambda: M.max_common_subgraph(g1, g2))
    assert key(sp) == key(dn) and dn.exact
    # the general way: the weights dict and native.search (both orientations)
    w = M._weights(g1, g2, "paper", True)[1]
    sp, dn = lists_and_masks(lambda: M._NativeMcSplit(g1, g2, w, 1).run(-1, None))
    assert sp == dn
    # cut by node limits: the same node, best mapping and bound
    full = dn[4]
    for limit in (1, 3, max(1, full // 2), full + 1):
        sp, dn = lists_and_masks(lambda: M._search_once(g1, g2, "paper", None, (), None, None, limit))
        assert key(sp) == key(dn)


@pytest.mark.parametrize("n,kind,seed", [(30, "near", 1), (20, "far", 2), (70, "near", 0)])
def test_lists_give_the_search_of_masks_under_thresholds_and_warm_starts(n, kind, seed):
    a, b = pair(n, kind, seed)
    g1, g2 = graphs(a, b)
    first = M.max_common_subgraph(g1, g2)
    s_num, s_den = first.weight
    for t in ((s_num * 7 - 1, s_den * 7), (s_num, s_den), (s_num * 3 + s_den, s_den * 3), (0, 1)):
        sp, dn = lists_and_masks(lambda: M.max_common_subgraph(g1, g2, threshold=t))
        assert key(sp) == key(dn)
    full = [(u, v) for u, v, _ in first.pairs]
    for warm in (full, full[: len(full) // 2], []):
        sp, dn = lists_and_masks(lambda: M.max_common_subgraph(g1, g2, warm=warm))
        assert key(sp) == key(dn) and sp.weight == first.weight


@contextmanager
def symmetry_pairs_upto(n: int):
    old = native.EXTENSION.set_symmetry_pairs_upto(n)
    try:
        yield
    finally:
        native.EXTENSION.set_symmetry_pairs_upto(old)


@pytest.mark.parametrize("n,kind,seed", [(30, "near", 0), (30, "far", 1), (70, "near", 2), (150, "near", 0)])
def test_symmetry_tables_by_hashes_are_those_of_every_pair(n, kind, seed):
    """The twins and same-partner tables found by sorting hashes (large graphs) give the search of
    those found by trying every pair (small graphs), with masks and with lists."""
    a, b = pair(n, kind, seed)
    for port_aware in (False, True):
        g1, g2 = graphs(a, b, port_aware)
        with symmetry_pairs_upto(1 << 30):
            ref = M.max_common_subgraph(g1, g2)
        for lists in (0, 1 << 30):
            with sparse_from(lists), symmetry_pairs_upto(0):
                assert key(M.max_common_subgraph(g1, g2)) == key(ref)


def _twins(prefix: str, rng: random.Random) -> list[dict]:
    """A flow with many interchangeable nodes: fans of equal nodes, some wired to each other."""
    nodes = [{"id": f"{prefix}h", "type": "inject", "wires": [[f"{prefix}f{i}" for i in range(6)]]}]
    for i in range(6):
        nodes.append({"id": f"{prefix}f{i}", "type": "function", "name": f"x{rng.randrange(2)}",
                      "wires": [[f"{prefix}d{j}" for j in range(4) if rng.random() < 0.6]]})
    for j in range(4):
        nodes.append({"id": f"{prefix}d{j}", "type": "debug", "wires": [[f"{prefix}d{(j + 1) % 4}"]] if j % 2 else []})
    return nodes


@pytest.mark.parametrize("seed", range(6))
def test_symmetry_tables_by_hashes_on_flows_full_of_twins(seed):
    rng = random.Random(seed)
    g1, g2 = graphs(flow_from_nodes(_twins("a", rng)), flow_from_nodes(_twins("b", rng)), seed % 2 == 1)
    with symmetry_pairs_upto(1 << 30):
        ref = M.max_common_subgraph(g1, g2)
    for lists in (0, 1 << 30):
        with sparse_from(lists), symmetry_pairs_upto(0):
            assert key(M.max_common_subgraph(g1, g2)) == key(ref)


def test_score_reports_agree():
    a, b = pair(45, "near", 2)
    sp, dn = lists_and_masks(lambda: score(a, b))
    assert sp.to_dict() | {"seconds": 0} == dn.to_dict() | {"seconds": 0}


@st.composite
def ported_flows(draw, prefix="n"):
    """Small flows with up to three output ports per node, self-loops allowed."""
    n = draw(st.integers(0, 8))
    ids = [f"{prefix}{i}" for i in range(n)]
    nodes = []
    for i in range(n):
        wires = [draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)) for _ in range(draw(st.integers(1, 3)))]
        attrs = draw(st.dictionaries(st.sampled_from(["p", "q"]), st.sampled_from([0, 1, "x"]), max_size=2))
        nodes.append({"id": ids[i], "type": draw(st.sampled_from(["switch", "function", "debug"])), **attrs,
                      "wires": wires})
    return nodes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ported_flows("a"), ported_flows("b"), st.booleans(), st.booleans())
@pytest.mark.slow
def test_lists_give_the_search_of_masks_on_small_multi_port_flows(a, b, port_aware, hashed):
    g1, g2 = graphs(flow_from_nodes(a), flow_from_nodes(b), port_aware)
    with symmetry_pairs_upto(1 << 30):
        dn = M.max_common_subgraph(g1, g2)
    with sparse_from(0), symmetry_pairs_upto(0 if hashed else 1 << 30):
        sp = M.max_common_subgraph(g1, g2)
    assert key(sp) == key(dn)


_PEAK = r"""
import json, sys
from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.core.scoring.divergence import prepare, score_prepared

def kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])

n = int(sys.argv[1])
chain = [{"id": f"n{i}", "type": "function", "name": f"s{i % 5}", "wires": [[f"n{i + 1}"]] if i + 1 < n else [[]]}
         for i in range(n)]
other = [{"id": "f", "type": "function", "name": "s3", "wires": [["d"]]}, {"id": "d", "type": "debug", "wires": []}]
p1, p2 = prepare(flow_from_nodes(chain)), prepare(flow_from_nodes(other))
before = kb("VmRSS:")
r = score_prepared(p1, p2)
print(json.dumps({"grew_mb": (kb("VmHWM:") - before) / 1024, "exact": r.exact, "s": r.s_exact}))
"""


def test_a_chain_whose_every_vertex_can_match_costs_its_edges_not_n_squared():
    """30,000 function nodes against a flow with one: every chain vertex has a partner, so none is
    dropped; masks would take 30,000 × 469 words per relation, neighbourhood and weight level
    (about 450 MB). The search's own peak stays within a few tens of MB."""
    got = subprocess.run([sys.executable, "-c", _PEAK, "30000"], capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert got.returncode == 0, got.stderr
    out = json.loads(got.stdout)
    assert out["exact"] and out["s"] == "1"
    assert out["grew_mb"] < 60, out
