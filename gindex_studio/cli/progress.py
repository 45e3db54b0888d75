"""Progress of long command-line work on stderr: shown when stderr is a terminal or with
``--progress``, never mixed into stdout (which may be JSON).

``Ticker`` is handed to the search as its Budget's polled canceller (``budget.child(None,
poll=ticker)``): the search polls ``is_set()`` every 128 search nodes (4096 in C), so counting the
polls counts the nodes explored without touching the search.
"""
from __future__ import annotations

import sys
import time


def wanted(args) -> bool:
    """Progress is shown on a terminal, or everywhere with ``--progress``."""
    return bool(getattr(args, "progress", False)) or sys.stderr.isatty()


def say(line: str, final: bool = False) -> None:
    """Rewrite the progress line (``final``: end it with a newline)."""
    sys.stderr.write("\r\033[K" + line + ("\n" if final else ""))
    sys.stderr.flush()


def counter(label: str, total: int, unit: str):
    """A ``progress(done, total)`` callback that rewrites ``label: done/total unit`` (ending the
    line when all is done); shows ``0/total`` at once."""
    say(f"{label}: 0/{total} {unit}")

    def show(done: int, total: int) -> None:
        say(f"{label}: {done}/{total} {unit}", final=done == total)

    return show


class Ticker:
    """A never-set canceller that reports the search every ``every`` seconds."""

    def __init__(self, what: str, hint: str = "", every: float = 0.5):
        self.what, self.hint, self.every = what, hint, every
        self.polls = 0
        self.start = time.monotonic()
        self.last = self.start
        self.shown = False
        from gindex_studio.core.scoring.matching import native_search_available

        # the Python search polls every 128 nodes, the C search polls other objects every 4096
        self.nodes_per_poll = 4096 if native_search_available() else 128

    def is_set(self) -> bool:
        self.polls += 1
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self.shown = True
            say(f"{self.what}: {self.polls * self.nodes_per_poll:,} search nodes explored, "
                f"{now - self.start:.0f} s{self.hint}")
        return False

    def done(self) -> None:
        if self.shown:
            say("")
