"""The ``flatland`` scoring profile (flatland-spec §3), registered with ``support.profiles``.

Flatland programs are flows of Flatland node types: graded weights per node type
(``flatland.weights``, an exact fraction with a small denominator); edges typed by their port
(out / body); Eq. 12 as written; self-loops dropped and a loop wired to one node by both ports
has one edge labelled ``out`` (the reference reads the first port that holds the target); a
cycle that runs only through loop bodies is no cycle warning (``cycle_skip``: the editor's
checks read a flow of ``NODE_TYPES`` only under it); its own exact search (``flatland.search``,
McSplit above ``search.MAX_VERTICES``); programs read by ``flatland.reading``.
"""
from __future__ import annotations

from gindex_studio.core.flows.checks import closes_cycle
from gindex_studio.core.flatland import SUFFIXES
from gindex_studio.core.flatland.weights import weight_of_signatures
from gindex_studio.core.support import profiles
from gindex_studio.core.support.profiles import Profile, register
from gindex_studio.core.scoring.similarity import IGNORED, Signature, canonical_python, make_signature

NAME = "flatland"
#: the node types of Flatland programs (the start node is an ``info``)
NODE_TYPES = frozenset({"info", "move", "turn", "loop"})


def flatland_signature(type_: str, values: dict) -> Signature:
    """The ``flatland`` profile's Signature of a node of type ``type_`` whose compared keys and
    values are ``values`` (the node dict without the ``IGNORED`` keys)."""
    # identity of the node's values (canonical_python, called only where it changes something)
    items = frozenset((k, canonical_python(v) if isinstance(v, (dict, list)) else v) for k, v in values.items())
    return make_signature(type_, values, items)


def signature(data: dict) -> Signature:
    return flatland_signature(str(data.get("type")), {k: v for k, v in data.items() if k not in IGNORED})


def search(g1, g2, **options):
    """``flatland.search.max_common_subgraph`` (imported on first use: it loads numpy, which the
    studio's first window does without)."""
    from gindex_studio.core.flatland.search import max_common_subgraph

    return max_common_subgraph(g1, g2, **options)


def skip_wire(src: str, port: int, target: str, ports: list) -> bool:
    """No self-loops; out and body to one target: one edge, labelled out, as the reference."""
    return target == src or (port == 1 and target in ports[0])


def cycle_skip(source_type: str, port: int) -> bool:
    """A loop's body wire (port 1): the loop itself, no cycle warning."""
    return port == 1 and source_type == "loop"


def no_cycle_warnings(nodes: list[dict], out: list[dict[int, int]], back: list) -> bool:
    """True when ``checks.cycle_problems`` finds nothing in a flow whose vertices are ``nodes``
    (no ignored types): every node a Flatland type, no self-loop, and no cycle through the wires
    that check reads, every port's but a loop's ``body`` (port 1). ``out``: this profile's
    out-adjacency (``prepare``: no self-loops, no body bit doubling an out wire), ``back``: its
    wires (k, j) with j <= k."""
    if not nodes or any(d["type"] not in NODE_TYPES for d in nodes):
        return False
    succ = []
    for d, ports in zip(nodes, out):
        body = 1 if d["type"] == "loop" else -1
        m = 0
        for p, bits in ports.items():
            if p != body:
                m |= bits
        succ.append(m)
    kept = []
    for k, j in back:
        if k == j:
            return False
        if succ[k] >> j & 1:
            kept.append((k, j))
    return not closes_cycle(succ, kept)


FLATLAND = register(Profile(
    name=NAME, ignored=IGNORED, signature=signature, weight=weight_of_signatures,
    description="Flatland programs: graded weights per node type, typed edges",
    adjacency="and", typed_edges=True,
    # w and S are symmetric here too, but the studio has never relied on it for Flatland
    # (matrices search both triangles); declaring it would change how much is searched
    symmetric=False,
    search=search, skip_wire=skip_wire, no_cycle_warnings=no_cycle_warnings,
    reader="gindex_studio.core.flatland.reading", suffixes=SUFFIXES,
    node_types=NODE_TYPES, cycle_skip=cycle_skip,
))


def reads_flatland(profile) -> bool:
    """True when ``profile`` (a name or a Profile) scores Flatland programs (the Flatland drawings,
    curricula and readers apply)."""
    return profiles.get(profile) is FLATLAND
