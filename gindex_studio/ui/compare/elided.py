"""ElidedLabel: plain text word-wrapped into at most ``lines`` lines of its width, cut with "…"
when it is longer; ``text()`` and the tooltip keep the whole text."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy


class ElidedLabel(QLabel):
    """A label of at most ``lines`` lines (its height is fixed to them), elided at the end."""

    def __init__(self, text: str = "", lines: int = 2, parent=None):
        super().__init__(parent)
        self.lines = lines
        self._full = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.PlainText)
        self.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        self.setText(text)
        self.setFixedHeight(self.height_for_lines())

    def text(self) -> str:  # the whole text, not what fits
        return self._full

    def setText(self, text: str) -> None:
        self._full = text or ""
        self.setToolTip(self._full if self._full else "")
        self._elide()

    def height_for_lines(self) -> int:
        m = self.contentsMargins()
        return self.fontMetrics().lineSpacing() * self.lines + m.top() + m.bottom() + 2

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.height_for_lines())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.height_for_lines())

    def resizeEvent(self, e):
        super().resizeEvent(e)
        self._elide()

    def shown_text(self) -> str:
        """What is drawn: the whole text, or its longest start that fits, ending in "…"."""
        return super().text()

    def _fits(self, text: str, width: int) -> bool:
        r = self.fontMetrics().boundingRect(QRect(0, 0, width, 100_000), Qt.TextWordWrap, text)
        return r.height() <= self.fontMetrics().lineSpacing() * self.lines + 1

    def _elide(self) -> None:
        full, width = self._full, max(1, self.contentsRect().width())
        if self._fits(full, width):
            shown = full
        else:  # the longest start that fits with the ellipsis (a binary search on its length)
            lo, hi = 0, len(full)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self._fits(full[:mid].rstrip() + "…", width):
                    lo = mid
                else:
                    hi = mid - 1
            shown = full[:lo].rstrip() + "…"
        if super().text() != shown:
            super().setText(shown)

    def changeEvent(self, e):
        super().changeEvent(e)
        if e.type() == QEvent.FontChange:
            self.setFixedHeight(self.height_for_lines())
            self._elide()
