"""Experiments in the compare window: the task table with the g-index on top, and the controller
that keeps the g-index live while a task's programs are edited.

``ExperimentController`` owns the loaded experiment and its latest ``GIndexResult``. Edits arrive
as edited flows for one task; the controller writes them into the experiment (the core's
``Task.set_*_flow``), and recomputes that task and the g-index with ``recompute_task`` on a worker
(``compute_gindex`` when the scoring options changed). The companion's files (a results file with a
domain folder) load read-only: their tasks are domains, without generated programs to compare.

A whole computation reports as it goes: each task's row appears as soon as its Δ is known and is
completed when its Ω is; a progress bar follows the stages (Δ, curriculum, Ω) and Cancel stops the
work (the searches, and the worker processes a big experiment uses) at once, keeping the rows done.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, QModelIndex, QObject, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.core.benchmark.curriculum import LEAK_THRESHOLD
from gindex_studio.core.scoring.divergence import ScoreOptions
from gindex_studio.core.benchmark.experiment import (
    Experiment,
    ExperimentError,
    load_companion_experiment,
    load_experiment,
    save_experiment,
)
from gindex_studio.core.benchmark.gindex import (
    GIndexResult,
    Listener,
    bootstrap_interval,
    compute_companion_gindex,
    compute_gindex,
    recompute_task,
)

from gindex_studio.ui.cluster import client_for
from gindex_studio.ui.compare.panel import fmt
from gindex_studio.ui.compare.scoring import LatestRunner
from gindex_studio.ui.theme import role_colors

COLUMNS = ["Task", "Domain", "Prompt", "Δ", "θ", "Ω", "TC", "Exact"]
SORT_ROLE = Qt.UserRole + 1


def is_companion_file(path: str | Path) -> bool:
    """True for the companion's results files (``train_set``/``performance`` keys)."""
    import orjson

    try:
        value = orjson.loads(Path(path).read_bytes())
    except Exception:
        return False
    return isinstance(value, dict) and "train_set" in value and "format" not in value


#: a whole computation runs Ω on worker processes (all cores) from this many task × program pairs,
#: on a machine with at least PROCESS_CORES cores. The studio has threads, so workers are spawned:
#: each imports the core and receives the pickled curriculum, which on 2 cores costs more than it
#: saves (40 × 1,200 synthetic experiment, 2 loaded cores: 12.4 s in the studio's process, 20.3 s
#: on 2 spawned workers; bench/bench_experiment_progress.py)
PROCESS_PAIRS = 10_000
PROCESS_CORES = 4
#: where each stage's steps fall on the progress bar (per mille): the stages take very different
#: times (Δ is one search a task, Ω up to one a curriculum program), so the bar never runs back
STAGE_SPAN = {"delta": (0, 100), "curriculum": (100, 300), "omega": (300, 1000)}
STAGE_WORDS = {"delta": "Δ of the tasks", "curriculum": "preparing the curriculum", "omega": "Ω of the tasks"}
PROGRESS_MS = 40  # the progress bar moves at most this often (ms)


class _Feed(QObject):
    """Carries a worker's reports to the GUI thread, tagged with the job they belong to."""

    stage = Signal(int, str, int, int)
    delta = Signal(int, int, object)  # job, task index, [ScoreResult]
    task = Signal(int, object)  # job, TaskResult


