"""Repeated warnings, summarised: a 7-million-entry array must not print 7 million lines.

>>> summarise([f"entry {i} is not a node object" for i in range(5)] + ["other"], keep=2)
['entry 0 is not a node object', 'entry 1 is not a node object', '… and 3 more like "entry 0 is not a node object"', 'other']
"""
from __future__ import annotations

import re

_VARYING = re.compile(r"'[^']*'|\"[^\"]*\"|\d+")


def shape(message: str) -> str:
    """The message with its quoted parts and numbers blanked: warnings of one kind share it."""
    return _VARYING.sub("#", message)


def summarise(messages: list[str], keep: int = 3) -> list[str]:
    """``messages`` in order, each kind (see :func:`shape`) cut to its first ``keep`` and one line
    saying how many more there were, placed right after them."""
    counts: dict[str, int] = {}
    for m in messages:
        k = shape(m)
        counts[k] = counts.get(k, 0) + 1
    out: list[str] = []
    seen: dict[str, int] = {}
    first: dict[str, str] = {}
    for m in messages:
        k = shape(m)
        n = seen[k] = seen.get(k, 0) + 1
        first.setdefault(k, m)
        if n <= keep:
            out.append(m)
            if n == keep and counts[k] > keep:
                out.append(f"… and {counts[k] - keep:,} more like \"{first[k]}\"")
    return out
