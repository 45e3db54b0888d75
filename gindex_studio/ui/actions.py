"""One registry of named actions: id, text, shortcut (Node-RED's where it has one), tooltip.

Every ``QAction`` of the studio is made here (Node-RED's ``RED.actions``): the specs below hold
every window's actions and so every shortcut, in one place; a window's ``ActionRegistry`` creates
the actions it uses, connects their handlers and places them in menus and toolbars by id; the
Keyboard Shortcuts list (F1's neighbour) and the Window menus read ``ActionRegistry.all()``.
Lists whose entries change at run time (recent files, config nodes) add theirs with
:func:`menu_entry`. The editor and compare windows share the edit specs (undo, redo, cut, copy,
paste, delete, select all, quick add, zoom, fit, auto-layout); ``COMPARE_SPECS`` are the compare
window's own, ``FEATURE_SPECS`` those of the window features (``ui.features``),
``CURATION_SPECS`` and ``ANALYSIS_SPECS`` those windows', ``WORKSPACE_SPECS`` the Window menu's
(every window's).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Callable, Sequence

from PySide6.QtGui import QAction, QKeySequence


@dataclass(frozen=True)
class ActionSpec:
    id: str
    text: str
    shortcut: str | QKeySequence.StandardKey | None = None
    tip: str = ""
    menu: str = ""
    checkable: bool = False


#: every named action of the studio (menu order). Node-RED's keymap: ctrl-c/x/v, delete, ctrl-z,
#: ctrl-y, ctrl-a, ctrl-= / ctrl-- / ctrl-0, ctrl-i import, ctrl-e export, alt-a l/r/c/t/b/m, ...
SPECS: list[ActionSpec] = [
    ActionSpec("file.new", "&New", "Ctrl+N", "Start an empty flow", "File"),
    ActionSpec("file.new_task", "New &Task", "Ctrl+Shift+N", "Start a benchmark task: title, prompt, domain and its reference flow", "File"),
    ActionSpec("file.as_task", "Save as Benchmark Tas&k", None, "Save this flow in the dataset shape {title, text, flow, name} (off: a bare array)", "File", True),
    ActionSpec("file.open", "&Open…", "Ctrl+O", "Open a flow, dataset or Node-RED flows file", "File"),
    ActionSpec("file.demo", "Open &demo program", None, "Open a program from the bundled demo data", "File"),
    ActionSpec("file.save", "&Save", "Ctrl+S", "Save (atomically) in the file's own shape", "File"),
    ActionSpec("file.save_as", "Save &As…", "Ctrl+Shift+S", "Save under a new name", "File"),
    ActionSpec("file.close", "&Close", "Ctrl+W", "Close this flow", "File"),
    ActionSpec("file.quit", "&Quit", "Ctrl+Q",
               "Quit the studio: every window closes, once each has asked about its unsaved edits", "File"),
    ActionSpec("edit.undo", "&Undo", "Ctrl+Z", "Undo the last edit", "Edit"),
    ActionSpec("edit.redo", "&Redo", "Ctrl+Y", "Redo", "Edit"),
    ActionSpec("edit.cut", "Cu&t", "Ctrl+X", "Cut the selected nodes", "Edit"),
    ActionSpec("edit.copy", "&Copy", "Ctrl+C", "Copy the selection as Node-RED JSON", "Edit"),
    ActionSpec("edit.paste", "&Paste", "Ctrl+V", "Paste Node-RED JSON or raw model output", "Edit"),
    ActionSpec("edit.delete", "&Delete", "Delete", "Delete the selected nodes and wires", "Edit"),
    ActionSpec("edit.select_all", "Select &All", "Ctrl+A", "Select every node of this workspace", "Edit"),
    ActionSpec("edit.find", "&Find…", "Ctrl+F", "Find a node by name, type or attribute value", "Edit"),
    ActionSpec("edit.find_next", "Find &Next", "F3", "Go to the next match", "Edit"),
    ActionSpec("edit.find_prev", "Find Pre&vious", "Shift+F3", "Go to the previous match", "Edit"),
    ActionSpec("edit.preferences", "Pre&ferences…", "Ctrl+,", "Theme, default profile and deadline, grid, library folders", "Edit"),
    ActionSpec("edit.quick_add", "&Quick add…", "Ctrl+Shift+A", "Add a node by typing its name (or just type on the canvas)", "Edit"),
    ActionSpec("view.zoom_in", "Zoom &In", "Ctrl+=", "Zoom in", "View"),
    ActionSpec("view.zoom_out", "Zoom &Out", "Ctrl+-", "Zoom out", "View"),
    ActionSpec("view.fit", "&Fit to Window", "Ctrl+0", "Show the whole workspace", "View"),
    ActionSpec("view.zoom_reset", "Actual &Size", "Ctrl+1", "Zoom to 100 %", "View"),
    ActionSpec("view.snap", "Snap to &Grid", "Ctrl+'", "Snap moved nodes to the grid", "View", True),
    ActionSpec("view.minimap", "&Navigator", "Ctrl+M", "Show the navigator (minimap)", "View", True),
    ActionSpec("arrange.layout", "&Auto-layout", "Ctrl+Shift+L", "Layered layout, left to right, few crossings (selection or workspace)", "Arrange"),
    ActionSpec("arrange.left", "Align &Left", "Alt+A, L", "Align the selection's left edges", "Arrange"),
    ActionSpec("arrange.center", "Align &Centre", "Alt+A, C", "Align the selection's centres vertically", "Arrange"),
    ActionSpec("arrange.right", "Align &Right", "Alt+A, R", "Align the selection's right edges", "Arrange"),
    ActionSpec("arrange.top", "Align &Top", "Alt+A, T", "Align the selection's top edges", "Arrange"),
    ActionSpec("arrange.middle", "Align &Middle", "Alt+A, M", "Align the selection's middles horizontally", "Arrange"),
    ActionSpec("arrange.bottom", "Align &Bottom", "Alt+A, B", "Align the selection's bottom edges", "Arrange"),
    ActionSpec("arrange.dist_h", "Distribute &Horizontally", "Alt+A, H", "Equal horizontal gaps", "Arrange"),
    ActionSpec("arrange.dist_v", "Distribute &Vertically", "Alt+A, V", "Equal vertical gaps", "Arrange"),
    ActionSpec("help.guide", "User &Guide", "F1", "The user guide: authoring, debugging, curating", "Help"),
    ActionSpec("help.shortcuts", "&Keyboard Shortcuts", "Ctrl+/", "Every command that has a key", "Help"),
    ActionSpec("help.about", "&About gindex-studio", None, "Versions of the studio and of what it runs on", "Help"),
]


#: the compare window's own actions (its edit and view actions are the ones above, by id)
COMPARE_SPECS: list[ActionSpec] = [
    ActionSpec("compare.open_pair", "Open &Pair…", "Ctrl+O", "Choose a reference and a generated program", "File"),
    ActionSpec("compare.paste", "Compare with Pasted &Model Output…", None,
               "Keep the reference, read the generated program from pasted text", "File"),
    ActionSpec("compare.open_experiment", "Open &Experiment…", "Ctrl+Shift+O",
               "Open an experiment (ours, or the companion's files with their domain folder)", "File"),
    ActionSpec("compare.run_system", "&Run System…", None,
               "Ask a model or a baseline for every task and watch its answers scored as they arrive", "File"),
    ActionSpec("compare.save_experiment", "&Save Experiment", "Ctrl+S",
               "Save the what-if edits beside the model's output in the experiment file (the output is kept)", "File"),
    ActionSpec("compare.save_experiment_as", "Save Experiment &As…", "Ctrl+Shift+S",
               "Save the experiment, with its what-if edits beside the model's output, to a new file", "File"),
    ActionSpec("compare.revert_task", "Re&vert to Model Output", None,
               "Drop the current task's what-if edits: score the model's recorded output again", "File"),
    ActionSpec("compare.save_reference", "Save &Reference As…", None, "Save Reference As", "File"),
    ActionSpec("compare.save_generated", "Save &Generated As…", None, "Save Generated As", "File"),
    ActionSpec("compare.close", "&Close", "Ctrl+W", "Close", "File"),
    ActionSpec("view.arrange.auto", "Arrange Sides &Automatically", None,
               "Side by side or one above the other, whichever shows both programs larger", "View", True),
    ActionSpec("view.arrange.side", "Sides Side &by Side", None, "The reference on the left, the model's program on the right",
               "View", True),
    ActionSpec("view.arrange.stacked", "Sides &Stacked", None, "The reference above the model's program (wide flows on a small screen)",
               "View", True),
    ActionSpec("view.link", "&Link Zoom and Scroll", "Ctrl+L", "Zoom and scroll both sides together", "View", True),
    ActionSpec("view.text", "Model &Text", None, "Show the generated program's text", "View", True),
    ActionSpec("view.flatland_drawings", "&Flatland Drawings", "Ctrl+Shift+F",
               "The task image and both programs' drawings, their difference, Δ and image similarity "
               "(a Flatland experiment's task)", "View"),
    ActionSpec("compare.next", "&Next Difference", "F8", "Select the next difference (exactly it)", "Navigate"),
    ActionSpec("compare.previous", "&Previous Difference", "Shift+F8", "Select the previous difference (exactly it)", "Navigate"),
    ActionSpec("compare.next_task", "Next &Task", "Ctrl+PgDown",
               "Show the experiment's next task (the task table's next row, in its order and filter)", "Navigate"),
    ActionSpec("compare.previous_task", "Previous T&ask", "Ctrl+PgUp",
               "Show the experiment's previous task (the task table's row above)", "Navigate"),
    ActionSpec("compare.copy_node", "Copy &Node Across", "Ctrl+Shift+N",
               "Add the selected missing (or extra) node to the other program, with its wires to mapped nodes", "Author"),
    ActionSpec("compare.attr_to_gen", "Copy Attribute to &Generated", "Ctrl+Shift+Right", "Copy Attribute to Generated", "Author"),
    ActionSpec("compare.attr_to_ref", "Copy Attribute to &Reference", "Ctrl+Shift+Left", "Copy Attribute to Reference", "Author"),
]

#: the actions window features add (``ui.features``): the main window's other windows, Run and
#: Flatland menus, and the compare window's probes
FEATURE_SPECS: list[ActionSpec] = [
    ActionSpec("file.compare", "Co&mpare…", "Ctrl+Shift+D", "Compare a reference with a generated program", "File"),
    ActionSpec("file.open_experiment", "Open E&xperiment…", None,
               "Open an experiment: task table, g-index and the compare view", "File"),
    ActionSpec("file.run_system", "&Run System…", None,
               "Ask a model or a baseline for every task and watch its answers scored as they arrive "
               "in a compare window", "File"),
    ActionSpec("file.analysis", "&Analysis…", None, "Compare systems: open a study or experiments in the Analysis window",
               "File"),
    ActionSpec("file.new_experiment", "New Experiment from &Outputs…", None,
               "Build an experiment from a curriculum folder, reference tasks and JSONL model outputs, "
               "and open it in the Analysis window", "File"),
    ActionSpec("file.curate", "C&urate…", None,
               "Curate a curriculum: Δ heatmap, near-duplicates, leaks, coverage, the split", "File"),
    ActionSpec("run.deploy", "Deploy && run", "F5",
               "Deploy the flow in Node-RED and run it; problems go to Problems, messages to Debug", "Run"),
    ActionSpec("run.lint", "&Lint", "Shift+F5", "nrlint's rules (chosen in Preferences) on the flow; findings go to Problems",
               "Run"),
    ActionSpec("run.probes", "Run &Probes", "Ctrl+F5",
               "Run both programs in Node-RED on the same probes and show beside Δ whether they behave alike", "Run"),
    ActionSpec("flatland.compare", "&Compare Flatland Programs…", None, "Compare two Flatland program files", "Flatland"),
    ActionSpec("flatland.augment", "&Augment…", None, "Write seeded variants of this Flatland program", "Flatland"),
    ActionSpec("flatland.dataset", "New Flatland &Dataset…", None, "Generate and write the paper's Flatland data set",
               "Flatland"),
]

#: the curation window's actions (its undo and redo are the edit specs above)
CURATION_SPECS: list[ActionSpec] = [
    ActionSpec("curation.save", "&Save Split as Experiment…", QKeySequence.Save, "Save the split as an experiment file",
               "File"),
    ActionSpec("curation.close", "&Close", "Ctrl+W", "Close this window", "File"),
]

#: the Analysis window's actions
ANALYSIS_SPECS: list[ActionSpec] = [
    ActionSpec("analysis.add", "&Add Experiment…", "Ctrl+O", "Add an experiment to the study", "File"),
    ActionSpec("analysis.new", "&New Experiment from Outputs…", "Ctrl+N",
               "Build an experiment from a curriculum folder, reference tasks and JSONL model outputs", "File"),
    ActionSpec("analysis.save_study", "&Save Study As…", "Ctrl+S", "Save the study (its experiments) to a file", "File"),
    ActionSpec("analysis.report", "Export &Report…", "Ctrl+E", "Export the tables and figures as a report", "File"),
    ActionSpec("analysis.close", "&Close", "Ctrl+W", "Close this window", "File"),
]

#: the Window menu every window has (``ui.workspace``): entry k is the k-th open window
WORKSPACE_SPECS: list[ActionSpec] = [
    ActionSpec(f"window.{k}", f"Window &{k}", f"Alt+{k}", f"Bring the studio's window number {k} to the front",
               "Window", True)
    for k in range(1, 10)
]

ALL_SPECS: dict[str, ActionSpec] = {s.id: s for s in SPECS + COMPARE_SPECS + FEATURE_SPECS + CURATION_SPECS
                                    + ANALYSIS_SPECS + WORKSPACE_SPECS}


def _make(spec: ActionSpec, parent) -> QAction:
    """The one place a QAction is built from a spec: text, shortcut, checkable, tooltip with keys."""
    a = QAction(spec.text, parent)
    a.setObjectName(spec.id)
    if spec.shortcut:
        a.setShortcut(QKeySequence(spec.shortcut))
    a.setCheckable(spec.checkable)
    keys = a.shortcut().toString(QKeySequence.NativeText)
    tip = spec.tip or spec.text.replace("&", "")
    a.setToolTip(f"{tip} ({keys})" if keys else tip)
    a.setStatusTip(tip)
    return a


def menu_entry(menu, text: str, slot: Callable | None = None) -> QAction:
    """An entry of a list that changes at run time (recent files, config nodes): not a named
    command, so not in the registry; ``slot`` is called with nothing when it is chosen."""
    a = QAction(text, menu)
    if slot is None:
        a.setEnabled(False)
    else:
        a.triggered.connect(lambda _checked=False: slot())
    menu.addAction(a)
    return a


class ActionRegistry:
    """Creates one QAction per spec on ``parent`` (``ids``: these specs of ``ALL_SPECS``, in this
    order; default: every spec of the editor window); ``add`` creates more (a feature's),
    ``connect(id, slot)`` wires one, ``place`` puts them in a menu or toolbar by id and ``all``
    lists them (the shortcuts list)."""

    def __init__(self, parent, ids: Sequence[str] | None = None):
        self._parent = weakref.ref(parent)  # the window holds the registry: no reference cycle
        self.actions: dict[str, QAction] = {}
        self.specs: dict[str, ActionSpec] = {}
        for spec in (SPECS if ids is None else [ALL_SPECS[i] for i in ids]):
            self.add(spec.id)

    def add(self, action_id: str, slot: Callable | None = None) -> QAction:
        """The action of spec ``action_id`` (made once, on the parent, which gets its shortcut);
        ``slot`` connected as by :meth:`connect`."""
        if action_id not in self.actions:
            spec = self.specs[action_id] = ALL_SPECS[action_id]
            parent = self._parent()
            a = self.actions[action_id] = _make(spec, parent)
            parent.addAction(a)
        if slot is not None:
            self.connect(action_id, slot)
        return self.actions[action_id]

    def adopt(self, action_id: str, action: QAction) -> QAction:
        """An action Qt makes (a dock's show/hide toggle), placeable and listed by ``action_id``."""
        action.setObjectName(action_id)
        self.actions[action_id] = action
        return action

    def set_icons(self, colour: str) -> None:
        """Each action's icon (``icons.ACTION_ICONS``, by id) drawn in ``colour`` (none without
        qtawesome, or for an action that has no icon)."""
        from gindex_studio.ui.icons import action_icon

        for aid, a in self.actions.items():
            icon = action_icon(aid, colour)
            if icon is not None:
                a.setIcon(icon)

    def __getitem__(self, action_id: str) -> QAction:
        return self.actions[action_id]

    def __contains__(self, action_id: str) -> bool:
        return action_id in self.actions

    def all(self) -> list[QAction]:
        """Every action of this registry, in the order made."""
        return list(self.actions.values())

    def connect(self, action_id: str, slot: Callable, on_trigger: bool = False) -> None:
        """A checkable action passes its state to ``slot`` (``on_trigger``: called with nothing
        when the user triggers it, as for the choices of an exclusive group)."""
        a = self.actions[action_id]
        if a.isCheckable() and not on_trigger:
            a.toggled.connect(slot)
        else:
            a.triggered.connect(lambda _checked=False: slot())

    def place(self, container, ids: Sequence[str | None], before: str | None = None) -> None:
        """Put the actions ``ids`` (None: a separator) into a menu or toolbar, at its end or
        before the action named ``before`` when it holds one."""
        anchor = next((a for a in container.actions() if before and a.objectName() == before), None)
        for aid in ids:
            if anchor is None:
                container.addSeparator() if aid is None else container.addAction(self.actions[aid])
            elif aid is None:
                container.insertSeparator(anchor)
            else:
                container.insertAction(anchor, self.actions[aid])

    def menu_ids(self, menu: str) -> list[str]:
        return [i for i, s in self.specs.items() if s.menu == menu]
