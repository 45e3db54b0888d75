"""Dock widgets built the same way in every window."""
from __future__ import annotations

from PySide6.QtWidgets import QDockWidget, QMainWindow


def add_docks(window: QMainWindow, specs) -> dict[str, QDockWidget]:
    """Add one dock per ``(key, title, widget, area)``; object names are ``dock-<key>`` so that
    window state can be saved. Returns key → dock."""
    docks: dict[str, QDockWidget] = {}
    for key, title, widget, area in specs:
        d = QDockWidget(title, window)
        d.setObjectName(f"dock-{key}")
        d.setWidget(widget)
        window.addDockWidget(area, d)
        docks[key] = d
    return docks
