"""Flatland programs read the way ``flows.reading`` reads a pair (the flatland profile's ``reader``):
references and curriculum programs strictly, generated programs leniently.

- files: ``.fbp``, ``.lisp`` or the reference's flat JSON (by suffix; ``#include`` resolved);
- a folder gives the programs directly inside it, one per name (``.fbp`` before ``.lisp`` before
  ``.json``), sorted;
- inline JSON: flat JSON (an object of nodes by id, or a list of nodes) or a flow array as the
  studio saves it;
- generated text: ``files.read_generated_text`` (fences dropped, bad lines removed, never raises).
Strict readers raise ``FlatlandError`` with one line; ``core.reading`` turns it into a FlowError.
"""
from __future__ import annotations

from pathlib import Path

import orjson

from gindex_studio.core.flows.flow import Flow, FlowError, flow_from_value
from gindex_studio.core.flows.lenient import SyntaxIssue
from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.files import SUFFIXES, empty_program, program_files, read_folder, read_generated_text
from gindex_studio.core.flatland.program import program_from_json
from gindex_studio.core.flatland.resolve import load_file

KINDS = {".fbp": "fbp", ".lisp": "lisp", ".json": "json"}
StrictError = FlatlandError  # what the strict readers raise (``flows.reading`` makes it a FlowError)


def folder_files(folder: Path) -> list[Path]:
    """The programs directly inside ``folder``: one per stem (``.fbp`` before ``.lisp`` before
    ``.json``), sorted."""
    from gindex_studio.core.flows.folders import program_files

    best: dict[str, Path] = {}
    for p in program_files(folder, SUFFIXES):
        s = p.suffix.lower()
        if s in SUFFIXES:
            if p.stem not in best or SUFFIXES.index(s) < SUFFIXES.index(best[p.stem].suffix.lower()):
                best[p.stem] = p
    return sorted(best.values())


files_below = program_files  # a file, or one file per program anywhere below a folder


def read_curriculum(root: Path) -> tuple[list[Flow], list[str], list[str]]:
    """The programs below ``root`` as flows, their domains and labels (``files.read_folder``;
    raises FlatlandError)."""
    programs, domains, labels = read_folder(root)
    return [p.to_flow() for p in programs], domains, labels


def read_strict(path: str | Path) -> Flow:
    """A program file as a flow (raises FlatlandError)."""
    return load_file(path).to_flow()


def from_value(value) -> Flow:
    """Inline JSON: flat JSON or a flow array (raises FlatlandError)."""
    if isinstance(value, dict) and not ("flows" in value or "flow" in value):
        return program_from_json(value).to_flow()
    try:
        return flow_from_value(value)
    except FlowError as e:
        try:
            return program_from_json(value).to_flow()
        except FlatlandError:
            raise FlatlandError(str(e)) from None


def read_generated(text: str, suffix: str | None = None) -> tuple[Flow, SyntaxIssue | None]:
    """Model output (the file's ``suffix`` says its form, if known), leniently."""
    g = read_generated_text(text, KINDS.get((suffix or "").lower()))
    return g.program.to_flow(), g.syntax


def generated_from_value(value) -> tuple[Flow, SyntaxIssue | None]:
    """Inline JSON as generated output: read as ``from_value``, else leniently as its JSON text
    (what cannot be read at all is the start node alone: Δ near 1)."""
    try:
        return from_value(value), None
    except FlatlandError:
        flow, syntax = read_generated(orjson.dumps(value).decode(), ".json")
        if syntax is None:
            return empty_program().to_flow(), None
        return flow, syntax
