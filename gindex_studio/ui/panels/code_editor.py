"""A code editor for the inspector: fixed-width text with line numbers, JavaScript (or JSONata)
highlighting and auto-indent; ``CodeField`` puts one in the dock with an "Edit code…" button that
opens the same text in a large dialog.

``CodeEditor.editing_finished`` fires on focus out and Ctrl+Enter, as the other inspector fields
do. Highlighting is by regular expressions, line by line (block comments carry over lines through
the block state): enough to read code, not a parser.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QSyntaxHighlighter, QTextCharFormat, QTextCursor, QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.ui.panels.json_editor import mono_font
from gindex_studio.ui.theme import code_colors

INDENT = "    "
JS_KEYWORDS = (
    "await break case catch class const continue debugger default delete do else export extends finally for "
    "function if import in instanceof let new of return super switch this throw try typeof var void while "
    "with yield async true false null undefined NaN Infinity"
).split()
#: names a Node-RED function body is given (msg, node, context and friends)
JS_NAMES = "msg node context flow global env RED util console Buffer Date JSON Math Object Array Promise".split()
JSONATA_KEYWORDS = "and or in true false null function".split()


class Highlighter(QSyntaxHighlighter):
    """Keywords, names the runtime provides, strings, numbers and comments, in the theme's colours."""

    def __init__(self, document, language: str = "javascript"):
        super().__init__(document)
        c = code_colors()
        self.formats = {role: self._fmt(colour, bold=role == "keyword", italic=role == "comment")
                        for role, colour in c.items()}
        words = JS_KEYWORDS if language == "javascript" else JSONATA_KEYWORDS
        names = JS_NAMES if language == "javascript" else ()
        self.rules = [
            (re.compile(r"\b(?:%s)\b" % "|".join(words)), "keyword"),
            (re.compile(r"\b(?:%s)\b" % "|".join(names)) if names else None, "name"),
            (re.compile(r"\$\w*") if language == "jsonata" else None, "name"),
            (re.compile(r"\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b|\b0x[0-9a-fA-F]+\b"), "number"),
            (re.compile(r"\"(?:\\.|[^\"\\])*\"?|'(?:\\.|[^'\\])*'?|`(?:\\.|[^`\\])*`?"), "string"),
        ]
        self.rules = [(rx, role) for rx, role in self.rules if rx is not None]
        self.line_comment = re.compile(r"//.*$")

    @staticmethod
    def _fmt(colour: str, bold=False, italic=False) -> QTextCharFormat:
        f = QTextCharFormat()
        f.setForeground(QColor(colour))
        if bold:
            f.setFontWeight(QFont.Bold)
        f.setFontItalic(italic)
        return f

    def highlightBlock(self, text: str) -> None:
        for rx, role in self.rules:
            for m in rx.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), self.formats[role])
        # comments last (they win over what they contain), outside strings
        spans = [(m.start(), m.end()) for m in self.rules[-1][0].finditer(text)]
        in_string = lambda i: any(a <= i < b for a, b in spans)  # noqa: E731
        for m in self.line_comment.finditer(text):
            if not in_string(m.start()):
                self.setFormat(m.start(), len(text) - m.start(), self.formats["comment"])
                break
        self.setCurrentBlockState(0)
        start = 0 if self.previousBlockState() == 1 else -1
        i = 0
        while True:
            if start < 0:
                start = text.find("/*", i)
                while start >= 0 and in_string(start):
                    start = text.find("/*", start + 2)
                if start < 0:
                    break
            end = text.find("*/", start + 2 if start >= 0 else 0)
            if end < 0:
                self.setFormat(start, len(text) - start, self.formats["comment"])
                self.setCurrentBlockState(1)
                break
            self.setFormat(start, end + 2 - start, self.formats["comment"])
            i, start = end + 2, -1


class _Gutter(QWidget):
    def __init__(self, editor: "CodeEditor"):
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, e) -> None:
        self.editor.paint_gutter(e)


