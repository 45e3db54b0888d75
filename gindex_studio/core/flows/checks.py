"""Problems in a flow as the editor shows them: structure, types, cycles, JSON attributes.

``flow_problems(flow, library=None)`` is pure: it reads the flow as it is now (after edits, so
structural problems are recomputed rather than taken from the reader) and returns a list of
``Problem``. Problems the reader found that cannot be recomputed from the nodes (``syntax``: the
text the flow came from was not valid JSON) are kept.

>>> from gindex_studio.core.flows.flow import flow_from_nodes
>>> f = flow_from_nodes([{"id": "a", "type": "t", "wires": [["a"]]}])
>>> [p.kind for p in flow_problems(f)]
['self-loop']
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from gindex_studio.core.flows.flow import Flow, Problem
from gindex_studio.core.support import profiles

#: problem kinds recomputed from the nodes on every call
STRUCTURAL = frozenset({"duplicate-id", "invalid-node", "dangling-wire"})

#: node types that are not program nodes (never "unknown", never drawn as nodes)
WORKSPACE_TYPES = frozenset({"tab", "subflow", "group"})


def flow_problems(flow: Flow, library: Any = None) -> list[Problem]:
    """Every problem of ``flow``, in a stable order (file order of nodes).

    Kinds: ``invalid-node``, ``duplicate-id``, ``dangling-wire`` (recomputed), ``syntax`` (kept
    from the reader), ``self-loop``, ``cycle`` (one per loop, naming its nodes), and with a
    ``library``: ``unknown-type``, ``missing-config`` / ``wrong-config-type`` (an attribute that
    references a config node, see ``Attribute.ref``) and ``invalid-json-attribute`` (a ``json``-kind attribute, or a Node-RED typed value whose
    ``<key>Type`` is ``"json"``, holding a string that does not parse).
    """
    out: list[Problem] = [p for p in flow.problems if p.kind not in STRUCTURAL and p.kind not in _OURS]
    out.extend(structure_problems(flow))
    out.extend(cycle_problems(flow))
    if library is not None:
        out.extend(type_problems(flow, library))
        out.extend(config_problems(flow, library))
    out.extend(json_problems(flow, library))
    return out


_OURS = frozenset({"self-loop", "cycle", "unknown-type", "invalid-json-attribute", "missing-config",
                   "wrong-config-type"})


def structure_problems(flow: Flow) -> list[Problem]:
    """Invalid entries, duplicate ids and wires to missing nodes."""
    out: list[Problem] = []
    for i, _item in enumerate(flow.invalid):
        out.append(Problem("invalid-node", f"entry {len(flow.nodes) + i} is not a node object with a string id and type"))
    seen: set[str] = set()
    for n in flow.nodes:
        if n.id in seen:
            out.append(Problem("duplicate-id", f"duplicate id {n.id!r}: only the first node with it is used", n.id))
        seen.add(n.id)
    for src, _port, dst in flow.iter_wires():
        if dst not in seen:
            out.append(Problem("dangling-wire", f"wire to missing node {dst!r}", src))
    return out


def cycle_problems(flow: Flow) -> list[Problem]:
    """Self-loops, and one ``cycle`` problem per strongly connected group of two or more nodes.
    A flow made only of a profile's ``node_types`` is read under that profile's ``cycle_skip``
    (``profiles.cycle_skip_for``: in a Flatland flow a cycle through a loop's body port is the loop
    itself, not a problem): the wires it skips are left out; other cycles are still reported."""
    ids = flow.by_id()
    succ: dict[str, list[str]] = {i: [] for i in ids}
    out: list[Problem] = []
    skip = profiles.cycle_skip_for({n.type for n in ids.values()})
    for src, port, dst in flow.iter_wires():
        if dst not in ids:
            continue
        if skip is not None and skip(ids[src].type, port):
            continue
        if src == dst:
            out.append(Problem("self-loop", "wired to itself", src))
        else:
            succ[src].append(dst)
    for comp in _strong_components(succ):
        if len(comp) > 1:
            order = [i for i in ids if i in comp]
            names = " → ".join(node_caption(ids[i]) for i in order[:6]) + (" → …" if len(order) > 6 else "")
            out.append(Problem("cycle", f"{len(order)} nodes wired in a loop: {names}", order[0], tuple(order)))
    return out


def node_caption(node: Any) -> str:
    """How a problem names a node: its name, else its type (never a bare id)."""
    return f"\"{node.name}\"" if node.name else node.type


def _strong_components(succ: dict[str, list[str]]) -> Iterable[set[str]]:
    """Tarjan's algorithm, iterative (flows can be long chains)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    counter = 0
    for root in succ:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            recurse = False
            targets = succ[v]
            while i < len(targets):
                w = targets[i]
                i += 1
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                yield comp


