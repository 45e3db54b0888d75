"""A layout that fills its widget edge to edge: the shape of every compound field in the inspector
(a combo and its button, a text and its error line)."""
from __future__ import annotations

from PySide6.QtWidgets import QBoxLayout, QWidget


def flush(layout: QBoxLayout, *items: QWidget | tuple[QWidget, int]) -> QBoxLayout:
    """``layout`` with no margins, holding ``items`` in order (a widget, or (widget, stretch))."""
    layout.setContentsMargins(0, 0, 0, 0)
    for item in items:
        widget, stretch = item if isinstance(item, tuple) else (item, 0)
        layout.addWidget(widget, stretch)
    return layout
