"""One side of the compare view: a title with the program's counts, the editor, and (generated
side) the model text with the syntax error marked where it happened."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QPalette, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QSplitter, QTextEdit, QToolButton, QVBoxLayout, QWidget

from gindex_studio.ui.theme import role_colors
from gindex_studio.core.flows.flow import Flow
from gindex_studio.core.flows.lenient import SyntaxIssue

from gindex_studio.ui.editor import FlowEditor


class Side(QWidget):
    """One side of the comparison: a title, the editor and (generated side) the model text with
    the syntax error marked where it happened."""

    def __init__(self, role: str, library, parent=None):
        super().__init__(parent)
        self.role = role
        self.editor = FlowEditor(Flow(), None, library)
        self.title = QLabel()
        self.title.setObjectName(f"{role}-title")
        self.title.setTextFormat(Qt.RichText)
        self.title.setWordWrap(True)  # a long name wraps instead of widening its side
        self.banner = QLabel()
        self.banner.setObjectName("syntax-banner")
        self.banner.setWordWrap(True)
        self._style_banner()
        self.banner.setCursor(Qt.PointingHandCursor)
        self.banner.hide()
        self.source = QPlainTextEdit()
        self.source.setObjectName("model-text")
        self.source.setReadOnly(True)
        self.source.setLineWrapMode(QPlainTextEdit.NoWrap)
        mono = QFont("DejaVu Sans Mono")
        mono.setStyleHint(QFont.Monospace)
        mono.setPixelSize(11)
        self.source.setFont(mono)
        self.source_label = QLabel()
        self.source_box = QWidget()
        sl = QVBoxLayout(self.source_box)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.setSpacing(0)
        sl.addWidget(self.source_label)
        sl.addWidget(self.source)
        self.source_label.setStyleSheet("QLabel { background: palette(alternate-base); padding: 2px 6px; }")
        self.source_box.hide()
        self.split = QSplitter(Qt.Vertical)
        self.split.addWidget(self.editor)
        self.split.addWidget(self.source_box)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 1)
        # the task's title, domain and prompt (a dataset-shaped reference): folded under a
        # "Task" button in the header, so that the canvas keeps the height; hovering the button
        # shows the prompt, pressing it unfolds the editable fields
        self.task_toggle = QToolButton()
        self.task_toggle.setObjectName(f"{role}-task-toggle")
        self.task_toggle.setText("Task")
        self.task_toggle.setCheckable(True)
        self.task_toggle.setAutoRaise(True)
        self.task_toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.task_toggle.setArrowType(Qt.RightArrow)
        self.task_toggle.toggled.connect(self.show_task)
        self.task_fold = QWidget()
        fl = QVBoxLayout(self.task_fold)
        fl.setContentsMargins(0, 0, 0, 0)
        fl.addWidget(self.editor.prompt_box)  # taken out of the editor's own column
        self.task_fold.hide()
        self.header = QWidget()
        self.header.setObjectName(f"{role}-header")
        self.header.setStyleSheet(f"QWidget#{role}-header {{ background: palette(alternate-base); border-bottom: 1px solid palette(mid); }}")
        hl = QHBoxLayout(self.header)
        hl.setContentsMargins(0, 0, 4, 0)
        hl.setSpacing(0)
        self.title.setStyleSheet("QLabel { padding: 3px 6px; }")
        hl.addWidget(self.title, 1)
        # the configuration nodes' menu sits in the header row, not in a bar of its own above
        # the canvas: the canvas keeps the height, and does not shift when the button appears
        self.config_button = self.editor.config_button
        self.config_button.setAutoRaise(True)
        hl.addWidget(self.config_button)
        self.editor._sync_config_button()
        hl.addWidget(self.task_toggle)
        for b in (self.config_button, self.task_toggle):  # no taller than the title's line
            b.setFixedHeight(self.title.fontMetrics().height() + 6)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.header)
        lay.addWidget(self.task_fold)
        lay.addWidget(self.banner)
        lay.addWidget(self.split, 1)
        self.banner.mousePressEvent = lambda _e: self.reveal_error()
        # scroll bars only while part of the program is out of view (zoomed in, panned away,
        # a node dragged off): at the fit zoom they take none of the canvas's height
        self._bars_timer = QTimer(self)
        self._bars_timer.setSingleShot(True)
        self._bars_timer.setInterval(30)
        self._bars_timer.timeout.connect(self.sync_scroll_bars)
        self.editor.view.viewport_moved.connect(self._bars_timer.start)
        self.editor.scene.changed.connect(lambda _r: self._bars_timer.start())
        self.hide_scroll_bars()
        self.syntax: SyntaxIssue | None = None
        self.name = ""
        self.detail = ""
        self.word = "Reference" if role == "reference" else "Generated"

    def _style_banner(self) -> None:
        """The syntax banner in the theme's error-banner colours."""
        fg, bg = role_colors("error_banner")
        self.banner.setStyleSheet(f"QLabel {{ background: {bg}; color: {fg}; padding: 4px 6px; }}")

    def changeEvent(self, e):
        super().changeEvent(e)
        if e.type() in (QEvent.ApplicationPaletteChange, QEvent.PaletteChange):  # a theme switch: the banner follows
            self._style_banner()

    def hide_scroll_bars(self) -> None:
        """No scroll bars (before fitting: the fit takes the whole canvas)."""
        self._set_bars(Qt.ScrollBarAlwaysOff)

    def sync_scroll_bars(self) -> None:
        """Scroll bars while some of the program is out of view, none while it is whole in view."""
        v = self.editor.view
        r = self.editor.scene.items_rect()
        whole = r.isNull() or v.visible_scene_rect().contains(r)
        self._set_bars(Qt.ScrollBarAlwaysOff if whole else Qt.ScrollBarAsNeeded)

    def _set_bars(self, policy) -> None:
        v = self.editor.view
        if v.horizontalScrollBarPolicy() != policy:
            v.setHorizontalScrollBarPolicy(policy)
            v.setVerticalScrollBarPolicy(policy)

    def set_word(self, word: str) -> None:
        """What the header calls this side ("Reference", "Generated"; "Curriculum" or "Test" for a
        curation pair, which has no generated program)."""
        self.word = word
        self.set_title(self.name, self.detail)

    def set_title(self, name: str, detail: str = "") -> None:
        self.name, self.detail = name, detail
        word = self.word
        dim = self.title.palette().color(QPalette.PlaceholderText).name()  # reads in either theme
        extra = f" <span style='color:{dim}'>{detail}</span>" if detail else ""
        self.title.setText(f"<b>{word}</b> — {name or 'untitled'}{extra}")
        doc = self.editor.doc
        self.task_toggle.setVisible(doc.has_prompt)
        if doc.has_prompt:
            prompt = self.editor.prompt.toPlainText()
            self.task_toggle.setToolTip(f"The task's title, domain and prompt (editable):\n{prompt}")

    def show_task(self, on: bool) -> None:
        """Unfold (or fold) the task's title, domain and prompt above the canvas."""
        self.task_fold.setVisible(on)
        self.task_toggle.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        if self.task_toggle.isChecked() != on:
            self.task_toggle.setChecked(on)

    def set_detail(self, detail: str) -> None:
        """New counts under the same name (after an edit)."""
        self.set_title(self.name, detail)

    def show_source(self, text: str | None, syntax: SyntaxIssue | None, edited: bool = False) -> None:
        """Show the model text (if any) and the syntax error next to it."""
        self.syntax = syntax
        if text is None:
            self.source_box.hide()
        else:
            if self.source.toPlainText() != text:
                self.source.setPlainText(text)
            lines = text.count("\n") + 1
            self.source_label.setText(f"Model output as written ({lines} lines)")
            was_hidden = self.source_box.isHidden()
            self.source_box.show()
            if was_hidden:
                total = max(self.split.height(), 400)
                self.split.setSizes([int(total * 0.62), total - int(total * 0.62)])
        self.set_syntax(syntax, edited)

    def set_syntax(self, syntax: SyntaxIssue | None, edited: bool) -> None:
        """The banner tells what the canvas shows: the nodes recovered from broken text. Once the
        program is edited the canvas shows the user's flow, so the banner goes (the error stays
        marked in the model text); undoing back to the text's reading brings it back."""
        if syntax is None:
            self.banner.hide()
            self.source.setExtraSelections([])
            return
        s = syntax
        self.banner.setText(
            f"<b>Syntax error</b> at line {s.line}, column {s.column}: {s.message}. "
            f"The canvas shows the {s.recovered_nodes} recovered node{'s' if s.recovered_nodes != 1 else ''}."
            + (" <u>Show in text</u>" if self.source_box.isVisible() else ""))
        self.banner.setVisible(not edited)
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(role_colors("error_line")[1]))
        fmt.setForeground(QColor(role_colors("error_line")[0]))
        fmt.setProperty(QTextFormat.FullWidthSelection, True)
        sel.format = fmt
        cur = QTextCursor(self.source.document())
        cur.setPosition(min(s.offset, max(0, len(self.source.toPlainText()))))
        sel.cursor = cur
        mark = QTextEdit.ExtraSelection()
        mfmt = QTextCharFormat()
        mfmt.setForeground(QColor(role_colors("error_mark")[0]))
        mfmt.setBackground(QColor(role_colors("error_mark")[1]))
        mark.format = mfmt
        c2 = QTextCursor(cur)
        c2.movePosition(QTextCursor.Right, QTextCursor.KeepAnchor)
        mark.cursor = c2
        self.source.setExtraSelections([sel, mark])
        self.reveal_error()

    def reveal_error(self) -> None:
        if self.syntax is None or not self.source_box.isVisible():
            return
        cur = QTextCursor(self.source.document())
        cur.setPosition(min(self.syntax.offset, len(self.source.toPlainText())))
        self.source.setTextCursor(cur)
        self.source.centerCursor()

    def error_line(self) -> int | None:
        """1-based line of the text cursor (where the error is shown)."""
        if self.syntax is None:
            return None
        return self.source.textCursor().blockNumber() + 1
