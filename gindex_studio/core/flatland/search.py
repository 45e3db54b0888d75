"""Exact maximum-weight common subgraph for the ``flatland`` profile: branch and bound with a
tree-DP bound.

Flatland programs are nearly paths (a chain of primitives; loops close short cycles) and the
graded weights give almost every same-type pair a positive weight, so McSplit's class bound
(Σ of best weights per label class) stays far above the optimum and the search explodes. This
search bounds with a relaxation that keeps the structure. Take a BFS spanning forest T of one
graph A (the "tree side"); for the unassigned vertices of A, with domains D(u) (the vertices of
the other graph B still compatible with every pair chosen so far, and unused):

    f(u, v) = w(u, v) + Σ_children c max(f∅(c), max{f(c, x) : x ∈ D(c), rel_B(v, x) = rel_A(u, c)})
    f∅(u)   = Σ_children c best(c),      best(u) = max(f∅(u), max_v f(u, v))

is the optimum when injectivity and every constraint not on a tree edge are dropped, so
Σ over roots best(r) bounds what the unassigned vertices can add. ``rel(x, y)`` is the pair
(ports of the edges x→y, ports of y→x): two pairs are compatible iff their relations are equal
(flatland-spec §3). Branching follows the BFS order, so the branch vertex u is always a root of
the remaining forest and f(u, v) + (the other roots) bounds each child: partners are tried by
descending f (ties: lower index), "leave u unmatched" last. The tree side is the graph whose
root bound is smaller (ties: the reference's).

``FlatSearch(g1, g2, w, scale).run(floor, stop_at, cancel)`` returns ``(best, pairs, upper,
exact, nodes)`` as the searches of ``matching`` do. The optional extension
``gindex_studio.core.flatland._flatsearch`` runs the same tree (same S, node count and bound) in C.
"""
from __future__ import annotations

import os
import sys
import time

try:
    from . import _flatsearch as _native
except ImportError:  # not compiled: the pure-Python search is used
    _native = None
if getattr(_native, "API_VERSION", None) != 1:
    _native = None

MAX_VERTICES = 512  # above this on either side, ``matching``'s McSplit is used instead
_NATIVE_LIMIT = 1 << 62


class _Stop(Exception):
    pass


def fits(g1, g2) -> bool:
    """True when this search is used for the pair (both graphs at most ``MAX_VERTICES``)."""
    return g1.n <= MAX_VERTICES and g2.n <= MAX_VERTICES


def native_available() -> bool:
    return _native is not None and os.environ.get("GINDEX_PURE_PYTHON", "0") in ("", "0")


def _bits(m: int):
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


def _relations(g) -> list[dict[int, int]]:
    """rel[x][y] for adjacent x ≠ y: the ports of x→y as bits, and those of y→x shifted by 16."""
    n = g.n
    ports_to: list[dict[int, int]] = [dict() for _ in range(n)]
    for x in range(n):
        for p, m in g.adj_out[x].items():
            for y in _bits(m):
                if y != x:
                    ports_to[x][y] = ports_to[x].get(y, 0) | (1 << p)
    rel: list[dict[int, int]] = [dict() for _ in range(n)]
    for x in range(n):
        for y, bits in ports_to[x].items():
            rel[x][y] = rel[x].get(y, 0) | bits
            rel[y][x] = rel[y].get(x, 0) | (bits << 16)
    return rel


