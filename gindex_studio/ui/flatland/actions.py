"""Flatland in the main window (a window feature): the Drawing dock (follows the current editor) and the Flatland
menu: Compare Flatland Programs…, Augment…, New Flatland Dataset…. The work of each menu entry is
a plain function (``augment_document``, ``write_new_dataset``, ``open_compare``) that the menu
calls after asking for its inputs, so tests and scripts call the same code. What needs numpy
(augmenting, data sets, the compare window) is imported when its entry is used, not at start-up."""
from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog

from gindex_studio.core.flatland import WORLD
from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.lisp import write_lisp
from gindex_studio.core.flatland.program import program_from_flow

from gindex_studio.ui.features import Placement, WindowFeature
from gindex_studio.ui.flatland.drawing import DrawingPanel


def augment_document(editor, n: int, seed: int, folder: str) -> list[Path]:
    """Write ``n`` seeded variants of the editor's program into ``folder``. A saved, unmodified
    ``.fbp`` / ``.lisp`` file is augmented from its text (its ``@param`` randomisers apply);
    otherwise the flat program on the canvas is. Raises FlatlandError."""
    from gindex_studio.core.flatland.augment import augment_to_folder

    path = editor.path
    if path and Path(path).suffix.lower() in (".fbp", ".lisp") and not editor.is_dirty():
        return augment_to_folder(path, n, seed, folder)
    program = program_from_flow(editor.doc.flow)
    stem = Path(path).stem if path else "program"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / f"{stem}.lisp"
        src.write_text(write_lisp(program), encoding="utf-8")
        return augment_to_folder(src, n, seed, folder)


def write_new_dataset(folder: str, seed: int, per_domain: int = 50, per_test_domain: int = 8) -> int:
    """Generate and write the paper's data set; returns the number of tasks."""
    from gindex_studio.core.flatland.dataset import generate, write_dataset

    return write_dataset(generate(seed, per_domain, per_test_domain), folder)


def open_compare(reference_path: str, generated_path: str, parent=None):
    """The compare window (a ``FlatlandCompare``) for two program files (the generated one read
    leniently)."""
    from gindex_studio.core.flatland.files import read_generated_file
    from gindex_studio.core.flatland.resolve import load_file

    from gindex_studio.ui.flatland.compare import FlatlandCompare

    gen = read_generated_file(generated_path)
    w = FlatlandCompare(load_file(reference_path), gen.program, title=f"Flatland: {Path(reference_path).name} vs "
                        f"{Path(generated_path).name}", parent=parent, syntax=gen.syntax)
    w.setWindowFlag(Qt.Window, True)
    w.setAttribute(Qt.WA_DeleteOnClose, True)
    w.show()
    return w


FLATLAND_CATEGORY = WORLD  # the node library's category of Flatland's node types


def is_flatland_document(doc) -> bool:
    """True when every node drawn in ``doc`` (at least one) is a Flatland node type: the
    documents the Drawing dock has something to draw for."""
    types = {doc.node(i).type for i in doc.node_ids() if doc.is_drawn(i)}
    if not types:
        return False
    return all((nt := doc.library.get(t)) is not None and nt.category == FLATLAND_CATEGORY for t in types)


