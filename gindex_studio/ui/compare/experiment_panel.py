"""The experiment panel of the compare window: the g-index with its components on top, a
progress bar with Cancel while it is computed, filters, and the sortable task table."""
from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
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

from gindex_studio.core.benchmark.gindex import GIndexResult
from gindex_studio.core.jobs.experiment import interval_of

from gindex_studio.ui.compare.elided import ElidedLabel
from gindex_studio.ui.compare.panel import fmt
from gindex_studio.ui.compare.task_table import COLUMNS, TaskFilter, TaskTableModel
from gindex_studio.ui.panels.small_widgets import headline, push_button

#: where each stage's steps fall on the progress bar (per mille): the stages take very different
#: times (Δ is one search a task, Ω up to one a curriculum program), so the bar never runs back
STAGE_SPAN = {"delta": (0, 100), "curriculum": (100, 300), "omega": (300, 1000)}
STAGE_WORDS = {"delta": "Δ of the tasks", "curriculum": "preparing the curriculum", "omega": "Ω of the tasks"}
PROGRESS_MS = 40  # the progress bar moves at most this often (ms)
#: the width of the column of the g-index, its components and the filters, beside the table
SUMMARY_WIDTH = 390
TABLE_ROWS = 8  # rows of tasks the panel shows at least (a 1366×768 screen included)
REFIT_MS = 250  # a system run's rows arriving: the columns are refitted at most this often (ms)


