"""CompareWindow: the compare view in a window of its own, with menus, the experiment task table,
the flow editor's own palette, inspector and history as docks that follow the active side, and the
entry points ``main_compare`` (``gindex-studio compare REF GEN``) and ``install_actions``
(File → Compare… and File → Open Experiment… in the studio's main window). File → Run System…
fills the task table from a system run (``ui.compare.system_run``)."""
from __future__ import annotations

import copy
import os
import sys

from PySide6.QtCore import QPointF, QSettings, Qt, QTimer
from PySide6.QtGui import QActionGroup, QUndoGroup
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QUndoView,
    QWidget,
)

from gindex_studio.core.benchmark.experiment import COMPANION_KIND, ExperimentError, experiment_kind
from gindex_studio.core.flows.flow import FlowError, write_flow_file
from gindex_studio.core.flows.reading import read_reference_file

from gindex_studio.ui.actions import ActionRegistry
from gindex_studio.ui.features import Features
from gindex_studio.ui.application import studio_application
from gindex_studio.ui.docks import add_docks
from gindex_studio.ui.dialogs import ask_changed_on_disk
from gindex_studio.ui.panels.inspector import Inspector
from gindex_studio.ui.panels.palette import Palette
from gindex_studio.ui.compare.experiment import ExperimentController, ExperimentPanel
from gindex_studio.ui.compare.view import RIGHT_MIN, CompareView
from gindex_studio.ui.window_geometry import place, remember

FLOW_FILTER = "Flow files (*.json);;All files (*)"
GEN_FILTER = "Model output (*.json *.txt *.md);;All files (*)"
EXP_FILTER = "Experiments (*.json);;All files (*)"


# ----- questions --------------------------------------------------------------------------------


class PairDialog(QDialog):
    """Choose a reference file and either a generated file or pasted model text."""

    def __init__(self, parent=None, reference: str = "", paste: bool = False):
        """``paste``: File → Compare with Pasted Model Output…: the text box is chosen, enabled
        and has the keyboard focus."""
        super().__init__(parent)
        self.setWindowTitle("Compare with Pasted Model Output" if paste else "Compare")
        self.resize(640, 420)
        form = QFormLayout(self)
        self.ref = QLineEdit(reference)
        form.addRow("Reference program", self._with_browse(self.ref, FLOW_FILTER))
        self.use_file = QRadioButton("a file")
        self.use_text = QRadioButton("pasted model output")
        self.use_file.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.use_file)
        group.addButton(self.use_text)
        row = QHBoxLayout()
        row.addWidget(self.use_file)
        row.addWidget(self.use_text)
        row.addStretch(1)
        form.addRow("Generated program from", row)
        self.gen = QLineEdit()
        form.addRow("Generated file", self._with_browse(self.gen, GEN_FILTER))
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText("Paste what the model wrote: JSON, a Markdown fence, even cut-off output")
        form.addRow("Model output", self.text)
        self.use_text.toggled.connect(self._sync)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        if paste:
            self.use_text.setChecked(True)
        self._sync()
        (self.text if paste else self.ref).setFocus()

    def _with_browse(self, edit: QLineEdit, filt: str) -> QWidget:
        w = QWidget()
        lay = QHBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(edit, 1)
        b = QPushButton("Browse…")
        b.clicked.connect(lambda: edit.setText(QFileDialog.getOpenFileName(self, "Choose a file", edit.text(), filt)[0] or edit.text()))
        lay.addWidget(b)
        return w

    def _sync(self) -> None:
        self.gen.setEnabled(self.use_file.isChecked())
        self.text.setEnabled(self.use_text.isChecked())

    def answer(self) -> tuple[str, str | None, str | None]:
        if self.use_text.isChecked():
            return self.ref.text().strip(), None, self.text.toPlainText()
        return self.ref.text().strip(), self.gen.text().strip(), None