class CodeEditor(QPlainTextEdit):
    """Fixed-width, no wrapping, line numbers, highlighting; Return keeps the indent (one more
    after ``{ [ (``), Tab / Shift+Tab indent and dedent, ``}`` typed on a blank line dedents."""

    editing_finished = Signal()

    def __init__(self, text: str = "", language: str = "javascript", parent=None):
        super().__init__(parent)
        self.setFont(mono_font())
        self.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.setTabChangesFocus(False)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * len(INDENT))
        self.gutter = _Gutter(self)
        self.highlighter = Highlighter(self.document(), language)
        self.blockCountChanged.connect(self._fit_gutter)
        self.updateRequest.connect(self._scroll_gutter)
        self._fit_gutter()
        self.setPlainText(text)

    # ----- gutter -----------------------------------------------------------------------------
    def gutter_width(self) -> int:
        digits = max(2, len(str(self.blockCount())))
        return 10 + self.fontMetrics().horizontalAdvance("9") * digits

    def _fit_gutter(self, *_a) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _scroll_gutter(self, rect, dy) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, e) -> None:
        super().resizeEvent(e)
        cr = self.contentsRect()
        self.gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def paint_gutter(self, e) -> None:
        p = QPainter(self.gutter)
        pal = self.palette()
        p.fillRect(e.rect(), pal.alternateBase())
        p.setPen(pal.placeholderText().color())
        block = self.firstVisibleBlock()
        n = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        h = self.fontMetrics().height()
        while block.isValid() and top <= e.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= e.rect().top():
                p.drawText(0, top, self.gutter.width() - 5, h, Qt.AlignRight, str(n + 1))
            block, top, n = block.next(), bottom, n + 1
        p.end()

    # ----- typing -----------------------------------------------------------------------------
    def keyPressEvent(self, e) -> None:
        key, mods = e.key(), e.modifiers()
        if key in (Qt.Key_Return, Qt.Key_Enter) and mods & Qt.ControlModifier:
            self.editing_finished.emit()
            return
        cur = self.textCursor()
        if key in (Qt.Key_Return, Qt.Key_Enter):
            line = cur.block().text()[: cur.positionInBlock()]
            indent = line[: len(line) - len(line.lstrip())]
            if line.rstrip().endswith(("{", "[", "(")):
                indent += INDENT
            cur.insertText("\n" + indent)
            self.setTextCursor(cur)
            return
        if key == Qt.Key_Backtab or key == Qt.Key_Tab and mods & Qt.ShiftModifier:
            self._shift_lines(-1)
            return
        if key == Qt.Key_Tab:
            if cur.hasSelection():
                self._shift_lines(1)
            else:
                cur.insertText(INDENT)
            return
        if e.text() in ("}", "]", ")"):
            line = cur.block().text()
            if not line[: cur.positionInBlock()].strip() and line.startswith(INDENT):
                cur.movePosition(QTextCursor.StartOfBlock)
                cur.movePosition(QTextCursor.Right, QTextCursor.KeepAnchor, len(INDENT))
                cur.removeSelectedText()
        super().keyPressEvent(e)

    def _shift_lines(self, step: int) -> None:
        cur = self.textCursor()
        doc = self.document()
        first = doc.findBlock(cur.selectionStart()).blockNumber()
        last = doc.findBlock(max(cur.selectionStart(), cur.selectionEnd() - (1 if cur.hasSelection() else 0))).blockNumber()
        cur.beginEditBlock()
        for n in range(first, last + 1):
            b = doc.findBlockByNumber(n)
            c = QTextCursor(b)
            if step > 0:
                c.insertText(INDENT)
            else:
                k = len(b.text()) - len(b.text().lstrip(" "))
                c.movePosition(QTextCursor.Right, QTextCursor.KeepAnchor, min(k, len(INDENT)))
                c.removeSelectedText()
        cur.endEditBlock()

    def focusOutEvent(self, e) -> None:
        super().focusOutEvent(e)
        self.editing_finished.emit()


class CodeDialog(QDialog):
    """The text in a large editor (most of the screen); ``text()`` after ``exec()`` accepted."""

    def __init__(self, text: str, title: str, language: str = "javascript", parent=None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.editor = CodeEditor(text, language)
        self.editor.setObjectName("code-dialog-editor")
        hint = QLabel("Tab indents, Shift+Tab dedents; Return keeps the indent.")
        hint.setStyleSheet("color: palette(placeholder-text)")
        box = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.editor, 1)
        lay.addWidget(hint)
        lay.addWidget(box)
        screen = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        self.resize(min(960, int(screen.width() * 0.85)), min(720, int(screen.height() * 0.85)))

    def text(self) -> str:
        return self.editor.toPlainText()


class CodeField(QWidget):
    """An in-dock code editor with an "Edit code…" button; ``committed`` after an edit finished
    here or in the dialog."""

    committed = Signal()

    def __init__(self, text: str, title: str = "Edit code", language: str = "javascript", height: int = 220,
                 parent=None):
        super().__init__(parent)
        self.title, self.language = title, language
        self.editor = CodeEditor(text, language)
        self.editor.setMinimumHeight(height)
        self.editor.editing_finished.connect(self.committed)
        self.open_button = QPushButton("Edit code…" if language == "javascript" else "Edit expression…")
        self.open_button.setObjectName("edit-code")
        self.open_button.setToolTip("Edit in a large window")
        self.open_button.clicked.connect(self.open_dialog)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addStretch(1)
        top.addWidget(self.open_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.editor, 1)
        lay.addLayout(top)

    def value(self) -> str:
        return self.editor.toPlainText()

    def set_value(self, text: str) -> None:
        if text != self.editor.toPlainText():
            self.editor.setPlainText(text)

    def open_dialog(self) -> None:
        d = CodeDialog(self.value(), self.title, self.language, self.window())
        if d.exec() == QDialog.Accepted:
            self.set_value(d.text())
            self.committed.emit()
