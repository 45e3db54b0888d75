"""``flatland.score.prepare_program`` gives exactly ``divergence.prepare(program.to_flow())`` (graph,
signatures in key order, edges, warnings), on the library, random programs with loops, augmented
variants, and programs that must take the general way (a dangling target, a parameter named like a
layout key, a key that is not its node's id, a cycle through out wires, a self-loop, a body target
on a non-loop, out and body to one node, no nodes)."""
import random

import pytest

from gindex_studio.core.scoring.divergence import prepare
from gindex_studio.core.flatland import score as fscore
from gindex_studio.core.flatland.augment import variants
from gindex_studio.core.flatland.program import FlatNode, FlatProgram
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file

from test_flatland_search import random_program


def _same(p: FlatProgram) -> None:
    fast, full = fscore.prepare_program(p), prepare(p.to_flow(), fscore.OPTIONS)
    assert fast == full
    assert fast.warnings == full.warnings
    assert fast.edges == full.edges
    assert [list(s.values.items()) for s in fast.graph.sigs] == [list(s.values.items()) for s in full.graph.sigs]


@pytest.mark.parametrize("path", sorted(LIBRARY_DIR.glob("*.fbp")), ids=lambda p: p.name)
def test_library_programs_and_variants(path):
    p = load_file(path)
    _same(p)
    for q in variants(path, 3, seed=5):
        _same(q)


@pytest.mark.parametrize("seed", range(60))
def test_random_programs_with_loops(seed):
    rng = random.Random(seed)
    _same(random_program(rng, rng.randint(1, 25)))


def _plain():
    return {"__START__": FlatNode("__START__", "info", {"position": [10, 64], "theta": 0}, {"out": ["l"]}),
            "l": FlatNode("l", "loop", {"varname": "i", "start": 0, "end": 4}, {"out": ["t"], "body": ["m"]}),
            "m": FlatNode("m", "move", {"dist": 5, "penup": False}, {"out": ["l"]}),
            "t": FlatNode("t", "turn", {"theta": 90}, {"out": []})}


def _edit(change):
    nodes = _plain()
    change(nodes)
    return FlatProgram(nodes)


GENERAL = {
    "dangling": lambda n: n["t"].targets.update(out=["gone"]),
    "layout key": lambda n: n["m"].params.update(x=3),
    "key is not the id": lambda n: setattr(n["t"], "id", "other"),
    "cycle through out": lambda n: n["t"].targets.update(out=["__START__"]),
    "self-loop": lambda n: n["t"].targets.update(out=["t"]),
    "body on a non-loop": lambda n: n["m"].targets.update(body=["t"]),
    "out and body to one node": lambda n: n["l"].targets.update(body=["t"]),
    "no nodes": lambda n: n.clear(),
    "not a Flatland type": lambda n: setattr(n["t"], "type", "pen"),
    "cycle through out, long way round": lambda n: (n["t"].targets.update(out=["u"]),
                                                    n.update(u=FlatNode("u", "move", {"dist": 1, "penup": True},
                                                                        {"out": ["l"]}))),
}


@pytest.mark.parametrize("name", list(GENERAL))
def test_programs_that_take_the_general_way(name, monkeypatch):
    p = _edit(GENERAL[name])
    _same(p)
    calls = []
    real = fscore.prepare
    monkeypatch.setattr(fscore, "prepare", lambda *a, **k: calls.append(1) or real(*a, **k))
    fscore.prepare_program(p)
    # what the direct build would have to report goes the general way; a body target on a non-loop
    # (not a port of it) and one node behind both ports (one out edge) are built directly
    assert bool(calls) == (name not in ("body on a non-loop", "out and body to one node"))


def test_plain_program_is_built_directly(monkeypatch):
    monkeypatch.setattr(fscore, "prepare", lambda *a, **k: pytest.fail("took the general way"))
    assert fscore.prepare_program(FlatProgram(_plain())).n == 4


def test_equal_content_shares_a_signature_but_keeps_its_value_types():
    """Nodes with equal parameters share one Signature (a cache by content); 1, 1.0 and True, and
    [10, 64] against [10.0, 64.0], are different content: each node keeps its own values."""
    def program(dist, penup, position):
        nodes = _plain()
        nodes["m"].params.update(dist=dist, penup=penup)
        nodes["__START__"].params["position"] = position
        return FlatProgram(nodes)

    seen = []
    for dist, penup, position in [(1, False, [10, 64]), (1.0, 0, [10.0, 64.0]), (True, False, (10, 64.0))]:
        p = program(dist, penup, position)
        _same(p)
        sigs = fscore.prepare_program(p).graph.sigs
        assert [type(sigs[2].values["dist"]), type(sigs[2].values["penup"])] == [type(dist), type(penup)]
        assert [type(x) for x in sigs[0].values["position"]] == [type(x) for x in position]
        seen.append(sigs)
    again = fscore.prepare_program(program(1, False, [10, 64])).graph.sigs
    assert all(a is b for a, b in zip(again, seen[0]))
