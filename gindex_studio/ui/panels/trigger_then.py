"""The trigger node's "then" as Node-RED's dialog shows it: wait to be reset, wait for, or resend
it every — an amount beside the last two — written to the node's ``duration`` ("0", the amount,
minus the amount). ``committed`` fires after a finished change; ``value()`` is the duration."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtCore import QRegularExpression
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QWidget

from gindex_studio.core.editing.node_forms import THEN, then_duration, then_mode
from gindex_studio.ui.panels.flush import flush


class TriggerThenField(QWidget):
    committed = Signal()

    def __init__(self, duration, parent=None):
        super().__init__(parent)
        self.mode = QComboBox()
        self.mode.setObjectName("trigger-then")
        for value, text in THEN:
            self.mode.addItem(text, value)
        self.amount = QLineEdit()
        self.amount.setObjectName("trigger-amount")
        self.amount.setValidator(QRegularExpressionValidator(QRegularExpression(r"[0-9]*\.?[0-9]*")))
        self.amount.setToolTip("How long, in the wait units below")
        flush(QHBoxLayout(self), (self.mode, 1), self.amount)
        self.set_value(duration)
        self.mode.activated.connect(self._edited)
        self.amount.editingFinished.connect(self._edited)

    def set_value(self, duration) -> None:
        mode, amount = then_mode(duration)
        self.mode.setCurrentIndex(max(0, self.mode.findData(mode)))
        self.amount.setText(amount)
        self.amount.setVisible(mode != "block")
        self._last = self.value()

    def value(self) -> str:
        return then_duration(self.mode.currentData(), self.amount.text())

    def _edited(self, *_a) -> None:
        self.amount.setVisible(self.mode.currentData() != "block")
        if self.value() != self._last:
            self._last = self.value()
            self.committed.emit()
