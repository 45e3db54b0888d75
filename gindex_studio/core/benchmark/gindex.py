"""The g-index (scoring-spec §6; paper Sec. 3.1, Eq. 8 and 9) and the studio's extras (§7).

For an intelligence system trained on a curriculum C = {C_i} and tested on tasks T'_j:

    W_i      = 1 / (1 + log2 |C_i|)                                  (sample weight)
    E(C_i)   = log2(compute_i)                                       (experience)
    GD_ij    = exp(10 · Ω(T'_j, C_i))                                (generalization difficulty, Eq. 7)
    θ_j      = 1 − Δ(P'_j generated, P'_j reference)
    TC_j     = sqrt( exp(12 · θ_j) · Σ_i W_i · GD_ij / (ρ + E(C_i)) )  (task contribution, Eq. 8)
    g-index  = mean over j of TC_j                                   (Eq. 9)

Guard rails (§6): ρ + E(C_i) ≤ 0 is an input error (never a negative or infinite index); a
curriculum domain with zero samples is left out of Σ_i with a warning.

``compute_gindex`` works on our experiments (programs, exact Δ and Ω);
``compute_companion_gindex`` is the companion repository's aggregate mode (θ per test domain
from its file, GD from the domain distance dd). Every component is kept in the result.
"""
from __future__ import annotations

import copy
import math
import os
from pathlib import Path
from dataclasses import asdict, dataclass, field, fields, replace
from fractions import Fraction
from typing import Callable, Iterable, Sequence

import numpy as np
import orjson

from gindex_studio.core.benchmark.curriculum import (
    LEAK_THRESHOLD,
    Cancelled,
    Curriculum,
    Nearest,
    domain_distance,
    leak_of,
    omega_many,
    overall,
)
from gindex_studio.core.scoring.divergence import ScoreOptions, ScoreResult, prepare, score
from gindex_studio.core.benchmark.experiment import (
    COMPANION_KIND,
    CompanionExperiment,
    Experiment,
    ExperimentError,
    _companion_programs,
)
from gindex_studio.core.benchmark.validate import resolve
from gindex_studio.core.flows.flow import Flow, FlowError
from gindex_studio.core.support import profiles
from gindex_studio.core.support.gcpause import frozen_heap

Progress = Callable[[int, int], None]

# ----- the formulas -----------------------------------------------------------------------------


def sample_weight(n: float) -> float:
    """W = 1 / (1 + log2 n) for a curriculum domain with n ≥ 1 training samples (Eq. 8).

    W ∈ (0, 1], W(1) = 1, decreasing in n. Raises ValueError for n < 1 (a domain with zero
    samples is left out of the g-index, it has no weight)."""
    if not (isinstance(n, (int, float)) and math.isfinite(n)) or n < 1:
        raise ValueError(f"sample weight needs at least 1 sample, got {n!r}")
    return 1.0 / (1.0 + math.log2(n))


def experience(compute: float) -> float:
    """E = log2(compute), compute = compute power × training time (> 0)."""
    if not (isinstance(compute, (int, float)) and math.isfinite(compute)) or compute <= 0:
        raise ValueError(f"compute must be a positive number, got {compute!r}")
    return math.log2(compute)


def generalization_difficulty(omega: float) -> float:
    """GD = exp(10 · Ω), Ω the domain distance in [0, 1] (Eq. 7): GD ∈ [1, e^10]."""
    return math.exp(10.0 * omega)


def task_contribution(theta: float, per_domain: Iterable[tuple[float, float, float]], rho: float) -> float:
    """TC = sqrt( exp(12 θ) · Σ_i W_i · GD_i / (ρ + E_i) ) (Eq. 8).

    ``per_domain``: (W_i, GD_i, E_i) for every curriculum domain that counts. Raises ValueError
    when ρ + E_i ≤ 0 (the guard rail of §6)."""
    total = 0.0
    for w, gd, e in per_domain:
        if rho + e <= 0:
            raise ValueError(f"priors + E = {rho + e:.6g} <= 0: the g-index is undefined (compute must exceed 1 unit)")
        total += w * gd / (rho + e)
    return math.sqrt(math.exp(12.0 * theta) * total)


def g_index_of(contributions: Sequence[float]) -> float:
    """g-index = mean of the task contributions (Eq. 9); 0 with no task."""
    return float(sum(contributions) / len(contributions)) if contributions else 0.0


# ----- results ----------------------------------------------------------------------------------


@dataclass
class DomainTerm:
    """A curriculum domain's part of the g-index: |C_i|, W_i, compute_i and E_i. ``included`` is
    false for a domain with zero samples (W is then None)."""

    domain: str
    samples: int
    included: bool
    w: float | None
    compute: float
    e: float


