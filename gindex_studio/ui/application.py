"""The one QApplication of a studio process, named and with the studio's icon (window title
bars, task bars and the X server's _NET_WM_ICON all take it from here)."""
from __future__ import annotations

import sys

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from gindex_studio.paths import APP_ICON, APP_NAME

from gindex_studio.ui.gui_gc import collect_on_gui_thread


def studio_application() -> QApplication:
    """The running QApplication, created on first use with the studio's name and icon; Python's
    cyclic garbage is collected on its thread only (see gui_gc)."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setDesktopFileName(APP_NAME)  # Wayland app id / the launcher this window belongs to
    if APP_ICON.is_file():
        app.setWindowIcon(QIcon(str(APP_ICON)))
    collect_on_gui_thread(app)
    return app