class _FeedListener(Listener):
    """The core's ``Listener`` for one job: forwards through the feed; curriculum steps are
    thinned to about one in a hundred (a step is a program: there may be thousands)."""

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
        self.edited: set[int] = set()  # tasks edited since the file was read or saved
        self._unscored: set[int] = set()
        self._pending: dict[int, dict[str, object]] = {}
        self.dirty = False
        self.workers: int | None = None  # None: chosen by the experiment's size (PROCESS_PAIRS)
        self.scheduler: str | None = None  # a Dask scheduler: whole computations run on its cluster
        self.runner = LatestRunner(self)
        self.runner.done.connect(self._on_done)
        self.runner.failed.connect(self._on_failed)
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
        return "companion" if self.companion is not None else "tasks"

    # ----- loading ----------------------------------------------------------------------------
    def load(self, path: str, domains_dir: str | None = None) -> None:
        """Read an experiment (ours, or the companion's with ``domains_dir``) and compute its
        g-index on the worker. Raises ExperimentError."""
        self.edited.clear()
        self._unscored.clear()
        self._pending.clear()
        self.result = None
        self.previous_g = None
        self._set_dirty(False)
        if domains_dir is not None:
            self.companion = load_companion_experiment(path, domains_dir)
            self.experiment = None
            self.options = ScoreOptions(profile="companion")
            cexp = self.companion
            self.busy_changed.emit(True)
            self.runner.submit(lambda _p, _s: compute_companion_gindex(cexp))
            return
        self.companion = None
        self.experiment = load_experiment(path)
        self.options = self.experiment.options
        self._submit_full(self._snapshot(), self.options)

    def _workers(self, exp: Experiment) -> int:
        if self.workers is not None:
            return self.workers
        pairs = len(exp.tasks) * sum(len(c.programs) for c in exp.curriculum)
        cores = os.cpu_count() or 1
        return cores if pairs >= PROCESS_PAIRS and cores >= PROCESS_CORES else 1

    def _full_job(self, snap: Experiment, opts: ScoreOptions):
        """The job computing the g-index from scratch, reporting through the feed; on the cluster
        of ``scheduler`` when one is set (connected in the job's thread: ClusterError fails the
        job with its one line)."""
        self._job += 1
        listener, workers, scheduler = _FeedListener(self._feed, self._job), self._workers(snap), self.scheduler
        self.started.emit(snap)

        def run(_partial, stale):
            client = client_for(scheduler) if scheduler else None
            return compute_gindex(snap, opts, workers=workers, listener=listener, cancel=stale, client=client)

        return run

    def _submit_full(self, snap: Experiment, opts: ScoreOptions) -> None:
        job = self._full_job(snap, opts)
        self.busy_changed.emit(True)
        self.runner.submit(job)

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

    def recompute_all(self) -> None:
        """Compute the whole g-index again (after a cancel)."""
        if self.experiment is not None:
            self._submit_full(self._snapshot(), self.options)

    def _snapshot(self) -> Experiment:
        """A shallow copy the worker may read while the GUI thread replaces task flows."""
        exp = self.experiment
        return replace(exp, tasks=[replace(t) for t in exp.tasks])

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
                task.set_reference_flow(get(sides["reference"]))
            if "generated" in sides:
                task.set_generated_flow(get(sides["generated"]))
            self.edited.add(k)
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
            for k in todo:
                res = recompute_task(res, snap, k, opts)
            return res, todo

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

    # ----- saving -----------------------------------------------------------------------------
    def save(self, path: str | None = None) -> Path:
        """Write the experiment (edited tasks inline). Raises ExperimentError / OSError."""
        if self.experiment is None:
            raise ExperimentError("companion experiments are read-only here: nothing to save")
        if self._pending:
            self.recompute_now()
        out = save_experiment(self.experiment, path)
        self.edited.clear()
        self._set_dirty(False)
        return out


# ----- the task table --------------------------------------------------------------------------


@dataclass
class PendingTask:
    """A row whose Δ is known and whose Ω (so TC) is still being computed."""

    index: int
    id: str
    domain: str
    prompt: str
    delta: float
    theta: float
    exact: bool
    syntax: dict | None
    omega: None = None
    nearest: None = None
    omega_exact: bool = False
    tc: None = None
    leak: None = None


def pending_row(index: int, task, reports) -> PendingTask:
    """The row of experiment task ``task`` from its Δ reports (θ = mean over attempts, as the core)."""
    deltas = [r.delta for r in reports]
    delta = deltas[0] if len(deltas) == 1 else sum(deltas) / len(deltas)
    theta = reports[0].theta if len(deltas) == 1 else 1.0 - delta
    return PendingTask(index, task.id, task.domain, task.prompt, delta, theta, all(r.exact for r in reports),
                       reports[0].errors.get("syntax"))


