"""The programs being curated: each with a role (curriculum / test / excluded) and a domain.

``load_workspace(path, tasks)`` reads a folder of programs (one sub-folder per domain, as
``resources/demo/programs``), an experiment file, or a curriculum folder plus task files.
``Workspace.set_role`` / ``set_domain`` edit the split; ``split_experiment`` / ``save_split``
turn it into an experiment file that ``gindex-studio gindex`` reads.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from gindex_studio.core.scoring.divergence import ScoreOptions
from gindex_studio.core.benchmark.experiment import (
    FORMAT,
    PROGRAM_SUFFIX,
    Compute,
    CurriculumDomain,
    Experiment,
    ExperimentError,
    Program,
    Source,
    Task,
    experiment_from_value,
    experiment_to_value,
    load_experiment,
    save_experiment,
)
from gindex_studio.core.flows.flow import Flow, FlowError, read_flow_file
from gindex_studio.core.flows.folders import program_files as regular_files
from gindex_studio.core.flows.lenient import read_model_output

ROLES = ("curriculum", "test", "excluded")
NO_DOMAIN = "(none)"


class CurationError(Exception):
    """A workspace that cannot be read or saved, with one line saying why."""


@dataclass
class Item:
    """One program: its label (path relative to where it was read), file, flow, domain and role.
    ``task``: the experiment task it came from (its generated output is kept when saving)."""

    label: str
    path: Path | None
    flow: Flow
    domain: str
    role: str
    task: Task | None = None


@dataclass
class Workspace:
    items: list[Item]
    options: ScoreOptions = field(default_factory=ScoreOptions)
    experiment: Experiment | None = None  # the experiment it was read from, if any
    base: Path = field(default_factory=Path.cwd)  # folder that labels and saved paths are relative to

    def __len__(self) -> int:
        return len(self.items)

    def indices(self, role: str) -> list[int]:
        return [i for i, it in enumerate(self.items) if it.role == role]

    @property
    def domains(self) -> list[str]:
        return [it.domain for it in self.items]

    def domain_names(self) -> list[str]:
        return sorted({it.domain for it in self.items})

    def set_role(self, i: int, role: str) -> str:
        """Give item i a role; returns the previous one."""
        if role not in ROLES:
            raise CurationError(f"unknown role {role!r} (use one of: {', '.join(ROLES)})")
        old, self.items[i].role = self.items[i].role, role
        return old

    def set_domain(self, i: int, domain: str) -> str:
        """Put item i in a domain; returns the previous one."""
        domain = domain.strip()
        if not domain:
            raise CurationError("a domain name cannot be empty")
        old, self.items[i].domain = self.items[i].domain, domain
        return old


def _program_files(folder: Path) -> list[Path]:
    return regular_files(folder, [PROGRAM_SUFFIX], recursive=True)


def _read(path: Path, base: Path) -> Flow:
    try:
        return read_flow_file(path)
    except FlowError as e:
        raise CurationError(str(e)) from None


def _folder_items(root: Path, role: str) -> list[Item]:
    """Programs of a folder: domain = first sub-folder (or the file's "name", or (none))."""
    items = []
    for f in _program_files(root):
        flow = _read(f, root)
        rel = f.relative_to(root)
        domain = rel.parts[0] if len(rel.parts) > 1 else (flow.domain or NO_DOMAIN)
        items.append(Item(rel.as_posix(), f.resolve(), flow, domain, role))
    return items


def _no_file(path: Path) -> str:
    """One line for a path that is neither a folder nor a regular file (files.path_problem)."""
    from gindex_studio.core.flows.files import path_problem

    why = path_problem(path, "a program or experiment file")
    return why or f"{path}: no such file or folder"


def load_workspace(path: str | Path, tasks: Sequence[str | Path] = (),
                   options: ScoreOptions | None = None) -> Workspace:
    """A workspace from a folder of programs (all curriculum), an experiment file (its
    curriculum programs and its tasks' references as test), plus ``tasks`` (files or folders of
    test programs). Raises CurationError."""
    path = Path(path)
    if path.is_dir():
        items = _folder_items(path, "curriculum")
        if not items:
            raise CurationError(f"{path}: no {PROGRAM_SUFFIX} program in the folder")
        ws = Workspace(items, options or ScoreOptions(), None, path.resolve())
    elif path.is_file():
        try:
            exp = load_experiment(path)
        except ExperimentError as e:
            raise CurationError(str(e)) from None
        items = [Item(p.label, p.path.resolve(), p.flow, c.domain, "curriculum")
                 for c in exp.curriculum for p in c.programs]
        base = path.resolve().parent
        for t in exp.tasks:
            src = t.reference_source
            ref_path = (base / src.path).resolve() if src.kind == "file" and src.path else None
            label = src.path if ref_path is not None else f"{t.id} (inline)"
            items.append(Item(label, ref_path, t.reference, t.domain, "test", t))
        ws = Workspace(items, options or exp.options, exp, base)
    else:
        raise CurationError(_no_file(path))
    for t in tasks:
        tp = Path(t)
        if tp.is_dir():
            extra = _folder_items(tp, "test")
        elif tp.is_file():
            flow = _read(tp, tp.parent)
            extra = [Item(tp.name, tp.resolve(), flow, flow.domain or NO_DOMAIN, "test")]
        else:
            raise CurationError(_no_file(tp))
        if not extra:
            raise CurationError(f"{tp}: no {PROGRAM_SUFFIX} program")
        ws.items.extend(extra)
    return ws


# ----- saving the split ----------------------------------------------------------------------


def _task_id(item: Item, taken: set[str]) -> str:
    stem = Path(item.label).stem if item.path is not None else item.label
    tid = stem if stem not in taken else f"{item.domain}/{stem}"
    k = 2
    while tid in taken:
        tid, k = f"{stem}-{k}", k + 1
    taken.add(tid)
    return tid


def split_experiment(ws: Workspace, path: str | Path, compute: Compute | None = None,
                     name: str | None = None) -> Experiment:
    """The workspace's split as an experiment to be written at ``path``: curriculum programs by
    domain (samples kept from the experiment it was read from, else the number of programs),
    test programs as tasks (a task read from an experiment keeps its generated output; a new one
    gets an empty output, Δ = 1, until one is added). ``compute`` is required when the workspace
    was not read from an experiment."""
    path = Path(path).resolve()
    base = path.parent
    src = ws.experiment
    if src is None and compute is None:
        raise CurationError("the compute used for training is needed to save an experiment (give --compute)")
    old_domains = {c.domain: c for c in src.curriculum} if src is not None else {}
    curriculum: list[CurriculumDomain] = []
    for d in sorted({ws.items[i].domain for i in ws.indices("curriculum")}):
        progs = [ws.items[i] for i in ws.indices("curriculum") if ws.items[i].domain == d]
        if any(p.path is None for p in progs):
            raise CurationError(f"domain {d}: a curriculum program has no file (save it to a file first)")
        old = old_domains.get(d)
        curriculum.append(CurriculumDomain(
            d, old.samples if old is not None else len(progs),
            [Program(os.path.relpath(p.path, base), p.path, p.flow) for p in progs],
            [Path(os.path.relpath(p.path, base)).as_posix() for p in progs],
            old.compute if old is not None else None))
    if not curriculum:
        raise CurationError("the split has no curriculum program")
    tasks: list[Task] = []
    taken: set[str] = set()
    for i in ws.indices("test"):
        it = ws.items[i]
        if it.task is not None:
            t = it.task
            taken.add(t.id)
            new = Task(t.id, it.domain, t.prompt, t.reference, t.generated, t.reference_source,
                       t.generated_source, t.syntax, t.generated_text, t.prompt_given)
            if t.reference_source.kind == "file" and it.path is not None:
                new.reference_source = Source("file", Path(os.path.relpath(it.path, base)).as_posix(), t.reference_source.bare)
            if t.generated_source.kind == "file" and src is not None:
                gen = (src.base_dir.resolve() / t.generated_source.path).resolve()
                new.generated_source = Source("file", Path(os.path.relpath(gen, base)).as_posix(), t.generated_source.bare)
            tasks.append(new)
    for i in ws.indices("test"):
        it = ws.items[i]
        if it.task is not None:
            continue
        empty = read_model_output("")
        ref_src = Source("file", Path(os.path.relpath(it.path, base)).as_posix()) if it.path else Source("json")
        tasks.append(Task(_task_id(it, taken), it.domain, it.flow.prompt, it.flow, empty.flow, ref_src,
                          Source("text"), empty.syntax, "", False))
    if not tasks:
        raise CurationError("the split has no test program")
    if src is not None:
        return Experiment(name or src.name, src.system, src.profile, src.options, src.priors, src.compute,
                          curriculum, tasks, path, dict(src.extra), [])
    return Experiment(name or base.name, "", ws.options.profile.name, ws.options, 1e-4, compute, curriculum, tasks,
                      path, {}, [])


def save_split(ws: Workspace, path: str | Path, compute: Compute | None = None, name: str | None = None) -> Path:
    """Write the split as an experiment file (validated by reading it back). Raises CurationError."""
    exp = split_experiment(ws, path, compute, name)
    try:
        exp.path.parent.mkdir(parents=True, exist_ok=True)
        experiment_from_value(experiment_to_value(exp, exp.path), exp.path)  # what gindex will read
        return save_experiment(exp, exp.path)
    except (ExperimentError, OSError) as e:
        raise CurationError(str(e)) from None


__all__ = ["ROLES", "CurationError", "Item", "Workspace", "load_workspace", "split_experiment", "save_split", "FORMAT"]
