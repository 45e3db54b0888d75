"""The studio's main window and ``main(files)``, the entry of ``gindex-studio``.

One FlowEditor per open file in tabs; palette, inspector, problems and history are docks that
follow the current editor; all commands are named actions of one registry.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

# One OpenBLAS thread: the studio's numeric work runs in Qt worker threads beside the GUI, where
# BLAS threads spinning after each call only compete with them (a threaded eigh once hung in a
# worker). Set before numpy is first imported (lazily, after this module); the user's value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from PySide6.QtCore import QSettings, QStandardPaths, Qt, QThreadPool, QTimer
from PySide6.QtGui import QUndoGroup
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMenu,
    QTabWidget,
    QUndoView,
)

from gindex_studio.core.flows.files import FileStamp, ReadOnlyError
from gindex_studio.core.flows.flow import Flow, write_flow_file

from gindex_studio.ui.actions import ActionRegistry, menu_entry
from gindex_studio.ui.application import studio_application
from gindex_studio.ui.autosave import AutosaveStore
from gindex_studio.ui.dialogs import Dialogs
from gindex_studio.ui.docks import add_docks
from gindex_studio.ui.docks import remember_layout
from gindex_studio.ui.editor import FlowEditor
from gindex_studio.ui.features import Features, WindowFeature
from gindex_studio.ui.help import GuideWindow, ShortcutsDialog, shortcut_rows, show_about
from gindex_studio.ui.library_access import bundled_library
from gindex_studio.ui.loader import LARGE_FLOW_NODES, LoadJob, Recovered, load_flow
from gindex_studio.ui.panels.inspector import Inspector
from gindex_studio.ui.panels.palette import Palette
from gindex_studio.ui.panels.problems import ProblemsPanel
from gindex_studio.ui.preferences import Preferences, PreferencesDialog
from gindex_studio.ui.theme import apply_theme

MAX_RECENT = 10


def demo_program() -> str | None:
    """A program from the bundled demo data (the first domain's first program), if installed."""
    try:
        from gindex_studio.paths import DEMO_DIR
    except ImportError:
        return None
    progs = sorted(Path(DEMO_DIR, "programs").glob("*/*.json"))
    preferred = [p for p in progs if p.parent.name == "googlesearch-to-csv"]
    pick = (preferred or progs or [None])[0]
    return str(pick) if pick else None


def main_window_features() -> list[WindowFeature]:
    """The parts of the main window beyond editing, in the order their menu entries appear:
    File → Compare…, Open Experiment…, Analysis…, New Experiment from Outputs…, Curate…; the
    Flatland menu and Drawing dock; the Run menu and Debug dock; the Window menu and File → Quit."""
    from gindex_studio.ui.analysis.menu import AnalysisFeature
    from gindex_studio.ui.compare.menu import CompareFeature
    from gindex_studio.ui.curation.menu import CurateFeature
    from gindex_studio.ui.flatland.actions import FlatlandFeature
    from gindex_studio.ui.nodered.actions import RunFeature
    from gindex_studio.ui.workspace import WorkspaceFeature

    return [CompareFeature(compare_features), AnalysisFeature(), CurateFeature(), FlatlandFeature(), RunFeature(),
            WorkspaceFeature(quit_in_file=False)]


def compare_features() -> list[WindowFeature]:
    """What the studio adds to each compare window it opens: File → Curate… (its experiment
    proposed)."""
    from gindex_studio.ui.curation.menu import CurateFeature

    return [CurateFeature()]


class MainWindow(QMainWindow):
    def __init__(self, settings: QSettings | None = None, autosave_dir: str | None = None,
                 autosave_interval_ms: int = 30_000, library=None):
        super().__init__()
        self.setWindowTitle("gindex-studio")
        self.library = library if library is not None else bundled_library()
        self.settings = settings if settings is not None else QSettings("gindex-studio", "studio")
        self.dialogs = Dialogs(self)
        self.autosave = AutosaveStore(autosave_dir)
        self.pool = QThreadPool.globalInstance()
        self._loads: dict[int, LoadJob] = {}
        self._load_errors: list[str] = []  # of the files being opened together (one message for all)
        self._load_counter = 0
        self._doc_counter = 0

        self.undo_group = QUndoGroup(self)
        self.tabs = QTabWidget()
        self.tabs.setTabsClosable(True)
        self.tabs.setDocumentMode(True)
        self.tabs.setMovable(True)
        self.tabs.currentChanged.connect(self._on_current)
        self.tabs.tabCloseRequested.connect(lambda k: self.close_editor(self.tabs.widget(k)))
        self.setCentralWidget(self.tabs)

        self.palette = Palette(self.library)
        self.palette.activated.connect(self._palette_activated)
        self.inspector = Inspector()
        self.problems = ProblemsPanel()
        self.problems.jump.connect(lambda i: self.editor and self.editor.focus_node(i))
        self.undo_view = QUndoView(self.undo_group)
        self.undo_view.setEmptyLabel("<opened>")
        self.docks = add_docks(self, (
            ("palette", "Palette", self.palette, Qt.LeftDockWidgetArea),
            ("inspector", "Inspector", self.inspector, Qt.RightDockWidgetArea),
            ("history", "History", self.undo_view, Qt.RightDockWidgetArea),
            ("problems", "Problems", self.problems, Qt.BottomDockWidgetArea),
        ))
        self.splitDockWidget(self.docks["inspector"], self.docks["history"], Qt.Vertical)
        self.resizeDocks([self.docks["palette"]], [210], Qt.Horizontal)
        self.resizeDocks([self.docks["inspector"]], [360], Qt.Horizontal)
        self.resizeDocks([self.docks["inspector"], self.docks["history"]], [560, 200], Qt.Vertical)
        self.resizeDocks([self.docks["problems"]], [130], Qt.Vertical)

        self.actions = ActionRegistry(self)
        self._wire_actions()
        self._build_menus()
        self.features = Features(self, self.actions, self.docks)
        for feature in main_window_features():
            self.features.add(feature)
        self.status_label = QLabel()
        self.statusBar().addPermanentWidget(self.status_label)

        self.autosave_timer = QTimer(self, interval=autosave_interval_ms)
        self.autosave_timer.timeout.connect(self.autosave_now)
        self.autosave_timer.start()
        from gindex_studio.ui import preferences

        preferences.STUDIO_SETTINGS[:] = [self.settings]
        self.prefs = Preferences.load(self.settings)
        self.apply_preferences(self.prefs)
        self.guide: GuideWindow | None = None
        self.shortcuts: ShortcutsDialog | None = None
        self.preferences_dialog: PreferencesDialog | None = None
        self.setAcceptDrops(True)
        remember_layout(self, self.settings, "main", (1400, 860))  # placed within the screen
        self._update_actions()

    # ----- current editor ---------------------------------------------------------------------
    @property
    def editor(self) -> FlowEditor | None:
        w = self.tabs.currentWidget()
        return w if isinstance(w, FlowEditor) else None

    def editors(self) -> list[FlowEditor]:
        return [self.tabs.widget(k) for k in range(self.tabs.count())]

    def _on_current(self, _k: int) -> None:
        ed = self.editor
        self.undo_group.setActiveStack(ed.undo_stack if ed else None)
        self.inspector.set_target(ed, ed.scene.selected_node_ids()[0] if ed and len(ed.scene.selected_node_ids()) == 1 else None)
        self.problems.set_editor(ed)
        self.status_label.setText(f"{ed.view.zoom() * 100:.0f} %" if ed is not None else "")  # this tab's zoom
        if ed is not None:
            self.actions["view.snap"].setChecked(ed.scene.snap_to_grid)
        self._update_actions()

    def _update_actions(self) -> None:
        has = self.editor is not None
        for a in ("file.save", "file.save_as", "file.close", "file.as_task"):
            self.actions[a].setEnabled(has)
        ed = self.editor
        as_task = self.actions["file.as_task"]
        as_task.blockSignals(True)
        as_task.setChecked(bool(ed and ed.doc.has_prompt))
        as_task.blockSignals(False)
        self.setWindowTitle(f"{ed.title()} — gindex-studio" if ed else "gindex-studio")

    # ----- actions ----------------------------------------------------------------------------
    def _on_editor(self, fn):
        def run():
            if self.editor is not None:
                fn(self.editor)
        return run

    def _wire_actions(self) -> None:
        A = self.actions
        A.connect("file.new", self.new_file)
        A.connect("file.new_task", self.new_task)
        A.connect("file.as_task", lambda on: self.editor and self.editor.make_task(on))
        A.connect("file.open", self.open_dialog)
        A.connect("file.demo", self.open_demo)
        A.connect("file.save", self.save)
        A.connect("file.save_as", self.save_as)
        A.connect("file.close", lambda: self.editor and self.close_editor(self.editor))
        A.connect("edit.undo", self.undo_group.undo)
        A.connect("edit.redo", self.undo_group.redo)
        self.undo_group.canUndoChanged.connect(A["edit.undo"].setEnabled)
        self.undo_group.canRedoChanged.connect(A["edit.redo"].setEnabled)
        from gindex_studio.ui.toolbar import steady_undo_text

        self.undo_group.undoTextChanged.connect(lambda t: steady_undo_text(A["edit.undo"], "Undo", t))
        self.undo_group.redoTextChanged.connect(lambda t: steady_undo_text(A["edit.redo"], "Redo", t))
        A["edit.undo"].setEnabled(False)
        A["edit.redo"].setEnabled(False)
        A.connect("edit.cut", self._on_editor(lambda e: e.cut()))
        A.connect("edit.copy", self._on_editor(lambda e: e.copy()))
        A.connect("edit.paste", self._on_editor(lambda e: e.paste()))
        A.connect("edit.delete", self._on_editor(lambda e: e.delete_selection()))
        A.connect("edit.select_all", self._on_editor(lambda e: e.select_all()))
        A.connect("edit.find", self._on_editor(lambda e: e.open_find()))
        A.connect("edit.find_next", self._on_editor(lambda e: e.find_step(1)))
        A.connect("edit.find_prev", self._on_editor(lambda e: e.find_step(-1)))
        A.connect("edit.preferences", self.open_preferences)
        A.connect("help.guide", self.show_guide)
        A.connect("help.shortcuts", self.show_shortcuts)
        A.connect("help.about", lambda: show_about(self))
        A.connect("edit.quick_add", self._on_editor(lambda e: e.open_quick_add_next(e.view.cursor_scene_pos())))
        A.connect("view.zoom_in", self._on_editor(lambda e: e.view.zoom_in()))
        A.connect("view.zoom_out", self._on_editor(lambda e: e.view.zoom_out()))
        A.connect("view.fit", self._on_editor(lambda e: e.view.fit()))
        A.connect("view.zoom_reset", self._on_editor(lambda e: e.view.zoom_reset()))
        A["view.snap"].setChecked(True)
        A.connect("view.snap", lambda on: [e.scene.set_snap(on) for e in self.editors()])
        A["view.minimap"].setChecked(True)
        A.connect("view.minimap", lambda on: [e.minimap.set_enabled(on) for e in self.editors()])
        A.connect("arrange.layout", self._on_editor(lambda e: e.auto_layout()))
        for mode in ("left", "center", "right", "top", "middle", "bottom"):
            A.connect(f"arrange.{mode}", self._on_editor(lambda e, m=mode: e.align_selection(m)))
        A.connect("arrange.dist_h", self._on_editor(lambda e: e.distribute_selection("h")))
        A.connect("arrange.dist_v", self._on_editor(lambda e: e.distribute_selection("v")))

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.recent_menu = QMenu("Open &Recent", self)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        for menu_name in ("File", "Edit", "View", "Arrange"):
            m = bar.addMenu("&" + menu_name)
            m.setToolTipsVisible(True)
            for aid in self.actions.menu_ids(menu_name):
                if aid in ("file.save", "edit.cut", "view.snap", "arrange.left", "arrange.dist_h", "file.quit",
                           "edit.select_all", "edit.find", "edit.preferences"):
                    m.addSeparator()
                m.addAction(self.actions[aid])
                if aid == "file.demo":
                    m.addMenu(self.recent_menu)
        panels = bar.addMenu("&Panels")
        for d in self.docks.values():
            panels.addAction(d.toggleViewAction())
        self.help_menu = bar.addMenu("&Help")
        for aid in self.actions.menu_ids("Help"):
            self.help_menu.addAction(self.actions[aid])
        from gindex_studio.ui.toolbar import main_toolbar

        self.addToolBar(main_toolbar(self, self.actions))

    # ----- recent files -----------------------------------------------------------------------
    def _recent(self, key: str) -> list[str]:
        v = self.settings.value(key, [])
        if isinstance(v, str):
            v = [v]
        return [p for p in (v or []) if isinstance(p, str)]

    def _remember(self, key: str, path: str) -> None:
        """``path`` first in the list ``key`` (once; at most ``MAX_RECENT``)."""
        path = os.path.abspath(path)
        items = [p for p in self._recent(key) if p != path]
        self.settings.setValue(key, [path] + items[: MAX_RECENT - 1])

    def recent_files(self) -> list[str]:
        return self._recent("recent")

    def _add_recent(self, path: str) -> None:
        self._remember("recent", path)

    def recent_experiments(self) -> list[str]:
        return self._recent("recent_experiments")

    def remember_experiment(self, path: str) -> None:
        self._remember("recent_experiments", path)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files, experiments = self.recent_files(), self.recent_experiments()
        if not files and not experiments:
            menu_entry(self.recent_menu, "(none)")
        for p in files:
            menu_entry(self.recent_menu, p, lambda p=p: self.open_files([p]))
        if experiments:
            self.recent_menu.addSection("Experiments")
            for p in experiments:
                menu_entry(self.recent_menu, p, lambda p=p: self.open_experiment(p))

    def open_experiment(self, path: str, kind: str | None = None):
        """A compare window on the experiment at ``path`` (remembered among recent experiments);
        ``kind``: its ``experiment_kind`` when already known."""
        from gindex_studio.ui.compare.window import open_compare

        win = open_compare(None, library=self.library, features=compare_features())
        if win.open_experiment(path, kind=kind):
            self.remember_experiment(path)
        return win

    # ----- drops ------------------------------------------------------------------------------
    def dragEnterEvent(self, e):
        if dropped_paths(e.mimeData()):
            e.acceptProposedAction()
        else:
            e.ignore()

    def dragMoveEvent(self, e):
        self.dragEnterEvent(e)

    def dropEvent(self, e):
        """Dropped files open: experiments in a compare window, everything else as flows."""
        paths = dropped_paths(e.mimeData())
        if not paths:
            e.ignore()
            return
        e.acceptProposedAction()
        flows = []
        from gindex_studio.core.benchmark.experiment import experiment_kind

        for p in paths:
            kind = experiment_kind(p)  # the file is read once here, and once more by the loader
            if kind is not None:
                self.open_experiment(p, kind)
            else:
                flows.append(p)
        if flows:
            self.open_files(flows)

    # ----- preferences and help ---------------------------------------------------------------
    def apply_preferences(self, prefs: Preferences) -> None:
        self.prefs = prefs
        dark = apply_theme(prefs.theme)
        self.actions.set_icons("#e6e6e6" if dark else "#333333")
        self.actions["view.snap"].setChecked(prefs.snap)
        for ed in self.editors():
            ed.scene.show_grid = prefs.show_grid
            ed.scene.update()

    def open_preferences(self) -> PreferencesDialog:
        dlg = self.preferences_dialog = PreferencesDialog(self.prefs, self)

        def accepted():
            prefs = dlg.value()
            prefs.save(self.settings)
            self.apply_preferences(prefs)
            self.statusBar().showMessage("Preferences saved", 5000)

        dlg.accepted.connect(accepted)
        dlg.open()
        return dlg

    def show_guide(self) -> GuideWindow:
        if self.guide is None:
            self.guide = GuideWindow(self)
        self.guide.show()
        self.guide.raise_()
        return self.guide

    def show_shortcuts(self) -> ShortcutsDialog:
        """The Keyboard Shortcuts list: every action of the registry that has a key."""
        if self.shortcuts is None:
            self.shortcuts = ShortcutsDialog(shortcut_rows(self.actions.all()), self)
        self.shortcuts.show()
        return self.shortcuts

    # ----- documents --------------------------------------------------------------------------
    def add_editor(self, flow: Flow | None, path: str | None) -> FlowEditor:
        ed = FlowEditor(flow, path, self.library)
        self._doc_counter += 1
        ed.autosave_id = f"doc{self._doc_counter}"
        ed.minimap.set_enabled(self.actions["view.minimap"].isChecked())
        ed.scene.set_snap(self.actions["view.snap"].isChecked())
        ed.scene.show_grid = self.prefs.show_grid
        self.undo_group.addStack(ed.undo_stack)
        ed.node_selected.connect(lambda i, e=ed: e is self.editor and self.inspector.set_target(e, i))
        ed.title_changed.connect(lambda e=ed: self._retitle(e))
        ed.doc.task_changed.connect(self._update_actions)
        ed.message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        ed.view.zoom_changed.connect(lambda z, e=ed: e is self.editor and self.status_label.setText(f"{z * 100:.0f} %"))
        k = self.tabs.addTab(ed, ed.title())
        self.tabs.setTabToolTip(k, path or "not saved yet")
        self.tabs.setCurrentIndex(k)
        QTimer.singleShot(0, ed.view.fit)
        return ed

    def _retitle(self, ed: FlowEditor) -> None:
        k = self.tabs.indexOf(ed)
        if k >= 0:
            self.tabs.setTabText(k, ed.title())
            self.tabs.setTabToolTip(k, ed.path or "not saved yet")
        self._update_actions()

    def new_file(self) -> FlowEditor:
        return self.add_editor(Flow(), None)

    def new_task(self) -> FlowEditor:
        """An untitled benchmark task: the title field has the focus."""
        from gindex_studio.core.editing.task import new_task_flow

        ed = self.add_editor(new_task_flow(), None)
        ed.prompt_box.title.setFocus()
        return ed

    def open_dialog(self) -> None:
        folder = os.path.dirname(self.editor.path) if self.editor and self.editor.path else self.last_folder()
        self.open_files(self.dialogs.open_files(folder))

    def open_demo(self) -> None:
        """The bundled demo program, opened as an untitled copy (see ``_loaded``)."""
        p = demo_program()
        if p:
            self.open_files([p])
        else:
            self.new_file()
            self.statusBar().showMessage("No demo data installed; started an empty flow", 8000)

    def open_files(self, paths: list[str], wait: bool = False) -> None:
        """Open files; each is parsed on a worker thread (``wait`` parses here, for scripts)."""
        for path in paths:
            for ed in self.editors():
                if ed.path and os.path.abspath(ed.path) == os.path.abspath(path):
                    self.tabs.setCurrentWidget(ed)
                    break
            else:
                if wait:
                    flow, err = load_flow(path)
                    self._loaded(None, flow, err, path)
                    continue
                self._load_counter += 1
                job = LoadJob(path, self._load_counter)
                job.setAutoDelete(False)
                job.signals.done.connect(lambda token, flow, err, p=path: self._loaded(token, flow, err, p))
                self._loads[self._load_counter] = job
                self.statusBar().showMessage(f"Opening {path}…")
                self.pool.start(job)

        if wait:
            self._report_load_errors()

    def _report_load_errors(self) -> None:
        """The files of one open (or drop) that could not be read: one message listing them all,
        not a stack of boxes."""
        errors, self._load_errors = self._load_errors, []
        if len(errors) == 1:
            self.dialogs.error("Cannot open file", errors[0])
        elif errors:
            self.dialogs.error("Cannot open files", f"{len(errors)} files could not be opened:\n\n"
                               + "\n\n".join(errors))

    def pending_loads(self) -> int:
        return len(self._loads)

    def _loaded(self, token, flow, err: str, path: str) -> None:
        self._loads.pop(token, None)
        self._loaded_one(flow, err, path)
        if token is not None and not self._loads:  # the last of the files opened together
            self._report_load_errors()

    def _loaded_one(self, flow, err: str, path: str) -> None:
        if isinstance(flow, Recovered):
            self._open_recovered(flow, err, path)
            return
        if flow is None:
            self.statusBar().showMessage("Could not open the file", 8000)
            self._load_errors = self._load_errors + [err]
            return
        if is_bundled(path):  # never write into the installed resources: an untitled copy
            ed = self.add_editor(flow, None)
            ed.suggested_name = os.path.basename(path)
            ed.title_changed.emit()
            self.statusBar().showMessage(f"Opened a copy of the bundled {os.path.basename(path)}: "
                                         "Save asks where to keep it", 8000)
            return
        ed = self.add_editor(flow, path)
        ed.disk_stamp = FileStamp.of(path)
        self._add_recent(path)
        n = len(flow.nodes)
        probs = len(ed.doc.problems())
        large = " (a large flow: drawing and editing may be slow)" if n > LARGE_FLOW_NODES else ""
        drawn = len(ed.doc.drawn_ids())  # as on the canvas: a workspace tab or a config node is not counted
        self.statusBar().showMessage(f"Opened {path}: {drawn:,} node{'' if drawn == 1 else 's'}"
                                     + (f", {probs} problems" if probs else "") + large, 8000)

    def _open_recovered(self, rec: Recovered, err: str, path: str) -> None:
        """A damaged file: offer what can be read as a new, unsaved document marked "recovered"
        (a banner says from where); Save asks where to write it, proposing a name beside the original."""
        if not self.dialogs.ask_open_recovered(err):
            self.statusBar().showMessage("Did not open the damaged file", 8000)
            return
        ed = self.add_editor(rec.flow, None)
        stem = os.path.splitext(os.path.basename(path))[0]
        ed.suggested_name = f"{stem}-recovered.json"
        ed.suggested_folder = os.path.dirname(os.path.abspath(path))
        ed.recovered_from = path
        ed.forced_dirty = True
        s = rec.syntax
        ed.show_banner(f"Recovered from a damaged file: {path} broke at line {s.line}, column {s.column} "
                       f"({s.message}). {rec.nodes} node{'s' if rec.nodes != 1 else ''} recovered; the original "
                       "is unchanged. Save asks where to write this copy.")
        ed.title_changed.emit()
        self.statusBar().showMessage(f"Opened what could be recovered from {path}: {rec.nodes} nodes", 8000)

    def last_folder(self) -> str:
        """Where file dialogs start: the folder last opened from or saved to, else Documents."""
        recent = self.recent_files()
        folder = os.path.dirname(recent[0]) if recent else ""
        if folder and os.path.isdir(folder):
            return folder
        docs = QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation)
        return docs if docs and os.path.isdir(docs) else os.path.expanduser("~")

    def save(self, ed: FlowEditor | None = None) -> bool:
        ed = ed or self.editor
        if ed is None:
            return False
        if not ed.path:
            return self.save_as(ed)
        return self._write(ed, ed.path)

    def save_as(self, ed: FlowEditor | None = None) -> bool:
        ed = ed or self.editor
        if ed is None:
            return False
        suggestion = ed.path or os.path.join(ed.suggested_folder or self.last_folder(), suggested_file_name(ed))
        path = self.dialogs.save_file(suggestion)
        return self._write(ed, path) if path else False

    def _write(self, ed: FlowEditor, path: str) -> bool:
        """Save ``ed`` to ``path``; a file another program changed since it was read or saved here
        is not overwritten without asking (reload, overwrite, save as, or cancel)."""
        same = ed.path is not None and os.path.abspath(ed.path) == os.path.abspath(path)
        if same and ed.disk_stamp is not None and ed.disk_stamp.changed_on_disk(path):
            answer = self.dialogs.ask_changed_on_disk(path)
            if answer == "reload":
                self.reload(ed)
                return False
            if answer == "save_as":
                return self.save_as(ed)
            if answer != "overwrite":
                return False
        from gindex_studio.core.flatland.errors import FlatlandError

        from gindex_studio.ui.flatland.files import is_flatland_path, save_flatland_flow

        try:
            if is_flatland_path(path):
                save_flatland_flow(ed.doc.flow, path)
            else:
                write_flow_file(ed.doc.flow, path)
        except FlatlandError as e:
            self.dialogs.error("Cannot save", f"{path}\n\ncould not be written as a Flatland program: {e}")
            return False
        except ReadOnlyError:
            self.dialogs.error("Cannot save", f"{path}\n\nis read-only, so it was left as it is. "
                               "Use File → Save As… to keep your changes in another file.")
            return False
        except OSError as e:
            self.dialogs.error("Cannot save", f"{path}\n\ncould not be written: {e.strerror or e}")
            return False
        ed.disk_stamp = FileStamp.of(path)
        ed.mark_saved(path)
        self.autosave.discard(ed.autosave_id)
        self._add_recent(path)
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def reload(self, ed: FlowEditor) -> FlowEditor | None:
        """Replace ``ed`` by its file as it is on disk now (its edits are dropped); None when the
        file cannot be read any more (``ed`` stays)."""
        flow, err = load_flow(ed.path)
        if flow is None:
            self.dialogs.error("Cannot reload", err)
            return None
        k = self.tabs.indexOf(ed)
        new = self.add_editor(flow, ed.path)
        new.disk_stamp = FileStamp.of(ed.path)
        self.close_editor(ed, ask=False)
        self.tabs.tabBar().moveTab(self.tabs.indexOf(new), k)
        self.tabs.setCurrentWidget(new)
        self.statusBar().showMessage(f"Reloaded {ed.path} from disk", 8000)
        return new

    def close_editor(self, ed: FlowEditor, ask: bool = True) -> bool:
        if ask and ed.is_dirty():
            answer = self.dialogs.ask_save(ed.title().rstrip(" •"))
            if answer == "cancel" or (answer == "save" and not self.save(ed)):
                return False
        self.autosave.discard(ed.autosave_id)
        ed.undo_stack.cleanChanged.disconnect()
        ed.title_changed.disconnect()
        ed.node_selected.disconnect()
        if self.inspector.editor is ed:
            self.inspector.set_target(None, None)
        if self.problems.editor is ed:
            self.problems.set_editor(None)
        self.undo_group.removeStack(ed.undo_stack)
        self.tabs.removeTab(self.tabs.indexOf(ed))
        ed.deleteLater()
        return True

    def confirm_close(self) -> bool:
        """Ask about each edited flow (shown while asked): save, discard or cancel. True when the
        window may close; nothing is closed or discarded here, so a Cancel loses nothing."""
        for ed in self.editors():
            if not ed.is_dirty():
                continue
            self.tabs.setCurrentWidget(ed)
            answer = self.dialogs.ask_save(ed.title().rstrip(" •"))
            if answer == "cancel" or (answer == "save" and not self.save(ed)):
                return False
        return True

    def experiment_path(self) -> str | None:
        """The experiment open in the most recently opened compare window that has one (File →
        Curate… proposes it), else None."""
        from gindex_studio.ui.compare.window import WINDOWS

        return next((p for p in (w.experiment_path() for w in reversed(WINDOWS)) if p), None)

    def closeEvent(self, e):
        from gindex_studio.ui.workspace import quitting

        if not quitting() and not self.confirm_close():  # Quit has asked already
            e.ignore()
            return
        for ed in list(self.editors()):
            self.close_editor(ed, ask=False)
        self.autosave_timer.stop()
        self.autosave.close()
        e.accept()

    # ----- autosave ---------------------------------------------------------------------------
    def autosave_now(self) -> None:
        for ed in self.editors():
            if ed.is_dirty():
                try:
                    self.autosave.save(ed.autosave_id, ed.path, ed.doc.flow)
                except OSError as err:
                    self.statusBar().showMessage(f"Autosave failed: {err}", 8000)
            else:
                self.autosave.discard(ed.autosave_id)

    def offer_restore(self) -> int:
        """Offer the autosaves of crashed sessions; returns how many were restored."""
        found = self.autosave.orphans()
        if not found:
            return 0
        names = [r.path or "untitled" for r in found]
        if not self.dialogs.ask_restore(names):
            for r in found:
                r.file.unlink(missing_ok=True)
            return 0
        for r in found:
            ed = self.add_editor(r.flow, r.path)
            ed.forced_dirty = True
            ed.title_changed.emit()
            r.file.unlink(missing_ok=True)
            self.autosave.save(ed.autosave_id, ed.path, ed.doc.flow)
        return len(found)

    # ----- palette ----------------------------------------------------------------------------
    def _palette_activated(self, type_id: str) -> None:
        ed = self.editor or self.new_file()
        ed.add_next(type_id)  # wired from the selected node, to its right (else at the centre)


