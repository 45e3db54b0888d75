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
        with signals_held():  # each callback is added under the future's lock
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


def done_result(future):
    """``future.result()`` of a finished future, read with the signals that Python handles held:
    ``result()`` takes the future's lock in Python code, where a handler's exception could land
    just after the lock was taken and leave it held (the pool's manager thread, setting the next
    result, then blocks for ever and stopping the pool waits for it)."""
    with signals_held():
        return future.result()


def result_of(future):
    """``future.result()``, waiting in ``SimpleQueue.get`` (C: a signal's exception leaves no lock
    held) instead of in the future's own lock."""
    Finished([future]).next()
    return done_result(future)


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


def worker_signals() -> None:
    """A pool worker's signals, set first thing in its initializer: Ctrl-C is ignored (it is the
    parent's, which stops every worker at once: ``stop_pool_now``), SIGTERM ends the worker (the
    handler a worker forked inside ``signals_held`` inherited only notes it, and a command line's
    turns it into an exception the worker survives: ``stop_pool_now`` then waited its second for
    each worker and killed it) and every signal is unblocked (a mask is inherited too)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_SETMASK, set())


_VALID: tuple = ()  # the signal numbers this system knows (signal.valid_signals() takes 0.1 ms)


def _python_handled() -> list:
    """The signals whose handler is Python code (Ctrl-C's default handler included): those whose
    handler can raise an exception in the main thread between any two bytecodes."""
    global _VALID
    import signal

    if not _VALID:
        _VALID = tuple(sorted(int(s) for s in signal.valid_signals()))
    out = []
    for s in _VALID:
        try:
            if callable(signal.getsignal(s)):
                out.append(s)
        except (ValueError, OSError):
            pass
    return out


@contextmanager
def signals_held():
    """Every signal handled in Python (Ctrl-C, the command line's SIGTERM, an alarm) waits until the
    block has run, then its handler runs (main thread; elsewhere nothing changes). An exception a
    handler raised inside ``ProcessPoolExecutor``'s start-up left its manager thread created but not
    started (``shutdown`` then raised RuntimeError) or a worker not yet registered (not terminated,
    searching on); one raised inside ``submit``, just after a lock of its work queue was taken, left
    that lock held for ever: the manager thread blocked on it, and stopping the pool waited for the
    manager (a hang, 1 in about 50 interrupted runs under load).

    The handlers are swapped for one that notes the signal, not the signals blocked: blocking them
    in this thread does not stop another thread from receiving one, and Python runs its handler in
    this thread all the same. A handler already due runs before the block (a signal noted by a
    handler of an outer block is handed to it)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list = []
    before = {}
    try:
        for s in _python_handled():  # (a handler due meanwhile may raise here: restored below)
            before[s] = signal.getsignal(s)
            signal.signal(s, lambda *args: noted.append(args))
        yield
    finally:
        raised = None
        for s, handler in before.items():  # each one back, whatever a handler due meanwhile raises
            try:
                signal.signal(s, handler)
            except BaseException as e:
                raised = raised or e
                signal.signal(s, handler)
        if raised is not None:
            raise raised
        for signum, frame in noted:  # in order; the first that raises ends the replay
            handler = before.get(signum)
            if callable(handler):
                handler(signum, frame)
