"""The curation window: the Δ heatmap on the left, the views on the right, progress below.

Work runs off the GUI thread (``jobs``): the report (duplicates, Ω, neighbours, coverage) is
recomputed after every split edit or duplicate-threshold change (an edit cancels a running one);
the first report waits, in its thread and for a few seconds at most, until the matrix is on
screen. The full matrix fills once, row band by row band; the matrix job then computes (or reads
from the cache) the clustering order and the 2-D map, which the window applies. Selecting
programs anywhere (heatmap cell, map, any table) selects them in every view. Closing the window
stops its jobs.
"""
from __future__ import annotations

import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication, QFileDialog, QHBoxLayout, QInputDialog, QLabel, QMainWindow, QMessageBox, QProgressBar,
    QPushButton, QSizePolicy, QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget,
)

from gindex_studio.core.curation.cache import DeltaCache
from gindex_studio.core.curation.report import engine_for
from gindex_studio.core.curation.workspace import CurationError, Workspace, load_workspace, save_split
from gindex_studio.core.benchmark.experiment import Compute
from gindex_studio.core.flows.flow import write_flow_file

from gindex_studio.ui.actions import ActionRegistry
from gindex_studio.ui.features import Features
from gindex_studio.ui.application import studio_application
from gindex_studio.ui.window_geometry import place, remember
from gindex_studio.ui.curation.heatmap import HeatmapView
from gindex_studio.ui.curation.jobs import MatrixJob, ReportJob, SummaryJob, ThreadReportJob
from gindex_studio.ui.curation.model import CurationModel
from gindex_studio.ui.curation.summary import DomainSummaryView
from gindex_studio.ui.curation.views import CoverageView, DuplicatesView, LeaksView, MapView, SplitView

#: above this many programs the heatmap is a domain × domain summary with drill-down into a block
FULL_MATRIX_LIMIT = 1000
#: programs per domain whose pairs the summary samples
SUMMARY_SAMPLE = 10


class CurationDialogs:
    """Questions the window asks (tests replace it with scripted answers)."""

    def __init__(self, parent):
        # weak: the window owns its dialogs, and a cycle would leave the window's wrappers to
        # the garbage collector, which may run in a worker thread
        self._parent = None if parent is None else weakref.ref(parent)

    @property
    def parent(self):
        return None if self._parent is None else self._parent()

    def error(self, title: str, text: str) -> None:
        QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self.parent).open()

    def save_file(self, suggestion: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Save the split as an experiment", suggestion,
                                              "Experiments (*.json)")
        return path or None

    def ask_save(self, name: str) -> str:
        """'save', 'discard' or 'cancel' (the studio's question)."""
        from gindex_studio.ui.dialogs import Dialogs

        return Dialogs(self.parent).ask_save(name)

    def ask_compute(self) -> float | None:
        value, ok = QInputDialog.getDouble(self.parent, "Training compute",
                                           "Compute used for training (petaFLOP·s, > 1):", 74.75, 1.0001, 1e12, 4)
        return value if ok else None

    def ask_domain(self, current: str, names: list[str]) -> str | None:
        value, ok = QInputDialog.getItem(self.parent, "Domain", "Domain of the selected programs:", names,
                                         names.index(current) if current in names else 0, True)
        return value if ok and value.strip() else None


#: seconds one pair's search may take in the heatmap and the summary (each window's ``deadline``):
#: a guard against hostile programs, not a shortcut: every pair of the generated 1,000-program
#: bench set finishes well inside it (the slowest about 1 s of CPU), so that matrix is exact
PAIR_DEADLINE = 5.0