def dropped_paths(mime) -> list[str]:
    """The local files among dropped URLs."""
    if not mime.hasUrls():
        return []
    return [u.toLocalFile() for u in mime.urls() if u.isLocalFile() and os.path.isfile(u.toLocalFile())]


def is_experiment_file(path: str) -> bool:
    """An experiment file (ours or the companion's results: the core's ``experiment_kind``), not
    a flow."""
    from gindex_studio.core.benchmark.experiment import experiment_kind

    return experiment_kind(path) is not None


def suggested_file_name(ed) -> str:
    """Save As's name for an untitled editor: the name it was given (a bundled copy's, a
    recovered one's), else a task's domain and title (``telegram-2-reply - Reply with
    search.json``), else ``untitled.json``."""
    import re

    if ed.suggested_name != "untitled.json":
        return ed.suggested_name
    doc = ed.doc
    parts = [doc.task_field("name").strip(), doc.task_field("title").strip()] if doc.has_prompt else []
    stem = " - ".join(p for p in parts if p)
    stem = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", stem).strip()[:80].strip(" .")
    return f"{stem}.json" if stem else ed.suggested_name


def is_bundled(path: str) -> bool:
    """True for a file inside the installed resources (the demo data): never saved in place."""
    from gindex_studio.paths import RESOURCES

    try:
        return Path(path).resolve().is_relative_to(RESOURCES.resolve())
    except OSError:
        return False


