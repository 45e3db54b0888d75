"""All-pairs Δ matrices: row by row, on worker processes, held as float64 arrays.

- ``pair_match``: the exact search of one pair. For a symmetric McSplit profile (paper) it races
  the two orientations (``matching``'s race, asked for with a negative ``threshold_sq``, which
  means "no threshold"): S is the same either way, and which graph branches can change the tree
  by orders of magnitude (a 30 × 21-node pair: 0.2 s one way, 0.2 ms the other).
- ``delta_rows``: Δ(i, j) for every pair of programs, yielded row by row in row order as each row
  is complete (row = reference, column = generated), each a float64 array. A symmetric profile
  searches each unordered pair once. Memory: the prepared programs and one n × n float64 array
  (8 bytes a cell); nothing per cell beyond that.
- Work runs on ``workers`` processes in units of consecutive rows of about ``UNIT_PAIRS``
  searches; a worker receives the prepared programs once (forked when this process runs a
  single thread, else spawned and sent them pickled once) and returns each unit's rows as arrays.

Every value is ``float(Δ)`` of the exact Δ (or of the best mapping found when ``deadline``
seconds cut a search), the same float ``curriculum.delta_matrix`` always gave.
"""
from __future__ import annotations

import os
from collections import deque
from fractions import Fraction
from typing import Callable, Iterator, Sequence

import numpy as np

from gindex_studio.core.support import profiles
from gindex_studio.core.scoring.divergence import Prepared
from gindex_studio.core.scoring.matching import Match, max_common_subgraph
from gindex_studio.core.support.pools import worker_signals

Progress = Callable[[int, int], None]

#: searches per unit of work sent to a worker (a few milliseconds to a second of work)
UNIT_PAIRS = 4096
#: ``threshold_sq`` that asks ``max_common_subgraph`` for no threshold but still races the orientations
_NO_THRESHOLD = (-1, 1)


def races(profile) -> bool:
    """True when ``pair_match`` races the two orientations under ``profile`` (a Profile or its
    name): its ``search_plan().races`` (Δ is symmetric and the generic McSplit search, whose tree
    depends on the orientation, runs)."""
    return profiles.get(profile).search_plan().races


def pair_match(a: Prepared, b: Prepared, profile, deadline: float | None = None, cancel=None) -> Match:
    """``max_common_subgraph`` of (a, b): the same S, racing the orientations where ``races``."""
    if races(profile):
        return max_common_subgraph(a.graph, b.graph, profile, deadline=deadline, threshold_sq=_NO_THRESHOLD,
                                   cancel=cancel)
    return max_common_subgraph(a.graph, b.graph, profile, deadline=deadline, cancel=cancel)


def delta_value(m: Match, n1: int, n2: int) -> float:
    """float(Δ) for the mapping weight of ``m``: Δ = 1 − S²/(n1·n2) (1 when a side is empty),
    rounded once from the exact rational (as ``float(delta_from_s(...))``)."""
    if n1 == 0 or n2 == 0:
        return 1.0
    num, den = m.weight
    total = den * den * n1 * n2
    return (total - num * num) / total  # int / int: the correctly rounded value of the exact rational


def exact_delta(m: Match, n1: int, n2: int) -> Fraction:
    """Δ of ``m``'s weight as an exact fraction."""
    if n1 == 0 or n2 == 0:
        return Fraction(1)
    num, den = m.weight
    total = den * den * n1 * n2
    return Fraction(total - num * num, total)


def _unit_rows(prepared: Sequence[Prepared], rows: range, profile: str, symmetric: bool,
               deadline: float | None) -> list[np.ndarray]:
    """Each row of ``rows``: Δ(i, j) for j from i on (``symmetric``) or for every j."""
    out = []
    n = len(prepared)
    for i in rows:
        a = prepared[i]
        first = i if symmetric else 0
        row = np.empty(n - first)
        for k, j in enumerate(range(first, n)):
            b = prepared[j]
            if a.n == 0 or b.n == 0:
                row[k] = 1.0
                continue
            row[k] = delta_value(pair_match(a, b, profile, deadline), a.n, b.n)
        out.append(row)
    return out


