"""The interpreter's thread switch interval, lowered while some thread asks for it.

A CPU-bound helper thread (a search, a pickling) holds the interpreter lock for a whole switch
interval each time the GUI thread gives it up; a shorter interval keeps the GUI fluid meanwhile.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

_lock = threading.Lock()
_wanted: list[float] = []  # the interval each open block asks for
_saved = 0.005  # the interval before the first open block


@contextmanager
def switch_interval_at_most(seconds: float) -> Iterator[None]:
    """Within the block ``sys.getswitchinterval()`` is at most ``seconds`` (the least that any
    open block, in any thread, asks for); when the last open block ends, the interval from before
    the first one comes back. Blocks nest and overlap across threads."""
    global _saved
    with _lock:
        if not _wanted:
            _saved = sys.getswitchinterval()
        _wanted.append(seconds)
        sys.setswitchinterval(min([_saved, *_wanted]))
    try:
        yield
    finally:
        with _lock:
            _wanted.remove(seconds)
            sys.setswitchinterval(min([_saved, *_wanted]))
