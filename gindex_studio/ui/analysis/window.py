"""The Analysis window: systems of a study compared in the paper's figures, a Table 1 like
comparison with bootstrap intervals, and paired comparisons in plain sentences.

Open it on study or experiment files (``open_paths``; scoring runs off the GUI thread) or on
systems already scored (``set_systems``). Clicking a task's point opens it in the compare view.

Every number (intervals, bootstrap, tests, curves: ``analysis.analyse``) is computed in a worker
process (``experiment_jobs.analyse_job``); a newer request (other systems, another k) or closing the
window kills the running one. The GUI thread only draws: the table and sentences in one turn of the
event loop, then the figures a piece per turn (``plots.figure_steps``). ``busy`` is True until
all of it is on screen; ``analysed`` is emitted then, ``failed`` (and a message) on a failure.
"""
from __future__ import annotations

import html
import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.core.benchmark.analysis import (
    Analysis,
    System,
    score_systems,
    table_header,
    table_marks,
    table_rows,
)
from gindex_studio.core.jobs import experiment as experiment_jobs
from gindex_studio.core.benchmark.experiment import ExperimentError
from gindex_studio.core.benchmark.study import Study, StudyEntry, open_inputs, save_study

from gindex_studio.ui.actions import ActionRegistry
from gindex_studio.ui.features import Features
from gindex_studio.ui.latest_runner import LatestRunner
from gindex_studio.ui.analysis.plots import Figure, export_png, export_svg, figure_steps
from gindex_studio.ui.process_runner import ProcessRunner
from gindex_studio.ui.theme import role_colors

STUDY_FILTER = "Studies and experiments (*.json);;All files (*)"
#: tabs of the window: title → figure ids, laid out two per row
TABS = {
    "θ and program size": ("theta_size", "skill_size"),
    "Samples and compute": ("theta_samples", "theta_compute"),
    "Responsiveness": ("resp_samples", "resp_compute", "resp_theta"),
    "Per task": ("theta_omega", "tc_share", "theta_spread"),
}
#: the folder the last export went to (this session); exports start there, else in Documents
_EXPORT_FOLDER: list[str] = [""]


def export_folder() -> str:
    """Where an export dialog opens: the last export's folder, else Documents, else home."""
    from PySide6.QtCore import QStandardPaths

    if _EXPORT_FOLDER[0] and os.path.isdir(_EXPORT_FOLDER[0]):
        return _EXPORT_FOLDER[0]
    docs = QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation)
    return docs if docs and os.path.isdir(docs) else os.path.expanduser("~")


#: the folder experiments were last added from (this session); the Add dialog starts there
_OPEN_FOLDER: list[str] = [""]


def open_folder(settings=None) -> str:
    """Where the Add Experiments dialog opens: the folder experiments were last added from (this
    session, else as remembered in ``settings``), else Documents, else home; never the process's
    working folder."""
    from PySide6.QtCore import QStandardPaths

    remembered = settings.value("analysis/open_folder", "") if settings is not None else ""
    for folder in (_OPEN_FOLDER[0], remembered):
        if folder and os.path.isdir(str(folder)):
            return str(folder)
    docs = QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation)
    return docs if docs and os.path.isdir(docs) else os.path.expanduser("~")


def remember_open_folder(paths, settings=None) -> None:
    """The folder of the last of ``paths`` becomes where the next Add dialog opens."""
    if paths:
        folder = os.path.dirname(os.path.abspath(str(paths[-1])))
        _OPEN_FOLDER[0] = folder
        if settings is not None:
            settings.setValue("analysis/open_folder", folder)


#: what a column of the comparison table holds, where its name does not say it all
HEADER_TIPS = {"compute": "training compute: power × time (or the total), in the unit the experiment gives it in",
               "training samples": "training samples over every curriculum domain"}

BEST = QColor("#d7f0d7")
WORST = QColor("#f6d5d5")


