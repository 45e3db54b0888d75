"""The Δ heatmap (pyqtgraph): one cell per pair in display order, domain bands along both axes,
hover tells the pair and Δ, a click asks for the pair to be compared.

Row = reference (left axis, top to bottom), column = generated. Unknown cells are transparent
(the grey background shows through) until their row arrives; cells a deadline cut are drawn
with the best Δ found and reported as an interval on hover.

The image drawn is kept as colours (``cell_colours``: RGBA bytes), and a band of rows colours
only its own rows: pyqtgraph would otherwise map the whole n × n float matrix through its levels
and colour table at every repaint after every band (90 ms at 1,000 programs, on the GUI thread).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPalette, QPen
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QLabel, QSizePolicy, QToolTip, QVBoxLayout, QWidget

from gindex_studio.ui import theme
from gindex_studio.ui.canvas.look import follow_look



#: the plot's background, and so the colour of cells not known yet, in the light and dark themes
UNKNOWN_LIGHT, UNKNOWN_DARK = "#ececec", "#2c2f33"

#: the colour of Δ = 0 … 1 in 256 steps (RGBA bytes), as the colour bar shows it
VIRIDIS = pg.colormap.get("viridis").getLookupTable(0.0, 1.0, 256, alpha=True)


def cell_colours(values: np.ndarray, lut: np.ndarray = VIRIDIS) -> np.ndarray:
    """RGBA bytes (shape + (4,)) of Δ ``values`` in [0, 1] as pyqtgraph draws them with levels
    (0, 1) and the 256-step ``lut``: step ⌊256 v⌋ clipped to 0-255; unknown (NaN) fully
    transparent."""
    values = np.asarray(values, dtype=float)
    unknown = np.isnan(values)
    scaled = values * float(len(lut))
    scaled[unknown] = 0.0
    np.clip(scaled, 0, len(lut) - 1, out=scaled)
    words = np.ascontiguousarray(lut, dtype=np.uint8).view(np.uint32).ravel()  # one RGBA word a step
    out = words[scaled.astype(np.uint8)]
    out[unknown] = 0
    return out.view(np.uint8).reshape(values.shape + (4,))


def domain_colors(names: list[str]) -> dict[str, QColor]:
    """A distinct hue per domain name (stable for a given sorted list)."""
    out = {}
    for k, name in enumerate(sorted(names)):
        out[name] = QColor.fromHsvF((k * 0.618034) % 1.0, 0.55, 0.92)
    return out


class HeatmapView(QWidget):
    """``set_programs(labels, domains, order)`` then ``set_rows`` as bands arrive.

    Signals: ``pairClicked(i, j)`` (program indices, i = row), ``hovered(text)``."""

    pairClicked = Signal(int, int)
    hovered = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot = pg.PlotWidget(background=QColor(236, 236, 236))
        self.plot.setAspectLocked(True)
        self.plot.invertY(True)
        self.plot.hideButtons()
        self.plot.getPlotItem().hideAxis("bottom")
        self.plot.getPlotItem().hideAxis("left")
        self.image = pg.ImageItem(axisOrder="row-major")  # shows ``colours`` (RGBA bytes, no levels)
        self.plot.addItem(self.image)
        self.colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=pg.colormap.get("viridis"), interactive=False,
                                        label="Δ", width=14)
        # the bar's own image (never shown): the bar would set levels on the image it is given
        self._scale_image = pg.ImageItem(axisOrder="row-major")
        self.colorbar.setImageItem(self._scale_image, insert_in=self.plot.getPlotItem())
        # room above and below the bar for its end labels ("1.0" was cut at the top edge)
        self.plot.getPlotItem().layout.setContentsMargins(2, 10, 2, 10)
        # a fixed line: the hovered pair goes to a tooltip (``hover_text``), never into a label
        # whose width would grow the window and re-lay out the heatmap under the pointer
        self.info = QLabel("Δ heatmap: rows and columns are the programs by domain (named on the left and on top); "
                           "hover a cell for the pair, click it to compare the two programs")
        self.info.setWordWrap(True)
        self.info.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        self.hover_text = ""
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.info)
        self._bands: list = []
        self._marks: list = []
        #: the domains' names along the axes: (text item, axis 0 rows | 1 columns, cells it names)
        self.band_labels: list[tuple[pg.TextItem, int, int]] = []
        # refitted once the view box has its new size and transform (both settle after the signals)
        vb = self.plot.getViewBox()
        for sig in (vb.sigTransformChanged, vb.sigResized, vb.sigRangeChanged):
            sig.connect(lambda *_a: QTimer.singleShot(0, self, self.fit_labels))
        self.labels: list[str] = []
        self.domains: list[str] = []
        self.order: list[int] = []  # program of each display row
        self.cols: list[int] = []  # program of each display column (the same as order when square)
        self.values = np.zeros((0, 0))
        self.lower = np.zeros((0, 0))
        self.exact = np.zeros((0, 0), dtype=bool)
        self.colours = np.zeros((0, 0, 4), dtype=np.uint8)  # what is drawn: cell_colours(values)
        # Hover follows every pointer move: pyqtgraph's sigMouseMoved drops a move that comes
        # within 10 ms of the previous one, which left the text on a cell the pointer had left.
        self.plot.viewport().installEventFilter(self)
        self.plot.scene().sigMouseClicked.connect(self._on_click)
        self._text_colour = QColor(40, 40, 40)
        self._lines: list = []  # the lines between domains (also in ``_bands``)
        self.set_colors()
        follow_look(self)  # the theme's changes recolour it (``set_colors``)

    # ----- colours -------------------------------------------------------------------------------

    def set_colors(self, _look=None) -> None:
        """The current theme's colours (``theme.follow_look`` calls this on a change): the plot's
        background, which is also the colour of cells not known yet, and the text of the domains'
        names and of the colour bar's scale (the application palette's)."""
        dark = theme.is_dark()
        self.plot.setBackground(QColor(UNKNOWN_DARK) if dark else QColor(UNKNOWN_LIGHT))
        self._text_colour = QColor(QApplication.palette().color(QPalette.WindowText))
        for label, _axis, _cells in self.band_labels:
            label.setColor(self._text_colour)
        for line in self._lines:
            line.setPen(self._line_pen())
        for key in ("left", "right"):  # the bar's scale on one side, its label "Δ" on the other
            axis = self.colorbar.getAxis(key)
            axis.setPen(self._text_colour)
            axis.setTextPen(self._text_colour)
            if axis.labelText:
                axis.setLabel(axis.labelText, color=self._text_colour.name())

    def _line_pen(self) -> QPen:
        """The thin lines between domains: light on the light background, dark on the dark one
        (they run on across the names' margin)."""
        colour = QColor(UNKNOWN_DARK if theme.is_dark() else "#ffffff")
        colour.setAlpha(150)
        return pg.mkPen(colour, width=0)

    def views(self) -> list:
        """The views ``theme.recolour_followers`` repaints."""
        return [self.plot]

    # ----- data ----------------------------------------------------------------------------------

    def set_programs(self, labels: list[str], domains: list[str], order: list[int],
                     cols: list[int] | None = None) -> None:
        """Programs in display ``order`` along the rows and ``cols`` along the columns (default:
        the same, a square matrix); every cell unknown until rows arrive."""
        self.labels, self.domains, self.order = list(labels), list(domains), list(order)
        self.cols = list(order) if cols is None else list(cols)
        n, m = len(self.order), len(self.cols)
        self.values = np.full((n, m), np.nan)
        self.lower = np.full((n, m), np.nan)
        self.exact = np.zeros((n, m), dtype=bool)
        self._redraw_image()
        self._draw_bands()
        s = max(n, m)
        # room on the left and on top for the domains' names (the columns' run upward)
        self.plot.getViewBox().setRange(QRectF(-0.3 * s - 1, -0.3 * s - 1, m + 0.31 * s + 1, n + 0.31 * s + 1),
                                        padding=0)
        self.fit_labels()

    @property
    def square(self) -> bool:
        return self.cols == self.order

    def reorder(self, order: list[int]) -> None:
        """Show the same cells in a new display order."""
        pos = {p: k for k, p in enumerate(self.order)}
        perm = [pos[p] for p in order]
        self.values = self.values[np.ix_(perm, perm)]
        self.lower = self.lower[np.ix_(perm, perm)]
        self.exact = self.exact[np.ix_(perm, perm)]
        self.order = list(order)
        self.cols = list(order)
        self._redraw_image()
        self._draw_bands()

    def set_coarse(self, matrix: np.ndarray) -> None:
        """A preview filling every unknown cell (replaced as rows arrive)."""
        unknown = ~self.exact & np.isnan(self.lower)
        self.values[unknown] = matrix[unknown]
        self._redraw_image()

    def set_rows(self, first: int, values: np.ndarray, lower: np.ndarray, exact: np.ndarray) -> None:
        """A band of complete rows from display row ``first``: only these rows are coloured again."""
        k = len(values)
        self.values[first:first + k] = values
        self.lower[first:first + k] = lower
        self.exact[first:first + k] = exact
        self.colours[first:first + k] = cell_colours(self.values[first:first + k])
        self._show_colours()

    def matrix(self) -> np.ndarray:
        """The values in program-index order (NaN where unknown); square matrices only."""
        assert self.square
        n = len(self.order)
        out = np.full((n, n), np.nan)
        idx = np.array(self.order, dtype=int)
        out[np.ix_(idx, idx)] = self.values
        return out

    def _redraw_image(self) -> None:
        """Colour every cell again (new programs, order or preview)."""
        self.colours = cell_colours(self.values)
        self._show_colours()

    def _show_colours(self) -> None:
        if self.values.size:
            self.image.setImage(self.colours, autoLevels=False)
            self.image.setRect(QRectF(0, 0, self.values.shape[1], self.values.shape[0]))
        else:
            self.image.clear()

    def _draw_bands(self) -> None:
        for item in self._bands:
            self.plot.removeItem(item)
        self._bands, self._lines = [], []
        self.band_labels = []
        if not self.order:
            return
        width = max(0.25, 0.035 * max(len(self.order), len(self.cols)))
        colors = domain_colors(sorted(set(self.domains)))
        for axis, seq in ((0, self.order), (1, self.cols)):
            n, start = len(seq), 0
            for k in range(1, n + 1):
                if k < n and self.domains[seq[k]] == self.domains[seq[start]]:
                    continue
                name = self.domains[seq[start]]
                rect = (QRectF(-width - 0.3, start, width, k - start) if axis == 0
                        else QRectF(start, -width - 0.3, k - start, width))
                item = QGraphicsRectItem(rect)
                item.setBrush(QBrush(colors[name]))
                item.setPen(QPen(Qt.NoPen))
                item.setToolTip(name)
                self.plot.addItem(item)
                self._bands.append(item)
                # the domain's name beside its band: the rows' on the left, the columns' above,
                # running upward (shown only where the band is as tall as a line: see fit_labels)
                if axis == 0:
                    label = pg.TextItem(name, color=self._text_colour, anchor=(1.0, 0.5))
                    label.setPos(-width - 0.6, (start + k) / 2.0)
                else:
                    label = pg.TextItem(name, color=self._text_colour, anchor=(0.0, 0.5), angle=90)
                    label.setPos((start + k) / 2.0, -width - 0.6)
                self.plot.addItem(label)
                self._bands.append(label)
                self.band_labels.append((label, axis, k - start))
                if k < n:  # a thin line between domains
                    line = pg.InfiniteLine(pos=k, angle=0 if axis == 0 else 90)
                    line.setPen(self._line_pen())
                    self.plot.addItem(line)
                    self._bands.append(line)
                    self._lines.append(line)
                start = k
        self.fit_labels()

    def resizeEvent(self, e):
        super().resizeEvent(e)
        QTimer.singleShot(0, self, self.fit_labels)

    def showEvent(self, e):
        super().showEvent(e)
        QTimer.singleShot(0, self, self.fit_labels)

    def fit_labels(self) -> None:
        """Show a domain's name only where its band is at least a line of text tall (wide, for
        the columns): a name that would straddle its neighbours' bands is left out, and hovering
        the band tells it."""
        if not self.band_labels:
            return
        px = self.plot.getViewBox().viewPixelSize()  # one screen pixel in cells, (x, y)
        line = self.fontMetrics().height()
        for label, axis, cells in self.band_labels:
            size = px[1] if axis == 0 else px[0]
            label.setVisible(size > 0 and cells / size >= line)

    def shown_band_labels(self) -> list[str]:
        """The domains' names drawn along the axes (rows' then columns'), for tests and scripts."""
        return [label.textItem.toPlainText() for label, _a, _c in self.band_labels if label.isVisible()]

    def band_at(self, scene_pos: QPointF) -> tuple[int, str] | None:
        """(axis, domain) of the band (or its name) left of the rows (axis 0) or above the columns
        (axis 1) under a scene position; None elsewhere."""
        p = self.plot.getViewBox().mapSceneToView(scene_pos)
        r, c = int(np.floor(p.y())), int(np.floor(p.x()))
        if p.x() < 0 and 0 <= r < len(self.order):
            return 0, self.domains[self.order[r]]
        if p.y() < 0 and 0 <= c < len(self.cols):
            return 1, self.domains[self.cols[c]]
        return None

    def mark(self, rows: list[int]) -> None:
        """Outline the display rows and columns of the selected programs."""
        for item in self._marks:
            self.plot.removeItem(item)
        self._marks = []
        rpos = {p: k for k, p in enumerate(self.order)}
        cpos = {p: k for k, p in enumerate(self.cols)}
        n, m = len(self.order), len(self.cols)
        rects = [QRectF(0, rpos[i], m, 1) for i in rows if i in rpos] + [QRectF(cpos[i], 0, 1, n) for i in rows if i in cpos]
        for rect in rects:
            item = QGraphicsRectItem(rect)
            item.setPen(pg.mkPen(QColor(255, 60, 60), width=0))
            item.setBrush(QBrush(Qt.NoBrush))
            self.plot.addItem(item)
            self._marks.append(item)

    # ----- pointer -------------------------------------------------------------------------------

    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        """(display row, display column) under a scene position, or None outside the matrix."""
        p = self.plot.getViewBox().mapSceneToView(scene_pos)
        r, c = int(np.floor(p.y())), int(np.floor(p.x()))
        if 0 <= r < len(self.order) and 0 <= c < len(self.cols):
            return r, c
        return None

    def cell_center(self, r: int, c: int):
        """The centre of cell (r, c) in ``self.plot``'s viewport coordinates (a QPoint)."""
        scene = self.plot.getViewBox().mapViewToScene(QPointF(c + 0.5, r + 0.5))
        return self.plot.mapFromScene(scene)

    def describe(self, r: int, c: int) -> str:
        i, j = self.order[r], self.cols[c]
        v, lo, ex = self.values[r, c], self.lower[r, c], self.exact[r, c]
        head = f"{self.labels[i]} ({self.domains[i]})  ×  {self.labels[j]} ({self.domains[j]})"
        if np.isnan(lo):
            return head + ":  Δ not computed yet" + (f" (preview ≈ {v:.3f})" if not np.isnan(v) else "")
        if ex:
            return head + f":  Δ = {v:.6f}"
        return head + f":  Δ in [{lo:.6f}, {v:.6f}] (search cut by the per-pair deadline)"

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        if ev.type() == QEvent.MouseMove and obj is self.plot.viewport():
            self._on_move(self.plot.mapToScene(ev.position().toPoint()))
        return super().eventFilter(obj, ev)

    def _on_move(self, pos) -> None:
        cell = self.cell_at(pos)
        band = self.band_at(pos) if cell is None else None
        text = None
        if cell is not None:
            text = self.describe(*cell)
        elif band is not None:
            axis, name = band
            seq = self.order if axis == 0 else self.cols
            count = sum(1 for i in seq if self.domains[i] == name)
            text = f"{name}: {count} program{'s' if count != 1 else ''} ({'rows' if axis == 0 else 'columns'})"
        if text is not None:
            if text != self.hover_text:
                self.hover_text = text
                vp = self.plot.viewport()
                QToolTip.showText(vp.mapToGlobal(self.plot.mapFromScene(pos)), text, vp)
                self.hovered.emit(text)

    def _on_click(self, ev) -> None:
        if ev.button() != Qt.LeftButton:
            return
        cell = self.cell_at(ev.scenePos())
        if cell is not None:
            ev.accept()
            self.pairClicked.emit(self.order[cell[0]], self.cols[cell[1]])
