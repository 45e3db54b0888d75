"""A nesting limit for JSON read from files a user names or a model wrote: deeply nested input
must be one clear error, never a RecursionError from the parser or from code that walks the value.

``loads(text)`` is ``json.loads`` that also refuses values nested deeper than ``MAX_DEPTH``
(arrays and objects; the check walks the value without recursion). ``depth_problem(value)`` and
``checked(value)`` say the same of a value parsed elsewhere (flow files: ``flow.loads_json``).
"""
from __future__ import annotations

import json

#: the one nesting limit of every JSON a user or a model gives (flows, Flatland, libraries,
#: experiments): Node-RED's own flows nest about ten levels
MAX_DEPTH = 100
_CONTAINERS = (dict, list, tuple)


class NestingError(ValueError):
    """A value nested deeper than the limit."""


def too_deep(limit: int) -> str:
    """The words for a value nested deeper than ``limit``."""
    return f"nested deeper than {limit} levels (the limit for arrays and objects)"


def depth_problem(value, limit: int = MAX_DEPTH) -> str | None:
    """Why ``value`` (parsed JSON: dicts, lists, tuples) is too deeply nested, or None. Iterative,
    level by level: any depth is safe to check, and a parsed flow costs about a quarter of its
    parsing."""
    level = [value] if type(value) in _CONTAINERS else []
    depth = 1
    while level:
        if depth > limit:
            return too_deep(limit)
        below = []
        for c in level:
            for x in (c.values() if type(c) is dict else c):
                if type(x) in _CONTAINERS:
                    below.append(x)
        level, depth = below, depth + 1
    return None


def checked(value, limit: int = MAX_DEPTH):
    """``value`` itself; raises NestingError when it is nested deeper than ``limit``."""
    problem = depth_problem(value, limit)
    if problem:
        raise NestingError(problem)
    return value


def loads(text: str | bytes, limit: int = MAX_DEPTH):
    """``json.loads(text)``; raises ``json.JSONDecodeError`` for broken JSON and NestingError for
    a value nested deeper than ``limit`` (also one too deep for the parser itself)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise NestingError(too_deep(limit)) from None
    return checked(value, limit)
