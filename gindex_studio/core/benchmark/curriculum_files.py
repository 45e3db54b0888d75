"""Curricula and task sets on disk: a folder of ``.json`` programs, one sub-folder per domain
(``programs_below`` and ``read_programs_folder`` read a profile's own programs with its reader)."""
from __future__ import annotations

from pathlib import Path

from gindex_studio.core.flows.flow import Flow, FlowError, read_flow_file
from gindex_studio.core.support import profiles


def programs_below(path: Path, profile=None) -> list[Path]:
    """``flow_files`` for the programs of ``profile`` (its reader's ``files_below`` when it has
    one). Raises FlowError."""
    return _by_reader(profile, "files_below", flow_files, path)


def read_programs_folder(root: Path, profile=None) -> tuple[list[Flow], list[str], list[str]]:
    """``read_curriculum_folder`` for the programs of ``profile`` (its reader's
    ``read_curriculum`` when it has one). Raises FlowError."""
    return _by_reader(profile, "read_curriculum", read_curriculum_folder, root)


def _by_reader(profile, name: str, flow_json, path: Path):
    """``flow_json(path)`` for Node-RED flow JSON, else the profile's reader's function ``name``
    (its ``StrictError`` raised as a FlowError)."""
    reader = profiles.get(profile).reader_module()
    if reader is None:
        return flow_json(path)
    try:
        return getattr(reader, name)(path)
    except reader.StrictError as e:
        raise FlowError(str(e)) from None


def flow_files(path: Path) -> list[Path]:
    """``path`` itself when it is a file, else every ``.json`` file below it, sorted (entries that
    are no regular file are said to ``core.flows.folders.on_skipped``).

    Raises FlowError when ``path`` does not exist."""
    if path.is_file():
        return [path]
    if path.is_dir():
        from gindex_studio.core.flows.folders import program_files

        return program_files(path, [".json"], recursive=True)
    from gindex_studio.core.flows.files import path_problem

    why = path_problem(path, "a flow file")
    raise FlowError(why or f"{path}: no such file or folder")


def list_curriculum_folder(root: Path) -> tuple[list[Path], list[str], list[str]]:
    """The program files below ``root`` with their domains and labels, reading only the files
    directly in ``root`` (their domain is the dataset's ``"name"``).

    A program's domain is its first sub-folder under ``root``; a file directly in ``root`` takes
    the dataset's ``"name"`` (``"(none)"`` without one). Labels are paths relative to ``root``.
    Raises FlowError (not a folder, no program, an unreadable top-level program)."""
    if not root.is_dir():
        raise FlowError(f"{root}: the curriculum must be a folder")
    files = flow_files(root)
    if not files:
        raise FlowError(f"{root}: no .json program in the curriculum folder")
    domains, labels = [], []
    for f in files:
        rel = f.relative_to(root)
        domains.append(rel.parts[0] if len(rel.parts) > 1 else (read_flow_file(f).domain or "(none)"))
        labels.append(str(rel))
    return files, domains, labels


def read_curriculum_folder(root: Path) -> tuple[list[Flow], list[str], list[str]]:
    """The programs below ``root`` (read strictly), their domains and labels (see
    :func:`list_curriculum_folder`). Raises FlowError (not a folder, no program, an unreadable
    program)."""
    files, domains, labels = list_curriculum_folder(root)
    return [read_flow_file(f) for f in files], domains, labels
