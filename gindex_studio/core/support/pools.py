"""Process pools that stop at once and start only when it is safe: the helpers ``omega_many``,
the matrix rows (``benchmark.matrix``) and the curation pool (``curation.pairpool``) share."""
from __future__ import annotations

import queue
from contextlib import contextmanager


class Finished:
    """A pool's futures as they finish, waited for without ``concurrent.futures.wait``: that takes
    every future's lock in turn, and an exception a signal handler raised meanwhile (Ctrl-C,
    SIGTERM) left some held for ever; the pool's manager thread then blocked setting a result,
    and stopping the pool waited for it (a hang, seen with 10,000 tasks). Here each future puts
    itself on a queue when done (``add_done_callback``); ``left`` counts those not yet taken."""

    def __init__(self, futures):
        self._done: queue.SimpleQueue = queue.SimpleQueue()
        self.left = len(futures)
        for f in futures:
            f.add_done_callback(self._done.put)

    def next(self, timeout: float | None = None):
        """The next finished future, or None when none finished within ``timeout`` seconds."""
        try:
            f = self._done.get(timeout=timeout)
        except queue.Empty:
            return None
        self.left -= 1
        return f


def stop_pool_now(pool) -> None:
    """Stop a ``ProcessPoolExecutor`` at once: queued work is dropped and running workers are
    terminated (a search in C does not return until it ends; shutting down would wait for it).
    Once they are gone the pool's manager thread is joined, so that nothing of the pool is left
    for the interpreter's exit to wake (which then raced its closing pipe: "Bad file descriptor")."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        try:
            proc.terminate()
        except Exception:
            pass
    for proc in procs:
        try:
            proc.join(1.0)
            if proc.is_alive():  # a loaded machine: SIGTERM not yet handled after a second
                proc.kill()
                proc.join(1.0)
        except Exception:
            pass
    pool.shutdown(wait=not any(p.is_alive() for p in procs), cancel_futures=True)


def _single_threaded() -> bool:
    """True when no other thread could hold a lock at a fork: ``threading`` knows of one thread and
    Qt is not loaded (Qt runs threads that ``threading`` does not list). The operating system's
    own count is no help: numpy's BLAS keeps idle threads that are safe to fork beside."""
    import sys
    import threading

    return threading.active_count() == 1 and "PySide6.QtCore" not in sys.modules


@contextmanager
def _interrupts_held():
    """Ctrl-C waits until the block has run (POSIX, main thread; elsewhere nothing changes). An
    interrupt landing inside ``ProcessPoolExecutor``'s start-up left its manager thread created
    but not started (``shutdown`` then raised RuntimeError) or a worker not yet registered (not
    terminated, searching on). Threads started in the block keep Ctrl-C blocked: it reaches the
    main thread."""
    import signal
    import threading

    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
