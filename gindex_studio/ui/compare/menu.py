"""File → Compare… and File → Open Experiment… in the studio's main window. Light: the compare
window's modules load when an action is first used, not when the studio starts."""
from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence


def install_actions(main_window) -> None:
    """Add File → Compare… and File → Open Experiment… to the studio's main window."""
    file_menu = next((a.menu() for a in main_window.menuBar().actions()
                      if a.menu() is not None and a.text().replace("&", "") == "File"), None)
    compare = QAction("Co&mpare…", main_window)
    compare.setObjectName("file.compare")
    compare.setShortcut(QKeySequence("Ctrl+Shift+D"))
    compare.setToolTip("Compare a reference with a generated program (Ctrl+Shift+D)")

    def ask_and_open():
        from gindex_studio.ui.compare.window import CompareDialogs, open_compare

        ed = getattr(main_window, "editor", None)
        ref = ed.path if ed is not None and ed.path else ""
        ans = CompareDialogs(main_window).ask_pair(ref)
        if ans:
            open_compare(None, *ans, library=getattr(main_window, "library", None))

    compare.triggered.connect(lambda _c=False: ask_and_open())
    experiment = QAction("Open E&xperiment…", main_window)
    experiment.setObjectName("file.open_experiment")
    experiment.setToolTip("Open an experiment: task table, g-index and the compare view")

    def open_exp():
        from gindex_studio.ui.compare.window import EXP_FILTER, open_compare

        win = open_compare(None, library=getattr(main_window, "library", None))
        path = win.dialogs.open_file("Open an experiment", EXP_FILTER)
        if path:
            win.open_experiment(path)

    experiment.triggered.connect(lambda _c=False: open_exp())
    main_window.addAction(compare)
    main_window.addAction(experiment)
    if file_menu is not None:
        before = next((a for a in file_menu.actions() if a.objectName() == "file.save"), None)
        if before is not None:
            file_menu.insertAction(before, compare)
            file_menu.insertAction(before, experiment)
            file_menu.insertSeparator(before)
        else:
            file_menu.addAction(compare)
            file_menu.addAction(experiment)
    main_window.compare_actions = {"file.compare": compare, "file.open_experiment": experiment}