class CurationWindow(QMainWindow):
    def __init__(self, ws: Workspace, cache: DeltaCache | None = None, library=None,
                 deadline: float | None = PAIR_DEADLINE,
                 parent=None, full_matrix_limit: int = FULL_MATRIX_LIMIT, summary_sample: int = SUMMARY_SAMPLE,
                 client=None, settings=None, compare_features=lambda: []):
        """``compare_features()``: more features for each compare window it opens (File → Curate…,
        given by the studio: this package's feature module opens this window)."""
        super().__init__(parent)
        self.compare_features = compare_features
        self.setWindowTitle(f"{ws.base.name} — Curate — gindex-studio")
        self.settings = settings  # where its geometry is remembered (None: nowhere)
        place(self, settings, "curation", (1400, 860))
        self.model = CurationModel(ws, self)
        self.cache = cache
        self.library = library
        self.deadline = deadline
        self.dialogs = CurationDialogs(self)
        self.compare_windows: list = []
        self.matrix_seconds: float | None = None
        self._report_job: ReportJob | None = None
        self._report_again = False
        self._closing = False
        self._matrix_shown = threading.Event()  # the first report waits for it (at most a few seconds)
        self._matrix_job: MatrixJob | SummaryJob | None = None
        self.client = client  # a Dask client: the report's searches run on its cluster
        self._report_engine = engine_for(ws, cache, client=client)
        self._matrix_engine = None  # made on first use, kept for every matrix, summary and block
        self.full_matrix_limit = full_matrix_limit
        self.summary_sample = summary_sample
        self.block: tuple[str, str] | None = None  # the domains of the open block (summary mode)
        self._tmp = tempfile.TemporaryDirectory(prefix="gindex-curate-")

        self.heatmap = HeatmapView(self.model.matrix)
        self.duplicates = DuplicatesView(self.model)
        self.leaks = LeaksView(self.model)
        self.coverage = CoverageView(self.model)
        self.map = MapView(self.model)
        self.split = SplitView(self.model)
        self.tabs = QTabWidget()
        for w, name in ((self.duplicates, "Near-duplicates"), (self.leaks, "Leaks"), (self.coverage, "Coverage"),
                        (self.map, "Map"), (self.split, "Split")):
            self.tabs.addTab(w, name)
        self.summary_mode = len(ws.items) > full_matrix_limit
        self.summary: DomainSummaryView | None = None
        left = self.heatmap
        if self.summary_mode:
            left = self._summary_pages()
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.tabs)
        splitter.setSizes([760, 640])
        self.setCentralWidget(splitter)

        self.progress = QProgressBar()
        self.progress.setMinimumWidth(300)
        self.progress.setFormat("matrix %v / %m rows")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_matrix)
        self.status = QLabel()
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # a long line never widens the window
        self.statusBar().addWidget(self.status, 1)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)

        for v in (self.duplicates, self.leaks, self.coverage):
            v.pairRequested.connect(self.open_pair)
        self.heatmap.pairClicked.connect(lambda i, j: self.model.select([i, j]))  # selected everywhere
        self.heatmap.pairClicked.connect(self.open_pair)
        self.split.saveRequested.connect(self.save_dialog)
        self.split.domainRequested.connect(self.domain_dialog)
        self.model.splitChanged.connect(self.request_report)
        self.model.thresholdsChanged.connect(self._on_thresholds)
        self.model.selectionChanged.connect(lambda: self.heatmap.mark(self.model.selection))
        self._build_actions()

        items = ws.items
        self.order = sorted(range(len(items)), key=lambda i: (items[i].domain, items[i].label))
        if self.summary_mode:
            self.map.note.setText(f"The map needs the full Δ matrix: it is drawn up to {full_matrix_limit} programs.")
            self.start_summary()
        else:
            self.model.matrix.set_programs([it.label for it in items], [it.domain for it in items], self.order)
            self.start_matrix()
        if self.summary_mode:
            self._matrix_shown.set()
        self.request_report()  # its job starts now and waits (in its thread) for the matrix on screen

    def _summary_pages(self) -> QStackedWidget:
        """The summary and, behind it, the block page (a back button over the heatmap)."""
        self.summary = DomainSummaryView()
        self.summary.pairClicked.connect(self.open_block)
        self.back_button = QPushButton("← All domains")
        self.back_button.clicked.connect(self.show_summary)
        self.block_label = QLabel()
        page = QWidget()
        bar = QHBoxLayout()
        bar.addWidget(self.back_button)
        bar.addWidget(self.block_label, 1)
        lay = QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.heatmap, 1)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.summary)
        self.pages.addWidget(page)
        return self.pages

    def _build_actions(self) -> None:
        """File (save the split, close, quit), Edit (undo, redo: the studio's specs and keys)."""
        A = self.registry = ActionRegistry(self, ["curation.save", "curation.close", "edit.undo", "edit.redo"])
        A.connect("curation.save", self.save_dialog)
        A.connect("curation.close", self.close)
        undo = self.model.undo
        A.connect("edit.undo", undo.undo)
        A.connect("edit.redo", undo.redo)
        for aid, can, changed in (("edit.undo", undo.canUndo, undo.canUndoChanged),
                                  ("edit.redo", undo.canRedo, undo.canRedoChanged)):
            A[aid].setEnabled(can())
            changed.connect(A[aid].setEnabled)
        undo.undoTextChanged.connect(lambda t: A["edit.undo"].setText(f"&Undo {t}".strip()))
        undo.redoTextChanged.connect(lambda t: A["edit.redo"].setText(f"&Redo {t}".strip()))
        bar = self.menuBar()
        A.place(bar.addMenu("&File"), ["curation.save", None, "curation.close"])
        A.place(bar.addMenu("&Edit"), ["edit.undo", "edit.redo"])
        from gindex_studio.ui.workspace import WorkspaceFeature

        self.features = Features(self, A, {})
        self.features.add(WorkspaceFeature())  # File → Quit, the Window menu

    # ----- report --------------------------------------------------------------------------------

    def request_report(self) -> None:
        """Recompute the report; a running one is cancelled and restarted when it stops."""
        if self._closing:
            return
        if self._report_job is not None and self._report_job.isRunning():
            self._report_again = True
            self._report_job.cancel()
            return
        m = self.model
        self._report_again = False
        kind = ReportJob if self.client is None else ThreadReportJob  # a cluster's searches run there already
        job = kind(m.ws, self._report_engine, (m.duplicate_threshold, m.leak_threshold, m.outlier_threshold), self,
                   hold=self._matrix_shown)
        self._on_report_progress(0, 0)
        job.progress.connect(self._on_report_progress)
        job.finished_report.connect(self._on_report)
        job.failed.connect(lambda msg: self.dialogs.error("Curation failed", msg))
        job.finished.connect(self._on_report_job_end)
        self._report_job = job
        job.start()

    def _on_report_progress(self, done: int, total: int) -> None:
        where = " on the Dask cluster" if self.client is not None else ""
        self.status.setText(f"searching near-duplicates, Ω and neighbours{where}…"
                            + (f" {done} / {total}" if total else ""))

    def _on_report(self, report) -> None:
        if self._report_again:
            return
        self.model.set_report(report)
        self._show_counts()

    def _show_counts(self) -> None:
        """The status line's counts, for the report and the thresholds as the sliders set them."""
        report = self.model.report
        if report is None:
            return
        self.status.setText(f"{len(self.model.ws)} programs · {len(report.duplicates.groups)} near-duplicate groups · "
                            f"{len(self.model.leaks())} leaks · {len(report.mislabels)} likely mislabelled · "
                            f"{report.searched} pairs searched (the others ruled out by bounds or already known)")
        self.status.setToolTip(self.status.text())

    def _on_report_job_end(self) -> None:
        if self._report_again and not self._closing:
            self._report_job = None
            self.request_report()

    def _on_thresholds(self) -> None:
        self._show_counts()  # the leak count follows the leak slider at once
        rep = self.model.report
        if rep is not None and rep.duplicates.threshold != self.model.duplicate_threshold:
            self.request_report()

    def _release_report(self) -> None:
        """The matrix is on screen (or will not be): a held report may start."""
        self._matrix_shown.set()

    def wait_for_report(self, timeout_ms: int = 120_000) -> None:
        """Process events until no report job runs or is due to restart, and its result is
        shown (tests and scripts). Raises TimeoutError after ``timeout_ms``."""
        end = time.monotonic() + timeout_ms / 1000
        while self._report_job is not None and (self._report_job.isRunning() or self._report_again):
            if time.monotonic() > end:
                raise TimeoutError(f"the curation report did not finish within {timeout_ms / 1000:.0f} s")
            self._report_job.wait(20)
            QApplication.processEvents()
        QApplication.processEvents()  # the finished job's queued signals

    # ----- matrix --------------------------------------------------------------------------------

    def _engine(self):
        if self._matrix_engine is None:
            self._matrix_engine = engine_for(self.model.ws, self.cache, digests=self._report_engine.digests)
        return self._matrix_engine

    def _run(self, job, what: str, total: int, **slots) -> None:
        """Start ``job`` (a matrix, block or summary job; ``slots``: signal name → slot) after
        stopping the one running: signals of a stopped job are ignored, so a late band never
        lands in the wrong matrix."""
        self._stop_matrix_job()

        def live(f):
            return lambda *a: f(*a) if job is self._matrix_job else None

        slots = {"progress": self._on_progress, "failed": lambda msg: self.dialogs.error("Δ matrix failed", msg), **slots}
        for name, slot in slots.items():
            getattr(job, name).connect(live(slot))
        self.progress.setFormat(f"{what} %v / %m")
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        self.cancel_button.setEnabled(True)
        self._matrix_job = job
        job.start()

    def _stop_matrix_job(self) -> None:
        job, self._matrix_job = self._matrix_job, None
        if job is not None and job.isRunning():
            job.cancel()
            if not job.wait(10_000):  # still searching: it keeps its engine, the next job gets a new one
                _keep_until_finished(job)
                self._matrix_engine = None

    def start_matrix(self, rows: list[int] | None = None, cols: list[int] | None = None) -> None:
        """The full matrix in display order, or the block ``rows`` × ``cols`` (summary mode)."""
        arrange = self.model.ws.domains if cols is None and not self.summary_mode else None
        job = MatrixJob(self._engine(), rows or self.order, self.deadline, parent=self, cols=cols, arrange=arrange)
        job.finished.connect(self._release_report)  # done, cancelled or failed
        self._run(job, "matrix rows" if cols is None else "block rows", len(rows or self.order),
                  coarse=self.model.matrix.set_coarse, band=self.model.matrix.set_rows, arranged=self._on_arranged,
                  done=self._on_matrix_done)

    def start_summary(self) -> None:
        ws = self.model.ws
        names = ws.domain_names()
        blocks = [sorted((i for i in range(len(ws)) if ws.items[i].domain == d), key=lambda i: ws.items[i].label)
                  for d in names]
        self.summary.set_domains(names, [len(b) for b in blocks])
        self.summary.program_labels = [it.label for it in ws.items]
        self.summary_blocks = dict(zip(names, blocks))
        job = SummaryJob(self._engine(), blocks, self.summary_sample, self.deadline, parent=self)
        self._run(job, "summary: sampled, then exact least Δ, rows", 2 * len(names), row=self.summary.set_summary_row,
                  done=self._on_summary_done)
        self.status.setText(f"{len(ws)} programs: above {self.full_matrix_limit} the heatmap summarises domain "
                            f"pairs (colour: mean Δ of a sample of {self.summary_sample} programs per domain; least Δ "
                            f"exact over every pair); click a block to open it")

    def _on_summary_done(self, seconds: float) -> None:
        self.summary_seconds = seconds
        self.cancel_button.setEnabled(False)
        self.progress.setFormat(f"summary done in {seconds:.1f} s")

    def open_block(self, a: int, b: int) -> None:
        """Drill down: the matrix of domain ``a``'s programs (rows) × domain ``b``'s (columns)."""
        names = self.summary.names
        rows, cols = self.summary_blocks[names[a]], self.summary_blocks[names[b]]
        self.block = (names[a], names[b])
        items = self.model.ws.items
        self.matrix_seconds = None
        self.model.matrix.set_programs([it.label for it in items], [it.domain for it in items], rows, cols)
        self.block_label.setText(f"{names[a]} ({len(rows)}) × {names[b]} ({len(cols)})")
        self.pages.setCurrentIndex(1)
        self.start_matrix(rows, cols)

    def show_summary(self) -> None:
        """Back from a block to the summary (a running block matrix stops)."""
        if self.block is not None:
            self._stop_matrix_job()
            self.cancel_button.setEnabled(False)
        self.block = None
        self.pages.setCurrentIndex(0)

    def cancel_matrix(self) -> None:
        if self._matrix_job is not None:
            self._matrix_job.cancel()
            self.cancel_button.setEnabled(False)
            if isinstance(self._matrix_job, MatrixJob):  # the count says the rows on screen (a band
                # read just before the cancel may have come without its progress event)
                self.progress.setValue(self.model.matrix.complete_rows())
            self.progress.setFormat(self.progress.format().replace("%v", "cancelled at %v"))

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setValue(done)
        if done < total:  # rows still to compute: the report need not wait for them
            self._release_report()

    def _on_matrix_done(self, seconds: float) -> None:
        self.matrix_seconds = seconds
        if self.heatmap.isVisible():
            self.heatmap.plot.viewport().repaint()  # on screen before the held report starts
        self._release_report()
        self.cancel_button.setEnabled(False)
        if not self.model.matrix.square or self.summary_mode:
            self.progress.setFormat(f"block done in {seconds:.1f} s")
            return
        inexact = self.model.matrix.cells_cut()
        self.progress.setFormat(f"matrix done in {seconds:.1f} s" + (f", {inexact} cells cut" if inexact else ""))

    def _on_arranged(self, order: list[int], points: np.ndarray) -> None:
        """The complete matrix's clustering order and map (computed by the matrix job)."""
        self.order = list(order)
        self.model.matrix.reorder(self.order)
        self.map.set_points(points)

    def wait_for_matrix(self, timeout_ms: int = 120_000) -> None:
        """Block until the matrix (or summary) job has stopped, then deliver its signals.
        Raises TimeoutError after ``timeout_ms``."""
        job = self._matrix_job
        if job is not None:
            if not job.wait(timeout_ms):
                raise TimeoutError(f"the Δ matrix did not finish within {timeout_ms / 1000:.0f} s")
            QApplication.processEvents()

    # ----- actions -------------------------------------------------------------------------------

    def program_path(self, i: int) -> str:
        """A file holding program i (inline programs are written to a temporary file)."""
        it = self.model.ws.items[i]
        if it.path is not None:
            return str(it.path)
        path = Path(self._tmp.name) / f"program-{i}.json"
        if not path.exists():
            write_flow_file(it.flow, path)
        return str(path)

    def open_pair(self, i: int, j: int):
        """Open programs i (as the reference side) and j in a compare window, each side named
        by its program's role (curriculum, test, excluded)."""
        from gindex_studio.ui.compare.window import open_compare

        win = open_compare(None, self.program_path(i), self.program_path(j), library=self.library,
                           features=self.compare_features())
        items = self.model.ws.items
        win.label_sides(items[i].role.capitalize(), items[j].role.capitalize())  # neither is "generated"
        self.compare_windows.append(win)
        return win

    def domain_dialog(self) -> None:
        sel = self.split.selected()
        if not sel:
            return
        name = self.dialogs.ask_domain(self.model.ws.items[sel[0]].domain, self.model.ws.domain_names())
        if name:
            self.model.set_domain(sel, name)

    def save_dialog(self) -> Path | None:
        ws = self.model.ws
        suggestion = str(ws.base / "experiment-curated.json")
        path = self.dialogs.save_file(suggestion)
        if not path:
            return None
        compute = None
        if ws.experiment is None:
            value = self.dialogs.ask_compute()
            if value is None:
                return None
            compute = Compute(total=value)
        try:
            out = save_split(ws, path, compute)
        except CurationError as e:
            self.dialogs.error("Cannot save the split", str(e))
            return None
        self.status.setText(f"saved {out}")
        self.model.undo.setClean()  # closing asks again only after another edit
        return out

    def confirm_close(self) -> bool:
        """May the window close? An edited split (roles, domains) not saved since: save it (as an
        experiment), discard it, or cancel (False: nothing closes)."""
        if self.model.undo.isClean():
            return True
        answer = self.dialogs.ask_save(f"the split of {self.model.ws.base.name}")
        return answer == "discard" or (answer == "save" and self.save_dialog() is not None)

    def closeEvent(self, e):
        """Stop every background job before the window goes (none is restarted after this)."""
        from gindex_studio.ui.workspace import quitting

        if not quitting() and not self.confirm_close():  # Quit has asked already
            e.ignore()
            return
        self._closing = True
        remember(self, self.settings, "curation")
        self._matrix_shown.set()
        jobs = [j for j in (self._report_job, self._matrix_job) if j is not None]
        for job in jobs:
            job.cancel()
        for job in jobs:
            if not job.wait(10_000):
                _keep_until_finished(job)
        self._matrix_job = None
        self._tmp.cleanup()
        super().closeEvent(e)


