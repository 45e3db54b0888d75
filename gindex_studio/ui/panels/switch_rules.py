"""The switch node's rules as Node-RED's editor shows them: one row per rule with the operator
menu, the value it compares with (a typed value; "and" a second one for "is between"; "ignore
case" for a regex; the type menu for "is of type") and the output port the rule sends to.

The node's Outputs follow the rules: ``command`` writes the rules, ``outputs`` and the wires (the
wires of a moved rule's output move with it, a removed rule's go) as one undo entry.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLabel, QToolButton, QWidget

from gindex_studio.core.editing.switch_rules import (
    IS_TYPES,
    NO_VALUE,
    OPERATORS,
    TWO_VALUES,
    VALUE_TYPES,
    SwitchRule,
    field_of,
    new_rule,
    read_rule,
    remap_wires,
    value_types,
)
from gindex_studio.ui.model.commands import Macro, SetAttribute, SetWires, edit_text
from gindex_studio.ui.panels.row_list import ListRow, RowListEditor
from gindex_studio.ui.panels.typed_value import TypedValueField


class SwitchRuleRow(ListRow):
    """One rule: operator, value(s) and "→ port"."""

    def __init__(self, rule: dict, index: int, parent=None):
        super().__init__(index, parent)
        r = read_rule(rule)
        self.op = QComboBox()
        self.op.setObjectName("rule-op")
        self.op.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.op.setMinimumContentsLength(5)
        for value, text in OPERATORS:
            self.op.addItem(text, value)
        if self.op.findData(r.t) < 0:
            self.op.addItem(r.t, r.t)  # an operator this editor does not know is kept
        self.op.setCurrentIndex(self.op.findData(r.t))
        types, default = value_types(r.t)
        self.value_field = TypedValueField(r.v, r.vt if r.t != "istype" else "str",
                                           types if r.t != "istype" else VALUE_TYPES, "v")
        self.is_type = QComboBox()
        self.is_type.setObjectName("rule-istype")
        for t in IS_TYPES:
            self.is_type.addItem(t, t)
        self.is_type.setCurrentIndex(max(0, self.is_type.findData(r.vt)))
        self.and_label = QLabel("and")
        self.value2 = TypedValueField(r.v2, r.v2t, VALUE_TYPES, "v2")
        self.case = QCheckBox("ignore case")
        self.case.setObjectName("rule-case")
        self.case.setChecked(r.case)
        # what each of Node-RED's value fields holds while another operator is picked
        self._fields = {field_of(r.t): self.value_field.value()}
        self._field = field_of(r.t)
        self.port = QLabel()
        self.port.setObjectName("rule-port")
        self.port.setToolTip("The output this rule sends matching messages to")
        # as Node-RED's row: the operator, then what it compares with; the output and the row's
        # buttons on the operator's line, so the value gets the row's whole width
        grid = QGridLayout(self)
        grid.setContentsMargins(4, 4, 4, 4)
        grid.setSpacing(3)
        head = QHBoxLayout()
        head.addWidget(self.op)
        head.addStretch(1)
        head.addWidget(self.port)
        head.addLayout(self.row_buttons())
        grid.addLayout(head, 0, 0, 1, 2)
        grid.addWidget(self.value_field, 1, 0, 1, 2)
        grid.addWidget(self.is_type, 1, 0, 1, 2)
        grid.addWidget(self.and_label, 2, 0, Qt.AlignRight)
        grid.addWidget(self.value2, 2, 1)
        grid.addWidget(self.case, 3, 0, 1, 2, Qt.AlignLeft)
        grid.setColumnStretch(1, 1)
        # Tab goes as the eye reads the rule: operator, the values compared with, then ▲ ▼ ✕
        # (the buttons, laid out on the operator's line, came between them)
        chain = [self.op, self.value_field.kind, self.value_field.edit, self.value_field.more, self.is_type,
                 self.value2.kind, self.value2.edit, self.value2.more, self.case,
                 *(self.findChild(QToolButton, n) for n in ("rule-up", "rule-down", "rule-remove"))]
        for a, b in zip(chain, chain[1:]):
            QWidget.setTabOrder(a, b)
        self._sync()
        self.op.activated.connect(self._op_picked)
        self.is_type.activated.connect(lambda _k: self.edited.emit())
        self.case.toggled.connect(lambda _c: self.edited.emit())
        for f in (self.value_field, self.value2):
            f.committed.connect(self.edited)

    def set_port(self, k: int) -> None:
        self.port.setText(f"→ {k + 1}")

    def _sync(self) -> None:
        t = self.op.currentData()
        self.op.setMinimumContentsLength(max(3, len(self.op.currentText())))  # its words, never clipped
        self.value_field.setVisible(t not in NO_VALUE and t != "istype")
        self.is_type.setVisible(t == "istype")
        self.and_label.setVisible(t in TWO_VALUES)
        self.value2.setVisible(t in TWO_VALUES)
        self.case.setVisible(t == "regex")
        if t != "istype":
            self.value_field.set_types(*value_types(t))

    def _op_picked(self, _k: int) -> None:
        t = self.op.currentData()
        if field_of(t) != self._field:  # another field: it shows what it held, or starts empty
            self._fields[self._field] = self.value_field.value()
            self._field = field_of(t)
            types, default = value_types(t)
            self.value_field.types = types
            self.value_field.set_value(*self._fields.get(self._field, ("", default)))
        self._sync()
        if self.value_field.isVisible():
            self.value_field.edit.setFocus()
        self.edited.emit()

    def value(self) -> dict:
        text, vt = self.value_field.value()
        t = self.op.currentData()
        if t == "istype":
            vt = self.is_type.currentData()
        v2, v2t = self.value2.value()
        return SwitchRule(t, text, vt, v2, v2t, self.case.isChecked()).export()


class SwitchRulesEditor(RowListEditor):
    """The rules; "+ add" appends an output."""

    add_tip = "Add a rule (and with it an output)"

    def make_row(self, item: dict, index: int) -> SwitchRuleRow:
        return SwitchRuleRow(item, index)

    def new_item(self, items: list) -> dict:
        return new_rule(items[-1] if items else None)

    def focus_row(self, row: SwitchRuleRow) -> None:
        row.value_field.edit.setFocus()

    def row_changed(self) -> None:
        for k, row in enumerate(self.rows):
            row.set_port(k)

    def command(self, doc, node_id: str, key: str):
        """The rules, the Outputs and the moved wires as one undo entry (None when nothing changed)."""
        rules = self.value()  # ValueError: the JSON does not parse (it says why)
        origins = list(range(len(rules))) if self.raw.isChecked() else self.take_origins()
        node = doc.node(node_id)
        wires = remap_wires(node.ports, origins)
        m = Macro(edit_text(doc, node_id, key))
        if doc.get_attribute(node_id, key) != rules:
            m.add(SetAttribute(doc, node_id, key, rules))
        if doc.get_attribute(node_id, "outputs") != len(rules):
            m.add(SetAttribute(doc, node_id, "outputs", len(rules)))
        if wires != [list(p) for p in node.ports]:
            m.add(SetWires(doc, node_id, wires, "Wire"))
        return m if m.parts else None
