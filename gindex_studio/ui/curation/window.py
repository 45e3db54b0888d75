"""The curation window: the Δ heatmap on the left, the views on the right, progress below.

Work runs off the GUI thread (``jobs``): the report (duplicates, Ω, neighbours, coverage) is
recomputed after every split edit or duplicate-threshold change (an edit cancels a running one);
the full matrix fills once, row band by row band, then the display order becomes the clustering
order and the 2-D map is drawn.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication, QFileDialog, QInputDialog, QLabel, QMainWindow, QMessageBox, QProgressBar, QPushButton,
    QSplitter, QTabWidget,
)

from gindex_studio.core.curation.analysis import cluster_order
from gindex_studio.core.curation.cache import DeltaCache
from gindex_studio.core.curation.report import engine_for
from gindex_studio.core.curation.workspace import CurationError, Workspace, load_workspace, save_split
from gindex_studio.core.experiment import Compute
from gindex_studio.core.flow import write_flow_file

from .heatmap import HeatmapView
from .jobs import MatrixJob, ReportJob
from .model import CurationModel
from .views import CoverageView, DuplicatesView, LeaksView, MapView, SplitView

#: above this many programs the full matrix is not computed (the views still work)
FULL_MATRIX_LIMIT = 1000


class CurationDialogs:
    """Questions the window asks (tests replace it with scripted answers)."""

    def __init__(self, parent):
        self.parent = parent

    def error(self, title: str, text: str) -> None:
        QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self.parent).open()

    def save_file(self, suggestion: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Save the split as an experiment", suggestion,
                                              "Experiments (*.json)")
        return path or None

    def ask_compute(self) -> float | None:
        value, ok = QInputDialog.getDouble(self.parent, "Training compute",
                                           "Compute used for training (petaFLOP·s, > 1):", 74.75, 1.0001, 1e12, 4)
        return value if ok else None

    def ask_domain(self, current: str, names: list[str]) -> str | None:
        value, ok = QInputDialog.getItem(self.parent, "Domain", "Domain of the selected programs:", names,
                                         names.index(current) if current in names else 0, True)
        return value if ok and value.strip() else None


class CurationWindow(QMainWindow):
    def __init__(self, ws: Workspace, cache: DeltaCache | None = None, library=None, deadline: float | None = 0.05,
                 parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"{ws.base.name} — Curate — gindex-studio")
        self.resize(1400, 860)
        self.model = CurationModel(ws, self)
        self.cache = cache
        self.library = library
        self.deadline = deadline
        self.dialogs = CurationDialogs(self)
        self.compare_windows: list = []
        self.matrix_seconds: float | None = None
        self._report_job: ReportJob | None = None
        self._report_again = False
        self._matrix_job: MatrixJob | None = None
        self._report_engine = engine_for(ws, cache)
        self._tmp = tempfile.TemporaryDirectory(prefix="gindex-curate-")

        self.heatmap = HeatmapView()
        self.duplicates = DuplicatesView(self.model)
        self.leaks = LeaksView(self.model)
        self.coverage = CoverageView(self.model)
        self.map = MapView(self.model)
        self.split = SplitView(self.model)
        self.tabs = QTabWidget()
        for w, name in ((self.duplicates, "Near-duplicates"), (self.leaks, "Leaks"), (self.coverage, "Coverage"),
                        (self.map, "Map"), (self.split, "Split")):
            self.tabs.addTab(w, name)
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(self.heatmap)
        splitter.addWidget(self.tabs)
        splitter.setSizes([760, 640])
        self.setCentralWidget(splitter)

        self.progress = QProgressBar()
        self.progress.setMinimumWidth(300)
        self.progress.setFormat("matrix %v / %m rows")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_matrix)
        self.status = QLabel()
        self.statusBar().addWidget(self.status, 1)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel_button)

        for v in (self.duplicates, self.leaks, self.coverage):
            v.pairRequested.connect(self.open_pair)
        self.heatmap.pairClicked.connect(self.open_pair)
        self.split.saveRequested.connect(self.save_dialog)
        self.split.domainRequested.connect(self.domain_dialog)
        self.model.splitChanged.connect(self.request_report)
        self.model.thresholdsChanged.connect(self._on_thresholds)
        self.model.selectionChanged.connect(lambda: self.heatmap.mark(self.model.selection))
        self._build_actions()

        items = ws.items
        self.order = sorted(range(len(items)), key=lambda i: (items[i].domain, items[i].label))
        self.heatmap.set_programs([it.label for it in items], [it.domain for it in items], self.order)
        self.request_report()
        if len(items) <= FULL_MATRIX_LIMIT:
            self.start_matrix()
        else:
            self.progress.hide()
            self.cancel_button.hide()
            self.status.setText(f"{len(items)} programs: above {FULL_MATRIX_LIMIT} the full matrix is not computed")

    def _build_actions(self) -> None:
        menu = self.menuBar().addMenu("&Edit")
        undo = self.model.undo.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.Undo)
        redo = self.model.undo.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        menu.addAction(undo)
        menu.addAction(redo)
        filemenu = self.menuBar().addMenu("&File")
        save = QAction("&Save Split as Experiment…", self)
        save.setShortcut(QKeySequence.Save)
        save.triggered.connect(lambda _c=False: self.save_dialog())
        filemenu.addAction(save)
        self.menuBar().insertMenu(menu.menuAction(), filemenu)
        self.undo_action, self.redo_action, self.save_action = undo, redo, save

    # ----- report --------------------------------------------------------------------------------

    def request_report(self) -> None:
        """Recompute the report; a running one is cancelled and restarted when it stops."""
        if self._report_job is not None and self._report_job.isRunning():
            self._report_again = True
            self._report_job.cancel()
            return
        m = self.model
        self._report_again = False
        self.status.setText("searching near-duplicates, Ω and neighbours…")
        job = ReportJob(m.ws, self._report_engine, (m.duplicate_threshold, m.leak_threshold, m.outlier_threshold), self)
        job.finished_report.connect(self._on_report)
        job.failed.connect(lambda msg: self.dialogs.error("Curation failed", msg))
        job.finished.connect(self._on_report_job_end)
        self._report_job = job
        job.start()

    def _on_report(self, report) -> None:
        if self._report_again:
            return
        self.model.set_report(report)
        self.status.setText(f"{len(self.model.ws)} programs · {len(report.duplicates.groups)} near-duplicate groups · "
                            f"{len(self.model.leaks())} leaks · {len(report.mislabels)} likely mislabelled · "
                            f"{report.searched} pairs searched")

    def _on_report_job_end(self) -> None:
        if self._report_again:
            self._report_job = None
            self.request_report()

    def _on_thresholds(self) -> None:
        rep = self.model.report
        if rep is not None and rep.duplicates.threshold != self.model.duplicate_threshold:
            self.request_report()

    def wait_for_report(self, timeout_ms: int = 60_000) -> None:
        """Block until no report job runs (tests and scripts)."""
        while self._report_job is not None and (self._report_job.isRunning() or self._report_again):
            self._report_job.wait(timeout_ms)
            QApplication.processEvents()

    # ----- matrix --------------------------------------------------------------------------------

    def start_matrix(self) -> None:
        engine = engine_for(self.model.ws, self.cache)
        job = MatrixJob(engine, self.order, self.deadline, parent=self)
        job.coarse.connect(self.heatmap.set_coarse)
        job.band.connect(self.heatmap.set_rows)
        job.progress.connect(self._on_progress)
        job.done.connect(self._on_matrix_done)
        job.failed.connect(lambda msg: self.dialogs.error("Δ matrix failed", msg))
        self.progress.setRange(0, len(self.order))
        self.progress.setValue(0)
        self.cancel_button.setEnabled(True)
        self._matrix_job = job
        job.start()

    def cancel_matrix(self) -> None:
        if self._matrix_job is not None:
            self._matrix_job.cancel()
            self.cancel_button.setEnabled(False)
            self.progress.setFormat("matrix cancelled at %v / %m rows")

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setValue(done)

    def _on_matrix_done(self, seconds: float) -> None:
        self.matrix_seconds = seconds
        self.cancel_button.setEnabled(False)
        m = self.heatmap.matrix()
        self.order = cluster_order(np.nan_to_num(m, nan=1.0), self.model.ws.domains)
        self.heatmap.reorder(self.order)
        self.map.set_matrix(m)
        inexact = int((~self.heatmap.exact).sum())
        self.progress.setFormat(f"matrix done in {seconds:.1f} s" + (f", {inexact} cells cut" if inexact else ""))

    def wait_for_matrix(self, timeout_ms: int = 120_000) -> None:
        if self._matrix_job is not None:
            self._matrix_job.wait(timeout_ms)
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
        """Open programs i (reference) and j (generated) in a compare window."""
        from gindex_studio.ui.compare.window import open_compare

        win = open_compare(None, self.program_path(i), self.program_path(j), library=self.library)
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
        return out

    def closeEvent(self, e):
        for job in (self._report_job, self._matrix_job):
            if job is not None and job.isRunning():
                job.cancel()
                job.wait(5000)
        self._tmp.cleanup()
        super().closeEvent(e)


# ----- entry points -----------------------------------------------------------------------------

WINDOWS: list[CurationWindow] = []


def open_curation(path: str, tasks=(), library=None, cache: DeltaCache | None = None,
                  parent=None) -> CurationWindow | None:
    """A curation window on ``path`` (+ ``tasks``); None, with an error box, when it cannot be read."""
    try:
        ws = load_workspace(path, tasks)
    except CurationError as e:
        CurationDialogs(parent).error("Cannot curate", str(e))
        return None
    win = CurationWindow(ws, cache if cache is not None else DeltaCache.default(), library)
    WINDOWS.append(win)
    win.setAttribute(Qt.WA_DeleteOnClose, True)
    win.destroyed.connect(lambda *_: WINDOWS.remove(win) if win in WINDOWS else None)
    win.show()
    return win


def install_actions(main_window) -> None:
    """Add File → Curate… to the studio's main window."""
    action = QAction("C&urate…", main_window)
    action.setObjectName("file.curate")
    action.setToolTip("Curate a curriculum: Δ heatmap, near-duplicates, leaks, coverage, the split")

    def ask() -> None:
        box = QMessageBox(QMessageBox.Question, "Curate", "Curate a folder of programs (one sub-folder per domain) "
                          "or an experiment file?", QMessageBox.Cancel, main_window)
        folder = box.addButton("Folder…", QMessageBox.AcceptRole)
        exp = box.addButton("Experiment…", QMessageBox.AcceptRole)
        box.exec()
        if box.clickedButton() is folder:
            path = QFileDialog.getExistingDirectory(main_window, "Folder of programs")
        elif box.clickedButton() is exp:
            path, _ = QFileDialog.getOpenFileName(main_window, "Experiment", "", "Experiments (*.json)")
        else:
            return
        if path:
            open_curation(path, library=getattr(main_window, "library", None), parent=main_window)

    action.triggered.connect(lambda _c=False: ask())
    main_window.addAction(action)
    file_menu = next((a.menu() for a in main_window.menuBar().actions()
                      if a.menu() is not None and a.text().replace("&", "") == "File"), None)
    if file_menu is not None:
        file_menu.addAction(action)
    main_window.curate_action = action


def main_curate(path: str, tasks=()) -> int:
    """``gindex-studio curate PATH --window``: the curation window until it is closed."""
    try:
        load_workspace(path, tasks)  # fail before any window opens
    except CurationError as e:
        print(f"gindex-studio: {e}", file=sys.stderr)
        return 1
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("gindex-studio")
    win = open_curation(path, tasks)
    if win is None:
        return 1
    win.setAttribute(Qt.WA_DeleteOnClose, False)
    return app.exec()
