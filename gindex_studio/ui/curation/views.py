"""The curation window's side views: near-duplicates, leaks (with the Ω histogram), coverage
(with likely mislabels and outliers), the 2-D map and the split table. Each follows the model's
signals; a click on a pair-bearing row emits ``pairRequested(i, j)``."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QListView, QListWidget, QListWidgetItem,
    QPushButton, QSlider, QSplitter, QTableWidget, QTableWidgetItem, QTabWidget, QTreeWidget, QTreeWidgetItem,
    QVBoxLayout, QWidget,
)

from gindex_studio.ui.curation.heatmap import domain_colors
from gindex_studio.ui.plot_theme import ThemedPlot
from gindex_studio.ui.curation.model import CurationModel

SLIDER_STEPS = 200  # a threshold slider moves in steps of 1/200 = 0.005 of Δ


def _fmt(v) -> str:
    return "" if v is None else f"{float(v):.4f}"


class ThresholdSlider(QWidget):
    """A labelled slider over Δ ∈ [0, 1] in steps of 0.005; ``changed(Fraction)``."""

    changed = Signal(object)

    def __init__(self, text: str, value: Fraction, parent=None, relation: str = "≤"):
        super().__init__(parent)
        self.text, self.relation = text, relation
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setPageStep(5)
        self.label = QLabel()
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel(text))
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.label)
        self.slider.setValue(round(float(value) * SLIDER_STEPS))
        self._show()
        self.slider.valueChanged.connect(lambda _v: (self._show(), self.changed.emit(self.value())))

    def value(self) -> Fraction:
        return Fraction(self.slider.value(), SLIDER_STEPS)

    def _show(self) -> None:
        self.label.setText(f"Δ {self.relation} {float(self.value()):.3f}")


def _table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.setEditTriggers(QAbstractItemView.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectRows)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
    t.horizontalHeader().setStretchLastSection(True)
    return t


def _fit_columns(table: QTableWidget) -> None:
    """Every column as wide as its texts (no cut, no wrapped cell); a horizontal scroll bar when
    they are wider than the view together."""
    h = table.horizontalHeader()
    h.setStretchLastSection(False)
    h.setSectionResizeMode(QHeaderView.ResizeToContents)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.ElideNone)


class Placeholder(QLabel):
    """A line of text in the middle of an empty table's viewport, saying why it is empty."""

    def __init__(self, table: QTableWidget, text: str):
        super().__init__(text, table.viewport())
        self.table = table
        self.setObjectName("placeholder")
        self.setAlignment(Qt.AlignCenter)
        self.setWordWrap(True)
        self.setStyleSheet("color: palette(placeholder-text); padding: 12px;")
        self.setAttribute(Qt.WA_TransparentForMouseEvents)
        table.viewport().installEventFilter(self)
        self.sync()

    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Resize:
            self.setGeometry(obj.rect())
        return False

    def sync(self, text: str | None = None) -> None:
        """Shown while the table has no row (with ``text``, if given)."""
        if text is not None:
            self.setText(text)
        self.setGeometry(self.table.viewport().rect())
        self.setVisible(self.table.rowCount() == 0)


def _name(item) -> str:
    """A program's file name (its domain has a column of its own; the full label is the tooltip)."""
    return item.label.rsplit("/", 1)[-1]


