"""The Analysis window's figures (pyqtgraph), drawn from ``core.analysis.Analysis`` arrays.

``build_figures(analysis)`` returns one ``Figure`` per plot, keyed by a stable id (``FIGURES``).
A figure holds its ``PlotWidget`` and the items it drew, each item tagged with the system it
shows, so tests (and the report) can read the plotted arrays back. Scatter points carry
``(system label, task id)`` as data: hover shows them, ``Figure.task_clicked`` emits them.

Legends sit outside the plot area, in a column right of it (``legend_outside``), so no legend hides
data, in the window and in exported figures alike. The bubbles of Figs 12/13 are labelled beside
the bubble, never on one (``BubbleLabels``).
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal

from gindex_studio.core.benchmark.analysis import Analysis
from gindex_studio.ui.plot_theme import ThemedPlot, for_paper, plot_text_colour

#: figure id → title (the order of the window's tabs and of the report)
FIGURES = {
    "theta_size": "θ vs program size (Fig. 10)",
    "skill_size": "Skill level and pass@k vs program size (Fig. 11)",
    "theta_samples": "θ vs training samples, bubble = g-index (Fig. 12)",
    "theta_compute": "θ vs compute, bubble = g-index (Fig. 13)",
    "resp_samples": "g-index vs training samples (Fig. 7)",
    "resp_compute": "g-index vs compute (Fig. 8)",
    "resp_theta": "g-index vs θ (Fig. 9)",
    "theta_omega": "θ vs Ω by task domain",
    "tc_share": "Share of each task in the g-index (TC_j / Σ TC)",
    "theta_spread": "θ over attempts per task (mean, min-max)",
}

#: colour-blind safe colours for systems (Okabe-Ito), then domains cycle through ``DOMAIN_COLOURS``
SYSTEM_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
DOMAIN_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"]
SYMBOLS = ["o", "s", "t", "d", "+", "x", "star", "h"]


def system_colour(i: int) -> str:
    return SYSTEM_COLOURS[i % len(SYSTEM_COLOURS)]


class _Clicks(QObject):
    task_clicked = Signal(str, str)  # system label, task id


@dataclass
class Figure:
    """A plot: its id, title, widget and the items drawn, by system label (``items[label]`` is a
    list; scatter items first)."""

    id: str
    title: str
    widget: pg.PlotWidget
    items: dict[str, list] = field(default_factory=dict)
    signals: _Clicks = field(default_factory=_Clicks)

    @property
    def task_clicked(self):
        return self.signals.task_clicked

    def add(self, label: str, item) -> None:
        self.widget.addItem(item)
        self.items.setdefault(label, []).append(item)

    def scatter(self, label: str) -> pg.ScatterPlotItem:
        return next(i for i in self.items[label] if isinstance(i, pg.ScatterPlotItem))

    def curve(self, label: str, n: int = 0) -> pg.PlotDataItem:
        return [i for i in self.items[label] if isinstance(i, pg.PlotDataItem)][n]


def _tip(x, y, data):
    """Hover text: the task (or the point's name), the system, extra words, the coordinates.
    ``data`` is (system label, task id[, extra text])."""
    label, tid, *extra = data if isinstance(data, tuple) else ("", str(data))
    return "\n".join([tid, label, *extra, f"x = {x:.4g}, y = {y:.4g}"])


def spread_text(a, j: int) -> str:
    """θ of task j of system arrays ``a`` over its attempts, in words."""
    n = int(a.attempts[j])
    if n == 1:
        return "1 attempt"
    return (f"θ over {n} attempts: {a.theta_min[j]:.3f}-{a.theta_max[j]:.3f} (sd {a.theta_sd[j]:.3f}), "
            f"{int(a.perfect[j])} exact")


#: the compute axis: an experiment gives compute as power × time (or a total) in a unit of its own
#: choosing (docs/experiment-format.md: "Any unit"); the axis says so rather than invent one
COMPUTE_AXIS = "training compute (power × time, in the experiment's own unit; log)"


#: pixels between the plot area and its legend
GAP = 6


def legend_outside(p: pg.PlotItem) -> pg.LegendItem:
    """A legend right of the plot area, its top at the plot area's top: it sits in a column of the
    plot's layout (as wide as the legend, kept so as entries are added), so it never covers the
    data. Named items added to the plot join it."""
    column = pg.GraphicsWidget()
    p.layout.addItem(column, 2, 3)
    legend = pg.LegendItem(labelTextColor=plot_text_colour(), brush=pg.mkBrush(255, 255, 255, 0), pen=pg.mkPen(None))
    legend.setParentItem(column)
    # pyqtgraph's legend keeps its size whatever the view's zoom; out here it scales with the
    # figure like the axes do (an export at 1200 px draws it as large as the axes' text)
    legend.setFlag(legend.GraphicsItemFlag.ItemIgnoresTransformations, False)

    def fit_column():
        if legend.pos() != QPointF(GAP, 0):  # the legend's own resizing puts it back at (0, 0)
            legend.setPos(GAP, 0)
        w = legend.width() + 2 * GAP if legend.items else 0
        column.setMinimumWidth(w)
        column.setMaximumWidth(w)

    legend.geometryChanged.connect(fit_column)
    fit_column()
    p.legend = legend
    p.legend_column = column
    return legend


def _plot(fid: str, xlabel: str, ylabel: str, logx: bool = False, legend: bool = True) -> Figure:
    w = pg.PlotWidget(background="w")
    w.setMinimumSize(320, 240)
    p = w.getPlotItem()
    p.setTitle(FIGURES[fid], color=plot_text_colour(), size="11pt")
    p.setLabel("bottom", xlabel)
    p.setLabel("left", ylabel)
    p.showGrid(x=True, y=True, alpha=0.2)
    if legend:
        legend_outside(p)
    for ax in ("left", "bottom"):
        p.getAxis(ax).enableAutoSIPrefix(False)
    ThemedPlot(w)  # the theme's background, axes, their labels and the title (white only in the light theme)
    if logx:  # the data are log10 values; the axis labels them as powers of ten
        p.getAxis("bottom").setLogMode(True)
    return Figure(fid, FIGURES[fid], w)


def _points(fig: Figure, label: str, x, y, data, colour, symbol="o", size=8, brushes=None, name=None) -> pg.ScatterPlotItem:
    item = pg.ScatterPlotItem(x=np.asarray(x, float), y=np.asarray(y, float), data=data, symbol=symbol,
                              size=size, pen=pg.mkPen("#333", width=0.5),
                              brush=brushes if brushes is not None else pg.mkBrush(colour),
                              hoverable=True, tip=_tip, name=name)
    item.sigClicked.connect(lambda _item, pts, _ev: pts and fig.task_clicked.emit(*pts[0].data()[:2]))
    fig.add(label, item)
    return item


def theta_vs_size(an: Analysis):
    fig = _plot("theta_size", "program size (characters of the reference)", "θ")
    for i, a in enumerate(an.arrays):
        yield
        _points(fig, a.label, a.size, a.theta, [(a.label, t, spread_text(a, j)) for j, t in enumerate(a.ids)],
                system_colour(i), SYMBOLS[i % 8], name=a.label)
    fig.widget.setYRange(0, 1.02)
    return fig


def skill_vs_size(an: Analysis):
    """Per system (one colour) its skill level (solid, circles) and pass@k (dashed, triangles); the
    legend names each system's colour once and each line style once."""
    fig = _plot("skill_size", "program size (bin centre, characters)", "share of tasks")
    b = an.bins
    legend = fig.widget.getPlotItem().legend
    for i, a in enumerate(an.arrays):
        yield
        c = system_colour(i)
        fig.add(a.label, pg.PlotDataItem(b.centre, b.skill[a.label], pen=pg.mkPen(c, width=2), symbol="o",
                                         symbolBrush=c, connect="finite"))
        if a.label in b.pass_k:
            fig.add(a.label, pg.PlotDataItem(b.centre, b.pass_k[a.label], pen=pg.mkPen(c, width=2, style=Qt.DashLine),
                                             symbol="t", symbolBrush=c, connect="finite"))
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen(c, width=6)), a.label)
    legend.addItem(pg.PlotDataItem(pen=pg.mkPen("#555", width=2), symbol="o", symbolBrush="#555"), "skill level (θ = 1)")
    if b.pass_k:
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen("#555", width=2, style=Qt.DashLine), symbol="t", symbolBrush="#555"),
                       f"pass@{b.k}")
    fig.widget.setYRange(0, 1.02)
    return fig


