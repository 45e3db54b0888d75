"""The core calls the studio runs in worker processes (``workers.Worker``), each streaming its
progress as small events. Every function here is ``fn(emit, *args)``; what it returns is sent
back once, so it leaves out what is large and cheap to rebuild.

- ``gindex_job``: ``compute_gindex`` with a listener; events ``("stage", (name, done, total))``
  (curriculum steps thinned to about a hundred), ``("delta", (index, reports))``,
  ``("task", TaskResult)``. The result comes back without its curriculum (``_state``): the
  curriculum is megabytes that would take the reader most of a second to unpickle;
  ``restore_curriculum`` rebuilds it where an edit needs it.
- ``companion_job``: ``compute_companion_gindex``.
- ``score_systems_job``: the g-index of the Analysis window's experiments (one
  ``("stage", ("systems", k, n))`` per experiment); ``analyse_job``: its numbers
  (``analysis.analyse`` of ``slim_systems``) without the systems themselves.
"""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any

from gindex_studio.core.benchmark import gindex as gi
from gindex_studio.core.benchmark.gindex import GIndexResult, Listener


class _EmitListener(Listener):
    def __init__(self, emit):
        self.emit = emit

    def stage(self, name, done, total):
        if name != "curriculum" or done == total or done % max(1, total // 100) == 0:
            self.emit("stage", (name, done, total))

    def delta(self, index, reports):
        self.emit("delta", (index, reports))

    def task(self, result):
        self.emit("task", result)


def _light(result: GIndexResult) -> GIndexResult:
    """``result`` without its curriculum (rebuilt on demand by ``restore_curriculum``)."""
    if result._state:
        result._state = {k: v for k, v in result._state.items() if k != "curriculum"}
    return result


def gindex_job(emit, experiment, options, workers):
    return with_interval(_light(gi.compute_gindex(experiment, options, workers=workers, listener=_EmitListener(emit))))


#: where ``with_interval`` keeps a result's bootstrap interval (an attribute beside its fields)
_INTERVAL = "bootstrap_interval_95"


def with_interval(result: GIndexResult) -> GIndexResult:
    """``result`` carrying its 95 % bootstrap interval over tasks (``gindex.bootstrap_interval``
    with its defaults), computed here, off the GUI thread; ``interval_of`` reads it."""
    if len(result.tasks) >= 2:
        result.__dict__[_INTERVAL] = gi.bootstrap_interval(result)
    return result


def interval_of(result: GIndexResult):
    """The result's 95 % bootstrap interval: the one ``with_interval`` computed, else computed now."""
    got = result.__dict__.get(_INTERVAL)
    return got if got is not None else gi.bootstrap_interval(result)


def restore_curriculum(result: GIndexResult, experiment, options=None) -> None:
    """Give ``result`` (from ``gindex_job``) its curriculum again, built from ``experiment`` as
    ``compute_gindex`` built it; nothing when it has one or when the experiment's curriculum is not
    the one it was computed on (``recompute_task`` then computes afresh)."""
    st = result._state
    if not st or st.get("curriculum") is not None or st.get("curriculum_key") != gi._curriculum_key(experiment):
        return
    st["curriculum"] = gi._build_curriculum(experiment, gi._options_of(experiment, options))


def companion_job(emit, companion_experiment):
    return with_interval(gi.compute_companion_gindex(companion_experiment))


def score_systems_job(emit, experiments, workers=1):
    """The g-index of each experiment, in order (the caller holds the experiments already)."""
    out = []
    for k, exp in enumerate(experiments):
        out.append(_light(gi.compute_gindex(exp, workers=workers)))
        emit("stage", ("systems", k + 1, len(experiments)))
    return out


@dataclass
class TaskReference:
    """A task as ``analysis.task_arrays`` reads it: its id and reference program."""

    id: str
    reference: Any


@dataclass
class References:
    """An experiment as ``analysis.task_arrays`` reads it (its tasks' references, for the
    programs' sizes): what ``analyse_job`` is sent instead of the whole experiment (attempts,
    curriculum), which would only cost pickling."""

    tasks: list[TaskReference]


def slim_systems(systems):
    """``systems`` with what ``analysis.analyse`` reads and nothing more: the experiment as
    ``References``, the result without its computation state (the curriculum). The originals
    are not changed."""
    from gindex_studio.core.benchmark.analysis import System

    out = []
    for s in systems:
        exp = None if s.experiment is None else References([TaskReference(t.id, t.reference) for t in s.experiment.tasks])
        res = copy.copy(s.result)
        res._state = {}
        out.append(System(s.label, exp, res))
    return out


def analyse_job(emit, systems, k):
    """``analyse(systems, k)`` (send ``slim_systems``), returned without its systems (the
    caller holds them)."""
    from gindex_studio.core.benchmark.analysis import analyse

    an = analyse(systems, k=k)
    an.systems = []
    return an


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
