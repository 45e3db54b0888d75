"""The http request node's Headers as Node-RED's editor shows them: rows of a header name (a
known one from the menu, ``other`` typed in, or a ``msg.`` property) and its value (one of the
name's known values, ``other`` or ``msg.``), with "+ add", reorder and remove."""
from __future__ import annotations

from gindex_studio.core.editing.http_headers import TYPED, name_types, read_header, value_types, write_header
from gindex_studio.ui.panels.row_list import ListRow, RowListEditor
from gindex_studio.ui.panels.typed_value import TypedValueField


class HeaderRow(ListRow):
    """[name] then [value]; the value's menu follows the name."""

    def __init__(self, item: dict, index: int, parent=None):
        super().__init__(index, parent)
        kt, kv, vt, vv = read_header(item)
        self.name = TypedValueField(kv, kt, name_types(), "header", valued=set(TYPED))
        self.value_field = TypedValueField(vv, vt, value_types(kt), "header-value", valued=set(TYPED))
        self.two_lines([self.name], self.value_field)
        self.name.committed.connect(self._name_edited)
        self.value_field.committed.connect(self.edited)

    def _name_edited(self) -> None:
        self.value_field.set_types(value_types(self.name.value()[1]), "other")
        self.edited.emit()

    def value(self) -> dict:
        (kv, kt), (vv, vt) = self.name.value(), self.value_field.value()
        return write_header(kt, kv, vt, vv)


class HeadersEditor(RowListEditor):
    """The headers list (Node-RED's shape, written to ``headers``)."""

    add_tip = "Add a request header"

    def make_row(self, item: dict, index: int) -> HeaderRow:
        return HeaderRow(item, index)

    def new_item(self, items: list) -> dict:
        return write_header("other", "", "other", "")
