"""File → Curate… in the studio's main window (a window feature). Light: the curation window (numpy, scipy,
pyqtgraph) loads when the action is first used, not when the studio starts. With a Dask
scheduler in the preferences, the window's searches run on that cluster (connected off the GUI
thread; a scheduler that does not answer is named in an error box and nothing opens)."""
from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, Signal

from gindex_studio.ui.features import Placement, WindowFeature


class _Connected(QObject):
    """Carries a connection attempt's outcome back to the GUI thread: (client, error line)."""

    done = Signal(object, str)


class CurateFeature(WindowFeature):
    """File → Curate… (the studio's and the compare window's): a window-modal dialog (``dialog``, not blocking) whose OK opens the curation
    window on the preferred cluster, if any (``connection``: the pending connection's relay)."""

    name = "curate"

    def __init__(self):
        self.dialog = None
        self.connection: _Connected | None = None

    def open_experiment(self) -> str | None:
        """The experiment open where the feature is (its window's ``experiment_path()``), which
        the dialog proposes; None when the window has none."""
        source = getattr(self.window, "experiment_path", None)
        return source() if callable(source) else None

    def actions(self):
        return {"file.curate": self.ask}

    def menus(self):
        return [Placement("File", ["file.curate", None], before="file.save")]

    def ask(self) -> None:
        from gindex_studio.ui.curation.open_dialog import CurateDialog

        dialog = self.dialog = CurateDialog(self.window, experiment=self.open_experiment())
        dialog.setAttribute(Qt.WA_DeleteOnClose, True)
        dialog.accepted.connect(lambda: self.open_on_preferred_cluster(dialog.choice()))
        dialog.open()

    def open_on_preferred_cluster(self, choice) -> None:
        """Open the curation window on ``choice`` (path, tasks), on the preferred cluster if any."""
        from gindex_studio.ui.cluster import ClusterError, client_for, preferred_scheduler
        from gindex_studio.ui.curation.window import open_curation

        main_window = self.window
        library = getattr(main_window, "library", None)
        address = preferred_scheduler()
        if not address:
            open_curation(*choice, library=library, parent=main_window, compare_features=lambda: [CurateFeature()])
            return
        main_window.statusBar().showMessage(f"Connecting to the Dask cluster at {address}…")
        relay = self.connection = _Connected(main_window)

        def opened(client, error: str) -> None:
            main_window.statusBar().clearMessage()
            if client is None:
                main_window.dialogs.error("Cannot curate on the cluster", error)
            else:
                open_curation(*choice, library=library, parent=main_window, client=client,
                              compare_features=lambda: [CurateFeature()])

        relay.done.connect(opened)

        def connect() -> None:
            try:
                relay.done.emit(client_for(address), "")
            except ClusterError as e:
                relay.done.emit(None, str(e))

        threading.Thread(target=connect, name="curate-connect", daemon=True).start()
