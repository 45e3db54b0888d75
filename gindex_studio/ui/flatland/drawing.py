"""The Drawing dock: the open Flatland program's 128×128 drawing, redrawn as it is edited, with
step-through (segment k highlighted, the node that drew it named and selected).

``DrawingPanel.set_document(doc)`` follows a ``FlowDocument``: every ``changed`` signal schedules
one redraw (coalesced on a zero-time timer). ``image`` is the drawn 128×128 boolean array;
``trace`` the run's segments and nodes; ``message`` what is shown instead when the flow is not a
runnable Flatland program.

Light at start-up: the dock follows every document, most of them not Flatland programs, so numpy
and the renderer load only when a program is first drawn (the studio's first window loads none).
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QSlider, QSizePolicy, QVBoxLayout, QWidget

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.program import program_from_flow
from gindex_studio.core.flatland.run import execute

SIZE = 128  # the drawing's side in pixels (core.flatland.render.SIZE, checked by the tests)

STEP_COLOR = "#d62728"


def bool_image(img) -> QImage:
    """A boolean array as a grey QImage (ink black on white), owning its memory."""
    import numpy as np

    a = np.ascontiguousarray(np.where(img, 0, 255).astype(np.uint8))
    h, w = a.shape
    return QImage(a.data, w, h, w, QImage.Format_Grayscale8).copy()


class ImageView(QWidget):
    """Draws a 128×128 image scaled to fit (square pixels, no smoothing), a highlighted segment
    and a caption."""

    def __init__(self, caption: str = "", parent=None):
        super().__init__(parent)
        self.caption = caption
        self.qimage: QImage | None = None
        self.segment: tuple | None = None  # world coordinates, drawn in STEP_COLOR
        self.setMinimumSize(140, 160)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)

    def set_image(self, qimage: QImage | None, segment=None) -> None:
        self.qimage, self.segment = qimage, segment
        self.update()

    def image_rect(self) -> QRectF:
        top = 18 if self.caption else 0
        side = max(1.0, min(self.width(), self.height() - top) - 4)
        return QRectF((self.width() - side) / 2, top + 2, side, side)

    def paintEvent(self, _e):
        p = QPainter(self)
        p.fillRect(self.rect(), self.palette().window())
        if self.caption:
            text = p.fontMetrics().elidedText(self.caption, Qt.ElideRight, self.width())
            p.drawText(QRectF(0, 0, self.width(), 18), Qt.AlignCenter, text)
        r = self.image_rect()
        p.fillRect(r, QColor("white"))
        if self.qimage is not None:
            p.drawImage(r, self.qimage)
        p.setPen(QPen(QColor("#999999"), 1))
        p.drawRect(r)
        if self.segment is not None:
            s = r.width() / SIZE
            x0, y0, x1, y1 = self.segment
            p.setPen(QPen(QColor(STEP_COLOR), max(2.0, s * 0.8)))
            p.drawLine(QPointF(r.left() + x0 * s, r.top() + (SIZE - y0) * s),
                       QPointF(r.left() + x1 * s, r.top() + (SIZE - y1) * s))
        p.end()


class DrawingPanel(QWidget):
    """The dock's contents. ``step_node(str)`` is emitted when step-through moves to a segment."""

    step_node = Signal(str)
    redrawn = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.doc = None
        self.trace = None
        self._image = None  # None: blank
        self.message = ""
        self.view = ImageView()
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.stepping = QCheckBox("Step through")
        self.stepping.setToolTip("Draw the first k segments and name the node that drew segment k")
        self.slider = QSlider(Qt.Horizontal)
        self.slider.setEnabled(False)
        self.slider.setMinimum(1)
        self.step_label = QLabel()
        row = QHBoxLayout()
        row.addWidget(self.stepping)
        row.addWidget(self.slider, 1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.view, 1)
        lay.addLayout(row)
        lay.addWidget(self.step_label)
        lay.addWidget(self.info)
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self.refresh)
        self.stepping.toggled.connect(self._on_stepping)
        self.slider.valueChanged.connect(lambda _v: self._show())

    @property
    def image(self):
        """The drawn 128×128 boolean array (all False when nothing is drawn)."""
        if self._image is None:
            import numpy as np

            return np.zeros((SIZE, SIZE), dtype=bool)
        return self._image

    def set_document(self, doc) -> None:
        if self.doc is not None:
            try:
                self.doc.changed.disconnect(self.schedule)
                self.doc.flow_reset.disconnect(self.schedule)
            except (RuntimeError, TypeError):
                pass
        self.doc = doc
        if doc is not None:
            doc.changed.connect(self.schedule)
            doc.flow_reset.connect(self.schedule)
        self.refresh()

    def schedule(self, *_args) -> None:
        self._timer.start()

    def refresh(self) -> None:
        """Run the document's program and show its drawing (or why it cannot be drawn)."""
        self._timer.stop()
        self.trace, self.message = None, ""
        if self.doc is None:
            self.message = "No program open."
        else:
            try:
                program = program_from_flow(self.doc.flow)
                self.trace = execute(program)
            except FlatlandError as e:
                self.message = f"Not drawn: {e.message}"
        if self.trace is not None:
            n = len(self.trace.segments)
            self.slider.setMaximum(max(1, n))
            self.info.setText(f"{n:,} segments, {self.trace.firings:,} node firings")
        else:
            self.info.setText(self.message)
        self._show()
        self.redrawn.emit()

    def _on_stepping(self, on: bool) -> None:
        self.slider.setEnabled(on)
        if on:
            self.slider.setValue(1)
        self._show()

    def current_step(self) -> int | None:
        """The 1-based segment shown last in step-through, or None when not stepping."""
        if not self.stepping.isChecked() or self.trace is None or not self.trace.segments:
            return None
        return min(self.slider.value(), len(self.trace.segments))

    def _show(self) -> None:
        if self.trace is None:
            self._image = None
            self.view.set_image(None)
            self.step_label.setText("")
            return
        k = self.current_step()
        segs = self.trace.segments if k is None else self.trace.segments[:k]
        from gindex_studio.core.flatland.render import rasterise

        self._image = rasterise(segs)
        segment = None if k is None else self.trace.segments[k - 1]
        self.view.set_image(bool_image(self.image), segment)
        if k is None:
            self.step_label.setText("")
        else:
            node = self.trace.nodes[k - 1]
            self.step_label.setText(f"segment {k} of {len(self.trace.segments)}: drawn by {node}")
            self.step_node.emit(node)
