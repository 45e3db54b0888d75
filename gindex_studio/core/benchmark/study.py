"""Study files: several experiments compared as systems, matched by task id (issue 10).

A study is a small JSON file listing experiment files (docs/experiment-format.md, "Studies")::

    {"format": "gindex-studio.study/1", "name": "GPT-2 sizes",
     "experiments": ["small.json", {"file": "medium.json", "label": "GPT-2 medium"}]}

Paths are relative to the study file. A system's label is the entry's ``label``, else the
experiment's ``system``, else its file name; labels are made unique. Errors raise
``ExperimentError`` with one line naming the file and the field.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from gindex_studio.core.benchmark.experiment import Experiment, experiment_from_value, load_experiment
from gindex_studio.core.benchmark.validate import (
    Ctx,
    describe,
    object_of,
    read_json,
    resolve,
    string,
    unknown_keys,
)
from gindex_studio.core.flows.flow import atomic_write_bytes

STUDY_FORMAT = "gindex-studio.study/1"
_KEYS = ("format", "name", "experiments")


@dataclass
class StudyEntry:
    """One experiment of a study: its file (as written and resolved) and an optional label."""

    written: str
    path: Path
    label: str | None = None


@dataclass
class Study:
    """A study: a name and its experiment entries. ``path`` is None for a study built in memory."""

    name: str
    entries: list[StudyEntry]
    path: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def is_study_value(value: Any) -> bool:
    return isinstance(value, dict) and value.get("format") == STUDY_FORMAT


def load_study(path: str | Path) -> Study:
    """Read and validate a study file (the experiments themselves are read by ``load_systems``)."""
    path = Path(path)
    return study_from_value(read_json(path), path)


def study_from_value(value: Any, path: str | Path) -> Study:
    ctx = Ctx(path)
    top = object_of(ctx, "", value)
    if top.get("format") != STUDY_FORMAT:
        raise ctx.fail("format", f"expected {STUDY_FORMAT!r}, got {describe(top.get('format'))}")
    unknown_keys(ctx, "", top, _KEYS)
    name = string(ctx, "name", top.get("name", Path(path).stem), empty_ok=True)
    exps = top.get("experiments")
    if not isinstance(exps, list) or not exps:
        raise ctx.fail("experiments", f"must be a non-empty list of experiment files, got {describe(exps)}")
    base = Path(path).resolve().parent
    entries = []
    for i, e in enumerate(exps):
        where = f"experiments[{i}]"
        label = None
        if isinstance(e, dict):
            unknown_keys(ctx, where, e, ("file", "label"))
            if "file" not in e:
                raise ctx.fail(f"{where}.file", "missing")
            written = string(ctx, f"{where}.file", e["file"])
            if "label" in e:
                label = string(ctx, f"{where}.label", e["label"])
        else:
            written = string(ctx, where, e)
        p = resolve(base, written)
        if not p.is_file():
            from gindex_studio.core.flows.files import path_problem

            why = path_problem(p, "an experiment file")
            raise ctx.fail(where, f"{written!r}{why[len(str(p)):]}" if why else f"no such experiment file {written!r}")
        entries.append(StudyEntry(written, p, label))
    return Study(name, entries, Path(path), {k: v for k, v in top.items() if k not in _KEYS})


def save_study(study: Study, path: str | Path) -> Path:
    """Write ``study`` (experiment paths relative to ``path``'s folder), atomically."""
    path = Path(path)
    base = path.resolve().parent
    items: list[Any] = []
    for e in study.entries:
        try:
            rel = e.path.resolve().relative_to(base).as_posix()
        except ValueError:
            rel = str(e.path.resolve())
        items.append({"file": rel, "label": e.label} if e.label else rel)
    value = {"format": STUDY_FORMAT, "name": study.name, "experiments": items, **study.extra}
    atomic_write_bytes(path, orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    return path


def unique_labels(wanted: list[str]) -> list[str]:
    """``wanted`` with repeats numbered ("gpt2", "gpt2 (2)")."""
    out, seen = [], {}
    for w in wanted:
        n = seen.get(w, 0) + 1
        seen[w] = n
        out.append(w if n == 1 else f"{w} ({n})")
    return out


def input_files(paths: list[str | Path]) -> list[Path]:
    """``paths`` with each folder replaced by its ``*.json`` files (sorted; entries that are not
    regular files are reported to ``folders.on_skipped`` and left out)."""
    from gindex_studio.core.flows.folders import program_files

    return [f for p in map(Path, paths) for f in (program_files(p, (".json",)) if p.is_dir() else [p])]


def open_inputs(paths: list[str | Path]) -> tuple[str, list[tuple[str, Experiment]]]:
    """Study files, experiment files and folders of them, in order, as (study name, [(label,
    experiment)]): a study contributes its experiments, an experiment file itself, a folder its
    ``*.json`` files (``input_files``). An experiment file reached twice (named and in a study,
    or a folder holding a study and its experiments) is opened once, where first reached.
    Raises ExperimentError."""
    pairs: list[tuple[str | None, Experiment]] = []
    names = []
    seen: set[Path] = set()

    def add(label: str | None, path: Path, load) -> bool:
        key = path.resolve()
        if key in seen:
            return False
        seen.add(key)
        pairs.append((label, load()))
        return True

    for p in input_files(paths):
        value = read_json(p)
        if is_study_value(value):
            study = study_from_value(value, p)
            names.append(study.name)
            for e in study.entries:
                add(e.label, e.path, lambda e=e: load_experiment(e.path))
        else:
            if add(None, p, lambda: experiment_from_value(value, p)):
                names.append(pairs[-1][1].name)
    labels = unique_labels([lab or exp.system or (exp.path.stem if exp.path else "system") for lab, exp in pairs])
    return (names[0] if len(names) == 1 else " + ".join(names)), list(zip(labels, (e for _, e in pairs)))
