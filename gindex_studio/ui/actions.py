"""One registry of named actions: id, text, shortcut (Node-RED's where it has one), tooltip.

Menus, toolbars and tests look actions up by id; the tooltip always shows the shortcut.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

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
    ActionSpec("file.quit", "&Quit", "Ctrl+Q", "Quit the studio", "File"),
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


class ActionRegistry:
    """Creates one QAction per spec on ``parent``; ``connect(id, slot)`` wires it."""

    def __init__(self, parent):
        self.actions: dict[str, QAction] = {}
        self.specs = {s.id: s for s in SPECS}
        for spec in SPECS:
            a = QAction(spec.text, parent)
            a.setObjectName(spec.id)
            if spec.shortcut:
                a.setShortcut(QKeySequence(spec.shortcut))
            a.setCheckable(spec.checkable)
            keys = a.shortcut().toString(QKeySequence.NativeText)
            tip = spec.tip or spec.text.replace("&", "")
            a.setToolTip(f"{tip} ({keys})" if keys else tip)
            a.setStatusTip(tip)
            parent.addAction(a)
            self.actions[spec.id] = a

    def __getitem__(self, action_id: str) -> QAction:
        return self.actions[action_id]

    def connect(self, action_id: str, slot: Callable) -> None:
        a = self.actions[action_id]
        if a.isCheckable():
            a.toggled.connect(slot)
        else:
            a.triggered.connect(lambda _checked=False: slot())

    def menu_ids(self, menu: str) -> list[str]:
        return [s.id for s in SPECS if s.menu == menu]
