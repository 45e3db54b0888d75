"""Independent, slow reference implementations of w and Δ written straight from scoring-spec §2-3.

They share no code with gindex_studio.core beyond reading node dicts, so agreement is evidence.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import networkx as nx

IGN = {"id", "type", "x", "y", "z", "wires", "name", "label", "group", "tab", "endpointUrl"}
PAPER_IGN = IGN | {"w", "h", "g", "l", "info"}


def json_equal(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def w_ref(u: dict, v: dict, profile: str) -> Fraction:
    if u["type"] != v["type"]:
        return Fraction(0)
    if profile == "paper":
        keys = (set(u) | set(v)) - PAPER_IGN
        if not keys:
            return Fraction(1)
        eq = sum(1 for k in keys if k in u and k in v and json_equal(u[k], v[k]))
        return Fraction(eq, len(keys))
    keys = [k for k in u if k not in IGN]
    if not keys:
        return Fraction(1)
    eq = 0
    for k in keys:
        a, b = u.get(k), v.get(k)
        if a is None and b is None:
            eq += 1
        elif (a is None) != (b is None):
            pass
        elif a == b:
            eq += 1
    return Fraction(eq, len(keys))


def graph_of(nodes: list[dict]):
    ids = []
    seen = set()
    vs = []
    for n in nodes:
        if n["id"] not in seen:
            seen.add(n["id"])
            vs.append(n)
            ids.append(n["id"])
    edges = set()
    for n in vs:
        wires = n.get("wires") or []
        ports = wires if all(isinstance(p, list) for p in wires) else [wires]
        for port in ports:
            for t in port:
                if t in seen:
                    edges.add((n["id"], t))
    return vs, edges


def _assoc(a_nodes, b_nodes, profile):
    va, ea = graph_of(a_nodes)
    vb, eb = graph_of(b_nodes)
    verts = []
    for u in va:
        for v in vb:
            if profile == "paper" and (((u["id"], u["id"]) in ea) != ((v["id"], v["id"]) in eb)):
                continue
            w = w_ref(u, v, profile)
            if w > 0:
                verts.append((u["id"], v["id"], w))

    def ok(p, q):
        (u1, v1, _), (u2, v2, _) = p, q
        if u1 == u2 or v1 == v2:
            return False
        f = ((u1, u2) in ea) == ((v1, v2) in eb)
        b = ((u2, u1) in ea) == ((v2, v1) in eb)
        return (f and b) if profile == "paper" else (f or b)

    return va, vb, verts, ok


def delta_brute(a_nodes, b_nodes, profile="paper") -> Fraction:
    """Exhaustive over all cliques of the association graph (small flows only)."""
    va, vb, verts, ok = _assoc(a_nodes, b_nodes, profile)
    if not va or not vb:
        return Fraction(1)
    best = Fraction(0)

    def rec(start, chosen, s):
        nonlocal best
        best = max(best, s)
        for i in range(start, len(verts)):
            if all(ok(verts[i], verts[j]) for j in chosen):
                chosen.append(i)
                rec(i + 1, chosen, s + verts[i][2])
                chosen.pop()

    rec(0, [], Fraction(0))
    return 1 - best * best / (len(va) * len(vb))


def delta_networkx(a_nodes, b_nodes, profile="paper") -> Fraction:
    """networkx.max_weight_clique on the association graph, weights scaled to integers."""
    va, vb, verts, ok = _assoc(a_nodes, b_nodes, profile)
    if not va or not vb:
        return Fraction(1)
    scale = 1
    for *_x, w in verts:
        scale = scale * w.denominator // math.gcd(scale, w.denominator)
    g = nx.Graph()
    for i, (_u, _v, w) in enumerate(verts):
        g.add_node(i, weight=int(w * scale))
    for i, j in itertools.combinations(range(len(verts)), 2):
        if ok(verts[i], verts[j]):
            g.add_edge(i, j)
    _clique, weight = nx.max_weight_clique(g, weight="weight")
    s = Fraction(weight, scale)
    return 1 - s * s / (len(va) * len(vb))
