"""The task header above the canvas: title, domain and prompt of a benchmark task.

Shown when the flow is a task (dataset shape). Every edit is a ``SetTaskField`` undo command;
typing in one field merges into one undo entry. The domain field completes with the domains of
the bundled demo programs.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCompleter,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from gindex_studio.ui.model import commands as cmd


def known_domains() -> list[str]:
    """Domain names of the bundled demo curriculum (folder names), for completion."""
    try:
        from gindex_studio.paths import DEMO_DIR
    except ImportError:
        return []
    from pathlib import Path

    root = Path(DEMO_DIR, "programs")
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


class TaskHeader(QWidget):
    """Title / domain line and the prompt, bound to one FlowEditor's document."""

    def __init__(self, editor, parent=None):
        super().__init__(parent)
        self.editor = editor
        self.doc = editor.doc
        self.setObjectName("task-header")
        self.title = QLineEdit()
        self.title.setObjectName("task-title")
        self.title.setPlaceholderText("Task title")
        self.domain = QLineEdit()
        self.domain.setObjectName("task-domain")
        self.domain.setPlaceholderText("domain, e.g. telegram-2-reply")
        self.domain.setCompleter(QCompleter(known_domains(), self.domain))
        self.domain.setMaximumWidth(240)
        self.prompt = QPlainTextEdit()
        self.prompt.setObjectName("prompt")
        self.prompt.setPlaceholderText("Task prompt: the English text the system reads (the dataset's \"text\")")
        self.prompt.setMaximumHeight(64)
        self.prompt.setTabChangesFocus(True)

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(QLabel("<b>Task</b>"))
        top.addWidget(self.title, 1)
        dl = QLabel("Domain")
        dl.setBuddy(self.domain)
        top.addWidget(dl)
        top.addWidget(self.domain)
        form = QFormLayout(self)
        form.setContentsMargins(6, 4, 6, 2)
        form.setSpacing(3)
        form.addRow(top)
        pl = QLabel("Prompt")
        pl.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        form.addRow(pl, self.prompt)

        self.title.textEdited.connect(lambda t: self._edit("title", t))
        self.domain.textEdited.connect(lambda t: self._edit("name", t))
        self.prompt.textChanged.connect(lambda: self._edit("text", self.prompt.toPlainText()))
        self.doc.task_changed.connect(self.sync)
        self.doc.flow_reset.connect(self.sync)
        self.sync()

    def _edit(self, key: str, text: str) -> None:
        if text != self.doc.task_field(key):
            self.editor.push(cmd.SetTaskField(self.doc, key, text))

    def sync(self) -> None:
        """Show the document's task (after undo, a reset, or turning an array into a task)."""
        self.setVisible(self.doc.has_prompt)
        for field, key in ((self.title, "title"), (self.domain, "name")):
            if field.text() != self.doc.task_field(key):
                field.setText(self.doc.task_field(key))
        if self.prompt.toPlainText() != self.doc.prompt:
            self.prompt.blockSignals(True)
            self.prompt.setPlainText(self.doc.prompt)
            self.prompt.blockSignals(False)