class BubbleLabels:
    """Each bubble's label beside its bubble, never on one: in pixels, the first of the places
    around the bubble (right, left, above, below, the diagonals, then further out) whose label
    rectangle lies in the plot area and meets no bubble and no label placed before (bigger bubbles
    first); failing all, the place meeting the least. A label away from its bubble gets a leader
    line. Laid out again whenever the data-to-pixel mapping changes (the plot's range or size)."""

    GAP = 4.0

    def __init__(self, fig: Figure):
        self.fig = fig
        self.bubbles: list[tuple[float, float, float, pg.TextItem, pg.PlotCurveItem]] = []
        vb = fig.widget.getPlotItem().getViewBox()
        vb.sigTransformChanged.connect(self.layout)  # the data-to-pixel mapping changed (range or size)
        vb.sigResized.connect(self.layout)

    def add(self, label: str, x: float, y: float, size: float, text: str) -> None:
        item = pg.TextItem(text, color=plot_text_colour(), anchor=(0, 0))
        line = pg.PlotCurveItem(pen=pg.mkPen("#777", width=1))
        self.fig.add(label, item)
        self.fig.add(label, line)
        self.bubbles.append((x, y, size, item, line))

    def bubble_rects(self) -> list[QRectF]:
        """The bubbles' squares in scene pixels."""
        vb = self.fig.widget.getPlotItem().getViewBox()
        out = []
        for x, y, size, _t, _l in self.bubbles:
            c = vb.mapViewToScene(QPointF(x, y))
            out.append(QRectF(c.x() - size / 2, c.y() - size / 2, size, size))
        return out

    def layout(self, *_args) -> None:
        vb = self.fig.widget.getPlotItem().getViewBox()
        if not self.bubbles or vb.width() < 10:
            return
        area = vb.sceneBoundingRect()
        bubbles = self.bubble_rects()
        placed: list[QRectF] = []
        for k in sorted(range(len(self.bubbles)), key=lambda k: -self.bubbles[k][2]):
            _x, _y, size, item, line = self.bubbles[k]
            c, r = bubbles[k].center(), size / 2
            tr = item.textItem.boundingRect()
            w, h = tr.width(), tr.height()
            best, best_cost = None, None
            for rect in self._candidates(c, r, w, h):
                # covering a bubble or a label is worse than reaching past the plot area's edge
                cost = 10 * sum(_overlap(rect, o) for o in bubbles + placed) + (w * h - _overlap(rect, area))
                if best_cost is None or cost < best_cost - 1e-6:
                    best, best_cost = rect, cost
                if cost == 0:
                    break
            placed.append(best)
            item.setPos(vb.mapSceneToView(best.topLeft()))
            self._leader(line, vb, bubbles[k], best)

    def _candidates(self, c: QPointF, r: float, w: float, h: float):
        d = 0.7071 * r
        for extra in (0.0, 18.0, 40.0, 70.0, 110.0):
            g = self.GAP + extra
            for dy in (0.0, -h / 2 - 2, h / 2 + 2):
                yield QRectF(c.x() + r + g, c.y() - h / 2 + dy, w, h)  # right (level, higher, lower)
                yield QRectF(c.x() - r - g - w, c.y() - h / 2 + dy, w, h)  # left
            yield QRectF(c.x() - w / 2, c.y() - r - g - h, w, h)  # above
            yield QRectF(c.x() - w / 2, c.y() + r + g, w, h)  # below
            yield QRectF(c.x() + d + g, c.y() - d - g - h, w, h)  # upper right
            yield QRectF(c.x() + d + g, c.y() + d + g, w, h)  # lower right
            yield QRectF(c.x() - d - g - w, c.y() - d - g - h, w, h)  # upper left
            yield QRectF(c.x() - d - g - w, c.y() + d + g, w, h)  # lower left

    def _leader(self, line: pg.PlotCurveItem, vb, bubble: QRectF, label: QRectF) -> None:
        """A thin line from the bubble's edge to the label's nearest point, when they are apart."""
        c, r = bubble.center(), bubble.width() / 2
        px = min(max(c.x(), label.left()), label.right())
        py = min(max(c.y(), label.top()), label.bottom())
        dx, dy = px - c.x(), py - c.y()
        dist = (dx * dx + dy * dy) ** 0.5
        if dist <= r + self.GAP + 2:
            line.setData([], [])
            return
        edge = QPointF(c.x() + dx / dist * r, c.y() + dy / dist * r)
        a, b = vb.mapSceneToView(edge), vb.mapSceneToView(QPointF(px, py))
        line.setData([a.x(), b.x()], [a.y(), b.y()])


