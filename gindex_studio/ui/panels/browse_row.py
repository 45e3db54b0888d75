"""A text field with a Browse… button beside it, for the dialogs that ask for files and folders."""
from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QWidget


def browse_row(edit: QLineEdit, key: str, browse: Callable[[], None]) -> QWidget:
    """``edit`` (stretching) and a "Browse…" button named ``browse-KEY`` that calls ``browse``."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(edit, 1)
    button = QPushButton("Browse…")
    button.setObjectName(f"browse-{key}")
    button.clicked.connect(lambda: browse())
    row.addWidget(button)
    return box
