"""The numbers a command line may hold, checked before any work starts.

``impossible_number(args)`` looks at the options every command shares (``--deadline``,
``--workers``, ``--dask-workers``, ``--compute``, ``--priors``, ``-k``) and returns one line
saying what is wrong with the first impossible one, or None. A NaN deadline would never expire
and a negative one would stop every search at once, so both are refused like zero workers are.
"""
from __future__ import annotations

import math
from typing import Any, Callable

# option attribute → (flag, test, what it must be)
_RULES: tuple[tuple[str, str, Callable[[Any], bool], str], ...] = (
    ("deadline", "--deadline", lambda v: math.isfinite(v) and v > 0, "a number of seconds above 0"),
    ("workers", "--workers", lambda v: v >= 1, "at least 1"),
    ("dask_workers", "--dask-workers", lambda v: v >= 1, "at least 1"),
    ("compute", "--compute", lambda v: math.isfinite(v) and v > 0, "a positive number"),
    ("priors", "--priors", lambda v: math.isfinite(v) and v >= 0, "a number >= 0"),
    ("k", "-k", lambda v: v >= 1, "at least 1"),
)


def impossible_number(args: Any) -> str | None:
    """One line naming the first option whose value cannot be meant, or None when all are fine."""
    for attr, flag, ok, what in _RULES:
        value = getattr(args, attr, None)
        if value is not None and not ok(value):
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            return f"{flag} must be {what}, got {shown}"
    return None