def _overlap(a: QRectF, b: QRectF) -> float:
    i = a.intersected(b)
    return max(i.width(), 0.0) * max(i.height(), 0.0)


def _bubbles(an: Analysis, fid: str, attr: str, xlabel: str):
    fig = _plot(fid, xlabel, "mean θ", logx=True, legend=False)  # each bubble is labelled beside it
    gmax = max((s.g_index.value for s in an.summary), default=1.0) or 1.0
    fig.labels = BubbleLabels(fig)
    yield
    for i, s in enumerate(an.summary):
        x = max(getattr(s, attr), 1e-9)
        size = 12 + 48 * s.g_index.value / gmax
        _points(fig, s.label, [np.log10(x)], [s.theta.value], [(s.label, f"g-index {s.g_index.value:.1f}")],
                system_colour(i), size=size)
        fig.labels.add(s.label, np.log10(x), s.theta.value, size, f"{s.label}\ng-index {s.g_index.value:,.0f}")
    xs = [np.log10(max(getattr(s, attr), 1e-9)) for s in an.summary]
    if xs:  # room for the bubbles and, on the right, their labels
        span = max(max(xs) - min(xs), 0.5)
        fig.widget.setXRange(min(xs) - 0.15 * span, max(xs) + 0.4 * span, padding=0)
    fig.widget.setYRange(0, 1.02)
    return fig