@dataclass
class TaskResult:
    """One task's components. In companion mode a task is a test domain (``delta`` is the file's
    divergence, ``score`` is None, Ω per domain is dd and ``perfects`` the file's value).

    ``leak``: the reference is identical or near-identical to the curriculum program ``nearest``
    (Ω ≤ the result's ``leak_threshold``, compared exactly); None when a deadline left it
    undecided, and in companion mode (no programs per task)."""

    index: int
    id: str
    domain: str
    prompt: str
    delta: float
    theta: float
    exact: bool
    syntax: dict | None
    omega: float | None  # None only in a pending_task_result (Ω not computed yet)
    nearest: str | None
    nearest_domain: str | None
    omega_exact: bool
    omega_per_domain: dict[str, float]
    nearest_per_domain: dict[str, str | None]
    gd: dict[str, float]
    terms: dict[str, float]  # W_i · GD_i / (ρ + E_i), included domains only
    tc: float | None  # None only in a pending_task_result
    score: ScoreResult | None = None
    perfects: float | None = None
    leak: bool | None = None
    attempt_deltas: list[float] = field(default_factory=list)
    attempt_exact: list[bool] = field(default_factory=list)
    attempt_reports: list[ScoreResult] = field(default_factory=list, repr=False, compare=False)

    @property
    def attempt_perfect(self) -> list[bool]:
        """Per attempt: Δ = 0, proven exact (an exact solve, for pass@k)."""
        return [d == 0 and e for d, e in zip(self.attempt_deltas, self.attempt_exact)]

    def to_dict(self) -> dict:
        d = {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self)
             if f.name not in ("score", "attempt_reports")}
        d["score"] = self.score.to_dict() if self.score is not None else None
        return d


@dataclass
class GIndexResult:
    """The g-index with every component. ``g_index`` is unrounded; ``g_index_rounded`` is rounded
    to 3 decimals as the companion prints it. ``mode``: ``tasks`` or ``companion``."""

    mode: str
    name: str
    system: str
    profile: str
    options: dict
    rho: float
    domains: list[DomainTerm]
    tasks: list[TaskResult]
    g_index: float
    g_index_rounded: float
    warnings: list[str] = field(default_factory=list)
    leak_threshold: Fraction = LEAK_THRESHOLD
    leave_self_out: bool = False
    _state: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def leaks(self) -> list[TaskResult]:
        """The tasks flagged as leaks (``leak`` True), in task order."""
        return [t for t in self.tasks if t.leak]

    @property
    def theta_mean(self) -> float:
        return float(np.mean([t.theta for t in self.tasks])) if self.tasks else 0.0

    @property
    def exact(self) -> bool:
        """True when every Δ and Ω is proven exact (no deadline cut a search)."""
        return all(t.exact and t.omega_exact for t in self.tasks)

    def task(self, task_id: str) -> TaskResult:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(task_id)

    def to_dict(self, with_reports: bool = False) -> dict:
        """JSON-ready dict (``with_reports``: each task's full Δ report under ``score``)."""
        tasks = []
        for t in self.tasks:
            d = t.to_dict()
            if not with_reports:
                d.pop("score")
            tasks.append(d)
        return {
            "mode": self.mode,
            "name": self.name,
            "system": self.system,
            "profile": self.profile,
            "options": self.options,
            "rho": self.rho,
            "g_index": self.g_index,
            "g_index_rounded": self.g_index_rounded,
            "theta_mean": self.theta_mean,
            "exact": self.exact,
            "leak_threshold": float(self.leak_threshold),
            "leave_self_out": self.leave_self_out,
            "domains": [asdict(d) for d in self.domains],
            "tasks": tasks,
            "warnings": list(self.warnings),
        }


# ----- assembling ------------------------------------------------------------------------------


def _domain_terms(names: Sequence[str], samples: Sequence[int], computes: Sequence[float], rho: float,
                  where: str) -> tuple[list[DomainTerm], list[str]]:
    """W and E per domain, with the guard rails: zero samples → left out with a warning;
    ρ + E ≤ 0 → ExperimentError."""
    terms, warnings = [], []
    for name, n, c in zip(names, samples, computes):
        try:
            e = experience(c)
        except ValueError as err:
            raise ExperimentError(f"{where}: domain {name!r}: {err}") from None
        if n < 1:
            warnings.append(f"curriculum domain {name!r} has 0 samples: left out of the g-index")
            terms.append(DomainTerm(name, n, False, None, c, e))
            continue
        if rho + e <= 0:
            raise ExperimentError(
                f"{where}: domain {name!r}: compute {c:g} gives E = log2({c:g}) = {e:.6g} and priors + E = "
                f"{rho + e:.6g} <= 0, so the g-index is undefined; give compute in a smaller unit so that it exceeds 1"
            )
        terms.append(DomainTerm(name, n, True, sample_weight(n), c, e))
    if not any(t.included for t in terms):
        warnings.append("no curriculum domain has samples: every task contribution is 0")
    return terms, warnings


def _tc(theta: float, gd: dict[str, float], domains: Sequence[DomainTerm], rho: float) -> tuple[float, dict[str, float]]:
    parts = {d.domain: d.w * gd[d.domain] / (rho + d.e) for d in domains if d.included}
    return math.sqrt(math.exp(12.0 * theta) * sum(parts.values())), parts


