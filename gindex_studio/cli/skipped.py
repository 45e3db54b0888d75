"""Saying what a command left out of the folders it read (``core.flows.folders.on_skipped``).

:func:`reported` sets the hook for the length of a command: each entry that is not a regular
program file (a named pipe, a device, a folder named ``*.json``, a link to nothing, a link loop) is
collected, and once the command has run one line says how many there were and names the first
few; with ``strict`` the first such entry ends the command as bad input instead (exit 1).
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from gindex_studio.cli.common import InputError, say

#: how many of the skipped entries the line names
NAMED = 3


def add_strict(p) -> None:
    """``--strict``: an entry of a folder that is not a regular program file is an error."""
    p.add_argument("--strict", action="store_true",
                   help="an entry of a program folder that is not a regular file (a pipe, a device, "
                        "a folder named *.json, a dangling link) is an error instead of a warning")


def summary(entries: list[tuple[Path, str]]) -> str:
    """The one line for ``entries`` (path, reason): the count and the first few, with reasons."""
    named = "; ".join(f"{p} ({why})" for p, why in entries[:NAMED])
    more = f"; and {len(entries) - NAMED} more" if len(entries) > NAMED else ""
    what = ("1 entry of a program folder that is not a regular file" if len(entries) == 1 else
            f"{len(entries)} entries of program folders that are not regular files")
    return f"skipped {what}: {named}{more} (--strict makes this an error)"


@contextmanager
def reported(strict: bool = False):
    """Collect (or, with ``strict``, refuse) skipped folder entries while the block runs; after it
    ends normally, one warning line on stderr when any was skipped."""
    from gindex_studio.core.flows import folders

    entries: list[tuple[Path, str]] = []

    def skip(path: Path, why: str) -> None:
        short = why.split(",")[0].removeprefix("is ")
        if strict:
            raise InputError(f"{path}: {short}, not a regular program file (--strict)")
        if all(p != path for p, _ in entries):
            entries.append((path, short))

    previous, folders.on_skipped = folders.on_skipped, skip
    try:
        yield entries
    finally:
        folders.on_skipped = previous
    if entries:
        say(f"warning: {summary(entries)}")
