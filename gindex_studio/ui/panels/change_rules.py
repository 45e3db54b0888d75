"""The change node's rules as a table of rows: set / change / delete / move, each with the
property it acts on and, as the action needs, a "from" and a "to" typed value.

``ChangeRulesEditor.value()`` is the rules list in Node-RED's shape (``t, p, pt, from, fromt, to,
tot``; keys the editor does not know, such as ``dc``, are kept). ``committed`` fires after every
finished edit (a field, an action, a row added, moved or removed). The raw JSON stays one click
away ("JSON"), for anything the rows cannot say.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel

from gindex_studio.ui.panels.row_list import ListRow, RowListEditor
from gindex_studio.ui.panels.typed_value import ALL_TYPES, PROPERTY_TYPES, TypedValueField

ACTIONS = ("set", "change", "delete", "move")
ACTION_TEXT = {"set": "Set", "change": "Change", "delete": "Delete", "move": "Move"}
#: the keys each action uses, in Node-RED's order
ACTION_KEYS = {
    "set": ("t", "p", "pt", "to", "tot"),
    "change": ("t", "p", "pt", "from", "fromt", "to", "tot"),
    "delete": ("t", "p", "pt"),
    "move": ("t", "p", "pt", "to", "tot"),
}
ALL_RULE_KEYS = {k for keys in ACTION_KEYS.values() for k in keys}
FROM_TYPES = ("str", "num", "bool", "re", "msg", "flow", "global", "env")


def normalise_rule(rule: dict, action: str) -> dict:
    """``rule`` re-shaped for ``action``: the keys the action uses (defaults where missing, values
    kept where present) followed by keys the editor does not know."""
    out: dict[str, Any] = {"t": action}
    defaults = {"p": "payload", "pt": "msg", "from": "", "fromt": "str", "to": "", "tot": "str"}
    if action == "move":
        defaults["tot"] = "msg"
    for k in ACTION_KEYS[action][1:]:
        out[k] = rule.get(k, defaults[k])
    if action == "move" and out["tot"] not in PROPERTY_TYPES:
        out["tot"] = "msg"
    for k, v in rule.items():
        if k not in ALL_RULE_KEYS:
            out[k] = v
    return out


class RuleRow(ListRow):
    """One rule: action, property, and the from / to values the action needs."""

    def __init__(self, rule: dict, index: int, parent=None):
        super().__init__(index, parent)
        self.rule = dict(rule)
        self.action = QComboBox()
        self.action.setObjectName("rule-action")
        self.action.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.action.setMinimumContentsLength(6)
        for a in ACTIONS:
            self.action.addItem(ACTION_TEXT[a], a)
        self.prop = TypedValueField(rule.get("p", ""), rule.get("pt", "msg"), PROPERTY_TYPES, "p")
        self.from_ = TypedValueField(rule.get("from", ""), rule.get("fromt", "str"), FROM_TYPES, "from")
        self.to = TypedValueField(rule.get("to", ""), rule.get("tot", "str"), ALL_TYPES, "to")
        self.from_label, self.to_label = QLabel("from"), QLabel("to")
        buttons = self.row_buttons()
        grid = QGridLayout(self)
        grid.setContentsMargins(4, 4, 4, 4)
        grid.setSpacing(3)
        # the values get the row's whole width under the action and property: a JSONata
        # expression needs room (and "…" opens a multi-line editor)
        grid.addWidget(self.action, 0, 0)
        grid.addWidget(self.prop, 0, 1, 1, 2)
        grid.addWidget(self.from_label, 1, 0, 1, 2)
        grid.addLayout(buttons, 1, 2, Qt.AlignRight)
        grid.addWidget(self.from_, 2, 0, 1, 3)
        grid.addWidget(self.to_label, 3, 0, 1, 2)
        grid.addWidget(self.to, 4, 0, 1, 3)
        grid.setColumnStretch(1, 1)
        t = rule.get("t", "set")
        if self.action.findData(t) < 0:
            self.action.addItem(str(t), t)
        self.action.setCurrentIndex(self.action.findData(t))
        self._sync()
        self.action.activated.connect(self._action_picked)
        for f in (self.prop, self.from_, self.to):
            f.committed.connect(self.edited)

    def _sync(self) -> None:
        t = self.action.currentData()
        keys = ACTION_KEYS.get(t, ())
        # the first label row also holds the buttons: it names the first value shown
        self.from_.setVisible("from" in keys)
        self.to.setVisible("to" in keys)
        self.to_label.setVisible("from" in keys and "to" in keys)
        self.to_label.setText("Replace with")
        to_text = {"move": "to"}.get(t, "to the value") if "to" in keys else ""
        self.from_label.setText("Search for" if "from" in keys else to_text)
        if t == "move":
            self.to.types = PROPERTY_TYPES
            text, kind = self.to.value()
            self.to.set_value(text, kind if kind in PROPERTY_TYPES else "msg")
        elif self.to.types != ALL_TYPES:
            self.to.types = ALL_TYPES
            self.to.set_value(*self.to.value())

    def _action_picked(self, _k: int) -> None:
        self._sync()
        self.edited.emit()

    def value(self) -> dict:
        t = self.action.currentData()
        rule = dict(self.rule)
        rule["p"], rule["pt"] = self.prop.value()
        rule["from"], rule["fromt"] = self.from_.value()
        rule["to"], rule["tot"] = self.to.value()
        return normalise_rule(rule, t) if t in ACTION_KEYS else {**self.rule, "t": t}


class ChangeRulesEditor(RowListEditor):
    """The change node's rules: rows of set / change / delete / move, "Add rule", the JSON toggle."""

    add_text = "Add rule"
    add_tip = "Add a rule that sets msg.payload (rules run top to bottom)"

    def make_row(self, item: dict, index: int) -> RuleRow:
        return RuleRow(item, index)

    def new_item(self, items: list) -> dict:
        return normalise_rule({}, "set")

    def add_rule(self) -> None:
        self.add_row()
