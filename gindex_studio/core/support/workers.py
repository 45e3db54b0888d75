"""Core work in a worker process of its own, its events streamed back (no Qt here).

Why: scoring in a thread of the studio's process holds the interpreter lock for long stretches
(native searches, pickling, garbage collection), and the GUI thread waits on it. A worker process
has its own interpreter; the studio only reads small messages from a pipe.

Contract of ``Worker(fn, *args)``:

- ``start()`` returns at once. A helper thread starts the process (from a fork server: a clean
  interpreter with the core imported, never a fork of the studio's threads; ``spawn`` where there
  is no fork server) and sends it ``args``, pickled by a pickler that is a Python call per object,
  so the thread gives the interpreter lock up every few milliseconds however large ``args`` is.
- In the process, ``fn(emit, *args)`` runs; ``emit(kind, value)`` sends an event back at once.
  Its return value ends the stream as ``("done", value)``; an exception as ``("failed", line)``.
- ``fileno()`` is readable when events wait; ``read(budget)`` returns those that arrived (without
  blocking, for at most ``budget`` seconds). When the process ends without a last event, a
  ``("failed", …)`` one is made. ``ended`` is True once the last event was read; the process,
  ending on its own then, is joined by a thread of its own (the reader never waits for it).
- ``stop()`` kills the process and every process it started (its process group) at once.

A worker runs at a lower priority (``WORKER_NICE``): the studio's GUI thread is served first.
``fn`` must be a module-level function (it is sent by name). Keep events small: the reader
unpickles them on the GUI thread. As with any ``spawn``/``forkserver`` start, the program's main
module must keep its work under ``if __name__ == "__main__":`` (the fork server imports it).
"""
from __future__ import annotations

import atexit
import io
import multiprocessing as mp
import os
import pickle
import signal
import struct
import threading
import time
import weakref
from typing import Any, Callable

from gindex_studio.core.support.switching import switch_interval_at_most

#: modules the fork server imports once, so a worker starts with the core ready
PRELOAD = [
    "gindex_studio.core.support.workers",
    "gindex_studio.core.benchmark.gindex",
    "gindex_studio.core.benchmark.analysis",
    "gindex_studio.core.curation.analysis",
]

#: how much lower a worker's scheduling priority is than the studio's (``os.nice``)
WORKER_NICE = 10

_context_lock = threading.Lock()
_context = None


#: the fork server listens on a unix socket in ``<temp>/pymp-XXXXXXXX/listener-XXXXXXXX``: this
#: much is added to the temporary folder's path, and a socket path holds at most 107 bytes
_FORKSERVER_SOCKET_TAIL = len("/pymp-12345678/listener-12345678")


def _forkserver_fits() -> bool:
    """Whether the fork server's socket path fits in a unix socket here (a deep ``TMPDIR`` makes
    it fail to start, and the workers waiting for it wait for ever)."""
    import tempfile

    return len(os.fsencode(tempfile.gettempdir())) + _FORKSERVER_SOCKET_TAIL <= 107


def context():
    """The multiprocessing context of workers: ``forkserver`` (preloading ``PRELOAD``) where the
    platform has it and its socket fits in the temporary folder's path, else ``spawn``."""
    global _context
    with _context_lock:
        if _context is None:
            if "forkserver" in mp.get_all_start_methods() and _forkserver_fits():
                _context = mp.get_context("forkserver")
                _context.set_forkserver_preload(PRELOAD)
            else:
                _context = mp.get_context("spawn")
        return _context


def warm_up() -> None:
    """Start the fork server now, in a daemon thread (the first worker then starts in
    milliseconds). Safe to call often."""
    ctx = context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        threading.Thread(target=forkserver.ensure_running, name="gindex-forkserver", daemon=True).start()


class _YieldingPickler(pickle.Pickler):
    """A pickler that calls Python once per object: a thread running it lets other threads (the
    GUI's) take the interpreter lock at the switch interval instead of after the whole dump."""

    def persistent_id(self, obj):  # noqa: D401 - the hook; nothing is persistent
        return None


#: the interpreter's thread switch interval while a helper thread pickles a worker's arguments:
#: every Qt call of the GUI thread gives the interpreter lock up and waits up to this long to get
#: it back (at the default 5 ms a repaint of a hundred calls took 120 ms meanwhile)
PICKLING_SWITCH_INTERVAL = 0.0005

