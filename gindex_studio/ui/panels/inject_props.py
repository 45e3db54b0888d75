"""The inject node's Properties as Node-RED's editor shows them: rows of ``msg.`` property =
typed value, with "+ add", reorder and remove.

The rows stand for the node's ``props`` together with its legacy ``payload``, ``payloadType``
and ``topic`` (see :mod:`gindex_studio.core.editing.inject_props`); ``command`` writes the ones
that changed as one undo entry. A row without a property name is not saved (as in Node-RED).
"""
from __future__ import annotations

from PySide6.QtWidgets import QLabel, QLineEdit

from gindex_studio.core.editing.inject_props import VALUE_TYPES, read_props, write_props
from gindex_studio.ui.model.commands import Macro, SetAttribute, edit_text
from gindex_studio.ui.model.document import MISSING
from gindex_studio.ui.panels.row_list import ListRow, RowListEditor
from gindex_studio.ui.panels.typed_value import TypedValueField


class PropRow(ListRow):
    """``msg.`` [property] = [typed value]."""

    def __init__(self, item: dict, index: int, parent=None):
        super().__init__(index, parent)
        self.name = QLineEdit(item.get("p", ""))
        self.name.setObjectName("prop-name")
        self.name.setPlaceholderText("property")
        self.name.setToolTip("The message property to set, e.g. payload or topic")
        self.field = TypedValueField(item.get("v", ""), item.get("vt", "str"), VALUE_TYPES, "v")
        self.two_lines([QLabel("msg."), self.name], self.field)
        self._last_name = self.name.text()
        self.name.editingFinished.connect(self._name_edited)
        self.field.committed.connect(self.edited)

    def _name_edited(self) -> None:
        if self.name.text() != self._last_name:
            self._last_name = self.name.text()
            self.edited.emit()

    def value(self) -> dict:
        text, vt = self.field.value()
        return {"p": self.name.text().strip(), "v": text, "vt": vt}


class InjectPropsEditor(RowListEditor):
    """The Properties rows; ``value()`` is the rows as ``{"p", "v", "vt"}``."""

    add_tip = "Add a message property"
    raw_json = False

    @staticmethod
    def shown(data: dict) -> list[dict]:
        """The rows a node's attributes show."""
        return [{"p": p, "v": v, "vt": vt} for p, v, vt in read_props(data)]

    def shows(self, data: dict) -> bool:
        """Whether the rows say what ``data`` holds (rows without a name are not saved)."""
        return [r for r in self.value() if r["p"]] == [r for r in self.shown(data) if r["p"]]

    def make_row(self, item: dict, index: int) -> PropRow:
        return PropRow(item, index)

    def new_item(self, items: list) -> dict:
        return {"p": "", "v": "", "vt": "str"}

    def command(self, doc, node_id: str, key: str):
        """``props``, ``topic``, ``payload`` and ``payloadType`` as saving the rows writes them,
        as one undo entry (None when nothing changed)."""
        attrs = write_props((r["p"], r["v"], r["vt"]) for r in self.value())
        m = Macro(edit_text(doc, node_id, key))
        for k, new in attrs.items():
            cur = doc.get_attribute(node_id, k)
            if new is None:
                if cur is not MISSING:
                    m.add(SetAttribute(doc, node_id, k, MISSING))
            elif cur is MISSING or cur != new or type(cur) is not type(new):
                m.add(SetAttribute(doc, node_id, k, new))
        return m if m.parts else None
