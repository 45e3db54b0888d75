"""The score panel (Δ, θ, Δ_E, error counts, exactness, "why this Δ", options, differences) and the
two-column attribute diff of the selected pair. Both are passive views: the compare view fills them
and listens to their signals."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.core.scoring.divergence import ScoreOptions, ScoreResult
from gindex_studio.core.scoring.explain import ignored_keys, why_delta
from gindex_studio.core.support import profiles
from gindex_studio.ui.panels.small_widgets import headline
from gindex_studio.ui.theme import role_colors

DIFF_BG = QColor("#ffe8b3")  # differing rows (with a ≠ mark and bold text as well)
IGNORED_FG = QColor("#8a8a8a")


def fmt(x: float) -> str:
    """Three decimals, trailing zeros kept short: 0.234, 1, 0."""
    s = f"{x:.3f}".rstrip("0").rstrip(".")
    return s if s not in ("-0", "") else "0"


def fmt_fraction(f: Fraction) -> str:
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def why_line(r: ScoreResult) -> str:
    """S, |V'|, |V''| and the formula with the core's figures filled in (``core.explain``)."""
    w = why_delta(r)
    n1, n2 = w.n_reference, w.n_generated
    if w.empty:
        side = "reference" if w.empty == "reference" else "generated program"
        return f"Why this Δ: the {side} has no nodes, so Δ = 1 (|V'| = {n1}, |V''| = {n2}) = <b>1</b>"
    s, s2 = w.s, w.s_squared
    s_txt = fmt_fraction(s) if s.denominator == 1 else f"{fmt_fraction(s)} ≈ {fmt(float(s))}"
    s2_txt = fmt_fraction(s2) if s2.denominator == 1 else fmt(float(s2))
    return (
        f"Why this Δ: S = Σw = {s_txt} over {w.pairs} mapped pairs, |V'| = {n1}, |V''| = {n2}<br>"
        f"Δ = 1 − S²/(|V'|·|V''|) = 1 − {s2_txt}/({n1}·{n2}) = 1 − {fmt(float(w.ratio))} = <b>{fmt(r.delta)}</b>"
    )


def error_counts(r: ScoreResult) -> tuple[int, int, int]:
    e = r.errors
    return (1 if e.get("syntax") else 0, len(e.get("function") or ()), len(e.get("dataflow") or ()))


# ----- differences -------------------------------------------------------------------------------


@dataclass
class Difference:
    """One entry of the differences list: what it is, and the nodes to show on each side."""

    kind: str  # syntax | attributes | missing-node | extra-node | missing-edge | extra-edge
    text: str
    reference: list[str] = field(default_factory=list)
    generated: list[str] = field(default_factory=list)
    edge: list | None = None


KIND_WORD = {
    "syntax": "syntax",
    "attributes": "≠ attrs",
    "missing-node": "missing",
    "extra-node": "extra",
    "missing-edge": "missing wire",
    "extra-edge": "extra wire",
}


def differences(r: ScoreResult, ref_label, gen_label, pair_number: dict[str, int]) -> list[Difference]:
    """Every difference of ``r`` in diff-tool order: syntax, attributes, missing/extra nodes,
    missing/extra wires. ``ref_label(id)``/``gen_label(id)`` name nodes; ``pair_number``: ref id → #."""
    phi = {p.reference: p.generated for p in r.mapping}
    inv = {b: a for a, b in phi.items()}
    out: list[Difference] = []
    syn = r.errors.get("syntax")
    if syn:
        out.append(Difference("syntax", f"line {syn['line']}, column {syn['column']}: {syn['message']}"))
    for p in r.mapping:
        if p.w < 1:
            keys = ", ".join(p.differing_keys) or "—"
            out.append(Difference(
                "attributes", f"#{pair_number.get(p.reference, '?')} {ref_label(p.reference)}: {keys} (w = {p.w_exact})",
                [p.reference], [p.generated]))
    for a in r.missing_nodes:
        out.append(Difference("missing-node", f"{ref_label(a)} is not in the generated program", [a], []))
    for b in r.extra_nodes:
        out.append(Difference("extra-node", f"{gen_label(b)} is not in the reference", [], [b]))

    def ends(e):
        return e[0], e[-1], (f" (port {e[1]})" if len(e) == 3 else "")

    for e in r.missing_edges:
        a, b, port = ends(e)
        out.append(Difference("missing-edge", f"{ref_label(a)} → {ref_label(b)}{port}",
                              [a, b], [x for x in (phi.get(a), phi.get(b)) if x], e))
    for e in r.extra_edges:
        a, b, port = ends(e)
        out.append(Difference("extra-edge", f"{gen_label(a)} → {gen_label(b)}{port}",
                              [x for x in (inv.get(a), inv.get(b)) if x], [a, b], e))
    return out


