"""Ω and Δ matrices on a Dask distributed cluster (optional: ``pip install gindex-studio[dask]``).

The work is split so that it scales with the cluster, not with the number of pairs:

- the curriculum is cut into *shards* (contiguous runs of programs). A shard travels as a
  ``Snapshot`` (its prepared programs pickled once, sent in small pieces with ``put_snapshot``):
  the programs cross the network once per shard, never per pair, no message to the scheduler is
  large, and a worker that dies takes only its shards with it (the scheduler still holds the
  pieces and the task that joins them, and reruns it elsewhere). Each worker process builds its
  own ``Curriculum`` from a shard's snapshot once (``_local``) and searches on that; what Dask
  stores and copies between workers is only ever the immutable bytes, never an object a search
  fills tables in (Dask pickling a shared ``Curriculum`` while a search on the same worker added to
  its tables failed with "dictionary changed size during iteration"). With
  ``CurriculumFiles`` (a curriculum on storage every worker sees) the task carries only the
  shard's paths and a digest of each file: the workers read the programs themselves, the task
  graph stays small however large the curriculum, and a file that reads differently stops the run;
- tasks travel in *batches*; one unit of work is (shard, batch), and inside it every task gets the
  full pruning of ``Curriculum.nearest_by_domain`` (weight bounds, best-so-far thresholds), kept
  per shard;
- the client reduces the per-shard minima to the exact Ω per domain (a minimum of minima), with
  the proven-bound bookkeeping of deadline-cut searches carried across shards;
- a cluster left without workers (all lost mid-run, or none ever joined) ends the run after
  ``$GINDEX_NO_WORKERS_TIMEOUT`` seconds (``Watchdog``) with one line: Dask would wait forever.

Nothing here imports Dask until a cluster is asked for; importing this module is cheap.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from gindex_studio.core.benchmark.curriculum import Cancelled, Curriculum, Nearest, canonical_hash
from gindex_studio.core.flows.flow import Flow
from gindex_studio.core.scoring.divergence import Prepared, ScoreOptions, prepare
from gindex_studio.core.support.cluster import (
    ClusterError, DaskRun, Snapshot, Watchdog, _completed, _local, put_snapshot, snapshot, watched_result,
    worker_count,
)

Progress = Callable[[int, int], None]


def plan_shards(n_programs: int, n_workers: int, per_worker: int = 1) -> list[range]:
    """Contiguous shards of the curriculum: ``per_worker`` per worker (at least one program each)."""
    k = max(1, min(n_programs, n_workers * per_worker))
    size = math.ceil(n_programs / k) if n_programs else 0
    return [range(s, min(s + size, n_programs)) for s in range(0, n_programs, size)] if size else []


@dataclass
class CurriculumFiles:
    """A curriculum the workers read themselves: each program's path (the same on every worker),
    domain and label, the scoring options, and a digest of each file's bytes taken on the client
    (a file that changed since, or differs on a worker, is refused). The client reads the bytes
    once to digest them and prepares nothing."""

    paths: list[str]
    domains: list[str]
    labels: list[str]
    options: ScoreOptions = field(default_factory=ScoreOptions)
    digests: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.paths = [str(p) for p in self.paths]
        if not (len(self.paths) == len(self.domains) == len(self.labels)):
            raise ValueError("paths, domains and labels differ in length")
        if not self.digests:
            self.digests = [file_digest(p) for p in self.paths]

    def __len__(self) -> int:
        return len(self.paths)


def file_digest(path: str) -> str:
    """blake2b of the file's bytes (hex). Raises FlowError when it cannot be read."""
    from gindex_studio.core.flows.flow import read_user_file

    return hashlib.blake2b(read_user_file(path, "a curriculum program"), digest_size=16).hexdigest()


class ShardFileError(Exception):
    """A worker could not read a curriculum file, or read other bytes than the client."""


def _build_shard_from_files(paths: list[str], digests: list[str], domains: list[str], labels: list[str],
                            options: ScoreOptions) -> "Snapshot":
    """The shard's snapshot, its programs read and prepared here (each file checked against its digest)."""
    from gindex_studio.core.flows.flow import FlowError, read_flow_bytes, read_user_file

    programs = []
    for path, digest in zip(paths, digests):
        try:
            data = read_user_file(path, "a curriculum program")
            if hashlib.blake2b(data, digest_size=16).hexdigest() != digest:
                raise ShardFileError(f"{path} changed since the run started (or differs on a worker)")
            programs.append(prepare(read_flow_bytes(data), options))
        except FlowError as e:
            raise ShardFileError(f"a worker cannot read the curriculum file {path}: {e}") from None
    return snapshot((programs, domains, labels, options, [canonical_hash(p.graph) for p in programs]))


