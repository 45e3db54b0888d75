"""One ``Budget`` for how long work may run and whether it was cancelled.

A ``Budget`` is made once, at the edge (a command of the command line, a window's runner, a
worker job), and passed down unchanged, to the C searches included:

- ``stop_at``: an absolute time on one clock, ``time.perf_counter()`` (the clock the C searches
  read: ``core/native/stop.c``), or None (no deadline);
- ``flag``: a ``CancelFlag`` (a ``threading.Event`` whose one-byte buffer the C searches read
  without the GIL); a child shares its parent's;
- ``poll``: None, or one more object with ``is_set()`` polled as a cancel (an older caller's
  ``cancel=`` object, a progress ticker).

What SIGINT and SIGTERM do is not the Budget's business: the edge decides it (``cli/signals.py``,
``cli/dispatch.py``); a search on the main thread runs Python's signal handlers, so a Ctrl-C that
raises KeyboardInterrupt there ends it.

``Budget.of(deadline, cancel)`` converts the older forms (relative seconds and any object with
``is_set()``) at the top of a public call; inside the core only Budgets travel.
"""
from __future__ import annotations

import threading
import time

from gindex_studio.core.support.cancel import Cancelled

#: the clock of every ``stop_at``
clock = time.perf_counter


class DeadlinePassed(Exception):
    """Work given a Budget found its stop time passed (``Budget.check``)."""


class CancelFlag(threading.Event):
    """A ``threading.Event`` that also stops a running C search: ``set()`` writes 1 to a one-byte
    buffer (``flag``) the search reads while it runs without the GIL; ``set_at`` is the
    ``clock()`` of the first ``set()`` (None until then)."""

    def __init__(self):
        super().__init__()
        self.flag = bytearray(1)  # read by the C search; never resized while a search holds it
        self.set_at: float | None = None

    def set(self) -> None:
        if self.set_at is None:
            self.set_at = clock()
        self.flag[0] = 1
        super().set()

    def clear(self) -> None:
        self.flag[0] = 0
        self.set_at = None
        super().clear()

    def is_set(self) -> bool:
        return self.flag[0] != 0


class Budget:
    """A stop time (``stop_at``, on ``clock``; None: none), a cancel flag and an optional polled
    canceller. ``is_set()`` and ``set()`` make it usable wherever a cancel token is taken."""

    __slots__ = ("stop_at", "cancel_flag", "poll")

    def __init__(self, stop_at: float | None = None, cancel_flag: CancelFlag | None = None, poll=None):
        self.stop_at = None if stop_at is None else float(stop_at)
        self.cancel_flag = CancelFlag() if cancel_flag is None else cancel_flag
        self.poll = poll

    # ---- made at the edge -------------------------------------------------------------------

    @classmethod
    def after(cls, seconds: float | None, *, started: float | None = None) -> "Budget":
        """A Budget of ``seconds`` from ``started`` (a ``clock()`` value; default: now); None:
        no deadline."""
        if seconds is None:
            return cls()
        return cls((clock() if started is None else started) + seconds)

    @classmethod
    def of(cls, deadline: float | None = None, cancel=None, *, started: float | None = None) -> "Budget":
        """The Budget of an older call's ``deadline`` (seconds from ``started``, default now) and
        ``cancel`` (None, a Budget, a ``CancelFlag`` or any object with ``is_set()``). A Budget
        given as ``cancel`` with no ``deadline`` is returned unchanged."""
        if isinstance(cancel, Budget):
            return cancel if deadline is None else cancel.child(deadline, started=started)
        stop_at = None if deadline is None else (clock() if started is None else started) + deadline
        if cancel is None or isinstance(cancel, CancelFlag):
            return cls(stop_at, cancel)
        return cls(stop_at, None, cancel)

    # ---- what work asks ---------------------------------------------------------------------

    @property
    def flag(self) -> bytearray:
        """The byte the C searches read (non-zero: cancelled)."""
        return self.cancel_flag.flag

    def left(self) -> float | None:
        """Seconds until the stop time (0.0 once past it); None without a deadline."""
        return None if self.stop_at is None else max(0.0, self.stop_at - clock())

    def expired(self) -> bool:
        """True once the stop time has passed."""
        return self.stop_at is not None and clock() > self.stop_at

    def cancelled(self) -> bool:
        """True once ``cancel()`` was called (on this Budget, its parent or a child) or the
        polled canceller is set."""
        return self.cancel_flag.is_set() or (self.poll is not None and bool(self.poll.is_set()))

    def check(self) -> None:
        """Raise ``Cancelled`` when cancelled, ``DeadlinePassed`` when the stop time passed."""
        if self.cancelled():
            raise Cancelled()
        if self.expired():
            raise DeadlinePassed()

    def child(self, seconds: float | None, *, started: float | None = None, poll=None) -> "Budget":
        """A sub-budget of at most ``seconds`` (from ``started``, default now; None: as long as
        this one) that never outlives this one: its stop time is the earlier of the two, it shares
        this cancel flag and polled canceller, and ``poll`` adds one more (replacing this one's
        only when this one has none)."""
        stop_at = self.stop_at
        if seconds is not None:
            mine = (clock() if started is None else started) + seconds
            stop_at = mine if stop_at is None else min(stop_at, mine)
        if poll is not None and self.poll is not None:
            poll = _Either(self.poll, poll)
        return Budget(stop_at, self.cancel_flag, poll if poll is not None else self.poll)

    # ---- cancel-token protocol --------------------------------------------------------------

    def cancel(self) -> None:
        """Cancel this Budget and every one sharing its flag (parent and children)."""
        self.cancel_flag.set()

    set = cancel

    def is_set(self) -> bool:
        return self.cancelled()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled or ``timeout`` seconds passed (as ``threading.Event.wait``, which a
        cancel token used to be); True when cancelled. A polled canceller is seen every 10 ms."""
        if self.poll is None:
            return self.cancel_flag.wait(timeout)
        end = None if timeout is None else clock() + timeout
        while not self.cancelled():
            if end is not None and clock() >= end:
                return False
            self.cancel_flag.wait(0.01)
        return True

    def __repr__(self) -> str:
        return f"Budget(stop_at={self.stop_at!r}, cancelled={self.cancelled()})"


class _Either:
    """Two polled cancellers as one."""

    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def is_set(self) -> bool:
        return bool(self.a.is_set()) or bool(self.b.is_set())

