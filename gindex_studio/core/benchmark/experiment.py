"""Experiment files: what a g-index is computed from (scoring-spec §6, docs/experiment-format.md).

Two kinds of file are read:

- our own format, ``gindex-studio.experiment/1`` (``load_experiment`` / ``save_experiment``): the
  curriculum as program files or folders with sample counts, the compute, the priors ρ and the test
  tasks, each with its reference program and the generated program (a file, inline JSON or the raw
  model text);
- the companion repository's experiment files (mayahq/g-index-benchmark, ``experiments/*.json``)
  with its ``domains/`` folder (``load_companion_experiment``): per-domain results only, for the
  aggregate mode of the spec.

Every problem with an experiment raises ``ExperimentError`` with one line a person can act on:
the file, the field path (e.g. ``tasks[3].generated``) and what is wrong. Generated programs are
read leniently (spec §4): broken model output never makes loading fail.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from gindex_studio.core.scoring.divergence import ScoreOptions
from gindex_studio.core.flows.flow import (
    Flow,
    FlowError,
    atomic_write_bytes,
    loads_json,
    read_flow_file,
    read_user_file,
)
from gindex_studio.core.flows.lenient import SyntaxIssue
from gindex_studio.core.flows.reading import (
    program_files,
    program_kinds,
    read_generated_file,
    read_generated_text,
    read_generated_value,
    read_reference_file,
    read_reference_value,
)
from gindex_studio.core.support import profiles
from gindex_studio.core.benchmark.validate import (
    Ctx,
    count,
    ExperimentError,
    describe,
    finite,
    is_number,
    object_of,
    positive,
    read_json,
    rel_label,
    resolve,
    string,
    unknown_keys,
)

FORMAT = "gindex-studio.experiment/1"
#: Version 2: ``tasks[j].generated`` may be a list of attempts (θ of the task = mean over attempts).
FORMAT_V2 = "gindex-studio.experiment/2"
FORMATS = (FORMAT, FORMAT_V2)
DEFAULT_PRIORS = 1e-4
PROGRAM_SUFFIX = ".json"

_TOP_KEYS = ("format", "name", "system", "profile", "options", "priors", "compute", "curriculum", "tasks")
_OPTION_KEYS = ("ignore_types", "port_aware", "fill_defaults")
_CURRICULUM_KEYS = ("domain", "programs", "samples", "compute")
_TASK_KEYS = ("id", "domain", "prompt", "reference", "generated", "edited")
_EDITED_KEYS = ("reference", "generated", "note")
#: what ``tasks[j].edited.note`` says when the studio writes it
EDITED_NOTE = "what-if edit made by hand in gindex-studio's compare window: not the system's output"


# ----- the loaded experiment -------------------------------------------------------------------


@dataclass
class Compute:
    """Compute used for training: ``power`` × ``time`` or a ``total`` (the experiment's units,
    e.g. petaFLOP/s × s = petaFLOP·s as in the companion's files)."""

    power: float | None = None
    time: float | None = None
    total: float | None = None

    @property
    def value(self) -> float:
        if self.total is not None:
            return float(self.total)
        return float(self.power) * float(self.time)  # type: ignore[arg-type]

    def to_json(self) -> dict:
        if self.total is not None:
            return {"total": self.total}
        return {"power": self.power, "time": self.time}


@dataclass
class Program:
    """One curriculum program: its label (path relative to the experiment file, POSIX style),
    absolute path and flow."""

    label: str
    path: Path
    flow: Flow


@dataclass
class CurriculumDomain:
    """A curriculum domain C_i: its name, |C_i| (samples), the programs representing it (for Ω),
    the entries of ``programs`` as written (files or folders) and an optional compute override."""

    domain: str
    samples: int
    programs: list[Program]
    sources: list[str]
    compute: Compute | None = None


@dataclass
class Source:
    """Where a task's program comes from: ``file`` (``path`` as written, relative to the
    experiment), ``json`` (inline) or ``text`` (inline raw model output). ``bare`` records that the
    file was written as a bare string rather than ``{"file": ...}``."""

    kind: str
    path: str | None = None
    bare: bool = False


@dataclass
class Attempt:
    """One generated program of a task: the flow, where it came from, the lenient reader's syntax
    issue and (text or file outputs) the raw model text."""

    generated: Flow
    source: Source
    syntax: SyntaxIssue | None = None
    text: str | None = None


@dataclass
class Task:
    """A test task T'_j: its reference program P'ref and the generated program P' (with the
    lenient reader's syntax issue and, for text or file outputs, the raw text).

    Format 2: a task may hold several attempts. ``generated`` … ``generated_text`` are the first;
    ``more_attempts`` the others; ``attempts`` lists them all. ``listed``: ``generated`` was written
    as a list (kept when saving)."""

    id: str
    domain: str
    prompt: str
    reference: Flow
    generated: Flow
    reference_source: Source
    generated_source: Source
    syntax: SyntaxIssue | None = None
    generated_text: str | None = None
    prompt_given: bool = False
    more_attempts: list[Attempt] = field(default_factory=list)
    listed: bool = False
    #: what-if edits kept beside the recorded programs (``tasks[j].edited``; None: not edited)
    edited_reference: Flow | None = None
    edited_generated: Flow | None = None
    edited_note: str = EDITED_NOTE

    @property
    def edited(self) -> bool:
        """A what-if edit is kept beside the recorded programs."""
        return self.edited_reference is not None or self.edited_generated is not None

    def edit(self, reference: Flow | None = None, generated: Flow | None = None) -> None:
        """Keep a what-if edit of the reference and/or the (first attempt's) generated program
        beside the recorded ones, which stay untouched (``with_edits`` scores the edits)."""
        if reference is not None:
            self.edited_reference = reference
        if generated is not None:
            self.edited_generated = generated

    def revert_edits(self) -> None:
        """Forget the what-if edits: the recorded programs are the task again."""
        self.edited_reference = self.edited_generated = None

    @property
    def attempts(self) -> list[Attempt]:
        """Every attempt, the first (the fields above) included."""
        return [Attempt(self.generated, self.generated_source, self.syntax, self.generated_text)] + self.more_attempts

    def set_generated_flow(self, flow: Flow) -> None:
        """Replace the generated program by an edited flow; it is saved inline as ``{"json"}``."""
        self.generated = flow
        self.generated_source = Source("json")
        self.generated_text = None
        self.syntax = None

    def set_generated_text(self, text: str) -> None:
        """Replace the generated program by new raw model text (read leniently, saved inline)."""
        read = read_generated_text(text)
        self.generated, self.syntax, self.generated_text = read.flow, read.syntax, text
        self.generated_source = Source("text")

    def set_reference_flow(self, flow: Flow) -> None:
        """Replace the reference program by an edited flow; it is saved inline as ``{"json"}``."""
        self.reference = flow
        self.reference_source = Source("json")


@dataclass
class Experiment:
    """A loaded experiment in our format. ``path`` is the file it was read from (None if built in
    memory); relative program paths are resolved against its folder."""

    name: str
    system: str
    profile: str
    options: ScoreOptions
    priors: float
    compute: Compute
    curriculum: list[CurriculumDomain]
    tasks: list[Task]
    path: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def base_dir(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def domain_compute(self, entry: CurriculumDomain) -> float:
        """compute_i: the entry's override, else the experiment's compute."""
        return (entry.compute or self.compute).value

    def task_index(self, task_id: str) -> int:
        for i, t in enumerate(self.tasks):
            if t.id == task_id:
                return i
        raise KeyError(task_id)


def _compute(ctx: Ctx, where: str, value: Any) -> Compute:
    obj = object_of(ctx, where, value)
    unknown_keys(ctx, where, obj, ("power", "time", "total"))
    if "total" in obj:
        if "power" in obj or "time" in obj:
            raise ctx.fail(where, "give either total, or power and time, not both")
        return Compute(total=positive(ctx, f"{where}.total", obj["total"]))
    missing = [k for k in ("power", "time") if k not in obj]
    if missing:
        raise ctx.fail(where, f"needs power and time, or total (missing {' and '.join(missing)})")
    return Compute(power=positive(ctx, f"{where}.power", obj["power"]), time=positive(ctx, f"{where}.time", obj["time"]))


def _check_rho_e(ctx: Ctx, where: str, priors: float, compute: Compute) -> None:
    e = math.log2(compute.value)
    if priors + e <= 0:
        raise ctx.fail(
            where,
            f"compute {compute.value:g} gives E = log2({compute.value:g}) = {e:.6g} and priors + E = "
            f"{priors + e:.6g} <= 0, so the g-index is undefined; give compute in a smaller unit so that "
            "it exceeds 1 (e.g. teraFLOP·s instead of petaFLOP·s)",
        )


# ----- reading our format ----------------------------------------------------------------------


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment file in our format. Raises ExperimentError."""
    path = Path(path)
    return experiment_from_value(read_json(path), path)


def experiment_from_value(value: Any, path: str | Path | None = None) -> Experiment:
    """Validate a parsed experiment; ``path`` locates relative program paths (default: cwd)."""
    ctx = Ctx(path if path is not None else "<experiment>")
    base = Path(path).resolve().parent if path is not None else Path.cwd()
    top = object_of(ctx, "", value) if isinstance(value, dict) else None
    if top is None:
        raise ctx.fail("", f"an experiment must be a JSON object, got {describe(value)}")
    fmt = top.get("format")
    if fmt is None:
        if experiment_kind_of_value(top) == COMPANION_KIND:
            raise ctx.fail("format", "missing; this looks like a companion experiment file: read it with "
                           "--domains DIR (load_companion_experiment)")
        raise ctx.fail("format", f"missing (expected {FORMAT!r})")
    if fmt not in FORMATS:
        raise ctx.fail("format", f"unknown format {describe(fmt)} (expected {FORMAT_V2!r} or {FORMAT!r})")
    unknown_keys(ctx, "", top, _TOP_KEYS)
    for key in ("name", "system", "compute", "curriculum", "tasks"):
        if key not in top:
            raise ctx.fail(key, "missing")
    name = string(ctx, "name", top["name"], empty_ok=True)
    system = string(ctx, "system", top["system"], empty_ok=True)
    profile = top.get("profile", profiles.default().name)
    names = profiles.names()
    if not isinstance(profile, str) or profile not in names:
        raise ctx.fail("profile", f"must be one of {', '.join(repr(p) for p in names)}, got {describe(profile)}")
    opts = object_of(ctx, "options", top.get("options", {}))
    unknown_keys(ctx, "options", opts, _OPTION_KEYS)
    ignore = opts.get("ignore_types", [])
    if not isinstance(ignore, list) or not all(isinstance(t, str) for t in ignore):
        raise ctx.fail("options.ignore_types", f"must be a list of node type strings, got {describe(ignore)}")
    for key in ("port_aware", "fill_defaults"):
        if key in opts and not isinstance(opts[key], bool):
            raise ctx.fail(f"options.{key}", f"must be true or false, got {describe(opts[key])}")
    options = ScoreOptions(profile=profile, ignore_types=frozenset(ignore), port_aware=opts.get("port_aware", False),
                           fill_defaults=opts.get("fill_defaults", False))
    priors = top.get("priors", DEFAULT_PRIORS)
    if not finite(priors) or priors < 0:
        raise ctx.fail("priors", f"must be a number >= 0, got {describe(priors)}")
    compute = _compute(ctx, "compute", top["compute"])

    warnings: list[str] = []
    curriculum = _curriculum(ctx, base, top["curriculum"], warnings, options.profile)
    if any(c.compute is None for c in curriculum):
        _check_rho_e(ctx, "compute", float(priors), compute)
    for i, c in enumerate(curriculum):
        if c.compute is not None:
            _check_rho_e(ctx, f"curriculum[{i}].compute", float(priors), c.compute)
    tasks = _tasks(ctx, base, top["tasks"], warnings, attempts_ok=fmt == FORMAT_V2, profile=options.profile)
    extra = {k: v for k, v in top.items() if k not in _TOP_KEYS}
    return Experiment(name, system, profile, options, float(priors), compute, curriculum, tasks,
                      Path(path) if path is not None else None, extra, warnings)


def _entries(ctx: Ctx, field_name: str, value: Any, noun: str, known, required):
    """Yield (index, where, object) for a non-empty list of objects, each checked for unknown and
    missing keys."""
    if not isinstance(value, list):
        raise ctx.fail(field_name, f"must be a list of {noun}s, got {describe(value)}")
    if not value:
        raise ctx.fail(field_name, f"must list at least one {noun}")
    for i, entry in enumerate(value):
        where = f"{field_name}[{i}]"
        obj = object_of(ctx, where, entry)
        unknown_keys(ctx, where, obj, known)
        for key in required:
            if key not in obj:
                raise ctx.fail(f"{where}.{key}", "missing")
        yield i, where, obj


def _curriculum(ctx: Ctx, base: Path, value: Any, warnings: list[str], profile=None) -> list[CurriculumDomain]:
    out: list[CurriculumDomain] = []
    seen: dict[str, int] = {}
    for i, where, obj in _entries(ctx, "curriculum", value, "domain", _CURRICULUM_KEYS,
                                  ("domain", "programs", "samples")):
        domain = string(ctx, f"{where}.domain", obj["domain"])
        if domain in seen:
            raise ctx.fail(f"{where}.domain", f"{domain!r} is already curriculum[{seen[domain]}]; merge the two entries")
        seen[domain] = i
        samples = count(ctx, f"{where}.samples", obj["samples"])
        sources = obj["programs"]
        if isinstance(sources, str):
            sources = [sources]
        if not isinstance(sources, list) or not sources:
            raise ctx.fail(f"{where}.programs", f"must be a non-empty list of program files or folders, got {describe(obj['programs'])}")
        programs: list[Program] = []
        for k, src in enumerate(sources):
            pw = f"{where}.programs[{k}]"
            string(ctx, pw, src)
            p = resolve(base, src)
            if p.is_dir():
                files = program_files(p, profile)
                if not files:
                    raise ctx.fail(pw, f"folder {src!r} holds no {program_kinds(profile)} program files")
            elif p.is_file():
                files = [p]
            else:
                raise ctx.fail(pw, _no_file(p, src, "or folder "))
            for f in files:
                try:
                    flow = read_reference_file(f, profile)
                except FlowError as e:
                    raise ctx.fail(pw, str(e)) from None
                programs.append(Program(rel_label(f, base), f, flow))
        comp = _compute(ctx, f"{where}.compute", obj["compute"]) if "compute" in obj else None
        if samples == 0:
            warnings.append(f"curriculum[{i}] ({domain}) has 0 samples: it is left out of the g-index")
        out.append(CurriculumDomain(domain, samples, programs, list(sources), comp))
    return out


def _tasks(ctx: Ctx, base: Path, value: Any, warnings: list[str], attempts_ok: bool = False,
           profile=None) -> list[Task]:
    out: list[Task] = []
    seen: dict[str, int] = {}
    for j, where, obj in _entries(ctx, "tasks", value, "task", _TASK_KEYS, ("id", "domain", "reference", "generated")):
        tid = string(ctx, f"{where}.id", obj["id"])
        if tid in seen:
            raise ctx.fail(f"{where}.id", f"{tid!r} is already the id of tasks[{seen[tid]}]; task ids must be unique")
        seen[tid] = j
        domain = string(ctx, f"{where}.domain", obj["domain"])
        ref, ref_src = _reference(ctx, base, f"{where}.reference", obj["reference"], profile)
        attempts = _attempts(ctx, base, f"{where}.generated", obj["generated"], attempts_ok, profile)
        first = attempts[0]
        if "prompt" in obj:
            prompt, given = string(ctx, f"{where}.prompt", obj["prompt"], empty_ok=True), True
        else:
            prompt, given = ref.prompt, False
        if ref.domain and ref.domain != domain:
            warnings.append(f"{where} ({tid}): domain {domain!r}, but its reference file names domain {ref.domain!r}")
        task = Task(tid, domain, prompt, ref, first.generated, ref_src, first.source, first.syntax, first.text, given,
                    attempts[1:], isinstance(obj["generated"], list))
        if "edited" in obj:
            _edited(ctx, f"{where}.edited", obj["edited"], task, profile)
        out.append(task)
    return out


def _edited(ctx: Ctx, where: str, value: Any, task: Task, profile) -> None:
    """``tasks[j].edited``: ``{"reference"?: {"json": flow}, "generated"?: {"json": flow},
    "note"?: string}``, at least one program; read strictly (they were written by the studio)."""
    obj = object_of(ctx, where, value)
    unknown_keys(ctx, where, obj, _EDITED_KEYS)
    if "reference" not in obj and "generated" not in obj:
        raise ctx.fail(where, 'must hold "reference" or "generated" (an edited program)')
    for side in ("reference", "generated"):
        if side in obj:
            spec = obj[side]
            if not (isinstance(spec, dict) and list(spec) == ["json"]):
                raise ctx.fail(f"{where}.{side}", f'must be {{"json": flow}}, got {describe(spec)}')
            try:
                flow = read_reference_value(spec["json"], profile)
            except FlowError as e:
                raise ctx.fail(f"{where}.{side}.json", str(e)) from None
            task.edit(**{side: flow})
    if "note" in obj:
        task.edited_note = string(ctx, f"{where}.note", obj["note"], empty_ok=True)


def _attempts(ctx: Ctx, base: Path, where: str, value: Any, attempts_ok: bool, profile=None) -> list[Attempt]:
    """The attempts of ``tasks[j].generated``: one source, or (format 2) a non-empty list of them."""
    if not isinstance(value, list):
        return [Attempt(*_generated(ctx, base, where, value, profile))]
    if not attempts_ok:
        raise ctx.fail(where, f"a list of attempts needs \"format\": {FORMAT_V2!r}")
    if not value:
        raise ctx.fail(where, "must list at least one attempt")
    return [Attempt(*_generated(ctx, base, f"{where}[{k}]", v, profile)) for k, v in enumerate(value)]


def _source_spec(ctx: Ctx, where: str, value: Any, kinds: tuple[str, ...]) -> tuple[str, Any, bool]:
    if isinstance(value, str):
        return "file", string(ctx, where, value), True
    if isinstance(value, dict):
        keys = [k for k in value if k in kinds]
        others = [k for k in value if k not in kinds]
        if len(keys) == 1 and not others:
            return keys[0], value[keys[0]], False
    forms = ", ".join([f'{{"{k}": ...}}' for k in kinds])
    raise ctx.fail(where, f"must be a file path or one of {forms}, got {describe(value)}")


def _no_file(p: Path, written: str, folder: str = "") -> str:
    """Why ``p`` (written as ``written``) is no program file: missing, or a pipe, device … (files.path_problem)."""
    from gindex_studio.core.flows.files import path_problem

    why = path_problem(p, "a program file")
    return f"{written!r}{why[len(str(p)):]}" if why else f"no such file {folder}{written!r}"


def _reference(ctx: Ctx, base: Path, where: str, value: Any, profile=None) -> tuple[Flow, Source]:
    kind, spec, bare = _source_spec(ctx, where, value, ("file", "json"))
    if kind == "file":
        string(ctx, where if bare else f"{where}.file", spec)
        p = resolve(base, spec)
        if not p.is_file():
            raise ctx.fail(where if bare else f"{where}.file", _no_file(p, spec))
        try:
            return read_reference_file(p, profile), Source("file", spec, bare)
        except FlowError as e:
            raise ctx.fail(where, str(e)) from None
    try:
        return read_reference_value(spec, profile), Source("json")
    except FlowError as e:
        raise ctx.fail(f"{where}.json", str(e)) from None


def _generated(ctx: Ctx, base: Path, where: str, value: Any,
               profile=None) -> tuple[Flow, Source, SyntaxIssue | None, str | None]:
    kind, spec, bare = _source_spec(ctx, where, value, ("file", "json", "text"))
    if kind == "file":
        fw = where if bare else f"{where}.file"
        string(ctx, fw, spec)
        p = resolve(base, spec)
        if not p.is_file():
            raise ctx.fail(fw, _no_file(p, spec))
        try:
            read = read_generated_file(p, profile)
        except FlowError as e:
            raise ctx.fail(fw, str(e)) from None
        return read.flow, Source("file", spec, bare), read.syntax, read.text
    if kind == "text":
        if not isinstance(spec, str):
            raise ctx.fail(f"{where}.text", f"must be a string (the raw model output), got {describe(spec)}")
        read = read_generated_text(spec, profile)
        return read.flow, Source("text"), read.syntax, spec
    read = read_generated_value(spec, profile)  # inline JSON that is no flow is read leniently (Δ = 1)
    return read.flow, Source("json"), read.syntax, None


# ----- writing our format ----------------------------------------------------------------------


def experiment_to_value(exp: Experiment, path: str | Path | None = None) -> dict:
    """The JSON value of ``exp`` in our format, file paths relative to ``path``'s folder."""
    new_base = Path(path).resolve().parent if path is not None else exp.base_dir.resolve()
    old_base = exp.base_dir.resolve()

    def rel(written: str) -> str:
        p = Path(written).expanduser()
        if p.is_absolute():
            return written
        return rel_label((old_base / p).resolve(), new_base) if new_base != old_base else written

    v2 = any(t.listed or t.more_attempts for t in exp.tasks)
    out: dict[str, Any] = {"format": FORMAT_V2 if v2 else FORMAT, "name": exp.name, "system": exp.system, "profile": exp.profile}
    opts = exp.options
    if opts.ignore_types or opts.port_aware or opts.fill_defaults:
        out["options"] = {"ignore_types": sorted(opts.ignore_types), "port_aware": opts.port_aware,
                          "fill_defaults": opts.fill_defaults}
    out["priors"] = exp.priors
    out["compute"] = exp.compute.to_json()
    out["curriculum"] = []
    for c in exp.curriculum:
        entry: dict[str, Any] = {"domain": c.domain, "programs": [rel(s) for s in c.sources], "samples": c.samples}
        if c.compute is not None:
            entry["compute"] = c.compute.to_json()
        out["curriculum"].append(entry)
    out["tasks"] = []
    for t in exp.tasks:
        entry = {"id": t.id, "domain": t.domain}
        if t.prompt_given or t.prompt != t.reference.prompt:
            entry["prompt"] = t.prompt
        entry["reference"] = _source_value(t.reference_source, t.reference, None, rel)
        gens = [_source_value(a.source, a.generated, a.text, rel) for a in t.attempts]
        entry["generated"] = gens if (t.listed or t.more_attempts) else gens[0]
        if t.edited:
            edited: dict[str, Any] = {"note": t.edited_note}
            for side, flow in (("reference", t.edited_reference), ("generated", t.edited_generated)):
                if flow is not None:
                    edited[side] = {"json": flow.to_json_value()}
            entry["edited"] = edited
        out["tasks"].append(entry)
    out.update(exp.extra)
    return out


def _source_value(src: Source, flow: Flow, text: str | None, rel) -> Any:
    if src.kind == "file":
        return rel(src.path) if src.bare else {"file": rel(src.path)}
    if src.kind == "text":
        return {"text": text if text is not None else flow.dumps().decode()}
    return {"json": flow.to_json_value()}


def save_experiment(exp: Experiment, path: str | Path | None = None) -> Path:
    """Write ``exp`` in our format, atomically, to ``path`` (default: where it was read from).

    Inline programs (``{"json"}``, ``{"text"}``) are written from the experiment as it is now, so
    edits made with ``Task.set_generated_flow`` / ``set_generated_text`` / ``set_reference_flow``
    are kept; file paths are rewritten relative to the new location. Program files are never
    written. Returns the path written.
    """
    if path is None:
        if exp.path is None:
            raise ExperimentError("<experiment>: no file to save to (give a path)")
        path = exp.path
    path = Path(path)
    value = experiment_to_value(exp, path)
    data = orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    try:
        atomic_write_bytes(path, data)
    except OSError as e:
        raise ExperimentError(f"{path}: cannot write ({e.strerror})") from None
    if exp.path is None or Path(exp.path).resolve() != path.resolve():
        # relative file paths now refer to the new folder
        for c, entry in zip(exp.curriculum, value["curriculum"]):
            c.sources = list(entry["programs"])
        for t, entry in zip(exp.tasks, value["tasks"]):
            gens = entry["generated"] if isinstance(entry["generated"], list) else [entry["generated"]]
            pairs = [(t.reference_source, entry["reference"])] + [(a.source, g) for a, g in zip(t.attempts, gens)]
            for src, v in pairs:
                if src.kind == "file":
                    src.path = v if isinstance(v, str) else v["file"]
        exp.path = path
    return path


# ----- what-if edits ----------------------------------------------------------------------------


def edited_tasks(exp: Experiment) -> list[int]:
    """Indexes of the tasks that keep a what-if edit beside their recorded programs."""
    return [j for j, t in enumerate(exp.tasks) if t.edited]


def with_edits(exp: Experiment) -> Experiment:
    """A copy of ``exp`` whose edited tasks are scored on their edits (the recorded programs of
    the copy's tasks are the edited ones; ``exp`` is unchanged). Tasks are copied shallowly:
    flows are shared, not copied."""
    from dataclasses import replace

    tasks = []
    for t in exp.tasks:
        t = replace(t)
        if t.edited_reference is not None:
            t.reference, t.reference_source = t.edited_reference, Source("json")
        if t.edited_generated is not None:
            t.generated, t.generated_source, t.syntax, t.generated_text = t.edited_generated, Source("json"), None, None
        tasks.append(t)
    return replace(exp, tasks=tasks)


# ----- which kind of file ------------------------------------------------------------------------

#: the kind of the companion code's results files (``experiment_kind``), and the mode of a g-index
#: scored from one (``GIndexResult.mode``): the companion code, not its scoring profile
COMPANION_KIND = "companion"


def experiment_kind_of_value(value: Any) -> str | None:
    """``"experiment"`` (ours: ``"format": "gindex-studio.experiment/…"``), ``"companion"`` (the
    companion's results: ``train_set`` and ``performance``, no ``format``) or None (no experiment)."""
    if not isinstance(value, dict):
        return None
    fmt = value.get("format")
    if isinstance(fmt, str) and fmt.startswith("gindex-studio.experiment"):
        return "experiment"
    if fmt is None and "train_set" in value and "performance" in value:
        return COMPANION_KIND
    return None


def experiment_kind(path: str | Path) -> str | None:
    """``experiment_kind_of_value`` of the JSON file at ``path``; None for a file that cannot be
    read or parsed."""
    try:
        return experiment_kind_of_value(loads_json(read_user_file(path, "an experiment file")))
    except (FlowError, ValueError):
        return None


# ----- the companion's experiment files --------------------------------------------------------


@dataclass
class CompanionDomain:
    """A domain of a companion experiment: samples (train_set) or, for test domains, the
    divergence and perfects of ``performance.domains``."""

    name: str
    samples: int
    divergence: float | None = None
    perfects: float | None = None


@dataclass
class CompanionExperiment:
    """A companion experiment file with the programs of its domain folder (``domains_dir/<name>/*.json``)."""

    path: Path
    domains_dir: Path
    system: str
    compute: float
    curriculum: list[CompanionDomain]
    tasks: list[CompanionDomain]
    programs: dict[str, list[Program]]
    priors: float = DEFAULT_PRIORS
    raw: dict = field(default_factory=dict)


def load_companion_experiment(path: str | Path, domains_dir: str | Path) -> CompanionExperiment:
    """Read a companion experiment file (``{"model", "train_set": {"data": [{"name",
    "num_samples"}]}, "test_set", "train_cost": {"compute"}, "performance": {"domains": [{"name",
    "divergence", ...}]}}``) and the programs of every domain it names from ``domains_dir``.
    Raises ExperimentError."""
    path = Path(path)
    domains_dir = Path(domains_dir)
    ctx = Ctx(path)
    value = read_json(path)
    top = object_of(ctx, "", value) if isinstance(value, dict) else None
    if top is None:
        raise ctx.fail("", f"a companion experiment must be a JSON object, got {describe(value)}")
    if top.get("format") == FORMAT:
        raise ctx.fail("format", "this is a gindex-studio experiment, not a companion one: read it without --domains")
    for key in ("train_set", "test_set", "train_cost", "performance"):
        if key not in top:
            raise ctx.fail(key, "missing (not a companion experiment file?)")
    model = top.get("model", {})
    system = ""
    if isinstance(model, dict):
        tp = model.get("train_params")
        if isinstance(tp, dict) and isinstance(tp.get("model_name"), str):
            system = tp["model_name"]
        elif isinstance(model.get("name"), str):
            system = model["name"]
    cost = object_of(ctx, "train_cost", top["train_cost"])
    if "compute" not in cost:
        raise ctx.fail("train_cost.compute", "missing")
    compute = positive(ctx, "train_cost.compute", cost["compute"])
    _check_rho_e(ctx, "train_cost.compute", DEFAULT_PRIORS, Compute(total=compute))

    def domain_list(where: str, v: Any) -> list[CompanionDomain]:
        obj = object_of(ctx, where, v)
        data = obj.get("data")
        if not isinstance(data, list) or not data:
            raise ctx.fail(f"{where}.data", f"must be a non-empty list of domains, got {describe(data)}")
        out, seen = [], set()
        for i, d in enumerate(data):
            w = f"{where}.data[{i}]"
            d = object_of(ctx, w, d)
            name = string(ctx, f"{w}.name", d.get("name"))
            if name in (".", "..") or any(c in name for c in "/\\\0"):
                raise ctx.fail(f"{w}.name", f"must name a folder inside the domains folder, got {describe(name)}")
            if name in seen:
                raise ctx.fail(f"{w}.name", f"{name!r} is listed twice")
            seen.add(name)
            n = count(ctx, f"{w}.num_samples", d.get("num_samples"), float_ok=False)
            out.append(CompanionDomain(name, n))
        return out

    curriculum = domain_list("train_set", top["train_set"])
    tasks = domain_list("test_set", top["test_set"])
    perf = object_of(ctx, "performance", top["performance"])
    pdomains = perf.get("domains")
    if not isinstance(pdomains, list):
        raise ctx.fail("performance.domains", f"must be a list, got {describe(pdomains)}")
    by_name: dict[str, tuple[float, float | None]] = {}
    for i, d in enumerate(pdomains):
        w = f"performance.domains[{i}]"
        d = object_of(ctx, w, d)
        name = string(ctx, f"{w}.name", d.get("name"))
        div = d.get("divergence")
        if not finite(div) or not 0 <= div <= 1:
            raise ctx.fail(f"{w}.divergence", f"must be a number in [0, 1], got {describe(div)}")
        perfects = d.get("perfects")
        by_name.setdefault(name, (float(div), float(perfects) if is_number(perfects) else None))
    for i, t in enumerate(tasks):
        if t.name not in by_name:
            raise ctx.fail(f"test_set.data[{i}]", f"domain {t.name!r} has no entry in performance.domains")
        t.divergence, t.perfects = by_name[t.name]
    programs = _companion_programs(path, domains_dir, curriculum, tasks)
    return CompanionExperiment(path, domains_dir, system, float(compute), curriculum, tasks, programs, DEFAULT_PRIORS, top)


def _companion_programs(path: Path | str, domains_dir: Path | str, curriculum: list[CompanionDomain],
                        tasks: list[CompanionDomain]) -> dict[str, list[Program]]:
    """The programs of every domain named by a companion experiment: ``domains_dir/<name>/*.json``."""
    ctx = Ctx(path)
    domains_dir = Path(domains_dir)
    if not domains_dir.is_dir():
        raise ExperimentError(f"{domains_dir}: no such domains folder (give --domains DIR, with one folder per domain)")
    programs: dict[str, list[Program]] = {}
    for where, items in (("train_set", curriculum), ("test_set", tasks)):
        for i, d in enumerate(items):
            if d.name in programs:
                continue
            folder = domains_dir / d.name
            w = f"{where}.data[{i}].name"
            if not folder.is_dir():
                raise ctx.fail(w, f"domain {d.name!r} has no folder {folder}")
            from gindex_studio.core.flows.folders import program_files as regular_files

            files = regular_files(folder, [PROGRAM_SUFFIX])
            if not files:
                raise ctx.fail(w, f"domain folder {folder} holds no {PROGRAM_SUFFIX} program files")
            progs = []
            for f in files:
                try:
                    progs.append(Program(rel_label(f, domains_dir), f, read_flow_file(f)))
                except FlowError as e:
                    raise ctx.fail(w, str(e)) from None
            programs[d.name] = progs
    return programs
