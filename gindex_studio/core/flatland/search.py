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
(flatland-spec §3). The branch vertex u is always a root of the remaining forest (a vertex is
decided only after its parent), so f(u, v) + (the other roots) bounds each child; of those roots
the search takes the one with the most at stake (``_stake``: best − f∅ plus the gap between its
best and second-best choice; ties: BFS order), a choice that cut the nodes of the hardest library
pair 2.6×. The children are tried by their bound, best first: partner v by f(u, v), "leave u
unmatched" by f∅(u) (ties: partners by index, then unmatched); trying "unmatched" always last
took car × worm twice the nodes (its optimum leaves the first branch vertex unmatched).
Before branching, every root with a single choice left that can still beat the incumbent (partner
v with f(x, v) + the other roots' best above it, or unmatched with f∅(x) + …) is forced: all
forced choices are taken at once, in one child node (``_forced``; a forced partner that an
earlier forced choice ruled out ends the node). That halved the nodes of the hardest library
pair (car × worm: 55,821 → 29,654).
The tree side is the graph whose root bound is smaller (ties: the reference's). A search with a threshold first checks the
type-count bound (numpy), then the root bound, before branching.

``max_common_subgraph`` has ``matching.max_common_subgraph``'s contract (the flatland profile's
``Profile.search``: that function sends its pairs here). Per-graph data (relations, BFS order, signature ids) is computed once per
``Graph``. The optional extension ``_flatsearch`` (``native.flat_search``) runs the same tree (same S, node count and
bound) in C; ``GINDEX_PURE_PYTHON`` forces the Python one.
"""
from __future__ import annotations

from array import array
import sys

import numpy as np

from gindex_studio.core import native
from gindex_studio.core.flatland.weights import weight_of_signatures
from gindex_studio.core.scoring.search_base import (
    BranchAndBound,
    consistent_subset,
    found_match,
    none_beats,
    threshold_floor,
)


MAX_VERTICES = 512  # above this on either side, ``matching``'s McSplit is used instead
_LIMIT = 1 << 62  # scaled weights and relations must stay below this (64-bit integers)


def fits(g1, g2) -> bool:
    """True when this search takes the pair (both graphs at most ``MAX_VERTICES``)."""
    return g1.n <= MAX_VERTICES and g2.n <= MAX_VERTICES


native_available = native.flat_available  # True when the search runs in C (``native.flat_search``)


def _bits(m: int):
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


_TYPE_IDS: dict[str, int] = {}
_SIG_IDS: dict[tuple, int] = {}  # (type, items) → id, for the weight cache below
_PAIR_W: dict[tuple[int, int], tuple[int, int]] = {}
_PAIR_W_LIMIT = 1_000_000


def _pair_weight(ia: int, ib: int, sa, sb) -> tuple[int, int]:
    key = (ia, ib)
    w = _PAIR_W.get(key)
    if w is None:
        if len(_PAIR_W) >= _PAIR_W_LIMIT:
            _PAIR_W.clear()
        w = _PAIR_W[key] = (0, 1) if sa.type != sb.type else weight_of_signatures(sa, sb)
    return w


class _Info:
    """What the search needs of one graph, computed once (cached on the Graph). The structure
    (``rel``, ``order``, ``parent``) comes from the C ``info`` as the search's buffers when the
    native search is in use; the Python lists are built only when read."""

    def __init__(self, g):
        self.n = g.n
        self._g = g
        self._native = None
        self._rel = None
        if native_available():
            got = native.flat_info(g.n, g.adj_out)
            if got is not None:
                self._native, self.max_rel = got[:3], got[3]
        if self._native is None:
            self._structure()
        keys: dict = {}
        self.reps = []  # one Signature per distinct (type, items)
        self.rep_ids = []  # its process-wide id (_SIG_IDS)
        idx = self.sig_list = []  # per vertex: its index in reps
        for s in g.sigs:
            k = (s.type, s.items)
            j = keys.get(k)
            if j is None:
                j = keys[k] = len(self.reps)
                self.reps.append(s)
                self.rep_ids.append(_SIG_IDS.setdefault(k, len(_SIG_IDS)))
            idx.append(j)
        self.sig_idx = np.array(idx, dtype=np.intp)
        self._sigs = g.sigs
        self._types = None
        self.columns: dict[int, np.ndarray] = {}  # weights to a signature id of another graph

    def _structure(self) -> None:
        """rel, max_rel and the BFS forest (order, parent), in Python."""
        g, n = self._g, self.n
        rel: list[dict[int, int]] = [dict() for _ in range(n)]  # rel[x][y]: x→y ports, y→x ports << 16
        for x, ports in enumerate(g.adj_out):
            rx = rel[x]
            for p, m in ports.items():
                bit = 1 << p
                while m:
                    low = m & -m
                    y = low.bit_length() - 1
                    m ^= low
                    if y != x:
                        rx[y] = rx.get(y, 0) | bit
                        ry = rel[y]
                        ry[x] = ry.get(x, 0) | (bit << 16)
        self._rel = rel
        self.max_rel = max((max(d.values()) for d in rel if d), default=0)
        seen = [False] * n
        order: list[int] = []
        parent = [-1] * n
        for r in sorted(range(n), key=lambda u: -len(rel[u])):  # stable: ties by index
            if seen[r]:
                continue
            seen[r] = True
            queue = [r]
            k = 0
            while k < len(queue):
                u = queue[k]
                k += 1
                for x in sorted(rel[u]):
                    if not seen[x]:
                        seen[x] = True
                        parent[x] = u
                        queue.append(x)
            order += queue
        self._order, self._parent = order, parent

    @property
    def rel(self) -> list[dict[int, int]]:
        if self._rel is None:
            self._structure()
        return self._rel

    @property
    def order(self) -> list[int]:
        if self._rel is None:
            self._structure()
        return self._order

    @property
    def parent(self) -> list[int]:
        if self._rel is None:
            self._structure()
        return self._parent

    @property
    def types(self) -> np.ndarray:
        """Per vertex: its type's process-wide id (for ``type_bound``)."""
        if self._types is None:
            self._types = np.array([_TYPE_IDS.setdefault(s.type, len(_TYPE_IDS)) for s in self._sigs], dtype=np.intp)
        return self._types

    def native(self):
        """(rel as n×n int64 bytes, order and parent as int32 bytes) for the C search."""
        if self._native is None:
            n = self.n
            rel = [0] * (n * n)
            for x, d in enumerate(self.rel):
                base = x * n
                for y, r in d.items():
                    rel[base + y] = r
            self._native = (array("q", rel).tobytes(), array("i", self.order).tobytes(),
                            array("i", self.parent).tobytes())
        return self._native


def info(g) -> _Info:
    got = g.__dict__.get("_flatland_info")
    if got is None:
        got = g.__dict__["_flatland_info"] = _Info(g)
    return got


SCALE = 720_000_000  # every flatland weight is a multiple of 1/SCALE (weights: turn k/360·10⁶, info /2)


def weights(i1: _Info, i2: _Info):
    """W = the n1 × n2 int64 matrix of weights · ``SCALE`` (0: different types or w = 0), or None
    when a weight is not a multiple of 1/SCALE (not a flatland weight) or a total would not fit
    64-bit integers. Columns per distinct g2 signature are kept on ``i1`` (Ω meets them again)."""
    if SCALE * (min(i1.n, i2.n) + 1) >= _LIMIT:
        return None
    cols = []
    columns = i1.columns
    memo = _PAIR_W
    for ib, sb in zip(i2.rep_ids, i2.reps):
        col = columns.get(ib)
        if col is None:
            vals = []
            for ia, sa in zip(i1.rep_ids, i1.reps):
                w = memo.get((ia, ib))
                num, den = w if w is not None else _pair_weight(ia, ib, sa, sb)
                if SCALE % den:
                    return None
                vals.append(num * (SCALE // den))
            col = columns[ib] = np.array(vals, dtype=np.int64)
        cols.append(col)
    if not cols or not i1.reps:
        return np.zeros((i1.n, i2.n), dtype=np.int64)
    table = np.stack(cols, axis=1)
    return table[i1.sig_idx][:, i2.sig_idx]


def type_bound(i1: _Info, i2: _Info, W: np.ndarray) -> int:
    """Σ over node types of min(Σ best w of each g1 node, Σ best w of each g2 node)."""
    if W.size == 0:
        return 0
    t1, t2 = i1.types, i2.types  # (registers their types first)
    k = len(_TYPE_IDS)
    a = np.bincount(t1, weights=W.max(axis=1), minlength=k)
    b = np.bincount(t2, weights=W.max(axis=0), minlength=k)
    return int(np.minimum(a, b).sum())  # exact: weights are integers far below 2^53 per type sum


class _Side(BranchAndBound):
    """The Python search with ``a`` as the tree side (``W``: a × b weights, a list of dicts)."""

    def __init__(self, ia: _Info, ib: _Info, rows: list[dict[int, int]]):
        self.n1, self.n2 = n1, n2 = ia.n, ib.n
        self.rows = rows
        self.rel1 = ia.rel
        self.nb2 = [dict() for _ in range(n2)]  # nb2[v][rel] = bitset of x with rel_B(v, x) = rel
        self.nbmask2 = [0] * n2
        for v in range(n2):
            for x, r in ib.rel[v].items():
                self.nb2[v][r] = self.nb2[v].get(r, 0) | (1 << x)
                self.nbmask2[v] |= 1 << x
        self.order, self.parent = ia.order, ia.parent
        self.pos = [0] * n1
        for i, u in enumerate(self.order):
            self.pos[u] = i
        self.children: list[list[int]] = [[] for _ in range(n1)]
        for u in self.order:
            if self.parent[u] >= 0:
                self.children[self.parent[u]].append(u)
        self.domains0 = [sum(1 << v for v in rows[u]) for u in range(n1)]

    def dp(self, D: list[int], decided: list[bool]):
        """f (per undecided vertex: {v: value}), f∅ and best, over the undecided vertices (a
        forest: a vertex is decided only after its parent)."""
        rows, nb2, rel1, children = self.rows, self.nb2, self.rel1, self.children
        f: dict[int, dict[int, int]] = {}
        fnone: dict[int, int] = {}
        best: dict[int, int] = {}
        for u in reversed(self.order):
            if decided[u]:
                continue
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
        _f, _n, best = self.dp(self.domains0, [False] * self.n1)
        return sum(best[u] for u in self.order if self.parent[u] < 0)

    def run(self, floor: int, budget=None):
        self.start(floor, budget)
        old = sys.getrecursionlimit()
        if old < self.n1 + 200:
            sys.setrecursionlimit(self.n1 + 200)
        try:
            exact = self.explore(self._search, 0, 0, self.domains0, [], [False] * self.n1)
        finally:
            sys.setrecursionlimit(old)
        return self.best, self.best_choice, self.proven(floor, exact), exact, self.nodes

    def _search(self, i: int, cur: int, D: list[int], mapping: list, decided: list[bool]):
        """``i`` vertices decided (matched or left out); ``decided`` says which."""
        self.visit(cur, mapping)
        if i == self.n1:
            return
        order, parent = self.order, self.parent
        f, fnone, best = self.dp(D, decided)
        roots = [u for u in order if not decided[u] and (parent[u] < 0 or decided[parent[u]])]
        total = sum(best[u] for u in roots)
        if cur + total <= self.best:
            return
        self.frames.append(cur + total)
        forced = _forced(roots, f, fnone, best, total, self.best - cur)
        if forced:
            self._force(i, cur, D, mapping, decided, forced)
            self.frames.pop()
            return
        u = max(roots, key=lambda x: (_stake(f[x], fnone[x], best[x]), -self.pos[x]))
        rest = total - best[u]
        # the children by their bound, best first (ties: partners by index, then unmatched)
        cand = sorted([*f[u].items(), (-1, fnone[u])], key=lambda t: (-t[1], t[0] < 0, t[0]))
        rel_u = self.rel1[u]
        later = [x for x in order if not decided[x] and x != u]
        row = self.rows[u]
        decided[u] = True
        for v, val in cand:
            if cur + val + rest <= self.best:
                break
            if v < 0:
                self._search(i + 1, cur, D, mapping, decided)
                continue
            keep = ~(1 << v)
            nbv = self.nb2[v]
            nonadj = keep & ~self.nbmask2[v]
            nd = list(D)
            for x in later:
                r = rel_u.get(x)
                nd[x] = D[x] & (nonadj if r is None else keep & nbv.get(r, 0))
            mapping.append((u, v))
            self._search(i + 1, cur + row[v], nd, mapping, decided)
            mapping.pop()
        decided[u] = False
        self.frames.pop()

    def _force(self, i: int, cur: int, D: list[int], mapping: list, decided: list[bool], forced) -> None:
        """Take every forced choice at once (in order; one child node): a partner no longer in its
        root's domain after the earlier ones means no better mapping below, and nothing is searched."""
        nd = list(D)
        gain = 0
        done = 0
        for x, v in forced:
            if v >= 0:
                if not (nd[x] >> v) & 1:
                    break
                rel_x = self.rel1[x]
                keep = ~(1 << v)
                nbv = self.nb2[v]
                nonadj = keep & ~self.nbmask2[v]
                for y in self.order:
                    if not decided[y] and y != x:
                        r = rel_x.get(y)
                        nd[y] &= nonadj if r is None else keep & nbv.get(r, 0)
                gain += self.rows[x][v]
                mapping.append((x, v))
            decided[x] = True
            done += 1
        else:
            self._search(i + done, cur + gain, nd, mapping, decided)
        for x, v in forced[:done]:
            decided[x] = False
            if v >= 0:
                mapping.pop()


def _forced(roots, f, fnone, best, total: int, need: int) -> list[tuple[int, int]]:
    """The roots with one choice left: (root, partner or −1 for unmatched), in BFS order. A choice
    (x, v) of root x can still beat the incumbent only if f(x, v) + (total − best(x)) > ``need``
    (the incumbent minus the current weight); likewise f∅(x) for leaving x unmatched."""
    out = []
    for x in roots:
        room = need - (total - best[x])
        only, count = -1, 1 if fnone[x] > room else 0
        for v, val in f[x].items():
            if val > room:
                count += 1
                only = v
                if count > 1:
                    break
        if count == 1:
            out.append((x, only))
    return out


def _stake(fu: dict[int, int], fnone: int, best: int) -> int:
    """How much rides on a vertex's choice: (best − f∅) + (best − the second best of f∅, f∅ and
    the f(u, v)); the search branches on the root of the remaining forest where it is largest."""
    f1 = f2 = fnone
    for y in fu.values():
        if y > f1:
            f1, f2 = y, f1
        elif y > f2:
            f2 = y
    return (best - fnone) + (f1 - f2)


def _rows(W: np.ndarray) -> list[dict[int, int]]:
    out = []
    for r in W:
        nz = np.flatnonzero(r)
        out.append({int(v): int(r[v]) for v in nz})
    return out


def run_search(i1: _Info, i2: _Info, W: np.ndarray, floor: int, budget=None):
    """Pick the tree side (smaller root bound) and search: (best, pairs as (g1, g2) indices or
    None, upper, exact, nodes, root bound). ``budget``: a ``Budget`` (None: nothing stops it)."""
    if native_available() and floor < _LIMIT and max(i1.max_rel, i2.max_rel) < _LIMIT:
        r1, o1, p1 = i1.native()
        r2, o2, p2 = i2.native()
        return native.flat_search(i1.n, i2.n, np.ascontiguousarray(W).tobytes(), r1, o1, p1, r2, o2, p2,
                                  floor, budget=budget)
    a = _Side(i1, i2, _rows(W))
    b = _Side(i2, i1, _rows(W.T))
    ra, rb = a.root_bound(), b.root_bound()
    swapped = rb < ra
    root = min(ra, rb)
    best, pairs, upper, exact, nodes = (b if swapped else a).run(floor, budget)
    if pairs is not None and swapped:
        pairs = [(v, u) for u, v in pairs]
    return best, pairs, min(upper, max(root, best)), exact, nodes, root


def max_common_subgraph(g1, g2, *, warm=(), threshold=None, threshold_sq=None, budget=None):
    """``matching.max_common_subgraph`` for the flatland profile (``budget``: its Budget, None: no
    limit); None when the pair is not for this search (too large, or weights that do not fit
    64-bit integers)."""
    if not fits(g1, g2):
        return None
    i1, i2 = info(g1), info(g2)
    W = weights(i1, i2)
    if W is None:
        return None
    scale = SCALE
    allowed = {(int(u), int(v)) for u, v in zip(*np.nonzero(W))} if warm else ()
    warm_pairs = consistent_subset(g1, g2, warm, allowed, "and") if warm else []
    warm_best = sum(int(W[u, v]) for u, v in warm_pairs) if warm_pairs else -1
    t_floor = threshold_floor(threshold, threshold_sq, scale)  # threshold_sq: a Fraction or (num, den), den > 0
    floor = max(warm_best, t_floor)
    if t_floor >= 0 and not warm_pairs:
        quick = type_bound(i1, i2, W)
        if quick <= t_floor:
            return none_beats(quick, scale)
    run = run_search(i1, i2, W, floor, budget)[:5]

    def weight(u: int, v: int) -> tuple[int, int]:
        return _pair_weight(i1.rep_ids[i1.sig_list[u]], i2.rep_ids[i2.sig_list[v]], g1.sigs[u], g2.sigs[v])

    return found_match(run, warm_best, warm_pairs, t_floor, scale, weight, budget)
