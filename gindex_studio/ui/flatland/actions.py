"""Flatland in the main window: the Drawing dock (follows the current editor) and the Flatland
menu: Compare Flatland Programs…, Augment…, New Flatland Dataset…. The work of each menu entry is
a plain function (``augment_document``, ``write_new_dataset``, ``open_compare``) that the menu
calls after asking for its inputs, so tests and scripts call the same code. What needs numpy
(augmenting, data sets, the compare window) is imported when its entry is used, not at start-up."""
from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QFileDialog, QInputDialog

from gindex_studio.core.flatland import WORLD
from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.lisp import write_lisp
from gindex_studio.core.flatland.program import program_from_flow

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


def install_actions(main_window) -> None:
    """Add the Drawing dock and the Flatland menu to the studio's main window."""
    panel = DrawingPanel()
    dock = QDockWidget("Drawing", main_window)
    dock.setObjectName("dock-drawing")
    dock.setWidget(panel)
    main_window.addDockWidget(Qt.RightDockWidgetArea, dock)
    dock.hide()  # tabbed beside History when first shown: a hidden tab would still hold its height
    main_window.docks["drawing"] = dock
    main_window.drawing = panel

    # The dock opens by itself on Flatland programs and closes on other flows, until the user
    # shows or hides it by hand (Panels menu, its close button): from then on it stays as set.
    auto = {"on": True, "doc": None}

    def place_dock() -> None:
        ed = main_window.editor
        if auto["on"]:
            want = ed is not None and is_flatland_document(ed.doc)
            if want != dock.isVisible() and not dock.isFloating():
                if want and not auto.get("tabbed"):
                    main_window.tabifyDockWidget(main_window.docks["history"], dock)
                    auto["tabbed"] = True
                dock.blockSignals(True)
                dock.setVisible(want)
                if want:
                    dock.raise_()
                dock.blockSignals(False)

    def follow(_k=None) -> None:
        ed = main_window.editor
        panel.set_document(ed.doc if ed is not None else None)
        signals = ("flow_reset", "node_added", "node_removed")
        if auto["doc"] is not None:
            for name in signals:
                try:
                    getattr(auto["doc"], name).disconnect(place_dock)
                except (RuntimeError, TypeError):
                    pass
        auto["doc"] = ed.doc if ed is not None else None
        if ed is not None:
            for name in signals:
                getattr(ed.doc, name).connect(place_dock)
        place_dock()

    dock.toggleViewAction().triggered.connect(lambda _c: auto.update(on=False))
    main_window.drawing_follows_document = lambda: auto["on"]

    def select(node_id: str) -> None:
        ed = main_window.editor
        if ed is not None and ed.doc.has(node_id):
            ed.scene.select_nodes([node_id])

    main_window.tabs.currentChanged.connect(follow)
    panel.step_node.connect(select)
    follow()

    menu = main_window.menuBar().addMenu("F&latland")
    main_window.flatland_menu = menu

    def fail(title: str, e: Exception) -> None:
        main_window.dialogs.error(title, str(e))

    def ask_compare() -> None:
        ref, _ = QFileDialog.getOpenFileName(main_window, "Reference program", "", "Flatland (*.fbp *.lisp *.json)")
        if not ref:
            return
        gen, _ = QFileDialog.getOpenFileName(main_window, "Generated program", "", "Flatland (*.fbp *.lisp *.json *.txt)")
        if gen:
            try:
                main_window.flatland_compare = open_compare(ref, gen, main_window)
            except FlatlandError as e:
                fail("Cannot compare", e)

    def ask_augment() -> None:
        ed = main_window.editor
        if ed is None:
            return
        n, ok = QInputDialog.getInt(main_window, "Augment", "Variants:", 10, 1, 10_000)
        if not ok:
            return
        seed, ok = QInputDialog.getInt(main_window, "Augment", "Seed:", 0, 0, 2**31 - 1)
        if not ok:
            return
        folder = QFileDialog.getExistingDirectory(main_window, "Folder for the variants")
        if folder:
            try:
                written = augment_document(ed, n, seed, folder)
                main_window.statusBar().showMessage(f"Wrote {n} variants ({len(written)} files) to {folder}", 8000)
            except (FlatlandError, OSError) as e:
                fail("Cannot augment", e)

    def ask_dataset() -> None:
        seed, ok = QInputDialog.getInt(main_window, "New Flatland Dataset", "Seed:", 0, 0, 2**31 - 1)
        if not ok:
            return
        folder = QFileDialog.getExistingDirectory(main_window, "Folder for the data set")
        if folder:
            try:
                n = write_new_dataset(folder, seed)
                main_window.statusBar().showMessage(f"Wrote {n} Flatland tasks to {folder}", 8000)
            except (FlatlandError, OSError) as e:
                fail("Cannot write the data set", e)

    for name, text, slot in (("flatland.compare", "&Compare Flatland Programs…", ask_compare),
                             ("flatland.augment", "&Augment…", ask_augment),
                             ("flatland.dataset", "New Flatland &Dataset…", ask_dataset)):
        a = QAction(text, main_window)
        a.setObjectName(name)
        a.triggered.connect(lambda _c=False, s=slot: s())
        menu.addAction(a)
    menu.addAction(dock.toggleViewAction())
