"""Quick-add popup: type to fuzzy-search node types (recent first), Enter adds the node."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout

from gindex_studio.ui.library_access import node_type_color
from gindex_studio.core.editing.search import rank_types

TYPE_ROLE = Qt.UserRole + 1


class QuickAdd(QFrame):
    chosen = Signal(str)

    def __init__(self, library: Any, recent: list[str], need_input: bool = False, parent=None):
        super().__init__(parent, Qt.Popup)
        self.setFrameShape(QFrame.StyledPanel)
        self.library = library
        self.recent = recent
        self.need_input = need_input
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("add a node: type to search")
        self.list = QListWidget()
        self.list.setMinimumHeight(240)
        self.hint = QLabel("↑↓ choose · Enter add · Esc close" + (" · nodes with an input" if need_input else ""))
        self.hint.setStyleSheet("color: palette(placeholder-text); font-size: 11px")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.edit)
        lay.addWidget(self.list)
        lay.addWidget(self.hint)
        self.resize(340, 320)
        self.edit.textChanged.connect(self.refresh)
        self.edit.returnPressed.connect(self.accept)
        self.list.itemActivated.connect(lambda _it: self.accept())
        self.edit.installEventFilter(self)
        self.refresh("")

    def refresh(self, text: str) -> None:
        self.list.clear()
        for nt in rank_types(text, self.library.types, self.recent, need_input=self.need_input):
            label = nt.label or nt.type
            it = QListWidgetItem(f"{label}    ·  {nt.category}" + ("   (recent)" if nt.type in self.recent else ""))
            it.setData(TYPE_ROLE, nt.type)
            it.setToolTip(f"{nt.type}: {nt.description}")
            c = QColor(node_type_color(self.library, nt.type))
            c.setAlpha(140)
            it.setBackground(QBrush(c))
            self.list.addItem(it)
        if self.list.count():
            self.list.setCurrentRow(0)

    def types_shown(self) -> list[str]:
        return [self.list.item(k).data(TYPE_ROLE) for k in range(self.list.count())]

    def eventFilter(self, obj, e):
        if obj is self.edit and e.type() == e.Type.KeyPress and e.key() in (Qt.Key_Down, Qt.Key_Up):
            row = self.list.currentRow() + (1 if e.key() == Qt.Key_Down else -1)
            self.list.setCurrentRow(max(0, min(self.list.count() - 1, row)))
            return True
        return super().eventFilter(obj, e)

    def accept(self) -> None:
        it = self.list.currentItem()
        if it is not None:
            t = it.data(TYPE_ROLE)
            self.close()
            self.chosen.emit(t)

    def popup(self, global_pos: QPoint, text: str = "") -> None:
        """Show at ``global_pos`` (the top-left corner wished), kept wholly on the screen there:
        near the canvas's right or bottom edge it opens to the left of / above the point."""
        from gindex_studio.ui.window_geometry import popup_rect, screen_at

        screen = screen_at(global_pos)
        size = self.size().expandedTo(self.minimumSizeHint())
        if screen is not None:
            r = popup_rect(global_pos, size, screen.availableGeometry())
            self.setGeometry(r)
        else:
            self.move(global_pos)
        self.show()
        self.edit.setFocus()
        if text:
            self.edit.setText(text)
