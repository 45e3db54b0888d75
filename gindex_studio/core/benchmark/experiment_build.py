"""Build an experiment from a curriculum folder, reference task files and model outputs in JSONL
(issue 10): results come in the way eval harnesses write them, without hand-written JSON.

- curriculum: a folder with one subfolder of ``*.json`` programs per domain; a domain's sample count
  is given per domain (``samples={"http": 80}``), for all (``default_samples``), or else is the
  number of its program files;
- tasks: reference program files or folders of them; the task id is the file name without
  ``.json``, its domain the file's ``"name"`` (dataset files) or else its folder's name;
- outputs: JSONL, one ``{"task_id", "output": "..."}`` or ``{"task_id", "outputs": [...]}`` per line;
  several lines for a task add attempts. Every task needs at least one output; an output for an
  unknown task is an error (both name the line).

The experiment is written with the outputs inline (``{"text"}``), format 2 when a task has more
than one attempt, and validated by the ordinary reader before it is written.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from gindex_studio.core.benchmark.experiment import (
    FORMAT,
    FORMAT_V2,
    PROGRAM_SUFFIX,
    Experiment,
    experiment_from_value,
)
from gindex_studio.core.benchmark.validate import MAX_COUNT, ExperimentError, rel_label
from gindex_studio.core.flows.flow import FlowError, atomic_write_bytes, read_flow_file, read_user_file
from gindex_studio.core.flows.folders import program_files as regular_files
from gindex_studio.core.support import profiles


@dataclass
class BuildSpec:
    """What ``build_experiment`` needs. ``compute``: total compute (ρ + log2 compute > 0);
    ``profile``: the profile recorded (a Profile or its name; None: ``profiles.default()``)."""

    curriculum: Path
    tasks: list[Path]
    outputs: Path
    compute: float
    name: str = ""
    system: str = ""
    priors: float = 1e-4
    profile: Any = None
    samples: dict[str, int] | None = None
    default_samples: int | None = None


def parse_samples(items) -> tuple[int | None, dict[str, int]]:
    """Sample counts as typed: ``"N"`` (every domain) and ``"DOMAIN=N"`` (one domain) items →
    (default or None, {domain: N}), N from 0 to ``MAX_COUNT``. Raises ValueError naming the item
    (a very long one shortened)."""
    default, per = None, {}
    for item in items:
        item = item.strip()
        if not item:
            continue
        shown = item if len(item) <= 40 else f"{item[:20]}…({len(item):,} characters)"
        dom, eq, num = item.rpartition("=")
        try:
            n = int(num)
        except ValueError:  # a word, or more digits than Python converts (4,300)
            raise ValueError(f"{shown}: give a whole number, or DOMAIN=NUMBER (at most {MAX_COUNT:,})") from None
        if n < 0:
            raise ValueError(f"{shown}: the number of samples must be >= 0")
        if n > MAX_COUNT:
            raise ValueError(f"{shown}: the number of samples must be at most {MAX_COUNT:,} (2**63 − 1)")
        if eq:
            per[dom.strip()] = n
        else:
            default = n
    return default, per


def _programs(folder: Path) -> list[Path]:
    return regular_files(folder, [PROGRAM_SUFFIX])


def read_outputs(path: Path) -> dict[str, list[str]]:
    """task id → its outputs, in file order. Raises ExperimentError naming the line."""
    try:
        data = read_user_file(path, "an outputs file")
    except FlowError as e:
        raise ExperimentError(str(e)) from None
    out: dict[str, list[str]] = {}
    for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            raise ExperimentError(f"{where}: not a JSON object ({e})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("task_id"), str) or not obj["task_id"]:
            raise ExperimentError(f'{where}: needs "task_id" (a string) and "output" or "outputs"')
        if ("output" in obj) == ("outputs" in obj):
            raise ExperimentError(f'{where}: give either "output" (one string) or "outputs" (a list of strings)')
        texts = [obj["output"]] if "output" in obj else obj["outputs"]
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            raise ExperimentError(f'{where}: "output" must be a string and "outputs" a non-empty list of strings')
        out.setdefault(obj["task_id"], []).extend(texts)
    if not out:
        raise ExperimentError(f"{path}: no outputs (expected one JSON object per line)")
    return out


def reference_files(paths: list[Path]) -> list[Path]:
    """The reference files of ``paths`` (files, and folders searched recursively), in order."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            found = regular_files(p, [PROGRAM_SUFFIX], recursive=True)
            if not found:
                raise ExperimentError(f"{p}: folder holds no {PROGRAM_SUFFIX} reference files")
            files += found
        elif p.is_file():
            files.append(p)
        else:
            from gindex_studio.core.flows.files import path_problem

            why = path_problem(p, "a reference file")
            raise ExperimentError(why or f"{p}: no such reference file or folder")
    return files