class FigurePanel(QWidget):
    """A figure with its export buttons."""

    def __init__(self, fig: Figure, exporter, parent=None):
        super().__init__(parent)
        self.figure = fig
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(fig.widget, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        self.png_button = QPushButton("Export PNG…")
        self.svg_button = QPushButton("Export SVG…")
        self.png_button.clicked.connect(lambda: exporter(fig, "png"))
        self.svg_button.clicked.connect(lambda: exporter(fig, "svg"))
        row.addWidget(self.png_button)
        row.addWidget(self.svg_button)
        lay.addLayout(row)


class AnalysisWindow(QMainWindow):
    analysed = Signal(object)  # Analysis
    failed = Signal(str)

    def __init__(self, library=None, parent=None, settings=None):
        super().__init__(parent)
        self.setWindowTitle("Analysis — gindex-studio")
        from gindex_studio.ui.window_geometry import place

        self.geometry_settings = settings  # where its geometry is remembered (None: nowhere)
        place(self, settings, "analysis", (1300, 820))
        self.library = library
        self.paths: list[str] = []
        self.systems: list[System] = []
        self.analysis: Analysis | None = None
        self.figures: dict[str, Figure] = {}
        self.panels: dict[str, FigurePanel] = {}
        self.compare_windows: list = []
        self.runner = LatestRunner(self)  # scoring of opened files: still in a thread of this process
        self.runner.done.connect(self._scored)
        self.runner.failed.connect(self._fail)
        self.analyser = ProcessRunner(self)  # the numbers, in a worker process
        self.analyser.done.connect(self._analysed)
        self.analyser.failed.connect(self._analysis_failed)
        self._drawing = None  # the figures being built (a generator), one piece per loop turn
        self._current_tab = 0  # the tab shown before the figures were cleared
        self._draw_timer = QTimer(self)
        self._draw_timer.setInterval(0)
        self._draw_timer.timeout.connect(self._draw_step)

        bar = QToolBar("Analysis")
        bar.setObjectName("analysis.toolbar")
        self.addToolBar(bar)
        self.registry = ActionRegistry(self, ["analysis.add", "analysis.new", "analysis.save_study",
                                              "analysis.report", "analysis.close"])
        for aid, slot in (("analysis.add", self.add_experiment_dialog), ("analysis.new", self.new_experiment_dialog),
                          ("analysis.save_study", self.save_study_dialog),
                          ("analysis.report", self.export_report_dialog), ("analysis.close", self.close)):
            self.registry.connect(aid, slot)
        self.registry.place(self.menuBar().addMenu("&File"), list(self.registry.actions))
        from gindex_studio.ui.workspace import WorkspaceFeature

        self.features = Features(self, self.registry, {})
        self.features.add(WorkspaceFeature())  # File → Quit, the Window menu
        self.registry.place(bar, ["analysis.add", "analysis.new", "analysis.report"])
        bar.addSeparator()
        bar.addWidget(QLabel(" pass@k, k = "))
        self.k_spin = QSpinBox()
        self.k_spin.setRange(1, 100)
        self.k_spin.setValue(1)
        self.k_spin.setToolTip("k of the unbiased pass@k estimate (at most the fewest attempts of a task)")
        self.k_spin.valueChanged.connect(lambda _k: self.reanalyse())
        bar.addWidget(self.k_spin)

        self.tabs = QTabWidget()
        self.setCentralWidget(self.tabs)
        self.table = QTableWidget()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.comparisons = QTextBrowser()
        overview = QSplitter(Qt.Vertical)
        overview.addWidget(self.table)
        overview.addWidget(self.comparisons)
        overview.setSizes([260, 400])
        self.tabs.addTab(overview, "Comparison")
        self.status_label = QLabel("Open a study or add experiments")
        self.statusBar().addPermanentWidget(self.status_label)

    # ----- loading ---------------------------------------------------------------------------
    def open_paths(self, paths: list[str]) -> bool:
        """Read studies / experiments and score them off the GUI thread (``analysed`` follows)."""
        try:
            _name, pairs = open_inputs(list(paths))
        except ExperimentError as e:
            self._fail(str(e))
            return False
        self.paths += [str(p) for p in paths]
        keep = list(self.systems)
        self.status_label.setText(f"Scoring {len(pairs)} experiment(s)…")
        self.runner.submit(lambda _p, stale: keep + score_systems(pairs, workers=1, cancel=stale))
        return True

    @property
    def busy(self) -> bool:
        """Scoring, analysing or drawing: what is shown is not yet the newest systems' analysis."""
        return self.runner.busy or self.analyser.busy or self._drawing is not None

    def wait_idle(self, ms: int = 60_000) -> bool:
        """Run the window's work to its end here (scoring, the worker, every drawing step), at
        most ``ms`` milliseconds; False if it did not end in time."""
        import time

        end = time.monotonic() + ms / 1000
        while self.busy:
            if time.monotonic() > end:
                return False
            self.runner.wait(20)
            self.analyser.wait(20)
            QCoreApplication.processEvents(QEventLoop.AllEvents, 20)
        return True

    def _scored(self, systems) -> None:
        labels = [s.label for s in systems]
        for k, s in enumerate(systems):  # labels unique across additions
            if labels.count(s.label) > 1 and labels.index(s.label) != k:
                s.label = f"{s.label} ({k + 1})"
        self.set_systems(systems)

    def _fail(self, message: str) -> None:
        self.status_label.setText(message)
        self.failed.emit(message)
        if self.isVisible():
            QMessageBox.warning(self, "Analysis", message)

    def set_systems(self, systems: list[System]) -> None:
        self.systems = list(systems)
        self.reanalyse()

    def reanalyse(self) -> None:
        """Recompute every number (in a worker process) and redraw, after new systems or another
        k; a computation or drawing still under way is dropped."""
        if not self.systems:
            return
        self._stop_drawing()
        self.status_label.setText(f"Computing intervals for {len(self.systems)} systems…")
        self.analyser.submit_process(experiment_jobs.analyse_job, experiment_jobs.slim_systems(self.systems),
                                     self.k_spin.value())

    def _analysed(self, an: Analysis) -> None:
        """The worker's numbers: the table and sentences now, the figures a piece per turn."""
        an.systems = list(self.systems)
        self.analysis = an
        self._fill_table()
        self._fill_comparisons()
        n = len(an.arrays[0].ids) if an.arrays else 0
        self.status_label.setText(f"{len(self.systems)} systems, {n} tasks in the first; "
                                  f"{an.resamples} bootstrap resamples (seed {an.seed})")
        self._clear_plots()
        self._drawing = figure_steps(an)
        self._draw_timer.start()

    def _analysis_failed(self, line: str) -> None:
        self._stop_drawing()
        self._fail(f"The analysis failed: {line}")

    def _draw_step(self) -> None:
        steps = self._drawing
        if steps is None:
            self._draw_timer.stop()
            return
        try:
            next(steps)
        except StopIteration as done:
            self._stop_drawing()
            self._show_plots(done.value)
            self.analysed.emit(self.analysis)
        except Exception as e:  # noqa: BLE001 - a figure that cannot be drawn is said, not lost
            self._stop_drawing()
            self._fail(f"The figures could not be drawn: {type(e).__name__}: {e}")

    def _stop_drawing(self) -> None:
        self._draw_timer.stop()
        steps, self._drawing = self._drawing, None
        if steps is not None:
            steps.close()

    # ----- table and sentences ------------------------------------------------------------------
    def _fill_table(self) -> None:
        an = self.analysis
        header = table_header(an)
        rows = table_rows(an)
        self.table.clear()
        self.table.setColumnCount(len(header))
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels(header)
        for c, col in enumerate(header):
            if col in HEADER_TIPS:
                self.table.horizontalHeaderItem(c).setToolTip(HEADER_TIPS[col])
        marks = table_marks(an.summary) if len(rows) > 1 else {}
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignVCenter | (Qt.AlignLeft if c == 0 else Qt.AlignRight))
                col = header[c]
                if col in marks:
                    best, worst = marks[col]
                    if r == best:
                        item.setBackground(QBrush(QColor(role_colors("best")[1])))
                        item.setForeground(QBrush(QColor(role_colors("best")[0])))
                        item.setToolTip(f"best {col}")
                        f = QFont()
                        f.setBold(True)
                        item.setFont(f)
                    elif r == worst:
                        item.setBackground(QBrush(QColor(role_colors("worst")[1])))
                        item.setForeground(QBrush(QColor(role_colors("worst")[0])))
                        item.setToolTip(f"worst {col}")
                self.table.setItem(r, c, item)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)

    def _fill_comparisons(self) -> None:
        an = self.analysis
        parts = [f"<p><b>Intervals</b>: {an.level:.0%} percentile bootstrap over tasks, stratified by task domain, "
                 f"{an.resamples} resamples, seed {an.seed}. Best of each column green, worst red.</p>"]
        for p in an.pairs:
            parts.append(
                f"<h4>{html.escape(p.a)} vs {html.escape(p.b)} ({len(p.shared)} shared tasks)</h4><ul>"
                f"<li>{html.escape(p.g_sentence)} (paired bootstrap; p: paired permutation test on TC, "
                f"{'exact' if p.g_test.exact else 'Monte Carlo'})</li>"
                f"<li>{html.escape(p.theta_sentence)} (p: permutation test on θ)</li>"
                f"<li>sign test on per-task θ: {p.theta_sign.stats['positive']} tasks higher for {html.escape(p.a)}, "
                f"{p.theta_sign.stats['negative']} for {html.escape(p.b)}, {p.theta_sign.stats['ties']} ties, "
                f"p = {p.theta_sign.p:.3g}</li>"
                f"<li>McNemar on solved (θ = 1): only {html.escape(p.a)} {p.mcnemar.stats['only_a']}, only "
                f"{html.escape(p.b)} {p.mcnemar.stats['only_b']}, p = {p.mcnemar.p:.3g}</li></ul>")
        parts += [f"<p><i>{html.escape(n)}</i></p>" for n in an.notes]
        self.comparisons.setHtml("".join(parts))

    # ----- plots -----------------------------------------------------------------------------------
    def _clear_plots(self) -> None:
        self._current_tab = self.tabs.currentIndex()
        while self.tabs.count() > 1:
            w = self.tabs.widget(1)
            self.tabs.removeTab(1)
            w.deleteLater()
        self.figures, self.panels = {}, {}

    def _show_plots(self, figures: dict[str, Figure]) -> None:
        current = self._current_tab
        self.figures = figures
        self.panels = {}
        for title, ids in TABS.items():
            page = QWidget()
            grid = QGridLayout(page)
            grid.setContentsMargins(4, 4, 4, 4)
            for k, fid in enumerate(ids):
                fig = self.figures[fid]
                fig.task_clicked.connect(self.open_task)
                panel = self.panels[fid] = FigurePanel(fig, self.export_figure)
                grid.addWidget(panel, k // 2, k % 2)
            self.tabs.addTab(page, title)
        self.tabs.setCurrentIndex(max(0, min(current, self.tabs.count() - 1)))

    def export_figure(self, fig: Figure, kind: str, path: str | None = None) -> str | None:
        if path is None:
            path = self.ask_save_path(f"Export {kind.upper()}", os.path.join(export_folder(), f"{fig.id}.{kind}"),
                                      f"{kind.upper()} (*.{kind})")
            if not path:
                return None
            _EXPORT_FOLDER[0] = os.path.dirname(os.path.abspath(path))
        (export_png if kind == "png" else export_svg)(fig, path)
        self.statusBar().showMessage(f"Exported {path}", 5000)
        return path

    def ask_save_path(self, title: str, suggestion: str, filt: str) -> str | None:
        """The file dialog (tests replace it on the instance; a bound method stored on the
        window would tie it in a reference cycle)."""
        path, _ = QFileDialog.getSaveFileName(self, title, suggestion, filt)
        return path or None

    # ----- actions ----------------------------------------------------------------------------------
    def add_experiment_dialog(self) -> None:
        """The open dialog, starting where experiments were last added from, else in Documents."""
        paths = self.ask_open_paths("Add experiments or a study", open_folder(self.geometry_settings), STUDY_FILTER)
        if paths:
            remember_open_folder(paths, self.geometry_settings)
            self.open_paths(paths)

    def ask_open_paths(self, title: str, folder: str, filt: str) -> list[str]:
        """The file dialog (tests replace it on the instance)."""
        paths, _ = QFileDialog.getOpenFileNames(self, title, folder, filt)
        return paths

    def new_experiment_dialog(self):
        """The build dialog; the experiment it writes is added to the window as a system."""
        from gindex_studio.ui.analysis.build_dialog import BuildExperimentDialog

        dlg = BuildExperimentDialog(self)
        dlg.built.connect(lambda path: self.open_paths([path]))
        dlg.setAttribute(Qt.WA_DeleteOnClose, True)
        dlg.open()
        self.build_dialog = dlg
        return dlg

    def save_study_dialog(self) -> str | None:
        """Write the systems shown (those read from files) as a study file."""
        entries = [StudyEntry(str(s.experiment.path), Path(s.experiment.path), s.label)
                   for s in self.systems if s.experiment is not None and s.experiment.path is not None]
        if not entries:
            self.statusBar().showMessage("No experiment read from a file to save as a study", 5000)
            return None
        path = self.ask_save_path("Save study", os.path.join(export_folder(), "study.json"), "Studies (*.json)")
        if not path:
            return None
        try:
            save_study(Study(Path(path).stem, entries), path)
        except OSError as e:
            self._fail(f"{path}: cannot write ({e.strerror})")
            return None
        self.statusBar().showMessage(f"Study written to {path}", 8000)
        return path

    def export_report_dialog(self) -> str | None:
        if self.analysis is None:
            return None
        path = self.ask_save_path("Export report", os.path.join(export_folder(), "report.html"), "HTML (*.html)")
        if not path:
            return None
        from gindex_studio.ui.analysis.report import write_report

        write_report(self.analysis, path)
        self.statusBar().showMessage(f"Report written to {path}", 8000)
        return path

    def open_task(self, label: str, task_id: str):
        """The compare view on ``task_id`` of system ``label`` (reference and first attempt)."""
        system = next((s for s in self.systems if s.label == label), None)
        if system is None or system.experiment is None or system.experiment.path is None:
            return None
        try:
            index = system.experiment.task_index(task_id)
        except KeyError:
            return None  # a bubble or a curve marker, not a task
        from gindex_studio.ui.compare.window import open_compare
        from gindex_studio.ui.curation.menu import CurateFeature

        win = open_compare(None, library=self.library, features=[CurateFeature()])
        if not win.open_experiment(os.fspath(system.experiment.path)):
            return win
        win.show_task(index)
        self.compare_windows.append(win)
        return win

    def closeEvent(self, e):
        """The scoring stops (its searches and worker processes) and the window goes only once
        it has ended: nothing of the window is destroyed while a worker could still report."""
        from gindex_studio.ui.window_geometry import remember

        remember(self, self.geometry_settings, "analysis")
        self._stop_drawing()
        self.analyser.shutdown()  # kills the worker process at once
        self.runner.shutdown()
        e.accept()


WINDOWS: list[AnalysisWindow] = []


def open_analysis(paths: list[str] | None = None, library=None) -> AnalysisWindow:
    """A new Analysis window (kept alive in ``WINDOWS``), scoring ``paths`` if given."""
    from gindex_studio.ui.preferences import studio_settings

    win = AnalysisWindow(library, settings=studio_settings())
    WINDOWS.append(win)
    win.setAttribute(Qt.WA_DeleteOnClose, True)
    win.destroyed.connect(lambda *_: WINDOWS.remove(win) if win in WINDOWS else None)
    if paths:
        win.open_paths(paths)
    win.show()
    return win