class CompareDialogs:
    """The questions the compare window asks (tests replace this with a scripted object)."""

    def __init__(self, parent):
        self.parent = parent

    def error(self, title: str, text: str) -> None:
        QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self.parent).open()

    def ask_pair(self, reference: str = "") -> tuple[str, str | None, str | None] | None:
        d = PairDialog(self.parent, reference)
        return d.answer() if d.exec() == QDialog.Accepted else None

    def ask_paste(self, reference: str = "") -> tuple[str, str | None, str | None] | None:
        d = PairDialog(self.parent, reference, paste=True)
        return d.answer() if d.exec() == QDialog.Accepted else None

    def open_file(self, title: str, filt: str) -> str | None:
        return QFileDialog.getOpenFileName(self.parent, title, "", filt)[0] or None

    def open_directory(self, title: str) -> str | None:
        return QFileDialog.getExistingDirectory(self.parent, title) or None

    def save_file(self, title: str, suggestion: str, filt: str = FLOW_FILTER) -> str | None:
        return QFileDialog.getSaveFileName(self.parent, title, suggestion, filt)[0] or None

    def ask_changed_on_disk(self, path: str) -> str:
        return ask_changed_on_disk(self.parent, path)

    def ask_stop_run(self) -> bool:
        """Closing the window during a system run: stop it (True) or keep the window open."""
        r = QMessageBox.question(
            self.parent, "A system run is in progress",
            "Stop the run and close the window?\n\nEvery answer received is kept in the run's log, and so are "
            "those of the requests in flight, which finish in the background. Run System again with the same "
            "experiment file to resume: only what is not answered is asked.",
            QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
        return r == QMessageBox.Yes

    def ask_save(self, name: str) -> str:
        r = QMessageBox.question(self.parent, "Unsaved changes", f"Save the changes to {name}?",
                                 QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(r, "cancel")


# ----- the window -------------------------------------------------------------------------------


#: milliseconds between a new g-index on screen and the opening of its worst task
OPEN_WORST_DELAY_MS = 20


class CompareWindow(QMainWindow):
    """``settings``: where the panels' layout, the sides' arrangement and the folded options are
    remembered (None: nothing is remembered, as in tests)."""

    STATE_VERSION = 3  # 3: the task table eight rows tall (a layout saved with four is not restored)

    def __init__(self, library=None, parent=None, settings: QSettings | None = None, features=()):
        """``features``: more window features (``ui.features``) added after the window's own,
        as File → Curate… by the studio (the compare package does not know the curation one)."""
        super().__init__(parent)
        self.settings = settings
        self._laid_out = False
        self.setWindowTitle("Compare — gindex-studio")
        self.dialogs = CompareDialogs(self)
        self.view = CompareView(library)
        self.setCentralWidget(self.view)
        self.controller = ExperimentController(self)
        self.tasks = ExperimentPanel()
        self.tasks_dock = QDockWidget("Experiment", self)
        self.tasks_dock.setObjectName("dock-experiment")
        self.tasks_dock.setWidget(self.tasks)
        # its title runs down its left edge (float and close on top): no title row over the table
        self.tasks_dock.setFeatures(self.tasks_dock.features() | QDockWidget.DockWidgetVerticalTitleBar)
        self.addDockWidget(Qt.BottomDockWidgetArea, self.tasks_dock)
        self.tasks_dock.hide()
        self.current_task: int | None = None
        self.current_attempt = 0
        self.system_run = None  # File → Run System…'s run (ui.compare.system_run), once one started
        self.run_bar = None
        self.run_dialog = None
        self.undo_group = QUndoGroup(self)
        for ed in self.view.editors.values():
            self.undo_group.addStack(ed.undo_stack)
        self.active_role = "reference"
        self.undo_group.setActiveStack(self.view.ref.undo_stack)
        self._build_panels()
        self._build_actions()
        self.status = QLabel("")
        self.statusBar().addPermanentWidget(self.status)
        self.view.message.connect(lambda m: self.statusBar().showMessage(m, 6000))
        self.view.edited.connect(self._on_view_edited)
        self.view.panel.options_changed.connect(self.controller.set_options)
        self.controller.result_changed.connect(self._on_gindex)
        self.controller.failed.connect(self._on_gindex_failed)
        self.controller.busy_changed.connect(lambda b: self.status.setText(self._busy_text() if b else ""))
        self.controller.started.connect(self.tasks.begin)
        self.controller.progress.connect(self.tasks.show_progress)
        self.controller.task_delta.connect(self.tasks.add_delta)
        self.controller.task_done.connect(self.tasks.complete)
        self.controller.cancelled.connect(self.tasks.show_cancelled)
        self.tasks.cancel_requested.connect(self.controller.cancel)
        self.tasks.restart_requested.connect(self.controller.recompute_all)
        self.controller.dirty_changed.connect(self._on_dirty)
        self.tasks.task_selected.connect(self.show_task)
        self.tasks.attempt_selected.connect(lambda k: self.current_task is not None and self.show_task(self.current_task, k))
        self.tasks.save_requested.connect(self.save_experiment)
        self.tasks.revert_requested.connect(self.revert_task)
        self._saved: dict[str, object] = {}  # role -> the flow's JSON as opened or last saved
        self._remember_saved()
        self.view.model.pair_changed.connect(self._remember_saved)
        QApplication.instance().focusChanged.connect(self._on_focus)
        self._follows_focus = True
        from gindex_studio.ui.nodered.compare_probes import ProbesFeature  # Run → Run Probes, beside Δ

        from gindex_studio.ui.workspace import WorkspaceFeature  # Window menu, File → Quit

        self.features = Features(self, self.registry, self.docks)
        self.features.add(ProbesFeature())
        for feature in features:  # File → Curate… where the studio opens the window
            self.features.add(feature)
        self.features.add(WorkspaceFeature())
        place(self, settings, "compare", (1600, 1000))  # within the screen; as left last time if it fits

    # ----- the editor's panels ------------------------------------------------------------------
    def _build_panels(self) -> None:
        """Palette (left), inspector and history (right): the flow editor's own widgets, pointed
        at whichever side was last selected on or focused."""
        self.palette = Palette(self.view.library)
        self.palette.activated.connect(self._palette_activated)
        self.inspector = Inspector()
        self.history = QUndoView(self.undo_group)
        self.history.setEmptyLabel("<opened>")
        self.docks: dict[str, QDockWidget] = add_docks(self, (
            ("palette", "Palette", self.palette, Qt.LeftDockWidgetArea),
            ("inspector", "Inspector", self.inspector, Qt.RightDockWidgetArea),
            ("history", "History", self.history, Qt.RightDockWidgetArea),
        ))
        self.docks["experiment"] = self.tasks_dock
        # one column of tabs on the right, so that the canvases get the width; each can be
        # closed, floated or shown again from the Panels menu, and the layout is remembered
        self.tabifyDockWidget(self.docks["inspector"], self.docks["palette"])
        self.tabifyDockWidget(self.docks["inspector"], self.docks["history"])
        self.docks["history"].hide()  # Panels → History shows it
        self.docks["inspector"].raise_()
        self.view.selection_changed.connect(self._on_selection)
        self._retarget("reference")  # (a replaced flow empties the inspector by itself)

    @property
    def active_editor(self):
        return self.view.editors[self.active_role]

    def _set_active(self, role: str) -> None:
        self.active_role = role
        self.undo_group.setActiveStack(self.view.editors[role].undo_stack)

    def _on_selection(self, role: str, node_id: str) -> None:
        """A node selected (or the selection cleared) on one side: that side is the active one."""
        self._set_active(role)
        self._inspect(role, node_id or None)

    def _retarget(self, role: str) -> None:
        """Point the inspector at ``role``'s side, on its single selected node if any."""
        ed = self.view.editors[role]
        sel = ed.scene.selected_node_ids()
        self._inspect(role, sel[0] if len(sel) == 1 else None)

    def _inspect(self, role: str, node_id: str | None) -> None:
        ed = self.view.editors[role]
        if node_id is not None and not ed.doc.has(node_id):
            node_id = None
        self.inspector.set_target(ed, node_id)
        word = self.view.sides[role].word
        self.docks["inspector"].setWindowTitle(f"Inspector ({word.lower()})")  # short: its tab and Palette's fit
        self.docks["inspector"].setToolTip(f"Edits the {word.lower()} program (undo: Ctrl+Z on that side)")

    def _palette_activated(self, type_id: str) -> None:
        """Double-click or Enter in the palette: add the type at the centre of the active side."""
        ed = self.active_editor
        c = ed.view.visible_scene_rect().center()
        ed.add_node(type_id, QPointF(c.x(), c.y()))

    # ----- actions ----------------------------------------------------------------------------
    def _on_active(self, fn):
        return lambda: fn(self.view.editors[self.active_role])

    #: the menus and their actions (ids of ``actions.ALL_SPECS``; None: a separator). The edit,
    #: zoom and layout actions are the editor window's own specs.
    MENUS = {
        "&File": ["compare.open_pair", "compare.paste", "compare.open_experiment", "compare.run_system", None,
                  "compare.save_experiment",
                  "compare.save_experiment_as", "compare.revert_task", None, "compare.save_reference",
                  "compare.save_generated", None, "compare.close"],
        "&Edit": ["edit.undo", "edit.redo", None, "edit.cut", "edit.copy", "edit.paste", "edit.delete",
                  "edit.select_all", "edit.quick_add", "arrange.layout"],
        "&View": ["view.arrange.auto", "view.arrange.side", "view.arrange.stacked", None, "view.link", "view.fit",
                  "view.zoom_in", "view.zoom_out", "view.text", None, "view.flatland_drawings"],
        "&Navigate": ["compare.next", "compare.previous", None, "compare.next_task", "compare.previous_task"],
        "&Author": ["compare.copy_node", "compare.attr_to_gen", "compare.attr_to_ref"],
    }

    def _build_actions(self) -> None:
        v = self.view
        ids = [i for items in self.MENUS.values() for i in items if i is not None]
        self.registry = ActionRegistry(self, ids)
        self.actions = self.registry.actions
        on = self._on_active
        slots = {
            "compare.open_pair": self.open_pair_dialog,
            "compare.paste": self.paste_dialog,
            "compare.open_experiment": self.open_experiment_dialog,
            "compare.run_system": self.run_system_dialog,
            "compare.save_experiment": self.save_experiment,
            "compare.save_experiment_as": self.save_experiment_as,
            "compare.revert_task": self.revert_task,
            "compare.save_reference": lambda: self.save_side("reference"),
            "compare.save_generated": lambda: self.save_side("generated"),
            "compare.close": self.close,
            "edit.undo": self.undo_group.undo,  # on the active side
            "edit.redo": self.undo_group.redo,
            "edit.cut": on(lambda e: e.cut()),
            "edit.copy": on(lambda e: e.copy()),
            "edit.paste": on(lambda e: e.paste()),
            "edit.delete": on(lambda e: e.delete_selection()),
            "edit.select_all": on(lambda e: e.select_all()),
            "edit.quick_add": on(lambda e: e.open_quick_add(e.view.cursor_scene_pos())),
            "arrange.layout": on(lambda e: e.auto_layout()),
            "view.link": v.set_linked,
            "view.fit": v.fit,
            "view.zoom_in": on(lambda e: e.view.zoom_in()),
            "view.zoom_out": on(lambda e: e.view.zoom_out()),
            "view.text": self._toggle_text,
            "view.flatland_drawings": self.open_flatland_drawings,
            "compare.next": v.next_difference,
            "compare.previous": v.previous_difference,
            "compare.next_task": lambda: self.step_task(1),
            "compare.previous_task": lambda: self.step_task(-1),
            "compare.copy_node": v.copy_selected_node,
            "compare.attr_to_gen": lambda: self._copy_attr("to-generated"),
            "compare.attr_to_ref": lambda: self._copy_attr("to-reference"),
        }
        for key, mode in (("auto", "auto"), ("side", "side-by-side"), ("stacked", "stacked")):
            self.registry.connect(f"view.arrange.{key}", lambda m=mode: self.set_arrangement(m), on_trigger=True)
        for aid, slot in slots.items():
            self.registry.connect(aid, slot)
        for title, items in self.MENUS.items():
            m = self.menuBar().addMenu(title)
            m.setToolTipsVisible(True)
            for aid in items:
                if aid is None:
                    m.addSeparator()
                else:
                    m.addAction(self.actions[aid])
        panels = self.menuBar().addMenu("&Panels")
        for key, d in self.docks.items():
            t = d.toggleViewAction()
            t.setObjectName(f"panels.{key}")
            panels.addAction(t)
        arrange = QActionGroup(self)
        for key in ("auto", "side", "stacked"):
            arrange.addAction(self.actions[f"view.arrange.{key}"])
        self.actions["view.arrange.auto"].setChecked(True)
        self.actions["compare.save_experiment"].setEnabled(False)
        self.actions["compare.save_experiment_as"].setEnabled(False)
        self.actions["compare.revert_task"].setEnabled(False)
        self.actions["compare.next_task"].setEnabled(False)
        self.actions["compare.previous_task"].setEnabled(False)
        self.actions["view.flatland_drawings"].setEnabled(False)  # while a Flatland experiment is open
        self.undo_group.canUndoChanged.connect(self.actions["edit.undo"].setEnabled)
        self.undo_group.canRedoChanged.connect(self.actions["edit.redo"].setEnabled)

    def set_arrangement(self, mode: str) -> None:
        """View → Arrange Sides: "auto", "side-by-side" or "stacked"."""
        self.view.set_arrangement(mode)
        key = {"auto": "auto", "side-by-side": "side", "stacked": "stacked"}[mode]
        self.actions[f"view.arrange.{key}"].setChecked(True)

    # ----- the layout: fitted to the screen, remembered -----------------------------------------
    def showEvent(self, e):
        super().showEvent(e)
        if not self._laid_out:
            self._laid_out = True
            if not self._restore_layout():
                self.lay_out_panels()

    def lay_out_panels(self) -> None:
        """Sizes for the window as it is now: the panel column and the score column take a
        share of the width (bounded), the canvases the rest."""
        w = self.width()
        self.resizeDocks([self.docks["inspector"]], [max(200, min(300, int(0.17 * w)))], Qt.Horizontal)
        right = max(RIGHT_MIN, min(400, int(0.22 * w)))
        ms = self.view.main_splitter
        ms.setSizes([max(1, ms.width() - right), right])
        self.view.show_legend(self.height() >= 900)  # a laptop: the legend is one click away
        rs = self.view.right
        rs.setSizes([int(0.6 * rs.height()), rs.height() - int(0.6 * rs.height())])

    def _experiment_height(self) -> int:
        """The experiment panel's height: eight rows of tasks on a short screen (the canvases keep
        the rest: 1366×768), up to a quarter of a taller window."""
        rows = self.tasks.height_for_rows()
        return rows if self.height() < 900 else max(rows, min(320, int(0.26 * self.height())))

    def _restore_layout(self) -> bool:
        st = self.settings
        if st is None or st.value("compare/version", 0, int) != self.STATE_VERSION:
            return False
        state = st.value("compare/state")
        splitter = st.value("compare/splitter")
        ok = bool(state) and self.restoreState(state, self.STATE_VERSION)
        if splitter:
            self.view.main_splitter.restoreState(splitter)
        self.set_arrangement(st.value("compare/arrangement", "auto", str))
        self.view.panel.show_options(st.value("compare/options", False, bool))
        self.view.show_legend(st.value("compare/legend", True, bool))
        if self.current_task is None and self.controller.experiment is None:
            self.tasks_dock.hide()  # shown when an experiment is opened
        return ok

    def save_layout(self) -> None:
        st = self.settings
        if st is None:
            return
        remember(self, st, "compare")
        st.setValue("compare/version", self.STATE_VERSION)
        st.setValue("compare/state", self.saveState(self.STATE_VERSION))
        st.setValue("compare/splitter", self.view.main_splitter.saveState())
        st.setValue("compare/arrangement", self.view.arrangement)
        st.setValue("compare/options", self.view.panel.options_box.isVisible())
        st.setValue("compare/legend", self.view.legend.isVisible())
        st.sync()

    def _toggle_text(self, on: bool) -> None:
        self.view.sides["generated"].source_box.setVisible(on and self.view.model_text is not None)

    def _copy_attr(self, direction: str) -> None:
        key = self.view.attr.selected_key()
        if key is not None:
            self.view.copy_attribute(key, direction)

    def _on_focus(self, _old, new) -> None:
        w = new
        while w is not None:
            for role, side in self.view.sides.items():
                if w is side:
                    if role != self.active_role or self.inspector.editor is not self.view.editors[role]:
                        self._set_active(role)
                        self._retarget(role)
                    return
            w = w.parentWidget()

    # ----- keeping edits ------------------------------------------------------------------------
    def _remember_saved(self) -> None:
        self._saved = {r: _as_saved(ed.doc) for r, ed in self.view.editors.items()}

    def unsaved_sides(self) -> list[str]:
        """The sides of a pair opened on its own (not an experiment task) whose program differs
        from what was opened or last saved."""
        if self.current_task is not None:
            return []
        return [r for r, ed in self.view.editors.items() if _as_saved(ed.doc) != self._saved.get(r)]

    def keep_edits(self, settle: bool = True) -> bool:
        """Before the programs on screen are replaced or closed: ask about unsaved edits (the
        experiment's, then the pair's). True: go on (saved or discarded); False: the user cancelled
        or a save failed, and nothing was replaced. ``settle`` False (Quit asking every window
        first): a discard is not recorded, so a later Cancel elsewhere leaves the edits unsaved."""
        c = self.controller
        if c.timer.isActive():
            c.recompute_now()  # the last edit goes into the experiment before asking
        if c.dirty and c.experiment is not None:
            answer = self.dialogs.ask_save(c.experiment.name)
            if answer == "cancel" or (answer == "save" and not self.save_experiment()):
                return False
            if answer == "discard" and settle:
                c.forget_edits()
        sides = self.unsaved_sides()
        if sides:
            names = " and ".join(f"the {r} program" for r in sides)
            answer = self.dialogs.ask_save(names)
            if answer == "cancel":
                return False
            if answer == "save" and not all(self.save_side(r) for r in sides):
                return False
            if settle:
                self._saved.update({r: _as_saved(self.view.editors[r].doc) for r in sides})
        return True

    def confirm_close(self) -> bool:
        """Quit's question (``ui.workspace``): may this window close? Asks as closing does, and
        discards nothing. A system run in progress is asked about first."""
        run = self.system_run
        if run is not None and run.running and not self.dialogs.ask_stop_run():
            return False
        return self.keep_edits(settle=False)

    def experiment_path(self) -> str | None:
        """The file of the experiment open here (ours, not the companion's), else None."""
        exp = self.controller.experiment
        return str(exp.path) if exp is not None and exp.path else None

    # ----- opening pairs ----------------------------------------------------------------------
    def open_pair(self, reference: str, generated: str | None = None, text: str | None = None) -> bool:
        """Open a pair: a reference file and a generated file (read leniently) or model text.
        Unsaved edits of what is on screen are asked about first."""
        if self._run_in_the_way() or not self.keep_edits():
            return False
        try:
            if generated is not None:
                self.view.load_files(reference, generated)
                gen_name = os.path.basename(generated)
            else:
                ref = read_reference_file(reference)
                self.view.set_generated_text_pair(ref, text or "", os.path.basename(reference), ref_path=reference)
                gen_name = "pasted model output"
        except FlowError as e:
            side = getattr(e, "side", "reference")
            self.dialogs.error(f"Cannot open the {side} program", str(e))
            return False
        self._leave_experiment()
        self.statusBar().clearMessage()  # messages were about the previous pair
        self.setWindowTitle(f"{os.path.basename(reference)} ↔ {gen_name} — Compare — gindex-studio")
        self.actions["view.text"].setChecked(self.view.sides["generated"].source_box.isVisible())
        return True

    def label_sides(self, reference: str, generated: str) -> None:
        """Name the two sides other than "Reference" and "Generated" (a curation pair: two
        curriculum or test programs), in their headers and the inspector's title."""
        for role, word in (("reference", reference), ("generated", generated)):
            self.view.sides[role].set_word(word)
        self._retarget(self.active_role)

    def open_pair_dialog(self) -> None:
        ans = self.dialogs.ask_pair(self.view.ref.doc.path or "")
        if ans:
            self.open_pair(*ans)

    def paste_dialog(self) -> None:
        ans = self.dialogs.ask_paste(self.view.ref.doc.path or "")
        if ans:
            ref, _gen, text = ans
            self.open_pair(ref, None, text if text is not None else "")

    def save_side(self, role: str) -> bool:
        ed = self.view.editors[role]
        path = self.dialogs.save_file(f"Save the {role} program", ed.doc.path or f"{role}.json")
        if not path:
            return False
        try:
            write_flow_file(ed.doc.flow, path)
        except OSError as e:
            self.dialogs.error("Cannot save", f"{path}: {e.strerror or e}")
            return False
        self._saved[role] = _as_saved(ed.doc)
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    # ----- experiments ------------------------------------------------------------------------
    def open_experiment(self, path: str, domains_dir: str | None = None, kind: str | None = None) -> bool:
        """Open an experiment file (``kind``: ``experiment_kind(path)`` when the caller knows it;
        a companion file asks for its domain folder)."""
        if kind is None:
            kind = experiment_kind(path)
        if self._run_in_the_way():
            return False
        if domains_dir is None and kind == COMPANION_KIND:
            domains_dir = self.dialogs.open_directory("The companion's domain folder (one folder of programs per domain)")
            if not domains_dir:
                return False
        if not self.keep_edits():
            return False
        try:
            self.controller.load(path, domains_dir)
        except ExperimentError as e:
            self.dialogs.error("Cannot open the experiment", str(e))
            return False
        self.current_task = None
        self.tasks._current_task = None
        was_hidden = self.tasks_dock.isHidden()
        self.tasks_dock.show()
        if was_hidden:
            self.resizeDocks([self.tasks_dock], [self._experiment_height()], Qt.Vertical)
        if self.controller.options is not None:
            self.view.options = self.controller.options
            self.view.panel.set_options(self.controller.options)
        exp = self.controller.experiment
        from gindex_studio.ui.flatland.experiment import is_flatland_experiment

        self.actions["view.flatland_drawings"].setEnabled(is_flatland_experiment(self))
        name = self.controller.experiment.name if self.controller.experiment else os.path.basename(path)
        self.setWindowTitle(f"{name} — Compare — gindex-studio")
        self.tasks.save_button.setEnabled(False)
        self.actions["compare.save_experiment_as"].setEnabled(exp is not None)
        for key in ("compare.next_task", "compare.previous_task"):
            self.actions[key].setEnabled(exp is not None)
        if exp is not None and self.controller.edited:
            self.statusBar().showMessage(
                f"{len(self.controller.edited)} tasks of this experiment hold what-if edits (✎ in the table): "
                "they are scored on the edits, not on the model's output", 12000)
        return True

    # ----- running a system ---------------------------------------------------------------------
    def run_system_dialog(self) -> None:
        """File → Run System…: the dialog, then the run in this window."""
        from gindex_studio.ui.compare.run_dialog import ask_run

        if not self._run_in_the_way():
            self.run_dialog = ask_run(self, self.run_system)  # (tests reach the open dialog here)

    def _run_in_the_way(self) -> bool:
        """True (and said) while a system run fills this window's table: nothing else opens here."""
        if self.system_run is not None and self.system_run.running:
            self.dialogs.error("A system run is in progress", "This window's task table is filling with a run: "
                               "cancel it first, or use another window (File → Run System… or Open Experiment…).")
            return True
        return False

    def run_system(self, config):
        """Run a system (``session.RunConfig``) here: the task table fills as each task's answers
        are scored, the g-index so far above it, the run's progress line with Cancel and Resume
        under it; once every attempt is answered the experiment written is opened as any other.
        Returns the ``SystemRun`` (None when one is running here already, or edits were kept)."""
        from gindex_studio.ui.compare.run_bar import RunBar
        from gindex_studio.ui.compare.system_run import SystemRun

        if not self._make_room_for_a_run():
            return None
        if self.run_bar is None:
            self.run_bar = RunBar()
            self.tasks.set_run_bar(self.run_bar)
            self.run_bar.cancel_requested.connect(lambda: self.system_run is not None and self.system_run.cancel())
            self.run_bar.resume_requested.connect(self._resume_run)
        run = self.system_run = SystemRun(config)
        run.started.connect(self.tasks.begin_run)
        run.scored.connect(self.tasks.put_task)
        run.progress.connect(self.run_bar.show_progress)
        run.failed.connect(self._on_run_failed)
        run.ended.connect(self._on_run_ended)
        self._start_run()
        return run

    def _resume_run(self) -> None:
        """Resume: whatever was opened here since the run stopped is left (edits kept or not, as
        on opening), and the table is the run's again."""
        if self.system_run is not None and not self.system_run.running and self._make_room_for_a_run():
            self._start_run()

    def _make_room_for_a_run(self) -> bool:
        """Close what this window shows (asking about unsaved edits); False when the user keeps it
        or a run fills the table already."""
        if self._run_in_the_way() or not self.keep_edits():
            return False
        self.controller.clear()
        self._leave_experiment()
        return True

    def _start_run(self) -> None:
        from gindex_studio.ui.compare.system_run import RunProgress

        self.run_bar.show()
        self.run_bar.show_progress(RunProgress())  # "preparing" (the last error hidden), Cancel offered
        self._run_title("running")
        self.tasks.prepare_run()
        self.statusBar().clearMessage()
        self.tasks_dock.show()  # (``_make_room_for_a_run`` hid it)
        self.resizeDocks([self.tasks_dock], [self._experiment_height()], Qt.Vertical)
        self.system_run.start()

    def _run_title(self, state: str) -> None:
        cfg = self.system_run.config
        self.setWindowTitle(f"{cfg.system} on {cfg.output.name} ({state}) — Compare — gindex-studio")

    def _on_run_failed(self, line: str) -> None:
        self._run_title("stopped")
        self.run_bar.show_failed(line)
        self.statusBar().showMessage(f"The run stopped: {line}", 12000)

    def _on_run_ended(self, how: str, path: str) -> None:
        if how == "finished":
            self.open_experiment(path)
            self.statusBar().showMessage(f"Run finished: wrote {path}", 8000)
        else:
            self._run_title("cancelled")
            self.statusBar().showMessage("Run cancelled: the answers received are kept in its log; Resume asks the rest",
                                         8000)

    def open_experiment_dialog(self) -> None:
        path = self.dialogs.open_file("Open an experiment", EXP_FILTER)
        if path:
            self.open_experiment(path)

    def _leave_experiment(self) -> None:
        self.current_task = None
        self.actions["view.flatland_drawings"].setEnabled(False)
        for key in ("compare.next_task", "compare.previous_task"):
            self.actions[key].setEnabled(False)
        self.tasks_dock.hide()

    def _busy_text(self) -> str:
        where = self.controller.scheduler
        return f"computing the g-index on the Dask cluster at {where}…" if where else "computing the g-index…"

    def open_flatland_drawings(self):
        """View → Flatland Drawings: the Flatland compare view of the task on screen (None when
        no Flatland task is shown)."""
        from gindex_studio.ui.flatland.experiment import open_task_drawings

        self.flatland_drawings = open_task_drawings(self)
        return self.flatland_drawings

    def _on_gindex_failed(self, message: str) -> None:
        self.tasks.set_busy(False)
        self.dialogs.error("g-index", message)

    def _on_gindex(self, res) -> None:
        c = self.controller
        self.tasks.set_busy(False)
        self.tasks.set_result(res, c.edited, c.previous_g, companion=c.mode == COMPANION_KIND, unsaved=c.unsaved)
        self._sync_revert()
        if self.current_task is not None and self.current_task < len(res.tasks):
            self.tasks.set_attempts(res.tasks[self.current_task], self.current_attempt)
        if self.current_task is None and res.tasks:
            # the worst task opens a frame later (``OPEN_WORST_DELAY_MS``): filling the table with
            # the result and opening two programs (then drawing them) are each tens of
            # milliseconds on the GUI thread; the table is painted and input answered between them
            QTimer.singleShot(OPEN_WORST_DELAY_MS, self, lambda r=res: self._open_worst(r))

    def _open_worst(self, res) -> None:
        """Open the worst task of ``res`` unless a task was opened meanwhile or ``res`` is stale."""
        if self.current_task is None and self.controller.result is res and res.tasks:
            worst = max(res.tasks, key=lambda t: (t.delta, -t.index))
            self.tasks.select_task(worst.index)

    def show_task(self, index: int, attempt: int = 0) -> None:
        """Show task ``index`` of the experiment, its ``attempt`` (0 = the first) on the generated
        side. Only the first attempt is edited in place (the core re-scores it); a later attempt
        is shown view only: its generated canvas takes no input."""
        c = self.controller
        if c.experiment is None and self.system_run is not None:
            self.statusBar().showMessage("The run has not finished: its tasks open in the compare view once it has "
                                         "(or open its experiment then)", 6000)
            return
        if c.experiment is None:
            t = c.result.tasks[index] if c.result else None
            if t is not None:
                self.statusBar().showMessage(
                    f"{t.id}: companion results hold per-domain divergences, not programs to compare "
                    f"(Δ = {t.delta:g} from the file)", 8000)
            return
        if c.timer.isActive():
            c.recompute_now()  # the edits of the task we leave go in first
        self.current_task = index
        task = c.experiment.tasks[index]
        opts = c.options or task and c.experiment.options
        self.view.options = opts
        self.view.panel.set_options(opts)
        attempts = task.attempts
        attempt = max(0, min(attempt, len(attempts) - 1))
        self.current_attempt = attempt
        shown = attempts[attempt]
        suffix = f", attempt {attempt + 1} of {len(attempts)}" if len(attempts) > 1 else ""
        ref = task.edited_reference if task.edited_reference is not None else task.reference
        gen, syntax, text, what = shown.generated, shown.syntax, shown.text, "model output"
        if attempt == 0 and task.edited_generated is not None:
            gen, syntax, text, what = task.edited_generated, None, None, "✎ what-if edit of the model output"
        self.view.set_pair(ref.copy(), gen.copy(), syntax, text,
                           ref_name=f"{task.id}" + (" (✎ what-if edit)" if task.edited_reference is not None else ""),
                           gen_name=f"{task.id} ({what}{suffix})")
        self.view.editors["generated"].setEnabled(attempt == 0)
        if attempt:
            self._set_active("reference")
        self.statusBar().clearMessage()
        if attempt:
            self.statusBar().showMessage(f"{task.id}: attempt {attempt + 1} of {len(attempts)}, view only "
                                         f"(edits in the compare view change attempt 1)")
        self.tasks.select_task(index, emit=False)
        if c.result is not None and index < len(c.result.tasks):
            self.tasks.set_attempts(c.result.tasks[index], attempt)
        self.actions["view.text"].setChecked(self.view.sides["generated"].source_box.isVisible())
        self._sync_revert()

    def step_task(self, step: int) -> bool:
        """Navigate → Next/Previous Task: the table's row ``step`` rows from the current task's
        (in the table's sort order and filter), shown and scrolled into view. False at either end."""
        if self.controller.experiment is None:
            return False
        k = self.tasks.neighbour(self.current_task, step)
        if k is None:
            return False
        self.show_task(k)
        return True

    def _sync_revert(self) -> None:
        """Revert to Model Output is offered while the current task holds a what-if edit."""
        c = self.controller
        on = (c.experiment is not None and self.current_task is not None
              and c.experiment.tasks[self.current_task].edited)
        self.actions["compare.revert_task"].setEnabled(bool(on))
        self.tasks.revert_button.setVisible(bool(on))

    def revert_task(self) -> bool:
        """The current task back to the model's recorded output (its what-if edits dropped; the
        canvases show the recorded programs again). False when it had no edits."""
        c, k = self.controller, self.current_task
        if c.experiment is None or k is None:
            return False
        if c.timer.isActive():
            c.recompute_now()
        if not c.revert([k]):
            return False
        self.show_task(k, 0)
        self.statusBar().showMessage(f"{c.experiment.tasks[k].id}: back to the model's output", 6000)
        return True

    def _on_view_edited(self, role: str) -> None:
        if self.current_task is None or self.controller.experiment is None:
            return
        if role == "generated" and self.current_attempt:
            self.statusBar().showMessage(f"attempt {self.current_attempt + 1} is view only: this change is not kept "
                                         f"(show attempt 1 to edit the task)", 8000)
            return  # never written into attempt 1
        ed = self.view.editors[role]
        provide = lambda ed=ed: ed.doc.flow.copy()  # noqa: E731 - read when the debounce fires
        if role == "reference":
            self.controller.task_edited(self.current_task, reference=provide)
        else:
            self.controller.task_edited(self.current_task, generated=provide)

    def _on_dirty(self, dirty: bool) -> None:
        self.actions["compare.save_experiment"].setEnabled(dirty)
        self.tasks.save_button.setEnabled(dirty)

    def save_experiment(self, path: str | None = None) -> bool:
        """Save the experiment (to ``path``, default where it was read): the model's output as
        recorded, the what-if edits beside it (``tasks[j].edited``). A file another program changed
        since it was read or saved here is not overwritten without asking (reload, overwrite, save
        as, or cancel), as in the flow editor."""
        c = self.controller
        if c.changed_on_disk(path):
            answer = self.dialogs.ask_changed_on_disk(str(c.experiment.path))
            if answer == "reload":
                c.forget_edits()
                self.open_experiment(str(c.experiment.path))
                return False
            if answer == "save_as":
                return self.save_experiment_as()
            if answer != "overwrite":
                return False
        try:
            out = c.save(path)
        except (ExperimentError, OSError) as e:
            self.dialogs.error("Cannot save the experiment", str(e))
            return False
        if c.result is not None:
            self.tasks.set_result(c.result, c.edited, companion=c.mode == COMPANION_KIND)
        n = len(c.edited)
        self.statusBar().showMessage(f"Saved {out}" + (f": {n} tasks' what-if edits kept beside the model's output"
                                                       if n else ""), 8000)
        if c.experiment is not None:
            self.setWindowTitle(f"{c.experiment.name} — Compare — gindex-studio")
        return True

    def save_experiment_as(self) -> bool:
        """File → Save Experiment As…: the same, to a file the user chooses."""
        c = self.controller
        if c.experiment is None:
            return False
        here = str(c.experiment.path) if c.experiment.path else "experiment.json"
        stem = here[:-5] if here.endswith(".json") else here
        path = self.dialogs.save_file("Save the experiment as", stem + "-edited.json", EXP_FILTER)
        return bool(path) and self.save_experiment(path)

    def closeEvent(self, e):
        from gindex_studio.ui.workspace import quitting

        c = self.controller
        run = self.system_run
        if run is not None and run.running and not quitting() and not self.dialogs.ask_stop_run():
            e.ignore()
            return
        if not quitting() and not self.keep_edits():  # Quit has asked already
            e.ignore()
            return
        if run is not None:
            run.detach()  # nothing more reaches this window; its threads end by themselves
        self.save_layout()
        if self._follows_focus:
            QApplication.instance().focusChanged.disconnect(self._on_focus)
            self._follows_focus = False
        # a long exact search stops now rather than delaying the close, and so does a g-index
        # computation (worker processes included); the window goes only once both have ended
        self.view.runner.cancel()
        c.runner.shutdown()
        self.view.runner.shutdown()
        e.accept()


def _as_saved(doc):
    """What saving ``doc`` would write, as an independent value (node data is edited in place)."""
    return copy.deepcopy(doc.flow.to_json_value())


# ----- entry points -----------------------------------------------------------------------------

WINDOWS: list[CompareWindow] = []


def open_compare(parent=None, reference: str | None = None, generated: str | None = None,
                 text: str | None = None, library=None, features=()) -> CompareWindow:
    """A new compare window (kept alive in ``WINDOWS``), showing the pair if one is given;
    ``features``: more window features (``CompareWindow``)."""
    win = CompareWindow(library, settings=QSettings("gindex-studio", "compare"), features=features)
    from gindex_studio.ui.preferences import apply_to_compare

    apply_to_compare(win)  # the preferred default profile and deadline
    WINDOWS.append(win)
    win.destroyed.connect(lambda *_: WINDOWS.remove(win) if win in WINDOWS else None)
    win.setAttribute(Qt.WA_DeleteOnClose, True)
    if reference:
        win.open_pair(reference, generated, text)
    win.show()
    return win

def main_compare(reference: str, generated: str, features=()) -> int:
    """``gindex-studio compare REF GEN``: the compare window on one pair until it is closed."""
    for path in (reference, generated):
        if not os.path.exists(path):
            print(f"gindex-studio compare: {path}: no such file", file=sys.stderr)
            return 1
    try:
        read_reference_file(reference)
    except FlowError as e:
        print(f"gindex-studio compare: {e}", file=sys.stderr)
        return 1
    app = studio_application()
    win = open_compare(None, reference, generated, features=features)
    win.setAttribute(Qt.WA_DeleteOnClose, False)
    return app.exec()
