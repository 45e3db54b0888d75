"""A typed value as one control: Node-RED's "value + type" attribute pairs (``payload`` with
``payloadType``, a change rule's ``to`` with ``tot``) edited as a type menu beside the value.

``TypedValueField.value()`` is ``(text, type)``; ``committed`` fires when the user finished an
edit (Return, focus out, a type picked). A type the menu does not list is kept and shown.
"""
from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDialog, QHBoxLayout, QLineEdit, QToolButton, QWidget

from gindex_studio.ui.panels.code_editor import CodeDialog

#: Node-RED's typed-input types with the words its editor shows for them
TYPE_LABELS = {
    "msg": "msg.", "flow": "flow.", "global": "global.", "str": "string", "num": "number",
    "bool": "boolean", "json": "JSON", "bin": "buffer", "re": "regex", "date": "timestamp",
    "jsonata": "expression", "env": "env variable", "full": "complete msg object",
}
ALL_TYPES = tuple(TYPE_LABELS)
#: types only some fields offer (a switch rule's "previous value")
TYPE_LABELS["prev"] = "previous value"
TYPE_LABELS["other"] = "other"  # an http header's name or value typed in
TYPE_LABELS.update({"pay": "the msg object", "payl": "the latest msg object", "nul": "nothing",  # a trigger's
                    "len": "fixed length of"})  # a split's
#: where a value is read from or written to (a property), not a literal
PROPERTY_TYPES = ("msg", "flow", "global")
#: types that take no value text (the timestamp is made when the message is)
NO_VALUE = {"date", "full", "prev", "pay", "payl", "nul"}
#: types whose value can be long enough to want a multi-line editor (with the language it is in)
LONG_TYPES = {"jsonata": "jsonata", "json": "json", "str": "text"}


def value_text(value: Any) -> str:
    """The text shown for a stored value (strings as they are, anything else as JSON)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class TypedValueField(QWidget):
    """A type menu and a value line, bound to nothing: the owner reads ``value()`` on ``committed``."""

    committed = Signal()

    def __init__(self, value: Any, vtype: str, types=ALL_TYPES, name: str = "", parent=None, valued=None):
        """``valued``: the types that take a value text (default: all but timestamps and the like)."""
        super().__init__(parent)
        self.types = tuple(types)
        self.valued = valued
        self.kind = QComboBox()
        self.kind.setObjectName(f"type:{name}")
        # as wide as a short type name: the value beside it gets the room
        self.kind.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.kind.setMinimumContentsLength(7)
        self.kind.setToolTip("What the value is: a message / flow / global property, or a literal of a type")
        self.edit = QLineEdit()
        self.edit.setObjectName(f"value:{name}")
        self.edit.setMinimumWidth(60)
        self.more = QToolButton()
        self.more.setText("…")
        self.more.setObjectName(f"expand:{name}")
        self.more.setToolTip("Edit the value in a multi-line editor")
        self.more.clicked.connect(self.open_editor)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.kind)
        lay.addWidget(self.edit, 1)
        lay.addWidget(self.more)
        self.set_value(value, vtype)
        self.kind.activated.connect(self._kind_picked)
        self.edit.editingFinished.connect(self._edited)
        self._last = self.value()

    def set_value(self, value: Any, vtype: str) -> None:
        """Show ``value`` of type ``vtype`` (no signal)."""
        self.kind.blockSignals(True)
        self.kind.clear()
        types = list(self.types)
        if vtype and vtype not in types:
            types.insert(0, vtype)
        for t in types:
            self.kind.addItem(TYPE_LABELS.get(t, t), t)
        self.kind.setCurrentIndex(max(0, self.kind.findData(vtype or types[0])))
        self.kind.blockSignals(False)
        self.edit.setText(value_text(value))
        self.edit.setCursorPosition(0)  # a long path shows its start, not a clipped end
        self.edit.setToolTip(self.edit.text())
        self._sync_enabled()
        self._last = self.value()

    def set_types(self, types, default: str) -> None:
        """Offer ``types``; a type they lack becomes ``default`` (the text is kept; no signal)."""
        self.types = tuple(types)
        text, kind = self.value()
        self.set_value(text, kind if kind in self.types else default)

    def value(self) -> tuple[str, str]:
        return self.edit.text(), self.kind.currentData()

    def _sync_enabled(self) -> None:
        t = self.kind.currentData()
        self.edit.setEnabled(t in self.valued if self.valued is not None else t not in NO_VALUE)
        self.edit.setPlaceholderText("property path, e.g. payload" if t in PROPERTY_TYPES else
                                     "JSONata expression, e.g. $now()" if t == "jsonata" else "")
        self.more.setVisible(t in LONG_TYPES)

    def open_editor(self) -> None:
        """The value in a large editor (JSONata and JSON highlighted, line numbers); OK commits."""
        t = self.kind.currentData()
        lang = LONG_TYPES.get(t, "text")
        d = CodeDialog(self.edit.text(), f"Edit {TYPE_LABELS.get(t, t)}", "jsonata" if lang != "javascript" else lang,
                       self.window())
        d.setObjectName("expression-dialog")
        if d.exec() == QDialog.Accepted:
            self.edit.setText(d.text())
            self._edited()

    def _kind_picked(self, _k: int) -> None:
        self._sync_enabled()
        self._edited()

    def _edited(self) -> None:
        self.edit.setToolTip(self.edit.text())
        if self.value() != self._last:
            self._last = self.value()
            self.committed.emit()
