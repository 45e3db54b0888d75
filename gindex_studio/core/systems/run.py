"""A run: every task's prompt asked ``attempts`` times of a system on worker threads, each request
and answer logged as it happens (:mod:`.runlog`), and the experiment file the answers make.

Contracts: an attempt already answered in the log is never asked again (an error is asked again);
attempt ``i`` gets seed ``seed + i`` (so attempts differ yet repeat). The experiment is an ordinary
one (``experiment_build``): answers inline and verbatim (read leniently when scored; an error or
an unreadable answer scores Δ = 1), the run's settings, per-attempt token counts, seconds, cost and
errors, and the prompts, under ``"x-attempt"``.
"""
from __future__ import annotations

import queue
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from gindex_studio.core.benchmark.experiment import Experiment, experiment_from_value
from gindex_studio.core.benchmark.experiment_build import BuildSpec, build_experiment, build_value
from gindex_studio.core.benchmark.validate import ExperimentError
from gindex_studio.core.systems.base import Answer, Params, Prompt, System
from gindex_studio.core.systems.corpus import Entry
from gindex_studio.core.systems.runlog import RunLog


@dataclass
class RunSpec:
    """Attempts per task, sampling parameters, worker threads and prices (per million prompt /
    completion tokens, any currency; None: no cost)."""

    attempts: int = 1
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    concurrency: int = 1
    price_in: float | None = None
    price_out: float | None = None

    def params(self, attempt: int) -> Params:
        seed = None if self.seed is None else self.seed + attempt
        return Params(attempt, self.temperature, seed, self.max_tokens)

    def cost(self, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
        if self.price_in is None and self.price_out is None:
            return None
        return ((prompt_tokens or 0) * (self.price_in or 0.0) + (completion_tokens or 0) * (self.price_out or 0.0)) / 1e6


@dataclass(frozen=True)
class Job:
    task: Entry
    attempt: int
    prompt: Prompt


def pending(tasks: list[Entry], prompts: dict[str, Prompt], attempts: int, answered) -> list[Job]:
    """The (task, attempt) pairs with no successful answer in ``answered`` (a mapping of
    (task id, attempt) → answer record), task by task."""
    return [Job(t, i, prompts[t.id]) for t in tasks for i in range(attempts)
            if (answered.get((t.id, i)) or {"error": "none"}).get("error") is not None]


@dataclass
class Stats:
    """What one call of ``ask`` did (``cancelled``: it stopped before every job was asked)."""

    asked: int = 0
    errors: int = 0
    seconds: float = 0.0
    answers: list[dict] = field(default_factory=list)
    cancelled: bool = False


def ask(system: System, jobs: list[Job], log: RunLog, spec: RunSpec,
        progress: Callable[[int, int, dict], None] | None = None, cancel: threading.Event | None = None) -> Stats:
    """Ask every job on ``spec.concurrency`` threads, logging each request and answer. Returns when
    all are answered; a KeyboardInterrupt in the caller's thread stops handing out jobs and is
    raised again (what was answered is in the log; the threads are daemons).

    ``cancel`` (an Event, set from any thread): no job is handed out once it is set; the requests
    in flight finish (each within the system's own timeout) and their answers are logged and
    reported as usual; then ``ask`` returns with ``cancelled`` true if jobs were left unasked."""
    todo: queue.SimpleQueue = queue.SimpleQueue()
    for j in jobs:
        todo.put(j)
    stats, lock = Stats(), threading.Lock()
    stop = threading.Event()
    start = time.monotonic()
    if not jobs:
        return stats

    def work() -> None:
        while not stop.is_set() and not (cancel is not None and cancel.is_set()):
            try:
                job = todo.get_nowait()
            except queue.Empty:
                return
            params = spec.params(job.attempt)
            log.append({"kind": "request", "task": job.task.id, "attempt": job.attempt, "prompt": job.prompt.text,
                        "params": asdict(params), "time": time.time()})
            try:
                a = system.answer(job.prompt, params)
            except Exception as e:  # a system's bug: an error value, the run goes on
                a = Answer("", error=f"{type(e).__name__}: {' '.join(str(e).split())[:300]}")
            rec = {"kind": "answer", "task": job.task.id, "attempt": job.attempt, "text": a.text, "error": a.error,
                   "prompt_tokens": a.prompt_tokens, "completion_tokens": a.completion_tokens,
                   "seconds": round(a.seconds, 6), "cost": spec.cost(a.prompt_tokens, a.completion_tokens)}
            log.append(rec)
            with lock:
                stats.asked += 1
                stats.errors += a.error is not None
                stats.answers.append(rec)
                n = stats.asked
            if progress:
                progress(n, len(jobs), rec)

    threads = [threading.Thread(target=work, daemon=True, name=f"gindex-ask-{k}")
               for k in range(max(1, min(spec.concurrency, len(jobs))))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        raise
    stats.seconds = time.monotonic() - start
    stats.cancelled = stats.asked < len(jobs)
    return stats


@dataclass
class Setup:
    """What the experiment records beside the answers: the curriculum folder, the task files, the
    training compute and samples as the user states them, names, and the run's settings."""

    curriculum: Path
    tasks: list[Path]
    compute: float
    system: str
    name: str = ""
    priors: float = 1e-4
    profile: str | None = None
    samples: dict[str, int] | None = None
    default_samples: int | None = None
    settings: dict = field(default_factory=dict)


def _spec(setup: Setup, out: Path) -> BuildSpec:
    chosen = {"profile": setup.profile} if setup.profile is not None else {}  # None: BuildSpec's default
    return BuildSpec(setup.curriculum, setup.tasks, out, setup.compute, setup.name, setup.system, setup.priors,
                     samples=setup.samples, default_samples=setup.default_samples, **chosen)


def check_setup(setup: Setup, out: Path, tasks: list[Entry]) -> None:
    """Raise the ExperimentError that writing the experiment would (an unknown ``--samples``
    domain, compute too small for the priors, …) before anything is asked."""
    out.parent.mkdir(parents=True, exist_ok=True)  # relative paths resolve from there (the log goes there too)
    placeholder_experiment(setup, out, tasks)


def placeholder_experiment(setup: Setup, out: Path, tasks: list[Entry]) -> Experiment:
    """The experiment the run writes to ``out`` with every answer still empty (not written): the
    same task references, curriculum and options, so Ω computed on it is the written one's.
    Raises ExperimentError."""
    return experiment_from_value(build_value(_spec(setup, out), out, {t.id: [""] for t in tasks}), out)


def _totals(records: list[dict]) -> dict:
    def total(key):
        vals = [r[key] for r in records if r.get(key) is not None]
        return sum(vals) if vals else None

    return {"answers": len(records), "errors": sum(r.get("error") is not None for r in records),
            "prompt_tokens": total("prompt_tokens"), "completion_tokens": total("completion_tokens"),
            "seconds": total("seconds"), "cost": total("cost")}


def write_experiment(setup: Setup, out: Path, tasks: list[Entry], prompts: dict[str, Prompt], attempts: int,
                     answered: dict[tuple[str, int], dict]) -> Experiment:
    """Write the experiment of a finished run (every attempt of every task in ``answered``).
    Raises ExperimentError (also when an attempt has no answer record)."""
    outputs, per_task, records = {}, {}, []
    for t in tasks:
        recs = [answered.get((t.id, i)) for i in range(attempts)]
        if any(r is None for r in recs):
            raise ExperimentError(f"{out}: task {t.id!r} has attempts with no answer yet; run again to ask them")
        records += recs
        outputs[t.id] = [r["text"] if r.get("error") is None else "" for r in recs]
        per_task[t.id] = {"prompt": prompts[t.id].text, "attempts": [
            {k: r.get(k) for k in ("error", "prompt_tokens", "completion_tokens", "seconds", "cost")} for r in recs]}
    extra = {"x-attempt": {"settings": setup.settings, "totals": _totals(records), "tasks": per_task}}
    return build_experiment(_spec(setup, out), out, outputs, extra)
