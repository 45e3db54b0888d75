"""``ProcessRunner``: a ``LatestRunner`` that also runs heavy core work in a worker process.

``submit_process(fn, *args)`` runs ``fn(emit, *args)`` in a ``core.support.workers.Worker``; its
events arrive as ``event(kind, value)``, its value as ``done``, a failure as ``failed`` -- on the
GUI thread, read from the worker's pipe when a ``QSocketNotifier`` says it is readable, at most
``READ_BUDGET`` seconds at a time (the notifier fires again while events wait). Nothing of the
studio's process computes meanwhile, so the GUI thread never waits on the work.

The newest request wins across both kinds (``submit`` for thread jobs, ``submit_process``):
a newer one, ``cancel`` or ``shutdown`` kills the running worker process at once (and every
process it started); its events still in the pipe are dropped.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from PySide6.QtCore import QObject, QSocketNotifier, Signal

from gindex_studio.core.support.gcpause import frozen_heap, refreeze
from gindex_studio.core.support.workers import Worker, warm_up
from gindex_studio.ui.latest_runner import LatestRunner

#: seconds of reading the worker's events per turn of the event loop
READ_BUDGET = 0.008


class _Frozen:
    """The heap kept out of the cyclic collector's reach while a worker runs (``gcpause``): the
    studio's own data (an experiment, a workspace: about a million objects) would otherwise be
    walked by full collections on the GUI thread, 150-700 ms each, while the events stream in.
    ``hold()`` / ``release()`` are balanced by the caller (once each)."""

    def __init__(self):
        self._cm = None

    def hold(self) -> None:
        if self._cm is None:
            self._cm = frozen_heap()
            self._cm.__enter__()

    def release(self) -> None:
        cm, self._cm = self._cm, None
        if cm is not None:
            cm.__exit__(None, None, None)


def _watch(fn: Callable, args, parent: QObject, on_ready) -> tuple[Worker, QSocketNotifier]:
    """A started worker process running ``fn(emit, *args)`` and a notifier calling ``on_ready``
    when its events can be read."""
    worker = Worker(fn, *args).start()
    notifier = QSocketNotifier(worker.fileno(), QSocketNotifier.Read, parent)
    notifier.activated.connect(on_ready)
    return worker, notifier


def _unwatch(worker: Worker | None, notifier: QSocketNotifier | None) -> None:
    """Stop reading ``notifier`` (deleted later) and stop ``worker`` (either may be None)."""
    if notifier is not None:
        notifier.setEnabled(False)
        notifier.deleteLater()
    if worker is not None:
        worker.stop()


class ProcessRunner(LatestRunner):
    event = Signal(str, object)  # kind, value: a streamed event of the newest process job

    def __init__(self, parent=None):
        super().__init__(parent)
        self.worker: Worker | None = None
        self._notifier: QSocketNotifier | None = None
        self._token = 0
        self._frozen = _Frozen()
        warm_up()

    # ----- requests -----------------------------------------------------------------------------
    def submit(self, fn):
        self._stop_worker()
        return super().submit(fn)

    def submit_process(self, fn: Callable, *args: Any) -> int:
        """Run ``fn(emit, *args)`` in a worker process (``fn`` module-level, args picklable)."""
        self._stop_worker()
        if self._stale is not None:  # a running thread job is stale now
            self._stale.set()
            self._stale = None
        self.pool.clear()
        self._latest += 1
        self._token = self._latest
        self._frozen.hold()
        self.worker, self._notifier = _watch(fn, args, self, self._read)
        return self._token

    def cancel(self) -> None:
        self._stop_worker()
        super().cancel()

    def shutdown(self) -> None:
        self._stop_worker()
        super().shutdown()

    @property
    def pid(self) -> int | None:
        """The running worker process's id (None: none runs, or it is still starting)."""
        return self.worker.pid if self.worker is not None else None

    def wait(self, ms: int = 30_000) -> bool:
        """Until the thread job and the worker are done (the worker's events are delivered here,
        as they come), at most ``ms`` milliseconds. False on timeout."""
        end = time.monotonic() + ms / 1000
        while self.worker is not None:
            left = end - time.monotonic()
            if left <= 0:
                return False
            self._read(wait=min(left, 0.05))
        return super().wait(max(0, int((end - time.monotonic()) * 1000)))

    # ----- the worker's events ------------------------------------------------------------------
    def _stop_worker(self) -> None:
        _unwatch(self.worker, self._notifier)
        self.worker, self._notifier = None, None
        self._frozen.release()

    def _read(self, *_a, wait: float = 0.0) -> None:
        w, token = self.worker, self._token
        if w is None:
            return
        for kind, value in w.read(READ_BUDGET, wait):
            if self.worker is not w:  # a slot started something newer: the rest is stale
                return
            if kind == "done":
                self._stop_worker()
                self._on_done(token, value)
            elif kind == "failed":
                self._stop_worker()
                self._on_failed(token, value)
            else:
                self.event.emit(kind, value)


class WorkerJob(QObject):
    """One core call in a worker process, with the life of a ``QThread`` job: ``start()``,
    ``cancel()`` (kills the process at once; nothing arrives after it), ``isRunning()``,
    ``isFinished()``, ``wait(ms)`` (delivers the events here until it ends) and ``finished()``
    (done, failed or cancelled). Subclasses give ``call()`` -> (fn, args) and turn events into
    their signals in ``on_event(kind, value)``; ``on_done(value)``, ``on_failed(line)`` end it."""

    finished = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.worker: Worker | None = None
        self._notifier: QSocketNotifier | None = None
        self._state = "new"  # new, running, finished
        self._frozen = _Frozen()

    def call(self):
        raise NotImplementedError

    def on_event(self, kind: str, value) -> None:
        pass

    def on_done(self, value) -> None:
        pass

    def on_failed(self, line: str) -> None:
        pass

    def start(self) -> None:
        fn, args = self.call()
        self._frozen.hold()
        self.worker, self._notifier = _watch(fn, args, self, self._on_activated)
        self._state = "running"

    @property
    def pid(self) -> int | None:
        return self.worker.pid if self.worker is not None else None

    def isRunning(self) -> bool:
        return self._state == "running"

    def isFinished(self) -> bool:
        return self._state == "finished"

    def cancel(self) -> None:
        if self._state == "running":
            self._end()

    def wait(self, ms: int = 30_000) -> bool:
        end = time.monotonic() + ms / 1000
        while self._state == "running":
            left = end - time.monotonic()
            if left <= 0:
                return False
            self._read(wait=min(left, 0.05))
        return True

    def _end(self) -> None:
        self._state = "finished"
        _unwatch(self.worker, self._notifier)
        self._notifier = None
        self._frozen.release()
        self.finished.emit()

    def _on_activated(self, *_a) -> None:
        self._read()

    def _read(self, wait: float = 0.0) -> None:
        if self._state != "running":
            return
        for kind, value in self.worker.read(READ_BUDGET, wait):
            if self._state != "running":  # a slot cancelled the job
                return
            if kind == "done":
                self._end()
                self.on_done(value)
                # while another job keeps the heap frozen, the result and what its slots built (a
                # curation report: a 58 ms full collection on this thread) join the frozen heap
                refreeze()
            elif kind == "failed":
                self._end()
                self.on_failed(value)
            else:
                self.on_event(kind, value)
