"""The find bar above the canvas (Ctrl+F): type, Enter for the next match, Shift+Enter for the
previous one, Escape to close. Each match is selected and centred (its workspace shown; a config
node opens in the inspector); the bar says "2 of 5" or "no match"."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from gindex_studio.core.editing.find import find_nodes


class FindBar(QWidget):
    def __init__(self, editor, parent=None):
        super().__init__(parent)
        self.editor = editor
        self.setObjectName("find-bar")
        self.edit = QLineEdit()
        self.edit.setObjectName("find-text")
        self.edit.setPlaceholderText("Find a node by name, type or attribute value (type:debug, name:…)")
        self.edit.setClearButtonEnabled(True)
        self.count = QLabel()
        self.count.setObjectName("find-count")
        self.count.setMinimumWidth(70)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 2, 6, 2)
        lay.addWidget(QLabel("Find"))
        lay.addWidget(self.edit, 1)
        lay.addWidget(self.count)
        for text, tip, step in (("▲", "Previous match (Shift+Enter)", -1), ("▼", "Next match (Enter)", 1)):
            b = QToolButton()
            b.setText(text)
            b.setToolTip(tip)
            b.setObjectName("find-prev" if step < 0 else "find-next")
            b.clicked.connect(lambda _=False, s=step: self.step(s))
            lay.addWidget(b)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Close (Escape)")
        close.clicked.connect(self.close_bar)
        lay.addWidget(close)
        self.matches: list[str] = []
        self.index = -1
        self.edit.textChanged.connect(self._search)
        self.edit.installEventFilter(self)
        self.hide()

    def open_bar(self) -> None:
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()
        self._search(self.edit.text())

    def close_bar(self) -> None:
        self.hide()
        self.editor.view.setFocus()

    def _search(self, text: str) -> None:
        self.matches = find_nodes(self.editor.doc, text) if text.strip() else []
        self.index = -1
        self._show_count()

    def _show_count(self) -> None:
        if not self.edit.text().strip():
            self.count.setText("")
        elif not self.matches:
            self.count.setText("no match")
        else:
            self.count.setText(f"{self.index + 1 if self.index >= 0 else '–'} of {len(self.matches)}")

    def step(self, direction: int = 1) -> str | None:
        """Go to the next (``1``) or previous (``-1``) match, cycling; returns its id."""
        self.matches = [i for i in self.matches if self.editor.doc.has(i)] or find_nodes(self.editor.doc, self.edit.text())
        if not self.matches:
            self._show_count()
            return None
        if self.index < 0:
            self.index = 0 if direction > 0 else len(self.matches) - 1
        else:
            self.index = (self.index + direction) % len(self.matches)
        node_id = self.matches[self.index]
        self.editor.focus_node(node_id)
        self._show_count()
        return node_id

    def eventFilter(self, obj, e):
        if obj is self.edit and e.type() == e.Type.KeyPress:
            if e.key() in (Qt.Key_Return, Qt.Key_Enter):
                self.step(-1 if e.modifiers() & Qt.ShiftModifier else 1)
                return True
            if e.key() == Qt.Key_Escape:
                self.close_bar()
                return True
        return super().eventFilter(obj, e)