def _fill(table: QTableWidget, rows: list[list], pairs: list[tuple[int, int] | None]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            item = QTableWidgetItem(str(v))
            item.setToolTip(str(v))
            if c == 0 and pairs[r] is not None:
                item.setData(Qt.UserRole, pairs[r])
            table.setItem(r, c, item)


def show_selected_rows(table: QTableWidget, pairs: list, selection: list[int]) -> None:
    """Select the rows of ``table`` whose pair (``pairs[r]``, program indices) has a selected
    program, scrolling to the first; the rest deselected (the model's selection shown here)."""
    sel = set(selection)
    rows = [r for r, p in enumerate(pairs) if p is not None and sel & set(p)]
    chosen = QItemSelection()
    model = table.model()
    for r in rows:
        chosen.select(model.index(r, 0), model.index(r, table.columnCount() - 1))
    table.selectionModel().select(chosen, QItemSelectionModel.ClearAndSelect)
    if rows:
        table.scrollToItem(table.item(rows[0], 0))


class DuplicatesView(QWidget):
    """Groups of near-duplicate programs, largest first; a click on a member compares it with
    its nearest fellow member. ``thresholdChanged`` asks for a new search."""

    pairRequested = Signal(int, int)

    def __init__(self, model: CurationModel, parent=None):
        super().__init__(parent)
        self.model = model
        self.slider = ThresholdSlider("Near-duplicates:", model.duplicate_threshold)
        self.slider.changed.connect(lambda v: model.set_thresholds(duplicates=v))
        self.summary = QLabel()
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["program", "domain", "role", "nearest in group (Δ)"])
        # every column as wide as its texts (the last one too: stretched, it was cut at the
        # window's edge); a horizontal scroll bar when they do not fit together
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.tree.header().setStretchLastSection(False)
        self.tree.setTextElideMode(Qt.ElideNone)
        self.tree.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.tree.itemClicked.connect(self._clicked)
        lay = QVBoxLayout(self)
        lay.addWidget(self.slider)
        lay.addWidget(self.summary)
        lay.addWidget(self.tree, 1)
        model.reportChanged.connect(self.refresh)
        model.splitChanged.connect(self.refresh)
        model.selectionChanged.connect(self.show_selection)

    def show_selection(self) -> None:
        """Select every group member that is selected in the model (the others deselected)."""
        sel, first = set(self.model.selection), None
        for k in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(k)
            top.setSelected(False)
            for m in range(top.childCount()):
                child = top.child(m)
                on = child.data(0, Qt.UserRole)[0] in sel
                child.setSelected(on)
                if on and first is None:
                    first = child
        if first is not None:
            self.tree.scrollToItem(first)

    def refresh(self) -> None:
        self.tree.clear()
        rep = self.model.report
        if rep is None:
            self.summary.setText("searching…")
            return
        dup, items = rep.duplicates, self.model.ws.items
        self.summary.setText(f"{len(dup.groups)} groups at Δ ≤ {float(dup.threshold):.3f}; "
                             f"{dup.pairs_searched} of {dup.pairs_total} pairs searched (the rest ruled out by bounds or cached)")
        tops = []
        for k, g in enumerate(dup.groups, 1):
            ds = [v for _a, _b, v in g.pairs]
            nearest = g.nearest()
            top = QTreeWidgetItem([f"Group {k}: {len(g.members)} programs, Δ {float(min(ds)):.4f} – {float(max(ds)):.4f}"
                                   + ("  (= identical inside)" if g.exact else "")])
            children = []
            for m in g.members:
                best = nearest[m]
                it = items[m]
                child = QTreeWidgetItem([_name(it) + ("  (=)" if m in g.exact else ""), it.domain, it.role,
                                         f"{_name(items[best[1]])} ({float(best[0]):.4f})"])
                child.setToolTip(0, it.label)
                child.setData(0, Qt.UserRole, (m, best[1]))
                children.append(child)
            top.addChildren(children)
            tops.append(top)
        # the tree takes the groups at once and expands them at once: an item added or expanded
        # in a tree whose columns fit their contents made it measure every row again (O(rows²))
        self.tree.addTopLevelItems(tops)
        for top in tops:  # the group's line spans the columns: its text does not widen the program column
            top.setFirstColumnSpanned(True)
        self.tree.expandAll()
        self.show_selection()

    def _clicked(self, item, _col) -> None:
        pair = item.data(0, Qt.UserRole)
        if pair:
            self.model.select([pair[0]])
            self.pairRequested.emit(*pair)


