"""The progress line of a system run in the compare window's experiment panel: answered / total,
errors, requests in flight, tokens and cost when the system gives them, and Cancel or Resume."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from gindex_studio.ui.compare.elided import ElidedLabel
from gindex_studio.ui.panels.small_widgets import push_button
from gindex_studio.ui.theme import error_color


def progress_text(p) -> str:
    """One line of a ``RunProgress``."""
    if p.state == "preparing":
        return "preparing: reading the tasks, computing Ω of every task…"
    if p.state == "scoring":
        return f"scoring the {p.answered} answers already in the log…"
    parts = [f"answered {p.answered} of {p.total}"]
    if p.errors:
        parts.append(f"{p.errors} error{'s' if p.errors != 1 else ''}")
    if p.state in ("asking", "cancelling") and p.in_flight:
        parts.append(f"{p.in_flight} in flight")
    if p.prompt_tokens or p.completion_tokens:
        parts.append(f"{(p.prompt_tokens or 0) + (p.completion_tokens or 0):,} tokens")
    if p.cost is not None:
        parts.append(f"cost {p.cost:,.4f}")
    parts.append(f"{p.seconds:,.1f} s")
    line = " · ".join(parts)
    if p.state == "cancelling":
        return "cancelling: the requests in flight finish and are kept · " + line
    if p.state == "cancelled" and not p.total:
        return "cancelled before any request was sent; Resume starts it again"
    if p.state == "cancelled":
        return f"cancelled: {line}; Resume scores the answers kept and asks only the {p.total - p.answered} not answered"
    if p.state == "finished":
        return "finished: " + line
    return line


class RunBar(QWidget):
    """A run's progress line, its last error, and Cancel (while it runs) or Resume (once stopped)."""

    cancel_requested = Signal()
    resume_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("run-bar")
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 2, 0, 2)
        col.setSpacing(1)
        row = QHBoxLayout()
        self.line = ElidedLabel("", lines=2)
        self.line.setObjectName("run-progress")
        row.addWidget(self.line, 1)
        self.cancel_button = push_button("Cancel Run", "run-cancel", "Send no more requests; those in flight "
                                         "finish and their answers are kept", self.cancel_requested.emit)
        row.addWidget(self.cancel_button)
        self.resume_button = push_button("Resume", "run-resume", "Ask only what the run's log holds no answer for",
                                         self.resume_requested.emit, shown=False)
        row.addWidget(self.resume_button)
        col.addLayout(row)
        self.error = ElidedLabel("", lines=1)
        self.error.setObjectName("run-error")
        self.error.setStyleSheet(f"color: {error_color()}")
        self.error.hide()
        col.addWidget(self.error)

    def show_progress(self, p) -> None:
        self.line.setText(progress_text(p))
        running = p.state in ("preparing", "scoring", "asking", "cancelling")
        self.cancel_button.setVisible(running)
        self.cancel_button.setEnabled(p.state != "cancelling")
        self.resume_button.setVisible(p.state in ("cancelled", "failed"))
        if p.last_error and p.state != "failed":
            self.error.setText(f"last error: {p.last_error}")
            self.error.show()
        elif p.state == "preparing":  # a resume: the last run's error is no longer news
            self.error.hide()

    def show_failed(self, line: str) -> None:
        """The run could not go on: why, in the line, and Resume to try again."""
        self.line.setText("the run stopped")
        self.error.setText(line)
        self.error.setToolTip(line)
        self.error.show()
        self.cancel_button.hide()
        self.resume_button.show()
