"""Palette: the library's node types by category, with a search box; drag a type onto the canvas.

Typing in the search box shows the matching types as one ranked list (``rank_types``: exact and
prefix matches of type and label first); Enter adds the top match that is not a config type,
wired from the selected node (``FlowEditor.add_next``). Config types (a Telegram bot, a dashboard
group) are listed under "Configuration": adding one creates a config node.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QMimeData, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QDrag
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from gindex_studio.ui.theme import palette_row_colors
from gindex_studio.ui.canvas.view import PALETTE_MIME
from gindex_studio.ui.icons import type_icon
from gindex_studio.ui.library_access import is_config_type, node_type_color
from gindex_studio.core.editing.search import rank_types

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


def _type_item(library: Any, nt: Any, text: str) -> QTreeWidgetItem:
    it = QTreeWidgetItem([text])
    it.setData(0, TYPE_ROLE, nt.type)
    it.setToolTip(0, f"{nt.type}\n{nt.description}")
    fg, bg = palette_row_colors(node_type_color(library, nt.type))
    it.setBackground(0, QBrush(QColor(bg)))
    it.setForeground(0, QBrush(QColor(fg)))
    icon = type_icon(nt.type, nt.category)
    if icon is not None:
        it.setIcon(0, icon)
    it.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemIsDragEnabled)
    return it


class Palette(QWidget):
    """Emits ``activated(type_id)`` on double-click or Enter (adds at the view centre)."""

    activated = Signal(str)

    def __init__(self, library: Any, parent=None):
        super().__init__(parent)
        self.library = library
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter nodes")
        self.search.setToolTip("Type to filter the node types; Enter adds the first one that is not a config "
                               "node, wired from the selected node and placed to its right (↑↓ choose another)")
        self.search.setClearButtonEnabled(True)
        self.tree = _Tree()
        self.matches = _Tree()
        self.matches.setRootIsDecorated(False)
        self.matches.setObjectName("palette-matches")
        self.matches.hide()
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.search)
        lay.addWidget(self.tree)
        lay.addWidget(self.matches)
        self.search.textChanged.connect(self.apply_filter)
        self.search.returnPressed.connect(self.add_top_match)
        self.search.installEventFilter(self)
        self.tree.itemActivated.connect(self._activated)
        self.matches.itemActivated.connect(self._activated)
        self.populate()

    def populate(self) -> None:
        self.tree.clear()
        self.type_items: dict[str, QTreeWidgetItem] = {}
        groups = [(cat.label, getattr(cat, "description", "") or cat.label,
                   [t for t in self.library.by_category(cat.id) if not t.config]) for cat in self.library.categories]
        configs = [t for t in self.library.types if t.config and t.type != "tab"]
        groups.append(("Configuration", "Config nodes: not drawn, referenced by other nodes (a bot, a dashboard group)", configs))
        for label, tip, types in groups:
            if not types:
                continue
            top = QTreeWidgetItem([label])
            top.setToolTip(0, tip)
            f = top.font(0)
            f.setBold(True)
            top.setFont(0, f)
            top.setFlags(Qt.ItemIsEnabled)
            self.tree.addTopLevelItem(top)
            for nt in types:
                it = _type_item(self.library, nt, nt.label or nt.type)
                top.addChild(it)
                self.type_items[nt.type] = it
            top.setExpanded(True)

    def changeEvent(self, e) -> None:
        """The theme changed (the application palette did): rows take the new theme's colours."""
        super().changeEvent(e)
        if e.type() == QEvent.PaletteChange and hasattr(self, "type_items"):
            for type_id, it in self.type_items.items():
                fg, bg = palette_row_colors(node_type_color(self.library, type_id))
                it.setBackground(0, QBrush(QColor(bg)))
                it.setForeground(0, QBrush(QColor(fg)))

    def apply_filter(self, text: str) -> None:
        """Empty: the categories. Otherwise: the matching types, best first, in one list."""
        q = text.strip()
        self.tree.setVisible(not q)
        self.matches.setVisible(bool(q))
        self.matches.clear()
        if not q:
            return
        for nt in rank_types(q, self.library.types):
            cat = next((c.label for c in self.library.categories if c.id == nt.category), nt.category)
            suffix = "config" if nt.config else cat
            self.matches.addTopLevelItem(_type_item(self.library, nt, f"{nt.label or nt.type}  · {suffix}"))
        items = [self.matches.topLevelItem(k) for k in range(self.matches.topLevelItemCount())]
        drawn = [it for it in items if not is_config_type(self.library, it.data(0, TYPE_ROLE))]
        if items:
            self.matches.setCurrentItem((drawn or items)[0])

    def visible_types(self) -> list[str]:
        """The types shown, in the order shown."""
        if self.matches.isVisibleTo(self):
            return [self.matches.topLevelItem(k).data(0, TYPE_ROLE) for k in range(self.matches.topLevelItemCount())]
        return [t for t, it in self.type_items.items() if not it.isHidden() and not it.parent().isHidden()]

    def add_top_match(self) -> None:
        """Enter in the search box: add the highlighted match (at first the top one that is not a
        config node); the text is then selected, so that typing filters for the next node."""
        it = self.matches.currentItem() if self.matches.isVisibleTo(self) else None
        if it is not None:
            self.activated.emit(it.data(0, TYPE_ROLE))
            self.search.selectAll()

    def eventFilter(self, obj, e):
        if obj is self.search and e.type() == e.Type.FocusIn and self.search.text():
            # coming back to the filter (a click, Ctrl+F): its old text is selected, so typing the
            # next name replaces it instead of appending to it (after the click has placed the cursor)
            QTimer.singleShot(0, self.search.selectAll)
        if obj is self.search and e.type() == e.Type.KeyPress and e.key() in (Qt.Key_Down, Qt.Key_Up):
            if self.matches.isVisibleTo(self) and self.matches.topLevelItemCount():
                row = self.matches.indexOfTopLevelItem(self.matches.currentItem())
                row = max(0, min(self.matches.topLevelItemCount() - 1, row + (1 if e.key() == Qt.Key_Down else -1)))
                self.matches.setCurrentItem(self.matches.topLevelItem(row))
                return True
        return super().eventFilter(obj, e)

    def _activated(self, item, _col) -> None:
        t = item.data(0, TYPE_ROLE)
        if t:
            self.activated.emit(t)