class TaskTableModel(QAbstractTableModel):
    """One row per task: a ``TaskResult``, or a ``PendingTask`` while its Ω is computed. Rows
    arrive one by one during a computation (``begin``, ``add_delta``, ``complete``) and are
    replaced by the final result's (``set_result``)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result: GIndexResult | None = None
        self.rows: list = []
        self.edited: set[int] = set()
        self.failed_bg = QColor(role_colors("failed")[1])

    def begin(self) -> None:
        """A computation from scratch starts: no row yet."""
        self.beginResetModel()
        self.result, self.rows = None, []
        self.endResetModel()

    def add_delta(self, index: int, task, reports) -> None:
        """Task ``index``'s Δ is known: its row appears (or is replaced)."""
        row = pending_row(index, task, reports)
        if index < len(self.rows):
            self.rows[index] = row
            self.dataChanged.emit(self.index(index, 0), self.index(index, len(COLUMNS) - 1))
            return
        while len(self.rows) < index:  # never happens in order, but a row is a task's own
            self.rows.append(None)
        self.beginInsertRows(QModelIndex(), len(self.rows), index)
        self.rows.append(row)
        self.endInsertRows()

    def complete(self, task) -> None:
        """Task ``task.index`` (a ``TaskResult``) is complete."""
        k = task.index
        if k < len(self.rows):
            self.rows[k] = task
            self.dataChanged.emit(self.index(k, 0), self.index(k, len(COLUMNS) - 1))

    @property
    def leaks_apply(self) -> bool:
        """Tasks with programs (not the companion's aggregate mode, where a task is a domain)."""
        return self.result is None or self.result.mode == "tasks"

    @property
    def completed(self) -> int:
        return sum(1 for t in self.rows if t is not None and t.omega is not None)

    def set_result(self, result: GIndexResult | None, edited: set[int]) -> None:
        if result is not None and len(result.tasks) == len(self.rows) and self.rows:
            self.result, self.rows, self.edited = result, list(result.tasks), set(edited)
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(COLUMNS) - 1))
            return
        self.beginResetModel()
        self.result, self.edited = result, set(edited)
        self.rows = list(result.tasks) if result is not None else []
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Horizontal and role == Qt.ToolTipRole:
            return {
                "Δ": "divergence of the generated program from the reference (0 = perfect)",
                "θ": "1 − Δ",
                "Ω": "distance of the task from the curriculum (nearest curriculum program)",
                "TC": "the task's contribution to the g-index",
                "Exact": "every search finished (no deadline cut it)",
            }.get(COLUMNS[section])
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or self.rows[index.row()] is None:
            return None
        t = self.rows[index.row()]
        col = COLUMNS[index.column()]
        if t.omega is None and col in ("Ω", "TC", "Exact"):
            return self._pending(role, col)
        if role == Qt.DisplayRole:
            return _SHOW[col](self, t)
        if role == SORT_ROLE:
            return _SORT[col](t)
        if role == Qt.ToolTipRole:
            if col == "Prompt":
                return t.prompt
            if col == "Task":
                tip = f"{t.id} (edited, not saved)" if t.index in self.edited else t.id
                if t.syntax:
                    tip += f"\nsyntax error: {t.syntax.get('message')}"
                return tip
            if col == "Ω" and t.nearest and self.leaks_apply:
                return leak_tip(t, self.result.leak_threshold if self.result is not None else LEAK_THRESHOLD)
        if role == Qt.TextAlignmentRole and col in ("Δ", "θ", "Ω", "TC"):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ForegroundRole and col == "Ω" and t.leak is not False and self.leaks_apply:
            return QColor("#b00020")
        if role == Qt.FontRole and t.index in self.edited:
            f = QFont()
            f.setItalic(True)
            return f
        return None

    def _pending(self, role, col):
        if role == Qt.DisplayRole:
            return "…"
        if role == SORT_ROLE:
            return float("inf") if col != "Exact" else -1
        if role == Qt.ToolTipRole:
            return "Ω is being computed"
        if role == Qt.TextAlignmentRole and col != "Exact":
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None


def leak_tip(t, threshold) -> str:
    """The Ω cell's tooltip: the nearest curriculum program and the core's leak flag."""
    near = f"nearest curriculum program: {t.nearest} (Ω = {fmt(t.omega)})"
    if t.leak:
        same = "identical (up to ids and ignored keys)" if t.omega == 0 else "near-identical"
        return f"{near}\nthe reference is {same} to it (Ω ≤ {float(threshold):g}): the task leaks from training"
    if t.leak is None:
        return f"{near}\na deadline cut the Ω search: whether Ω ≤ {float(threshold):g} (a leak) is not decided"
    return near


