"""The program files of a folder, and what was left out of it.

:func:`program_files` lists the regular files whose names end with the given suffixes; an entry
with such a name that is not a regular file (a named pipe, a device, a socket, a folder named
``x.json``, a link to nothing, a link loop) is never opened: it is passed to
:data:`on_skipped` with the reason, so that nothing is left out silently. The command line sets
the hook (one line naming the count and the first entries; ``--strict`` makes it an error).
Nothing here imports Qt.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Callable, Iterable

from gindex_studio.core.flows.files import kind_problem

#: called as ``on_skipped(path, why)`` for each entry left out of a listing (None: nothing); it may
#: raise to make the entry an error
on_skipped: Callable[[Path, str], None] | None = None


def skip_reason(path: Path) -> str | None:
    """Why ``path`` is not read as a program file ("is a named pipe (FIFO), ...", "is a link to
    nothing (X)", "is a link loop"), or None for a regular file. Opens nothing."""
    try:
        st = os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "is a link loop"
        if os.path.islink(path):
            return f"is a link to nothing ({os.readlink(path)})"
        return f"cannot be read ({e.strerror or e})"
    return kind_problem(st, "a program file")


def program_files(folder: str | Path, suffixes: Iterable[str], recursive: bool = False) -> list[Path]:
    """The regular files directly in ``folder`` (anywhere below it with ``recursive``: folders
    are entered, links to folders and folders named like a program file are not) whose name ends
    with one of ``suffixes`` (any case), sorted. Other entries with such a name go to
    :data:`on_skipped` (see module)."""
    wanted = tuple(s.lower() for s in suffixes)
    found: list[Path] = []
    for where, dirs, names in _walk(Path(folder), recursive):
        odd = sorted(d for d in dirs if d.lower().endswith(wanted))  # a folder named x.json: not entered
        dirs[:] = [d for d in dirs if d not in odd]
        for name in sorted(names) + odd:
            p = where / name
            if not name.lower().endswith(wanted):
                continue
            why = skip_reason(p)
            if why is None:
                found.append(p)
            else:
                skipped(p, why)
    return sorted(found)


def _walk(folder: Path, recursive: bool):
    """(folder, sub-folder names, other names) as ``os.walk`` gives them (links not followed),
    or only for ``folder`` itself."""
    if recursive:
        yield from ((Path(w), d, f) for w, d, f in os.walk(folder))
        return
    dirs, names = [], []
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # a link to a folder is a folder
            except OSError:  # a link loop
                is_dir = False
            (dirs if is_dir else names).append(entry.name)
    yield folder, dirs, names


def skipped(path: Path, why: str) -> None:
    """Say that ``path`` was left out (to :data:`on_skipped`, when set)."""
    if on_skipped is not None:
        on_skipped(path, why)
