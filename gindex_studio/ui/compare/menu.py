"""File → Compare…, File → Open Experiment… and File → Run System… in the studio's main window (a window feature).
Light: the compare window's modules load when an action is first used, not when the studio starts."""
from __future__ import annotations

from gindex_studio.ui.features import Placement, WindowFeature


class CompareFeature(WindowFeature):
    """File → Compare… (a pair, the current flow proposed as the reference) and File → Open
    Experiment… (a new compare window on a chosen experiment) and File → Run System… (its dialog,
    then a new compare window on the run)."""

    name = "compare"

    def __init__(self, extras=lambda: []):
        """``extras()``: more features for each compare window it opens (File → Curate…)."""
        self.extras = extras
        self.dialog = None  # File → Run System…'s dialog, while open

    def actions(self):
        return {"file.compare": self.ask_and_open, "file.open_experiment": self.open_experiment,
                "file.run_system": self.run_system}

    def menus(self):
        return [Placement("File", ["file.compare", "file.open_experiment", "file.run_system", None], before="file.save")]

    def ask_and_open(self) -> None:
        from gindex_studio.ui.compare.window import CompareDialogs, open_compare

        ed = getattr(self.window, "editor", None)
        ref = ed.path if ed is not None and ed.path else ""
        ans = CompareDialogs(self.window).ask_pair(ref)
        if ans:
            open_compare(None, *ans, library=getattr(self.window, "library", None), features=self.extras())

    def open_experiment(self) -> None:
        from gindex_studio.ui.compare.window import EXP_FILTER, open_compare

        win = open_compare(None, library=getattr(self.window, "library", None), features=self.extras())
        path = win.dialogs.open_file("Open an experiment", EXP_FILTER)
        if path:
            win.open_experiment(path)

    def run_system(self) -> None:
        from gindex_studio.ui.compare.run_dialog import ask_run

        self.dialog = ask_run(self.window, self._start_run)  # (tests reach the open dialog here)

    def _start_run(self, config) -> None:
        from gindex_studio.ui.compare.window import open_compare

        win = open_compare(None, library=getattr(self.window, "library", None), features=self.extras())
        win.run_system(config)