class LeaksView(QWidget):
    """Test programs within the threshold of the curriculum, nearest first, and the histogram
    of Ω over all test programs with the threshold drawn."""

    pairRequested = Signal(int, int)

    def __init__(self, model: CurationModel, parent=None):
        super().__init__(parent)
        self.model = model
        self.slider = ThresholdSlider("Leaks:", model.leak_threshold)
        self.slider.changed.connect(lambda v: model.set_thresholds(leaks=v))
        self.summary = QLabel()
        self.table = _table(["test program", "domain", "Ω", "nearest in curriculum", "its domain"])
        self.table.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.table.cellClicked.connect(self._clicked)
        _fit_columns(self.table)
        self.empty = Placeholder(self.table, "No leaks at this threshold")
        self.pairs: list[tuple[int, int]] = []
        self.hist = pg.PlotWidget(background="w")
        ThemedPlot(self.hist)  # the theme's background and axes (white only in the light theme)
        self.hist.setLabel("bottom", "Ω (Δ to the nearest curriculum program)")
        self.hist.setLabel("left", "test programs")
        self.hist.setMouseEnabled(False, False)
        self.hist.setMinimumHeight(150)
        self.line = pg.InfiniteLine(angle=90, pen=pg.mkPen(QColor(220, 40, 40), width=2))
        self.bars = None
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.hist)
        split.setSizes([300, 170])
        lay = QVBoxLayout(self)
        lay.addWidget(self.slider)
        lay.addWidget(self.summary)
        lay.addWidget(split, 1)
        for sig in (model.reportChanged, model.thresholdsChanged, model.splitChanged):
            sig.connect(self.refresh)
        model.selectionChanged.connect(self.show_selection)

    def show_selection(self) -> None:
        """Select the leaks whose test program or nearest program is selected in the model."""
        show_selected_rows(self.table, self.pairs, self.model.selection)

    def refresh(self) -> None:
        m, items = self.model, self.model.ws.items
        leaks = m.leaks()
        rows = [[_name(items[x.task]), items[x.task].domain, _fmt(x.delta), _name(items[x.nearest]), items[x.nearest].domain]
                for x in leaks]
        self.pairs = [(x.task, x.nearest) for x in leaks]
        _fill(self.table, rows, self.pairs)
        self.empty.sync(f"No leaks: no test program within Δ ≤ {float(m.leak_threshold):.3f} of the curriculum"
                        if m.report is not None else "searching…")
        self.show_selection()
        self.hist.clear()
        if m.report is None:
            self.summary.setText("searching…")
            return
        tests = set(m.ws.indices("test"))
        oms = [float(n.delta) for t, n in m.report.omegas.items() if t in tests and n.delta is not None]
        self.summary.setText(f"{len(leaks)} of {len(oms)} test programs have Ω ≤ {float(m.leak_threshold):.3f}")
        t = float(m.leak_threshold)
        edges = np.linspace(0.0, 1.0, 21)
        leaky = np.histogram([x for x in oms if x <= t], bins=edges)[0]
        rest = np.histogram([x for x in oms if x > t], bins=edges)[0]
        self.bars = pg.BarGraphItem(x0=edges[:-1], x1=edges[1:], height=leaky, brush=QColor(220, 90, 80), pen=pg.mkPen("w"))
        self.hist.addItem(self.bars)
        self.hist.addItem(pg.BarGraphItem(x0=edges[:-1], x1=edges[1:], y0=leaky, height=rest, brush=QColor(90, 130, 200),
                                          pen=pg.mkPen("w")))
        self.line.setValue(float(m.leak_threshold))
        self.hist.addItem(self.line)
        self.hist.setXRange(0, 1, padding=0.02)

    def _clicked(self, row: int, _col: int) -> None:
        item = self.table.item(row, 0)
        pair = item.data(Qt.UserRole) if item else None
        if pair:
            self.model.select([pair[0]])
            self.pairRequested.emit(*pair)


