"""The curation window's calls run in worker processes (``support.workers.Worker``), each
streaming its progress as small events (``fn(emit, *args)``; the return value is sent back once):

- ``matrix_job``: the Δ matrix in bands of rows, a coarse preview first;
- ``report_job``: the curation report of a workspace.
"""
from __future__ import annotations

import os

#: pairs left after the first band from which the matrix job searches on a ``PairPool``
POOL_MIN_PAIRS = 20_000


def matrix_job(emit, flows, options, cache_path, digests, order, cols, deadline, band_seconds, preview, arrange,
               workers=None, pool_min_pairs=POOL_MIN_PAIRS):
    """The curation window's Δ matrix (``ui.curation.jobs.MatrixJob``): rows ``order`` ×
    columns ``cols`` (None: the same), on a ``PairEngine`` of its own over ``flows`` with the disk
    cache at ``cache_path`` (None: none). Events: ``("coarse", matrix)`` (a preview),
    ``("band", (first_row, values, lower, exact))`` (consecutive complete rows, each band at most
    ``band_seconds`` of work, the first at once), ``("progress", (rows_done, n))``, ``("pool",
    workers)`` when its ``PairPool`` starts, ``("cpu", seconds)`` last (this process's CPU and its
    pool's, which ended before), then for a complete square matrix with ``arrange`` (each program's domain) ``("arranged", (order,
    points))``. Returns the seconds it took.

    Once the first band is sent, when at least ``pool_min_pairs`` cells are left, the searches run
    on a ``curation.pairpool.PairPool`` of ``workers`` processes (None: one per core), children of
    this process: they end with it (``Worker.stop`` kills its process group) and are closed
    before it returns."""
    import time

    import numpy as np

    from gindex_studio.core.curation import analysis as an
    from gindex_studio.core.curation.cache import DeltaCache
    from gindex_studio.core.curation.engine import PairEngine

    start = time.perf_counter()
    cache = DeltaCache(cache_path) if cache_path is not None else None
    engine = PairEngine(flows, options, cache, digests=digests)
    order = list(order)
    n = len(order)
    known = engine.known_matrix(order, cols or order, deadline)
    values, lower, exact = known.values, known.lower, known.exact
    complete = known.have.all(axis=1)
    done = int(complete.sum())
    for first, last in _runs(complete):  # rows already known (the cache): shown at once
        emit("band", (first, values[first:last], lower[first:last], exact[first:last]))
    if done:
        emit("progress", (done, n))
    todo = [r for r in range(n) if not complete[r]]
    if todo and preview and len(todo) * len(cols or order) > 48 * 48:
        quick = PREVIEW_DEADLINE if deadline is None else min(deadline, PREVIEW_DEADLINE)
        emit("coarse", an.coarse_matrix(engine, order, 24, quick, cols))

    def band(rows) -> None:
        for r in rows:
            values[r.r], lower[r.r], exact[r.r] = r.values, r.lower, r.exact
        emit("band", (rows[0].r, np.vstack([r.values for r in rows]), np.vstack([r.lower for r in rows]),
                      np.vstack([r.exact for r in rows])))

    rows, t0, first = [], time.perf_counter(), True
    flushed = t0
    width = len(cols or order)
    try:
        # rows of which the cache held nothing are not looked up there again, pair by pair
        partial = {r for r in todo if known.have[r].any()}
        for row in _matrix_rows(engine, order, deadline, todo, cols, partial, known):
            if rows and rows[-1].r + 1 != row.r:  # a band holds consecutive rows only
                band(rows)
                rows = []
            rows.append(row)
            done += 1
            if first or done == n or time.perf_counter() - t0 >= band_seconds:
                band(rows)
                emit("progress", (done, n))
                if first or time.perf_counter() - flushed >= FLUSH_SECONDS:
                    engine.flush()
                    flushed = time.perf_counter()
                if first and (n - done) * width >= pool_min_pairs and (workers or os.cpu_count() or 1) > 1:
                    from gindex_studio.core.curation.pairpool import PairPool

                    engine.pool = PairPool(engine.prepared, engine.options.profile, workers)
                    emit("pool", engine.pool.workers)
                rows, t0, first = [], time.perf_counter(), False
        if rows:
            band(rows)
            emit("progress", (done, n))
        if engine.pool is not None:
            engine.pool.close()
            engine.pool = None
    finally:
        engine.stop_pool()
    engine.flush()
    if cols is None and not complete.all():  # kept whole: the next window reads it at once
        engine.save_matrix(order, values, lower, exact, deadline)
    if arrange is not None and cols is None:
        idx = np.asarray(order, dtype=np.int64)
        matrix = np.full((n, n), np.nan)
        matrix[np.ix_(idx, idx)] = values
        emit("arranged", an.arrange(np.nan_to_num(matrix, nan=1.0), list(arrange), engine.cache))
    if cache is not None:
        cache.close()
    import resource

    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    emit("cpu", sum(r.ru_utime + r.ru_stime for r in used))
    return time.perf_counter() - start


