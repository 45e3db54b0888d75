"""File → Analysis… and File → New Experiment from Outputs… in the studio's main window. Light:
the Analysis window (scipy.stats, pyqtgraph) loads when an action is first used, not when the
studio starts."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog


def install_actions(main_window) -> None:
    """File → Analysis… (open studies or experiments in a new Analysis window)."""
    act = QAction("&Analysis…", main_window)
    act.setObjectName("file.analysis")
    act.setToolTip("Compare systems: open a study or experiments in the Analysis window")

    def run():
        from gindex_studio.ui.analysis.window import STUDY_FILTER, open_analysis, open_folder, remember_open_folder

        settings = getattr(main_window, "settings", None)
        paths, _ = QFileDialog.getOpenFileNames(main_window, "Open a study or experiments", open_folder(settings),
                                                STUDY_FILTER)
        if paths:
            remember_open_folder(paths, settings)
            open_analysis([str(Path(p)) for p in paths], getattr(main_window, "library", None))

    act.triggered.connect(lambda _c=False: run())
    build = QAction("New Experiment from &Outputs…", main_window)
    build.setObjectName("file.new_experiment")
    build.setToolTip("Build an experiment from a curriculum folder, reference tasks and JSONL model outputs, "
                     "and open it in the Analysis window")

    def run_build():
        from gindex_studio.ui.analysis.window import open_analysis

        win = open_analysis(None, getattr(main_window, "library", None))
        win.new_experiment_dialog()

    build.triggered.connect(lambda _c=False: run_build())
    file_menu = next((a.menu() for a in main_window.menuBar().actions()
                      if a.menu() is not None and a.text().replace("&", "") == "File"), None)
    for a in (act, build):
        main_window.addAction(a)
        if file_menu is not None:
            before = next((x for x in file_menu.actions() if x.objectName() == "file.save"), None)
            file_menu.insertAction(before, a) if before is not None else file_menu.addAction(a)
    main_window.analysis_action = act
    main_window.new_experiment_action = build