def dumps_yielding(obj: Any) -> bytes:
    """``pickle.dumps(obj)`` that yields the interpreter lock as it goes (see ``_YieldingPickler``),
    at a short switch interval (``PICKLING_SWITCH_INTERVAL``) meanwhile."""
    with switch_interval_at_most(PICKLING_SWITCH_INTERVAL):
        buf = io.BytesIO()
        _YieldingPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
        return buf.getvalue()


def _child(fn: Callable, inbox, outbox) -> None:
    """The worker process: its own process group (``stop`` kills it whole; Ctrl-C in a terminal
    reaches the studio, which stops it), then ``fn(emit, *args)``."""
    try:
        os.setpgrp()
    except (AttributeError, OSError):
        pass
    try:
        os.nice(WORKER_NICE)  # batch work: the studio's GUI thread gets a core first
    except (AttributeError, OSError):
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def emit(kind: str, value: Any = None) -> None:
        outbox.send_bytes(pickle.dumps((kind, value), pickle.HIGHEST_PROTOCOL))

    try:
        args = pickle.loads(inbox.recv_bytes())
        inbox.close()
        value = fn(emit, *args)
    except BaseException as e:  # noqa: BLE001 - every failure is reported, in one line
        try:
            emit("failed", f"{type(e).__name__}: {e}")
        except OSError:
            pass
        return
    emit("done", value)


