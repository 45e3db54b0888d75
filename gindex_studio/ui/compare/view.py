"""CompareView: draws a ``CompareModel``: the two programs side by side in ordinary
``FlowEditor``s (everything the editor does works on both), the mapping painted on both canvases by
their own items, the score panel, the differences and the attribute diff of the selected node.

The view holds no scoring state of its own: it follows the model's signals. Pieces live in their
own modules: ``side`` (a side's header, banner and model text), ``overlay`` (marks), ``linking``
(hover ring, linked zoom), ``navigation`` (F8), ``attributes`` (attribute diff, copy helpers).
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QScrollArea, QSplitter, QToolButton, QVBoxLayout, QWidget

from gindex_studio.core.scoring.divergence import ScoreOptions, ScoreResult
from gindex_studio.core.flows.flow import Flow
from gindex_studio.core.flows.lenient import SyntaxIssue

from gindex_studio.ui.library_access import bundled_library
from gindex_studio.ui.compare.attributes import PairDetails
from gindex_studio.ui.compare.linking import HoverRing, ViewLink
from gindex_studio.ui.compare.model import SIDES, CompareModel, other_side
from gindex_studio.ui.compare.navigation import reveal, show_difference
from gindex_studio.ui.compare.overlay import Legend, Overlay
from gindex_studio.ui.compare.panel import AttributeDiff, Difference, ScorePanel
from gindex_studio.ui.compare.side import Side


#: how the two sides are split (View → Arrange Sides)
ARRANGEMENTS = ("auto", "side-by-side", "stacked")
#: the score column never gets narrower than this (its texts wrap)
RIGHT_MIN = 280


class CompareView(QWidget):
    """Two editors, the mapping on both, the score panel and the attribute diff."""

    scored = Signal(object)  # the final ScoreResult now on screen
    edited = Signal(str)  # "reference" | "generated": an edit that can change the score
    message = Signal(str)
    #: the user selected a node (or nothing: "") on one side; the partner shown on the other side
    #: is not a selection of its own. The compare window's inspector follows it.
    selection_changed = Signal(str, str)

    def __init__(self, library=None, parent=None):
        super().__init__(parent)
        self.library = library if library is not None else bundled_library()
        self.sides = {r: Side(r, self.library) for r in SIDES}
        self.editors = {r: self.sides[r].editor for r in SIDES}
        self.ref, self.gen = self.editors["reference"], self.editors["generated"]
        self.model = CompareModel({r: e.doc for r, e in self.editors.items()},
                                  {r: e.undo_stack for r, e in self.editors.items()}, self)
        self.overlays = {r: Overlay(self.editors[r], r) for r in SIDES}
        self.panel = ScorePanel()
        self.attr = AttributeDiff()
        self.legend = Legend()
        self.copy_node_button = QPushButton("Copy node across")
        self.copy_node_button.setObjectName("copy-node")
        self.copy_node_button.setToolTip("Add the selected unmatched node to the other program, with its wires to mapped nodes (undoable)")
        self.copy_node_button.setEnabled(False)
        self.details = PairDetails(self.model, self.editors, self.attr, self.copy_node_button, self)
        self.link = ViewLink(self.editors)
        self.hovering = HoverRing(self.model, self.editors, lambda: self.link.on, self)
        self.diff_index = -1
        self._syncing = False
        self._fit_pending = False
        self._build_layout()

        m = self.model
        m.pair_changed.connect(self._on_pair)
        m.result_changed.connect(self._show)
        m.texts_changed.connect(self._sync_texts)
        m.pending.connect(self.panel.set_pending)
        m.failed.connect(self.panel.show_failure)
        m.edited.connect(self.edited)
        self.details.message.connect(self.message)
        for role, ed in self.editors.items():
            ed.node_selected.connect(lambda i, r=role: self._on_node_selected(r, i))
        self.panel.options_changed.connect(self.set_options)
        self.panel.difference_activated.connect(self.goto_difference)
        self._sync_texts()

    def _build_layout(self) -> None:
        sides = QSplitter(Qt.Horizontal)
        sides.addWidget(self.sides["reference"])
        sides.addWidget(self.sides["generated"])
        sides.setChildrenCollapsible(False)
        self.side_splitter = sides
        self._sides_moved = False  # the user dragged the splitter: keep their split
        sides.splitterMoved.connect(lambda *_: setattr(self, "_sides_moved", True))
        sides.installEventFilter(self)  # resized (window, docks, the score column): even again
        #: "auto" (whichever shows both programs larger), "side-by-side" or "stacked"
        self.arrangement = "auto"
        right = QSplitter(Qt.Vertical)
        right.addWidget(_scrolling(self.panel))  # on a short screen it scrolls rather than clips
        attr_box = QWidget()
        al = QVBoxLayout(attr_box)
        al.setContentsMargins(0, 0, 0, 0)
        al.setSpacing(2)
        al.addWidget(self.attr, 1)
        row = QHBoxLayout()
        row.setContentsMargins(8, 0, 8, 0)
        row.addWidget(self.copy_node_button)
        al.addLayout(row)
        self.legend_toggle = QToolButton()
        self.legend_toggle.setObjectName("legend-toggle")
        self.legend_toggle.setText("What the marks mean")
        self.legend_toggle.setCheckable(True)
        self.legend_toggle.setChecked(True)
        self.legend_toggle.setAutoRaise(True)
        self.legend_toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.legend_toggle.setArrowType(Qt.DownArrow)
        self.legend_toggle.toggled.connect(self.show_legend)
        al.addWidget(self.legend_toggle)
        al.addWidget(self.legend)
        right.addWidget(_scrolling(attr_box))
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        self.right = right
        main = QSplitter(Qt.Horizontal)
        main.addWidget(sides)
        main.addWidget(right)
        main.setStretchFactor(0, 1)
        main.setStretchFactor(1, 0)
        right.setMinimumWidth(RIGHT_MIN)
        main.setChildrenCollapsible(False)
        self.main_splitter = main
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(main)

    def show_legend(self, on: bool) -> None:
        """Unfold (or fold) the legend under the attribute diff."""
        self.legend.setVisible(on)
        self.legend_toggle.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        if self.legend_toggle.isChecked() != on:
            self.legend_toggle.setChecked(on)

    # ----- the model's state, for callers -----------------------------------------------------
    @property
    def result(self) -> ScoreResult | None:
        return self.model.result

    @property
    def diffs(self) -> list[Difference]:
        return self.model.diffs

    @property
    def options(self) -> ScoreOptions:
        return self.model.options

    @options.setter
    def options(self, o: ScoreOptions) -> None:
        self.model.options = o

    @property
    def runner(self):
        return self.model.runner

    @property
    def timer(self):
        return self.model.timer

    @property
    def results_shown(self) -> int:
        return self.model.results_shown

    @property
    def syntax(self) -> SyntaxIssue | None:
        return self.model.syntax

    @property
    def model_text(self) -> str | None:
        return self.model.model_text

    @property
    def styles(self) -> dict:
        return self.model.badges

    def partner(self, role: str, node_id: str) -> str | None:
        return self.model.partner(role, node_id)

    def node_label(self, role: str, node_id: str) -> str:
        return self.model.node_label(role, node_id)

    # ----- opening ----------------------------------------------------------------------------
    def set_pair(self, reference: Flow, generated: Flow, syntax: SyntaxIssue | None = None, text: str | None = None,
                 ref_name: str = "", gen_name: str = "", ref_path: str | None = None, gen_path: str | None = None) -> None:
        """Show a new pair (the editors get these flows; undo history starts afresh) and score it."""
        for ed in self.editors.values():
            ed.forced_dirty = False
        self.model.set_pair(reference, generated, syntax, text, ref_name, gen_name, ref_path, gen_path)

    def load_files(self, reference_path: str, generated_path: str) -> None:
        """The reference read strictly, the generated file leniently. Raises FlowError."""
        self.model.load_files(reference_path, generated_path)

    def set_generated_text_pair(self, reference: Flow, text: str, ref_name: str = "", gen_name: str = "pasted model output",
                                ref_path: str | None = None) -> None:
        self.model.set_generated_text_pair(reference, text, ref_name, gen_name, ref_path)

    def _on_pair(self) -> None:
        m = self.model
        for ov in self.overlays.values():
            ov.clear()
        text = m.model_text
        show_text = m.syntax is not None or (text is not None and not _is_plain_json(text))
        self.sides["generated"].show_source(text if show_text else None, m.syntax)
        self.details.select(None, None)
        self.diff_index = -1
        self.panel.reset_change()
        self.panel.set_differences([])
        self._fit_pending = True
        self._arrange()
        QTimer.singleShot(0, self, self.fit)  # not after the view is gone

    def _sync_texts(self) -> None:
        """Headers and banner say what the canvases show now."""
        m = self.model
        for role in SIDES:
            self.sides[role].set_title(m.names[role], m.side_detail(role))
        self.sides["generated"].set_syntax(m.syntax, m.generated_edited())

    def _even_sides(self) -> None:
        """Both programs get the same room (the model text's long lines would otherwise win the
        generated side most of it), until the user moves the splitter."""
        if not self._sides_moved:
            sp = self.side_splitter
            total = sp.width() if sp.orientation() == Qt.Horizontal else sp.height()
            half = max(1, total // 2)
            sp.setSizes([half, half])

    def set_arrangement(self, mode: str) -> None:
        """"side-by-side", "stacked" (reference above) or "auto" (whichever fits both programs at
        the larger zoom in the room there is now; chosen again when the room changes)."""
        if mode not in ARRANGEMENTS:
            raise ValueError(f"unknown arrangement {mode!r}")
        self.arrangement = mode
        self._arrange()
        QTimer.singleShot(0, self, self.fit)

    def fit_zooms(self, orientation) -> dict[str, float]:
        """The fit zoom each side would get with the sides split in ``orientation``, in the room
        the two sides have now (their headers and scroll bars taken off)."""
        sp = self.side_splitter
        w, h, handle = sp.width(), sp.height(), sp.handleWidth()
        out = {}
        for role, side in self.sides.items():
            view = side.editor.view
            chrome_w = max(0, side.width() - view.viewport().width())
            chrome_h = max(0, side.height() - view.viewport().height())
            if orientation == Qt.Horizontal:
                cw, ch = (w - handle) / 2 - chrome_w, h - chrome_h
            else:
                cw, ch = w - chrome_w, (h - handle) / 2 - chrome_h
            out[role] = view.fit_zoom(max(cw, 50), max(ch, 50))
        return out

    def _arrange(self) -> None:
        """Split the sides as ``arrangement`` says; "auto" takes the split whose smaller fit zoom
        is larger (stacked wins wide, flat programs on a laptop screen), keeping the current one
        unless the other is clearly better."""
        sp = self.side_splitter
        want = {"side-by-side": Qt.Horizontal, "stacked": Qt.Vertical}.get(self.arrangement)
        if want is None:
            now = sp.orientation()
            other = Qt.Vertical if now == Qt.Horizontal else Qt.Horizontal
            if min(self.fit_zooms(other).values()) > 1.15 * min(self.fit_zooms(now).values()):
                want = other
            else:
                want = now
        if want != sp.orientation():
            sp.setOrientation(want)
            self._sides_moved = False
        self._even_sides()

    def eventFilter(self, obj, ev):
        if obj is self.side_splitter and ev.type() == QEvent.Resize:
            QTimer.singleShot(0, self, self._on_room_changed)
        return super().eventFilter(obj, ev)

    def _on_room_changed(self) -> None:
        """The sides' room changed (window maximised or resized, a dock moved): arrange again, and
        refit unless the user has zoomed since the last fit."""
        before = self.side_splitter.orientation()
        self._arrange()
        if self.side_splitter.orientation() != before or self.fitted():
            QTimer.singleShot(0, self, self.fit)

    def fit(self) -> None:
        """Both programs whole in view at one shared zoom: the smaller of the two fit zooms (so
        that the same node is drawn the same size on both sides), each centred."""
        for side in self.sides.values():
            side.hide_scroll_bars()  # whole in view once fitted: the bars' room goes to the canvas
        views = [ed.view for ed in self.editors.values()]
        zooms = [v.fit_zoom(max(v.viewport().width(), 50), max(v.viewport().height(), 50)) for v in views]
        z = min(zooms)
        for v in views:
            v.set_zoom(z)
            r = v.scene().items_rect()
            if not r.isNull():
                v.centerOn(r.center())
            v.viewport_moved.emit()
        self._fitted_zoom = views[0].zoom()  # as set_zoom clamped it
        self.link.relink()

    def fitted(self) -> bool:
        """Both canvases are still at the zoom the last ``fit`` gave them (the user has not zoomed):
        a change of room refits them."""
        z = getattr(self, "_fitted_zoom", None)
        return z is not None and all(abs(ed.view.zoom() - z) < 1e-9 for ed in self.editors.values())

    # ----- scoring ----------------------------------------------------------------------------
    def generated_edited(self) -> bool:
        return self.model.generated_edited()

    def current_syntax(self) -> SyntaxIssue | None:
        return self.model.current_syntax()

    def set_options(self, options: ScoreOptions) -> None:
        if options == self.model.options:
            return
        self.panel.set_options(options)
        self.model.set_options(options)

    def score_now(self, warm: bool = True) -> None:
        self.model.score_now(warm)

    def wait_idle(self, ms: int = 10_000) -> None:
        self.model.wait_idle(ms)

    def _show(self, r: ScoreResult, final: bool) -> None:
        if self._fit_pending and final:
            self._fit_pending = False
            QTimer.singleShot(0, self, self.fit)  # not after the view is gone
        for role in SIDES:
            self.overlays[role].apply(r, self.model.badges)
        self.panel.show_result(r, final, edited=self.model.edited_since_open)
        if self.diff_index >= len(self.diffs):
            self.diff_index = len(self.diffs) - 1
        self.panel.set_differences(self.diffs, r)
        self.details.refresh()
        self._sync_texts()
        if final:
            self.scored.emit(r)

    # ----- what is drawn ----------------------------------------------------------------------
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
    def _on_node_selected(self, role: str, node_id: str) -> None:
        if self._syncing:
            return
        self.details.select(role, node_id or None)
        self.selection_changed.emit(role, node_id or "")
        if not node_id:
            return
        partner = self.partner(role, node_id)
        ed = self.editors[other_side(role)]
        self._syncing = True
        try:
            ed.scene.clear_wire_selection()
            if partner and ed.doc.has(partner) and ed.doc.is_drawn(partner):
                ed.show_workspace(ed.doc.workspace_of(partner))
                ed.scene.select_nodes([partner])
                item = ed.scene.nodes.get(partner)
                if item is not None:
                    reveal(ed.view, item.sceneBoundingRect())
            else:
                ed.scene.select_nodes([])
        finally:
            self._syncing = False
        self.link.relink()

    def select_node(self, role: str, node_id: str) -> None:
        """Select a node on one side (its partner follows); works for nodes not drawn too."""
        ed = self.editors[role]
        if ed.doc.is_drawn(node_id):
            ed.show_workspace(ed.doc.workspace_of(node_id))
            ed.scene.select_nodes([node_id])  # the scene's signal syncs the partner
            reveal(ed.view, ed.scene.nodes[node_id].sceneBoundingRect())
        else:
            self._on_node_selected(role, node_id)

    def hover(self, role: str, node_id: str | None) -> None:
        """Hovering a node rings its partner on the other side (and scrolls it into view)."""
        self.hovering.hover(role, node_id)

    # ----- attribute diff and authoring ----------------------------------------------------------
    def selected_pair(self) -> tuple[str | None, str | None]:
        return self.details.selected_pair()

    def closest_unmatched(self, role: str, node_id: str):
        return self.details.closest_unmatched(role, node_id)

    def copy_node_across(self, role: str, node_id: str) -> str | None:
        return self.details.copy_node_across(role, node_id)

    def copy_selected_node(self) -> str | None:
        return self.details.copy_selected_node()

    def copy_attribute(self, key: str, direction: str) -> None:
        self.details.copy_attribute(key, direction)

    # ----- differences ------------------------------------------------------------------------
    def goto_difference(self, k: int) -> Difference | None:
        """Show difference ``k`` (wrapping): exactly it is selected, on its side."""
        if not self.diffs:
            return None
        k %= len(self.diffs)
        self.diff_index = k
        d = self.diffs[k]
        self.panel.show_current(k)
        self._syncing = True
        try:
            active = show_difference(self.editors, d)
        finally:
            self._syncing = False
        if d.kind == "syntax":
            self.sides["generated"].reveal_error()
        if d.reference and d.edge is None:
            self.details.select("reference", d.reference[0])
        elif d.generated and d.edge is None:
            self.details.select("generated", d.generated[0])
        else:
            self.details.select(None, None)
        if active is not None:
            nodes = self.editors[active].scene.selected_node_ids()
            self.selection_changed.emit(active, nodes[0] if len(nodes) == 1 else "")
        self.link.relink()
        return d

    def next_difference(self) -> Difference | None:
        return self.goto_difference(self.diff_index + 1)

    def previous_difference(self) -> Difference | None:
        return self.goto_difference(self.diff_index - 1 if self.diff_index >= 0 else -1)

    # ----- linked zoom and scroll -----------------------------------------------------------------
    def _center(self, role: str):
        return self.link.center(role)

    def set_linked(self, on: bool) -> None:
        self.link.set_on(on)

    @property
    def linked(self) -> bool:
        return self.link.on


def _scrolling(widget: QWidget) -> QScrollArea:
    """``widget`` in a frameless vertical scroll area that gives it the whole width."""
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
    return area


def _is_plain_json(text: str) -> bool:
    s = text.lstrip()
    return s.startswith("[") or s.startswith("{")
