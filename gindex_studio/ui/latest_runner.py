"""Core work off the GUI thread, latest request wins.

``LatestRunner.submit(fn)`` runs ``fn(partial, stale)`` on a one-thread pool; a newer ``submit``
drops the queued one and cancels the running one, and results of any request but the newest are
discarded on arrival, so the panel never shows a stale value. ``fn`` may call ``partial(value)`` to
show an anytime result first and ``stale()`` to give up early between phases. ``stale`` is the
request's ``Budget`` (no deadline; cancelled by the next ``submit``), made here at the edge: pass it
as ``cancel=`` (or ``budget=``) to the core search, which hands it unchanged to the C search, and a
stale search stops within a few milliseconds, so the worker moves on to the newest request at once.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from gindex_studio.core.support.budget import Budget
from gindex_studio.core.support.switching import switch_interval_at_most

#: the interpreter's thread switch interval while a worker searches. Every Qt call from the GUI
#: thread releases the GIL and must win it back from the CPU-bound worker; at the default 5 ms a
#: repaint of hundreds of calls would crawl (the "convoy" effect), at 1 ms it stays fluid.
WORKER_SWITCH_INTERVAL = 0.001
#: how long a worker waits for the GUI to put an anytime result on screen before searching on
PARTIAL_SHOWN_TIMEOUT = 1.0

class StaleToken(Budget):
    """The ``stale`` a job receives: ``stale()`` is True once a newer request was submitted, and
    as the request's ``Budget`` it stops a core search it is passed to (``cancel=stale``)."""

    def __call__(self) -> bool:
        return self.is_set()


class _Signals(QObject):
    partial = Signal(int, object, object)  # token, value, threading.Event set once it is shown
    done = Signal(int, object)
    failed = Signal(int, str)


class _Job(QRunnable):
    """One request. It holds no reference to the runner, and its signals object is the runner's
    child: when the pool deletes the job (in the worker thread), no Qt object goes with it."""

    def __init__(self, signals: _Signals, token: int, fn: Callable, stale: StaleToken):
        super().__init__()
        self.token, self.fn, self.stale = token, fn, stale
        self.signals = signals  # emitted from the worker thread; owned by the runner

    def run(self):
        token, stale = self.token, self.stale  # set by the next submit (or cancel)
        if stale():
            return

        def partial(v) -> None:
            # hand the anytime result over and let the GUI draw it before searching on: the
            # search would otherwise compete with the drawing for the interpreter
            shown = threading.Event()
            self.signals.partial.emit(token, v, shown)
            shown.wait(PARTIAL_SHOWN_TIMEOUT)

        try:
            with switch_interval_at_most(WORKER_SWITCH_INTERVAL):
                value = self.fn(partial, stale)
        except Exception as e:  # never let a worker exception vanish: show it
            self.signals.failed.emit(token, f"{type(e).__name__}: {e}")
            return
        self.signals.done.emit(token, value)


class LatestRunner(QObject):
    """Runs one job at a time off the GUI thread; only the newest request's results arrive."""

    partial = Signal(object)
    done = Signal(object)
    failed = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._latest = 0
        self._finished = 0
        self._stale: StaleToken | None = None  # the newest request's token
        self._signals = _Signals(self)  # a child: destroyed with the runner, on the GUI thread
        self._signals.partial.connect(self._on_partial)
        self._signals.done.connect(self._on_done)
        self._signals.failed.connect(self._on_failed)

    def submit(self, fn: Callable[[Callable[[Any], None], StaleToken], Any]) -> int:
        if self._stale is not None:
            self._stale.set()  # the running request is stale now: its search stops
        self._latest += 1
        self._stale = StaleToken()
        self.pool.clear()  # a queued, not yet started request is stale now
        self.pool.start(_Job(self._signals, self._latest, fn, self._stale))
        return self._latest

    def cancel(self) -> None:
        """Drop every request: the running search stops and no result arrives (closing)."""
        if self._stale is not None:
            self._stale.set()
            self._stale = None
        self.pool.clear()
        self._latest += 1
        self._finished = self._latest

    def shutdown(self) -> None:
        """Closing: ``cancel``, then wait until the running job has really ended, however long
        (every job given to a runner stops on its token). Call it before the runner, or anything
        receiving its signals, is destroyed: a worker emitting a result while the GUI thread
        destroys a receiver deadlocks (the emit holds Qt's connection lock and waits for the
        GIL, the destructor holds the GIL and waits for the lock)."""
        self.cancel()
        self.pool.waitForDone(-1)

    @property
    def busy(self) -> bool:
        return self._finished != self._latest

    def wait(self, ms: int = 30_000) -> bool:
        return self.pool.waitForDone(ms)

    def _on_partial(self, token: int, value, shown) -> None:
        try:
            if token == self._latest:
                self.partial.emit(value)
        finally:
            shown.set()

    def _on_done(self, token: int, value) -> None:
        if token == self._latest:
            self._finished = token
            self.done.emit(value)

    def _on_failed(self, token: int, message: str) -> None:
        if token == self._latest:
            self._finished = token
            self.failed.emit(message)
