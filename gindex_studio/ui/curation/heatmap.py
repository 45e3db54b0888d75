"""The Δ heatmap (pyqtgraph): one cell per pair in display order, domain bands along both axes,
hover tells the pair and Δ, a click asks for the pair to be compared.

Row = reference (left axis, top to bottom), column = generated. Unknown cells are transparent
(the grey background shows through) until their row arrives; cells a deadline cut are drawn
with the best Δ found and reported as an interval on hover.

The cells are a ``MatrixModel``'s (``ui/curation/matrix.py``, beside the curation model): the
heatmap follows its signals and only draws. The image drawn is kept as colours (``cell_colours``: RGBA bytes), and a band of rows colours
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
from gindex_studio.ui.curation.matrix import MatrixModel



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
    """Draws a :class:`MatrixModel` (``matrix``: given, else its own) and follows its signals:
    the model's ``set_programs``, then ``set_rows`` as bands arrive.

    Signals: ``pairClicked(i, j)`` (program indices, i = row), ``hovered(text)``."""

    pairClicked = Signal(int, int)
    hovered = Signal(str)

    def __init__(self, matrix: MatrixModel | None = None, parent=None):
        super().__init__(parent)
        self.matrix = matrix if matrix is not None else MatrixModel(self)
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
        self.colours = np.zeros((0, 0, 4), dtype=np.uint8)  # what is drawn: cell_colours(values)
        # Hover follows every pointer move: pyqtgraph's sigMouseMoved drops a move that comes
        # within 10 ms of the previous one, which left the text on a cell the pointer had left.
        self.plot.viewport().installEventFilter(self)
        self.plot.scene().sigMouseClicked.connect(self._on_click)
        self._text_colour = QColor(40, 40, 40)
        self._lines: list = []  # the lines between domains (also in ``_bands``)
        self.set_colors()
        follow_look(self)  # the theme's changes recolour it (``set_colors``)
        self.matrix.reset.connect(self._on_reset)
        self.matrix.reordered.connect(self._on_reordered)
        self.matrix.valuesChanged.connect(self._redraw_image)
        self.matrix.rowsChanged.connect(self._on_rows)

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

    def _on_reset(self) -> None:
        """New programs: every cell unknown, the bands, the view's range."""
        m = self.matrix
        self._redraw_image()
        self._draw_bands()
        rows, cols = len(m.order), len(m.cols)
        s = max(rows, cols)
        # room on the left and on top for the domains' names (the columns' run upward)
        self.plot.getViewBox().setRange(QRectF(-0.3 * s - 1, -0.3 * s - 1, cols + 0.31 * s + 1, rows + 0.31 * s + 1),
                                        padding=0)
        self.fit_labels()

    def _on_reordered(self) -> None:
        self._redraw_image()
        self._draw_bands()

    def _on_rows(self, first: int, k: int) -> None:
        """A band of rows arrived: only these rows are coloured again."""
        self.colours[first:first + k] = cell_colours(self.matrix.values[first:first + k])
        self._show_colours()

    def _redraw_image(self) -> None:
        """Colour every cell again (new programs, order or preview)."""
        self.colours = cell_colours(self.matrix.values)
        self._show_colours()

    def _show_colours(self) -> None:
        if self.colours.size:
            self.image.setImage(self.colours, autoLevels=False)
            self.image.setRect(QRectF(0, 0, self.colours.shape[1], self.colours.shape[0]))
        else:
            self.image.clear()

    def _draw_bands(self) -> None:
        for item in self._bands:
            self.plot.removeItem(item)
        self._bands, self._lines = [], []
        self.band_labels = []
        if not self.matrix.order:
            return
        width = max(0.25, 0.035 * max(len(self.matrix.order), len(self.matrix.cols)))
        colors = domain_colors(sorted(set(self.matrix.domains)))
        for axis, seq in ((0, self.matrix.order), (1, self.matrix.cols)):
            n, start = len(seq), 0
            for k in range(1, n + 1):
                if k < n and self.matrix.domains[seq[k]] == self.matrix.domains[seq[start]]:
                    continue
                name = self.matrix.domains[seq[start]]
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
                label.textItem.document().setDocumentMargin(1)  # a name's line, not a padded box: narrow bands fit
                label.updateTextPos()
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
        """Show each domain's name beside its band where it does not run into another name: the
        widest bands' first, then the narrow ones' wherever a line of text still fits (a name may
        reach over its neighbours' bands, never over their names); hovering a band tells it."""
        if not self.band_labels:
            return
        px = self.plot.getViewBox().viewPixelSize()  # one screen pixel in cells, (x, y)
        for axis in (0, 1):
            size = px[1] if axis == 0 else px[0]
            taken: list[tuple[float, float]] = []  # the names shown, as pixel spans along the axis
            for label, _a, cells in sorted((b for b in self.band_labels if b[1] == axis), key=lambda b: -b[2]):
                centre = (label.pos().y() if axis == 0 else label.pos().x()) / size if size > 0 else 0.0
                line = label.boundingRect().height()  # the name's line as drawn, its margins included
                lo, hi = centre - line / 2, centre + line / 2
                free = size > 0 and all(hi <= a or lo >= b for a, b in taken)
                label.setVisible(free)
                if free:
                    taken.append((lo, hi))

    def shown_band_labels(self) -> list[str]:
        """The domains' names drawn along the axes (rows' then columns'), for tests and scripts."""
        return [label.textItem.toPlainText() for label, _a, _c in self.band_labels if label.isVisible()]

    def band_at(self, scene_pos: QPointF) -> tuple[int, str] | None:
        """(axis, domain) of the band (or its name) left of the rows (axis 0) or above the columns
        (axis 1) under a scene position; None elsewhere."""
        p = self.plot.getViewBox().mapSceneToView(scene_pos)
        r, c = int(np.floor(p.y())), int(np.floor(p.x()))
        if p.x() < 0 and 0 <= r < len(self.matrix.order):
            return 0, self.matrix.domains[self.matrix.order[r]]
        if p.y() < 0 and 0 <= c < len(self.matrix.cols):
            return 1, self.matrix.domains[self.matrix.cols[c]]
        return None

    def mark(self, rows: list[int]) -> None:
        """Outline the display rows and columns of the selected programs."""
        for item in self._marks:
            self.plot.removeItem(item)
        self._marks = []
        rpos = {p: k for k, p in enumerate(self.matrix.order)}
        cpos = {p: k for k, p in enumerate(self.matrix.cols)}
        n, m = len(self.matrix.order), len(self.matrix.cols)
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
        if 0 <= r < len(self.matrix.order) and 0 <= c < len(self.matrix.cols):
            return r, c
        return None

    def cell_center(self, r: int, c: int):
        """The centre of cell (r, c) in ``self.plot``'s viewport coordinates (a QPoint)."""
        scene = self.plot.getViewBox().mapViewToScene(QPointF(c + 0.5, r + 0.5))
        return self.plot.mapFromScene(scene)

    def describe(self, r: int, c: int) -> str:
        i, j = self.matrix.order[r], self.matrix.cols[c]
        v, lo, ex = self.matrix.values[r, c], self.matrix.lower[r, c], self.matrix.exact[r, c]
        head = f"{self.matrix.labels[i]} ({self.matrix.domains[i]})  ×  {self.matrix.labels[j]} ({self.matrix.domains[j]})"
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
            seq = self.matrix.order if axis == 0 else self.matrix.cols
            count = sum(1 for i in seq if self.matrix.domains[i] == name)
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
            self.pairClicked.emit(self.matrix.order[cell[0]], self.matrix.cols[cell[1]])
