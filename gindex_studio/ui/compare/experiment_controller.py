"""The experiment behind the compare window: ``ExperimentController`` owns the loaded experiment
and its latest ``GIndexResult`` and keeps the g-index live while a task's programs are edited.

Edits are what-if edits: they are kept beside the model's recorded output (the core's
``Task.edit``), never over it; the g-index shown is that of ``with_edits(experiment)``, and saving
writes the edits under ``tasks[j].edited`` (docs/experiment-format.md). ``revert`` returns tasks to
the recorded output. Recomputation runs off the GUI thread: ``recompute_task`` for edited tasks
(a short search, in a thread), ``compute_gindex`` (a whole computation: loading, or the scoring
options changed) in a worker process of its own, whose events the GUI thread only reads
(``ui.process_runner``), so the window never waits on the interpreter lock. The companion's files (a results file with a
domain folder) load read-only: their tasks are domains, without generated programs to compare.

A whole computation reports as it goes (``started``, ``task_delta``, ``task_done``, ``progress``)
and ``cancel()`` stops it at once (the worker process is killed with the processes it started).
"""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from gindex_studio.core.benchmark.experiment import (
    COMPANION_KIND,
    Experiment,
    ExperimentError,
    edited_tasks,
    load_companion_experiment,
    load_experiment,
    save_experiment,
    with_edits,
)
from gindex_studio.core.benchmark.gindex import (
    GIndexResult,
    Listener,
    compute_gindex,
    recompute_task,
)
from gindex_studio.core.flows.files import FileStamp
from gindex_studio.core.scoring.divergence import ScoreOptions
from gindex_studio.core.support import profiles

from gindex_studio.ui.cluster import client_for
from gindex_studio.core.jobs import experiment as experiment_jobs
from gindex_studio.ui.process_runner import ProcessRunner

#: a whole computation runs Ω on worker processes (all cores) from this many task × program pairs,
#: on a machine with at least PROCESS_CORES cores. The studio has threads, so workers are spawned:
#: each imports the core and receives the pickled curriculum, which on 2 cores costs more than it
#: saves (40 × 1,200 synthetic experiment, 2 loaded cores: 12.4 s in the studio's process, 20.3 s
#: on 2 spawned workers; bench/bench_experiment_progress.py)
PROCESS_PAIRS = 10_000
PROCESS_CORES = 4


class _Feed(QObject):
    """Carries a cluster job's reports to the GUI thread, tagged with the job they belong to."""

    stage = Signal(int, str, int, int)
    delta = Signal(int, int, object)  # job, task index, [ScoreResult]
    task = Signal(int, object)  # job, TaskResult


