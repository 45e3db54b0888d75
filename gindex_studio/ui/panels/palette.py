"""Palette: the library's node types by category, with a search box; drag a type onto the canvas."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QDrag
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ..canvas.view import PALETTE_MIME
from ..library_access import node_type_color
from ..model.search import fuzzy_score

TYPE_ROLE = Qt.UserRole + 1


class _Tree(QTreeWidget):
    def __init__(self):
        super().__init__()
        self.setHeaderHidden(True)
        self.setDragEnabled(True)
        self.setDragDropMode(QTreeWidget.DragOnly)
        self.setIndentation(12)
        self.setUniformRowHeights(True)

    def mimeData(self, items):
        data = QMimeData()
        for it in items:
            t = it.data(0, TYPE_ROLE)
            if t:
                data.setData(PALETTE_MIME, t.encode())
                data.setText(t)
        return data

    def startDrag(self, actions):
        item = self.currentItem()
        if item is None or not item.data(0, TYPE_ROLE):
            return
        drag = QDrag(self)
        drag.setMimeData(self.mimeData([item]))
        drag.exec(Qt.CopyAction)


class Palette(QWidget):
    """Emits ``activated(type_id)`` on double-click or Enter (adds at the view centre)."""

    activated = Signal(str)

    def __init__(self, library: Any, parent=None):
        super().__init__(parent)
        self.library = library
        self.search = QLineEdit()
        self.search.setPlaceholderText("filter nodes")
        self.search.setClearButtonEnabled(True)
        self.tree = _Tree()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.search)
        lay.addWidget(self.tree)
        self.search.textChanged.connect(self.apply_filter)
        self.tree.itemActivated.connect(self._activated)
        self.populate()

    def populate(self) -> None:
        self.tree.clear()
        self.type_items: dict[str, QTreeWidgetItem] = {}
        for cat in self.library.categories:
            types = [t for t in self.library.by_category(cat.id) if not getattr(t, "config", False)]
            if not types:
                continue
            top = QTreeWidgetItem([cat.label])
            top.setToolTip(0, getattr(cat, "description", "") or cat.label)
            f = top.font(0)
            f.setBold(True)
            top.setFont(0, f)
            top.setFlags(Qt.ItemIsEnabled)
            self.tree.addTopLevelItem(top)
            for nt in types:
                it = QTreeWidgetItem([nt.label or nt.type])
                it.setData(0, TYPE_ROLE, nt.type)
                it.setToolTip(0, f"{nt.type}\n{nt.description}")
                it.setBackground(0, QBrush(QColor(node_type_color(self.library, nt.type))))
                it.setForeground(0, QBrush(QColor("#222222")))
                it.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemIsDragEnabled)
                top.addChild(it)
                self.type_items[nt.type] = it
            top.setExpanded(True)

    def apply_filter(self, text: str) -> None:
        for k in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(k)
            any_shown = False
            for j in range(top.childCount()):
                it = top.child(j)
                t = it.data(0, TYPE_ROLE)
                nt = self.library.get(t)
                q = text.strip().lower()
                show = (not q or fuzzy_score(q, t) is not None or fuzzy_score(q, nt.label or "") is not None
                        or q in (nt.category or "").lower() or q in (nt.description or "").lower())
                it.setHidden(not show)
                any_shown |= show
            top.setHidden(not any_shown)

    def visible_types(self) -> list[str]:
        return [t for t, it in self.type_items.items() if not it.isHidden() and not it.parent().isHidden()]

    def _activated(self, item, _col) -> None:
        t = item.data(0, TYPE_ROLE)
        if t:
            self.activated.emit(t)
