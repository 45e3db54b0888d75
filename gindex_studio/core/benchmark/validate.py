"""Validating experiment-like JSON files (experiments, studies): one-line errors that name the file,
the field path and what is wrong. Shared by :mod:`~gindex_studio.core.benchmark.experiment` and
:mod:`~gindex_studio.core.benchmark.study`.

>>> ctx = Ctx("exp.json")
>>> str(ctx.fail("tasks[2].id", "must not be empty"))
'exp.json: tasks[2].id: must not be empty'
>>> positive(ctx, "compute.total", 2.5)
2.5
>>> describe(10**30)
'a 31-digit number'
"""
from __future__ import annotations

import difflib
import math
import os
from pathlib import Path
from typing import Any

from gindex_studio.core.flows.flow import FlowError, json_problem, loads_json, read_user_file


class ExperimentError(Exception):
    """An experiment that cannot be used, with one line saying where and what is wrong."""


class Ctx:
    """Where validation is: the file, so that every error names it."""

    def __init__(self, file: Path | str):
        self.file = str(file)

    def fail(self, where: str, what: str) -> ExperimentError:
        return ExperimentError(f"{self.file}: {where}: {what}" if where else f"{self.file}: {what}")


def describe(value: Any) -> str:
    """A value as an error message names it: short, and never a 400-digit number in full."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) >= 10**20:
        return f"a {len(str(abs(value)))}-digit number"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    return {"list": "a list", "dict": "an object"}.get(type(value).__name__, type(value).__name__)


def is_number(value: Any) -> bool:
    """An int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def finite(value: Any) -> bool:
    """A number that a float can hold (JSON integers have no size limit: 10^400 is not one)."""
    try:
        return is_number(value) and math.isfinite(value)
    except OverflowError:
        return False


#: The largest count (samples) an experiment may hold: a 64-bit JSON integer, what every JSON
#: writer and reader takes exactly (orjson refuses more; 10^30 samples is no training set).
MAX_COUNT = 2**63 - 1


def positive(ctx: Ctx, where: str, value: Any) -> float:
    """*value* if it is a finite number > 0 (an integer beyond 64 bits as a float); otherwise ``ctx.fail``."""
    if not finite(value) or value <= 0:
        raise ctx.fail(where, f"must be a positive number, got {describe(value)}")
    return float(value) if isinstance(value, float) or value > MAX_COUNT else value


def count(ctx: Ctx, where: str, value: Any, float_ok: bool = True) -> int:
    """*value* as a whole number from 0 to ``MAX_COUNT`` (a whole float too with ``float_ok``);
    otherwise ``ctx.fail``."""
    n = int(value) if isinstance(value, float) and float_ok and value.is_integer() and value >= 0 else value
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ctx.fail(where, f"must be a whole number >= 0, got {describe(value)}")
    if n > MAX_COUNT:
        raise ctx.fail(where, f"is too large: at most {MAX_COUNT:,} (2**63 − 1), got {describe(value)}")
    return n


def string(ctx: Ctx, where: str, value: Any, *, empty_ok: bool = False) -> str:
    """*value* if it is a string (not blank unless *empty_ok*); otherwise ``ctx.fail``."""
    if not isinstance(value, str):
        raise ctx.fail(where, f"must be a string, got {describe(value)}")
    if not empty_ok and not value.strip():
        raise ctx.fail(where, "must not be empty")
    return value


def object_of(ctx: Ctx, where: str, value: Any) -> dict:
    """*value* if it is a JSON object; otherwise ``ctx.fail``."""
    if not isinstance(value, dict):
        raise ctx.fail(where, f"must be an object, got {describe(value)}")
    return value


def unknown_keys(ctx: Ctx, where: str, obj: dict, known: tuple[str, ...]) -> None:
    """Fail on the first key of *obj* not in *known* (``x-`` and ``_`` keys are free), suggesting the nearest."""
    for key in obj:
        if key in known or key.startswith("x-") or key.startswith("_"):
            continue
        close = difflib.get_close_matches(key, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"
        prefix = f"{where}." if where else ""
        raise ctx.fail(f"{prefix}{key}", f"unknown field{hint}")


def rel_label(path: Path, base: Path) -> str:
    """*path* relative to *base*, in forward slashes, as a file records it."""
    try:
        return Path(os.path.relpath(path, base)).as_posix()
    except ValueError:  # another drive
        return path.as_posix()


def resolve(base: Path, written: str) -> Path:
    """A path as written in a file (``~`` expanded), relative to the file's folder *base*."""
    p = Path(written).expanduser()
    return p if p.is_absolute() else base / p


def read_json(path: Path) -> Any:
    """The parsed JSON of an experiment file; ExperimentError with one line otherwise."""
    try:
        data = read_user_file(path, "an experiment file")
    except FlowError as e:
        raise ExperimentError(str(e)) from None
    try:
        return loads_json(data)
    except ValueError as e:
        raise ExperimentError(f"{path}: {json_problem(e)}") from None
