"""File → Curate… in the studio's main window. Light: the curation window (numpy, scipy,
pyqtgraph) loads when the action is first used, not when the studio starts."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction


def install_actions(main_window) -> None:
    """Add File → Curate… to the studio's main window."""
    action = QAction("C&urate…", main_window)
    action.setObjectName("file.curate")
    action.setToolTip("Curate a curriculum: Δ heatmap, near-duplicates, leaks, coverage, the split")

    def ask() -> None:
        """The dialog opens window-modal (not blocking); its OK opens the curation window."""
        from .open_dialog import CurateDialog
        from .window import open_curation

        dialog = CurateDialog(main_window)
        dialog.setAttribute(Qt.WA_DeleteOnClose, True)
        dialog.accepted.connect(lambda: open_curation(*dialog.choice(), library=getattr(main_window, "library", None),
                                                      parent=main_window))
        main_window.curate_dialog = dialog
        dialog.open()

    action.triggered.connect(lambda _c=False: ask())
    main_window.addAction(action)
    file_menu = next((a.menu() for a in main_window.menuBar().actions()
                      if a.menu() is not None and a.text().replace("&", "") == "File"), None)
    if file_menu is not None:
        file_menu.addAction(action)
    main_window.curate_action = action
