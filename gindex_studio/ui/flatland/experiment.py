"""Flatland experiments in the compare window: the work behind View → Flatland Drawings
(``view.flatland_drawings`` in ``ui.actions``, Ctrl+Shift+F), which opens the Flatland compare view
(task image, both drawings, their difference, Δ and image similarity) of the task on screen."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.profile import reads_flatland
from gindex_studio.core.flatland.program import program_from_flow

from gindex_studio.ui.flatland.compare import FlatlandCompare


def is_flatland_experiment(window) -> bool:
    exp = window.controller.experiment
    return exp is not None and reads_flatland(exp.profile)


def open_task_drawings(window) -> FlatlandCompare | None:
    """The Flatland compare view of ``window``'s current task (its reference and the generated
    program shown, as edited on the canvases), kept by the window as ``flatland_drawings``; None when no
    Flatland task is shown. A program that is no Flatland program any more (an edit added another
    node type) is reported in the window's status bar."""
    if not is_flatland_experiment(window) or window.current_task is None:
        window.statusBar().showMessage("Flatland drawings: open a Flatland experiment and choose a task", 6000)
        return None
    task = window.controller.experiment.tasks[window.current_task]
    try:
        ref = program_from_flow(window.view.editors["reference"].doc.flow)
        gen = program_from_flow(window.view.editors["generated"].doc.flow)
    except FlatlandError as e:
        window.statusBar().showMessage(f"Flatland drawings: {e}", 8000)
        return None
    syntax = window.view.model.current_syntax()  # the model text's error while the canvas shows what was read
    w = FlatlandCompare(ref, gen, title=f"Flatland: {task.id}", parent=window, syntax=syntax)
    w.setWindowFlag(Qt.Window, True)
    w.setAttribute(Qt.WA_DeleteOnClose, True)
    w.show()
    return w
