"""Flatland programs on disk and from models: strict reading, lenient reading of generated text,
and folders of programs (curricula, task sets) for Ω and the g-index.

Lenient reading (generated programs) never raises: Markdown code fences are dropped; on an error
the offending line is removed and the text read again (at most ``MAX_REPAIRS`` times), so a bad
node line costs that node and the links to it; text that still cannot be read becomes the start
node alone (Δ near 1). The first error is reported as the syntax issue, with how many nodes were
recovered.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gindex_studio.core.flows.files import UserFileError, path_problem, read_user_text
from gindex_studio.core.flows.lenient import SyntaxIssue
from gindex_studio.core.flatland import SUFFIXES
from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.program import START_ID, FlatNode, FlatProgram
from gindex_studio.core.flatland.resolve import load_file, load_text

MAX_REPAIRS = 40


@dataclass
class GeneratedProgram:
    program: FlatProgram
    syntax: SyntaxIssue | None
    text: str


def empty_program() -> FlatProgram:
    """The start node alone, at the default state."""
    return FlatProgram({START_ID: FlatNode(START_ID, "info", {"position": [64, 64], "theta": 0}, {})})


def _strip_fences(text: str) -> str:
    """Fence lines become blank lines, so line numbers still point into the model's text."""
    return "\n".join("" if line.strip().startswith("```") else line for line in text.splitlines())


def read_generated_text(text: str, kind: str | None = None, library=None) -> GeneratedProgram:
    """Model output as a program, leniently (see the module docstring)."""
    clean = _strip_fences(text)
    first: FlatlandError | None = None
    lines = clean.splitlines()
    for _ in range(MAX_REPAIRS + 1):
        try:
            program = load_text("\n".join(lines) + "\n", None, library, kind, own_folder=False)
        except FlatlandError as e:
            first = first or e
            if e.line is None or e.file is not None or not (1 <= e.line <= len(lines)):
                break
            del lines[e.line - 1]
            continue
        return GeneratedProgram(program, _issue(first, len(program.nodes)) if first else None, text)
    return GeneratedProgram(empty_program(), _issue(first, 0), text)


def _issue(e: FlatlandError, recovered: int) -> SyntaxIssue:
    return SyntaxIssue(e.message, e.line or 0, e.column or 0, -1, recovered)


def read_generated_file(path: str | Path, library=None) -> GeneratedProgram:
    """A generated program file, leniently; a missing or unreadable file raises FlatlandError."""
    p = Path(path)
    try:
        text = read_user_text(p, "a generated program", errors="replace")
    except UserFileError as e:
        raise FlatlandError(str(e)) from None
    kind = {".fbp": "fbp", ".lisp": "lisp", ".json": "json"}.get(p.suffix.lower())
    return read_generated_text(text, kind, library)


def program_files(root: Path) -> list[Path]:
    """One file per program below ``root`` (a file is itself): where a stem has several forms
    (``.fbp``, ``.lisp``, ``.json``), the first of that order. Sorted."""
    root = Path(root)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise FlatlandError(path_problem(root, "a Flatland program") or f"{root}: no such file or folder")
    from gindex_studio.core.flows.folders import program_files as regular_files

    best: dict[Path, Path] = {}
    for p in regular_files(root, SUFFIXES, recursive=True):
        if p.suffix.lower() in SUFFIXES:
            key = p.with_suffix("")
            if key not in best or SUFFIXES.index(p.suffix.lower()) < SUFFIXES.index(best[key].suffix.lower()):
                best[key] = p
    return sorted(best.values())


def read_folder(root: Path, library=None) -> tuple[list[FlatProgram], list[str], list[str]]:
    """The programs below ``root`` (strictly), their domains (first sub-folder; ``(none)`` for a
    file directly in root) and labels (paths relative to root). Raises FlatlandError."""
    root = Path(root)
    if not root.is_dir():
        raise FlatlandError(f"{root}: a curriculum must be a folder")
    files = program_files(root)
    if not files:
        raise FlatlandError(f"{root}: no .fbp, .lisp or .json program below it")
    programs, domains, labels = [], [], []
    for f in files:
        programs.append(load_file(f, library))
        rel = f.relative_to(root)
        domains.append(rel.parts[0] if len(rel.parts) > 1 else "(none)")
        labels.append(str(rel))
    return programs, domains, labels
