"""Curation's pair queries on a Dask cluster: the answers of ``PairEngine``, the work on workers.

``ClusterPairEngine`` is a ``PairEngine`` whose three batch queries (``within``,
``nearest_many``, ``deltas``) are cut into units and run on the cluster behind a
``distributed.Client``; everything else (single pairs, the heatmap's rows) stays local. So
``analysis`` and ``report.analyse`` run unchanged on either engine and give the same values.

- The programs (with the Δ values already known, e.g. from the disk cache) are sent to the cluster
  once (``runtime.distributed.put``: in small pieces, rebuilt if the worker holding them dies); each worker keeps one ``PairEngine`` over them, with its bound tables built once,
  and answers units with the full pruning of the local engine.
- Each unit returns its answers, the exact values it found (stored on the client, so ``flush``
  writes them to the disk cache as locally) and how many pairs it searched.
- Progress is reported per finished unit through ``progress(done, total)``; when the engine's
  ``cancel`` token is set the remaining units are cancelled on the cluster and ``Cancelled`` is
  raised. A unit the cluster could not complete (beyond Dask's retries) is a ``ClusterError``
  naming how many units were lost: a report is never silently incomplete; so is a cluster left
  without workers (``runtime.distributed.Watchdog``).
"""
from __future__ import annotations

import hashlib
import threading
from concurrent.futures import CancelledError
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from gindex_studio.core.support.cluster import ClusterError, Watchdog, put, watched_result, worker_count
from gindex_studio.core.scoring.divergence import ScoreOptions
from gindex_studio.core.flows.flow import Flow
from gindex_studio.core.curation.engine import Cancelled, NearestQuery, PairEngine


@dataclass
class _Programs:
    """What every worker holds once: the programs, the options, the values already known."""

    token: str
    flows: list[Flow]
    options: ScoreOptions
    library: Any
    known: dict


_ENGINES: dict[str, PairEngine] = {}
_LOCK = threading.Lock()


def _worker_engine(programs: _Programs) -> PairEngine:
    """This worker's engine over ``programs`` (built once; one workspace at a time per worker)."""
    with _LOCK:
        engine = _ENGINES.get(programs.token)
        if engine is None:
            _ENGINES.clear()
            engine = PairEngine(programs.flows, programs.options, library=programs.library)
            engine._known.update(programs.known)
            engine.bounds([0])  # bound tables now, under the lock, not in racing threads
            _ENGINES[programs.token] = engine
        return engine


def _unit(programs: _Programs, method: str, args: tuple) -> tuple[Any, list, int]:
    """Run one batch method on this worker's engine: (answer, values found, pairs searched)."""
    engine = _worker_engine(programs)
    with _LOCK:  # one unit at a time per engine: its caches and counters are not thread-safe
        before = engine.stats.searched
        answer = getattr(engine, method)(*args)
        found, engine._new = engine._new, []
        return answer, found, engine.stats.searched - before


class ClusterPairEngine(PairEngine):
    """A ``PairEngine`` whose batch queries run on the cluster behind ``client``.

    ``units_per_worker``: how finely a batch is cut (more units: smoother progress and load
    balance, a little more overhead)."""

    def __init__(self, flows: Sequence[Flow], options: ScoreOptions = ScoreOptions(), cache=None,
                 library=None, cancel=None, digests: Sequence[int] | None = None, *, client,
                 units_per_worker: int = 4):
        super().__init__(flows, options, cache, library, cancel, digests)
        self.client = client
        self.units_per_worker = units_per_worker
        self._remote = None
        self._watchdog = None

    def _watch(self) -> Watchdog:
        if self._watchdog is None:
            self._watchdog = Watchdog(self.client, "units of work")
        return self._watchdog

    def _programs(self):
        if self._remote is None:
            digest = hashlib.sha1(",".join(map(str, self.digests)).encode())
            digest.update(repr(self._opts).encode())
            known = dict(self._known)
            if self.cache is not None:  # workers cannot read the client's disk cache: send its values once
                known.update(self.cache.get_many(self._opts, self.digests))
            data = _Programs(digest.hexdigest(), self._flows, self.options, self._library, known)
            self._remote = put(self.client, data)
        return self._remote

    def _chunks(self, n: int) -> list[range]:
        k = max(1, min(n, worker_count(self.client) * self.units_per_worker))
        size = -(-n // k) if n else 0
        return [range(s, min(s + size, n)) for s in range(0, n, size)] if size else []

    def _run(self, method: str, chunks: list[range], args_of: Callable[[range], tuple]) -> list:
        """Submit one unit per chunk; the answers in chunk order."""
        from distributed import wait

        if not chunks:
            return []
        data = self._programs()
        futures = [self.client.submit(_unit, data, method, args_of(c), pure=False, retries=2) for c in chunks]
        index = {f.key: k for k, f in enumerate(futures)}
        answers: list[Any] = [None] * len(futures)
        pending, lost, done = set(futures), 0, 0
        try:
            while pending:
                if self.cancel is not None and self.cancel.is_set():
                    raise Cancelled()
                self._watch().check(len(pending), len(futures))
                try:
                    finished, pending = wait(pending, timeout=0.1, return_when="FIRST_COMPLETED")
                except TimeoutError:  # nothing finished yet: look at the cancel token again
                    continue
                except CancelledError:  # Dask cancelled units: the scheduler was lost, or someone cancelled them
                    self._watch().check_scheduler(len(pending), len(futures))
                    raise ClusterError(f"the cluster cancelled units of work ({len(pending)} of {len(futures)} "
                                       "left undone); the report would be incomplete") from None
                for fut in finished:
                    try:
                        answer, found, searched = watched_result(
                            fut, lambda: self._watch().check(len(pending) + 1, len(futures)))
                    except Exception:  # noqa: BLE001 - a unit lost beyond Dask's retries
                        self._watch().check_scheduler(len(pending) + 1, len(futures))
                        lost += 1
                        continue
                    answers[index[fut.key]] = answer
                    for a, b, v in found:
                        self._store_key((a, b), v)
                    self.stats.searched += searched
                    done += 1
                    self._report(done, len(futures))
        except (Cancelled, KeyboardInterrupt, ClusterError):
            self.client.cancel(futures)
            raise
        if lost:
            raise ClusterError(f"the cluster lost {lost} of {len(futures)} units of work; the report would be incomplete")
        return answers

    def within(self, rows: Sequence[int], cols: Sequence[int], limit: Fraction,
               upper_only: bool = False, block: int = 128) -> list[tuple[int, int, Fraction]]:
        rows, cols = [int(r) for r in rows], [int(c) for c in cols]
        parts = self._run("within", self._chunks(len(rows)),
                          lambda c: (rows[c.start:c.stop], cols, limit, upper_only, block))
        return [x for part in parts for x in part]

    def nearest_many(self, queries: Sequence[NearestQuery]) -> list[list[tuple[Fraction, int] | None]]:
        queries = list(queries)
        parts = self._run("nearest_many", self._chunks(len(queries)), lambda c: (queries[c.start:c.stop],))
        return [x for part in parts for x in part]

    def deltas(self, pairs: Sequence[tuple[int, int]]) -> list[Fraction]:
        pairs = [(int(i), int(j)) for i, j in pairs]
        parts = self._run("deltas", self._chunks(len(pairs)), lambda c: (pairs[c.start:c.stop],))
        return [x for part in parts for x in part]
