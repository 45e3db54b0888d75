"""The inspector's field for an attribute that references a config node ("Bot: [pick or create]").

A combo box of the flow's config nodes of the referenced type (name and id), "none", and
"Create new <type>…"; a button beside it shows the chosen config node in the inspector. A value
that names no node of that type stays visible, marked, so nothing is lost by looking at it.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QToolButton, QWidget

from gindex_studio.ui.panels.flush import flush

CREATE = object()  # the combo's "Create new …" entry


class ConfigRefField(QWidget):
    """``picked`` after the user chose an existing node or none; ``create_requested`` for "Create"."""

    picked = Signal()
    create_requested = Signal()
    open_requested = Signal(str)

    def __init__(self, doc, ref_type: str, value: str, parent=None):
        super().__init__(parent)
        self.doc, self.ref_type = doc, ref_type
        self.combo = QComboBox()
        self.combo.setObjectName(f"config-ref:{ref_type}")
        self.edit_button = QToolButton()
        self.edit_button.setText("✎")
        self.edit_button.setToolTip(f"Edit this {ref_type}")
        self.edit_button.clicked.connect(lambda: self.value() and self.open_requested.emit(self.value()))
        flush(QHBoxLayout(self), (self.combo, 1), self.edit_button)
        self.set_value(value)
        self.combo.activated.connect(self._activated)

    def set_value(self, value: str) -> None:
        c = self.combo
        c.blockSignals(True)
        c.clear()
        c.addItem("(none)", "")
        for i in self.doc.config_ids():
            n = self.doc.node(i)
            if n.type == self.ref_type:
                c.addItem(f"{self.doc.label(i)}  [{i}]", i)
        if value and c.findData(value) < 0:
            n = self.doc.node(value)
            why = f"is a {n.type}" if n is not None else "missing"
            c.addItem(f"⚠ {value} ({why})", value)
        c.insertSeparator(c.count())
        c.addItem(f"Create new {self.ref_type}…", CREATE)
        c.setCurrentIndex(max(0, c.findData(value or "")))
        c.blockSignals(False)
        self.edit_button.setEnabled(bool(value) and self.doc.has(value))

    def value(self) -> str:
        data = self.combo.currentData()
        return data if isinstance(data, str) else ""

    def _activated(self, _index: int) -> None:
        if self.combo.currentData() is CREATE:
            self.create_requested.emit()
        else:
            self.edit_button.setEnabled(bool(self.value()) and self.doc.has(self.value()))
            self.picked.emit()


def config_users(doc, config_id: str, refs: Callable) -> list[str]:
    """Ids of the nodes whose config-reference attributes name ``config_id``."""
    return [i for i in doc.node_ids() if any(v == config_id for _a, v in refs(doc.node(i)))]
