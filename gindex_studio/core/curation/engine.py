"""Exact Δ between the programs of a curation workspace, searching as few pairs as it can.

``PairEngine`` holds the programs prepared once and answers three questions exactly:

- ``delta(i, j)``: Δ(i as reference, j as generated);
- ``nearest(i, cols, groups)``: per group the column of least Δ from i, and that Δ;
- ``within(rows, cols, limit)``: every pair with Δ ≤ limit.

A pair is searched only when a lower bound cannot rule it out. The bound, for every pair at once
(numpy and a sparse product), bounds S = Σ w over the mapping: a mapped pair has the same node
type (at most Σ_type min(count) pairs), w = 1 only for identical signatures in the paper profile
(at most Σ_signature min(count) such pairs), and any other pair of type t has w ≤ 1 − 1/K_t, K_t
the number of keys nodes of type t have anywhere in the workspace. So
S ≤ Σ_t (1 − 1/K_t)·Σ min(type counts) + Σ_signatures (1/K_t)·min(signature counts). A searched pair gets the limit as its threshold, so the
search stops once its own bound proves it cannot get under it. Exact values are remembered in
memory and, with a ``DeltaCache``, on disk.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np
from scipy import sparse

from ..divergence import ScoreOptions, delta_from_s, prepare
from ..flow import Flow
from ..matching import max_common_subgraph
from .cache import DeltaCache, content_digest, options_key, symmetric

_MARGIN = 1e-9  # bounds are lowered by this much: float rounding can never make them too high
_INCLUSIVE = Fraction(1, 10**12)  # Δ ≤ limit asks the search for S² > (1 − limit)·n·n' − this


def _edge_pairs(graph, pair_ids: dict) -> tuple[dict[int, int], list[int]]:
    """Counts of a graph's edges (distinct ordered node pairs, any port) by (source type, target
    type) id, and each node's degree (edges touching it; a self-loop once)."""
    counts: dict[int, int] = {}
    deg = [0] * graph.n
    for u in range(graph.n):
        mask = 0
        for m in graph.adj_out[u].values():
            mask |= m
        while mask:
            low = mask & -mask
            v = low.bit_length() - 1
            mask ^= low
            k = pair_ids.setdefault((graph.sigs[u].type, graph.sigs[v].type), len(pair_ids))
            counts[k] = counts.get(k, 0) + 1
            deg[u] += 1
            if v != u:
                deg[v] += 1
    return counts, deg


