"""Keep Python's cyclic garbage collector off large, long-lived data while long work runs.

A full collection walks every object the collector tracks while holding the GIL: with an
experiment and its curriculum in memory (about a million objects) one takes 150-250 ms, during
which no other thread runs (the studio's GUI thread included), and the repeated ones were a third
of Ω's time.

Contract of ``frozen_heap()``: inside it, every object that exists is out of the collector's reach
(``gc.freeze``); ``refreeze()`` does the same for objects made since (call it while building large
data). Nothing is lost: objects are still freed by reference counting, and on leaving the outermost
``frozen_heap`` block every frozen object is given back to the collector (``gc.unfreeze``), so
cyclic garbage among them is collected later instead of during the work. Blocks nest and may be
entered from several threads: the objects are given back when the last block is left.

``collector_off()`` goes further for one-shot work in a process of its own (a CLI command): the
collector does not run at all inside it. Reading a 100,000-node flow makes about half a million
tracked objects, and the collections that their growth sets off were a third of ``score``'s CPU.
Only for work whose objects form no cycles worth reclaiming before it ends (parsed JSON, the
reduction and the report do not).
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0


@contextmanager
def frozen_heap():
    """Freeze the heap for the block (see the module's contract)."""
    global _depth
    with _lock:
        _depth += 1
        gc.freeze()
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.unfreeze()


def refreeze() -> None:
    """Inside a ``frozen_heap`` block: freeze the objects made since it was entered; outside: nothing."""
    with _lock:
        if _depth > 0:
            gc.freeze()


def active() -> bool:
    """True inside a ``frozen_heap`` block (of any thread)."""
    return _depth > 0


@contextmanager
def collector_off():
    """The cyclic collector off for the block, back as it was after it (see the module's note:
    for one-shot work in its own process, on the main thread)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
