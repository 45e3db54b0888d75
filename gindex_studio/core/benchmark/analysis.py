"""The numbers behind the Analysis window and the report (issue 10): per-task arrays of each system,
the comparison table (paper Table 1) with bootstrap intervals, paired comparisons of systems on
their shared tasks, skill level / pass@k by program size (Fig. 11) and the responsiveness curves
(Figs. 7-9) with a band over random uneven splits of the samples across domains.

Pure numpy, no Qt: the UI and the HTML report draw exactly these arrays.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from gindex_studio.core.benchmark import stats
from gindex_studio.core.benchmark.experiment import CompanionExperiment, Experiment
from gindex_studio.core.benchmark.gindex import GIndexResult, SharedOmega, compute_gindex

DEFAULT_SPLITS = 50
RESPONSE_POINTS = 25


@dataclass
class System:
    """A system under comparison: its label, experiment and scored result."""

    label: str
    experiment: Experiment | None
    result: GIndexResult


def score_systems(pairs: Sequence[tuple[str, Experiment]], workers: int | None = None,
                  cancel=None, leave_self_out: bool = False) -> list[System]:
    """Score every experiment (``compute_gindex``) into systems, a curriculum they share prepared
    and searched once (``SharedOmega``). ``cancel`` (anything with ``is_set()``): once set, the
    running computation stops and ``Cancelled`` is raised."""
    shared = SharedOmega()
    return [System(label, exp, compute_gindex(exp, workers=workers, cancel=cancel, leave_self_out=leave_self_out,
                                              shared=shared))
            for label, exp in pairs]


def open_companion(paths: Sequence[str | Path], domains_dir: str | Path) -> list[tuple[str, CompanionExperiment]]:
    """The companion's experiment files (a folder stands for its ``*.json`` files, sorted: see
    ``study.input_files``) read against ``domains_dir``, each labelled with its file name (made
    unique). Raises ExperimentError."""
    from gindex_studio.core.benchmark.experiment import load_companion_experiment
    from gindex_studio.core.benchmark.study import input_files, unique_labels

    files = input_files(list(paths))
    return list(zip(unique_labels([f.stem for f in files]), (load_companion_experiment(f, domains_dir) for f in files)))


def score_companion(pairs: Sequence[tuple[str, CompanionExperiment]], *, symmetrise_in_directory_order: bool = False,
                    leave_self_out: bool = False) -> list[System]:
    """Companion experiments scored in aggregate mode (``compute_companion_gindex``); dd is
    computed once for every experiment."""
    from gindex_studio.core.benchmark.gindex import companion_dd_matrix, compute_companion_gindex

    dd: dict[tuple[str, str], float] = {}
    out = []
    for label, cexp in pairs:
        if any((t.name, c.name) not in dd for t in cexp.tasks for c in cexp.curriculum):
            dd.update(companion_dd_matrix(cexp, symmetrise_in_directory_order=symmetrise_in_directory_order,
                                          leave_self_out=leave_self_out))
        out.append(System(label, None, compute_companion_gindex(cexp, dd=dd, leave_self_out=leave_self_out)))
    return out


def companion_systems(paths: Sequence[str | Path], domains_dir: str | Path, *, symmetrise_in_directory_order: bool = False,
                      leave_self_out: bool = False) -> list[System]:
    """``open_companion`` then ``score_companion``. Raises ExperimentError."""
    return score_companion(open_companion(paths, domains_dir), symmetrise_in_directory_order=symmetrise_in_directory_order,
                           leave_self_out=leave_self_out)


# ----- per-task arrays --------------------------------------------------------------------------


@dataclass
class TaskArrays:
    """One system's tasks as arrays (index j = the result's task j). ``size``: characters of the
    reference program as compact JSON (0 when unknown); ``solved``: θ = 1 (every attempt exact);
    ``attempts`` n and ``perfect`` c per task; θ's spread over attempts as min / max / sd;
    ``share`` = TC_j / Σ TC."""

    label: str
    ids: list[str]
    domains: list[str]
    size: np.ndarray
    theta: np.ndarray
    omega: np.ndarray
    tc: np.ndarray
    share: np.ndarray
    solved: np.ndarray
    attempts: np.ndarray
    perfect: np.ndarray
    theta_min: np.ndarray
    theta_max: np.ndarray
    theta_sd: np.ndarray

    def index(self, task_id: str) -> int:
        return self.ids.index(task_id)


def program_size(flow) -> int:
    """Characters of a program's text, written as compact JSON (independent of file layout)."""
    return len(flow.dumps(indent=False).decode("utf-8"))


