"""What the command modules share: the bad-input error, JSON and table output, option types and
reading helpers.

Contracts: a command reports bad input by raising :class:`InputError` (one line on stderr, exit
status 1); an option type raises ``argparse.ArgumentTypeError`` (a usage error naming the option,
exit status 2, before any work). This module imports nothing heavy at its top (no orjson, numpy or
Qt): every command's parser is built on each run.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence


class InputError(Exception):
    """Bad input from the user: reported as one line, exit status 1."""


#: Where the studio's windows come from when the core was installed without them.
GUI_HINT = "install the studio's windows with: pip install 'gindex-studio[gui]'"


def qt_missing(e: ImportError) -> bool:
    """True when ``e`` says PySide6 (or a piece of it) is not installed."""
    return "PySide6" in str(e) or (getattr(e, "name", None) or "").startswith(("PySide6", "shiboken6"))


def needs_gui(what: str, e: ImportError) -> InputError:
    """The one line for ``what`` failing to import Qt: what to install when PySide6 is absent,
    else the import error itself (Qt installed but broken)."""
    if qt_missing(e):
        return InputError(f"{what} needs Qt, which is not installed; {GUI_HINT}")
    return InputError(f"{what} cannot start: {e}")


# ----- output -----------------------------------------------------------------------------------

#: line breaks and other control characters (C0, DEL, C1, the Unicode line and paragraph
#: separators) → their escapes, as ``repr`` writes them
_CONTROL = {c: repr(chr(c))[1:-1] for c in (*range(32), *range(0x7F, 0xA0), 0x2028, 0x2029)}


def one_line(text: str) -> str:
    """``text`` with its line breaks and other control characters written as escapes (``\\n``,
    ``\\x1b``): a file name holding them stays on its line and moves no terminal cursor."""
    return text.translate(_CONTROL)


def say(text: str) -> None:
    """``text`` as the command's one line on stderr (``gindex-studio: …``, :func:`one_line`)."""
    print(f"gindex-studio: {one_line(text)}", file=sys.stderr, flush=True)


def os_error_line(e: OSError) -> str:
    """An OSError the system gave for a file in words: "NAME: reason" (e.g. a name too long)."""
    if e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    return str(e)



def json_out(value: Any) -> None:
    """``value`` as indented JSON on stdout (dataclasses serialised)."""
    import orjson

    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_DATACLASS).decode() + "\n")


def json_out_rows(doc: dict, key: str, rows) -> None:
    """``json_out(doc | {key: list(rows)})`` byte for byte (``doc[key]`` holds the place of the
    key, its value ignored), writing each row as it comes: ``rows`` yields lists or float
    arrays, none of them kept. A failure part way leaves the JSON unfinished (the exit status
    says so)."""
    import orjson

    opts = orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_DATACLASS
    text = orjson.dumps({**doc, key: []}, option=opts)
    marker = b'\n  ' + orjson.dumps(key) + b': []'  # a JSON string holds no raw newline: found only here
    at = text.index(marker)
    head, tail = text[:at + len(marker) - 1], text[at + len(marker):]
    write = sys.stdout.write
    write(head.decode())
    sep = "\n    "
    for row in rows:
        values = row.tolist() if hasattr(row, "tolist") else row
        write(sep + orjson.dumps(values, option=opts).decode().replace("\n", "\n    "))
        sep = ",\n    "
    write(("]" if sep == "\n    " else "\n  ]") + tail.decode() + "\n")


def table(rows: Sequence[Sequence[Any]], header: Sequence[str], right: Sequence[bool] | None = None) -> str:
    """Plain aligned text table; floats with six decimals, None as blank."""
    cells = [list(map(str, header))] + [[fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    right = right or [False] * len(header)
    lines = []
    for k, r in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if right[i] else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6f}"
    return "" if v is None else str(v)


# ----- arguments several commands take ----------------------------------------------------------


def add_json(p: argparse.ArgumentParser) -> None:
    """``--json`` (``args.json``): machine-readable output."""
    p.add_argument("--json", action="store_true", help="machine-readable output")


def add_pair(p: argparse.ArgumentParser, reference: str, generated: str) -> None:
    """The positional REF and GEN (``args.reference``, ``args.generated``), helped by
    ``reference`` and ``generated``."""
    p.add_argument("reference", metavar="REF", help=reference)
    p.add_argument("generated", metavar="GEN", help=generated)


# ----- option types (argparse ``type=``: a bad value is a usage error naming the option) ------------


def fraction_01(text: str):
    """A number in [0, 1] as an exact fraction."""
    from fractions import Fraction

    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {text}")
    return value


def _shown(text: str) -> str:
    """An argument as typed, shortened when it is very long (a 400-digit number)."""
    text = text.strip()
    return text if len(text) <= 24 else f"{text[:12]}…({len(text)} characters)"


def int_range(low: int, high: int | None):
    """An argparse type: an integer from ``low`` to ``high`` (None: no upper bound); anything
    else is a usage error that states the range."""
    span = f"an integer from {low:,} to {high:,}" if high is not None else f"an integer of at least {low:,}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {span}, got {_shown(text)!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {span}, got {_shown(text)}")
        return value

    parse.__name__ = "integer"  # argparse names the type in its own messages
    return parse


def number(what: str, ok):
    """An argparse type: a finite number for which ``ok(value)`` holds (NaN and infinities never
    do); anything else is a usage error saying it must be ``what``."""

    def parse(text: str) -> float:
        import math

        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and ok(value)):
            raise argparse.ArgumentTypeError(f"must be {what}, got {_shown(text)}")
        return value

    parse.__name__ = "number"
    return parse


#: ``--deadline``: a NaN deadline would never expire, a negative one stop every search at once.
SECONDS = number("a number of seconds above 0", lambda v: v > 0)


#: Seeds of every resampling / random variant: what numpy and the JSON output both hold.
SEED = int_range(0, 2**32 - 1)
#: Processes a run may start on this machine (``--workers``, ``--dask-workers``).
MAX_PROCESSES = 256

#: Metavars that mean the same thing in every command.
FILES_OR_DIRS = "FILE_OR_DIR"


# ----- reading ----------------------------------------------------------------------------------


def read_strict(path: str, profile=None):
    """The reference, read strictly (core.reading, under ``profile``: a Profile, a name or None
    for the default)."""
    from gindex_studio.core.flows.flow import FlowError
    from gindex_studio.core.flows.reading import read_reference_file

    try:
        return read_reference_file(path, profile)
    except FlowError as e:
        raise InputError(str(e)) from None


def read_generated(path: str, profile=None):
    """The generated program, read leniently (core.reading, under ``profile`` as ``read_strict``)."""
    from gindex_studio.core.flows.flow import FlowError
    from gindex_studio.core.flows.reading import read_generated_file

    try:
        return read_generated_file(path, profile).lenient
    except FlowError as e:
        raise InputError(str(e)) from None


def flow_files(path: Path) -> list[Path]:
    """The flow files of a file or folder (core.curriculum_files), bad input as InputError."""
    from gindex_studio.core.benchmark.curriculum_files import flow_files as _flow_files
    from gindex_studio.core.flows.flow import FlowError

    try:
        return _flow_files(path)
    except FlowError as e:
        raise InputError(str(e)) from None