#: jobs that had not stopped within a cancel's wait (kept until they finish, never destroyed running)
_STILL_RUNNING: list = []


def _keep_until_finished(job) -> None:
    job.setParent(None)
    _STILL_RUNNING.append(job)
    job.finished.connect(lambda j=job: _release_finished(j))


def _release_finished(job) -> None:
    """Drop a kept job once its thread has really ended: ``finished`` is emitted from the thread
    just before it exits, and destroying a QThread before that crashes the process."""
    job.wait()
    if job in _STILL_RUNNING:
        _STILL_RUNNING.remove(job)


# ----- entry points -----------------------------------------------------------------------------

WINDOWS: list[CurationWindow] = []


def open_curation(path: str, tasks=(), library=None, cache: DeltaCache | None = None,
                  parent=None, client=None, compare_features=lambda: []) -> CurationWindow | None:
    """A curation window on ``path`` (+ ``tasks``); None, with an error box, when it cannot be read.
    ``client``: a Dask client whose cluster runs the report's searches (default: local)."""
    try:
        ws = load_workspace(path, tasks)
    except CurationError as e:
        CurationDialogs(parent).error("Cannot curate", str(e))
        return None
    from gindex_studio.ui.preferences import studio_settings

    if cache is None:
        cache = DeltaCache.default()  # never raises: a damaged cache is set aside, a locked one skipped
    win = CurationWindow(ws, cache, library, client=client, settings=studio_settings(),
                         compare_features=compare_features)
    WINDOWS.append(win)
    win.setAttribute(Qt.WA_DeleteOnClose, True)
    win.destroyed.connect(lambda *_: WINDOWS.remove(win) if win in WINDOWS else None)
    win.show()
    if cache.notices:  # what happened to the cache, once, over the window that opened anyway
        win.dialogs.error("The curation cache", "\n\n".join(n[0].upper() + n[1:] + "." for n in cache.notices))
    return win


def main_curate(path: str, tasks=(), client=None, compare_features=lambda: []) -> int:
    """``gindex-studio curate PATH --window``: the curation window until it is closed (with
    ``--scheduler``/``--dask-workers``, the report's searches on that cluster; ``compare_features``
    as for :func:`open_curation`)."""
    try:
        load_workspace(path, tasks)  # fail before any window opens
    except CurationError as e:
        print(f"gindex-studio: {e}", file=sys.stderr)
        return 1
    app = studio_application()
    win = open_curation(path, tasks, client=client, compare_features=compare_features)
    if win is None:
        return 1
    win.setAttribute(Qt.WA_DeleteOnClose, False)
    return app.exec()