class FlatlandFeature(WindowFeature):
    """The Drawing dock (``panel``: follows the current editor) and the Flatland menu of the
    studio's main window. The dock opens by itself on Flatland programs and closes on other
    flows, until the user shows or hides it by hand (Panels menu, its close button): from then on
    it stays as set (``follows_document``)."""

    name = WORLD  # the world's name (its menu and dock), not its scoring profile

    def __init__(self):
        self.panel = DrawingPanel()
        self.follows_document = True
        self.compare = None  # the last compare window opened from the menu
        self._doc = None  # the document whose changes place the dock
        self._tabbed = False

    def actions(self):
        return {"flatland.compare": self.ask_compare, "flatland.augment": self.ask_augment,
                "flatland.dataset": self.ask_dataset}

    def docks(self):
        return [("drawing", "Drawing", self.panel, Qt.RightDockWidgetArea)]

    def menus(self):
        return [Placement("Flatland", ["flatland.compare", "flatland.augment", "flatland.dataset", "panels.drawing"],
                          title="F&latland")]

    def attach(self, window) -> None:
        super().attach(window)
        dock = window.docks["drawing"]
        dock.hide()  # tabbed beside History when first shown: a hidden tab would still hold its height
        dock.toggleViewAction().triggered.connect(self._set_by_hand)
        window.tabs.currentChanged.connect(self.follow)
        self.panel.step_node.connect(self.select)
        self.follow()

    def _set_by_hand(self, _checked: bool) -> None:
        self.follows_document = False

    def place_dock(self) -> None:
        w = self.window
        dock, ed = w.docks["drawing"], w.editor
        if self.follows_document:
            want = ed is not None and is_flatland_document(ed.doc)
            if want != dock.isVisible() and not dock.isFloating():
                if want and not self._tabbed:
                    w.tabifyDockWidget(w.docks["history"], dock)
                    self._tabbed = True
                dock.blockSignals(True)
                dock.setVisible(want)
                if want:
                    dock.raise_()
                dock.blockSignals(False)

    def follow(self, _k=None) -> None:
        ed = self.window.editor
        self.panel.set_document(ed.doc if ed is not None else None)
        signals = ("flow_reset", "node_added", "node_removed")
        if self._doc is not None:
            for name in signals:
                try:
                    getattr(self._doc, name).disconnect(self.place_dock)
                except (RuntimeError, TypeError):
                    pass
        self._doc = ed.doc if ed is not None else None
        if ed is not None:
            for name in signals:
                getattr(ed.doc, name).connect(self.place_dock)
        self.place_dock()

    def select(self, node_id: str) -> None:
        ed = self.window.editor
        if ed is not None and ed.doc.has(node_id):
            ed.scene.select_nodes([node_id])

    def fail(self, title: str, e: Exception) -> None:
        self.window.dialogs.error(title, str(e))

    def ask_compare(self) -> None:
        w = self.window
        ref, _ = QFileDialog.getOpenFileName(w, "Reference program", "", "Flatland (*.fbp *.lisp *.json)")
        if not ref:
            return
        gen, _ = QFileDialog.getOpenFileName(w, "Generated program", "", "Flatland (*.fbp *.lisp *.json *.txt)")
        if gen:
            try:
                self.compare = open_compare(ref, gen, w)
            except FlatlandError as e:
                self.fail("Cannot compare", e)

    def _write_into_folder(self, caption: str, write, failure: str) -> None:
        """Ask for a folder; ``write(folder)`` returns the status bar's message."""
        folder = QFileDialog.getExistingDirectory(self.window, caption)
        if folder:
            try:
                self.window.statusBar().showMessage(write(folder), 8000)
            except (FlatlandError, OSError) as e:
                self.fail(failure, e)

    def ask_augment(self) -> None:
        w = self.window
        ed = w.editor
        if ed is None:
            return
        n, ok = QInputDialog.getInt(w, "Augment", "Variants:", 10, 1, 10_000)
        if not ok:
            return
        seed, ok = QInputDialog.getInt(w, "Augment", "Seed:", 0, 0, 2**31 - 1)
        if ok:
            self._write_into_folder("Folder for the variants", lambda folder: f"Wrote {n} variants "
                                    f"({len(augment_document(ed, n, seed, folder))} files) to {folder}", "Cannot augment")

    def ask_dataset(self) -> None:
        seed, ok = QInputDialog.getInt(self.window, "New Flatland Dataset", "Seed:", 0, 0, 2**31 - 1)
        if ok:
            self._write_into_folder("Folder for the data set", lambda folder: f"Wrote "
                                    f"{write_new_dataset(folder, seed)} Flatland tasks to {folder}",
                                    "Cannot write the data set")