def _response(an: Analysis, fid: str, param: str, xlabel: str, logx: bool):
    """Per system the g-index as ``param`` varies, a band of random splits around it, and a ★ at
    the experiment's own value; the legend names the systems, the band and the ★ once each."""
    fig = _plot(fid, xlabel, "g-index", logx=logx)
    splits = []
    for i, a in enumerate(an.arrays):
        yield
        c = an.curves.get(a.label, {}).get(param)
        if c is None:
            continue
        col = pg.mkColor(system_colour(i))
        x = np.log10(c.x) if logx else c.x
        low = pg.PlotDataItem(x, c.low, pen=pg.mkPen(None))
        high = pg.PlotDataItem(x, c.high, pen=pg.mkPen(None))
        band = pg.FillBetweenItem(low, high, brush=pg.mkBrush(col.red(), col.green(), col.blue(), 50))
        fig.add(a.label, pg.PlotDataItem(x, c.y, pen=pg.mkPen(col, width=2), name=a.label))
        splits.append(c.splits)
        fig.add(a.label, low)
        fig.add(a.label, high)
        fig.add(a.label, band)
        cx = np.log10(c.current) if logx else c.current
        _points(fig, a.label, [cx], [np.interp(cx, x, c.y)], [(a.label, f"this experiment: {c.current:.4g}")],
                system_colour(i), symbol="star", size=14)
    legend = fig.widget.getPlotItem().legend
    if splits:
        n = f"{min(splits)}" if min(splits) == max(splits) else f"{min(splits)}-{max(splits)}"
        legend.addItem(pg.BarGraphItem(x=[0], height=[1], width=1, pen=pg.mkPen(None), brush=pg.mkBrush(120, 120, 120, 70)),
                       f"band: 5-95 % of<br>{n} random splits")
        legend.addItem(pg.ScatterPlotItem(symbol="star", size=14, pen=pg.mkPen("#333", width=0.5),
                                          brush=pg.mkBrush("#777")), f"this experiment's<br>{_CURRENT_WORDS[param]}")
    return fig


