"""Python's cyclic garbage collector, run on the GUI thread only.

The automatic collector runs in whichever thread happens to allocate past a threshold. In the
studio that is often a worker thread computing Δ, and the garbage it then frees can hold Qt
wrappers (a closed window, its actions, a finished job). Qt objects destroyed off the GUI thread
deadlock against it (seen: a worker in ``QObject::~QObject`` waiting for the GIL while the GUI
thread, holding the GIL, waited for the same object's mutex) or crash the process.

``collect_on_gui_thread(app)`` therefore switches the automatic collector off and collects from
a timer on the GUI thread, one generation at a time with Python's own thresholds. Objects freed
by reference counting are unaffected; only cycles wait for the next tick (at most
``INTERVAL_MS``, longer while the GUI thread is busy, and until its end while a long computation
keeps the heap frozen, see core/gcpause).
"""
from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QThread, QTimer

INTERVAL_MS = 200

_timer: QTimer | None = None


def due_generation(counts: tuple[int, int, int], thresholds: tuple[int, int, int]) -> int:
    """The generation CPython's own collector would collect at these ``gc.get_count()`` counts and
    ``gc.get_threshold()`` thresholds: the oldest whose count passed its threshold, once generation
    0's has; -1 when none is due. (CPython's extra condition on full collections, a quarter of the
    long-lived objects being new, is not visible from Python and is left out: with one collection
    per tick, full ones come at most every (t1 + 1)·(t2 + 1) ticks, about 24 s by default.)"""
    (c0, c1, c2), (t0, t1, t2) = counts, thresholds
    if c0 <= t0:
        return -1
    return 2 if c2 > t2 else 1 if c1 > t1 else 0


def collect_if_due() -> int:
    """Collect the generation that is due (``due_generation``), if any, on the calling thread (which
    must be the GUI thread); keeps the automatic collector off. Returns the generation collected,
    or -1."""
    if gc.isenabled():  # something switched it back on
        gc.disable()
    gen = due_generation(gc.get_count(), gc.get_threshold())
    if gen >= 0:
        gc.collect(gen)
    return gen


def collect_on_gui_thread(app: QCoreApplication) -> None:
    """Switch the automatic collector off and collect from a timer on ``app``'s thread
    (idempotent; call it on the GUI thread once the application exists)."""
    global _timer
    if _timer is not None:
        gc.disable()
        return
    assert QThread.currentThread() is app.thread(), "collect_on_gui_thread must be called on the GUI thread"
    gc.disable()
    _timer = QTimer(app)
    _timer.setInterval(INTERVAL_MS)
    _timer.timeout.connect(collect_if_due)
    _timer.start()


def is_installed() -> bool:
    return _timer is not None