def _finish(result: GIndexResult) -> GIndexResult:
    found = _all_found_warning(result)
    if found and found not in result.warnings:
        result.warnings.append(found)
    for t in result.tasks:
        t.tc, t.terms = _tc(t.theta, t.gd, result.domains, result.rho)
    result.g_index = g_index_of([t.tc for t in result.tasks])
    result.g_index_rounded = round(result.g_index, 3)
    return result


def _all_found_warning(result: GIndexResult) -> str | None:
    """One line when every task's reference is in the curriculum it is measured against (Ω = 0,
    exact, for all of them): then no task counts as hard to generalise to."""
    if not result.tasks or not all(t.omega == 0 and t.omega_exact for t in result.tasks):
        return None
    n = len(result.tasks)
    if result.mode == COMPANION_KIND:
        found = f"every test domain's programs are in the curriculum (Ω = 0 for all {n} domains)"
        fix = "--leave-self-out measures each program without itself"
    else:
        found = f"every task's reference program is in the curriculum (Ω = 0 for all {n} tasks)"
        fix = "--leave-self-out measures each task without its own program"
    if result.leave_self_out:
        return f"{found}, even with each one's own file left out: the curriculum holds copies of them"
    return f"{found}: no task counts as far from what the system was trained on; {fix}"


def own_programs(experiment: Experiment) -> list[list[int]]:
    """Per task, the curriculum programs (indices in curriculum order) read from the very file of
    its reference: what ``leave_self_out`` leaves out. A copy under another name is not the task
    itself (it stays, and is flagged as a leak); an inline reference has none."""
    at: dict[Path, list[int]] = {}
    k = 0
    for c in experiment.curriculum:
        for p in c.programs:
            at.setdefault(Path(p.path).resolve(), []).append(k)
            k += 1
    out = []
    for t in experiment.tasks:
        src = t.reference_source
        out.append(list(at.get(resolve(experiment.base_dir, src.path).resolve(), [])) if src.kind == "file" else [])
    return out