class _Side:
    """The search with graph ``a`` as the tree side: rows of weights, relations, BFS order."""

    def __init__(self, a, b, w: dict):
        self.n1, self.n2 = n1, n2 = a.n, b.n
        rows: list[dict[int, int]] = [dict() for _ in range(n1)]
        for (u, v), wt in w.items():
            rows[u][v] = wt
        self.rows = rows
        self.rel1 = rel1 = _relations(a)
        rel2 = _relations(b)
        self.rel2 = rel2
        self.nb2 = [dict() for _ in range(n2)]  # nb2[v][rel] = bitset of x with rel_B(v, x) = rel
        self.nbmask2 = [0] * n2
        for v in range(n2):
            for x, r in rel2[v].items():
                self.nb2[v][r] = self.nb2[v].get(r, 0) | (1 << x)
                self.nbmask2[v] |= 1 << x
        seen = [False] * n1
        order: list[int] = []
        parent = [-1] * n1
        for r in sorted(range(n1), key=lambda u: (-len(rel1[u]), u)):
            if seen[r]:
                continue
            seen[r] = True
            queue = [r]
            k = 0
            while k < len(queue):
                u = queue[k]
                k += 1
                for x in sorted(rel1[u]):
                    if not seen[x]:
                        seen[x] = True
                        parent[x] = u
                        queue.append(x)
            order += queue
        self.order, self.parent = order, parent
        self.pos = [0] * n1
        for i, u in enumerate(order):
            self.pos[u] = i
        self.children: list[list[int]] = [[] for _ in range(n1)]
        for u in order:
            if parent[u] >= 0:
                self.children[parent[u]].append(u)
        self.domains0 = [sum(1 << v for v in rows[u]) for u in range(n1)]
        self.max_rel = max([r for d in rel1 + rel2 for r in d.values()], default=0)

    def dp(self, i: int, D: list[int]):
        """f (per remaining vertex: {v: value}), f∅ and best, over the vertices order[i:]."""
        rows, nb2, rel1, children = self.rows, self.nb2, self.rel1, self.children
        f: dict[int, dict[int, int]] = {}
        fnone: dict[int, int] = {}
        best: dict[int, int] = {}
        for u in reversed(self.order[i:]):
            row = rows[u]
            fu = {v: row[v] for v in _bits(D[u])}
            fn = 0
            for c in children[u]:
                fc, nc = f[c], fnone[c]
                fn += best[c]
                r = rel1[u][c]
                dc = D[c]
                for v in fu:
                    b = nc
                    m = nb2[v].get(r, 0) & dc
                    while m:
                        low = m & -m
                        x = fc[low.bit_length() - 1]
                        if x > b:
                            b = x
                        m ^= low
                    fu[v] += b
            f[u] = fu
            fnone[u] = fn
            bu = fn
            for val in fu.values():
                if val > bu:
                    bu = val
            best[u] = bu
        return f, fnone, best

    def root_bound(self) -> int:
        _f, _n, best = self.dp(0, self.domains0)
        return sum(best[u] for u in self.order if self.parent[u] < 0)

    def run(self, floor: int, stop_at: float | None, cancel=None):
        self.best = floor
        self.best_pairs = None
        self.nodes = 0
        self.stop = _stop_check(stop_at, cancel)
        self.frames: list[int] = []
        exact = True
        old = sys.getrecursionlimit()
        if old < self.n1 + 200:
            sys.setrecursionlimit(self.n1 + 200)
        try:
            self._search(0, 0, self.domains0, [])
        except _Stop:
            exact = False
        finally:
            sys.setrecursionlimit(old)
        upper = max([self.best, floor] + ([] if exact else self.frames))
        return self.best, self.best_pairs, upper, exact, self.nodes

    def _search(self, i: int, cur: int, D: list[int], mapping: list):
        self.nodes += 1
        if self.stop is not None and (self.nodes & 127) == 0 and self.stop():
            raise _Stop
        if cur > self.best:
            self.best = cur
            self.best_pairs = list(mapping)
        if i == self.n1:
            return
        order, parent, pos = self.order, self.parent, self.pos
        f, fnone, best = self.dp(i, D)
        total = 0
        for u in order[i:]:
            if parent[u] < 0 or pos[parent[u]] < i:
                total += best[u]
        if cur + total <= self.best:
            return
        self.frames.append(cur + total)
        u = order[i]
        rest = total - best[u]
        nu = fnone[u]
        cand = sorted(f[u].items(), key=lambda t: (-t[1], t[0]))
        rel_u = self.rel1[u]
        later = order[i + 1:]
        row = self.rows[u]
        for v, val in cand:
            if cur + val + rest <= self.best:
                break
            keep = ~(1 << v)
            nbv = self.nb2[v]
            nonadj = keep & ~self.nbmask2[v]
            nd = list(D)
            for x in later:
                r = rel_u.get(x)
                nd[x] = D[x] & (nonadj if r is None else keep & nbv.get(r, 0))
            mapping.append((u, v))
            self._search(i + 1, cur + row[v], nd, mapping)
            mapping.pop()
        if cur + nu + rest > self.best:
            self._search(i + 1, cur, D, mapping)
        self.frames.pop()

    def native_args(self):
        """The arrays ``_flatsearch.search`` takes (see the C file)."""
        w = [(u, v, wt) for u in range(self.n1) for v, wt in sorted(self.rows[u].items())]
        rel1 = [(u, x, r) for u in range(self.n1) for x, r in sorted(self.rel1[u].items())]
        rel2 = [(v, x, r) for v in range(self.n2) for x, r in sorted(self.rel2[v].items())]
        return self.n1, self.n2, w, rel1, rel2, self.order, self.parent


def _stop_check(stop_at, cancel):
    if cancel is None:
        if stop_at is None:
            return None
        return lambda: time.perf_counter() > stop_at
    if stop_at is None:
        return cancel.is_set
    return lambda: cancel.is_set() or time.perf_counter() > stop_at


class FlatSearch:
    """The search for one pair; ``run`` as ``matching``'s searches (pairs as (g1 index, g2 index))."""

    def __init__(self, g1, g2, w: dict, scale: int):
        a = _Side(g1, g2, w)
        b = _Side(g2, g1, {(v, u): wt for (u, v), wt in w.items()})
        self.root = (a.root_bound(), b.root_bound())
        self.swapped = self.root[1] < self.root[0]
        self.side = b if self.swapped else a
        self.total = sum(w.values())

    def run(self, floor: int, stop_at: float | None, cancel=None):
        side = self.side
        token = getattr(cancel, "flag", None)
        use_native = (native_available() and self.total < _NATIVE_LIMIT and floor < _NATIVE_LIMIT
                      and side.max_rel < _NATIVE_LIMIT and (cancel is None or token is not None))
        if use_native:
            remaining = None if stop_at is None else stop_at - time.perf_counter()
            best, pairs, upper, exact, nodes = _native.search(*side.native_args(), floor, remaining, token)
        else:
            best, pairs, upper, exact, nodes = side.run(floor, stop_at, cancel)
        upper = min(upper, max(min(self.root), best))
        if pairs is not None and self.swapped:
            pairs = [(v, u) for u, v in pairs]
        return best, pairs, upper, exact, nodes