def build_value(spec: BuildSpec, out_path: Path, outputs: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The experiment JSON value (paths relative to ``out_path``); ``outputs`` (task id → texts)
    replaces reading ``spec.outputs``. Raises ExperimentError."""
    base = out_path.resolve().parent
    cur = spec.curriculum
    if not cur.is_dir():
        raise ExperimentError(f"{cur}: no such curriculum folder (one subfolder of programs per domain)")
    domains = [d for d in sorted(cur.iterdir()) if d.is_dir() and _programs(d)]
    if not domains:
        raise ExperimentError(f"{cur}: no domain subfolder holds {PROGRAM_SUFFIX} programs")
    names = {d.name for d in domains}
    for dom in (spec.samples or {}):
        if dom not in names:
            raise ExperimentError(f"--samples {dom}=…: no domain {dom!r} in {cur} (domains: {', '.join(sorted(names))})")
    curriculum = []
    for d in domains:
        n = (spec.samples or {}).get(d.name, spec.default_samples if spec.default_samples is not None else len(_programs(d)))
        curriculum.append({"domain": d.name, "programs": [rel_label(d.resolve(), base)], "samples": n})

    outputs = read_outputs(spec.outputs) if outputs is None else outputs
    tasks, seen = [], {}
    for f in reference_files(spec.tasks):
        tid = f.stem
        if tid in seen:
            raise ExperimentError(f"{f}: task id {tid!r} is also {seen[tid]} (task ids are file names)")
        seen[tid] = f
        try:
            domain = read_flow_file(f).domain or f.parent.name
        except FlowError as e:
            raise ExperimentError(str(e)) from None
        if tid not in outputs:
            raise ExperimentError(f"{spec.outputs}: no output for task {tid!r} (reference {f})")
        texts = outputs[tid]
        gen: Any = [{"text": t} for t in texts] if len(texts) > 1 else {"text": texts[0]}
        tasks.append({"id": tid, "domain": domain, "reference": rel_label(f.resolve(), base), "generated": gen})
    unknown = sorted(set(outputs) - set(seen))
    if unknown:
        more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
        raise ExperimentError(f"{spec.outputs}: outputs for tasks with no reference file: "
                              f"{', '.join(map(repr, unknown[:3]))}{more}")
    v2 = any(isinstance(t["generated"], list) for t in tasks)
    return {"format": FORMAT_V2 if v2 else FORMAT, "name": spec.name, "system": spec.system, "profile": profiles.get(spec.profile).name,
            "priors": spec.priors, "compute": {"total": spec.compute}, "curriculum": curriculum, "tasks": tasks}


def build_experiment(spec: BuildSpec, out_path: str | Path, outputs: dict[str, list[str]] | None = None,
                     extra: dict[str, Any] | None = None) -> Experiment:
    """Build, validate and write the experiment to ``out_path``; returns it loaded. ``outputs`` as
    in ``build_value``; ``extra``: top-level extension fields (``x-…``) added to the file."""
    out_path = Path(out_path)
    value = build_value(spec, out_path, outputs) | (extra or {})
    try:
        out_path.parent.mkdir(parents=True, exist_ok=True)  # relative paths resolve from there
    except OSError as e:
        raise ExperimentError(f"{out_path.parent}: cannot create the folder ({e.strerror})") from None
    exp = experiment_from_value(value, out_path)
    try:
        atomic_write_bytes(out_path, orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    except OSError as e:
        raise ExperimentError(f"{out_path}: cannot write ({e.strerror})") from None
    return exp
