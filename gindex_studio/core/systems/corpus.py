"""The curriculum and the test tasks a run reads, laid out as ``experiment new`` reads them: the
curriculum a folder with one subfolder of ``*.json`` dataset files per domain, the tasks reference
files or folders of them (id = file name, domain = the file's ``"name"`` or its folder's name).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gindex_studio.core.benchmark.experiment import PROGRAM_SUFFIX
from gindex_studio.core.benchmark.experiment_build import reference_files
from gindex_studio.core.benchmark.validate import ExperimentError
from gindex_studio.core.flows.flow import FlowError, read_flow_file, read_user_file
from gindex_studio.core.flows.folders import program_files


@dataclass(frozen=True)
class Entry:
    """One program file: a curriculum program or a task's reference. ``source`` is the file's text
    exactly (what ``nearest`` answers with and k-shot examples show)."""

    id: str
    domain: str
    text: str
    path: Path
    source: str


def _entry(path: Path, domain: str | None = None) -> Entry:
    try:
        flow = read_flow_file(path)
        source = read_user_file(path).decode("utf-8", "replace")
    except FlowError as e:
        raise ExperimentError(str(e)) from None
    return Entry(path.stem, domain or flow.domain or path.parent.name, flow.prompt, path, source)


def read_curriculum(folder: Path) -> list[Entry]:
    """Every program of the curriculum folder, domain by domain (folder name), files sorted.
    Raises ExperimentError when the folder is missing or holds no program."""
    if not folder.is_dir():
        raise ExperimentError(f"{folder}: no such curriculum folder (one subfolder of programs per domain)")
    out = [_entry(f, d.name) for d in sorted(folder.iterdir()) if d.is_dir()
           for f in program_files(d, [PROGRAM_SUFFIX])]
    if not out:
        raise ExperimentError(f"{folder}: no domain subfolder holds {PROGRAM_SUFFIX} programs")
    return out


def read_tasks(paths: list[Path]) -> list[Entry]:
    """The test tasks: their reference files, in order. Raises ExperimentError."""
    return [_entry(f) for f in reference_files(paths)]
