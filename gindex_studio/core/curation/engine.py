"""Exact Δ between the programs of a curation workspace, searching as few pairs as it can.

``PairEngine`` holds the programs prepared once and answers three questions exactly:

- ``delta(i, j)``: Δ(i as reference, j as generated);
- ``nearest(i, cols, groups)``: per group the column of least Δ from i, and that Δ;
- ``within(rows, cols, limit)``: every pair with Δ ≤ limit.

A pair is searched only when a lower bound cannot rule it out. The bound, for every pair at once
(numpy and a sparse product), bounds S = Σ w over the mapping: a mapped pair has the same node
type (at most Σ_type min(count) pairs), w = 1 only for identical signatures in the paper profile
(at most Σ_signature min(count) such pairs), and any other same-type pair has w ≤ 1 − 1/|K| with
|K| ≤ kmax(i) + kmax(j) compared keys. A searched pair gets the limit as its threshold, so the
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
        self.prepared = [prepare(f, options, library) for f in flows]
        self.digests = [content_digest(f) for f in flows]
        self.stats = Stats()
        self._opts = options_key(options)
        self._known: dict[tuple[int, int], Fraction] = {}
        self._new: list[tuple[int, int, Fraction]] = []
        self._build_bound_tables()
        if cache is not None:
            self._known.update(cache.get_many(self._opts, self.digests))

    def __len__(self) -> int:
        return len(self.prepared)

    # ----- bounds ------------------------------------------------------------------------------

    def _build_bound_tables(self) -> None:
        types: dict[str, int] = {}
        sig_ids: dict[tuple, int] = {}
        n = len(self.prepared)
        per_prog = []
        for p in self.prepared:
            counts: dict[int, int] = {}
            for s in p.graph.sigs:
                g = sig_ids.setdefault((s.type, s.items), len(sig_ids))
                types.setdefault(s.type, len(types))
                counts[g] = counts.get(g, 0) + 1
            per_prog.append(counts)
        self.sizes = np.array([p.n for p in self.prepared], dtype=np.int64)
        tc = np.zeros((n, max(1, len(types))), dtype=np.int32)
        for i, p in enumerate(self.prepared):
            for s in p.graph.sigs:
                tc[i, types[s.type]] += 1
        self._type_counts = tc
        self._kmax = np.array([max((len(s.keys) for s in p.graph.sigs), default=0) for p in self.prepared],
                              dtype=np.float64)
        # Σ_g min(c_ig, c_jg) = Σ_k [c_ig ≥ k][c_jg ≥ k]: one 0/1 matrix per level k
        levels = max((max(c.values(), default=0) for c in per_prog), default=0)
        self._levels = []
        for k in range(1, levels + 1):
            rows, cols = [], []
            for i, c in enumerate(per_prog):
                for g, cnt in c.items():
                    if cnt >= k:
                        rows.append(i)
                        cols.append(g)
            m = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=(n, max(1, len(sig_ids))))
            self._levels.append((m, m.T.tocsc()))

    def bounds(self, rows: Sequence[int]) -> np.ndarray:
        """Lower bounds on Δ(i, j) for i in ``rows`` and every program j: shape (len(rows), n)."""
        rows = np.asarray(rows, dtype=np.int64)
        tc = self._type_counts
        same_type = np.zeros((len(rows), len(self)), dtype=np.float64)
        for t in range(tc.shape[1]):
            col = tc[:, t]
            if not col[rows].any():
                continue
            same_type += np.minimum(col[rows][:, None], col[None, :])
        if self.options.profile == "paper":
            identical = np.zeros_like(same_type)
            for m, mt in self._levels:
                identical += (m[rows] @ mt).toarray()
            kk = self._kmax[rows][:, None] + self._kmax[None, :]
            eps = np.where(kk > 0, 1.0 / np.where(kk > 0, kk, 1.0), 0.0)
            s_ub = identical + (same_type - identical) * (1.0 - eps)
        else:  # companion: w can be 1 between different signatures
            s_ub = same_type
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
