"""File → Curate… in the studio's main window. Light: the curation window (numpy, scipy,
pyqtgraph) loads when the action is first used, not when the studio starts. With a Dask
scheduler in the preferences, the window's searches run on that cluster (connected off the GUI
thread; a scheduler that does not answer is named in an error box and nothing opens)."""
from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction


class _Connected(QObject):
    """Carries a connection attempt's outcome back to the GUI thread: (client, error line)."""

    done = Signal(object, str)


def open_on_preferred_cluster(main_window, choice) -> None:
    """Open the curation window on ``choice`` (path, tasks), on the preferred cluster if any."""
    from gindex_studio.ui.cluster import ClusterError, client_for, preferred_scheduler
    from gindex_studio.ui.curation.window import open_curation

    library = getattr(main_window, "library", None)
    address = preferred_scheduler()
    if not address:
        open_curation(*choice, library=library, parent=main_window)
        return
    main_window.statusBar().showMessage(f"Connecting to the Dask cluster at {address}…")
    relay = main_window.curate_connection = _Connected(main_window)

    def opened(client, error: str) -> None:
        main_window.statusBar().clearMessage()
        if client is None:
            main_window.dialogs.error("Cannot curate on the cluster", error)
        else:
            open_curation(*choice, library=library, parent=main_window, client=client)

    relay.done.connect(opened)

    def connect() -> None:
        try:
            relay.done.emit(client_for(address), "")
        except ClusterError as e:
            relay.done.emit(None, str(e))

    threading.Thread(target=connect, name="curate-connect", daemon=True).start()


def install_actions(main_window) -> None:
    """Add File → Curate… to the studio's main window."""
    action = QAction("C&urate…", main_window)
    action.setObjectName("file.curate")
    action.setToolTip("Curate a curriculum: Δ heatmap, near-duplicates, leaks, coverage, the split")

    def ask() -> None:
        """The dialog opens window-modal (not blocking); its OK opens the curation window."""
        from gindex_studio.ui.curation.open_dialog import CurateDialog

        dialog = CurateDialog(main_window)
        dialog.setAttribute(Qt.WA_DeleteOnClose, True)
        dialog.accepted.connect(lambda: open_on_preferred_cluster(main_window, dialog.choice()))
        main_window.curate_dialog = dialog
        dialog.open()

    action.triggered.connect(lambda _c=False: ask())
    main_window.addAction(action)
    file_menu = next((a.menu() for a in main_window.menuBar().actions()
                      if a.menu() is not None and a.text().replace("&", "") == "File"), None)
    if file_menu is not None:  # above Quit (and its separator), with the other windows' entries
        quit_ = next((a for a in file_menu.actions() if a.objectName() == "file.quit"), None)
        before = quit_
        if quit_ is not None:
            acts = file_menu.actions()
            k = acts.index(quit_)
            if k > 0 and acts[k - 1].isSeparator():
                before = acts[k - 1]
        file_menu.insertAction(before, action) if before is not None else file_menu.addAction(action)
    main_window.curate_action = action