def plan_units(n: int, symmetric: bool, unit_pairs: int = UNIT_PAIRS) -> list[range]:
    """Consecutive row ranges covering 0..n, each about ``unit_pairs`` searches (at least one row)."""
    units, start, pairs = [], 0, 0
    for i in range(n):
        pairs += n - i if symmetric else n
        if pairs >= unit_pairs:
            units.append(range(start, i + 1))
            start, pairs = i + 1, 0
    if start < n:
        units.append(range(start, n))
    return units


_WORKER_PREPARED: list[Prepared] | None = None


def _init_worker(prepared=None) -> None:
    """Ctrl-C is the parent's (it stops the pool); a spawned worker receives the programs once."""
    global _WORKER_PREPARED
    import gc
    import pickle

    worker_signals()
    if prepared is not None:
        _WORKER_PREPARED = pickle.loads(prepared)
    gc.freeze()  # the programs (never freed here) out of the collector's reach


def _worker_unit(args) -> list[np.ndarray]:
    rows, profile, symmetric, deadline = args
    return _unit_rows(_WORKER_PREPARED, rows, profile, symmetric, deadline)


def delta_rows(prepared: Sequence[Prepared], profile=None, *, deadline: float | None = None,
               workers: int | None = None, progress: Progress | None = None,
               unit_pairs: int = UNIT_PAIRS) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(i, row)`` for i = 0..n−1 in order, ``row[j]`` = float(Δ(i as reference, j as
    generated)), as soon as row i is complete. ``workers``: processes (default all cores; 1 runs
    here). ``progress(done, total)`` counts searches (n(n+1)/2 for a symmetric profile, else
    n²) after each unit. Ctrl-C (or closing the generator) stops every worker at once."""
    global _WORKER_PREPARED
    n = len(prepared)
    if n == 0:
        return
    symmetric = profiles.get(profile).symmetric
    total = n * (n + 1) // 2 if symmetric else n * n
    units = plan_units(n, symmetric, unit_pairs)
    workers = max(1, min(workers or os.cpu_count() or 1, len(units)))
    full = np.empty((n, n)) if symmetric else None  # the mirror of rows already given (pages touched as filled)
    done = 0

    def rows_of(unit: range, got: list[np.ndarray]) -> list[tuple[int, np.ndarray]]:
        """The unit's complete rows (mirrored from the rows above for a symmetric profile);
        progress is reported before they are given."""
        nonlocal done
        out = []
        for i, part in zip(unit, got):
            if symmetric:
                full[i, i:] = part
                full[i, :i] = full[:i, i]
                out.append((i, full[i]))
            else:
                out.append((i, part))
            done += len(part)
        if progress:
            progress(done, total)
        return out

    if workers == 1:
        for unit in units:
            yield from rows_of(unit, _unit_rows(prepared, unit, profile, symmetric, deadline))
        return

    import multiprocessing as mp
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    from gindex_studio.core.support.pools import _single_threaded, result_of, signals_held, stop_pool_now

    chosen = mp.get_start_method(allow_none=True)
    forking = chosen in (None, "fork") and _single_threaded() and "fork" in mp.get_all_start_methods()
    if forking:
        _WORKER_PREPARED = list(prepared)
        pool_args = dict(mp_context=mp.get_context("fork"), initializer=_init_worker)
    else:
        blob = pickle.dumps(list(prepared), protocol=pickle.HIGHEST_PROTOCOL)
        pool_args = dict(mp_context=mp.get_context("spawn"), initializer=_init_worker, initargs=(blob,))
    pool = None
    try:
        with signals_held():  # the pool starts whole, then a signal stops all of it
            pool = ProcessPoolExecutor(max_workers=workers, **pool_args)
            # units in row order: rows come back about in order, so few wait to be given
            futures = deque(pool.submit(_worker_unit, (u, profile, symmetric, deadline)) for u in units)
        for unit in units:
            got = result_of(futures.popleft())  # dropped once used: results are not all kept to the end
            yield from rows_of(unit, got)
    except BaseException:  # Ctrl-C, an error, or the caller closing the generator: no worker goes on
        if pool is not None:
            stop_pool_now(pool)
            pool = None
        raise
    finally:
        _WORKER_PREPARED = None
        if pool is not None:
            pool.shutdown()
