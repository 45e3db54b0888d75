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


def remember_layout(window: QMainWindow, settings, key: str) -> None:
    """Restore ``window``'s geometry, dock layout and splitter sizes stored under ``key`` and
    store them again when the window closes (one key per kind of window)."""
    from PySide6.QtCore import QObject, QEvent
    from PySide6.QtWidgets import QSplitter

    def splitters():
        return [s for s in window.findChildren(QSplitter) if s.objectName()]

    geometry = settings.value(f"{key}/geometry")
    if geometry is not None:
        window.restoreGeometry(geometry)
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

    saver = _Saver(window)
    window.installEventFilter(saver)
    window._layout_saver = saver


def save_layout(window: QMainWindow, settings, key: str) -> None:
    """Store geometry, dock layout and named splitters' sizes of ``window`` under ``key``."""
    from PySide6.QtWidgets import QSplitter

    settings.setValue(f"{key}/geometry", window.saveGeometry())
    settings.setValue(f"{key}/state", window.saveState())
    for s in window.findChildren(QSplitter):
        if s.objectName():
            settings.setValue(f"{key}/splitter/{s.objectName()}", s.sizes())
    settings.sync()
