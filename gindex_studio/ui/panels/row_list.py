"""A list of rows edited as Node-RED's editable lists are: one framed row per item with ▲ ▼ ✕
buttons, "+ add" under them, and (where the list is JSON) the raw JSON one click away.

``RowListEditor`` is subclassed per list (change rules, switch rules, inject properties, request
headers): a subclass says how an item becomes a row (``make_row``) and what "+ add" appends
(``new_item``). ``value()`` is the list of the rows' values; ``committed`` fires after every
finished edit (a field, a row added, moved or removed). ``origins`` follows each row back to the
position its item had when the list was last shown or taken (``None`` for an added row), for
lists whose positions mean something else too (a switch rule's output port).
"""
from __future__ import annotations

import copy
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.ui.panels.json_editor import JsonEditor


class ListRow(QFrame):
    """One row: a subclass lays out its fields, calls ``row_buttons()`` for ▲ ▼ ✕, emits
    ``edited`` after a finished edit and returns its item from ``value()``."""

    edited = Signal()
    remove_requested = Signal()
    move_requested = Signal(int)  # -1 up, +1 down

    def __init__(self, index: int, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.StyledPanel)
        self.setObjectName(f"rule:{index}")

    def row_buttons(self) -> QHBoxLayout:
        buttons = QHBoxLayout()
        buttons.setSpacing(0)
        for text, tip, name, slot in (("▲", "Move this row up", "rule-up", lambda: self.move_requested.emit(-1)),
                                      ("▼", "Move this row down", "rule-down", lambda: self.move_requested.emit(1)),
                                      ("✕", "Remove this row", "rule-remove", self.remove_requested.emit)):
            b = QToolButton()
            b.setText(text)
            b.setToolTip(tip)
            b.setObjectName(name)
            b.setAutoRaise(True)
            b.clicked.connect(lambda _=False, s=slot: s())
            buttons.addWidget(b)
        return buttons

    def two_lines(self, head: list, body: QWidget) -> None:
        """Lay the row out as ``head`` (widgets; the last one stretches) with ▲ ▼ ✕ on one line and
        ``body`` under it, the row's whole width."""
        top = QHBoxLayout()
        top.setSpacing(2)
        for k, w in enumerate(head):
            top.addWidget(w, 1 if k == len(head) - 1 else 0)
        top.addLayout(self.row_buttons())
        v = QVBoxLayout(self)
        v.setContentsMargins(4, 4, 4, 4)
        v.setSpacing(3)
        v.addLayout(top)
        v.addWidget(body)

    def value(self) -> Any:
        raise NotImplementedError