def _shard_nearest(shard: "Snapshot", batch: "Snapshot", deadline: float | None,
                   exclude: list[list[int]] | None = None) -> list[dict[str, Nearest]]:
    """``nearest_by_domain`` of each task of ``batch`` on this process's Curriculum of ``shard``
    (both snapshots: the tasks are unpickled afresh, so no search touches what Dask holds);
    ``exclude[k]``: the shard's programs (shard indices) task k is not measured against."""
    cur = _local(shard, lambda parts: _warm(Curriculum(*parts)))
    return [cur.nearest_by_domain(t, deadline, exclude=exclude[k] if exclude else ())
            for k, t in enumerate(batch.load())]


def _warm(cur: Curriculum) -> Curriculum:
    cur.warm()
    return cur


def merge_nearest(parts: Sequence[tuple[int, dict[str, Nearest]]]) -> dict[str, Nearest]:
    """Per-domain minima over shards. ``parts``: (index offset of the shard, its result).

    Ω is the smallest value; on ties the smallest global index wins. A deadline-cut search in any
    shard keeps the result not exact when its proven lower bound leaves room below the minimum."""
    out: dict[str, Nearest] = {}
    for offset, per in parts:
        for d, n in per.items():
            g = Nearest(n.omega, None if n.index is None else n.index + offset, n.exact, n.searched,
                        n.skipped, n.omega_lower if n.omega_lower is not None else n.omega, n.value)
            cur = out.get(d)
            if cur is None:
                out[d] = g
                continue
            better = (g.index is not None and (cur.index is None or g.omega < cur.omega
                                                or (g.omega == cur.omega and g.index < cur.index)))
            best = g if better else cur
            lower = min(cur.omega_lower, g.omega_lower)
            out[d] = Nearest(best.omega, best.index, lower >= best.omega, cur.searched + g.searched,
                             cur.skipped + g.skipped, lower, best.value)
    return out


def omega_many_dask(tasks: Sequence[Prepared], curriculum: Curriculum | CurriculumFiles, client, *, batch: int = 8,
                    shards_per_worker: int = 1, deadline: float | None = None,
                    progress: Progress | None = None, cancel=None,
                    on_result: Callable[[int, dict[str, Nearest]], None] | None = None,
                    watchdog: Watchdog | None = None, exclude: Sequence[Sequence[int]] | None = None) -> DaskRun:
    """``nearest_by_domain`` for every task on the cluster behind ``client``; same values as
    :func:`gindex_studio.core.benchmark.curriculum.omega_many`.

    ``curriculum``: prepared programs, sent to the workers a shard each; or ``CurriculumFiles``,
    read by the workers themselves (the task graph then carries paths, not programs: for
    curricula too large to send through the scheduler). ``progress(done, total)`` counts tasks
    whose every shard has answered; ``on_result(i, per_domain)`` then receives each such task's
    result (before the progress call). ``cancel``: any object with ``is_set()``; when set, the run's
    futures are cancelled on the cluster and Cancelled is raised. Work lost beyond Dask's retries
    leaves those tasks in ``missing``; a curriculum file a worker cannot read as the client did
    raises ClusterError, and so does a cluster left without workers (``watchdog``, by default
    one with :func:`no_workers_limit`). ``exclude[i]``: the curriculum programs (indices) task i
    is not measured against.

    No single message to the scheduler is large: a shard's programs and a batch's tasks travel
    with :func:`put_snapshot` (a batch once for all shards).
    """
    from distributed import as_completed

    n = len(tasks)
    shards = plan_shards(len(curriculum), worker_count(client), shards_per_worker)
    if n == 0:
        return DaskRun([])
    if not shards:
        return DaskRun([{} for _ in tasks])
    watchdog = watchdog or Watchdog(client, "tasks")
    shard_futures = [_submit_shard(client, curriculum, r) for r in shards]
    batches = [list(range(s, min(s + batch, n))) for s in range(0, n, batch)]
    units = {}
    for b, idx in enumerate(batches):
        sent = put_snapshot(client, [tasks[i] for i in idx])
        for s, sf in enumerate(shard_futures):
            r = shards[s]
            left_out = [[k - r.start for k in exclude[i] if k in r] for i in idx] if exclude else None
            fut = client.submit(_shard_nearest, sf, sent, deadline, left_out, pure=False, retries=2)
            units[fut] = (s, b)
    parts: list[list[tuple[int, dict]]] = [[] for _ in range(n)]
    failed: set[int] = set()
    waiting = [len(shards)] * len(batches)  # units still out per batch
    finished = 0
    try:
        for fut in _completed(as_completed(list(units), with_results=False), cancel,
                              lambda: watchdog.check(n - finished, n)):
            s, b = units[fut]
            try:
                per_task = watched_result(fut, lambda: watchdog.check(n - finished, n))
            except ShardFileError as e:
                raise ClusterError(str(e)) from None
            except Exception:  # noqa: BLE001 - a unit the cluster could not complete (e.g. KilledWorker)
                watchdog.check_scheduler(n - finished, n)
                failed.update(batches[b])
            else:
                for i, per in zip(batches[b], per_task):
                    parts[i].append((shards[s].start, per))
            waiting[b] -= 1
            if waiting[b] == 0:
                finished += len(batches[b])
                if on_result is not None:
                    for i in batches[b]:
                        if i not in failed:
                            on_result(i, merge_nearest(parts[i]))
                if progress:
                    progress(finished, n)
    except (Cancelled, KeyboardInterrupt, ClusterError):
        client.cancel(list(units) + shard_futures)
        raise
    finally:
        if cancel is not None and cancel.is_set():
            client.cancel(list(units) + shard_futures)
    results = [None if i in failed else merge_nearest(parts[i]) for i in range(n)]
    return DaskRun(results, sorted(failed))


