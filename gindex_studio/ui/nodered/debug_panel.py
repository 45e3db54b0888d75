"""The Debug dock, as in Node-RED's editor: messages that reach debug nodes (and errors nodes
log) while the flow runs, newest last, filterable; a click selects the node on the canvas. Buttons
fire an inject node and send a request to an ``http in`` endpoint of the deployed flow."""
from __future__ import annotations

import json
import time

from PySide6.QtCore import QElapsedTimer, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QProgressBar, QPushButton, QVBoxLayout, QWidget)

from gindex_studio.ui.theme import error_color

NODE_ROLE = Qt.UserRole + 1
MATCH_ROLE = Qt.UserRole + 2  # what the filter searches: the node's label and the message, not the time
MAX_ROWS = 1000
#: lines of messages the dock shows when it first opens
FIRST_LINES = 8


class DebugPanel(QWidget):
    jump = Signal(str)  # node id to highlight
    fire = Signal(str)  # inject node id
    send = Signal(str, str, str)  # method, path, body
    deploy = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.deploy_button = QPushButton("Deploy && run")
        self.deploy_button.clicked.connect(self.deploy)
        self.filter = QLineEdit(placeholderText="filter messages")
        self.filter.textChanged.connect(self._apply_filter)
        self.clear_button = QPushButton("Clear")
        self.inject_box = QComboBox()
        self.inject_box.setMinimumContentsLength(14)
        self.fire_button = QPushButton("Fire")
        self.fire_button.clicked.connect(self._fire)
        self.http_box = QComboBox()
        self.http_box.setMinimumContentsLength(14)
        self.body = QLineEdit(placeholderText="request body (optional)")
        self.send_button = QPushButton("Send")
        self.send_button.clicked.connect(self._send)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.itemClicked.connect(self._clicked)
        self.clear_button.clicked.connect(self.list.clear)
        top = QHBoxLayout()  # one row of controls: the rest of the dock's height is for messages
        for w in (self.deploy_button, self.filter, self.clear_button, self.inject_box, self.fire_button,
                  self.http_box, self.body, self.send_button):
            top.addWidget(w, 2 if w in (self.filter, self.body) else 0)
        top.insertSpacing(3, 12)
        self.progress_row = QWidget()
        self.progress_row.setObjectName("debug-progress")
        self.progress_label = QLabel()
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 0)  # busy: how long a start takes is not known
        self.progress_bar.setMaximumWidth(160)
        self.progress_bar.setTextVisible(False)
        row = QHBoxLayout(self.progress_row)
        row.setContentsMargins(2, 0, 2, 0)
        row.addWidget(self.progress_bar)
        row.addWidget(self.progress_label, 1)
        self.progress_row.hide()
        self._since = QElapsedTimer()
        self._what = ""
        self._tick = QTimer(self, interval=1000)
        self._tick.timeout.connect(self._show_progress_text)
        lay = QVBoxLayout(self)
        lay.setSizeConstraint(QVBoxLayout.SetNoConstraint)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(top)
        lay.addWidget(self.progress_row)
        lay.addWidget(self.list)
        self.labels: dict[str, str] = {}
        self.set_inputs([], [])

    def minimumSizeHint(self) -> QSize:
        """Small, like the Problems dock's: the dock may be squeezed (the rows then overlap) rather
        than raise the window's minimum size."""
        return QSize(80, 60)

    # ----- progress while the runtime starts and deploys -----------------------------------------
    def start_progress(self, what: str) -> None:
        """Show a busy line saying ``what`` is happening, with the seconds since it began."""
        self._what = what
        if not self.progress_row.isVisibleTo(self):
            self._since.start()
            self._tick.start()
        self.progress_row.show()
        self._show_progress_text()

    def end_progress(self) -> None:
        self._tick.stop()
        self.progress_row.hide()

    def progress_text(self) -> str:
        """The progress line's text ("" when it is hidden)."""
        return self.progress_label.text() if self.progress_row.isVisibleTo(self) else ""

    def _show_progress_text(self) -> None:
        secs = self._since.elapsed() // 1000 if self._since.isValid() else 0
        self.progress_label.setText(f"{self._what} ({secs} s)" if secs else self._what)

    def set_inputs(self, injects: list[tuple[str, str]], endpoints: list[tuple[str, str]]) -> None:
        """``injects``: (node id, label); ``endpoints``: (method, path) of ``http in`` nodes."""
        self.inject_box.clear()
        for node_id, label in injects:
            self.inject_box.addItem(label, node_id)
        self.http_box.clear()
        for method, path in endpoints:
            self.http_box.addItem(f"{method} {path}", (method, path))
        self.fire_button.setEnabled(bool(injects))
        self.send_button.setEnabled(bool(endpoints))

    def add_message(self, node_id: str | None, text: str, error: bool = False) -> QListWidgetItem:
        label = self.labels.get(node_id or "", node_id or "")
        it = QListWidgetItem(f"{time.strftime('%H:%M:%S')}  {label}\n{text}")
        it.setData(NODE_ROLE, node_id or "")
        it.setData(MATCH_ROLE, f"{label}\n{text}".lower())
        if error:
            it.setForeground(QBrush(QColor(error_color())))
        self.list.addItem(it)
        while self.list.count() > MAX_ROWS:
            self.list.takeItem(0)
        it.setHidden(not self._matches(it))
        self.list.scrollToBottom()
        return it

    def add_debug(self, event: dict) -> None:
        value = event.get("value")
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        self.add_message(event.get("node"), text, bool(event.get("error")))

    def add_response(self, r: dict) -> None:
        if r.get("status") is not None:
            body = r.get("body")
            text = f"{r['probe']} → HTTP {r['status']} {body if isinstance(body, str) else json.dumps(body)}"
        else:
            text = f"{r['probe']} → {r.get('note')}"
        self.add_message(None, text, r.get("status") is None or r["status"] >= 400)

    def visible_texts(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count()) if not self.list.item(i).isHidden()]

    def _matches(self, it: QListWidgetItem) -> bool:
        f = self.filter.text().strip().lower()
        return not f or f in it.data(MATCH_ROLE)

    def _apply_filter(self) -> None:
        for i in range(self.list.count()):
            it = self.list.item(i)
            it.setHidden(not self._matches(it))

    def _clicked(self, it: QListWidgetItem) -> None:
        node = it.data(NODE_ROLE)
        if node:
            self.jump.emit(node)

    def _fire(self) -> None:
        node = self.inject_box.currentData()
        if node:
            self.fire.emit(node)

    def _send(self) -> None:
        target = self.http_box.currentData()
        if target:
            self.send.emit(target[0], target[1], self.body.text())
