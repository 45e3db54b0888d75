"""Problems panel: every problem of the current flow; click a row to jump to its node. A node type
Node-RED lacks, whose npm module is known, gets an "Install" button on its row
(``install_requested``: the Run controller installs it into the private runtime)."""
from __future__ import annotations

import re

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QPushButton, QTreeWidget, QTreeWidgetItem

from gindex_studio.ui.canvas.items import ERROR_KINDS
from gindex_studio.ui.theme import error_color, warning_color

ID_ROLE = Qt.UserRole + 1


_MODULE = re.compile(r"provided by the npm module (\S+?)\)")


def module_of(problem) -> str | None:
    """The npm module a missing-type problem names, if any."""
    m = _MODULE.search(problem.message) if problem.kind == "missing-type" else None
    return m.group(1) if m else None


class ProblemsPanel(QTreeWidget):
    jump = Signal(str)
    install_requested = Signal(str)  # an npm module

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHeaderLabels(["Problem", "Node", "Details", ""])
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setColumnWidth(0, 150)
        self.setColumnWidth(1, 160)
        head = self.header()  # Details takes the room left (no empty column beside a clipped message)
        head.setStretchLastSection(False)
        head.setSectionResizeMode(2, QHeaderView.Stretch)
        head.setSectionResizeMode(3, QHeaderView.ResizeToContents)
        self.editor = None
        self._timer = QTimer(self, singleShot=True, interval=150)
        self._timer.timeout.connect(self.refresh)
        self.itemClicked.connect(self._clicked)
        self.itemActivated.connect(self._clicked)

    def set_editor(self, editor) -> None:
        if self.editor is not None:
            try:
                self.editor.doc.problems_changed.disconnect(self._timer.start)
            except (RuntimeError, TypeError):
                pass
        self.editor = editor
        if editor is not None:
            editor.doc.problems_changed.connect(self._timer.start)
        self.refresh()

    def refresh(self) -> None:
        self.clear()
        if self.editor is None:
            return
        doc = self.editor.doc
        for p in doc.problems():
            label = doc.label(p.node_id) if p.node_id and doc.has(p.node_id) else (p.node_id or "")
            it = QTreeWidgetItem([p.kind, label, p.message])
            it.setData(0, ID_ROLE, p.node_id or "")
            it.setForeground(0, QBrush(QColor(error_color() if p.kind in ERROR_KINDS else warning_color())))
            it.setToolTip(2, p.message)
            self.addTopLevelItem(it)
            mod = module_of(p)
            if mod:
                b = QPushButton(f"Install {mod}")
                b.setObjectName("install-module")
                b.setToolTip(f"Install the npm module {mod} into the studio's private Node-RED and run again")
                b.clicked.connect(lambda _c=False, m=mod: self.install_requested.emit(m))
                self.setItemWidget(it, 3, b)

    def _clicked(self, item, _col=0) -> None:
        node_id = item.data(0, ID_ROLE)
        if node_id:
            self.jump.emit(node_id)
