"""CompareView: reference and generated programs side by side, the Δ mapping drawn on both, the
score panel and the attribute diff; every edit is rescored off the GUI thread.

The two sides are ordinary ``FlowEditor`` widgets (everything the editor does works on both). The
view owns no flow of its own: it reads the two documents, snapshots them for the scoring worker,
and draws results through the scenes' overlay API and its own ``MarkItem`` children.
"""
from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.core.divergence import ScoreOptions, ScoreResult
from gindex_studio.core.flow import Flow, read_flow_file
from gindex_studio.core.lenient import SyntaxIssue, read_model_output

from ..canvas.items import NodeItem
from ..editor import FlowEditor
from ..library_access import bundled_library
from .authoring import copy_attribute_command, copy_node_command
from .overlay import Legend, Overlay, styles_for
from .panel import AttributeDiff, Difference, ScorePanel, differences
from .scoring import LatestRunner, score_anytime

SIDES = ("reference", "generated")


class Side(QWidget):
    """One side of the comparison: a title, the editor and (generated side) the model text with
    the syntax error marked where it happened."""

    def __init__(self, role: str, library, parent=None):
        super().__init__(parent)
        self.role = role
        self.editor = FlowEditor(Flow(), None, library)
        self.title = QLabel()
        self.title.setObjectName(f"{role}-title")
        self.title.setStyleSheet("QLabel { background: #f2f2f2; padding: 4px 6px; border-bottom: 1px solid #ddd; }")
        self.title.setTextFormat(Qt.RichText)
        self.title.setWordWrap(True)  # a long name wraps instead of widening its side
        self.banner = QLabel()
        self.banner.setObjectName("syntax-banner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("QLabel { background: #fde2e1; color: #7a1212; padding: 4px 6px; }")
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
        self.source_label.setStyleSheet("QLabel { background: #f2f2f2; padding: 2px 6px; }")
        self.source_box.hide()
        self.split = QSplitter(Qt.Vertical)
        self.split.addWidget(self.editor)
        self.split.addWidget(self.source_box)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.title)
        lay.addWidget(self.banner)
        lay.addWidget(self.split, 1)
        self.banner.mousePressEvent = lambda _e: self.reveal_error()
        self.syntax: SyntaxIssue | None = None

    def set_title(self, name: str, detail: str = "") -> None:
        word = "Reference" if self.role == "reference" else "Generated"
        extra = f" <span style='color:#666'>{detail}</span>" if detail else ""
        self.title.setText(f"<b>{word}</b> — {name or 'untitled'}{extra}")

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
        if syntax is None:
            self.banner.hide()
            self.source.setExtraSelections([])
            return
        s = syntax
        tail = " The program was edited since, so it is scored as an edited flow." if edited else ""
        self.banner.setText(
            f"<b>Syntax error</b> at line {s.line}, column {s.column}: {s.message}. "
            f"The canvas shows the {s.recovered_nodes} recovered node{'s' if s.recovered_nodes != 1 else ''}.{tail}"
            + (" <u>Show in text</u>" if self.source_box.isVisible() else ""))
        self.banner.show()
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#fbd0ce"))
        fmt.setProperty(QTextFormat.FullWidthSelection, True)
        sel.format = fmt
        cur = QTextCursor(self.source.document())
        cur.setPosition(min(s.offset, max(0, len(self.source.toPlainText()))))
        sel.cursor = cur
        mark = QTextEdit.ExtraSelection()
        mfmt = QTextCharFormat()
        mfmt.setBackground(QColor("#d62728"))
        mfmt.setForeground(QColor("#ffffff"))
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


class CompareView(QWidget):
    """Two editors, the mapping on both, the score panel and the attribute diff."""

    scored = Signal(object)  # the final ScoreResult now on screen
    edited = Signal(str)  # "reference" | "generated": an edit that can change the score
    message = Signal(str)
    #: the user selected a node (or nothing: "") on one side; the partner shown on the other side
    #: is not a selection of its own. The compare window's inspector follows it.
    selection_changed = Signal(str, str)

    DEBOUNCE_MS = 15

    def __init__(self, library=None, parent=None):
        super().__init__(parent)
        self.library = library if library is not None else bundled_library()
        self.sides = {r: Side(r, self.library) for r in SIDES}
        self.ref = self.sides["reference"].editor
        self.gen = self.sides["generated"].editor
        self.editors = {"reference": self.ref, "generated": self.gen}
        self.overlays = {r: Overlay(self.editors[r], r) for r in SIDES}
        self.panel = ScorePanel()
        self.attr = AttributeDiff()
        self.legend = Legend()
        self.copy_node_button = QPushButton("Copy node across")
        self.copy_node_button.setObjectName("copy-node")
        self.copy_node_button.setToolTip("Add the selected unmatched node to the other program, with its wires to mapped nodes (undoable)")
        self.copy_node_button.clicked.connect(self.copy_selected_node)
        self.copy_node_button.setEnabled(False)
        self.runner = LatestRunner(self)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(self.DEBOUNCE_MS)
        self.timer.timeout.connect(self.score_now)
        self.options = ScoreOptions()
        self.result: ScoreResult | None = None
        self.diffs: list[Difference] = []
        self.diff_index = -1
        self.syntax: SyntaxIssue | None = None
        self.model_text: str | None = None
        self.styles = {}
        self._phi: dict[str, str] = {}
        self._inv: dict[str, str] = {}
        self._selected: tuple[str, str] | None = None
        self._attr_pair: tuple[str, str] | None = None
        self._loading = False
        self._syncing = False
        self._linked = False
        self._link_offset = QPointF()
        self._edited = False
        self._hover: dict[str, str | None] = {r: None for r in SIDES}
        self.edit_count = 0
        self.results_shown = 0

        sides = QSplitter(Qt.Horizontal)
        sides.addWidget(self.sides["reference"])
        sides.addWidget(self.sides["generated"])
        sides.setChildrenCollapsible(False)
        self.side_splitter = sides
        self._sides_moved = False  # the user dragged the splitter: keep their split
        sides.splitterMoved.connect(lambda *_: setattr(self, "_sides_moved", True))
        sides.installEventFilter(self)  # resized (window, docks, the score column): even again
        right = QSplitter(Qt.Vertical)
        right.addWidget(self.panel)
        attr_box = QWidget()
        al = QVBoxLayout(attr_box)
        al.setContentsMargins(0, 0, 0, 0)
        al.setSpacing(2)
        al.addWidget(self.attr, 1)
        row = QHBoxLayout()
        row.setContentsMargins(8, 0, 8, 0)
        row.addWidget(self.copy_node_button)
        al.addLayout(row)
        al.addWidget(self.legend)
        right.addWidget(attr_box)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        self.right = right
        main = QSplitter(Qt.Horizontal)
        main.addWidget(sides)
        main.addWidget(right)
        main.setStretchFactor(0, 1)
        main.setStretchFactor(1, 0)
        right.setMinimumWidth(420)
        main.setChildrenCollapsible(False)
        self.main_splitter = main
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(main)

        for role, ed in self.editors.items():
            doc = ed.doc
            for sig in (doc.node_added, doc.node_removed, doc.node_changed, doc.wires_changed):
                sig.connect(lambda *_a, r=role: self._on_edit(r))
            doc.flow_reset.connect(lambda r=role: self._on_edit(r))
            ed.node_selected.connect(lambda i, r=role: self._on_node_selected(r, i))
            ed.view.viewport().installEventFilter(self)
            ed.view.viewport().setMouseTracking(True)
            ed.view.viewport_moved.connect(lambda r=role: self._on_view_moved(r))
        self.gen.undo_stack.cleanChanged.connect(lambda _c: self._sync_banner())
        self.sides["generated"].set_title("")
        self.sides["reference"].set_title("")
        self.panel.options_changed.connect(self.set_options)
        self.panel.difference_activated.connect(self.goto_difference)
        self.attr.copy_requested.connect(self.copy_attribute)
        self.runner.partial.connect(lambda r: self._show(r, final=False))
        self.runner.done.connect(lambda r: self._show(r, final=True))
        self.runner.failed.connect(self.panel.show_failure)

    # ----- opening ----------------------------------------------------------------------------
    def set_pair(self, reference: Flow, generated: Flow, syntax: SyntaxIssue | None = None, text: str | None = None,
                 ref_name: str = "", gen_name: str = "", ref_path: str | None = None, gen_path: str | None = None) -> None:
        """Show a new pair (the editors get these flows; undo history starts afresh) and score it."""
        self._loading = True
        try:
            for ed, flow, path in ((self.ref, reference, ref_path), (self.gen, generated, gen_path)):
                self.overlays["reference" if ed is self.ref else "generated"].clear()
                ed.doc.replace_flow(flow)
                ed.doc.path = path
                ed.undo_stack.clear()
                ed.forced_dirty = False
        finally:
            self._loading = False
        self.syntax, self.model_text = syntax, text
        self.sides["reference"].set_title(ref_name, f"{len(reference.vertex_nodes())} nodes")
        detail = f"{len(generated.vertex_nodes())} nodes"
        if syntax is not None:
            detail += f", read from broken model text ({syntax.recovered_nodes} recovered)"
        self.sides["generated"].set_title(gen_name, detail)
        self.sides["generated"].show_source(text if syntax is not None or text is not None and not _is_plain_json(text) else None,
                                            syntax)
        self.result = None
        self._phi, self._inv = {}, {}
        self._selected = None
        self.diffs, self.diff_index = [], -1
        self.panel.reset_change()
        self.panel.set_differences([])
        self.attr.clear()
        self._edited = False
        self._fit_pending = True
        self._even_sides()
        QTimer.singleShot(0, self.fit)
        self.score_now()

    def load_files(self, reference_path: str, generated_path: str) -> None:
        """Read the reference strictly and the generated file leniently (raw model output).
        Raises FlowError (reference) or OSError (generated unreadable)."""
        import os

        ref = read_flow_file(reference_path)
        with open(generated_path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        self.set_generated_text_pair(ref, text, os.path.basename(reference_path), os.path.basename(generated_path),
                                     ref_path=reference_path)

    def set_generated_text_pair(self, reference: Flow, text: str, ref_name: str = "", gen_name: str = "pasted model output",
                                ref_path: str | None = None) -> None:
        read = read_model_output(text)
        self.set_pair(reference, read.flow, read.syntax, text, ref_name, gen_name, ref_path=ref_path)

    def _even_sides(self) -> None:
        """Both programs get the same width (the model text's long lines would otherwise win the
        generated side most of it), until the user moves the splitter."""
        if not self._sides_moved:
            half = max(1, self.side_splitter.width() // 2)
            self.side_splitter.setSizes([half, half])

    def fit(self) -> None:
        for ed in self.editors.values():
            ed.view.fit()
        if self._linked:
            self._relink()

    # ----- scoring ----------------------------------------------------------------------------
    def generated_edited(self) -> bool:
        """True when the generated canvas was edited since the pair was opened."""
        stack = self.gen.undo_stack
        return shiboken6.isValid(stack) and not stack.isClean()

    def current_syntax(self) -> SyntaxIssue | None:
        return None if self.generated_edited() else self.syntax

    def _sync_banner(self) -> None:
        if not shiboken6.isValid(self.gen.undo_stack):
            return
        self.sides["generated"].set_syntax(self.syntax, self.generated_edited())

    def _on_edit(self, role: str) -> None:
        if self._loading:
            return
        self._edited = True
        self.edit_count += 1
        self.runner.cancel()  # the search under way is for a program that no longer exists
        self.edited.emit(role)
        self.timer.start()

    def set_options(self, options: ScoreOptions) -> None:
        if options == self.options:
            return
        self.options = options
        self.panel.set_options(options)
        self.score_now(warm=False)

    def score_now(self, warm: bool = True) -> None:
        self.timer.stop()
        ref, gen = self.ref.doc.flow.copy(), self.gen.doc.flow.copy()
        w = []
        if warm and self.result is not None and self.result.profile == self.options.profile:
            w = [(p.reference, p.generated) for p in self.result.mapping]
        self.panel.set_pending("scoring…")
        self.runner.submit(score_anytime(ref, gen, self.options, self.current_syntax(), w))

    def wait_idle(self, ms: int = 10_000) -> None:
        """For scripts and tests: flush the debounce and wait for the worker (results arrive
        through the event loop)."""
        if self.timer.isActive():
            self.score_now()
        self.runner.wait(ms)

    def _show(self, r: ScoreResult, final: bool) -> None:
        self.result = r
        if getattr(self, "_fit_pending", False) and final:
            self._fit_pending = False
            QTimer.singleShot(0, self.fit)
        self._phi = {p.reference: p.generated for p in r.mapping}
        self._inv = {p.generated: p.reference for p in r.mapping}
        self.styles = styles_for(r, self.ref.doc.node_ids())
        for role in SIDES:
            self.overlays[role].apply(r, self.styles)
        self.panel.show_result(r, final, edited=self._edited)
        numbers = {k: s.number for k, s in self.styles.items()}
        self.diffs = differences(r, lambda i: self.node_label("reference", i),
                                 lambda i: self.node_label("generated", i), numbers)
        if self.diff_index >= len(self.diffs):
            self.diff_index = len(self.diffs) - 1
        self.panel.set_differences(self.diffs)
        self._refresh_attr()
        self._sync_banner()
        if final:
            self.results_shown += 1
            self.scored.emit(r)

    # ----- names ------------------------------------------------------------------------------
    def node_label(self, role: str, node_id: str) -> str:
        doc = self.editors[role].doc
        if not doc.has(node_id):
            return node_id
        label, t = doc.label(node_id), doc.node(node_id).type
        return f"{label!r} ({t})" if doc.node(node_id).name else t

    def partner(self, role: str, node_id: str) -> str | None:
        return (self._phi if role == "reference" else self._inv).get(node_id)

    def pairs_on_canvas(self) -> dict[str, set[tuple[str, str]]]:
        """(reference id, generated id) pairs as drawn on each canvas: a badge number on the left
        and the same number on the right make a pair. For tests and scripts."""
        left = self.overlays["reference"].drawn_pairs()
        right = self.overlays["generated"].drawn_pairs()
        by_num_r = {n: i for i, n in right.items()}
        by_num_l = {n: i for i, n in left.items()}
        return {
            "reference": {(i, by_num_r.get(n, "")) for i, n in left.items()},
            "generated": {(by_num_l.get(n, ""), i) for i, n in right.items()},
        }

    # ----- selection and hover ------------------------------------------------------------------
    def _other(self, role: str) -> str:
        return "generated" if role == "reference" else "reference"

    def _on_node_selected(self, role: str, node_id: str) -> None:
        if self._syncing:
            return
        self._selected = (role, node_id) if node_id else None
        self._refresh_attr()
        self.selection_changed.emit(role, node_id or "")
        if not node_id:
            return
        other = self._other(role)
        partner = self.partner(role, node_id)
        ed = self.editors[other]
        self._syncing = True
        try:
            if partner and ed.doc.has(partner) and ed.doc.is_drawn(partner):
                ed.show_workspace(ed.doc.workspace_of(partner))
                ed.scene.select_nodes([partner])
                item = ed.scene.nodes.get(partner)
                if item is not None:
                    ed.view.ensureVisible(item, 80, 80)
            else:
                ed.scene.select_nodes([])
        finally:
            self._syncing = False
        if self._linked:
            self._relink()

    def select_node(self, role: str, node_id: str) -> None:
        """Select a node on one side (its partner follows); works for nodes not drawn too."""
        ed = self.editors[role]
        if ed.doc.is_drawn(node_id):
            ed.show_workspace(ed.doc.workspace_of(node_id))
            ed.scene.select_nodes([node_id])  # the scene's signal syncs the partner
            ed.view.ensureVisible(ed.scene.nodes[node_id], 80, 80)
        else:
            self._on_node_selected(role, node_id)

    def eventFilter(self, obj, ev):
        t = ev.type()
        if obj is self.side_splitter and t == QEvent.Resize:
            QTimer.singleShot(0, self._even_sides)
            return super().eventFilter(obj, ev)
        if t in (QEvent.MouseMove, QEvent.Leave):
            for role, ed in self.editors.items():
                if obj is ed.view.viewport():
                    nid = None
                    if t == QEvent.MouseMove:
                        item = ed.view.itemAt(ev.position().toPoint())
                        while item is not None and not isinstance(item, NodeItem):
                            item = item.parentItem()
                        nid = item.node_id if item is not None else None
                    self.hover(role, nid)
        return super().eventFilter(obj, ev)

    def hover(self, role: str, node_id: str | None) -> None:
        """Hovering a node rings its partner on the other side (and scrolls it into view)."""
        if self._hover[role] == node_id:
            return
        self._hover[role] = node_id
        other = self._other(role)
        partner = self.partner(role, node_id) if node_id else None
        self.overlays[other].emphasise(partner)
        ed = self.editors[other]
        if partner and partner in ed.scene.nodes and not self._linked:
            ed.view.ensureVisible(ed.scene.nodes[partner], 40, 40)

    # ----- attribute diff -----------------------------------------------------------------------
    def selected_pair(self) -> tuple[str | None, str | None]:
        if self._selected is None:
            return None, None
        role, nid = self._selected
        if role == "reference":
            return nid, self._phi.get(nid)
        return self._inv.get(nid), nid

    def closest_unmatched(self, role: str, node_id: str) -> tuple[str, str, list[str]] | None:
        """The unmatched node of the same type on the other side most similar to ``node_id``:
        (its id, w as "m/k", differing keys), or None."""
        from gindex_studio.core.similarity import differing_keys, signature, similarity

        r = self.result
        other = self._other(role)
        lonely = r.extra_nodes if role == "reference" else r.missing_nodes
        doc, odoc = self.editors[role].doc, self.editors[other].doc
        if not doc.has(node_id):
            return None
        me = signature(doc.node(node_id).data, r.profile)
        best = None
        for cid in lonely:
            if not odoc.has(cid) or odoc.node(cid).type != doc.node(node_id).type:
                continue
            them = signature(odoc.node(cid).data, r.profile)
            a, b = (me, them) if role == "reference" else (them, me)
            m, k = similarity(a, b, r.profile)
            if best is None or m * best[2] > best[1] * k:
                best = (cid, m, k, differing_keys(a, b, r.profile))
        if best is None:
            return None
        cid, m, k, keys = best
        return cid, f"{m}/{k}", keys

    def _refresh_attr(self) -> None:
        r = self.result
        self._attr_pair = None
        if self._selected is None or r is None:
            self.attr.clear()
            self.copy_node_button.setEnabled(False)
            self.copy_node_button.setText("Copy node across")
            return
        ref_id, gen_id = self.selected_pair()
        rd = self.ref.doc.node(ref_id).data if ref_id and self.ref.doc.has(ref_id) else None
        gd = self.gen.doc.node(gen_id).data if gen_id and self.gen.doc.has(gen_id) else None
        pair = r.pair_of(ref_id) if ref_id else None
        if rd is None and gd is None:
            self.attr.clear()
            return
        if pair is not None and rd is not None and gd is not None:
            n = self.styles.get(ref_id).number if ref_id in self.styles else "?"
            title = (f"<b>#{n}</b> {self.node_label('reference', ref_id)} ↔ {self.node_label('generated', gen_id)}"
                     f" · w = {pair.w_exact}" + (f" · {len(pair.differing_keys)} differ" if pair.differing_keys else " · identical"))
            self.attr.show_pair(title, rd, gd, pair.differing_keys, r.profile)
        else:
            role = "reference" if rd is not None else "generated"
            nid = ref_id if rd is not None else gen_id
            word = "missing" if rd is not None else "extra"
            other = "the generated program" if rd is not None else "the reference"
            cand = self.closest_unmatched(role, nid)
            if cand is None:
                self.attr.show_pair(f"{self.node_label(role, nid)} · <b>{word}</b>: no node of its type is left "
                                    f"unmatched in {other}", rd, gd, [], r.profile)
            else:
                cid, w, keys = cand
                title = (f"{self.node_label(role, nid)} · <b>{word}</b>. Closest unmatched node in {other}: "
                         f"{self.node_label(self._other(role), cid)}, w = {w} (mapping the two would break the "
                         f"wiring the mapping keeps)")
                if rd is not None:
                    self._attr_pair = (nid, cid)
                    self.attr.show_pair(title, rd, self.gen.doc.node(cid).data, keys, r.profile)
                else:
                    self._attr_pair = (cid, nid)
                    self.attr.show_pair(title, self.ref.doc.node(cid).data, gd, keys, r.profile)
        lonely = (rd is None) != (gd is None)
        self.copy_node_button.setEnabled(lonely)
        if lonely:
            self.copy_node_button.setText("Copy node to generated →" if rd is not None else "← Copy node to reference")
        else:
            self.copy_node_button.setText("Copy node across")

    # ----- authoring ----------------------------------------------------------------------------
    def copy_node_across(self, role: str, node_id: str) -> str:
        """Add ``node_id`` of side ``role`` to the other side (wires to mapped nodes included), as
        one undo command on the other editor's stack. Returns the new node's id."""
        src, dst = self.editors[role], self.editors[self._other(role)]
        partner = self._phi if role == "reference" else self._inv
        command, new_id = copy_node_command(src.doc, dst.doc, node_id, partner, dst.current_workspace(), role)
        dst.push(command)
        if dst.doc.is_drawn(new_id):
            dst.scene.select_nodes([new_id])
        self.message.emit(f"Copied {self.node_label(role, node_id)} to the {self._other(role)} program")
        return new_id

    def copy_selected_node(self) -> str | None:
        ref_id, gen_id = self.selected_pair()
        if ref_id and not gen_id:
            return self.copy_node_across("reference", ref_id)
        if gen_id and not ref_id:
            return self.copy_node_across("generated", gen_id)
        return None

    def copy_attribute(self, key: str, direction: str) -> None:
        """Copy one attribute of the selected pair (or of an unmatched node and the closest
        unmatched node of its type on the other side) across ("to-generated" or "to-reference")."""
        ref_id, gen_id = self.selected_pair()
        if (not ref_id or not gen_id) and self._attr_pair is not None:
            ref_id, gen_id = self._attr_pair
        if not ref_id or not gen_id:
            return
        if direction == "to-generated":
            self.gen.push(copy_attribute_command(self.ref.doc, ref_id, self.gen.doc, gen_id, key))
        else:
            self.ref.push(copy_attribute_command(self.gen.doc, gen_id, self.ref.doc, ref_id, key))

    # ----- differences ------------------------------------------------------------------------
    def goto_difference(self, k: int) -> Difference | None:
        if not self.diffs:
            return None
        k %= len(self.diffs)
        self.diff_index = k
        d = self.diffs[k]
        lst = self.panel.diff_list
        lst.blockSignals(True)
        lst.setCurrentRow(k)
        lst.blockSignals(False)
        self._syncing = True
        try:
            for role, ids in (("reference", d.reference), ("generated", d.generated)):
                ed = self.editors[role]
                drawn = [i for i in ids if ed.doc.has(i) and ed.doc.is_drawn(i)]
                if drawn:
                    ed.show_workspace(ed.doc.workspace_of(drawn[0]))
                    ed.scene.select_nodes(drawn if d.kind.endswith("edge") else drawn[:1])
                    if d.edge is not None and ((role == "reference") == (d.kind == "missing-edge")):
                        key = (d.edge[0], d.edge[1] if len(d.edge) == 3 else None, d.edge[-1])
                        for wk in list(ed.scene.wires):
                            if wk[0] == key[0] and wk[2] == key[2] and key[1] in (None, wk[1]):
                                ed.scene.select_wire(wk, add=True)
                    rect = ed.scene.nodes[drawn[0]].sceneBoundingRect()
                    for i in drawn[1:]:
                        rect = rect.united(ed.scene.nodes[i].sceneBoundingRect())
                    ed.view.centerOn(rect.center())
                else:
                    ed.scene.select_nodes([])
        finally:
            self._syncing = False
        if d.reference:
            self._selected = ("reference", d.reference[0])
        elif d.generated:
            self._selected = ("generated", d.generated[0])
        else:
            self._selected = None
            if d.kind == "syntax":
                self.sides["generated"].reveal_error()
        self._refresh_attr()
        if self._selected is not None:
            self.selection_changed.emit(*self._selected)
        if self._linked:
            self._relink()
        return d

    def next_difference(self) -> Difference | None:
        return self.goto_difference(self.diff_index + 1)

    def previous_difference(self) -> Difference | None:
        return self.goto_difference(self.diff_index - 1 if self.diff_index >= 0 else -1)

    # ----- linked zoom and scroll -----------------------------------------------------------------
    def _center(self, role: str) -> QPointF:
        v = self.editors[role].view
        return v.mapToScene(v.viewport().rect().center())

    def set_linked(self, on: bool) -> None:
        self._linked = on
        if on:
            self._syncing = True
            try:
                self.gen.view.set_zoom(self.ref.view.zoom())
            finally:
                self._syncing = False
            self._relink()

    @property
    def linked(self) -> bool:
        return self._linked

    def _relink(self) -> None:
        self._link_offset = self._center("generated") - self._center("reference")

    def _on_view_moved(self, role: str) -> None:
        if not self._linked or self._syncing:
            return
        other = self._other(role)
        src, dst = self.editors[role].view, self.editors[other].view
        self._syncing = True
        try:
            if abs(dst.zoom() - src.zoom()) > 1e-9:
                dst.set_zoom(src.zoom())
            off = self._link_offset if role == "reference" else -self._link_offset
            dst.centerOn(self._center(role) + off)
        finally:
            self._syncing = False


def _is_plain_json(text: str) -> bool:
    s = text.lstrip()
    return s.startswith("[") or s.startswith("{")