def task_arrays(system: System) -> TaskArrays:
    res = system.result
    tasks = res.tasks
    sizes = [0] * len(tasks)
    if system.experiment is not None and res.mode == "tasks":
        by_id = {t.id: t for t in system.experiment.tasks}
        sizes = [program_size(by_id[t.id].reference) if t.id in by_id else 0 for t in tasks]
    tc = np.array([t.tc for t in tasks], dtype=float)
    thetas = [np.array([1.0 - d for d in (t.attempt_deltas or [t.delta])]) for t in tasks]
    perfect = [sum(t.attempt_perfect) if t.attempt_deltas else int(t.delta == 0 and t.exact) for t in tasks]
    total = tc.sum()
    return TaskArrays(
        label=system.label,
        ids=[t.id for t in tasks],
        domains=[t.domain for t in tasks],
        size=np.array(sizes, dtype=float),
        theta=np.array([t.theta for t in tasks], dtype=float),
        omega=np.array([t.omega for t in tasks], dtype=float),
        tc=tc,
        share=tc / total if total > 0 else np.zeros_like(tc),
        solved=np.array([t.delta == 0 and t.exact for t in tasks], dtype=bool),
        attempts=np.array([len(th) for th in thetas], dtype=int),
        perfect=np.array(perfect, dtype=int),
        theta_min=np.array([th.min() for th in thetas]),
        theta_max=np.array([th.max() for th in thetas]),
        theta_sd=np.array([th.std() for th in thetas]),
    )


# ----- the comparison table ---------------------------------------------------------------------


@dataclass
class Summary(stats.Record):
    """A row of the comparison table (paper Table 1) with bootstrap intervals (stratified by task
    domain). ``pass_k`` is None when a task has fewer than k attempts."""

    label: str
    g_index: stats.Estimate
    theta: stats.Estimate
    skill: stats.Estimate
    pass_k: stats.Estimate | None
    k: int
    samples: float
    compute: float
    mean_omega: float
    tasks: int
    attempts: int  # the most attempts of any task


def training_samples(result: GIndexResult) -> int:
    return int(sum(d.samples for d in result.domains if d.included))


def training_compute(result: GIndexResult) -> float:
    """The compute of the result (the largest domain compute when domains override it)."""
    return float(max((d.compute for d in result.domains), default=0.0))


def summarise(ta: TaskArrays, result: GIndexResult, k: int = 1, resamples: int = stats.DEFAULT_RESAMPLES,
              level: float = stats.DEFAULT_LEVEL, seed: int = 0) -> Summary:
    kw = dict(strata=ta.domains, resamples=resamples, level=level, seed=seed)
    pk = None
    if ta.attempts.size and ta.attempts.min() >= k:
        pk = stats.bootstrap_mean(stats.pass_at_k(ta.attempts, ta.perfect, k), **kw)
    g = stats.bootstrap_mean(ta.tc, **kw)
    g.value = result.g_index  # the same number the header shows (mean TC, unrounded)
    return Summary(ta.label, g, stats.bootstrap_mean(ta.theta, **kw), stats.bootstrap_mean(ta.solved, **kw), pk, k,
                   training_samples(result), training_compute(result),
                   float(ta.omega.mean()) if ta.omega.size else 0.0, len(ta.ids),
                   int(ta.attempts.max()) if ta.attempts.size else 0)


