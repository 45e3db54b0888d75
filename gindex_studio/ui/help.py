"""The Help menu's windows: the keyboard shortcuts (generated from the actions registry), the
user guide (``resources/guide/user-guide.md``, rendered in-app) and About (with versions)."""
from __future__ import annotations

import html
import platform
import re

from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
)

from gindex_studio.paths import RESOURCES

GUIDE = RESOURCES / "guide" / "user-guide.md"


def shortcut_rows(actions) -> list[tuple[str, str, str]]:
    """(command, keys, what it does) of every action that has a shortcut, in registry order:
    ``actions`` is any iterable of QActions (the registry's, plus actions other windows add)."""
    rows = []
    for a in actions:
        keys = a.shortcut().toString(QKeySequence.NativeText)
        if keys:
            tip = (a.statusTip() or a.toolTip()).removesuffix(f" ({keys})")
            rows.append((re.sub("&(&?)", r"\1", a.text()), keys, tip))  # "&&" is a shown "&"
    return rows


class ShortcutsDialog(QDialog):
    """A filterable table of the shortcuts."""

    def __init__(self, rows: list[tuple[str, str, str]], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setObjectName("shortcuts")
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by command or key")
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels(["Command", "Keys", "What it does"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        h.setSectionResizeMode(1, QHeaderView.ResizeToContents)
        h.setStretchLastSection(True)
        self.filter.textChanged.connect(self._filter)
        lay = QVBoxLayout(self)
        lay.addWidget(self.filter)
        lay.addWidget(self.table)
        self.resize(720, 560)

    def _filter(self, text: str) -> None:
        t = text.lower().strip()
        for r in range(self.table.rowCount()):
            row = " ".join(self.table.item(r, c).text().lower() for c in range(3))
            self.table.setRowHidden(r, bool(t) and t not in row)


class GuideWindow(QDialog):
    """The user guide, rendered from Markdown in a browser that follows its own links."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("gindex-studio user guide")
        self.setObjectName("user-guide")
        self.setWindowFlag(Qt.WindowMaximizeButtonHint, True)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        try:
            text = GUIDE.read_text(encoding="utf-8")
        except OSError as e:
            text = f"# The user guide is missing\n\n{GUIDE} could not be read: {e.strerror or e}"
        self.browser.setMarkdown(text)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.browser)
        self.resize(820, 680)

    def headings(self) -> list[str]:
        """The guide's section titles as rendered (for the window's own table of contents)."""
        doc = self.browser.document()
        out, block = [], doc.begin()
        while block.isValid():
            if block.blockFormat().headingLevel():
                out.append(block.text())
            block = block.next()
        return out


def about_text() -> str:
    from PySide6 import __version__ as pyside

    from gindex_studio import __version__ as ours

    from gindex_studio.core.scoring.search_info import search_in_use

    native = html.escape(search_in_use())  # C or pure Python, and why (as gindex-studio --version)
    try:
        import networkx
        nx = networkx.__version__
    except ImportError:  # pragma: no cover - a core dependency
        nx = "?"
    return (f"<h3>gindex-studio {ours}</h3>"
            "<p>A studio for the g-index: author flow programs, score them with the exact divergence Δ, "
            "measure Ω against a curriculum, curate curricula.</p>"
            f"<p>Python {platform.python_version()} · PySide6 {pyside} (Qt {qVersion()})"
            f" · networkx {nx} · {native}<br>{platform.system()} {platform.machine()}</p>")


def show_about(parent) -> QMessageBox:
    box = QMessageBox(QMessageBox.Information, "About gindex-studio", about_text(), QMessageBox.Ok, parent)
    box.setObjectName("about")
    box.setTextFormat(Qt.RichText)
    box.open()
    return box