class _FeedListener(Listener):
    """The core's ``Listener`` for one cluster job: forwards through the feed; curriculum steps
    are thinned to about one in a hundred (a step is a program: there may be thousands)."""

    def __init__(self, feed: _Feed, job: int):
        self.feed, self.job = feed, job

    def stage(self, name, done, total):
        if name != "curriculum" or done == total or done % max(1, total // 100) == 0:
            self.feed.stage.emit(self.job, name, done, total)

    def delta(self, index, reports):
        self.feed.delta.emit(self.job, index, reports)

    def task(self, result):
        self.feed.task.emit(self.job, result)


class ExperimentController(QObject):
    """The loaded experiment, its g-index and the live recomputation of edited tasks.

    While a whole computation runs, ``started`` announces it, ``task_delta`` and ``task_done``
    deliver the rows as they come and ``progress`` the stage; ``cancel()`` stops it."""

    result_changed = Signal(object)  # GIndexResult (final)
    busy_changed = Signal(bool)
    failed = Signal(str)
    dirty_changed = Signal(bool)
    started = Signal(object)  # the Experiment being computed from scratch
    task_delta = Signal(int, object)  # task index, [ScoreResult] (one per attempt)
    task_done = Signal(object)  # TaskResult, complete
    progress = Signal(str, int, int)  # stage, done, total
    cancelled = Signal()

    DEBOUNCE_MS = 15

    def __init__(self, parent=None):
        super().__init__(parent)
        self.experiment: Experiment | None = None
        self.companion = None
        self.result: GIndexResult | None = None
        self.previous_g: float | None = None
        self.options: ScoreOptions | None = None
        self.unsaved: set[int] = set()  # tasks whose edits changed since the file was read or saved
        self._unscored: set[int] = set()
        self._pending: dict[int, dict[str, object]] = {}
        self.dirty = False
        self.disk_stamp: FileStamp | None = None  # the experiment file as read or last saved here
        self.workers: int | None = None  # None: chosen by the experiment's size (PROCESS_PAIRS)
        self.scheduler: str | None = None  # a Dask scheduler: whole computations run on its cluster
        self.runner = ProcessRunner(self)
        self.runner.done.connect(self._on_done)
        self.runner.failed.connect(self._on_failed)
        self.runner.event.connect(self._on_event)
        self._feed = _Feed(self)
        self._job = 0
        self._feed.stage.connect(lambda job, *a: job == self._job and self.progress.emit(*a))
        self._feed.delta.connect(lambda job, k, r: job == self._job and self.task_delta.emit(k, r))
        self._feed.task.connect(lambda job, t: job == self._job and self.task_done.emit(t))
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(self.DEBOUNCE_MS)
        self.timer.timeout.connect(self.recompute_now)

    @property
    def mode(self) -> str:
        return COMPANION_KIND if self.companion is not None else "tasks"

    # ----- loading ----------------------------------------------------------------------------
    def load(self, path: str, domains_dir: str | None = None) -> None:
        """Read an experiment (ours, or the companion's with ``domains_dir``) and compute its
        g-index on the worker. Raises ExperimentError."""
        self.unsaved.clear()
        self._unscored.clear()
        self._pending.clear()
        self.result = None
        self.previous_g = None
        self._set_dirty(False)
        if domains_dir is not None:
            self.companion = load_companion_experiment(path, domains_dir)
            self.experiment = None
            self.options = ScoreOptions(profile=profiles.companion_default())
            cexp = self.companion
            self.busy_changed.emit(True)
            self.runner.submit_process(experiment_jobs.companion_job, cexp)
            return
        self.companion = None
        stamp = FileStamp.of(path)  # before reading: a change while it is read counts as a change
        self.experiment = load_experiment(path)
        self.disk_stamp = stamp
        self.options = self.experiment.options
        self._submit_full(self._snapshot(), self.options)

    def _workers(self, exp: Experiment) -> int:
        if self.workers is not None:
            return self.workers
        pairs = len(exp.tasks) * sum(len(c.programs) for c in exp.curriculum)
        cores = os.cpu_count() or 1
        return cores if pairs >= PROCESS_PAIRS and cores >= PROCESS_CORES else 1

    def _cluster_job(self, snap: Experiment, opts: ScoreOptions):
        """The job computing the g-index on the cluster of ``scheduler``, reporting through the
        feed (connected in the job's thread: ClusterError fails the job with its one line; the
        work itself runs on the cluster's processes)."""
        listener, workers, scheduler = _FeedListener(self._feed, self._job), self._workers(snap), self.scheduler

        def run(_partial, stale):
            return compute_gindex(snap, opts, workers=workers, listener=listener, cancel=stale,
                                  client=client_for(scheduler))

        return run

    def _submit_full(self, snap: Experiment, opts: ScoreOptions) -> None:
        """The g-index from scratch: in a worker process (``experiment_jobs.gindex_job``), whose
        events become ``progress``, ``task_delta`` and ``task_done``; or on the cluster."""
        self._job += 1
        self.started.emit(snap)
        self.busy_changed.emit(True)
        if self.scheduler:
            self.runner.submit(self._cluster_job(snap, opts))
        else:
            self.runner.submit_process(experiment_jobs.gindex_job, snap, opts, self._workers(snap))

    def _on_event(self, kind: str, value) -> None:
        if kind == "stage":
            self.progress.emit(*value)
        elif kind == "delta":
            self.task_delta.emit(*value)
        elif kind == "task":
            self.task_done.emit(value)

    def cancel(self) -> None:
        """Stop the running computation now (searches and worker processes); no result arrives.
        The rows already done stay; ``recompute_all`` starts again."""
        if not self.runner.busy:
            return
        self.timer.stop()
        self.runner.cancel()
        self._job += 1  # reports still in flight are dropped
        self.busy_changed.emit(False)
        self.cancelled.emit()

    def clear(self) -> None:
        """No experiment any more (a system run is about to fill the table): a computation that
        runs stops without a word (no ``cancelled``), and nothing is left to save."""
        if self.runner.busy:
            self.timer.stop()
            self.runner.cancel()
            self._job += 1
            self.busy_changed.emit(False)
        self.experiment = self.companion = self.result = self.previous_g = None
        self.unsaved.clear()
        self._unscored.clear()
        self._pending.clear()
        self._set_dirty(False)

    def recompute_all(self) -> None:
        """Compute the whole g-index again (after a cancel)."""
        if self.experiment is not None:
            self._submit_full(self._snapshot(), self.options)

    def _snapshot(self) -> Experiment:
        """What is scored: the experiment with its what-if edits in place of the recorded programs,
        a shallow copy the worker may read while the GUI thread edits tasks."""
        return with_edits(self.experiment)

    @property
    def edited(self) -> set[int]:
        """Tasks scored on a what-if edit rather than the model's recorded output."""
        return set(edited_tasks(self.experiment)) if self.experiment is not None else set()

    def wait_idle(self, ms: int = 30_000) -> None:
        if self.timer.isActive():
            self.recompute_now()
        self.runner.wait(ms)

    # ----- edits ------------------------------------------------------------------------------
    def task_edited(self, index: int, reference=None, generated=None) -> None:
        """Task ``index`` now has these programs (flows, or callables returning a copy when the
        debounce fires; None: that side unchanged)."""
        if self.experiment is None:
            return
        p = self._pending.setdefault(index, {})
        if reference is not None:
            p["reference"] = reference
        if generated is not None:
            p["generated"] = generated
        self.timer.start()

    def set_options(self, options: ScoreOptions) -> None:
        if self.experiment is None or options == self.options:
            return
        self.options = options
        self.timer.start()

    def recompute_now(self) -> None:
        self.timer.stop()
        exp = self.experiment
        if exp is None:
            return
        for k, sides in self._pending.items():
            task = exp.tasks[k]
            get = lambda v: v() if callable(v) else v  # noqa: E731 - providers read the editor now
            if "reference" in sides:
                task.edit(reference=get(sides["reference"]))
            if "generated" in sides:
                task.edit(generated=get(sides["generated"]))
            self.unsaved.add(k)
            self._unscored.add(k)
        if self._pending:
            self._set_dirty(True)
        self._pending.clear()
        base, opts, snap = self.result, self.options, self._snapshot()
        todo = sorted(self._unscored)
        if base is None or base._state.get("options") != opts:
            self._submit_full(snap, opts)
            return

        def job(_partial, _stale):
            res = base
            experiment_jobs.restore_curriculum(res, snap, opts)  # a worker process's result comes without it
            for k in todo:
                res = recompute_task(res, snap, k, opts)
            return experiment_jobs.with_interval(res), todo

        self.busy_changed.emit(True)
        self.runner.submit(job)

    def _on_done(self, value) -> None:
        res, done = value if isinstance(value, tuple) else (value, list(range(len(value.tasks))))
        self._unscored.difference_update(done)
        if self.result is not None:
            self.previous_g = self.result.g_index
        self.result = res
        self.busy_changed.emit(False)
        self.result_changed.emit(res)

    def _on_failed(self, message: str) -> None:
        self.busy_changed.emit(False)
        self.failed.emit(message)

    def _set_dirty(self, on: bool) -> None:
        if on != self.dirty:
            self.dirty = on
            self.dirty_changed.emit(on)

    def forget_edits(self) -> None:
        """The user chose not to save: the edits stay in memory but nothing asks about them again."""
        self._set_dirty(False)

    def revert(self, indexes) -> list[int]:
        """Back to the model's recorded output for these tasks (their what-if edits are dropped;
        saving then writes no ``edited`` entry for them). Returns the tasks that had edits."""
        exp = self.experiment
        if exp is None:
            return []
        self._pending = {k: v for k, v in self._pending.items() if k not in set(indexes)}
        done = [k for k in indexes if exp.tasks[k].edited]
        for k in done:
            exp.tasks[k].revert_edits()
            self.unsaved.add(k)
            self._unscored.add(k)
        if done:
            self._set_dirty(True)
            self.recompute_now()
        return done

    # ----- saving -----------------------------------------------------------------------------
    def changed_on_disk(self, path: str | None = None) -> bool:
        """True when saving to ``path`` (default: where the experiment was read) would replace
        what another program wrote there since the file was read or last saved here."""
        exp = self.experiment
        if exp is None or exp.path is None or self.disk_stamp is None:
            return False
        if path is not None and os.path.abspath(path) != os.path.abspath(exp.path):
            return False
        return self.disk_stamp.changed_on_disk(exp.path)

    def save(self, path: str | None = None) -> Path:
        """Write the experiment: the recorded programs as they were read, what-if edits beside
        them (``tasks[j].edited``). Raises ExperimentError / OSError."""
        if self.experiment is None:
            raise ExperimentError("companion experiments are read-only here: nothing to save")
        if self._pending:
            self.recompute_now()
        out = save_experiment(self.experiment, path)
        self.disk_stamp = FileStamp.of(out)
        self.unsaved.clear()
        self._set_dirty(False)
        return out