class _MinSum:
    """Σ_g weight_g · min(c_ig, c_jg) for every pair of count vectors, as sparse products:
    min(a, b) = Σ_k [a ≥ k]·[b ≥ k]."""

    def __init__(self, counts: list[dict[int, int]], width: int, weights: np.ndarray | None = None):
        n, width = len(counts), max(1, width)
        w = weights if weights is not None else np.ones(width)
        top = max((max(c.values(), default=0) for c in counts), default=0)
        self.levels = []
        for k in range(1, top + 1):
            rows = [i for i, c in enumerate(counts) for g, x in c.items() if x >= k]
            cols = [g for c in counts for g, x in c.items() if x >= k]
            m = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, width))
            mt = sparse.csr_matrix((w[cols], (rows, cols)), shape=(n, width)).T.tocsc()
            self.levels.append((m, mt))
        self.n = n

    def block(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((len(rows), self.n))
        for m, mt in self.levels:
            out += (m[rows] @ mt).toarray()
        return out


class Cancelled(Exception):
    """The engine's cancel token was set while it searched."""


@dataclass
class Stats:
    """Work done: pairs considered, pairs whose Δ had to be searched, pairs found in the cache."""

    considered: int = 0
    searched: int = 0
    cached: int = 0


class PairEngine:
    """Programs prepared once for exact, bounded pair queries (indices are positions in ``flows``)."""

    def __init__(self, flows: Sequence[Flow], options: ScoreOptions = ScoreOptions(),
                 cache: DeltaCache | None = None, library=None, cancel=None):
        self.options = options
        self.cancel = cancel
        self.cache = cache
        self.symmetric = symmetric(options)
        self._flows = list(flows)
        self._library = library
        self._prepared: list | None = None
        self._tables = False
        self.digests = [content_digest(f) for f in flows]
        self.stats = Stats()
        self._opts = options_key(options)
        self._known: dict[tuple[int, int], Fraction] = {}
        self._new: list[tuple[int, int, Fraction]] = []
        if cache is not None:
            self._known.update(cache.get_many(self._opts, self.digests))

    def __len__(self) -> int:
        return len(self._flows)

    @property
    def prepared(self) -> list:
        """The programs reduced for scoring (prepared on first use: a fully cached query needs none)."""
        if self._prepared is None:
            self._prepared = [prepare(f, self.options, self._library) for f in self._flows]
        return self._prepared

    # ----- bounds ------------------------------------------------------------------------------

    def _build_bound_tables(self) -> None:
        types: dict[str, int] = {}
        sig_ids: dict[tuple, int] = {}
        pair_ids: dict[tuple[str, str], int] = {}
        n = len(self.prepared)
        sig_counts, edge_counts, degrees = [], [], []
        keys_of: dict[str, set] = {}
        tc_rows = []
        for p in self.prepared:
            counts: dict[int, int] = {}
            tcount: dict[int, int] = {}
            for s in p.graph.sigs:
                g = sig_ids.setdefault((s.type, s.items), len(sig_ids))
                t = types.setdefault(s.type, len(types))
                counts[g] = counts.get(g, 0) + 1
                tcount[t] = tcount.get(t, 0) + 1
                keys_of.setdefault(s.type, set()).update(s.keys)
            sig_counts.append(counts)
            tc_rows.append(tcount)
            ec, deg = _edge_pairs(p.graph, pair_ids)
            edge_counts.append(ec)
            degrees.append(deg)
        self.sizes = np.array([p.n for p in self.prepared], dtype=np.int64)
        tc = np.zeros((n, max(1, len(types))), dtype=np.int32)
        for i, row in enumerate(tc_rows):
            for t, c in row.items():
                tc[i, t] = c
        self._type_counts = tc
        # ε_t = 1/K_t: what a non-identical pair of type t loses at least (0: w can reach 1 anyway)
        paper = self.options.profile == "paper"
        eps = np.zeros(tc.shape[1])
        if paper:
            for t, k in types.items():
                eps[k] = 1.0 / len(keys_of[t]) if keys_of[t] else 0.0
        self._eps = eps
        sig_eps = np.zeros(max(1, len(sig_ids)))
        for (t, _items), g in sig_ids.items():
            sig_eps[g] = eps[types[t]]
        self._sig_min = _MinSum(sig_counts, len(sig_ids), sig_eps) if eps.any() else None
        # the induced-subgraph edge bound (paper profile only: its edges correspond both ways)
        self._edge_min = _MinSum(edge_counts, len(pair_ids)) if paper and pair_ids else None
        self._n_edges = np.array([sum(c.values()) for c in edge_counts], dtype=np.float64)
        width = max((len(d) for d in degrees), default=0)
        cum = np.full((n, max(1, width)), np.inf)
        for i, d in enumerate(degrees):
            if d:
                cum[i, :len(d)] = np.cumsum(sorted(d, reverse=True))
        self._cum_degree = cum

    def bounds(self, rows: Sequence[int]) -> np.ndarray:
        """Lower bounds on Δ(i, j) for i in ``rows`` and every program j: shape (len(rows), n).

        Node bound: S ≤ Σ_t (1 − ε_t)·min(type counts) + Σ_signatures ε_t·min(signature counts).
        Edge bound (paper profile): the common subgraph is induced, so mapped edges correspond
        one to one with the types of their ends; the edges of i whose (type, type) pair i has more
        of than j (X = |E_i| − Σ_pairs min) each need an unmapped end, and covering X edges takes
        at least as many nodes as the largest degrees of i need to sum to X. Then
        S ≤ n_i − that many (likewise for j).
        """
        if not self._tables:
            self._build_bound_tables()
            self._tables = True
        rows = np.asarray(rows, dtype=np.int64)
        tc = self._type_counts
        s_ub = np.zeros((len(rows), len(self)), dtype=np.float64)
        for t in range(tc.shape[1]):
            col = tc[:, t]
            if not col[rows].any():
                continue
            s_ub += (1.0 - self._eps[t]) * np.minimum(col[rows][:, None], col[None, :])
        if self._sig_min is not None:
            s_ub += self._sig_min.block(rows)
        if self._edge_min is not None:
            shared = self._edge_min.block(rows)
            x_row = self._n_edges[rows][:, None] - shared
            x_col = self._n_edges[None, :] - shared
            cum = self._cum_degree
            unmapped_row = np.zeros_like(s_ub)
            for r, i in enumerate(rows):  # fewest nodes of i whose degrees sum to X
                x = x_row[r]
                unmapped_row[r] = np.where(x > 0.5, np.searchsorted(cum[i], x - 0.5, side="left") + 1, 0)
            # columns: count of prefix sums still short of X, plus one
            unmapped_col = np.where(x_col > 0.5, (cum[None, :, :] < (x_col[:, :, None] - 0.5)).sum(axis=2) + 1, 0)
            s_ub = np.minimum(s_ub, np.minimum(self.sizes[rows][:, None] - unmapped_row,
                                               self.sizes[None, :] - unmapped_col))
            s_ub = np.maximum(s_ub, 0.0)
        denom = (self.sizes[rows][:, None] * self.sizes[None, :]).astype(np.float64)
        lb = np.where(denom > 0, 1.0 - s_ub * s_ub / np.where(denom > 0, denom, 1.0), 1.0)
        return np.clip(lb, 0.0, 1.0) - _MARGIN

    # ----- exact values ------------------------------------------------------------------------

    def _key(self, i: int, j: int) -> tuple[int, int]:
        a, b = self.digests[i], self.digests[j]
        return (min(a, b), max(a, b)) if self.symmetric else (a, b)

    def known(self, i: int, j: int) -> Fraction | None:
        """Δ(i, j) if it is already known (computed or cached), else None."""
        return self._known.get(self._key(i, j))

    def _store(self, i: int, j: int, value: Fraction) -> None:
        key = self._key(i, j)
        if key not in self._known:
            self._known[key] = value
            self._new.append((key[0], key[1], value))

    def delta(self, i: int, j: int) -> Fraction:
        """Exact Δ(i as reference, j as generated)."""
        value = self._search(i, j, None, inclusive=True)
        assert value is not None
        return value

    def _search(self, i: int, j: int, limit: Fraction | None, inclusive: bool) -> Fraction | None:
        """Exact Δ(i, j) when it is below ``limit`` (≤ when ``inclusive``); None when proven not
        (a known value is returned whatever the limit)."""
        self.stats.considered += 1
        v = self.known(i, j)
        if v is not None:
            self.stats.cached += 1
            return v
        a, b = self.prepared[i], self.prepared[j]
        n1, n2 = a.n, b.n
        if n1 == 0 or n2 == 0:
            self._store(i, j, Fraction(1))
            return Fraction(1)
        threshold = None
        if limit is not None and limit < 1:
            threshold = (1 - limit) * n1 * n2 - (_INCLUSIVE if inclusive else 0)
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()
        m = max_common_subgraph(a.graph, b.graph, self.options.profile, threshold_sq=threshold, cancel=self.cancel)
        if m.cancelled:
            raise Cancelled()
        self.stats.searched += 1
        if threshold is not None and not m.improved:
            return None
        value = delta_from_s(Fraction(*m.weight), n1, n2)
        self._store(i, j, value)
        return value

    def estimate(self, i: int, j: int, deadline: float | None) -> tuple[Fraction, Fraction, bool]:
        """(Δ, proven lower bound, exact) of (i, j) after at most ``deadline`` seconds of search
        (None: exact). A cut search gives the best mapping found: the true Δ lies in [lower, Δ]."""
        v = self.known(i, j)
        if v is not None:
            self.stats.cached += 1
            return v, v, True
        a, b = self.prepared[i], self.prepared[j]
        if a.n == 0 or b.n == 0:
            self._store(i, j, Fraction(1))
            return Fraction(1), Fraction(1), True
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()
        m = max_common_subgraph(a.graph, b.graph, self.options.profile, deadline=deadline, cancel=self.cancel)
        if m.cancelled:
            raise Cancelled()
        self.stats.searched += 1
        value = delta_from_s(Fraction(*m.weight), a.n, b.n)
        if m.exact:
            self._store(i, j, value)
            return value, value, True
        return value, delta_from_s(Fraction(*m.upper), a.n, b.n), False

    def flush(self) -> None:
        """Write the values found since the last flush to the disk cache."""
        if self.cache is not None and self._new:
            self.cache.put_many(self._opts, self._new)
        self._new = []

    # ----- queries -----------------------------------------------------------------------------

    def nearest(self, i: int, cols: Sequence[int], groups: Sequence[int] | None = None, n_groups: int = 1,
                limit: Fraction | None = None) -> list[tuple[Fraction, int] | None]:
        """For each group g, (Δ, j) of least Δ(i, j) over j in ``cols`` with ``groups[k] == g``
        (ties: whichever is found first); None when the group is empty, or when ``limit`` is
        given and nothing in the group has Δ ≤ limit."""
        cols = np.asarray(cols, dtype=np.int64)
        if groups is None:
            groups = np.zeros(len(cols), dtype=np.int64)
        groups = np.asarray(groups, dtype=np.int64)
        best: list[tuple[Fraction, int] | None] = [None] * n_groups
        if len(cols) == 0:
            return best
        lb = self.bounds([i])[0][cols]
        order = np.argsort(lb, kind="stable")
        flimit = float(limit) if limit is not None else 2.0
        present = sorted(set(groups.tolist()))

        def settled(bound: float) -> bool:  # nothing at or beyond this bound can change any group
            return all(bound >= float(best[g][0]) if best[g] is not None else bound > flimit for g in present)

        for k in order:
            g, bound, j = int(groups[k]), float(lb[k]), int(cols[k])
            if j == i:
                continue
            cur = best[g]
            if cur is None:
                if bound > flimit:
                    if settled(bound):
                        break
                    continue
                v = self._search(i, j, limit, inclusive=True)
                if v is not None and (limit is None or v <= limit):
                    best[g] = (v, j)
            elif bound < float(cur[0]):
                v = self._search(i, j, cur[0], inclusive=False)
                if v is not None and v < cur[0]:
                    best[g] = (v, j)
            elif settled(bound):
                break
        return best

    def within(self, rows: Sequence[int], cols: Sequence[int], limit: Fraction,
               upper_only: bool = False, block: int = 128) -> list[tuple[int, int, Fraction]]:
        """Every (i, j, Δ(i, j)) with i in ``rows``, j in ``cols``, i ≠ j and Δ ≤ ``limit``, in row
        order. ``upper_only``: only pairs with i < j (one direction of a symmetric set)."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        flimit = float(limit)
        out = []
        for start in range(0, len(rows), block):
            part = rows[start:start + block]
            lb = self.bounds(part)[:, cols]
            for r, c in zip(*np.nonzero(lb <= flimit)):
                i, j = int(part[r]), int(cols[c])
                if i == j or (upper_only and i >= j):
                    continue
                v = self._search(i, j, limit, inclusive=True)
                if v is not None and v <= limit:
                    out.append((i, j, v))
        return out

    def row(self, i: int, cols: Sequence[int]) -> list[Fraction]:
        """Exact Δ(i, j) for every j in ``cols``."""
        return [self.delta(i, int(j)) for j in cols]
