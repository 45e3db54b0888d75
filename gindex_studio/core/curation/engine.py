"""Exact Δ between the programs of a curation workspace, searching as few pairs as it can.

``PairEngine`` holds the programs prepared once and answers these questions:

- ``delta(i, j)``: exact Δ(i as reference, j as generated);
- ``nearest(i, cols, groups)``: per group the column of least Δ from i, and that Δ (exact);
- ``within(rows, cols, limit)``: every pair with Δ ≤ limit (exact);
- ``estimate_many(pairs, deadline)``: (Δ, lower bound, exact) of a batch of pairs, each search
  cut after ``deadline`` seconds (the heatmap's matrix, coarse preview and domain summary).

How work is submitted, and how progress and cancelling are reported (the contract a distributed
back end, e.g. a Dask path, must keep):

- Every pair search goes through ``_search`` (one pair, with a threshold: "is Δ ≤ limit, and
  then what is it?") or ``estimate_many`` (a batch, a per-pair deadline). A back end that farms
  searches out replaces those two and keeps their results: exact values are handed to ``_store``
  (memory, and the disk cache on ``flush``), and ``stats`` counts what was searched or cached.
- The engine does not report progress itself. Callers submit work in units they can count (one
  program's ``nearest``, a block of ``within`` rows, one matrix row through ``estimate_many``) and
  report progress between units (``analysis.matrix_rows`` yields row by row; the UI jobs emit
  Qt signals from there). A back end may therefore block until a unit is complete.
- Cancelling: ``cancel`` is any object with ``is_set()`` (``matching.CancelToken``), given to the
  constructor or set on ``engine.cancel`` before work starts. A search in progress checks it; the
  engine then raises ``Cancelled`` out of whatever query is running. Values found before the
  cancel are kept (``flush`` still writes them).
- Indices are positions in the ``flows`` given to the constructor; the engine is not thread-safe:
  one engine per thread (the disk cache is shared safely).

A pair is searched only when a lower bound cannot rule it out. The bound, for every pair at once
(numpy and a sparse product), bounds S = Σ w over the mapping: a mapped pair has the same node
type (at most Σ_type min(count) pairs), w = 1 only for identical signatures in the paper profile
(at most Σ_signature min(count) such pairs), and any other pair of type t has w ≤ 1 − 1/K_t, K_t
the number of keys nodes of type t have anywhere in the workspace. So
S ≤ Σ_t (1 − 1/K_t)·Σ min(type counts) + Σ_signatures (1/K_t)·min(signature counts). A searched
pair gets the limit as its threshold, so the search stops once its own bound proves it cannot get
under it. Exact values are remembered in memory and, with a ``DeltaCache``, on disk.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np
from scipy import sparse

from gindex_studio.core.benchmark.curriculum import Cancelled  # the one exception every long computation raises when cancelled
from gindex_studio.core.scoring.divergence import ScoreOptions, delta_from_s, prepare
from gindex_studio.core.flows.flow import Flow
from gindex_studio.core.scoring.matching import max_common_subgraph
from gindex_studio.core.benchmark.matrix import races
from gindex_studio.core.curation.cache import DeltaCache, content_digest, options_key, symmetric

_MARGIN = 1e-9  # bounds are lowered by this much: float rounding can never make them too high
_INCLUSIVE = Fraction(1, 10**12)  # Δ ≤ limit asks the search for S² > (1 − limit)·n·n' − this


def _edge_pairs(graph, pair_ids: dict) -> tuple[dict[int, int], list[int]]:
    """Counts of a graph's edges (distinct ordered node pairs, any port) by (source type, target
    type) id, and each node's degree (edges touching it; a self-loop once)."""
    counts: dict[int, int] = {}
    deg = [0] * graph.n
    for u, targets in _targets(graph):
        for v in targets:
            k = pair_ids.setdefault((graph.sigs[u].type, graph.sigs[v].type), len(pair_ids))
            counts[k] = counts.get(k, 0) + 1
            deg[u] += 1
            if v != u:
                deg[v] += 1
    return counts, deg