#: what the ★ marks on each responsiveness curve (the experiment's own value of the parameter)
_CURRENT_WORDS = {"samples": "training samples", "compute": "compute", "theta": "mean θ"}


def theta_vs_omega(an: Analysis):
    fig = _plot("theta_omega", "Ω (distance of the task from the curriculum)", "θ")
    domains = sorted({d for a in an.arrays for d in a.domains})
    colour = {d: DOMAIN_COLOURS[k % len(DOMAIN_COLOURS)] for k, d in enumerate(domains)}
    brush = {d: pg.mkBrush(c) for d, c in colour.items()}  # shared: a symbol is drawn once per colour
    for i, a in enumerate(an.arrays):
        yield
        brushes = [brush[d] for d in a.domains]
        _points(fig, a.label, a.omega, a.theta, [(a.label, t, f"domain {d}") for t, d in zip(a.ids, a.domains)],
                None, SYMBOLS[i % 8], size=9, brushes=brushes, name=a.label)
    fig.widget.setYRange(0, 1.02)
    fig.domain_colours = colour
    return fig


def tc_share(an: Analysis):
    fig = _plot("tc_share", "task rank by the first system's share (hover a bar top for its id)", "TC_j / Σ TC")
    if not an.arrays:
        return fig
    width = 0.8 / len(an.arrays)
    for i, (a, x) in enumerate(zip(an.arrays, _ranked(fig, an, an.arrays[0].share))):
        yield
        fig.add(a.label, pg.BarGraphItem(x=x, height=a.share, width=width, brush=system_colour(i), name=a.label))
        _points(fig, a.label, x, a.share, [(a.label, t) for t in a.ids], system_colour(i), size=5)
    return fig


def _ranked(fig: Figure, an: Analysis, key: np.ndarray) -> list[np.ndarray]:
    """Tasks ranked by the first system's ``key`` (highest first; other systems' own tasks after):
    per system, the x of each of its tasks, side by side within a rank. Sets the rank ticks and
    ``fig.order`` (the task id at each rank)."""
    order = [an.arrays[0].ids[j] for j in np.argsort(-key, kind="stable")]
    order += sorted({t for a in an.arrays[1:] for t in a.ids} - set(order))
    pos = {t: k for k, t in enumerate(order)}
    width = 0.8 / len(an.arrays)
    xs = [np.array([pos[t] for t in a.ids], float) - 0.4 + width * (i + 0.5) for i, a in enumerate(an.arrays)]
    step = max(1, int(np.ceil(len(order) / 12)))
    fig.widget.getPlotItem().getAxis("bottom").setTicks([[(k, str(k + 1)) for k in range(0, len(order), step)], []])
    fig.order = order
    return xs


def theta_spread(an: Analysis):
    """Per task (ranked by the first system's mean θ), each system's mean θ over attempts with a
    bar from the lowest to the highest attempt's θ."""
    fig = _plot("theta_spread", "task rank by the first system's θ (hover a point for its id)", "θ")
    if not an.arrays:
        return fig
    for i, (a, x) in enumerate(zip(an.arrays, _ranked(fig, an, an.arrays[0].theta))):
        yield
        fig.add(a.label, pg.ErrorBarItem(x=x, y=a.theta, top=a.theta_max - a.theta, bottom=a.theta - a.theta_min,
                                         beam=0, pen=pg.mkPen(system_colour(i), width=2)))
        _points(fig, a.label, x, a.theta, [(a.label, t, spread_text(a, j)) for j, t in enumerate(a.ids)],
                system_colour(i), SYMBOLS[i % 8], size=7, name=a.label)
    fig.widget.setYRange(-0.02, 1.02)
    return fig