_SHOW = {  # column -> text of a row (only the cell asked for is computed: a pending row has no Ω)
    "Task": lambda m, t: t.id + (" •" if t.index in m.edited else ""),
    "Domain": lambda m, t: t.domain,
    "Prompt": lambda m, t: " ".join(t.prompt.split())[:160],
    "Δ": lambda m, t: fmt(t.delta),
    "θ": lambda m, t: fmt(t.theta),
    "Ω": lambda m, t: fmt(t.omega) + ({True: " leak", None: " leak?"}.get(t.leak, "") if m.leaks_apply else ""),
    "TC": lambda m, t: f"{t.tc:,.1f}",
    "Exact": lambda m, t: "yes" if t.exact and t.omega_exact else "bound",
}
_SORT = {
    "Task": lambda t: t.id, "Domain": lambda t: t.domain, "Prompt": lambda t: t.prompt, "Δ": lambda t: t.delta,
    "θ": lambda t: t.theta, "Ω": lambda t: t.omega, "TC": lambda t: t.tc,
    "Exact": lambda t: int(t.exact and t.omega_exact),
}


class TaskFilter(QSortFilterProxyModel):
    """Failures only (Δ > 0), one domain, and free text over id, domain and prompt."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.failures_only = False
        self.domain = ""
        self.text = ""
        self.setSortRole(SORT_ROLE)

    def set_filter(self, failures_only: bool | None = None, domain: str | None = None, text: str | None = None):
        begin = getattr(self, "beginFilterChange", None)  # Qt ≥ 6.9; invalidateFilter before
        if begin is not None:
            begin()
        if failures_only is not None:
            self.failures_only = failures_only
        if domain is not None:
            self.domain = domain
        if text is not None:
            self.text = text.casefold().strip()
        if begin is not None:
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateFilter()

    def filterAcceptsRow(self, row, parent):
        t = self.sourceModel().rows[row]
        if t is None:
            return False
        if self.failures_only and t.delta <= 0 and not t.syntax:
            return False
        if self.domain and t.domain != self.domain:
            return False
        if self.text and self.text not in f"{t.id} {t.domain} {t.prompt}".casefold():
            return False
        return True


class ExperimentPanel(QWidget):
    """The g-index with its components on top, filters, and the sortable task table."""

    task_selected = Signal(int)  # experiment task index
    attempt_selected = Signal(int)  # attempt index (0 = the first) of the current task
    save_requested = Signal()
    cancel_requested = Signal()
    restart_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        head = QHBoxLayout()
        self.g_label = QLabel("g-index —")
        self.g_label.setObjectName("g-index")
        f = QFont(self.font())
        f.setPixelSize(18)
        f.setBold(True)
        self.g_label.setFont(f)
        head.addWidget(self.g_label)
        self.components = QLabel("")
        self.components.setWordWrap(True)
        self.components.setTextInteractionFlags(Qt.TextSelectableByMouse)
        head.addWidget(self.components, 1)
        self.progress = QProgressBar()
        self.progress.setObjectName("gindex-progress")
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.progress.setMinimumWidth(260)
        self.progress.hide()
        head.addWidget(self.progress)
        # a QProgressBar repaints the window at once on every new value: the stages' steps are
        # shown at most every PROGRESS_MS (the first at once), not hundreds of times a second
        self._progress_next: tuple[str, int, int] | None = None
        self._progress_timer = QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.setInterval(PROGRESS_MS)
        self._progress_timer.timeout.connect(self._show_next_progress)
        self.stop_button = QPushButton("Cancel")
        self.stop_button.setObjectName("gindex-cancel")
        self.stop_button.setToolTip("Stop computing the g-index (the rows already done stay)")
        self.stop_button.clicked.connect(self._stop_clicked)
        self.stop_button.hide()
        head.addWidget(self.stop_button)
        self.save_button = QPushButton("Save experiment")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save_requested)
        head.addWidget(self.save_button)
        lay.addLayout(head)
        filters = QHBoxLayout()
        self.failures = QCheckBox("failures only")
        self.domain = QComboBox()
        self.domain.addItem("all domains", "")
        self.search = QLineEdit()
        self.search.setPlaceholderText("filter by task, domain or prompt text")
        self.search.setClearButtonEnabled(True)
        self.count_label = QLabel("")
        filters.addWidget(self.failures)
        filters.addWidget(self.domain)
        filters.addWidget(self.search, 1)
        filters.addWidget(self.count_label)
        self.attempt = QComboBox()
        self.attempt.setObjectName("attempt")
        self.attempt.setToolTip("which of the task's attempts the compare view shows (format 2 experiments)")
        self.attempt.hide()
        self.attempt.activated.connect(self.attempt_selected)
        filters.addWidget(self.attempt)
        lay.addLayout(filters)
        self.model = TaskTableModel(self)
        self.proxy = TaskFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setObjectName("tasks")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setAlternatingRowColors(True)
        h = self.table.horizontalHeader()
        # the columns fit the rows on screen (refitted as they scroll into view): measuring every
        # row on every change made each finished task cost O(rows) on the GUI thread
        h.setResizeContentsPrecision(0)
        for c, name in enumerate(COLUMNS):
            h.setSectionResizeMode(c, QHeaderView.Stretch if name == "Prompt" else QHeaderView.ResizeToContents)
        self.table.verticalScrollBar().valueChanged.connect(lambda _v: h.resizeSections())
        lay.addWidget(self.table, 1)
        self.failures.toggled.connect(lambda on: self._filter(failures_only=on))
        self.domain.currentIndexChanged.connect(lambda _i: self._filter(domain=self.domain.currentData() or ""))
        self.search.textChanged.connect(lambda t: self._filter(text=t))
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        self._current_task: int | None = None
        self._quiet = False

    def _filter(self, **kw) -> None:
        self.proxy.set_filter(**kw)
        self._count()

    # ----- a computation in progress ----------------------------------------------------------
    def begin(self, experiment) -> None:
        """A computation of ``experiment`` from scratch starts: rows will arrive one by one."""
        self._running_tasks = list(experiment.tasks)
        self.model.begin()
        self._set_domains(sorted({t.domain for t in experiment.tasks}))
        self.g_label.setText("g-index …")
        self.components.setText(f"computing: {len(experiment.tasks)} tasks, "
                                f"{sum(len(c.programs) for c in experiment.curriculum):,} curriculum programs")
        self._progress_timer.stop()
        self._progress_next = None
        self.progress.setValue(0)
        self.progress.setFormat("starting…")
        self.set_busy(True)
        self._count()

    def add_delta(self, index: int, reports) -> None:
        self.model.add_delta(index, self._running_tasks[index], reports)
        if index == self._current_task:
            self.select_task(index, emit=False)
        self._count()

    def complete(self, task) -> None:
        self.model.complete(task)

    def show_progress(self, stage: str, done: int, total: int) -> None:
        """Step ``done`` of ``total`` in ``stage``: on the bar now, or the latest such step when
        ``PROGRESS_MS`` have passed since the bar last moved."""
        self._progress_next = (stage, done, total)
        if not self._progress_timer.isActive():
            self._show_next_progress()

    def _show_next_progress(self) -> None:
        if self._progress_next is None:
            return
        stage, done, total = self._progress_next
        self._progress_next = None
        lo, hi = STAGE_SPAN[stage]
        self.progress.setValue(lo + (hi - lo) * done // max(1, total))
        self.progress.setFormat(f"{STAGE_WORDS[stage]}: {done:,} of {total:,}")
        self._progress_timer.start()

    def set_busy(self, on: bool) -> None:
        """Show the progress bar and Cancel while a computation runs."""
        self.progress.setVisible(on)
        self.stop_button.setText("Cancel")
        self.stop_button.setToolTip("Stop computing the g-index (the rows already done stay)")
        self.stop_button.setVisible(on)

    def show_cancelled(self) -> None:
        n, done = self.model.rowCount(), self.model.completed
        total = len(getattr(self, "_running_tasks", [])) or n
        self.g_label.setText("g-index — (cancelled)")
        self.components.setText(f"Cancelled: {done} of {total} tasks complete, Δ of {n}; the g-index needs every task.")
        self.progress.hide()
        self.stop_button.setText("Compute again")
        self.stop_button.setToolTip("Compute the g-index of the experiment from the start")
        self.stop_button.show()

    def _stop_clicked(self) -> None:
        if self.stop_button.text() == "Cancel":
            self.cancel_requested.emit()
        else:
            self.restart_requested.emit()

    def _set_domains(self, domains: list[str]) -> None:
        if [self.domain.itemData(i) for i in range(1, self.domain.count())] == domains:
            return
        cur = self.domain.currentData()
        self.domain.blockSignals(True)
        self.domain.clear()
        self.domain.addItem("all domains", "")
        for d in domains:
            self.domain.addItem(d, d)
        k = self.domain.findData(cur)
        self.domain.setCurrentIndex(max(0, k))
        self.domain.blockSignals(False)

    def _count(self) -> None:
        n = self.model.rowCount()
        self.count_label.setText(f"{self.proxy.rowCount()} of {n} tasks")

    def set_result(self, result: GIndexResult, edited: set[int], previous: float | None = None,
                   companion: bool = False) -> None:
        self._quiet = True
        try:
            self.model.set_result(result, edited)
            self._set_domains(sorted({t.domain for t in result.tasks}))
            if self._current_task is not None:
                self.select_task(self._current_task, emit=False)
        finally:
            self._quiet = False
        change = ""
        if previous is not None and abs(previous - result.g_index) > 1e-9:
            change = f"   <span style='font-size:12px; font-weight:normal; color:#444'>{previous:,.3f} → {result.g_index:,.3f}</span>"
        self.g_label.setText(f"g-index {result.g_index:,.3f}{change}")
        self.components.setText(components_text(result, companion))
        self.components.setToolTip(domains_tooltip(result))
        self._count()

    def select_task(self, index: int, emit: bool = True) -> None:
        src = self.model.index(index, 0)
        row = self.proxy.mapFromSource(src)
        self._current_task = index
        if row.isValid():
            quiet, self._quiet = self._quiet, not emit or self._quiet
            try:
                self.table.selectionModel().setCurrentIndex(
                    row, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
                self.table.scrollTo(row)
            finally:
                self._quiet = quiet

    def set_attempts(self, task, current: int) -> None:
        """The attempt chooser for a task result (``TaskResult``): one entry per attempt with its
        Δ, ``current`` chosen; hidden when the task has one attempt."""
        deltas = list(task.attempt_deltas) if task is not None else []
        self.attempt.blockSignals(True)
        self.attempt.clear()
        n = len(deltas)
        for k, d in enumerate(deltas):
            self.attempt.addItem(f"attempt {k + 1} of {n} · Δ {fmt(d)}" + ("" if k == 0 else " (view only)"), k)
        self.attempt.setCurrentIndex(max(0, min(current, n - 1)))
        self.attempt.blockSignals(False)
        self.attempt.setVisible(n > 1)

    def visible_tasks(self) -> list[str]:
        rows = self.model.rows
        return [rows[self.proxy.mapToSource(self.proxy.index(r, 0)).row()].id for r in range(self.proxy.rowCount())]

    def _on_current(self, current, _previous) -> None:
        if not current.isValid():
            return
        index = self.proxy.mapToSource(current).row()
        if self._quiet:
            return
        self._current_task = index
        self.task_selected.emit(index)


def components_text(r: GIndexResult, companion: bool = False) -> str:
    """The g-index's components in one short paragraph."""
    inc = [d for d in r.domains if d.included]
    es = sorted({round(d.e, 4) for d in inc})
    e_txt = (f"E = log2({inc[0].compute:g}) = {inc[0].e:.3f}" if len(es) == 1 and inc else
             f"E from {min(es):.3f} to {max(es):.3f}" if inc else "E —")
    ws = [d.w for d in inc]
    w_txt = f"W from {min(ws):.3f} to {max(ws):.3f}" if ws else "W —"
    exact = "exact" if r.exact else "bounds (a deadline cut a search)"
    mode = "companion aggregate mode (tasks are test domains)" if companion else f"{len(r.tasks)} tasks"
    spread = ""
    if len(r.tasks) >= 2:
        ci = bootstrap_interval(r)
        spread = f" · 95% interval {ci.low:,.1f} … {ci.high:,.1f} (bootstrap over tasks)"
    return (f"= mean TC over {mode}{spread} · mean θ = {fmt(r.theta_mean)} · ρ = {r.rho:g} · {e_txt} · "
            f"{len(inc)} curriculum domains, {w_txt} · {r.profile} profile · {exact}")


def domains_tooltip(r: GIndexResult) -> str:
    lines = ["domain: samples, W, compute, E"]
    for d in r.domains:
        w = f"{d.w:.4f}" if d.w is not None else "left out"
        lines.append(f"{d.domain}: {d.samples}, {w}, {d.compute:g}, {d.e:.4f}")
    return "\n".join(lines)
