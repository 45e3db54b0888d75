"""Small widgets several windows make the same way: a word-wrapped label, a bold headline, a
named push button."""
from __future__ import annotations

from typing import Callable

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QPushButton, QWidget


def wrapped_label(text: str) -> QLabel:
    """A label whose text wraps at the width it is given."""
    label = QLabel(text)
    label.setWordWrap(True)
    return label


def headline(text: str, name: str, pixels: int, like: QWidget) -> QLabel:
    """A bold label ``pixels`` high in ``like``'s font family (the big number of a panel)."""
    label = QLabel(text)
    label.setObjectName(name)
    font = QFont(like.font())
    font.setPixelSize(pixels)
    font.setBold(True)
    label.setFont(font)
    return label


def push_button(text: str, name: str, tip: str, on_click: Callable[[], None], shown: bool = True) -> QPushButton:
    """A button with its object name and tooltip, calling ``on_click`` (hidden unless ``shown``)."""
    button = QPushButton(text)
    button.setObjectName(name)
    button.setToolTip(tip)
    button.clicked.connect(lambda: on_click())
    if not shown:
        button.hide()
    return button