class CoverageView(QWidget):
    """Per domain: curriculum and test counts, mean within-domain Δ, mean Ω of its tests; then
    likely mislabelled programs and outliers (a click compares with the nearest program)."""

    pairRequested = Signal(int, int)

    def __init__(self, model: CurationModel, parent=None):
        super().__init__(parent)
        self.model = model
        self.table = _table(["domain", "curriculum", "test", "mean Δ within", "mean Ω of tests"])
        self.mis = _table(["likely mislabelled", "domain", "Δ own domain", "Δ other", "nearest other (domain)"])
        self.slider = ThresholdSlider("Outliers:", model.outlier_threshold, relation="≥")
        self.slider.changed.connect(lambda v: model.set_thresholds(outliers=v))
        self.out = _table(["outlier", "domain", "Δ to nearest of its domain", "nearest"])
        self.pairs: dict = {self.mis: [], self.out: []}
        for t in (self.mis, self.out):
            t.setSelectionMode(QAbstractItemView.ExtendedSelection)
            t.cellClicked.connect(lambda r, _c, t=t: self._clicked(t, r))
        for t in (self.table, self.mis, self.out):
            _fit_columns(t)
        self.mis_empty = Placeholder(self.mis, "No likely mislabelled programs")
        self.out_empty = Placeholder(self.out, "No outliers at this threshold")
        # three tables, each on a page of its own with the whole height (squeezed into one
        # column they were a few rows each on a laptop screen); the pages' titles count the rows
        self.pages = QTabWidget()
        self.pages.setObjectName("coverage-pages")
        self.pages.setDocumentMode(True)
        box = QWidget()
        bl = QVBoxLayout(box)
        bl.setContentsMargins(0, 4, 0, 0)
        bl.addWidget(self.slider)
        bl.addWidget(self.out, 1)
        self.pages.addTab(self.table, "Domains")
        self.pages.addTab(self.mis, "Likely mislabelled")
        self.pages.addTab(box, "Outliers")
        lay = QVBoxLayout(self)
        lay.addWidget(self.pages)
        for sig in (model.reportChanged, model.thresholdsChanged):
            sig.connect(self.refresh)
        model.selectionChanged.connect(self.show_selection)

    def show_selection(self) -> None:
        """Select the mislabel and outlier rows of the programs selected in the model."""
        for table, pairs in self.pairs.items():
            show_selected_rows(table, [(p[0],) for p in pairs], self.model.selection)

    def refresh(self) -> None:
        rep, items = self.model.report, self.model.ws.items
        if rep is None:
            return
        _fill(self.table, [[c.domain, c.curriculum, c.tests, _fmt(c.mean_within), _fmt(c.mean_omega)] for c in rep.coverage],
              [None] * len(rep.coverage))
        _fill(self.mis, [[_name(items[n.index]), items[n.index].domain, _fmt(n.same.delta), _fmt(n.other.delta),
                          f"{_name(items[n.other.index])} ({items[n.other.index].domain})"] for n in rep.mislabels],
              [(n.index, n.other.index) for n in rep.mislabels])
        outs = self.model.outliers()
        _fill(self.out, [[_name(items[n.index]), items[n.index].domain, _fmt(n.same.delta), _name(items[n.same.index])]
                         for n in outs], [(n.index, n.same.index) for n in outs])
        self.pairs = {self.mis: [(n.index, n.other.index) for n in rep.mislabels],
                      self.out: [(n.index, n.same.index) for n in outs]}
        self.mis_empty.sync()
        self.out_empty.sync(f"No outliers at this threshold: no program is Δ ≥ "
                            f"{float(self.model.outlier_threshold):.3f} from the rest of its domain")
        self.pages.setTabText(0, f"Domains ({len(rep.coverage)})")
        self.pages.setTabText(1, f"Likely mislabelled ({len(rep.mislabels)})")
        self.pages.setTabText(2, f"Outliers ({len(outs)})")
        self.show_selection()

    def _clicked(self, table: QTableWidget, row: int) -> None:
        item = table.item(row, 0)
        pair = item.data(Qt.UserRole) if item else None
        if pair:
            self.model.select([pair[0]])
            self.pairRequested.emit(*pair)


SYMBOLS = {"curriculum": "o", "test": "t", "excluded": "x"}


ROLE_WORDS = {"curriculum": "curriculum", "test": "test", "excluded": "excluded"}


def role_icon(role: str, colour: QColor | None = None, size: int = 14) -> QIcon:
    """The map's mark of ``role`` (○ curriculum, ▽ test, × excluded), filled with ``colour``
    (grey when None: the role's entry in the legend)."""
    pix = QPixmap(size, size)
    pix.fill(Qt.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.Antialiasing)
    p.setPen(QPen(QColor(60, 60, 60), 1.2))
    p.setBrush(QBrush(colour if colour is not None else QColor(200, 200, 200)))
    m = 2
    if role == "test":
        p.drawPolygon(QPolygonF([QPointF(m, m), QPointF(size - m, m), QPointF(size / 2, size - m)]))
    elif role == "excluded":
        p.setPen(QPen(colour if colour is not None else QColor(60, 60, 60), 2.4))
        p.drawLine(QPointF(m, m), QPointF(size - m, size - m))
        p.drawLine(QPointF(m, size - m), QPointF(size - m, m))
    else:
        p.drawEllipse(QPointF(size / 2, size / 2), size / 2 - m, size / 2 - m)
    p.end()
    return QIcon(pix)