TABLE_COLUMNS = ("g-index", "θ", "training samples", "compute", "mean Ω", "skill level")


def table_marks(rows: Sequence[Summary]) -> dict[str, tuple[int, int]]:
    """Per column of ``TABLE_COLUMNS``: the row index of the best and of the worst value. Best is
    the highest g-index, θ, skill level and mean Ω (farther tasks are harder), and the fewest
    training samples and least compute (less experience for the same result)."""
    values = {
        "g-index": [r.g_index.value for r in rows],
        "θ": [r.theta.value for r in rows],
        "training samples": [-r.samples for r in rows],
        "compute": [-r.compute for r in rows],
        "mean Ω": [r.mean_omega for r in rows],
        "skill level": [r.skill.value for r in rows],
    }
    return {c: (int(np.argmax(v)), int(np.argmin(v))) for c, v in values.items() if v}


# ----- paired comparisons -----------------------------------------------------------------------


@dataclass
class Paired(stats.Record):
    """System a against system b on their shared tasks: differences a − b with paired bootstrap
    intervals (g-index = mean TC, mean θ), the permutation test on per-task TC, the sign test and
    the permutation test on per-task θ, McNemar on solved / not solved, and sentences."""

    a: str
    b: str
    shared: list[str]
    g_diff: stats.Estimate
    theta_diff: stats.Estimate
    g_test: stats.TestResult
    theta_sign: stats.TestResult
    theta_perm: stats.TestResult
    mcnemar: stats.TestResult
    g_sentence: str
    theta_sentence: str


def compare(a: TaskArrays, b: TaskArrays, resamples: int = stats.DEFAULT_RESAMPLES,
            level: float = stats.DEFAULT_LEVEL, seed: int = 0) -> Paired:
    """Compare two systems on the tasks they share (matched by id, in a's order). The g-index
    difference is over the shared tasks only. Raises ValueError when they share no task."""
    ib = {t: j for j, t in enumerate(b.ids)}
    shared = [t for t in a.ids if t in ib]
    if not shared:
        raise ValueError(f"{a.label} and {b.label} share no task id")
    ja = np.array([a.index(t) for t in shared])
    jb = np.array([ib[t] for t in shared])
    strata = [a.domains[j] for j in ja]
    kw = dict(strata=strata, resamples=resamples, level=level, seed=seed)
    g = stats.paired_bootstrap(a.tc[ja], b.tc[jb], **kw)
    th = stats.paired_bootstrap(a.theta[ja], b.theta[jb], **kw)
    g_test = stats.permutation_test(a.tc[ja], b.tc[jb], seed=seed)
    th_perm = stats.permutation_test(a.theta[ja], b.theta[jb], seed=seed)
    return Paired(
        a.label, b.label, shared, g, th, g_test,
        stats.sign_test(a.theta[ja], b.theta[jb]), th_perm,
        stats.mcnemar(a.solved[ja], b.solved[jb]),
        stats.difference_sentence("g-index", a.label, b.label, g, g_test, len(shared)),
        stats.difference_sentence("mean θ", a.label, b.label, th, th_perm, len(shared)),
    )


# ----- skill level and pass@k by program size (Fig. 11) ----------------------------------------


@dataclass
class SizeBins:
    """Tasks binned by program size (bins of about equal count over every system's tasks):
    ``edges`` (len = bins + 1) and, per system, the share solved and the mean pass@k per bin
    (NaN for an empty bin) and the count."""

    edges: np.ndarray
    centre: np.ndarray
    skill: dict[str, np.ndarray]
    pass_k: dict[str, np.ndarray]
    count: dict[str, np.ndarray]
    k: int