class RowListEditor(QWidget):
    """Rows, "+ add" and (``raw_json``) a JSON toggle; ``value()`` raises ValueError (the JSON
    editor says why) when the raw JSON is shown and does not parse."""

    committed = Signal()
    add_text = "+ add"
    add_tip = "Add a row"
    add_name = "add-rule"
    raw_json = True

    def __init__(self, items: Any, parent=None):
        super().__init__(parent)
        self.rows: list[ListRow] = []
        self.origins: list[int | None] = []
        self.rows_box = QWidget()
        self.rows_layout = QVBoxLayout(self.rows_box)
        self.rows_layout.setContentsMargins(0, 0, 0, 0)
        self.rows_layout.setSpacing(3)
        self.add_button = QPushButton(self.add_text)
        self.add_button.setObjectName(self.add_name)
        self.add_button.setToolTip(self.add_tip)
        self.add_button.clicked.connect(self.add_row)
        page = QWidget()
        pv = QVBoxLayout(page)
        pv.setContentsMargins(0, 0, 0, 0)
        pv.addWidget(self.rows_box)
        pv.addWidget(self.add_button, 0, Qt.AlignLeft)
        self.json = JsonEditor(items, as_string=False)
        self.json.committed.connect(self.committed)
        self.stack = QStackedWidget()
        self.stack.addWidget(page)
        self.stack.addWidget(self.json)
        self.raw = QToolButton()
        self.raw.setText("JSON")
        self.raw.setObjectName("rules-json")
        self.raw.setCheckable(True)
        self.raw.setToolTip("Edit the list as raw JSON")
        self.raw.toggled.connect(self._toggle_raw)
        self.raw.setVisible(self.raw_json)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.stack)
        lay.addWidget(self.raw, 0, Qt.AlignRight)
        self.set_value(items)

    # ----- what a subclass says ---------------------------------------------------------------
    def make_row(self, item: Any, index: int) -> ListRow:
        raise NotImplementedError

    def new_item(self, items: list) -> Any:
        raise NotImplementedError

    def fits(self, items: Any) -> bool:
        """Whether rows can show ``items`` (else the JSON view opens)."""
        return isinstance(items, list) and all(isinstance(r, dict) for r in items)

    def row_changed(self) -> None:
        """After a row's edit, before ``committed`` (a subclass renumbers, re-labels …)."""

    # ----- value ------------------------------------------------------------------------------
    def set_value(self, items: Any) -> None:
        """Show ``items``; anything rows cannot show opens the JSON view."""
        self.json.set_value(items)
        ok = self.fits(items)
        self._build_rows(items if ok else [])
        if not ok and not self.raw.isChecked():
            self.raw.setChecked(True)
        self.raw.setEnabled(ok or not self.raw.isChecked())

    def value(self) -> list:
        if self.raw.isChecked():
            return self.json.value()
        return [r.value() for r in self.rows]

    def take_origins(self) -> list[int | None]:
        """Where each row came from since the last call (or ``set_value``); the rows are then
        taken as being where they are."""
        origins = list(self.origins)
        self.origins = list(range(len(self.rows)))
        return origins

    def _build_rows(self, items: list, origins: list | None = None) -> None:
        for r in self.rows:
            r.setParent(None)
            r.deleteLater()
        self.rows = []
        self.origins = list(origins) if origins is not None else list(range(len(items)))
        for k, item in enumerate(items):
            row = self.make_row(item, k)
            row.edited.connect(self._row_edited)
            row.remove_requested.connect(lambda r=row: self._remove(r))
            row.move_requested.connect(lambda d, r=row: self._move(r, d))
            self.rows_layout.addWidget(row)
            row.show()  # shown now, not at the next event loop turn (the layout's default)
            self.rows.append(row)
        self.row_changed()

    def _row_edited(self) -> None:
        self.row_changed()
        self.committed.emit()

    # ----- row edits --------------------------------------------------------------------------
    def add_row(self) -> None:
        items = [r.value() for r in self.rows]
        self._build_rows(items + [self.new_item(items)], self.origins + [None])
        self.focus_row(self.rows[-1])
        self.committed.emit()

    def focus_row(self, row: ListRow) -> None:
        """Put the keyboard in a fresh row (its first text field)."""
        edit = row.findChild(QLineEdit)
        if edit is not None:
            edit.setFocus()

    def _remove(self, row: ListRow) -> None:
        k = self.rows.index(row)
        items = [r.value() for r in self.rows if r is not row]
        self._build_rows(items, self.origins[:k] + self.origins[k + 1:])
        self.committed.emit()

    def _move(self, row: ListRow, step: int) -> None:
        items = [r.value() for r in self.rows]
        k = self.rows.index(row)
        j = k + step
        if 0 <= j < len(items):
            origins = list(self.origins)
            items[k], items[j] = items[j], items[k]
            origins[k], origins[j] = origins[j], origins[k]
            self._build_rows(items, origins)
            self.committed.emit()

    def _toggle_raw(self, on: bool) -> None:
        if on:
            self.json.set_value([r.value() for r in self.rows])
        else:
            try:
                items = self.json.value()
            except ValueError:
                items = None  # the JSON editor says why
            if not self.fits(items):
                self.raw.blockSignals(True)
                self.raw.setChecked(True)  # rows cannot show it: stay on the JSON
                self.raw.blockSignals(False)
                return
            self._build_rows(copy.deepcopy(items))
        self.stack.setCurrentIndex(1 if on else 0)
