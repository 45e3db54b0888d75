"""Text editors shared by the inspector's fields: a plain text editor that reports when editing
is finished, the fixed-width font, and a JSON editor that refuses invalid JSON and says why.

A leaf module: the inspector and the change-rules editor both import it, neither imports the other.
"""
from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from gindex_studio.ui.panels.flush import flush
from gindex_studio.ui.theme import error_color


class TextEdit(QPlainTextEdit):
    """A plain text editor that reports when editing is finished (focus out or Ctrl+Enter)."""

    editing_finished = Signal()

    def focusOutEvent(self, e):
        super().focusOutEvent(e)
        self.editing_finished.emit()

    def keyPressEvent(self, e):
        if e.key() in (Qt.Key_Return, Qt.Key_Enter) and e.modifiers() & Qt.ControlModifier:
            self.editing_finished.emit()
            return
        super().keyPressEvent(e)


def mono_font() -> QFont:
    """The system's fixed-width font; when fontconfig resolves it to a face that is not fixed
    pitch (seen with Noto Sans Mono), the first installed fixed-pitch family instead."""
    f = QFontDatabase.systemFont(QFontDatabase.FixedFont)
    f.setStyleHint(QFont.Monospace)
    f.setFixedPitch(True)
    f.setPointSize(10)
    if not QFontInfo(f).fixedPitch():
        fixed = [fam for fam in QFontDatabase.families() if QFontDatabase.isFixedPitch(fam)]
        if fixed:
            f.setFamily(fixed[0])
    return f


class JsonEditor(QWidget):
    """JSON text with a live verdict; ``value()`` raises ValueError with the reason when invalid."""

    committed = Signal()

    def __init__(self, value: Any, as_string: bool):
        super().__init__()
        self.as_string = as_string  # the attribute stores JSON text, not a structured value
        self.text = TextEdit()
        self.text.setFont(mono_font())
        self.text.setTabChangesFocus(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {error_color()}")
        self.error.hide()
        flush(QVBoxLayout(self), self.text, self.error)
        self.set_value(value)
        self.text.textChanged.connect(self._check)
        self.text.editing_finished.connect(self.committed)

    def set_value(self, value: Any) -> None:
        if self.as_string and isinstance(value, str):
            t = value
        else:
            t = json.dumps(value, indent=2, ensure_ascii=False)
        self.text.blockSignals(True)
        self.text.setPlainText(t)
        self.text.blockSignals(False)
        lines = t.count("\n") + 1
        self.text.setFixedHeight(min(220, 22 + 16 * lines))
        self._check()

    def reason(self) -> str | None:
        t = self.text.toPlainText()
        if self.as_string and not t.strip():
            return None
        try:
            json.loads(t)
        except json.JSONDecodeError as e:
            return f"Not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        return None

    def _check(self) -> None:
        r = self.reason()
        self.error.setText(r or "")
        self.error.setVisible(bool(r))

    def value(self) -> Any:
        r = self.reason()
        if r:
            raise ValueError(r)
        t = self.text.toPlainText()
        return t if self.as_string else json.loads(t)