def _targets(graph):
    """(u, u's targets ascending, any port) for u ascending: from the edge array while the graph
    is sparse (its bitsets, made by reading ``adj_out``, cost n² bits for a chain)."""
    if graph.sparse:
        e = graph.edge_array()  # (src, port, dst) sorted
        by_src: dict[int, set[int]] = {}
        for i in range(0, len(e), 3):
            by_src.setdefault(e[i], set()).add(e[i + 2])
        for u in sorted(by_src):
            yield u, sorted(by_src[u])
        return
    for u in range(graph.n):
        mask = 0
        for m in graph.adj_out[u].values():
            mask |= m
        targets = []
        while mask:
            low = mask & -mask
            targets.append(low.bit_length() - 1)
            mask ^= low
        yield u, targets


#: queries of ``nearest_many`` whose bounds are computed together (a block's bounds hold
#: this many rows × all programs of floats: 5 MB at 5,000 programs)
NEAREST_BLOCK = 128


class _MinSum:
    """Σ_g weight_g · min(c_ig, c_jg) for every pair of count vectors, as sparse products:
    min(a, b) = Σ_l (t_l − t_(l−1))·[a ≥ t_l]·[b ≥ t_l] over the distinct counts t_1 < t_2 < …
    (t_0 = 0): one level per distinct count, not per unit of the largest (a program of 20,000
    equal nodes made 20,000 levels, and curate took minutes)."""

    def __init__(self, counts: list[dict[int, int]], width: int, weights: np.ndarray | None = None):
        n, width = len(counts), max(1, width)
        w = weights if weights is not None else np.ones(width)
        self.levels = []
        below = 0
        for k in sorted({x for c in counts for x in c.values() if x > 0}):
            rows = [i for i, c in enumerate(counts) for g, x in c.items() if x >= k]
            cols = [g for c in counts for g, x in c.items() if x >= k]
            m = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, width))
            mt = sparse.csr_matrix((w[cols] * (k - below), (rows, cols)), shape=(n, width)).T.tocsc()
            self.levels.append((m, mt))
            below = k
        self.n = n

    def block(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((len(rows), self.n))
        for m, mt in self.levels:
            out += (m[rows] @ mt).toarray()
        return out


@dataclass
class NearestQuery:
    """Arguments of one ``PairEngine.nearest`` call (plain data: it may travel to a cluster)."""

    i: int
    cols: list[int]
    groups: list[int] | None = None
    n_groups: int = 1
    limit: Fraction | None = None


@dataclass
class PendingEstimates:
    """A batch of ``PairEngine.start_estimates``: its pairs in order and, with a pool, the pairs
    sent to it and the futures of their chunks."""

    pairs: list[tuple[int, int]]
    deadline: float | None
    search: list[tuple[int, int]] = field(default_factory=list)
    futures: list = field(default_factory=list)
    keys: list[tuple[int, int]] = field(default_factory=list)  # the cache key of each pair of ``search``


@dataclass
class Stats:
    """Work done: pairs considered, pairs whose Δ had to be searched, pairs found in the cache."""

    considered: int = 0
    searched: int = 0
    cached: int = 0


@dataclass
class KnownBlock:
    """Floats for a block of pairs: Δ (best found), proven lower bound, exact, and known at all."""

    values: np.ndarray
    lower: np.ndarray
    exact: np.ndarray
    have: np.ndarray


class PairEngine:
    """Programs prepared once for exact, bounded pair queries (indices are positions in ``flows``;
    ``digests``: their ``content_digest``s when already known)."""

    def __init__(self, flows: Sequence[Flow], options: ScoreOptions = ScoreOptions(),
                 cache: DeltaCache | None = None, library=None, cancel=None, digests: Sequence[int] | None = None):
        self.options = options
        self.cancel = cancel
        self.pool = None  # a pairpool.PairPool over ``prepared``: batches of estimates run on its workers
        self.progress: Callable[[int, int], None] | None = None  # (done, total) of the running batch
        self.cache = cache
        self.symmetric = symmetric(options)
        # a symmetric McSplit profile: searches without a limit race both orientations too (a
        # negative threshold_sq asks for no threshold), as the limited ones always do
        self._free = (-1, 1) if races(options.profile) else None
        self._flows = list(flows)
        self._library = library
        self._prepared: list | None = None
        self._tables = False
        self.digests = list(digests) if digests is not None else [content_digest(f) for f in flows]
        self.stats = Stats()
        self._opts = options_key(options)
        self._known: dict[tuple[int, int], Fraction] = {}
        self._asked: set[tuple[int, int]] = set()  # keys the disk cache was just asked for in bulk (``least``)
        self._new: list[tuple[int, int, Fraction]] = []
        self._new_exact: list[tuple[int, int, int, int]] = []  # (a, b, num, den): ``keep_exact``'s, not in memory
        self._estimates: dict[tuple[int, int], tuple[Fraction, Fraction, float]] = {}  # cut searches
        self._new_estimates: list[tuple[int, int, Fraction, Fraction, float]] = []

    @classmethod
    def from_prepared(cls, prepared: Sequence, options: ScoreOptions, digests: Sequence[int]) -> "PairEngine":
        """An engine over programs already prepared (a worker's: no flows, no disk cache)."""
        engine = cls([], options, digests=list(digests))
        engine._prepared = list(prepared)
        engine._n = len(prepared)
        return engine

    def __len__(self) -> int:
        return self.__dict__.get("_n", len(self._flows))

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
        prof = self.options.profile
        eps = np.zeros(tc.shape[1])
        if prof.key_fraction_weights:
            for t, k in types.items():
                eps[k] = 1.0 / len(keys_of[t]) if keys_of[t] else 0.0
        self._eps = eps
        sig_eps = np.zeros(max(1, len(sig_ids)))
        for (t, _items), g in sig_ids.items():
            sig_eps[g] = eps[types[t]]
        self._sig_min = _MinSum(sig_counts, len(sig_ids), sig_eps) if eps.any() else None
        # the induced-subgraph edge bound (a profile whose mapped edges correspond both ways: paper)
        self._edge_min = _MinSum(edge_counts, len(pair_ids)) if prof.induced_edges and pair_ids else None
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
        Edge bound (``Profile.induced_edges``: paper): the common subgraph is induced, so mapped edges correspond
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
        """Δ(i, j) if it is already known (computed here, or in the disk cache: looked up pair by
        pair, so a question about a few pairs never reads a large cache whole)."""
        key = self._key(i, j)
        v = self._known.get(key)
        if v is None and self.cache is not None and key not in self._asked:
            v = self.cache.get_one(self._opts, *key)
            if v is not None:
                self._known[key] = v
        return v

    def _cut(self, key: tuple[int, int]) -> tuple[Fraction, Fraction, float] | None:
        """The kept cut search of a pair (here or in the disk cache), if any."""
        est = self._estimates.get(key)
        if est is None and self.cache is not None:
            est = self.cache.get_estimate_one(self._opts, *key)
            if est is not None:
                self._estimates[key] = est
        return est

    def _store(self, i: int, j: int, value: Fraction) -> None:
        self._store_key(self._key(i, j), value)

    def _store_key(self, key: tuple[int, int], value: Fraction) -> None:
        """Remember an exact value by its digest key (written to the disk cache on ``flush``)."""
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
        threshold = self._free
        if limit is not None and limit < 1:
            threshold = (1 - limit) * n1 * n2 - (_INCLUSIVE if inclusive else 0)
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()
        m = max_common_subgraph(a.graph, b.graph, self.options.profile, threshold_sq=threshold, cancel=self.cancel)
        if m.cancelled:
            raise Cancelled()
        self.stats.searched += 1
        if threshold is not None and threshold is not self._free and not m.improved:
            return None
        value = delta_from_s(Fraction(*m.weight), n1, n2)
        self._store(i, j, value)
        return value

    def estimate(self, i: int, j: int, deadline: float | None, disk: bool = True) -> tuple[Fraction, Fraction, bool]:
        """(Δ, proven lower bound, exact) of (i, j) after at most ``deadline`` seconds of search
        (None: exact). A cut search gives the best mapping found: the true Δ lies in [lower, Δ].
        A pair already searched at least ``deadline`` seconds (here or, through the cache, in an
        earlier session) is not searched again. ``disk=False``: the disk cache was read for this
        pair already (``estimate_many`` reads a batch's pairs at once)."""
        key = self._key(i, j)
        v = self.known(i, j) if disk else self._known.get(key)
        if v is not None:
            self.stats.cached += 1
            return v, v, True
        cut = None if deadline is None else (self._cut(key) if disk else self._estimates.get(key))
        if cut is not None:
            v, lo, seconds = cut
            if seconds >= deadline:
                self.stats.cached += 1
                return v, lo, False
        a, b = self.prepared[i], self.prepared[j]
        if a.n == 0 or b.n == 0:
            self._store(i, j, Fraction(1))
            return Fraction(1), Fraction(1), True
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()
        m = max_common_subgraph(a.graph, b.graph, self.options.profile, deadline=deadline, cancel=self.cancel,
                                threshold_sq=self._free)
        if m.cancelled:
            raise Cancelled()
        self.stats.searched += 1
        value = delta_from_s(Fraction(*m.weight), a.n, b.n)
        if m.exact:
            self._store(i, j, value)
            return value, value, True
        lower = delta_from_s(Fraction(*m.upper), a.n, b.n)
        self.keep_cut(key, value, lower, deadline)
        return value, lower, False

    def keep_cut(self, key: tuple[int, int], value: Fraction, lower: Fraction, deadline: float) -> None:
        """What a search of cache key ``key`` cut at ``deadline`` seconds proved: Δ ≤ ``value``
        (a mapping found) and Δ ≥ ``lower``; kept in memory and for the disk cache."""
        self._estimates[key] = (value, lower, float(deadline))
        self._new_estimates.append((key[0], key[1], value, lower, float(deadline)))

    def known_matrix(self, rows: Sequence[int], cols: Sequence[int], deadline: float | None) -> KnownBlock:
        """What is known of Δ(rows[r], cols[c]) without searching: exact values, and cut searches
        at least ``deadline`` long (as ``estimate`` would return them), as float arrays. Reads the
        disk cache in bulk (after a ``flush``), so reopening a large matrix costs no per-pair work."""
        self.flush()
        rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        digests = np.array(self.digests, dtype=np.int64)
        wanted_r, wanted_c = digests[rows], digests[cols]
        ur, pos_r = np.unique(wanted_r, return_inverse=True)
        uc, pos_c = np.unique(wanted_c, return_inverse=True)
        wanted = set(ur.tolist()) | set(uc.tolist())
        snap = self.cache.best_snapshot(self._opts, np.array(sorted(wanted), dtype=np.int64)) if self.cache else None
        if snap is not None:
            sd, sv, sl, se, sec = snap
            hr, hc = np.searchsorted(sd, wanted_r), np.searchsorted(sd, wanted_c)
            in_r = (hr < len(sd)) & (sd[np.minimum(hr, len(sd) - 1)] == wanted_r)
            in_c = (hc < len(sd)) & (sd[np.minimum(hc, len(sd) - 1)] == wanted_c)
            if in_r.all() and in_c.all():  # reopening the same programs: one gather per array, nothing else
                grid = np.ix_(hr, hc)
                vals, low, exact_mask = sv[grid], sl[grid], se[grid]
                cut_ok = deadline is not None and sec is not None and sec >= deadline
                usable = ~np.isnan(vals) & (exact_mask | cut_ok)
                if usable.all():
                    return KnownBlock(vals, low, exact_mask, usable)
        vals, low = np.full((len(ur), len(uc)), np.nan), np.full((len(ur), len(uc)), np.nan)
        exact_mask = np.zeros(vals.shape, dtype=bool)
        involving = None
        if snap is not None:  # a kept matrix: its cells first, then the pairs it lacks from the tables
            sd, sv, sl, se, sec = snap
            cut_ok = deadline is not None and sec is not None and sec >= deadline
            usable = (se | cut_ok) & ~np.isnan(sv)
            hr, hc = np.searchsorted(sd, ur), np.searchsorted(sd, uc)
            in_r = (hr < len(sd)) & (sd[np.minimum(hr, len(sd) - 1)] == ur)
            in_c = (hc < len(sd)) & (sd[np.minimum(hc, len(sd) - 1)] == uc)
            sub = np.ix_(hr[in_r], hc[in_c])
            ok = usable[sub]
            for target, source in ((vals, sv), (low, sl)):
                block = target[np.ix_(in_r, in_c)]
                block[ok] = source[sub][ok]
                target[np.ix_(in_r, in_c)] = block
            block = exact_mask[np.ix_(in_r, in_c)]
            block[ok] = se[sub][ok]
            exact_mask[np.ix_(in_r, in_c)] = block
            involving = set(ur[~in_r].tolist()) | set(uc[~in_c].tolist())
        if self.cache is not None and involving == set():
            exact, cut = [], []
        elif self.cache is not None:
            exact, cut = self.cache.floats(self._opts, wanted, deadline, involving)
        else:
            exact = [(a, b, float(v)) for (a, b), v in self._known.items() if a in wanted and b in wanted]
            cut = [(a, b, float(v), float(lo)) for (a, b), (v, lo, sec) in self._estimates.items()
                   if deadline is not None and sec >= deadline and a in wanted and b in wanted]
        for table, is_exact in ((cut, False), (exact, True)):  # exact values win over cut searches
            if not table:
                continue
            columns = list(zip(*table))
            a, b = np.array(columns[0], dtype=np.int64), np.array(columns[1], dtype=np.int64)
            v = np.array(columns[2], dtype=float)
            lo = v if is_exact else np.array(columns[3], dtype=float)
            for x, y in ((a, b), (b, a)) if self.symmetric else ((a, b),):
                ir, ic = np.searchsorted(ur, x), np.searchsorted(uc, y)
                ok = (ir < len(ur)) & (ic < len(uc))
                ok[ok] &= (ur[ir[ok]] == x[ok]) & (uc[ic[ok]] == y[ok])
                vals[ir[ok], ic[ok]], low[ir[ok], ic[ok]] = v[ok], lo[ok]
                exact_mask[ir[ok], ic[ok]] = is_exact
        grid = np.ix_(pos_r, pos_c)
        vals, low, exact_mask = vals[grid], low[grid], exact_mask[grid]
        return KnownBlock(vals, low, exact_mask, ~np.isnan(vals))

    def save_matrix(self, order: Sequence[int], values: np.ndarray, lower: np.ndarray, exact: np.ndarray,
                    deadline: float | None) -> None:
        """Keep a complete square matrix (display ``order``, as ``known_matrix`` reads it back) in
        the disk cache, so the next ``known_matrix`` over these programs reads it whole."""
        if self.cache is None or not len(order):
            return
        digests = np.array(self.digests, dtype=np.int64)[np.asarray(order, dtype=np.int64)]
        uniq, first = np.unique(digests, return_index=True)
        grid = np.ix_(first, first)
        self.cache.put_snapshot(self._opts, uniq, values[grid], lower[grid], exact[grid], deadline)

    def estimate_many(self, pairs: Sequence[tuple[int, int]], deadline: float | None
                      ) -> list[tuple[Fraction, Fraction, bool]]:
        """``estimate`` of each pair, in order: the one place batches of pair searches are
        submitted (a distributed back end replaces this; see the module docstring). The disk
        cache is read once for the whole batch, not pair by pair; with a ``pool`` the searches
        run on its worker processes."""
        return self.finish_estimates(self.start_estimates(pairs, deadline))

    def start_estimates(self, pairs: Sequence[tuple[int, int]], deadline: float | None,
                        disk: bool = True) -> "PendingEstimates":
        """Begin ``estimate_many(pairs, deadline)``: with a ``pool`` (``pairpool.PairPool`` over
        this engine's ``prepared``), the pairs known neither here nor in the disk cache are sent
        to its workers now, so that several batches can be under way at once;
        ``finish_estimates`` waits for them and gives the results in order. ``disk=False``: the
        caller read the disk cache for these pairs already (``known_matrix``): it is not asked
        again (a value written there since is searched again: the same value)."""
        pairs = [(int(i), int(j)) for i, j in pairs]
        keys = [self._key(i, j) for i, j in pairs]
        if disk:
            self._prefetch(keys, deadline)
        if self.pool is None:
            return PendingEstimates(pairs, deadline)
        search, search_keys, seen = [], [], set()
        known, estimates = self._known, self._estimates if deadline is not None else {}
        sizes = self.__dict__.get("_sizes")
        if sizes is None:
            sizes = self.__dict__["_sizes"] = [p.n for p in self.prepared]
        for (i, j), key in zip(pairs, keys):
            if key in known or key in seen or not sizes[i] or not sizes[j]:
                continue
            cut = estimates.get(key)
            if cut is not None and cut[2] >= deadline:
                continue
            seen.add(key)
            search.append((i, j))
            search_keys.append(key)
        return PendingEstimates(pairs, deadline, search, self.pool.submit(search, deadline) if search else [],
                                search_keys)

    def finish_estimates(self, pending: "PendingEstimates") -> list[tuple[Fraction, Fraction, bool]]:
        """The results of a ``start_estimates`` batch, in its order (raises ``Cancelled`` once
        ``cancel`` is set: the pool's workers are stopped and the pool let go)."""
        deadline = pending.deadline
        fresh: dict[tuple[int, int], tuple[Fraction, Fraction, bool]] = {}
        if pending.futures:
            results = self.pool_results(pending.futures)
            self.stats.searched += len(results)
            known, new = self._known, self._new
            for pair, key, (num, den, lnum, lden, exact) in zip(pending.search, pending.keys, results):
                # the pool sends lowest terms: no gcd again
                value = Fraction(num, den, _normalize=False)
                lower = value if exact else Fraction(lnum, lden, _normalize=False)
                if exact:
                    if key not in known:  # ``_store_key``, inline: half a million calls in a matrix
                        known[key] = value
                        new.append((key[0], key[1], value))
                else:
                    self.keep_cut(key, value, lower, deadline)
                fresh[pair] = (value, lower, exact)
        out = []
        for i, j in pending.pairs:
            got = fresh.pop((i, j), None)  # a pair twice in the batch: searched once, then known
            out.append(got if got is not None else self.estimate(i, j, deadline, disk=False))
        return out

    def pool_results(self, futures: list) -> list:
        """The results of the pool's ``futures`` (chunks), in order, once all are done; raises
        ``Cancelled`` once ``cancel`` is set (the pool's workers are stopped, the pool let go)."""
        from gindex_studio.core.support.pools import Finished, done_result

        finished = Finished(futures)
        while True:
            if self.cancel is not None and self.cancel.is_set():
                self.stop_pool()
                raise Cancelled()
            if not finished.left:
                return [r for fut in futures for r in done_result(fut)]
            finished.next(0.05)

    def stop_pool(self) -> None:
        """Stop the worker pool at once (running searches included) and let it go."""
        if self.pool is not None:
            self.pool.stop()
            self.pool = None

    def _prefetch(self, keys: list[tuple[int, int]], deadline: float | None) -> None:
        """Read what the disk cache holds of ``keys`` (exact values; with ``deadline``, cut
        searches too) into memory, in one query each."""
        if self.cache is None:
            return
        missing = [k for k in keys if k not in self._known]
        if not missing:
            return
        self._known.update(self.cache.get_pairs(self._opts, missing))
        if deadline is not None:
            missing = [k for k in missing if k not in self._known and k not in self._estimates]
            if missing:
                self._estimates.update(self.cache.get_estimate_pairs(self._opts, missing))

    def keep_exact(self, values: list[tuple[int, int, int, int]]) -> None:
        """Exact Δ = num / den (lowest terms) of cache keys (a, b), for the disk cache only (not
        kept in memory: the caller holds them; ``matrix_rows_pooled``'s half a million)."""
        if self.cache is not None:
            self._new_exact.extend(values)

    def flush(self) -> None:
        """Write the values (and cut searches) found since the last flush to the disk cache."""
        if self.cache is not None:
            self.cache.put_exact(self._opts, [(a, b, v.numerator, v.denominator) for a, b, v in self._new]
                                 + self._new_exact)
            self.cache.put_estimates(self._opts, self._new_estimates)
        self._new, self._new_exact, self._new_estimates = [], [], []

    # ----- queries -----------------------------------------------------------------------------

    def nearest(self, i: int, cols: Sequence[int], groups: Sequence[int] | None = None, n_groups: int = 1,
                limit: Fraction | None = None, lower: np.ndarray | None = None) -> list[tuple[Fraction, int] | None]:
        """For each group g, (Δ, j) of least Δ(i, j) over j in ``cols`` with ``groups[k] == g``
        (ties: whichever is found first); None when the group is empty, or when ``limit`` is
        given and nothing in the group has Δ ≤ limit. ``lower``: ``bounds([i])[0]`` when the
        caller has it (``nearest_many`` computes them for a block of queries at once)."""
        cols = np.asarray(cols, dtype=np.int64)
        if groups is None:
            groups = np.zeros(len(cols), dtype=np.int64)
        groups = np.asarray(groups, dtype=np.int64)
        best: list[tuple[Fraction, int] | None] = [None] * n_groups
        if len(cols) == 0:
            return best
        lb = (self.bounds([i])[0] if lower is None else lower)[cols]
        order = np.argsort(lb, kind="stable")
        flimit = float(limit) if limit is not None else 2.0
        present = sorted(set(groups.tolist()))

        def settled(bound: float) -> bool:  # nothing at or beyond this bound can change any group
            return all(bound >= float(best[g][0]) if best[g] is not None else bound > flimit for g in present)

        try:
            for k in self._asking(i, cols, order):
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
        finally:
            self._asked.clear()
        return best

    def _asking(self, i: int, cols: np.ndarray, order: np.ndarray, first: int = 16, most: int = 1024):
        """The positions ``order`` in turn, the disk cache asked in one query for each run of
        them before it is visited (``first`` pairs, then four times as many each run, at most
        ``most``): a search that stops early asks for little, one that visits many pairs does
        not ask pair by pair. The caller clears ``_asked``."""
        size, start = first, 0
        while start < len(order):
            part = order[start:start + size]
            if self.cache is not None:
                keys = [self._key(i, int(j)) for j in cols[part].tolist()]
                self._prefetch(keys, None)
                self._asked.update(keys)
            yield from part.tolist()
            start += size
            size = min(most, size * 4)

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

    def least(self, rows: Sequence[int], cols: Sequence[int], start: tuple[Fraction, int, int] | None = None,
              lower: np.ndarray | None = None, block: int = 256, chunk: int = 2048) -> tuple[Fraction, int, int] | None:
        """The least exact Δ(i, j) over i in ``rows``, j in ``cols``, i ≠ j, with its pair (ties:
        whichever is found first); None when there is no such pair. ``start``: an exact value of
        one of those pairs already known (it bounds the search from the start). Pairs are
        searched in increasing order of their lower bound, each asked only to beat the least so
        far; the search stops at the first bound that cannot. ``lower``: ``bounds(rows)[:, cols]``
        when the caller has it."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        best = start
        if len(rows) == 0 or len(cols) == 0:
            return best
        if lower is None:
            lower = np.vstack([self.bounds(rows[k:k + block])[:, cols] for k in range(0, len(rows), block)])
        lower = np.array(lower, dtype=np.float64)
        lower[rows[:, None] == cols[None, :]] = np.inf  # i = j is no pair
        flat = lower.ravel()
        order = np.argsort(flat, kind="stable")
        m = len(cols)
        try:
            for start in range(0, len(order), chunk):
                part = order[start:start + chunk]
                bounds = flat[part].tolist()
                if not np.isfinite(bounds[0]) or (best is not None and bounds[0] >= float(best[0])):
                    break
                pairs = [(int(rows[f // m]), int(cols[f % m])) for f in part.tolist()]
                if self.cache is not None:  # the disk cache asked once for the chunk, not pair by pair
                    keys = [self._key(i, j) for i, j in pairs]
                    self._prefetch(keys, None)
                    self._asked.update(keys)
                for bound, (i, j) in zip(bounds, pairs):
                    if not math.isfinite(bound) or (best is not None and bound >= float(best[0])):
                        return best
                    if best is None:
                        v = self._search(i, j, None, inclusive=True)
                    else:
                        v = self._search(i, j, best[0], inclusive=False)
                    if v is not None and (best is None or v < best[0]):
                        best = (v, i, j)
        finally:
            self._asked.clear()
        return best

    # ----- batches (one call per analysis step; ``ClusterPairEngine`` spreads them over a cluster) --

    def nearest_many(self, queries: Sequence["NearestQuery"]) -> list[list[tuple[Fraction, int] | None]]:
        """``nearest`` for each query, in order; ``progress(done, total)`` after each. The bounds
        are computed for ``NEAREST_BLOCK`` queries at a time (one product, not one per query)."""
        out = []
        for start in range(0, len(queries), NEAREST_BLOCK):
            block = queries[start:start + NEAREST_BLOCK]
            lower = self.bounds([q.i for q in block])
            for k, (q, row) in enumerate(zip(block, lower), start + 1):
                out.append(self.nearest(q.i, q.cols, q.groups, q.n_groups, q.limit, row))
                self._report(k, len(queries))
        return out

    def deltas(self, pairs: Sequence[tuple[int, int]]) -> list[Fraction]:
        """Exact Δ of each (i, j) pair, in order."""
        out = []
        for k, (i, j) in enumerate(pairs, 1):
            out.append(self.delta(i, j))
            if k % 64 == 0 or k == len(pairs):
                self._report(k, len(pairs))
        return out

    def _report(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(done, total)

    def row(self, i: int, cols: Sequence[int]) -> list[Fraction]:
        """Exact Δ(i, j) for every j in ``cols``."""
        return [self.delta(i, int(j)) for j in cols]
