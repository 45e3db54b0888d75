"""Worker processes for a ``PairEngine``'s batches of pair searches.

A ``PairPool`` starts ``workers`` processes that receive the engine's prepared programs once
(pickled once here; the processes are spawned, as a window's threads make forking unsafe, or
forked when this process runs a single thread and no start method other than fork or
forkserver was chosen). ``submit`` sends a batch of (i, j) pairs in small
chunks and returns their futures; each chunk comes back as one small list of integers (Δ found
and proven lower bound as fractions in lowest terms, exact), never as programs. The engine stores the values (memory
and the disk cache) in this process: workers never touch the cache.

``submit_least`` runs a whole ``PairEngine.least`` query (a block of the domain summary) on a
worker, on an engine of the worker's own over the same programs (built once per worker).

Cancelling is the caller's: ``stop`` terminates the workers at once (a search in C cannot be
interrupted from another process otherwise); the pool cannot be used after it.
"""
from __future__ import annotations

import os
from fractions import Fraction
from typing import Sequence

from gindex_studio.core.scoring.divergence import Prepared, delta_from_s
from gindex_studio.core.support.pools import signals_held, worker_signals

#: pairs per chunk sent to a worker: small enough that a chunk of cut searches (the deadline
#: each) does not leave the other workers idle at the end of a batch, large enough that the
#: messages cost little beside ~20 µs searches
CHUNK = 24
#: a large batch goes in about this many chunks per worker (fewer, larger messages: each costs
#: both processes ~0.1 ms), each at most ``MAX_CHUNK`` pairs
CHUNKS_PER_WORKER = 8
MAX_CHUNK = 64

_PREPARED: list[Prepared] | None = None
_PROFILE = None  # the Profile the searches run under (None: the default)
_LEAST: tuple | None = None  # (options, digests) for ``_least``: a worker's own PairEngine
_ENGINE = None
_ROW_BOUNDS: tuple | None = None  # (rows, their bounds against every program): the last row of blocks


def _init(blob: bytes | None, profile, least: tuple | None = None) -> None:
    global _PREPARED, _PROFILE, _LEAST
    import gc
    import pickle

    worker_signals()
    if blob is not None:
        _PREPARED = pickle.loads(blob)
    _PROFILE = profile
    _LEAST = least
    gc.freeze()


def _least(rows: list[int], cols: list[int], start) -> tuple:
    """``PairEngine.least(rows, cols, start)`` on this worker's engine (over the pool's prepared
    programs, no disk cache): (Δ num, Δ den, i, j) or None, and the exact values it searched as
    (i, j, num, den) for the caller's cache."""
    global _ENGINE
    from gindex_studio.core.curation.engine import PairEngine

    if _ENGINE is None:
        options, digests = _LEAST
        _ENGINE = PairEngine.from_prepared(_PREPARED, options, digests)
    global _ROW_BOUNDS
    key = tuple(rows)
    if _ROW_BOUNDS is None or _ROW_BOUNDS[0] != key:  # the same rows come again for the next block
        _ROW_BOUNDS = (key, _ENGINE.bounds(rows))
    before = set(_ENGINE._known)
    if start is not None:
        start = (Fraction(start[0], start[1]), start[2], start[3])
    best = _ENGINE.least(rows, cols, start, _ROW_BOUNDS[1][:, cols])
    found = [(k[0], k[1], v.numerator, v.denominator) for k, v in _ENGINE._known.items() if k not in before]
    got = None if best is None else (best[0].numerator, best[0].denominator, best[1], best[2])
    return got, found


def _chunk(pairs: list[tuple[int, int]], deadline: float | None) -> list[tuple[int, int, int, int, bool]]:
    """(Δ num, Δ den, lower num, lower den, exact) of each pair, in lowest terms: plain integers
    travel back far cheaper than Fractions (which pickle as text and are parsed again)."""
    from gindex_studio.core.benchmark.matrix import exact_delta, pair_match

    out = []
    for i, j in pairs:
        a, b = _PREPARED[i], _PREPARED[j]
        m = pair_match(a, b, _PROFILE, deadline)
        value = exact_delta(m, a.n, b.n)
        lower = value if m.exact else delta_from_s(Fraction(*m.upper), a.n, b.n)
        out.append((value.numerator, value.denominator, lower.numerator, lower.denominator, m.exact))
    return out


class PairPool:
    """``workers`` processes (default: all cores) searching pairs of ``prepared`` under ``profile``."""

    def __init__(self, prepared: Sequence[Prepared], profile, workers: int | None = None,
                 options=None, digests: Sequence[int] | None = None):
        """``options`` and ``digests`` (the engine's): needed by ``submit_least`` only."""
        import multiprocessing as mp
        import pickle
        from concurrent.futures import ProcessPoolExecutor

        global _PREPARED
        from gindex_studio.core.support.pools import _single_threaded

        self.workers = max(1, workers or os.cpu_count() or 1)
        chosen = mp.get_start_method(allow_none=True)
        # "forkserver": this process is a forked child of a fork server (the studio's workers are),
        # where forking again is as safe as it was there, and spares each worker starting an
        # interpreter, importing the studio and reading the programs again
        if (chosen in (None, "fork", "forkserver") and _single_threaded()
                and "fork" in mp.get_all_start_methods()):
            _PREPARED = list(prepared)  # inherited by the forked workers
            ctx, blob = mp.get_context("fork"), None
        else:
            ctx, blob = mp.get_context("spawn"), pickle.dumps(list(prepared), protocol=pickle.HIGHEST_PROTOCOL)
        least = None if options is None else (options, list(digests) if digests is not None else None)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx, initializer=_init,
                                         initargs=(blob, profile, least))
        with signals_held():  # a signal's exception inside submit left its queue's lock held
            for _ in range(self.workers):  # every worker starts now, while the caller does other work
                self._pool.submit(int)

    def submit(self, pairs: Sequence[tuple[int, int]], deadline: float | None) -> list:
        """Futures, one per chunk of consecutive pairs (``CHUNK`` of them, more in a large batch:
        see ``CHUNKS_PER_WORKER``), each a list of (Δ num, Δ den, lower num, lower den, exact)."""
        pairs = list(pairs)
        size = max(CHUNK, min(MAX_CHUNK, len(pairs) // (CHUNKS_PER_WORKER * self.workers)))
        with signals_held():
            return [self._pool.submit(_chunk, pairs[k:k + size], deadline) for k in range(0, len(pairs), size)]

    def submit_least(self, rows: Sequence[int], cols: Sequence[int], start) -> object:
        """A future of ``PairEngine.least(rows, cols, start)`` on a worker (the pool was made with
        ``options`` and ``digests``): ((Δ num, Δ den, i, j) or None, [(i_digest, j_digest, num,
        den) of exact values found])."""
        if start is not None:
            start = (start[0].numerator, start[0].denominator, int(start[1]), int(start[2]))
        with signals_held():
            return self._pool.submit(_least, [int(x) for x in rows], [int(x) for x in cols], start)

    def stop(self) -> None:
        """Terminate the workers now (running searches included)."""
        from gindex_studio.core.support.pools import stop_pool_now

        stop_pool_now(self._pool)

    def close(self) -> None:
        """Let the workers finish what was submitted, then end them."""
        self._pool.shutdown(wait=True, cancel_futures=True)