_live: "weakref.WeakSet[Worker]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """At exit, no worker outlives the studio (and multiprocessing does not wait for one)."""
    for w in list(_live):
        w.stop()


def _wait_readable(fd: int, timeout: float) -> None:
    """Until ``fd`` is readable or ``timeout`` seconds passed."""
    import select

    select.select([fd], [], [], timeout)


class _Frames:
    """The messages of a ``multiprocessing`` pipe's read end (``Connection.send_bytes`` frames: a
    4-byte big-endian length, or -1 then an 8-byte one, then the bytes), read without blocking:
    ``next()`` returns the next whole message, or None while it has not all arrived (what came is
    kept), and raises EOFError once the writing end is closed. Only the bytes of the message
    under way are read, so the pipe stays readable while more messages wait in it."""

    def __init__(self, fd: int):
        os.set_blocking(fd, False)
        self.fd = fd
        self._buf = bytearray()
        self._want = 4  # bytes of the header, then of the message
        self._stage = "size"  # size, long size (after -1), body

    def next(self) -> bytes | None:
        while True:
            missing = self._want - len(self._buf)
            if missing > 0:
                try:
                    chunk = os.read(self.fd, min(missing, 1 << 20))
                except (BlockingIOError, InterruptedError):
                    return None
                if not chunk:
                    raise EOFError("the worker's pipe closed")
                self._buf += chunk
                continue
            data, self._buf = bytes(self._buf), bytearray()
            if self._stage == "body":
                self._stage, self._want = "size", 4
                return data
            size = struct.unpack("!i", data)[0] if self._stage == "size" else struct.unpack("!Q", data)[0]
            if self._stage == "size" and size == -1:
                self._stage, self._want = "long size", 8
            else:
                self._stage, self._want = "body", size
                if size == 0:
                    self._stage, self._want = "size", 4
                    return b""


class Worker:
    """One call of ``fn(emit, *args)`` in a worker process (see the module's contract)."""

    def __init__(self, fn: Callable, *args: Any):
        self.fn, self.args = fn, args
        self._events, self._child_out = mp.Pipe(duplex=False)  # (read end, write end)
        self._frames = _Frames(self._events.fileno())  # the read end, without blocking
        self._child_in, self._inbox = mp.Pipe(duplex=False)
        self.process = None
        self.ended = False
        self._stopped = threading.Event()
        self._started = threading.Event()
        self.error: str | None = None  # why the helper thread could not start the process
        self._reaping = False  # the stream ended and the helper thread joins the process (``_reap``)
        self._stream_ended = threading.Event()  # the last event was read, or stop()

    # ----- life -----------------------------------------------------------------------------
    def start(self) -> "Worker":
        threading.Thread(target=self._launch, name="gindex-worker-launch", daemon=True).start()
        return self

    def _launch(self) -> None:
        """The helper thread: start the process, then send it its arguments. Only this thread
        touches the sending end (``stop`` kills the process: the send then fails and ends).
        Then it waits for the stream's end and joins the process (``_reap``): the reader, the
        GUI thread, never waits for a process to exit, nor for a thread to start."""
        self._start_and_send()
        if self.process is not None:
            self._stream_ended.wait()
            if not self._stopped.is_set():
                _reap(self.process)

    def _start_and_send(self) -> None:
        try:
            if self._stopped.is_set():
                return
            # not a daemon: a daemon may not start processes (Ω's pool); _stop_all ends it at exit
            proc = context().Process(target=_child, args=(self.fn, self._child_in, self._child_out))
            proc.start()
            self.process = proc
            _live.add(self)
            if self._stopped.is_set():  # stopped while starting
                self._kill()
                return
            self._child_in.close()
            self._child_out.close()  # only the child writes now: its end closing means it ended
            blob = dumps_yielding(self.args)
            self.args = None
            self._inbox.send_bytes(blob)
        except (OSError, EOFError, ValueError, TypeError) as e:
            if not self._stopped.is_set():
                self.error = f"the worker process could not start: {e}"
        finally:
            for conn in (self._inbox, self._child_in, self._child_out):
                try:
                    conn.close()  # the read end sees the end of the stream when nothing started
                except OSError:
                    pass
            self._started.set()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def stop(self) -> None:
        """Kill the process and the processes it started, now; no event is read after this."""
        self._stopped.set()
        self.ended = True
        self._kill()
        self._stream_ended.set()
        try:
            self._events.close()
        except OSError:
            pass

    def _kill(self) -> None:
        proc = self.process
        if proc is None or self._reaping:  # its stream ended: the reaper ends it (``_reap``)
            return
        pid = proc.pid
        if proc.exitcode is not None:  # ended and reaped: its id may be another process's now
            return
        try:
            os.killpg(pid, signal.SIGKILL)  # the worker's group: its own pool processes too
        except (AttributeError, OSError):
            try:
                proc.kill()
            except (OSError, ValueError):
                pass
        try:
            proc.join(2.0)
        except (AssertionError, ValueError):
            pass

    def alive(self) -> bool:
        """The process (or its start) is still going."""
        p = self.process
        return (p is None and not self._started.is_set()) or (p is not None and p.is_alive())

    # ----- events -----------------------------------------------------------------------------
    def fileno(self) -> int:
        return self._events.fileno()

    def read(self, budget: float = 0.008, wait: float = 0.0) -> list[tuple[str, Any]]:
        """Events that arrived, read for at most ``budget`` seconds (waiting up to ``wait``
        seconds for the first). The last event is ``done`` or ``failed``.

        Never waits for the writer: the bytes of an event still being written (a large result
        comes in many pieces from a process of lower priority) are kept until the rest arrives,
        and the call returns what is complete (the pipe turns readable again with the rest)."""
        if self.ended:
            return []
        out: list[tuple[str, Any]] = []
        end = time.perf_counter() + budget
        try:
            if wait > 0:
                _wait_readable(self._frames.fd, wait)
            while True:
                blob = self._frames.next()
                if blob is None:
                    break
                kind, value = pickle.loads(blob)
                out.append((kind, value))
                if kind in ("done", "failed"):
                    self.ended = True
                    break
                if time.perf_counter() >= end:
                    break
        except (EOFError, OSError):
            self.ended = True
            if self.error:
                out.append(("failed", self.error))
            else:
                code = self.process.exitcode if self.process is not None else None
                if self.process is not None and code is None:
                    self.process.join(1.0)
                    code = self.process.exitcode
                out.append(("failed", f"the worker process ended unexpectedly (exit code {code})"))
        if self.ended and self.process is not None:
            self._reaping = True  # the process ends on its own now: the helper thread joins it
            self._stream_ended.set()
        return out

#: seconds a worker may take to exit after its last event before its reaper kills it
REAP_SECONDS = 10.0


def _reap(proc) -> None:
    """Join ``proc`` (a worker whose stream ended); kill its group if it has not exited after
    ``REAP_SECONDS``. Only this thread waits on it from then on."""
    try:
        proc.join(REAP_SECONDS)
        if proc.exitcode is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (AttributeError, OSError):
                proc.kill()
            proc.join(2.0)
    except (AssertionError, ValueError, OSError):
        pass


def run(fn: Callable, *args: Any, timeout: float | None = None):
    """``fn(emit, *args)`` in a worker, waited for here; yields its events and returns its value
    (a generator: ``value = yield from run(...)``). Raises RuntimeError(line) when it failed."""
    w = Worker(fn, *args).start()
    end = None if timeout is None else time.monotonic() + timeout
    try:
        while True:
            if end is not None and time.monotonic() > end:
                raise TimeoutError("the worker did not finish in time")
            for kind, value in w.read(0.05, wait=0.05):
                if kind == "done":
                    return value
                if kind == "failed":
                    raise RuntimeError(value)
                yield kind, value
    finally:
        if not w.ended:
            w.stop()