def size_bins(arrays: Sequence[TaskArrays], k: int = 1, bins: int = 8) -> SizeBins:
    pooled = np.concatenate([ta.size for ta in arrays]) if arrays else np.zeros(0)
    if pooled.size == 0:
        return SizeBins(np.zeros(1), np.zeros(0), {}, {}, {}, k)
    edges = np.unique(np.quantile(pooled, np.linspace(0, 1, min(bins, np.unique(pooled).size) + 1)))
    if edges.size == 1:
        edges = np.array([edges[0], edges[0] + 1])
    centre = (edges[:-1] + edges[1:]) / 2
    skill, passk, count = {}, {}, {}
    for ta in arrays:
        which = np.clip(np.searchsorted(edges, ta.size, side="right") - 1, 0, edges.size - 2)
        n = np.bincount(which, minlength=edges.size - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            skill[ta.label] = np.bincount(which, weights=ta.solved.astype(float), minlength=n.size) / n
            if ta.attempts.size and ta.attempts.min() >= k:
                pk = stats.pass_at_k(ta.attempts, ta.perfect, k)
                passk[ta.label] = np.bincount(which, weights=pk, minlength=n.size) / n
        count[ta.label] = n
    return SizeBins(edges, centre, skill, passk, count, k)


# ----- responsiveness (Figs. 7-9) ---------------------------------------------------------------


@dataclass
class Curve:
    """g-index as one parameter varies (``x``), the rest as in the experiment: ``y`` with the
    experiment's own split of samples across domains, ``low``/``high`` the 5th and 95th percentiles
    over ``splits`` random uneven splits (Dirichlet(1) shares, at least one sample per domain)."""

    parameter: str
    x: np.ndarray
    y: np.ndarray
    low: np.ndarray
    high: np.ndarray
    splits: int
    current: float  # the experiment's own value of the parameter


class _Model:
    """TC as matrices: TC_j = sqrt(exp(12 θ_j) · Σ_i W_i · GD_ij / (ρ + E_i)) over included domains."""

    def __init__(self, result: GIndexResult):
        self.inc = [d for d in result.domains if d.included]
        names = [d.domain for d in self.inc]
        self.gd = np.array([[t.gd[n] for n in names] for t in result.tasks], dtype=float).reshape(len(result.tasks), len(names))
        self.theta = np.array([t.theta for t in result.tasks], dtype=float)
        self.rho = result.rho
        self.samples = np.array([d.samples for d in self.inc], dtype=float)
        self.e = np.array([d.e for d in self.inc], dtype=float)

    def gindex(self, samples: np.ndarray, e: np.ndarray, theta: np.ndarray | None = None) -> np.ndarray:
        """g-index for each row of ``samples`` (S × D) and ``e`` (S × D or D); θ per task (S × T or T)."""
        w = 1.0 / (1.0 + np.log2(samples))
        terms = (w / (self.rho + e)) @ self.gd.T  # S × T
        th = self.theta if theta is None else theta
        if self.gd.shape[0] == 0:
            return np.zeros(terms.shape[0])
        return np.sqrt(np.exp(12.0 * th) * terms).mean(axis=1)

    def splits(self, total: float, count: int, rng: np.random.Generator) -> np.ndarray:
        d = len(self.inc)
        return 1.0 + (total - d) * rng.dirichlet(np.ones(d), size=count)


def responsiveness(result: GIndexResult, splits: int = DEFAULT_SPLITS, points: int = RESPONSE_POINTS,
                   seed: int = 0) -> dict[str, Curve]:
    """The three responsiveness curves of a result: ``samples`` (total training samples from the
    least that gives every domain one sample to 100× the experiment's, split in its proportions), ``compute`` (from 2 to
    100× the experiment's, one compute for every domain) and ``theta`` (every task at θ from 0 to 1).
    Each has a band over ``splits`` random uneven splits of the samples (of each total, for the
    samples curve; of the experiment's total otherwise)."""
    m = _Model(result)
    if not m.inc or not result.tasks:
        return {}
    rng = np.random.default_rng(seed)
    total = float(m.samples.sum())
    d = len(m.inc)
    out = {}

    lowest = total / float(m.samples.min())  # the smallest total that gives every domain >= 1 sample
    xs = np.geomspace(lowest, max(total * 100, lowest + 1.0), points)
    xs = np.unique(np.append(xs, total))
    own = m.gindex(np.outer(xs, m.samples / total), m.e)
    band = np.array([m.gindex(m.splits(x, splits, rng), m.e) for x in xs])
    out["samples"] = Curve("samples", xs, own, *np.percentile(band, [5, 95], axis=1), splits, total)

    cur_c = float(2.0 ** np.max(m.e)) if d else 2.0
    cs = np.unique(np.append(np.geomspace(2.0, max(cur_c * 100, 4.0), points), cur_c))
    split_s = m.splits(total, splits, rng)
    own = np.array([m.gindex(m.samples[None, :], np.full(d, np.log2(c)))[0] for c in cs])
    band = np.array([m.gindex(split_s, np.full(d, np.log2(c))) for c in cs])
    out["compute"] = Curve("compute", cs, own, *np.percentile(band, [5, 95], axis=1), splits, cur_c)

    ts = np.linspace(0.0, 1.0, points)
    t_count = len(result.tasks)
    own = np.array([m.gindex(m.samples[None, :], m.e, np.full(t_count, t))[0] for t in ts])
    band = np.array([m.gindex(split_s, m.e, np.full(t_count, t)) for t in ts])
    out["theta"] = Curve("theta", ts, own, *np.percentile(band, [5, 95], axis=1), splits, float(m.theta.mean()))
    return out


# ----- everything at once ----------------------------------------------------------------------


@dataclass
class Analysis:
    """Everything the Analysis window and the report show for a list of systems."""

    systems: list[System]
    arrays: list[TaskArrays]
    summary: list[Summary]
    pairs: list[Paired]
    bins: SizeBins
    curves: dict[str, dict[str, Curve]]
    k: int
    resamples: int
    level: float
    seed: int
    splits: int
    notes: list[str] = field(default_factory=list)

    def arrays_of(self, label: str) -> TaskArrays:
        return next(a for a in self.arrays if a.label == label)

    def to_dict(self) -> dict:
        """JSON-ready (arrays as lists)."""
        def plain(v):
            if isinstance(v, np.ndarray):
                return v.tolist()
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            if isinstance(v, (list, tuple)):
                return [plain(x) for x in v]
            if isinstance(v, (np.floating, np.integer, np.bool_)):
                return v.item()
            return v

        return plain({
            "k": self.k, "resamples": self.resamples, "level": self.level, "seed": self.seed, "splits": self.splits,
            "systems": [dict(s.to_dict(), tasks_detail=[
                {"id": a.ids[j], "domain": a.domains[j], "size": a.size[j], "theta": a.theta[j],
                 "omega": a.omega[j], "tc": a.tc[j], "share": a.share[j], "solved": a.solved[j],
                 "attempts": a.attempts[j], "perfect": a.perfect[j], "theta_min": a.theta_min[j],
                 "theta_max": a.theta_max[j], "theta_sd": a.theta_sd[j]} for j in range(len(a.ids))])
                for s, a in zip(self.summary, self.arrays)],
            "comparisons": [p.to_dict() for p in self.pairs],
            "size_bins": asdict(self.bins),
            "responsiveness": {lab: {k: asdict(c) for k, c in cs.items()} for lab, cs in self.curves.items()},
            "notes": self.notes,
        })


def analyse(systems: Sequence[System], k: int = 1, resamples: int = stats.DEFAULT_RESAMPLES,
            level: float = stats.DEFAULT_LEVEL, seed: int = 0, splits: int = DEFAULT_SPLITS) -> Analysis:
    """Every number of the Analysis window for ``systems`` (compared pairwise in order)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    arrays = [task_arrays(s) for s in systems]
    summary = [summarise(a, s.result, k, resamples, level, seed) for a, s in zip(arrays, systems)]
    notes = [f"{s.label}: pass@{k} needs {k} attempts per task; some task has {int(a.attempts.min())}"
             for s, a, row in zip(systems, arrays, summary) if row.pass_k is None and a.attempts.size]
    pairs = []
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            try:
                pairs.append(compare(arrays[i], arrays[j], resamples, level, seed))
            except ValueError as e:
                notes.append(str(e))
    curves = {s.label: responsiveness(s.result, splits, seed=seed) for s in systems}
    return Analysis(list(systems), arrays, summary, pairs, size_bins(arrays, k), curves, k, resamples, level, seed,
                    splits, notes)


# ----- worst tasks and why -----------------------------------------------------------------------


def delta_explanation(report, reference=None, generated=None) -> list[str]:
    """Short sentences saying why Δ > 0, from a Δ report (``ScoreResult``): the syntax issue, the
    missing and extra nodes (by type when the flows are given), the attributes that differ and the
    missing and extra wires."""
    if report is None:
        return []
    types = {}
    for flow in (reference, generated):
        if flow is not None:
            types.update({n.data.get("id"): n.data.get("type", "?") for n in flow.nodes})

    def named(ids):
        return ", ".join(f"{types.get(i, i)}" for i in ids)

    out = []
    syn = report.errors.get("syntax")
    if syn:
        out.append(f"syntax: {syn.get('message')}")
    if report.n_generated == 0:
        out.append("no nodes could be read from the output")
    if report.missing_nodes:
        out.append(f"{len(report.missing_nodes)} missing node(s): {named(report.missing_nodes)}")
    if report.extra_nodes:
        out.append(f"{len(report.extra_nodes)} extra node(s): {named(report.extra_nodes)}")
    attrs = [f for f in report.errors.get("function", []) if f.get("kind") == "attributes"]
    if attrs:
        keys = sorted({k for f in attrs for k in f.get("keys", [])})
        out.append(f"{len(attrs)} node(s) with other values ({', '.join(keys)})")
    if report.missing_edges:
        out.append(f"{len(report.missing_edges)} missing wire(s)")
    if report.extra_edges:
        out.append(f"{len(report.extra_edges)} extra wire(s)")
    return out


def worst_tasks(system: System, count: int = 5) -> list[tuple[int, list[str]]]:
    """The ``count`` tasks of lowest θ (ties: larger TC first) with the explanation of their
    first attempt's Δ: [(task index, sentences)]."""
    tasks = sorted(system.result.tasks, key=lambda t: (t.theta, -t.tc, t.index))[:count]
    by_id = {t.id: t for t in system.experiment.tasks} if system.experiment is not None else {}
    out = []
    for t in tasks:
        et = by_id.get(t.id)
        out.append((t.index, delta_explanation(t.score, et.reference if et else None, et.generated if et else None)))
    return out


# ----- the comparison table as text (window and report) ------------------------------------


def fmt_est(e, digits: int = 3) -> str:
    """An estimate with its interval as the table shows it: ``value [low, high]`` ("—" for None)."""
    if e is None:
        return "—"
    if abs(e.value) >= 100:
        return f"{e.value:,.1f} [{e.low:,.1f}, {e.high:,.1f}]"
    return f"{e.value:.{digits}f} [{e.low:.{digits}f}, {e.high:.{digits}f}]"


def table_rows(an: Analysis) -> list[list[str]]:
    """The comparison table as text: system, then ``TABLE_COLUMNS``, then pass@k."""
    return [[s.label, fmt_est(s.g_index), fmt_est(s.theta), f"{s.samples:,}", f"{s.compute:g}",
             f"{s.mean_omega:.3f}", fmt_est(s.skill), fmt_est(s.pass_k)] for s in an.summary]


def table_header(an: Analysis) -> list[str]:
    """The comparison table's column titles (pass@k names this analysis's k)."""
    return ["system", *TABLE_COLUMNS, f"pass@{an.k}"]