def _fingerprint(flow: Flow) -> bytes:
    try:
        return orjson.dumps(flow.to_json_value(), option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return flow.dumps(indent=False)


def _curriculum_key(experiment: Experiment) -> tuple:
    return tuple((c.domain, tuple((p.label, _fingerprint(p.flow)) for p in c.programs)) for c in experiment.curriculum)


class SharedOmega:
    """The work several experiments scored in one call share (``compute_gindex(shared=…)``): each
    curriculum prepared once per set of programs and scoring options, and each task's Ω against
    it searched once per reference program (and programs left out). The values are those a
    separate call computes; only the searching is not repeated."""

    def __init__(self):
        self._entries: list[tuple[tuple, ScoreOptions, Curriculum, dict]] = []

    def curriculum(self, key: tuple, options: ScoreOptions, build: Callable[[], Curriculum]) -> tuple[Curriculum, dict]:
        """The curriculum of ``key`` (``_curriculum_key``) under ``options``, built by ``build()``
        the first time, and its Ω found so far: {(reference fingerprint, left-out indices): Ω per domain}."""
        for k, opts, cur, known in self._entries:
            if opts == options and k == key:
                return cur, known
        cur = build()
        self._entries.append((key, options, cur, {}))
        return cur, self._entries[-1][3]


def _options_of(experiment: Experiment, options: ScoreOptions | None) -> ScoreOptions:
    return options if options is not None else experiment.options


def _experiment_terms(experiment: Experiment) -> tuple[list[DomainTerm], list[str]]:
    where = str(experiment.path) if experiment.path is not None else "<experiment>"
    return _domain_terms(
        [c.domain for c in experiment.curriculum],
        [c.samples for c in experiment.curriculum],
        [experiment.domain_compute(c) for c in experiment.curriculum],
        experiment.priors,
        where,
    )


def attempts_delta(reports: Sequence[ScoreResult]) -> tuple[float, float]:
    """(Δ, θ) of a task from its attempts' Δ reports: the one attempt's, or the mean Δ over the
    attempts (``math.fsum``) and θ = 1 − that mean (scoring-spec §6, format 2)."""
    deltas = [r.delta for r in reports]
    if len(deltas) == 1:
        return deltas[0], reports[0].theta
    delta = math.fsum(deltas) / len(deltas)
    return delta, 1.0 - delta


def pending_task_result(j: int, task, reports: Sequence[ScoreResult]) -> TaskResult:
    """Task ``j``'s result while only its Δ is known (a computation reports it before Ω): Δ, θ,
    exactness and syntax as the final result will have them; ``omega`` (and so ``nearest``,
    ``leak``, ``tc``) is None until the task completes."""
    delta, theta = attempts_delta(reports)
    return TaskResult(index=j, id=task.id, domain=task.domain, prompt=task.prompt, delta=delta, theta=theta,
                      exact=all(r.exact for r in reports), syntax=reports[0].errors.get("syntax"), omega=None,
                      nearest=None, nearest_domain=None, omega_exact=False, omega_per_domain={},
                      nearest_per_domain={}, gd={}, terms={}, tc=None, score=reports[0],
                      attempt_deltas=[r.delta for r in reports], attempt_exact=[r.exact for r in reports],
                      attempt_reports=list(reports))


def _task_result(j: int, task, reports: Sequence[ScoreResult], per: dict[str, Nearest], cur: Curriculum,
                 included: set[str], leak_threshold: Fraction = LEAK_THRESHOLD) -> TaskResult:
    """One task's result from the Δ reports of its attempts (θ = mean over attempts; the first
    attempt's report is kept as ``score``); the leak flag from the same nearest program as Ω."""
    best = overall({d: n for d, n in per.items() if d in included})
    label = cur.labels[best.index] if best.index is not None else None
    sr = reports[0]
    deltas = [r.delta for r in reports]
    delta, theta = attempts_delta(reports)
    return TaskResult(
        index=j,
        id=task.id,
        domain=task.domain,
        prompt=task.prompt,
        delta=delta,
        theta=theta,
        exact=all(r.exact for r in reports),
        syntax=sr.errors.get("syntax"),
        omega=best.omega,
        nearest=label,
        nearest_domain=cur.domains[best.index] if best.index is not None else None,
        omega_exact=all(n.exact for n in per.values()),
        omega_per_domain={d: n.omega for d, n in per.items()},
        nearest_per_domain={d: (cur.labels[n.index] if n.index is not None else None) for d, n in per.items()},
        gd={d: generalization_difficulty(n.omega) for d, n in per.items()},
        terms={},
        tc=0.0,
        score=sr,
        leak=leak_of(best, leak_threshold),
        attempt_deltas=deltas,
        attempt_exact=[r.exact for r in reports],
        attempt_reports=list(reports),
    )


class Listener:
    """What long g-index work tells its caller as it goes (override what you need; called from
    the thread doing the work). Stages in order: ``delta`` (every task's Δ), ``curriculum``
    (preparing the curriculum programs), ``omega`` (every task's Ω)."""

    def stage(self, name: str, done: int, total: int) -> None:
        """``done`` of ``total`` steps of stage ``name`` are finished."""

    def delta(self, index: int, reports: list[ScoreResult]) -> None:
        """Task ``index``'s Δ reports (one per attempt) are known; its Ω is not yet."""

    def task(self, result: TaskResult) -> None:
        """Task ``result.index`` is complete (Ω, TC and every component final)."""


def compute_gindex(experiment: Experiment, options: ScoreOptions | None = None, workers: int | None = None,
                   progress: Progress | None = None, client=None, workers_read_files: bool = False, *,
                   listener: Listener | None = None, cancel=None,
                   leak_threshold: Fraction = LEAK_THRESHOLD, leave_self_out: bool = False,
                   shared: SharedOmega | None = None) -> GIndexResult:
    """The g-index of an experiment in our format, with every component.

    ``options``: scoring options (default: the experiment's profile and options). Δ of every task
    is exact unless ``options.deadline`` is set (then θ uses the proven upper bound of Δ and the
    task is marked not exact). Ω per curriculum domain is exact, computed on ``workers`` processes
    (default: all cores), or on the Dask cluster behind ``client`` (a ``distributed.Client``).
    ``workers_read_files``: with ``client``, the workers read the curriculum's files themselves
    (same paths on every worker; see ``distributed.CurriculumFiles``) instead of receiving them.
    ``progress(done, total)`` counts 2 steps per task (Δ, then Ω); ``listener`` (a ``Listener``)
    receives each task's Δ, then each complete task, as soon as known. ``cancel`` (a
    ``CancelToken`` or anything with ``is_set()``): once set, the searches stop, worker processes
    are terminated and ``Cancelled`` is raised. A task is flagged as a leak when Ω ≤
    ``leak_threshold`` (from the nearest program Ω found: no extra search). ``leave_self_out``:
    each task's Ω leaves out the curriculum programs read from its own reference file
    (``own_programs``). ``shared`` (a ``SharedOmega`` passed for several experiments): their
    curriculum is prepared, and each task's Ω searched, once for all of them. Raises ExperimentError
    for ρ + E ≤ 0, and when the cluster lost the Ω of some tasks (naming them). The cyclic garbage
    collector is kept off the data meanwhile (``gcpause.frozen_heap``: a full collection held the
    GIL, and so the GUI thread, for up to 250 ms)."""
    with frozen_heap():  # no full garbage collection walks the experiment meanwhile (gcpause)
        opts = _options_of(experiment, options)
        domains, warnings = _experiment_terms(experiment)
        included = {d.domain for d in domains if d.included}
        n = len(experiment.tasks)
        tell = listener or Listener()
        reports: list[list[ScoreResult]] = []
        for j, task in enumerate(experiment.tasks):
            rs = []
            for a in task.attempts:
                r = score(task.reference, a.generated, opts, syntax=a.syntax, cancel=cancel)
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                rs.append(r)
            reports.append(rs)
            tell.delta(j, rs)
            tell.stage("delta", j + 1, n)
            if progress:
                progress(j + 1, 2 * n)
        build = lambda: _build_curriculum(experiment, opts, lambda done, total: tell.stage("curriculum", done, total),  # noqa: E731
                                          cancel)
        curriculum_key = _curriculum_key(experiment)
        cur, known = shared.curriculum(curriculum_key, opts, build) if shared else (build(), {})
        exclude = own_programs(experiment) if leave_self_out else [()] * n
        references = [_fingerprint(t.reference) for t in experiment.tasks]
        keys = [(references[j], tuple(exclude[j])) for j in range(n)]
        nearest: list = [known.get(k) for k in keys]
        todo = [j for j in range(n) if nearest[j] is None]  # the tasks whose Ω no earlier experiment searched
        prepared = []
        for j in todo:
            _raise_if_set(cancel)
            prepared.append(prepare(experiment.tasks[j].reference, opts))

        def finished(i: int, per: dict[str, Nearest]) -> None:
            j = todo[i]
            nearest[j] = known[keys[j]] = per
            told(j, per)

        def told(j: int, per: dict[str, Nearest]) -> None:
            t = _task_result(j, experiment.tasks[j], reports[j], per, cur, included, leak_threshold)
            t.tc, t.terms = _tc(t.theta, t.gd, domains, experiment.priors)
            tell.task(t)

        def inner(done: int, total: int) -> None:
            tell.stage("omega", done, total)
            if progress:
                progress(n + done, 2 * n)

        for j in range(n):
            if nearest[j] is not None:
                told(j, nearest[j])
        left_out = [exclude[j] for j in todo] if leave_self_out else None
        if not todo:
            if progress:
                progress(2 * n, 2 * n)
        elif client is None:
            omega_many(prepared, cur, workers=workers, deadline=opts.deadline, progress=inner, cancel=cancel,
                       on_result=finished, exclude=left_out)
        else:
            from gindex_studio.core.benchmark.on_cluster import CurriculumFiles, omega_many_dask

            source = cur
            if workers_read_files:
                paths = [p.path for c in experiment.curriculum for p in c.programs]
                try:
                    source = CurriculumFiles(paths, cur.domains, cur.labels, opts)
                except FlowError as e:
                    raise ExperimentError(str(e)) from None
            run = omega_many_dask(prepared, source, client, deadline=opts.deadline, progress=inner, cancel=cancel,
                                  on_result=finished, exclude=left_out)
            if run.missing:
                lost = ", ".join(experiment.tasks[todo[i]].id for i in run.missing)
                raise ExperimentError(f"the cluster could not compute Ω for {len(run.missing)} task(s): {lost}")
        tasks = [_task_result(j, t, reports[j], nearest[j], cur, included, leak_threshold)
                 for j, t in enumerate(experiment.tasks)]
        warnings += _search_warnings(tasks)
        result = GIndexResult(
            mode="tasks", name=experiment.name, system=experiment.system, profile=opts.profile.name,
            options=opts.to_dict(), rho=experiment.priors, domains=domains, tasks=tasks, g_index=0.0,
            g_index_rounded=0.0, warnings=list(experiment.warnings) + [w for w in warnings if w not in experiment.warnings],
            leak_threshold=leak_threshold, leave_self_out=leave_self_out,
        )
        result._state = {
            "curriculum": cur,
            "curriculum_key": curriculum_key,
            "options": opts,
            "nearest": nearest,
            "references": references,
            "ids": [t.id for t in experiment.tasks],
        }
        return _finish(result)


def _raise_if_set(cancel) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def _search_warnings(tasks: Sequence[TaskResult]) -> list[str]:
    out = []
    for t in tasks:
        if not t.exact:
            out.append(f"task {t.id}: the Δ search hit the deadline; θ uses the proven bound")
        if not t.omega_exact:
            out.append(f"task {t.id}: an Ω search hit the deadline; Ω is an upper bound")
    return out


def _build_curriculum(experiment: Experiment, opts: ScoreOptions, progress: Progress | None = None,
                      cancel=None) -> Curriculum:
    flows, doms, labels = [], [], []
    for c in experiment.curriculum:
        for p in c.programs:
            flows.append(p.flow)
            doms.append(c.domain)
            labels.append(p.label)
    return Curriculum.from_flows(flows, doms, labels, opts, progress=progress, cancel=cancel)


def recompute_task(result: GIndexResult, experiment: Experiment, task_index: int,
                   options: ScoreOptions | None = None) -> GIndexResult:
    """The g-index after ``experiment.tasks[task_index]`` was edited, rescoring that task only.

    Δ is searched again with the previous mapping as warm start; Ω is reused unless the task's
    reference program changed; W, E and every TC are recomputed from the experiment (cheap, so
    edited sample counts, compute or priors are honoured too). Falls back to ``compute_gindex``
    when the curriculum programs, the options or the task list changed. ``result`` is not
    modified."""
    opts = _options_of(experiment, options)
    st = result._state
    if (
        result.mode != "tasks"
        or not st
        or st.get("options") != opts
        or st.get("ids") != [t.id for t in experiment.tasks]
        or st.get("curriculum_key") != _curriculum_key(experiment)
    ):
        return compute_gindex(experiment, options, workers=None, leak_threshold=result.leak_threshold,
                              leave_self_out=result.leave_self_out)
    task = experiment.tasks[task_index]
    cur: Curriculum = st["curriculum"]
    old = result.tasks[task_index]
    warm = [(p.reference, p.generated) for p in old.score.mapping] if old.score is not None else []
    sr = [score(task.reference, task.generated, opts, syntax=task.syntax, warm=warm)]
    if task.more_attempts:  # only the first attempt is edited in place; the others are kept
        keep = old.attempt_reports if old.attempt_reports and len(old.attempt_reports) == len(task.attempts) else None
        sr += keep[1:] if keep else [score(task.reference, a.generated, opts, syntax=a.syntax) for a in task.more_attempts]
    nearest = list(st["nearest"])
    references = list(st["references"])
    fp = _fingerprint(task.reference)
    if fp != references[task_index]:
        left_out = own_programs(experiment)[task_index] if result.leave_self_out else ()
        nearest[task_index] = cur.nearest_by_domain(prepare(task.reference, opts), opts.deadline, exclude=left_out)
        references[task_index] = fp
    domains, warnings = _experiment_terms(experiment)
    included = {d.domain for d in domains if d.included}
    tasks = []
    for j, t in enumerate(result.tasks):
        if j == task_index:
            tasks.append(_task_result(j, task, sr, nearest[j], cur, included, result.leak_threshold))
        elif included != {d.domain for d in result.domains if d.included}:
            tasks.append(_task_result(j, experiment.tasks[j], t.attempt_reports or [t.score], nearest[j], cur, included,
                                      result.leak_threshold))
        else:
            tasks.append(replace(t, prompt=experiment.tasks[j].prompt, domain=experiment.tasks[j].domain))
    warnings += _search_warnings(tasks)
    new = GIndexResult(
        mode="tasks", name=experiment.name, system=experiment.system, profile=opts.profile.name,
        options=opts.to_dict(), rho=experiment.priors, domains=domains, tasks=tasks, g_index=0.0,
        g_index_rounded=0.0, warnings=list(experiment.warnings) + [w for w in warnings if w not in experiment.warnings],
        leak_threshold=result.leak_threshold, leave_self_out=result.leave_self_out,
    )
    new._state = dict(st, nearest=nearest, references=references)
    return _finish(new)


def score_task_anew(result: GIndexResult, experiment: Experiment, task_index: int, attempts: Sequence,
                    cancel=None) -> TaskResult:
    """Task ``task_index`` of ``experiment`` scored on new generated programs ``attempts`` (each
    with ``generated`` and ``syntax``, as ``Attempt``): every attempt's Δ searched, Ω and the
    nearest programs reused from ``result`` (which must have been computed on the same task
    references, curriculum and options: a run's placeholder experiment), TC from ``result``'s
    domain terms. ``result`` is not modified; the task's TC is the one ``compute_gindex`` gives an
    experiment holding these attempts. Raises ``Cancelled`` once ``cancel`` is set."""
    st = result._state
    opts, task = st["options"], experiment.tasks[task_index]
    reports = []
    for a in attempts:
        reports.append(score(task.reference, a.generated, opts, syntax=a.syntax, cancel=cancel))
        _raise_if_set(cancel)
    included = {d.domain for d in result.domains if d.included}
    t = _task_result(task_index, task, reports, st["nearest"][task_index], st["curriculum"], included,
                     result.leak_threshold)
    t.tc, t.terms = _tc(t.theta, t.gd, result.domains, result.rho)
    return t


# ----- the companion's aggregate mode ------------------------------------------------------------


def companion_dd_matrix(cexp: CompanionExperiment, options: ScoreOptions = ScoreOptions(profile=profiles.companion_default()),
                        symmetrise_in_directory_order: bool = False,
                        leave_self_out: bool = False) -> dict[tuple[str, str], float]:
    """dd(task domain, curriculum domain) for every test × train domain of ``cexp`` (spec §5),
    computed with ``domain_distance`` on the domain folders; not symmetric. ``leave_self_out``:
    each task program's minimum leaves out the curriculum program read from its own file (so
    dd(D, D) is each program's distance to the others of its domain).

    ``symmetrise_in_directory_order`` reproduces the companion's ``cache_dd`` quirk instead: it
    walks the domain folders in ``os.listdir`` order and fills dd(a, b) with the already computed
    dd(b, a) when b came first, so its dd is symmetric and depends on directory order."""
    flows = {name: [p.flow for p in progs] for name, progs in cexp.programs.items()}
    files = {name: [Path(p.path).resolve() for p in progs] for name, progs in cexp.programs.items()}
    cache: dict[tuple[str, str], float] = {}

    def dd(a: str, b: str) -> float:
        if (a, b) not in cache:
            own = [[k for k, q in enumerate(files[b]) if q == p] for p in files[a]] if leave_self_out else None
            cache[(a, b)] = domain_distance(flows[a], flows[b], options, exclude=own)
        return cache[(a, b)]

    out = {}
    if symmetrise_in_directory_order:
        order = [d for d in os.listdir(cexp.domains_dir) if d in flows]
        rank = {d: i for i, d in enumerate(order)}
        for t in cexp.tasks:
            for c in cexp.curriculum:
                a, b = t.name, c.name
                out[(a, b)] = dd(b, a) if rank[b] < rank[a] else dd(a, b)
        return out
    for t in cexp.tasks:
        for c in cexp.curriculum:
            out[(t.name, c.name)] = dd(t.name, c.name)
    return out


def compute_companion_gindex(companion_experiment: CompanionExperiment, domains_dir=None, *,
                             dd: dict[tuple[str, str], float] | None = None,
                             options: ScoreOptions | None = None,
                             symmetrise_in_directory_order: bool = False,
                             leave_self_out: bool = False) -> GIndexResult:
    """The companion's aggregate mode (spec §6): tasks are the test domains, θ of a domain is
    1 − its ``divergence`` in ``performance.domains``, GD_i = exp(10 · dd(task domain, C_i)),
    W from ``num_samples``, E = log2(train_cost.compute) for every domain, ρ = 1e-4.

    ``domains_dir``: read the domain programs from this folder instead of the one the experiment
    was loaded with. ``dd``: {(task domain, curriculum domain): value} given directly (skips the
    computation). ``options``: Δ options for dd (default: ``profiles.companion_default()``). ``leave_self_out``:
    see ``companion_dd_matrix``."""
    cexp = companion_experiment
    if domains_dir is not None and os.path.abspath(domains_dir) != os.path.abspath(cexp.domains_dir):
        cexp = replace(cexp, domains_dir=domains_dir,
                       programs=_companion_programs(cexp.path, domains_dir, cexp.curriculum, cexp.tasks))
    opts = options or ScoreOptions(profile=profiles.companion_default())
    if dd is None:
        dd = companion_dd_matrix(cexp, opts, symmetrise_in_directory_order, leave_self_out)
    domains, warnings = _domain_terms([c.name for c in cexp.curriculum], [c.samples for c in cexp.curriculum],
                                      [cexp.compute] * len(cexp.curriculum), cexp.priors, str(cexp.path))
    included = {d.domain for d in domains if d.included}
    tasks = []
    for j, t in enumerate(cexp.tasks):
        per = {}
        for c in cexp.curriculum:
            if (t.name, c.name) not in dd:
                raise ExperimentError(f"{cexp.path}: no domain distance dd({t.name!r}, {c.name!r}) given")
            per[c.name] = float(dd[(t.name, c.name)])
        counted = {d: v for d, v in per.items() if d in included} or per
        near = min(counted, key=lambda d: (counted[d], d)) if counted else None
        progs = cexp.programs.get(t.name, []) if cexp.programs else []
        tasks.append(TaskResult(
            index=j, id=t.name, domain=t.name,
            prompt=progs[0].flow.prompt if progs else "",
            delta=float(t.divergence), theta=1.0 - float(t.divergence), exact=True, syntax=None,
            omega=per[near] if near else 1.0, nearest=near, nearest_domain=near, omega_exact=True,
            omega_per_domain=per, nearest_per_domain={d: d for d in per},
            gd={d: generalization_difficulty(v) for d, v in per.items()}, terms={}, tc=0.0,
            score=None, perfects=t.perfects,
        ))
    result = GIndexResult(
        mode=COMPANION_KIND, name=cexp.path.stem, system=cexp.system, profile=opts.profile.name, options=opts.to_dict(),
        rho=cexp.priors, domains=domains, tasks=tasks, g_index=0.0, g_index_rounded=0.0, warnings=warnings,
        leave_self_out=leave_self_out,
    )
    return _finish(result)


# ----- beyond the paper (spec §7) -------------------------------------------------------------------


def skill_levels(result: GIndexResult) -> dict[str, float]:
    """Skill level per task domain: the fraction of its tasks whose generated program is perfect
    (Δ = 0, exact). In companion mode, the file's ``perfects`` of the domain (its own fraction of
    perfect outputs), or Δ = 0 where the file gives none."""
    groups: dict[str, list[float]] = {}
    for t in result.tasks:
        if result.mode == COMPANION_KIND and t.perfects is not None:
            value = t.perfects
        else:
            value = 1.0 if (t.delta == 0 and t.exact) else 0.0
        groups.setdefault(t.domain, []).append(value)
    return {d: float(np.mean(v)) for d, v in groups.items()}


@dataclass
class Interval:
    """A bootstrap interval: the estimate (the g-index itself), [low, high] at ``level``."""

    estimate: float
    low: float
    high: float
    level: float
    resamples: int
    seed: int


def _percentiles(samples: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(samples, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def bootstrap_interval(result: GIndexResult, resamples: int = 2000, level: float = 0.95, seed: int = 0) -> Interval:
    """Percentile bootstrap interval of the g-index over tasks: resample the tasks with
    replacement (numpy, seeded), take the mean TC of each resample. With one task the interval is
    that task's TC."""
    tc = np.array([t.tc for t in result.tasks], dtype=float)
    if tc.size == 0:
        return Interval(0.0, 0.0, 0.0, level, resamples, seed)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, tc.size, size=(resamples, tc.size))
    lo, hi = _percentiles(tc[idx].mean(axis=1), level)
    return Interval(result.g_index, lo, hi, level, resamples, seed)


@dataclass
class PairedComparison:
    """g-index of A minus g-index of B on the same tasks, with a paired bootstrap interval (the
    same resampled tasks for both systems: common random numbers), and the per-task TC differences."""

    difference: float
    low: float
    high: float
    level: float
    resamples: int
    seed: int
    task_ids: list[str]
    per_task: list[float]

    @property
    def significant(self) -> bool:
        """True when the interval excludes 0."""
        return self.low > 0 or self.high < 0


def paired_comparison(a: GIndexResult, b: GIndexResult, resamples: int = 2000, level: float = 0.95,
                      seed: int = 0) -> PairedComparison:
    """Compare two results on the same tasks (matched by id). Raises ValueError if the task sets differ."""
    ids_a = [t.id for t in a.tasks]
    ids_b = {t.id for t in b.tasks}
    if set(ids_a) != ids_b:
        only_a = sorted(set(ids_a) - ids_b)
        only_b = sorted(ids_b - set(ids_a))
        raise ValueError(f"the two results do not have the same tasks (only in A: {only_a}; only in B: {only_b})")
    tb = {t.id: t.tc for t in b.tasks}
    diffs = np.array([t.tc - tb[t.id] for t in a.tasks], dtype=float)
    if diffs.size == 0:
        return PairedComparison(0.0, 0.0, 0.0, level, resamples, seed, [], [])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, diffs.size, size=(resamples, diffs.size))
    lo, hi = _percentiles(diffs[idx].mean(axis=1), level)
    return PairedComparison(float(diffs.mean()), lo, hi, level, resamples, seed, ids_a, diffs.tolist())


@dataclass
class WhatIf:
    """A what-if series: the g-index for each value of one parameter, the rest as in the result."""

    parameter: str
    values: list[float]
    g_index: list[float]


def _gindex_with(result: GIndexResult, domains: Sequence[DomainTerm], thetas: Sequence[float] | None = None) -> float:
    tcs = []
    for k, t in enumerate(result.tasks):
        theta = t.theta if thetas is None else thetas[k]
        tcs.append(_tc(theta, t.gd, domains, result.rho)[0])
    return g_index_of(tcs)


def gindex_vs_samples(result: GIndexResult, totals: Iterable[float], split: str = "proportional") -> WhatIf:
    """g-index for each total number of training samples N (paper Fig. 7), split over the
    included curriculum domains in the experiment's proportions (``split="proportional"``) or
    evenly (``"even"``). Counts are not rounded (W is defined for real n ≥ 1); a total that gives
    a domain fewer than 1 sample raises ValueError."""
    inc = [d for d in result.domains if d.included]
    if split not in ("proportional", "even"):
        raise ValueError(f"split must be 'proportional' or 'even', got {split!r}")
    whole = sum(d.samples for d in inc)
    values, out = [], []
    for total in totals:
        doms = []
        for d in result.domains:
            if not d.included:
                doms.append(d)
                continue
            share = d.samples / whole if split == "proportional" else 1.0 / len(inc)
            n = total * share
            if n < 1:
                raise ValueError(f"{total:g} samples give domain {d.domain!r} {n:.3g} < 1 samples")
            doms.append(replace(d, samples=n, w=sample_weight(n)))
        values.append(float(total))
        out.append(_gindex_with(result, doms))
    return WhatIf("samples", values, out)


def gindex_vs_compute(result: GIndexResult, computes: Iterable[float]) -> WhatIf:
    """g-index for each total compute (paper Fig. 8), used for every domain (E = log2 compute).
    Raises ValueError when ρ + E ≤ 0."""
    values, out = [], []
    for c in computes:
        e = experience(c)
        if result.rho + e <= 0:
            raise ValueError(f"compute {c:g} gives priors + E = {result.rho + e:.6g} <= 0: the g-index is undefined")
        doms = [replace(d, compute=float(c), e=e) for d in result.domains]
        values.append(float(c))
        out.append(_gindex_with(result, doms))
    return WhatIf("compute", values, out)


def gindex_vs_theta(result: GIndexResult, thetas: Iterable[float]) -> WhatIf:
    """g-index if every task had performance θ (paper Fig. 9), the rest unchanged."""
    values, out = [], []
    for th in thetas:
        if not 0 <= th <= 1:
            raise ValueError(f"θ must lie in [0, 1], got {th!r}")
        values.append(float(th))
        out.append(_gindex_with(result, result.domains, [th] * len(result.tasks)))
    return WhatIf("theta", values, out)