class MapLegend(QListWidget):
    """The map's legend, beside the plot rather than on its points: the shape of each role, then
    a swatch and the name of each domain, wrapped in rows. Clicking a domain emits its name."""

    domainClicked = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("map-legend")
        self.setFlow(QListView.LeftToRight)
        self.setWrapping(True)
        self.setResizeMode(QListView.Adjust)
        self.setSpacing(1)
        self.setSelectionMode(QAbstractItemView.NoSelection)
        self.setFrameShape(QListWidget.NoFrame)
        self.setIconSize(QSize(14, 14))
        self.setStyleSheet("QListWidget { background: transparent; }")
        self.setMaximumHeight(6 * self.fontMetrics().height() + 12)
        self.itemClicked.connect(lambda it: it.data(Qt.UserRole) and self.domainClicked.emit(it.data(Qt.UserRole)))
        self.domains: dict[str, QColor] = {}

    def set_domains(self, colors: dict[str, QColor], roles: set[str]) -> None:
        """Entries for the roles present and every domain (``colors``: domain → its colour)."""
        if colors == self.domains and self.count():
            return
        self.domains = dict(colors)
        self.clear()
        for role in ("curriculum", "test", "excluded"):
            if role in roles:
                it = QListWidgetItem(role_icon(role), ROLE_WORDS[role])
                it.setToolTip(f"shape: {role} program")
                self.addItem(it)
        for name, colour in colors.items():
            it = QListWidgetItem(role_icon("curriculum", colour), name)
            it.setData(Qt.UserRole, name)
            it.setToolTip(f"colour: domain {name} (click: select its programs)")
            self.addItem(it)
        self.updateGeometry()

    def sizeHint(self):
        return QSize(super().sizeHint().width(), self.maximumHeight())


class MapView(QWidget):
    """Programs placed by classical MDS of the Δ matrix, coloured by domain, shaped by role
    (○ curriculum, ▽ test, × excluded); clicking a point (Ctrl: add) selects it everywhere."""

    def __init__(self, model: CurationModel, parent=None):
        super().__init__(parent)
        self.model = model
        self.plot = pg.PlotWidget(background="w")
        ThemedPlot(self.plot)  # the theme's background and axes (white only in the light theme)
        self.plot.setAspectLocked(True)
        self.scatter = pg.ScatterPlotItem(size=11, hoverable=True, tip=self._tip)
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        self.note = QLabel("the map appears when the matrix is complete")
        self.note.setWordWrap(True)
        self.legend = MapLegend()
        self.legend.domainClicked.connect(self._select_domain)
        lay = QVBoxLayout(self)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.legend)
        lay.addWidget(self.note)
        self.points = np.zeros((0, 2))
        for sig in (model.splitChanged, model.selectionChanged):
            sig.connect(self.redraw)

    def set_points(self, points: np.ndarray) -> None:
        """Place the programs (``analysis.classical_mds`` of the complete Δ matrix)."""
        self.points = np.asarray(points, dtype=float)
        self.note.setText("Classical MDS of Δ: nearby points are programs with small Δ. Colour = domain (as the "
                          "heatmap's bands), shape = role (legend above; click a domain there to select its "
                          "programs); hover a point for the program, click to select it everywhere (Ctrl+click "
                          "adds; stacked points are selected together).")
        self.redraw()

    def redraw(self) -> None:
        items = self.model.ws.items
        if len(self.points) != len(items):
            self.scatter.clear()
            return
        palette = domain_colors(sorted({it.domain for it in items}))
        self.legend.set_domains(palette, {r for r in (it.role for it in items)})
        colors = {d: pg.mkBrush(c) for d, c in palette.items()}
        sel = np.zeros(len(items), dtype=bool)
        sel[self.model.selection] = True
        pens = (pg.mkPen(QColor(60, 60, 60)), pg.mkPen(QColor(200, 0, 0), width=3))
        self.scatter.setData(x=self.points[:, 0], y=self.points[:, 1], data=np.arange(len(items)),
                             symbol=[SYMBOLS[it.role] for it in items], brush=[colors[it.domain] for it in items],
                             pen=[pens[int(s)] for s in sel], size=np.where(sel, 15, 11))

    def _select_domain(self, domain: str) -> None:
        self.model.select([i for i, it in enumerate(self.model.ws.items) if it.domain == domain])

    def _tip(self, x, y, data) -> str:
        it = self.model.ws.items[int(data)]
        return f"{it.label}\n{it.domain}, {it.role}"

    def _clicked(self, _item, points, ev) -> None:
        """Every point under the pointer is selected (programs at Δ ≈ 0 share a spot)."""
        if not len(points):
            return
        picked = [int(p.data()) for p in points]
        add = bool(ev.modifiers() & Qt.ControlModifier) if hasattr(ev, "modifiers") else False
        self.model.select((self.model.selection + picked) if add else picked)