def _matrix_rows(engine, order, deadline, todo, cols, partial, known):
    """``analysis.matrix_rows`` of display rows ``todo``; once the caller has given ``engine`` a
    pool (between two rows), for a square matrix of a symmetric profile the rest come from
    ``analysis.matrix_rows_pooled`` (written into ``known``'s arrays)."""
    from gindex_studio.core.curation import analysis as an

    rows = an.matrix_rows(engine, order, deadline, rows=todo, cols=cols, disk_rows=partial, ahead_pairs=AHEAD_PAIRS)
    for k, row in enumerate(rows, 1):
        yield row
        if engine.pool is not None and cols is None and engine.symmetric:
            rows.close()  # nothing of it is under way: without a pool it plans one row at a time
            yield from an.matrix_rows_pooled(engine, order, todo[k:], known.values, known.lower, known.exact,
                                             known.have, deadline, AHEAD_PAIRS)
            return


#: seconds between two writes of the matrix job's new values to the disk cache (each write
#: touches pages all over its table: a few large writes cost far less than one per band; a job
#: stopped meanwhile loses at most this much of its work)
FLUSH_SECONDS = 3.0

#: pair searches the matrix job keeps submitted to its pool ahead of the row it waits for: enough
#: for the workers to go on (easy pairs take ~40 µs) while this process writes a few seconds'
#: values to the disk cache (up to a second), without which they ran dry
AHEAD_PAIRS = 65536

#: seconds per pair of the curation matrix's coarse preview (the rows bring the real values)
PREVIEW_DEADLINE = 0.002


def _runs(mask) -> list[tuple[int, int]]:
    """(first, end) of each run of True in ``mask``."""
    out, start = [], None
    for k, v in enumerate(list(mask) + [False]):
        if v and start is None:
            start = k
        elif not v and start is not None:
            out.append((start, k))
            start = None
    return out


#: seconds between two progress events of a report (its engine reports every few pairs)
REPORT_PROGRESS_SECONDS = 0.05


def report_job(emit, ws, cache_path, digests, thresholds):
    """The curation report (``report.analyse(ws, engine, *thresholds)``) on an engine of its own
    over ``ws``'s programs and the disk cache at ``cache_path``. Events: ``("progress", (done,
    total))`` within each batch of the engine's queries, at most every
    ``REPORT_PROGRESS_SECONDS`` (and each batch's last)."""
    import time

    from gindex_studio.core.curation.cache import DeltaCache
    from gindex_studio.core.curation.report import analyse, engine_for

    cache = DeltaCache(cache_path) if cache_path is not None else None
    engine = engine_for(ws, cache, digests=digests)
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if done == total or now - last[0] >= REPORT_PROGRESS_SECONDS:
            last[0] = now
            emit("progress", (done, total))

    engine.progress = progress
    try:
        return analyse(ws, engine, *thresholds)
    finally:
        engine.flush()
        if cache is not None:
            cache.close()