def type_problems(flow: Flow, library: Any) -> list[Problem]:
    """Nodes whose type the library does not know (workspace types excepted)."""
    out = []
    for n in flow.vertex_nodes():
        if n.type in WORKSPACE_TYPES:
            continue
        if library.get(n.type) is None:
            out.append(Problem("unknown-type", f"unknown node type {n.type!r}", n.id))
    return out


def config_references(node: Any, library: Any) -> list[tuple[Any, str]]:
    """(attribute, id) for each attribute of ``node`` that references a config node and is set."""
    nt = library.get(node.type)
    if nt is None:
        return []
    out = []
    for a in nt.attributes:
        value = node.data.get(a.key)
        if getattr(a, "ref", "") and isinstance(value, str) and value:
            out.append((a, value))
    return out


def config_problems(flow: Flow, library: Any) -> list[Problem]:
    """References to config nodes (a receiver's ``bot``) that point nowhere or at the wrong type."""
    ids = flow.by_id()
    out = []
    for n in flow.vertex_nodes():
        for a, ref_id in config_references(n, library):
            target = ids.get(ref_id)
            label = a.label or a.key
            if target is None:
                out.append(Problem("missing-config", f"{label}: no {a.ref} node with id {ref_id!r} in this flow", n.id))
            elif target.type != a.ref:
                out.append(Problem("wrong-config-type",
                                   f"{label}: {node_caption(target)} is a {target.type}, not a {a.ref}", n.id))
    return out


def json_problems(flow: Flow, library: Any = None) -> list[Problem]:
    """String values that must be JSON and are not, with the parser's reason."""
    out = []
    for n in flow.vertex_nodes():
        keys: list[str] = []
        nt = library.get(n.type) if library is not None else None
        if nt is not None:
            keys = [a.key for a in getattr(nt, "attributes", ()) if a.kind == "json"]
        data = n.data
        for k, v in data.items():
            if isinstance(k, str) and k.endswith("Type") and v == "json" and k[:-4] in data:
                keys.append(k[:-4])
        for k in dict.fromkeys(keys):
            reason = json_error(data.get(k))
            if reason:
                out.append(Problem("invalid-json-attribute", f"{k}: not valid JSON ({reason})", n.id))
    return out


def json_error(value: Any) -> str | None:
    """Why a string is not JSON (``line 1 column 3: Expecting value``), or None if it is.

    Non-strings (already structured values) and empty strings are accepted.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        json.loads(value)
    except json.JSONDecodeError as e:
        return f"line {e.lineno} column {e.colno}: {e.msg}"
    except RecursionError:
        return "nested too deeply"
    return None


def closes_cycle(succ: list[int], back: list[tuple[int, int]]) -> bool:
    """True when the edges ``succ`` (per vertex the bitset of its successors, no self-loops) hold
    a cycle. A cycle runs backwards in vertex order somewhere, through one of its edges (k, j) with
    j < k, all of which ``back`` must list: so there is one iff some such j reaches k."""
    for k, j in back:
        seen = frontier = 1 << j
        while frontier:
            reach = 0
            while frontier:
                low = frontier & -frontier
                reach |= succ[low.bit_length() - 1]
                frontier ^= low
            if reach >> k & 1:
                return True
            frontier = reach & ~seen
            seen |= frontier
    return False