class SplitView(QWidget):
    """Every program with its domain and role; move the selected ones between curriculum, test
    and excluded or give them a domain (undoable); save the split as an experiment."""

    saveRequested = Signal()
    domainRequested = Signal()

    def __init__(self, model: CurationModel, parent=None):
        super().__init__(parent)
        self.model = model
        self.table = _table(["program", "domain", "role"])
        self.table.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.table.itemSelectionChanged.connect(self._selection_to_model)
        buttons = QHBoxLayout()
        self.role_buttons = {}
        for role, text in (("curriculum", "→ Curriculum"), ("test", "→ Test"), ("excluded", "→ Excluded")):
            b = QPushButton(text)
            b.setObjectName(f"split.{role}")
            b.clicked.connect(lambda _c=False, r=role: model.set_roles(self.selected(), r))
            buttons.addWidget(b)
            self.role_buttons[role] = b
        self.domain_button = QPushButton("Domain…")
        self.domain_button.clicked.connect(self.domainRequested.emit)
        self.save_button = QPushButton("Save split…")
        self.save_button.setObjectName("split.save")
        self.save_button.clicked.connect(self.saveRequested.emit)
        buttons.addWidget(self.domain_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        self.filter = QLineEdit()
        self.filter.setObjectName("split.filter")
        self.filter.setPlaceholderText("filter by program name, domain or role")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.apply_filter)
        self.count = QLabel()
        row = QHBoxLayout()
        row.addWidget(self.filter, 1)
        row.addWidget(self.count)
        lay = QVBoxLayout(self)
        lay.addLayout(buttons)
        lay.addLayout(row)
        lay.addWidget(self.table, 1)
        self._syncing = False
        model.splitChanged.connect(self.refresh)
        model.selectionChanged.connect(self._selection_from_model)
        self.refresh()

    def refresh(self) -> None:
        items = self.model.ws.items
        self._syncing = True
        _fill(self.table, [[it.label, it.domain, it.role] for it in items], [None] * len(items))
        for r, it in enumerate(items):
            if it.role != "curriculum":
                color = QColor(200, 70, 60) if it.role == "test" else QColor(140, 140, 140)
                self.table.item(r, 2).setForeground(color)
        self._syncing = False
        self.apply_filter()
        self._selection_from_model()

    def apply_filter(self, _text: str = "") -> None:
        """Show only the rows whose program, domain or role contains every word of the filter
        (any case); the others are hidden, not removed (the selection keeps them)."""
        words = self.filter.text().lower().split()
        items = self.model.ws.items
        shown = 0
        for r, it in enumerate(items):
            hay = f"{it.label} {it.domain} {it.role}".lower()
            hide = any(w not in hay for w in words)
            self.table.setRowHidden(r, hide)
            shown += not hide
        self.count.setText(f"{shown} of {len(items)} programs")

    def selected(self) -> list[int]:
        return sorted({ix.row() for ix in self.table.selectionModel().selectedRows()})

    def _selection_to_model(self) -> None:
        if not self._syncing:
            self.model.select(self.selected())

    def _selection_from_model(self) -> None:
        if self.selected() == self.model.selection:
            return
        self._syncing = True
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.MultiSelection)
        for i in self.model.selection:
            self.table.selectRow(i)
        self.table.setSelectionMode(mode)
        if self.model.selection:
            self.table.scrollToItem(self.table.item(self.model.selection[0], 0))
        self._syncing = False
