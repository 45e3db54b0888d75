"""The change node's rules as a table of rows: set / change / delete / move, each with the
property it acts on and, as the action needs, a "from" and a "to" typed value.

``ChangeRulesEditor.value()`` is the rules list in Node-RED's shape (``t, p, pt, from, fromt, to,
tot``; keys the editor does not know, such as ``dc``, are kept). ``committed`` fires after every
finished edit (a field, an action, a row added, moved or removed). The raw JSON stays one click
away ("JSON"), for anything the rows cannot say.
"""
from __future__ import annotations

import copy
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.ui.panels.json_editor import JsonEditor
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


class RuleRow(QFrame):
    """One rule: action, property, and the from / to values the action needs."""

    edited = Signal()
    remove_requested = Signal()
    move_requested = Signal(int)  # -1 up, +1 down

    def __init__(self, rule: dict, index: int, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.StyledPanel)
        self.setObjectName(f"rule:{index}")
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
        buttons = QHBoxLayout()
        buttons.setSpacing(0)
        for text, tip, name, slot in (("▲", "Move this rule up", "rule-up", lambda: self.move_requested.emit(-1)),
                                      ("▼", "Move this rule down", "rule-down", lambda: self.move_requested.emit(1)),
                                      ("✕", "Remove this rule", "rule-remove", self.remove_requested.emit)):
            b = QToolButton()
            b.setText(text)
            b.setToolTip(tip)
            b.setObjectName(name)
            b.setAutoRaise(True)
            b.clicked.connect(lambda _=False, s=slot: s())
            buttons.addWidget(b)
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


class ChangeRulesEditor(QWidget):
    """Rows of rules with Add rule and a JSON toggle; ``value()`` raises ValueError (the JSON
    editor says why) when the raw JSON is shown and does not parse."""

    committed = Signal()

    def __init__(self, rules: Any, parent=None):
        super().__init__(parent)
        self.rows: list[RuleRow] = []
        self.rows_box = QWidget()
        self.rows_layout = QVBoxLayout(self.rows_box)
        self.rows_layout.setContentsMargins(0, 0, 0, 0)
        self.rows_layout.setSpacing(3)
        self.add_button = QPushButton("Add rule")
        self.add_button.setObjectName("add-rule")
        self.add_button.setToolTip("Add a rule that sets msg.payload (rules run top to bottom)")
        self.add_button.clicked.connect(self.add_rule)
        page = QWidget()
        pv = QVBoxLayout(page)
        pv.setContentsMargins(0, 0, 0, 0)
        pv.addWidget(self.rows_box)
        pv.addWidget(self.add_button, 0, Qt.AlignLeft)
        self.json = JsonEditor(rules, as_string=False)
        self.json.committed.connect(self.committed)
        self.stack = QStackedWidget()
        self.stack.addWidget(page)
        self.stack.addWidget(self.json)
        self.raw = QToolButton()
        self.raw.setText("JSON")
        self.raw.setObjectName("rules-json")
        self.raw.setCheckable(True)
        self.raw.setToolTip("Edit the rules as raw JSON")
        self.raw.toggled.connect(self._toggle_raw)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.stack)
        lay.addWidget(self.raw, 0, Qt.AlignRight)
        self.set_value(rules)

    # ----- value ------------------------------------------------------------------------------
    def set_value(self, rules: Any) -> None:
        """Show ``rules``; anything that is not a list of rule objects opens the JSON view."""
        self.json.set_value(rules)
        ok = isinstance(rules, list) and all(isinstance(r, dict) for r in rules)
        self._build_rows(rules if ok else [])
        if not ok and not self.raw.isChecked():
            self.raw.setChecked(True)
        self.raw.setEnabled(ok or not self.raw.isChecked())

    def value(self) -> list:
        if self.raw.isChecked():
            return self.json.value()
        return [r.value() for r in self.rows]

    def _build_rows(self, rules: list) -> None:
        for r in self.rows:
            r.setParent(None)
            r.deleteLater()
        self.rows = []
        for k, rule in enumerate(rules):
            row = RuleRow(rule, k)
            row.edited.connect(self.committed)
            row.remove_requested.connect(lambda r=row: self._remove(r))
            row.move_requested.connect(lambda d, r=row: self._move(r, d))
            self.rows_layout.addWidget(row)
            row.show()  # shown now, not at the next event loop turn (the layout's default)
            self.rows.append(row)

    # ----- row edits --------------------------------------------------------------------------
    def add_rule(self) -> None:
        rules = self.value() + [normalise_rule({}, "set")]
        self._build_rows(rules)
        self.rows[-1].prop.edit.setFocus()
        self.committed.emit()

    def _remove(self, row: RuleRow) -> None:
        rules = [r.value() for r in self.rows if r is not row]
        self._build_rows(rules)
        self.committed.emit()

    def _move(self, row: RuleRow, step: int) -> None:
        rules = [r.value() for r in self.rows]
        k = self.rows.index(row)
        j = k + step
        if 0 <= j < len(rules):
            rules[k], rules[j] = rules[j], rules[k]
            self._build_rows(rules)
            self.committed.emit()

    def _toggle_raw(self, on: bool) -> None:
        if on:
            self.json.set_value([r.value() for r in self.rows])
        else:
            try:
                rules = self.json.value()
            except ValueError:
                rules = None  # the JSON editor says why
            if not (isinstance(rules, list) and all(isinstance(r, dict) for r in rules)):
                self.raw.blockSignals(True)
                self.raw.setChecked(True)  # rows cannot show it: stay on the JSON
                self.raw.blockSignals(False)
                return
            self._build_rows(copy.deepcopy(rules))
        self.stack.setCurrentIndex(1 if on else 0)