def figure_steps(an: Analysis):
    """Every figure of ``FIGURES`` for ``an``, built a piece at a time: a generator that yields
    between pieces (a plot, one system's items: each some milliseconds to some tens) and returns
    the figures by id. The window runs one piece per turn of the event loop."""
    makers = {
        "theta_size": lambda: theta_vs_size(an),
        "skill_size": lambda: skill_vs_size(an),
        "theta_samples": lambda: _bubbles(an, "theta_samples", "samples", "training samples (log)"),
        "theta_compute": lambda: _bubbles(an, "theta_compute", "compute", COMPUTE_AXIS),
        "resp_samples": lambda: _response(an, "resp_samples", "samples", "total training samples (log)", True),
        "resp_compute": lambda: _response(an, "resp_compute", "compute", COMPUTE_AXIS, True),
        "resp_theta": lambda: _response(an, "resp_theta", "theta", "θ of every task", False),
        "theta_omega": lambda: theta_vs_omega(an),
        "tc_share": lambda: tc_share(an),
        "theta_spread": lambda: theta_spread(an),
    }
    out: dict[str, Figure] = {}
    for fid, make in makers.items():
        yield
        out[fid] = yield from make()
    return out


def build_figures(an: Analysis) -> dict[str, Figure]:
    """Every figure of ``FIGURES`` for ``an``, at once."""
    steps = figure_steps(an)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


# ----- export ------------------------------------------------------------------------------------


HOVER_HINT = re.compile(r"\s*\((?:hover|click)[^)]*\)")


@contextmanager
def for_export(fig: Figure):
    """While exporting: axis titles without the on-screen hint "(hover a point for its id)", a
    ranked axis labelled with task ids, as many as fit side by side without overlapping, and the
    light theme's colours (``plot_theme.for_paper``)."""
    p = fig.widget.getPlotItem()
    axis = p.getAxis("bottom")
    text = axis.labelText
    order = getattr(fig, "order", None)
    p.setLabel("bottom", HOVER_HINT.sub("", text).replace("task rank by", "tasks ranked by"))
    if order:
        room = max(100.0, p.getViewBox().width())
        label = max(len(t) for t in order) * 7.5 + 16  # px of one id at the axis font, with a gap
        step = max(1, int(np.ceil(len(order) * label / room)))
        axis.setTicks([[(k, order[k]) for k in range(step // 2, len(order), step)], []])
    try:
        with for_paper(fig.widget):  # black on white, also from the dark theme
            yield fig
    finally:
        p.setLabel("bottom", text)
        if order:
            step = max(1, int(np.ceil(len(order) / 12)))
            axis.setTicks([[(k, str(k + 1)) for k in range(0, len(order), step)], []])


def export_png(fig: Figure, path: str, width: int = 1200) -> None:
    from pyqtgraph.exporters import ImageExporter

    with for_export(fig):
        ex = ImageExporter(fig.widget.getPlotItem())
        ex.parameters()["width"] = width
        ex.export(str(path))


def svg_bytes(fig: Figure) -> bytes:
    """The figure as SVG, drawn by Qt's SVG generator at the widget's size (pyqtgraph's own SVG
    exporter fails on the paths of PySide6 6.11)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QSize
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    w, h = max(fig.widget.width(), 100), max(fig.widget.height(), 100)
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buf)
    gen.setSize(QSize(w, h))
    gen.setViewBox(QRect(0, 0, w, h))
    gen.setTitle(fig.title)
    gen.setResolution(fig.widget.logicalDpiX())  # the widget's own scale, else axes and data disagree
    painter = QPainter(gen)
    items = _paint_items(fig.widget.getPlotItem())
    opts = {"antialias": True, "background": pg.mkColor("w"), "painter": painter}
    for it in items:  # pyqtgraph's export mode: symbols drawn as paths, not cached pixmaps
        it.setExportMode(True, opts)
    try:
        fig.widget.render(painter)
    finally:
        for it in items:
            it.setExportMode(False, opts)
        painter.end()
    buf.close()
    return bytes(data.data())


def _paint_items(root) -> list:
    out, todo = [], [root]
    while todo:
        it = todo.pop()
        if hasattr(it, "setExportMode"):
            out.append(it)
        todo += it.childItems()
    return out


def export_svg(fig: Figure, path: str) -> None:
    with for_export(fig):
        data = svg_bytes(fig)
    with open(path, "wb") as f:
        f.write(data)