LAST_WINDOW: MainWindow | None = None


def main(files: list[str] | None = None) -> int:
    """Open the studio window on ``files`` (or a demo program) and run until it is closed."""
    app = studio_application()
    global LAST_WINDOW
    from gindex_studio.ui.preferences import add_library_folders_to_environment

    add_library_folders_to_environment(Preferences.load(QSettings("gindex-studio", "studio")))
    win = LAST_WINDOW = MainWindow()
    win.show()
    report_user_library_errors(win)
    if files:
        win.open_files(list(files))
    QTimer.singleShot(0, lambda: win.offer_restore() or (not files and not win.editors() and win.open_demo()))
    return app.exec()


def report_user_library_errors(win: QMainWindow) -> None:
    """A user library folder that did not load is left out; say why in the status bar."""
    from gindex_studio.core.flows.library import NodeLibrary

    if NodeLibrary.user_errors:
        win.statusBar().showMessage(f"Your node library was left out: {NodeLibrary.user_errors[0]}", 15000)


def main_experiments(paths: list[str]) -> int:
    """``gindex-studio EXPERIMENT...`` (how the file manager opens experiment files): one compare
    window per experiment, with its task table and g-index."""
    from gindex_studio.ui.compare.window import open_compare

    app = studio_application()
    for path in paths:
        open_compare(None, features=compare_features()).open_experiment(path)
    return app.exec()


def main_compare(reference: str, generated: str) -> int:
    """``gindex-studio compare REF GEN``: the compare window on one pair (see ui/compare)."""
    from gindex_studio.ui.compare.window import main_compare as run

    return run(reference, generated, compare_features())


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
