"""File → Analysis… and File → New Experiment from Outputs… in the studio's main window (a window
feature). Light: the Analysis window (scipy.stats, pyqtgraph) loads when an action is first used,
not when the studio starts."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from gindex_studio.ui.features import Placement, WindowFeature


class AnalysisFeature(WindowFeature):
    """File → Analysis… (open studies or experiments in a new Analysis window) and File → New
    Experiment from Outputs… (its build dialog)."""

    name = "analysis"

    def actions(self):
        return {"file.analysis": self.open, "file.new_experiment": self.build}

    def menus(self):
        return [Placement("File", ["file.analysis", "file.new_experiment"], before="file.save")]

    def open(self) -> None:
        from gindex_studio.ui.analysis.window import STUDY_FILTER, open_analysis, open_folder, remember_open_folder

        settings = getattr(self.window, "settings", None)
        paths, _ = QFileDialog.getOpenFileNames(self.window, "Open a study or experiments", open_folder(settings),
                                                STUDY_FILTER)
        if paths:
            remember_open_folder(paths, settings)
            open_analysis([str(Path(p)) for p in paths], getattr(self.window, "library", None))

    def build(self) -> None:
        from gindex_studio.ui.analysis.window import open_analysis

        win = open_analysis(None, getattr(self.window, "library", None))
        win.new_experiment_dialog()