def _Short(base):
    """``base`` (a list or table) whose preferred height is small: in the score column's scroll
    areas it then takes the room that is left instead of pushing the rest out of view."""

    class Short(base):
        def sizeHint(self):
            return QSize(super().sizeHint().width(), 90)

    Short.__name__ = f"Short{base.__name__}"
    return Short


# ----- score panel -------------------------------------------------------------------------------


class ScorePanel(QWidget):
    options_changed = Signal(object)  # ScoreOptions
    difference_activated = Signal(int)
    probes_requested = Signal()  # the "Run probes" button (ui.nodered runs them)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._previous: float | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        self.delta_label = headline("Δ —", "delta", 22, self)
        self.values_label = QLabel("θ —   Δ_E —")
        self.change_label = QLabel("")
        self.change_label.setObjectName("change")
        self.change_label.setStyleSheet("color: palette(placeholder-text)")
        self.status_label = QLabel("")
        self.status_label.setWordWrap(True)
        self.errors_label = QLabel("")
        self.why_label = QLabel("")
        self.why_label.setWordWrap(True)
        self.why_label.setTextFormat(Qt.RichText)
        self.why_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.values_label.setWordWrap(True)
        self.delta_label.setSizePolicy(QSizePolicy.Fixed, QSizePolicy.Preferred)
        self.delta_label.setMinimumWidth(self.delta_label.fontMetrics().horizontalAdvance("Δ = 0.0000") + 4)
        top = QHBoxLayout()
        top.addWidget(self.delta_label)
        top.addSpacing(12)
        top.addWidget(self.values_label, 1)
        lay.addLayout(top)
        lay.addWidget(self.change_label)
        lay.addWidget(self.status_label)
        lay.addWidget(self.errors_label)
        lay.addWidget(self.why_label)
        # behaviour in the real Node-RED, beside Δ and never part of it (computed on demand)
        self.behaviour_label = QLabel("behaviour: not run")
        self.behaviour_label.setObjectName("behaviour")
        self.behaviour_label.setWordWrap(True)
        self.behaviour_label.setToolTip("Run both programs in Node-RED on the same probes (Run → Run Probes)")
        self.probe_button = QPushButton("Run probes")
        self.probe_button.setObjectName("run-probes")
        self.probe_button.setToolTip("Run both programs in Node-RED on the same inputs and compare what they do")
        self.probe_button.clicked.connect(self.probes_requested)
        lay.addWidget(self.behaviour_label)

        self.options_toggle = QToolButton()
        self.options_toggle.setObjectName("options-toggle")
        self.options_toggle.setText("Scoring options")
        self.options_toggle.setCheckable(True)
        self.options_toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.options_toggle.setArrowType(Qt.RightArrow)
        self.options_toggle.setAutoRaise(True)
        self.options_toggle.setToolTip("Show the scoring options (profile, port-aware wires, defaults, ignored types, deadline)")
        orow = QHBoxLayout()
        orow.addWidget(self.options_toggle)
        orow.addStretch(1)
        orow.addWidget(self.probe_button)
        lay.addLayout(orow)
        box = QGroupBox()
        box.setObjectName("scoring-options")
        self.options_box = box
        self.options_toggle.toggled.connect(self.show_options)
        box.hide()  # folded: the profile is in the line above; the canvases get the height
        form = QFormLayout(box)
        form.setContentsMargins(6, 4, 6, 4)
        self.profile = QComboBox()
        self.profile.addItems(list(profiles.names()))
        self.profile.setToolTip("paper: the metric as the paper defines it; companion: the public companion code's rules")
        self.port_aware = QCheckBox("port-aware wires")
        self.fill_defaults = QCheckBox("fill library defaults")
        self.ignore_types = QLineEdit()
        self.ignore_types.setPlaceholderText("node types to ignore, comma separated")
        self.deadline = QDoubleSpinBox()
        self.deadline.setRange(0, 600)
        self.deadline.setDecimals(2)
        self.deadline.setSpecialValueText("none (exact)")
        self.deadline.setSuffix(" s")
        row = QHBoxLayout()
        row.addWidget(self.port_aware)
        row.addWidget(self.fill_defaults)
        form.addRow("Profile", self.profile)
        form.addRow(row)
        form.addRow("Ignore", self.ignore_types)
        form.addRow("Deadline", self.deadline)
        lay.addWidget(box)
        for w in (self.profile,):
            w.currentIndexChanged.connect(self._emit_options)
        for w in (self.port_aware, self.fill_defaults):
            w.toggled.connect(self._emit_options)
        self.ignore_types.editingFinished.connect(self._emit_options)
        self.deadline.valueChanged.connect(self._emit_options)

        self.diff_title = QLabel("Differences (F8 next, Shift+F8 previous)")
        lay.addWidget(self.diff_title)
        self.diff_list = _Short(QListWidget)()
        self.diff_list.setObjectName("differences")
        self.diff_list.setAlternatingRowColors(True)
        self.diff_list.setWordWrap(True)
        self.diff_list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.diff_list.itemActivated.connect(lambda it: self.difference_activated.emit(self.diff_list.row(it)))
        self.diff_list.itemClicked.connect(lambda it: self.difference_activated.emit(self.diff_list.row(it)))
        lay.addWidget(self.diff_list, 1)
        self._blocking = False

    # ----- options ---------------------------------------------------------------------------
    def show_options(self, on: bool) -> None:
        """Unfold (or fold) the scoring options."""
        self.options_box.setVisible(on)
        self.options_toggle.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        if self.options_toggle.isChecked() != on:
            self.options_toggle.setChecked(on)

    def options(self) -> ScoreOptions:
        types = frozenset(t.strip() for t in self.ignore_types.text().split(",") if t.strip())
        d = self.deadline.value()
        return ScoreOptions(profile=self.profile.currentText(), ignore_types=types,
                            port_aware=self.port_aware.isChecked(), fill_defaults=self.fill_defaults.isChecked(),
                            deadline=d if d > 0 else None)

    def set_options(self, o: ScoreOptions) -> None:
        self._blocking = True
        self.profile.setCurrentText(o.profile.name)
        self.port_aware.setChecked(o.port_aware)
        self.fill_defaults.setChecked(o.fill_defaults)
        self.ignore_types.setText(", ".join(sorted(o.ignore_types)))
        self.deadline.setValue(o.deadline or 0)
        self._blocking = False

    def _emit_options(self, *_a) -> None:
        if not self._blocking:
            self.options_changed.emit(self.options())

    # ----- values ----------------------------------------------------------------------------
    def reset_change(self) -> None:
        self._previous = None
        self.change_label.setText("")

    def set_pending(self, text: str = "scoring…") -> None:
        self.status_label.setText(text)

    def show_result(self, r: ScoreResult, final: bool = True, edited: bool = False) -> None:
        self.delta_label.setText(f"Δ = {fmt(r.delta)}")
        self.values_label.setText(f"θ = {fmt(r.theta)}    Δ_E = {fmt(r.edge_delta)}    ({r.profile})")
        if final:
            if edited and self._previous is not None and abs(self._previous - r.delta) > 1e-12:
                self.change_label.setText(f"Δ {fmt(self._previous)} → {fmt(r.delta)}")
            elif not edited:
                self.change_label.setText("")
            self._previous = r.delta
        if not final:
            self.status_label.setText(
                f"anytime result: true Δ ∈ [{fmt(r.delta_lower)}, {fmt(r.delta)}]; the exact search continues…")
        elif r.exact:
            self.status_label.setText(f"exact (proven optimal mapping, {r.seconds * 1000:.0f} ms)")
        else:
            self.status_label.setText(
                f"not exact: the deadline cut the search; proven bound Δ ∈ [{fmt(r.delta_lower)}, {fmt(r.delta)}]")
        syn, fun, dat = error_counts(r)
        self.errors_label.setText(f"Errors — syntax: {syn}   function: {fun}   dataflow: {dat}")
        self.why_label.setText(why_line(r))

    def show_failure(self, message: str) -> None:
        self.status_label.setText(f"scoring failed: {message}")

    def set_differences(self, diffs: list[Difference], result: ScoreResult | None = None) -> None:
        """List ``diffs``; with none left and a result, say that the programs match."""
        current = self.diff_list.currentRow()
        self.diff_list.clear()
        for d in diffs:
            it = QListWidgetItem(f"{KIND_WORD[d.kind]}:  {d.text}")
            it.setToolTip(d.text)
            self.diff_list.addItem(it)
        if not diffs and result is not None:
            word = "" if result.exact else " as far as the search got"
            it = QListWidgetItem(f"No differences: the programs match (Δ = {fmt(result.delta)}){word}.")
            it.setFlags(Qt.NoItemFlags)
            self.diff_list.addItem(it)
        self.diff_title.setText(f"Differences: {len(diffs)} (F8 next, Shift+F8 previous)")
        if 0 <= current < len(diffs):
            self.diff_list.setCurrentRow(current)

    def show_current(self, k: int) -> None:
        """Mark row ``k`` as the difference on screen (without re-emitting it)."""
        self.diff_list.blockSignals(True)
        self.diff_list.setCurrentRow(k)
        self.diff_list.blockSignals(False)


