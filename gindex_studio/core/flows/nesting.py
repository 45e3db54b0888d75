"""A nesting limit for JSON read from files a user names or a model wrote: deeply nested input
must be one clear error, never a RecursionError from the parser or from code that walks the value.

``loads(text)`` is ``json.loads`` that also refuses values nested deeper than ``MAX_DEPTH``
(arrays and objects; the check walks the value with an explicit stack). ``depth_problem(value)``
says the same of a value parsed elsewhere.
"""
from __future__ import annotations

import json

MAX_DEPTH = 100


class NestingError(ValueError):
    """A value nested deeper than the limit."""


def _too_deep(limit: int) -> str:
    return f"nested deeper than {limit} levels (the limit for arrays and objects)"


def depth_problem(value, limit: int = MAX_DEPTH) -> str | None:
    """Why ``value`` is too deeply nested, or None. Iterative: any depth is safe to check."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            items = v.values()
        elif isinstance(v, (list, tuple)):
            items = v
        else:
            continue
        if d > limit:
            return _too_deep(limit)
        stack.extend((x, d + 1) for x in items if isinstance(x, (dict, list, tuple)))
    return None


def loads(text: str | bytes, limit: int = MAX_DEPTH):
    """``json.loads(text)``; raises ``json.JSONDecodeError`` for broken JSON and NestingError for
    a value nested deeper than ``limit`` (also one too deep for the parser itself)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise NestingError(_too_deep(limit)) from None
    problem = depth_problem(value, limit)
    if problem:
        raise NestingError(problem)
    return value