def _submit_shard(client, curriculum: Curriculum | CurriculumFiles, r: range):
    """The future of shard ``r``'s Snapshot (programs, domains, labels, options, hashes): sent
    with ``put_snapshot``, or read from its files on a worker."""
    domains, labels = [curriculum.domains[i] for i in r], [curriculum.labels[i] for i in r]
    if isinstance(curriculum, CurriculumFiles):
        return client.submit(_build_shard_from_files, [curriculum.paths[i] for i in r],
                             [curriculum.digests[i] for i in r], domains, labels, curriculum.options,
                             pure=False, retries=2)
    return put_snapshot(client, ([curriculum.programs[i] for i in r], domains, labels, curriculum.options,
                                 [curriculum.hashes[i] for i in r]))


def _matrix_rows(data: Snapshot, rows: range, profile, deadline: float | None) -> list[list]:
    """Rows of the Δ matrix of the prepared flows in ``data``; with a symmetric profile (paper)
    only the entries right of the diagonal are searched (the rest are None and mirrored by the
    caller)."""
    from gindex_studio.core.benchmark.matrix import delta_value, pair_match

    prepared = _local(data)
    symmetric = profile.symmetric
    out = []
    for i in rows:
        a, row = prepared[i], []
        for j, b in enumerate(prepared):
            if symmetric and j < i:
                row.append(None)
                continue
            row.append(delta_value(pair_match(a, b, profile, deadline=deadline), a.n, b.n))
        out.append(row)
    return out


def delta_matrix_dask(flows: Sequence[Flow], client, options: ScoreOptions = ScoreOptions(), *,
                      rows_per_unit: int = 4, deadline: float | None = None,
                      progress: Progress | None = None, watchdog: Watchdog | None = None) -> list[list[float]]:
    """All-pairs Δ (row = reference, column = generated) on the cluster, equal to
    :func:`gindex_studio.core.benchmark.curriculum.delta_matrix`. The prepared flows are sent to the cluster
    once (:func:`put`); each unit computes a band of rows. A cluster left without workers, or a
    band lost beyond Dask's retries, is a ClusterError."""
    from distributed import as_completed

    prepared = [prepare(f, options) for f in flows]
    n = len(prepared)
    if n == 0:
        return []
    watchdog = watchdog or Watchdog(client, "bands of rows")
    data = put_snapshot(client, prepared)
    bands = [range(s, min(s + rows_per_unit, n)) for s in range(0, n, rows_per_unit)]
    futures = {client.submit(_matrix_rows, data, r, options.profile, deadline, pure=False, retries=2): r
               for r in bands}
    out: list[Any] = [None] * n
    done = 0
    try:
        for fut in _completed(as_completed(list(futures)), None, lambda: watchdog.check(len(futures) - done, len(futures))):
            done += 1
            try:
                rows = watched_result(fut, lambda: watchdog.check(len(futures) - done + 1, len(futures)))
            except Exception:  # noqa: BLE001 - a band the cluster could not complete (e.g. KilledWorker)
                watchdog.check_scheduler(len(futures) - done + 1, len(futures))
                raise ClusterError(f"the cluster lost a band of rows of the Δ matrix ({futures[fut].start + 1}"
                                   f"-{futures[fut].stop} of {n}) beyond its retries") from None
            for i, row in zip(futures[fut], rows):
                out[i] = row
            if progress:
                progress(done, len(futures))
    except (KeyboardInterrupt, ClusterError):
        client.cancel(list(futures))
        raise
    if options.profile.symmetric:  # the lower triangle mirrors the upper one
        for i in range(n):
            for j in range(i):
                out[i][j] = out[j][i]
    return out