# ----- attribute diff ---------------------------------------------------------------------------


def show_value(v: Any) -> str:
    if v is _ABSENT:
        return "(absent)"
    try:
        s = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        s = repr(v)
    return s if len(s) <= 160 else s[:157] + "…"


class _Absent:
    def __repr__(self):
        return "(absent)"


_ABSENT = _Absent()
LAYOUT = frozenset({"x", "y", "z", "wires"})


class AttributeDiff(QWidget):
    """Two columns (reference | generated) of the selected pair's attributes, differences marked
    with ≠, bold and a background; copy buttons take one value across as an undo command."""

    copy_requested = Signal(str, str)  # key, "to-generated" | "to-reference"

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        self.title = QLabel("Select a node to compare its attributes with its partner's")
        self.title.setWordWrap(True)
        lay.addWidget(self.title)
        self.table = _Short(QTableWidget)(0, 4)
        self.table.setMinimumHeight(60)  # a short screen: it scrolls, the buttons below stay in view
        self.table.setObjectName("attribute-diff")
        self.table.setHorizontalHeaderLabels(["", "attribute", "reference", "generated"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setWordWrap(True)
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.Fixed)
        self.table.setColumnWidth(0, 22)
        h.setSectionResizeMode(1, QHeaderView.Interactive)  # as wide as its names, never more than the room
        h.setSectionResizeMode(2, QHeaderView.Stretch)
        h.setSectionResizeMode(3, QHeaderView.Stretch)
        lay.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.to_ref = QPushButton("← To reference")
        self.to_gen = QPushButton("To generated →")
        self.to_ref.setToolTip("Set the selected attribute of the reference node to the generated node's value (undoable)")
        self.to_gen.setToolTip("Set the selected attribute of the generated node to the reference node's value (undoable)")
        row.addWidget(self.to_ref)
        row.addWidget(self.to_gen)
        lay.addLayout(row)
        self.to_ref.clicked.connect(lambda: self._copy("to-reference"))
        self.to_gen.clicked.connect(lambda: self._copy("to-generated"))
        self.table.itemSelectionChanged.connect(self._sync_buttons)
        self.keys: list[str] = []
        self.differing: set[str] = set()
        self._sync_buttons()

    def clear(self, text: str = "Select a node to compare its attributes with its partner's") -> None:
        self.title.setText(text)
        self.table.setRowCount(0)
        self.keys = []
        self.differing = set()
        self._sync_buttons()

    def show_pair(self, title: str, ref: dict | None, gen: dict | None, differing: list[str], profile: str) -> None:
        """Fill the table for a pair (or one unmatched node: the other side None)."""
        self.title.setText(title)
        ignored = ignored_keys(profile)
        keys: list[str] = []
        for d in (ref or {}, gen or {}):
            for k in d:
                if k not in keys and k not in LAYOUT:
                    keys.append(k)
        scored = [k for k in keys if k not in ignored]
        unscored = [k for k in keys if k in ignored]
        self.keys = scored + unscored
        self.differing = set(differing)
        self.table.setRowCount(len(self.keys))
        bold = QFont(self.table.font())
        bold.setBold(True)
        for r, k in enumerate(self.keys):
            rv = ref.get(k, _ABSENT) if ref is not None else _ABSENT
            gv = gen.get(k, _ABSENT) if gen is not None else _ABSENT
            diff = k in self.differing
            cells = ["≠" if diff else ("" if k not in ignored else "·"), k,
                     show_value(rv) if ref is not None else "", show_value(gv) if gen is not None else ""]
            for c, text in enumerate(cells):
                it = QTableWidgetItem(text)
                state = "differs" if diff else ("not scored" if k in ignored else "equal")
                it.setToolTip(text if c >= 2 else f"{k}: {state}" if c == 1 else state)  # a narrow column elides names
                if c == 0:
                    it.setTextAlignment(Qt.AlignCenter)
                if diff:
                    it.setBackground(QBrush(QColor(role_colors("diff")[1])))
                    it.setForeground(QBrush(QColor(role_colors("diff")[0])))
                    it.setFont(bold)
                elif k in ignored:
                    it.setForeground(QBrush(IGNORED_FG))
                self.table.setItem(r, c, it)
        self.fit_columns()
        self.table.resizeRowsToContents()
        self._sync_buttons()

    def fit_columns(self) -> None:
        """The attribute names' column as wide as its longest name, but never so wide that the
        "reference" and "generated" columns get less than their headers' words."""
        t, h = self.table, self.table.horizontalHeader()
        fm = h.fontMetrics()
        words = max(fm.horizontalAdvance(t.horizontalHeaderItem(c).text()) for c in (2, 3)) + 24
        room = t.viewport().width() - t.columnWidth(0) - 2 * words
        names = max(t.sizeHintForColumn(1), fm.horizontalAdvance(t.horizontalHeaderItem(1).text()) + 24)
        t.setColumnWidth(1, max(40, min(names, room)))

    def resizeEvent(self, e):
        super().resizeEvent(e)
        self.fit_columns()

    def selected_key(self) -> str | None:
        rows = {i.row() for i in self.table.selectedItems()}
        return self.keys[min(rows)] if rows and min(rows) < len(self.keys) else None

    def _sync_buttons(self) -> None:
        has = self.selected_key() is not None
        self.to_ref.setEnabled(has)
        self.to_gen.setEnabled(has)

    def _copy(self, direction: str) -> None:
        k = self.selected_key()
        if k is not None:
            self.copy_requested.emit(k, direction)
