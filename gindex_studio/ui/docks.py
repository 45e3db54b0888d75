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


def remember_layout(window: QMainWindow, settings, key: str, preferred: tuple[int, int] = (1400, 860)) -> None:
    """Restore ``window``'s geometry (``window_geometry.place``: only if it fits a screen now,
    else ``preferred`` clamped to the screen), dock layout and splitter sizes stored under ``key``
    and store them again when the window closes (one key per kind of window)."""
    from gindex_studio.ui.window_geometry import place

    from PySide6.QtCore import QObject, QEvent
    from PySide6.QtWidgets import QSplitter

    def splitters():
        return [s for s in window.findChildren(QSplitter) if s.objectName()]

    place(window, settings, key, preferred)
    state = settings.value(f"{key}/state")
    if state is not None:
        window.restoreState(state)
    for s in splitters():
        sizes = settings.value(f"{key}/splitter/{s.objectName()}")
        if isinstance(sizes, (list, tuple)) and len(sizes) == s.count():
            try:
                s.setSizes([int(x) for x in sizes])
            except (TypeError, ValueError):
                pass

    class _Saver(QObject):
        def eventFilter(self, obj, e):
            if obj is window and e.type() == QEvent.Close:
                save_layout(window, settings, key)
            return False

    window.installEventFilter(_Saver(window))  # owned by the window


def save_layout(window: QMainWindow, settings, key: str) -> None:
    """Store geometry, dock layout and named splitters' sizes of ``window`` under ``key``."""
    from PySide6.QtWidgets import QSplitter

    from gindex_studio.ui.window_geometry import remember

    remember(window, settings, key)
    settings.setValue(f"{key}/state", window.saveState())
    for s in window.findChildren(QSplitter):
        if s.objectName():
            settings.setValue(f"{key}/splitter/{s.objectName()}", s.sizes())
    settings.sync()
