"""Opening and saving Flatland programs in the editor (the document is a Flow; see
``core.flatland.program.to_flow`` / ``program_from_flow``)."""
from __future__ import annotations

from pathlib import Path

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.lisp import write_fbp, write_lisp
from gindex_studio.core.flatland.program import program_from_flow
from gindex_studio.core.flatland.resolve import load_file
from gindex_studio.core.flows.files import atomic_write_bytes
from gindex_studio.core.flows.flow import Flow

SUFFIXES = (".fbp", ".lisp")


def is_flatland_path(path: str) -> bool:
    return Path(path).suffix.lower() in SUFFIXES


def load_flatland_flow(path: str):
    """(Flow with canvas positions, "") or (None, a message for the user). Never raises."""
    try:
        program = load_file(path)
    except FlatlandError as e:
        return None, f"{path}\n\ncannot be opened as a Flatland program:\n{e}"
    return program.to_flow(layout=True), ""


def save_flatland_flow(flow: Flow, path: str) -> None:
    """Write the flow as a flat program: ``.fbp`` text for a ``.fbp`` path, else ``.lisp``. Raises
    FlatlandError (not a Flatland flow, or not expressible as ``.fbp``) or OSError; nothing is
    written then."""
    program = program_from_flow(flow)
    text = write_fbp(program) if Path(path).suffix.lower() == ".fbp" else write_lisp(program)
    atomic_write_bytes(Path(path), text.encode("utf-8"))