class ExperimentPanel(QWidget):
    """The g-index with its components on top, filters, and the sortable task table."""

    task_selected = Signal(int)  # experiment task index
    attempt_selected = Signal(int)  # attempt index (0 = the first) of the current task
    save_requested = Signal()
    revert_requested = Signal()  # the current task back to the model's output
    cancel_requested = Signal()
    restart_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        # the g-index, its components and the filters in a column beside the table, not rows
        # above it: on a laptop screen the panel is then only as tall as eight rows of tasks,
        # and the canvases above keep the rest
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 2, 4, 2)
        outer.setSpacing(2)
        body = QHBoxLayout()
        body.setSpacing(6)
        self.summary = QWidget()
        self.summary.setObjectName("experiment-summary")
        self.summary.setFixedWidth(SUMMARY_WIDTH)
        lay = QVBoxLayout(self.summary)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(1)
        head = QHBoxLayout()
        self.g_label = headline("g-index —", "g-index", 18, self)
        head.addWidget(self.g_label, 1)
        self.components = ElidedLabel("", lines=2)  # the whole text in its tooltip
        self.components.setObjectName("components")
        self.progress = QProgressBar()
        self.progress.setObjectName("gindex-progress")
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.progress.setMinimumWidth(120)
        self.progress.hide()
        head.addWidget(self.progress, 2)
        # a QProgressBar repaints the window at once on every new value: the stages' steps are
        # shown at most every PROGRESS_MS (the first at once), not hundreds of times a second
        self._progress_next: tuple[str, int, int] | None = None
        self._progress_timer = QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.setInterval(PROGRESS_MS)
        self._progress_timer.timeout.connect(self._show_next_progress)
        self.stop_button = push_button("Cancel", "gindex-cancel", "Stop computing the g-index (the rows already "
                                       "done stay)", self._stop_clicked, shown=False)
        head.addWidget(self.stop_button)
        lay.addLayout(head)
        lay.addWidget(self.components)
        self.save_button = QPushButton("Save experiment")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save_requested)
        self.edits_label = ElidedLabel("", lines=1)
        self.edits_label.setObjectName("edits-note")
        self.edits_label.hide()
        self.revert_button = QPushButton("Revert to Model Output")
        self.revert_button.setObjectName("revert-task")
        self.revert_button.setToolTip("Drop this task's what-if edits: score the model's recorded output again")
        self.revert_button.clicked.connect(self.revert_requested)
        self.revert_button.hide()
        edits = QHBoxLayout()
        edits.addWidget(self.edits_label, 1)
        edits.addWidget(self.revert_button)
        self.failures = QCheckBox("failures only")
        self.domain = QComboBox()
        self.domain.addItem("all domains", "")
        self.domain.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.domain.setMinimumContentsLength(10)
        self.search = QLineEdit()
        self.search.setPlaceholderText("filter by task, domain or prompt text")
        self.search.setClearButtonEnabled(True)
        self.count_label = QLabel("")
        first = QHBoxLayout()
        first.addWidget(self.failures)
        first.addWidget(self.domain, 1)
        first.addWidget(self.save_button)
        lay.addLayout(first)
        second = QHBoxLayout()
        second.addWidget(self.search, 1)
        second.addWidget(self.count_label)
        self.attempt = QComboBox()
        self.attempt.setObjectName("attempt")
        self.attempt.setToolTip("which of the task's attempts the compare view shows (format 2 experiments)")
        self.attempt.hide()
        self.attempt.activated.connect(self.attempt_selected)
        second.addWidget(self.attempt)
        lay.addLayout(second)
        lay.addStretch(1)
        outer.addLayout(edits)  # (a warning across the panel while tasks hold what-if edits)
        outer.addLayout(body, 1)
        body.addWidget(self.summary)
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
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)  # a line and a margin
        self.table.setAlternatingRowColors(True)
        h = self.table.horizontalHeader()
        # the columns fit the rows on screen (refitted as they scroll into view): measuring every
        # row on every change made each finished task cost O(rows) on the GUI thread
        h.setResizeContentsPrecision(0)
        for c, name in enumerate(COLUMNS):
            h.setSectionResizeMode(c, QHeaderView.Stretch if name == "Prompt" else QHeaderView.ResizeToContents)
        self.table.verticalScrollBar().valueChanged.connect(lambda _v: h.resizeSections())
        body.addWidget(self.table, 1)
        self.failures.toggled.connect(lambda on: self._filter(failures_only=on))
        self.domain.currentIndexChanged.connect(lambda _i: self._filter(domain=self.domain.currentData() or ""))
        self.search.textChanged.connect(lambda t: self._filter(text=t))
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        # re-sorted by the user: the current task's row is brought back into view (not on the
        # re-sorts of rows arriving, which would take the table from under a user scrolling it)
        h.sortIndicatorChanged.connect(lambda *_a: QTimer.singleShot(0, self, self.scroll_to_current))
        self._current_task: int | None = None
        self._quiet = False
        self._run_total: int | None = None  # a system run's tasks, while its rows arrive
        # fitting the columns to the rows on screen costs ~15 ms: once per REFIT_MS while rows arrive
        self._refit = QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.setInterval(REFIT_MS)
        self._refit.timeout.connect(h.resizeSections)

    def height_for_rows(self, rows: int = TABLE_ROWS) -> int:
        """The panel's height when its table shows ``rows`` rows of tasks (and the summary
        column beside it is whole)."""
        t = self.table
        table = t.horizontalHeader().sizeHint().height() + rows * t.verticalHeader().defaultSectionSize() + 2 * t.frameWidth()
        lay = self.layout()
        m = lay.contentsMargins()
        edits = 0
        if not self.edits_label.isHidden() or not self.revert_button.isHidden():
            edits = max(self.edits_label.sizeHint().height(), self.revert_button.sizeHint().height()) + lay.spacing()
        return max(table, self.summary.sizeHint().height()) + m.top() + m.bottom() + edits

    def _filter(self, **kw) -> None:
        """Filter the rows, and only that: the current task stays the current one (its row kept
        selected when shown, no row selected when filtered out); no task is opened."""
        quiet, self._quiet = self._quiet, True
        try:
            self.proxy.set_filter(**kw)
            sm = self.table.selectionModel()
            row = self.proxy.mapFromSource(self.model.index(self._current_task, 0)) \
                if self._current_task is not None else None
            if row is not None and row.isValid():
                sm.setCurrentIndex(row, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
            else:
                sm.clearSelection()
                sm.setCurrentIndex(QModelIndex(), QItemSelectionModel.NoUpdate)
        finally:
            self._quiet = quiet
        self._count()
        self.scroll_to_current()

    def scroll_to_current(self) -> None:
        """The current task's row into view (when the filter shows it)."""
        if self._current_task is None:
            return
        row = self.proxy.mapFromSource(self.model.index(self._current_task, 0))
        if row.isValid():
            self.table.scrollTo(row)

    # ----- a computation in progress ----------------------------------------------------------
    def begin(self, experiment) -> None:
        """A computation of ``experiment`` from scratch starts: rows will arrive one by one."""
        self._running_tasks = list(experiment.tasks)
        self._run_total = None
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

    # ----- a system run (File → Run System…) ---------------------------------------------------
    def set_run_bar(self, bar: QWidget) -> None:
        """Show a run's progress line and buttons under the g-index (once)."""
        lay = self.summary.layout()
        if lay.indexOf(bar) < 0:
            lay.insertWidget(2, bar)

    def prepare_run(self) -> None:
        """A system run (or its resume) is starting: nothing of what the table showed is left
        while the run reads its tasks (its rows come with ``begin_run``)."""
        self._restart_run([], "g-index … (preparing the run)", "reading the tasks, computing Ω of every task…")

    def begin_run(self, experiment) -> None:
        """A system run on ``experiment``'s tasks starts: rows arrive as tasks are answered."""
        self._restart_run(list(experiment.tasks), "g-index … (no task answered yet)",
                          f"{len(experiment.tasks)} tasks: each is scored (Δ, θ, Ω, TC) as its answers arrive")

    def _restart_run(self, tasks: list, headline: str, line: str) -> None:
        """An empty table for a run on ``tasks``, saying ``headline`` and ``line`` above it."""
        self._running_tasks = tasks
        self._run_total = len(tasks)
        self._current_task = None
        self.model.begin()
        self._set_domains(sorted({t.domain for t in tasks}))
        self.set_busy(False)
        self.g_label.setText(headline)
        self.components.setText(line)
        self.components.setToolTip("")
        self._count()

    def put_task(self, result, g_index: float, scored: int) -> None:
        """Task ``result`` scored; ``g_index``: the mean TC of the ``scored`` tasks so far."""
        self.model.put(result)
        total = len(getattr(self, "_running_tasks", [])) or scored
        done = scored == total
        self.g_label.setText(f"g-index {g_index:,.3f}" + ("" if done else " so far"))
        self.components.setText(f"= mean TC over the {scored} of {total} tasks answered" + ("" if done else " so far")
                                + "; each task is scored as its last attempt arrives")
        if not self._refit.isActive():  # the new rows' cells may be wider: refit the columns now and then
            self._refit.start()
        self._count()

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
        n = self._run_total if self._run_total is not None else self.model.rowCount()
        self.count_label.setText(f"{self.proxy.rowCount()} of {n} tasks")

    def set_result(self, result: GIndexResult, edited: set[int], previous: float | None = None,
                   companion: bool = False, unsaved: set[int] = frozenset()) -> None:
        self._quiet = True
        self._run_total = None
        try:
            self.model.set_result(result, edited, unsaved)
            self.show_edits(edited)
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
        self.components.setToolTip(f"{self.components.text()}\n\n{domains_tooltip(result)}")
        self._count()

    def show_edits(self, edited: set[int]) -> None:
        """Say which tasks are scored on what-if edits (none: the note is hidden), and offer the
        revert for the current task when it is one of them."""
        n = len(edited)
        ids = [self.model.rows[k].id for k in sorted(edited) if k < len(self.model.rows) and self.model.rows[k] is not None]
        self.edits_label.setText(
            f"✎ {n} task{'s' if n != 1 else ''} scored on what-if edits, not the model's output "
            f"({', '.join(ids[:4])}{', …' if len(ids) > 4 else ''}): this g-index is not the model's. "
            "Saving keeps the model's output and writes the edits beside it.")
        self.edits_label.setVisible(n > 0)
        self.revert_button.setVisible(self._current_task in edited)

    def select_task(self, index: int, emit: bool = True) -> None:
        src = self.model.index(index, 0)
        row = self.proxy.mapFromSource(src)
        self._current_task = index
        self.revert_button.setVisible(index in self.model.edited)
        if row.isValid():
            quiet, self._quiet = self._quiet, not emit or self._quiet
            try:
                self.table.selectionModel().setCurrentIndex(
                    row, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
                self.table.scrollTo(row)
            finally:
                self._quiet = quiet
            # and again once the table has laid out rows that just arrived (a scroll before
            # that is lost: a task opened from another window was left out of view)
            QTimer.singleShot(0, self, self.scroll_to_current)

    def neighbour(self, index: int | None, step: int) -> int | None:
        """The task ``step`` rows from task ``index`` in the table as sorted and filtered (the
        first or last row when ``index`` is not shown); None past either end."""
        n = self.proxy.rowCount()
        if n == 0:
            return None
        row = self.proxy.mapFromSource(self.model.index(index, 0)).row() if index is not None else -1
        if row < 0:
            row = -1 if step > 0 else n
        row += step
        if not 0 <= row < n:
            return None
        return self.proxy.mapToSource(self.proxy.index(row, 0)).row()

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
        self.revert_button.setVisible(index in self.model.edited)
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
        ci = interval_of(r)  # computed with the result, off the GUI thread
        spread = f" · 95% interval {ci.low:,.1f} … {ci.high:,.1f} (bootstrap over tasks)"
    return (f"= mean TC over {mode}{spread} · mean θ = {fmt(r.theta_mean)} · ρ = {r.rho:g} · {e_txt} · "
            f"{len(inc)} curriculum domains, {w_txt} · {r.profile} profile · {exact}")


def domains_tooltip(r: GIndexResult) -> str:
    lines = ["domain: samples, W, compute, E"]
    for d in r.domains:
        w = f"{d.w:.4f}" if d.w is not None else "left out"
        lines.append(f"{d.domain}: {d.samples}, {w}, {d.compute:g}, {d.e:.4f}")
    return "\n".join(lines)
