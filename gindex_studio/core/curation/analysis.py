"""What curation asks of Δ: near-duplicate groups, leaks, nearest neighbours, likely mislabels,
outliers, per-domain coverage, a clustering order and a 2-D map (issue 9).

Every function takes a ``PairEngine`` (or a full Δ matrix) and plain index lists and returns
dataclasses; all values are exact Δ (Fractions), found with as few searches as the engine's
bounds allow.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from gindex_studio.core.curation.engine import NearestQuery, PairEngine


# ----- near-duplicates -----------------------------------------------------------------------


@dataclass
class DuplicateGroup:
    """Programs linked by pairs with Δ ≤ the threshold (a connected group), members sorted.
    ``pairs``: the linking pairs (i < j, Δ); ``exact``: members with an identical twin (Δ = 0)."""

    members: list[int]
    pairs: list[tuple[int, int, Fraction]]
    exact: list[int] = field(default_factory=list)

    def nearest(self) -> dict[int, tuple[Fraction, int]]:
        """Each member's (Δ, nearest other member) over the group's linking pairs: the least Δ,
        ties to the lowest index; one pass (a group of g members has up to g² pairs)."""
        best: dict[int, tuple[Fraction, int]] = {}
        for a, b, v in self.pairs:
            for m, o in ((a, b), (b, a)):
                cand = (v, o)
                cur = best.get(m)
                if cur is None or cand < cur:
                    best[m] = cand
        return best


@dataclass
class DuplicateReport:
    groups: list[DuplicateGroup]  # largest first, then by first member
    threshold: Fraction
    pairs_total: int  # pairs among the members
    pairs_searched: int  # pairs whose Δ had to be searched (the rest: ruled out by bounds, or cached)


def duplicate_groups(engine: PairEngine, members: Sequence[int], threshold: Fraction) -> DuplicateReport:
    """Groups of ``members`` whose pairs with Δ ≤ ``threshold`` connect them (single linkage).

    For an asymmetric profile (companion) a pair counts when either direction is within."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    members = sorted(set(int(m) for m in members))
    before = engine.stats.searched
    found: dict[tuple[int, int], Fraction] = {}
    for i, j, v in engine.within(members, members, threshold, upper_only=engine.symmetric):
        a, b = min(i, j), max(i, j)
        found[(a, b)] = min(v, found.get((a, b), v))
    searched = engine.stats.searched - before
    n = len(engine)
    groups: list[DuplicateGroup] = []
    if found:
        rows, cols = zip(*found)
        graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
        _k, labels = connected_components(graph, directed=False)
        by_label: dict[int, list[int]] = {}
        for i in members:
            by_label.setdefault(int(labels[i]), []).append(i)
        for ms in by_label.values():
            if len(ms) < 2:
                continue
            mset = set(ms)
            pairs = sorted((a, b, v) for (a, b), v in found.items() if a in mset)
            exact = sorted({x for a, b, v in pairs if v == 0 for x in (a, b)})
            groups.append(DuplicateGroup(sorted(ms), pairs, exact))
    groups.sort(key=lambda g: (-len(g.members), g.members[0]))
    return DuplicateReport(groups, threshold, len(members) * (len(members) - 1) // 2, searched)


# ----- leaks and Ω -------------------------------------------------------------------------------


@dataclass
class Nearest:
    """Δ to the nearest program (None when there is none) and its index."""

    delta: Fraction | None
    index: int | None


def omega(engine: PairEngine, tests: Sequence[int], curriculum: Sequence[int],
          limit: Fraction | None = None) -> dict[int, Nearest]:
    """Ω(T', C) for each test program (as reference) against the curriculum programs, exact, with
    the nearest program. With ``limit``, only tasks with Ω ≤ limit get a value (the rest: None)."""
    tests = [int(t) for t in tests]
    queries = [NearestQuery(t, [int(c) for c in curriculum if c != t], limit=limit) for t in tests]
    out = {}
    for t, (best,) in zip(tests, engine.nearest_many(queries)):
        out[t] = Nearest(best[0], best[1]) if best else Nearest(None, None)
    return out


@dataclass
class Leak:
    task: int
    nearest: int
    delta: Fraction


def leaks(engine: PairEngine, tests: Sequence[int], curriculum: Sequence[int], threshold: Fraction,
          omegas: dict[int, Nearest] | None = None) -> list[Leak]:
    """Test programs whose nearest curriculum program has Δ ≤ ``threshold``, nearest first.
    ``omegas`` (from ``omega``) saves the search when already known."""
    if omegas is None:
        omegas = omega(engine, tests, curriculum, limit=threshold)
    out = [Leak(t, n.index, n.delta) for t, n in omegas.items()
           if t in set(tests) and n.delta is not None and n.delta <= threshold]
    return sorted(out, key=lambda x: (x.delta, x.task))


# ----- neighbours, mislabels, outliers ------------------------------------------------------


@dataclass
class Neighbours:
    """A program's nearest program in its own domain and in any other domain (None: none)."""

    index: int
    same: Nearest
    other: Nearest


def neighbours(engine: PairEngine, members: Sequence[int], domains: Sequence[str]) -> dict[int, Neighbours]:
    """For each member, its nearest other member of the same domain and of another domain."""
    members = [int(m) for m in members]
    queries = []
    for i in members:
        cols = [j for j in members if j != i]
        queries.append(NearestQuery(i, cols, [0 if domains[j] == domains[i] else 1 for j in cols], 2))
    out = {}
    for i, (same, other) in zip(members, engine.nearest_many(queries)):
        out[i] = Neighbours(i, Nearest(*same) if same else Nearest(None, None),
                            Nearest(*other) if other else Nearest(None, None))
    return out


def mislabels(nb: dict[int, Neighbours]) -> list[Neighbours]:
    """Programs strictly nearer to a program of another domain than to any of their own (a
    program alone in its domain is not judged), most suspicious (largest gap) first."""
    out = [n for n in nb.values() if n.same.delta is not None and n.other.delta is not None
           and n.other.delta < n.same.delta]
    return sorted(out, key=lambda n: (n.other.delta - n.same.delta, n.index))


def outliers(nb: dict[int, Neighbours], threshold: Fraction) -> list[Neighbours]:
    """Programs whose nearest program of their own domain has Δ ≥ ``threshold`` (far from
    everything in their domain), farthest first."""
    out = [n for n in nb.values() if n.same.delta is not None and n.same.delta >= threshold]
    return sorted(out, key=lambda n: (-n.same.delta, n.index))


# ----- coverage ------------------------------------------------------------------------------


@dataclass
class DomainCoverage:
    domain: str
    curriculum: int  # curriculum programs of the domain
    tests: int  # test programs of the domain
    mean_within: float | None  # mean Δ over pairs of the domain's curriculum programs (None: < 2)
    mean_omega: float | None  # mean Ω(T', C) of the domain's test programs (None: no tests)


def coverage(engine: PairEngine, domains: Sequence[str], curriculum: Sequence[int], tests: Sequence[int],
             omegas: dict[int, Nearest]) -> list[DomainCoverage]:
    """Per domain (sorted by name): counts, mean within-domain Δ of the curriculum, mean Ω."""
    names = sorted({domains[i] for i in list(curriculum) + list(tests)})
    cur_of = {d: [i for i in curriculum if domains[i] == d] for d in names}
    pairs_of = {}
    for d, cur in cur_of.items():
        pairs = [(a, b) for k, a in enumerate(cur) for b in cur[k + 1:]]
        pairs_of[d] = pairs if engine.symmetric else pairs + [(b, a) for a, b in pairs]
    values = iter(engine.deltas([p for d in names for p in pairs_of[d]]))  # one batch for every domain
    out = []
    for d in names:
        vals = [next(values) for _ in pairs_of[d]]
        within = float(sum(vals) / len(vals)) if vals else None
        oms = [omegas[t].delta for t in tests if domains[t] == d and t in omegas and omegas[t].delta is not None]
        mean_omega = float(sum(oms) / len(oms)) if oms else None
        out.append(DomainCoverage(d, len(cur_of[d]), sum(1 for t in tests if domains[t] == d), within, mean_omega))
    return out


# ----- order and map -------------------------------------------------------------------------


def cluster_order(matrix: np.ndarray, domains: Sequence[str]) -> list[int]:
    """A display order: domains ordered by average-linkage clustering of their mean Δ, programs
    within a domain by average-linkage clustering of Δ (scipy, optimal leaf order)."""
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    d = np.asarray(matrix, dtype=float)
    d = (d + d.T) / 2.0
    np.fill_diagonal(d, 0.0)
    names = sorted(set(domains))
    members = {n: [i for i, x in enumerate(domains) if x == n] for n in names}

    def order(sub: np.ndarray) -> list[int]:
        if len(sub) < 3:
            return list(range(len(sub)))
        link = linkage(squareform(sub, checks=False), method="average", optimal_ordering=True)
        return [int(x) for x in leaves_list(link)]

    between = np.array([[d[np.ix_(members[a], members[b])].mean() for b in names] for a in names])
    np.fill_diagonal(between, 0.0)
    out = []
    for k in order(between):
        ms = members[names[k]]
        out += [ms[x] for x in order(d[np.ix_(ms, ms)])]
    return out


def _sturm_count(alpha: list[float], beta2: list[float], x: float) -> int:
    """How many eigenvalues of the symmetric tridiagonal (alpha, √beta2) lie below x."""
    count, d = 0, 1.0
    for i, a in enumerate(alpha):
        d = a - x - (beta2[i - 1] / d if i else 0.0)
        if d == 0.0:
            d = -1e-300
        if d < 0.0:
            count += 1
    return count


def _tridiagonal_top(alpha: list[float], beta: list[float], k: int) -> list[tuple[float, np.ndarray]]:
    """The k largest eigenvalues of a symmetric tridiagonal matrix (bisection on Sturm counts)
    with unit eigenvectors (inverse iteration, each orthogonalised against the previous)."""
    m = len(alpha)
    beta2 = [b * b for b in beta]
    radius = [abs(beta[i - 1]) if i else 0.0 for i in range(m)]
    radius = [r + (abs(beta[i]) if i < m - 1 else 0.0) for i, r in enumerate(radius)]
    lo, hi = min(a - r for a, r in zip(alpha, radius)), max(a + r for a, r in zip(alpha, radius))
    scale = max(abs(lo), abs(hi), 1e-300)
    out: list[tuple[float, np.ndarray]] = []
    for idx in range(m - 1, m - 1 - min(k, m), -1):  # the idx-th smallest, largest first
        a, b = lo, hi
        for _ in range(200):
            mid = 0.5 * (a + b)
            if b - a <= 4e-16 * scale or mid in (a, b):
                break
            if _sturm_count(alpha, beta2, mid) > idx:
                b = mid
            else:
                a = mid
        value = 0.5 * (a + b)
        shift = value + 1e-10 * scale  # (T − shift) is non-singular; inverse iteration converges in a few steps
        x = np.ones(m)
        for _ in range(4):
            # Thomas algorithm on (T − shift) y = x
            c, dd = [0.0] * m, [0.0] * m
            piv = alpha[0] - shift
            c[0] = (beta[0] / piv) if m > 1 else 0.0
            dd[0] = x[0] / piv
            for i in range(1, m):
                piv = (alpha[i] - shift) - beta[i - 1] * c[i - 1]
                piv = piv if piv != 0.0 else 1e-300
                c[i] = (beta[i] / piv) if i < m - 1 else 0.0
                dd[i] = (x[i] - beta[i - 1] * dd[i - 1]) / piv
            y = [0.0] * m
            y[-1] = dd[-1]
            for i in range(m - 2, -1, -1):
                y[i] = dd[i] - c[i] * y[i + 1]
            x = np.array(y)
            for _v, prev in out:
                x = x - np.einsum("i,i->", x, prev) * prev
            x = x / np.sqrt(np.einsum("i,i->", x, x))
        out.append((value, x))
    return out


def top_eigenpairs(b: np.ndarray, k: int, tol: float = 1e-13) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest eigenvalues of the symmetric matrix ``b`` and their unit eigenvectors
    (columns), by Lanczos with full reorthogonalisation from a fixed start.

    Only numpy's own loops (einsum), never BLAS or LAPACK: their threaded OpenBLAS, called from a
    worker thread on a busy machine, took seconds for a 58 × 58 matrix (and hung test runs)."""
    n = len(b)
    k = min(k, n)
    basis = np.zeros((n, n))
    q = np.random.default_rng(0).standard_normal(n)
    q /= np.sqrt(np.einsum("i,i->", q, q))
    alpha: list[float] = []
    beta: list[float] = []
    norm = max(float(np.abs(b).sum(axis=1).max()), 1e-300)
    pairs: list[tuple[float, np.ndarray]] = []
    for j in range(n):
        basis[:, j] = q
        w = np.einsum("ij,j->i", b, q)
        alpha.append(float(np.einsum("i,i->", w, q)))
        v = basis[:, :j + 1]
        for _ in range(2):  # full reorthogonalisation (twice is enough)
            w = w - np.einsum("ij,j->i", v, np.einsum("ij,i->j", v, w))
        bj = float(np.sqrt(np.einsum("i,i->", w, w)))
        last = j == n - 1 or bj <= 1e-12 * norm
        if last or (j + 1 >= k and (j + 1) % 8 == 0):
            pairs = _tridiagonal_top(alpha, beta, k)
            if last or all(abs(bj * x[-1]) <= tol * norm for _v, x in pairs):
                break
        beta.append(bj)
        q = w / bj
    m = len(alpha)
    vals = np.array([v for v, _x in pairs])
    vecs = np.stack([np.einsum("ij,j->i", basis[:, :m], x) for _v, x in pairs], axis=1)
    return vals, vecs


def classical_mds(matrix: np.ndarray, dims: int = 2) -> np.ndarray:
    """Classical (Torgerson) MDS of a Δ matrix: points (n × dims) whose distances approximate Δ.
    Only the ``dims`` largest eigenpairs are computed (``top_eigenpairs``: no BLAS, so no
    threaded OpenBLAS spinning in a worker thread), the same points as a full eigh."""
    d = np.asarray(matrix, dtype=float)
    d = (d + d.T) / 2.0
    n = len(d)
    if n == 0:
        return np.zeros((0, dims))
    sq = d * d  # double centring, -½·J·D²·J without the n × n products
    b = -0.5 * (sq - sq.mean(axis=0)[None, :] - sq.mean(axis=1)[:, None] + sq.mean())
    vals, vecs = top_eigenpairs(b, dims)
    pts = vecs * np.sqrt(np.clip(vals, 0.0, None))
    if pts.shape[1] < dims:
        pts = np.hstack([pts, np.zeros((n, dims - pts.shape[1]))])
    for k in range(dims):  # a fixed orientation: the largest coordinate of each axis is positive
        col = pts[:, k]
        if len(col) and col[np.argmax(np.abs(col))] < 0:
            pts[:, k] = -col
    return pts


def arrangement_key(matrix: np.ndarray, domains: Sequence[str]) -> bytes:
    """A digest of everything ``arrange`` reads: the matrix's floats and the domains."""
    import hashlib

    h = hashlib.blake2b(digest_size=20)
    m = np.ascontiguousarray(matrix, dtype=np.float64)
    h.update(np.array(m.shape, dtype=np.int64).tobytes())
    h.update(m.tobytes())
    h.update("\x00".join(domains).encode())
    return h.digest()


def arrange(matrix: np.ndarray, domains: Sequence[str], cache=None) -> tuple[list[int], np.ndarray]:
    """``cluster_order`` and ``classical_mds`` of a complete matrix (program-index order); with a
    ``DeltaCache``, kept there and read back for the same matrix and domains."""
    key = arrangement_key(matrix, domains) if cache is not None else None
    kept = cache.get_arrangement(key) if cache is not None else None
    if kept is not None and len(kept[0]) == len(matrix):
        return [int(x) for x in kept[0]], kept[1].copy()
    order, points = cluster_order(matrix, domains), classical_mds(matrix)
    if cache is not None:
        cache.put_arrangement(key, order, points)
    return order, points


# ----- the full matrix, row by row -----------------------------------------------------------


@dataclass
class MatrixRow:
    """Δ(order[r], order[c]) for every display column c: values (the best found), proven lower
    bounds and whether each is exact (a per-pair deadline may cut a hard search)."""

    r: int
    values: np.ndarray
    lower: np.ndarray
    exact: np.ndarray


def _pipelined(rows: Iterable[int], start: Callable[[int], tuple[int, Any]], ahead_pairs: int):
    """Yield (r, job) for each r of ``rows`` in turn, where ``start(r)`` -> (pairs, job) set row
    r's searches going. Before a row is yielded the rows after it are started while fewer than
    ``ahead_pairs`` pairs are under way (0: none ahead), so the workers never wait for the next row."""
    pending: deque = deque()
    todo = iter(rows)
    in_flight = 0
    while True:
        while not pending or in_flight < ahead_pairs:
            r = next(todo, None)
            if r is None:
                break
            size, job = start(r)
            in_flight += size
            pending.append((r, size, job))
        if not pending:
            return
        r, size, job = pending.popleft()
        in_flight -= size
        yield r, job


def matrix_rows(engine: PairEngine, order: Sequence[int], deadline: float | None = None,
                rows: Sequence[int] | None = None, cols: Sequence[int] | None = None, ahead_pairs: int = 2048,
                disk_rows=None):
    """Yield a ``MatrixRow`` per display row (``rows``: which, default all, in turn): Δ(order[r],
    cols[c]) for every display column c (``cols`` default ``order``: the square matrix). For a
    symmetric profile each unordered pair is searched once: cells of earlier rows are reused.
    With ``engine.pool``, the searches of the rows ahead (up to ``ahead_pairs`` of them) are
    under way while a row is finished, so the workers never wait for the next row.
    ``disk_rows``: the display rows whose pairs the disk cache may hold (None: any); the others'
    are not looked up there (the caller read the cache for them already: ``known_matrix``)."""
    order = [int(x) for x in order]
    cols = order if cols is None else [int(x) for x in cols]
    n = len(cols)
    done: dict[tuple[int, int], tuple[float, float, bool] | None] = {}  # a row's cells for later rows

    def start(r: int):
        i = order[r]
        todo = [(i, j) for j in cols if not (engine.symmetric and i != j and (j, i) in done)]
        if engine.symmetric:
            for pair in todo:
                if pair[0] != pair[1]:
                    done[pair] = None  # reserved: later rows reuse it; its value comes with this row
        batch = engine.start_estimates(todo, deadline, disk=disk_rows is None or r in disk_rows)
        return len(batch.search), (i, todo, batch)

    ahead = ahead_pairs if engine.pool is not None else 0
    for r, (i, todo, batch) in _pipelined(range(len(order)) if rows is None else rows, start, ahead):
        fresh = dict(zip(todo, engine.finish_estimates(batch)))
        vals, low, ex = [], [], []
        symmetric = engine.symmetric
        for j in cols:
            res = fresh.get((i, j))
            keep = res is not None and symmetric and i != j
            if res is None:
                cell = done.pop((j, i), None)  # the floats an earlier row kept for this row
                if cell is None:  # a program shown twice: its value is known by now
                    res = engine.estimate(i, j, deadline)
            if res is not None:
                v, lo = res[0], res[1]  # num / den: float() of the Fraction without its generic dispatch
                cell = (v.numerator / v.denominator, lo.numerator / lo.denominator, res[2])
                if keep:
                    done[(i, j)] = cell
            vals.append(cell[0])
            low.append(cell[1])
            ex.append(cell[2])
        yield MatrixRow(r, np.array(vals, dtype=np.float64), np.array(low, dtype=np.float64), np.array(ex, dtype=bool))


def matrix_rows_pooled(engine: PairEngine, order: Sequence[int], rows: Sequence[int], values: np.ndarray,
                       lower: np.ndarray, exact: np.ndarray, have: np.ndarray, deadline: float | None = None,
                       ahead_pairs: int = 2048):
    """``matrix_rows(engine, order, deadline, rows)`` of the square matrix for a symmetric profile
    on ``engine.pool``, with this process's work per pair cut to what the disk cache needs (a
    1,000-program matrix is half a million searches: the per-pair bookkeeping of ``matrix_rows``
    took a core a third of the time its two workers searched).

    ``values``, ``lower``, ``exact`` (n × n, display order) hold what is known where ``have`` is
    True, and the complete display rows before each row of ``rows`` (increasing); each row of
    ``rows`` is written there, then yielded. Its searches are the cells on and right of the
    diagonal it lacks (up to ``ahead_pairs`` of them under way while a row is finished); the
    cells left of it are those of the earlier rows, transposed. Exact values go to the disk
    cache (``keep_exact``), not to the engine's memory; cut searches are kept as ``estimate``
    keeps them."""
    order = np.asarray(order, dtype=np.int64)
    digests = np.asarray(engine.digests, dtype=np.int64)[order]

    def start(r: int):
        cs = np.flatnonzero(~have[r, r:]) + r
        i = int(order[r])
        pairs = [(i, j) for j in order[cs].tolist()]
        return len(pairs), (cs, engine.pool.submit(pairs, deadline) if pairs else [])

    for r, (cs, futures) in _pipelined(rows, start, ahead_pairs):
        results = engine.pool_results(futures)
        engine.stats.searched += len(results)
        if results:
            nums, dens, lnums, ldens, ex = zip(*results)
            values[r, cs] = [n / d for n, d in zip(nums, dens)]
            lower[r, cs] = [n / d for n, d in zip(lnums, ldens)]
            exact[r, cs] = ex
            a = np.minimum(digests[r], digests[cs]).tolist()
            b = np.maximum(digests[r], digests[cs]).tolist()
            if all(ex):
                engine.keep_exact(list(zip(a, b, nums, dens)))
            else:
                engine.keep_exact([row for row, e in zip(zip(a, b, nums, dens), ex) if e])
                for k in np.flatnonzero(~np.asarray(ex, dtype=bool)).tolist():
                    engine.keep_cut((a[k], b[k]), Fraction(nums[k], dens[k]), Fraction(lnums[k], ldens[k]), deadline)
        left = np.flatnonzero(~have[r, :r])  # from the earlier rows' cells, transposed
        values[r, left], lower[r, left], exact[r, left] = values[left, r], lower[left, r], exact[left, r]
        yield MatrixRow(r, values[r], lower[r], exact[r])


def coarse_matrix(engine: PairEngine, order: Sequence[int], samples: int = 24,
                  deadline: float | None = None, cols: Sequence[int] | None = None) -> np.ndarray:
    """A quick preview: Δ on a grid of about ``samples`` × ``samples`` display positions, each
    value filling its block (shape rows × columns, in display order; ``cols`` default ``order``)."""
    order = [int(x) for x in order]
    cols = order if cols is None else [int(x) for x in cols]
    n, m = len(order), len(cols)
    out = np.empty((n, m))
    if n == 0 or m == 0:
        return out
    rstep, cstep = max(1, -(-n // samples)), max(1, -(-m // samples))
    pairs = [(a, b) for a in range(0, n, rstep) for b in range(0, m, cstep)]
    for (a, b), res in zip(pairs, engine.estimate_many([(order[a], cols[b]) for a, b in pairs], deadline)):
        out[a:a + rstep, b:b + cstep] = float(res[0])
    return out


# ----- the domain × domain summary (above the full matrix's size) ---------------------------


@dataclass
class SummaryRow:
    """Row ``a`` of the domain × domain summary: per column domain b the mean Δ over a sample of
    the two domains' programs (NaN: no pair), how many pairs were sampled out of the block's,
    whether every sampled value is exact, and the least Δ: where ``least_exact[b]``, exact over
    every pair of the block (``least_pair[b]``: its programs); elsewhere the sample's least (never
    below the block's). NaN / None when the block has no pair."""

    a: int
    mean: np.ndarray
    least: np.ndarray
    sampled: np.ndarray
    total: np.ndarray
    exact: np.ndarray
    least_exact: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    least_pair: list = field(default_factory=list)


def summary_sample(members: Sequence[int], per_domain: int) -> list[int]:
    """Up to ``per_domain`` of ``members``, evenly spaced (all of them when there are fewer)."""
    members = list(members)
    if len(members) <= per_domain:
        return members
    step = len(members) / per_domain
    return [members[int(k * step)] for k in range(per_domain)]


def domain_summary(engine: PairEngine, blocks: Sequence[Sequence[int]], per_domain: int = 10,
                   deadline: float | None = None, exact_least: bool = True, workers: int | None = 1):
    """Yield ``SummaryRow``s (``blocks[a]``: domain a's programs): first one per domain from the
    samples (every pair i ≠ j of up to ``per_domain`` programs of each side; the true mean when a
    block is sampled whole with exact values); then, with ``exact_least``, one per domain again
    with every block's least Δ exact over the whole block (``PairEngine.least``, started from
    the sample's least exact value; for a symmetric profile block (b, a) reuses (a, b)).

    ``workers`` > 1 (None: one per core): the exact least Δ of the blocks run on a ``PairPool``
    of that many processes, each block as 2 × ``workers`` queries over pieces of its rows, all
    submitted at once (the same values: the least of the pieces' exact leasts); the pool is stopped when the generator ends or
    is closed, and at once on ``engine.cancel`` (raising ``Cancelled``)."""
    picks = [summary_sample(b, per_domain) for b in blocks]
    sizes = [len(b) for b in blocks]
    d = len(blocks)
    rows, starts = [], {}
    for a in range(d):
        mean, least = np.full(d, np.nan), np.full(d, np.nan)
        sampled, total, exact = np.zeros(d, dtype=np.int64), np.zeros(d, dtype=np.int64), np.ones(d, dtype=bool)
        pairs_at: list = [None] * d
        for b in range(d):
            pairs = [(i, j) for i in picks[a] for j in picks[b] if i != j]
            total[b] = sizes[a] * sizes[b] - (sizes[a] if a == b else 0)
            if not pairs:
                continue
            res = engine.estimate_many(pairs, deadline)
            vals = np.array([float(v) for v, _lo, _ex in res])
            mean[b], least[b], sampled[b] = vals.mean(), vals.min(), len(pairs)
            exact[b] = all(ex for _v, _lo, ex in res)
            starts[(a, b)] = min(((v, i, j) for (i, j), (v, _lo, ex) in zip(pairs, res) if ex), default=None)
            if exact[b] and sampled[b] == total[b]:  # sampled whole: its least is the block's
                pairs_at[b] = starts[(a, b)][1:]
        row = SummaryRow(a, mean, least, sampled, total, exact, exact & (sampled == total) & (sampled > 0), pairs_at)
        rows.append(row)
        yield row
    if not exact_least:
        return
    import os

    workers = (os.cpu_count() or 1) if workers is None else workers
    futures = _least_on_pool(engine, blocks, rows, starts, workers) if workers > 1 else None
    found: dict[tuple[int, int], tuple[Fraction, int, int] | None] = {}
    try:
        for row in rows:
            a = row.a
            lower = engine.bounds(blocks[a]) if len(blocks[a]) and futures is None else None
            least, least_pair = row.least.copy(), list(row.least_pair)
            for b in range(d):
                if row.total[b] == 0:
                    continue
                if engine.symmetric and (b, a) in found:
                    f = found[(b, a)]
                    f = None if f is None else (f[0], f[2], f[1])
                elif futures is not None:
                    f = _least_result(engine, futures[(a, b)])
                else:
                    f = engine.least(blocks[a], blocks[b], starts.get((a, b)), lower[:, list(blocks[b])])
                found[(a, b)] = f
                if f is not None:
                    least[b], least_pair[b] = float(f[0]), (f[1], f[2])
            yield SummaryRow(a, row.mean, least, row.sampled, row.total, row.exact, row.total > 0, least_pair)
    finally:
        if futures is not None:
            engine.stop_pool()


def _least_on_pool(engine: PairEngine, blocks, rows, starts, workers: int) -> dict:
    """Every block's ``least`` submitted to a new ``PairPool`` (kept as ``engine.pool``): futures by
    (a, b); for a symmetric profile only a ≤ b (block (b, a) reuses it)."""
    from gindex_studio.core.curation.pairpool import PairPool

    engine.stop_pool()
    engine.pool = pool = PairPool(engine.prepared, engine.options.profile, workers, engine.options, engine.digests)
    futures: dict[tuple[int, int], list] = {}
    for row in rows:
        a, rows_a = row.a, list(blocks[row.a])
        step = max(1, -(-len(rows_a) // (2 * workers)))  # a block in pieces of rows: one hard block spreads too
        for k in range(0, len(rows_a), step):  # a piece against every column block in turn: a worker's
            for b in range(len(blocks)):       # bounds of the piece serve its next query too
                if row.total[b] == 0 or (engine.symmetric and b < a):
                    continue
                futures.setdefault((a, b), []).append(pool.submit_least(rows_a[k:k + step], blocks[b],
                                                                        starts.get((a, b))))
    return futures


def _least_result(engine: PairEngine, futures: list) -> tuple[Fraction, int, int] | None:
    """The least of a block's ``submit_least`` futures (its pieces of rows, in order; ties: the
    first piece's), waited for (``Cancelled`` once ``engine.cancel`` is set: the pool is
    stopped); the exact values the workers found are kept in the engine."""
    from gindex_studio.core.benchmark.curriculum import Cancelled
    from gindex_studio.core.support.pools import Finished, done_result

    finished = Finished(futures)
    while finished.left:
        if engine.cancel is not None and engine.cancel.is_set():
            engine.stop_pool()
            raise Cancelled()
        finished.next(0.05)
    best = None
    for future in futures:
        got, values = done_result(future)
        for a, b, num, den in values:
            engine._store_key((a, b), Fraction(num, den))
        if got is not None and (best is None or Fraction(got[0], got[1]) < best[0]):
            best = (Fraction(got[0], got[1]), got[2], got[3])
    return best
