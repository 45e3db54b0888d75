"""Navigator: a small picture of the whole workspace with the visible area; click or drag to go.

The picture is re-rendered from the scene at most every 250 ms after changes (never per frame).
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

#: the canvas must be this many times the navigator's size, both ways, for it to show
ROOM = 2.5


class Minimap(QWidget):
    def __init__(self, view, parent=None):
        super().__init__(parent or view)
        self.view = view
        self.setFixedSize(200, 130)
        self.setCursor(Qt.PointingHandCursor)
        self._image: QImage | None = None
        self._source = QRectF()
        self._timer = QTimer(self, singleShot=True, interval=250)
        self._timer.timeout.connect(self.refresh)
        view.scene().changed.connect(lambda *_: self._timer.start())
        view.viewport_moved.connect(self._on_view_moved)
        view.viewport().installEventFilter(self)  # a smaller canvas may leave no room for it
        self.enabled = True  # the user's choice; shown only while part of the flow is out of view
        self.setToolTip("Navigator: click or drag to move the view")

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        self._on_view_moved()

    def _on_view_moved(self) -> None:
        r = self.view.scene().items_rect()
        needed = not r.isNull() and not self.view.visible_scene_rect().contains(r)
        self.setVisible(self.enabled and needed and self.has_room())
        self.update()

    def has_room(self) -> bool:
        """The navigator covers at most a small corner: on a small canvas (a laptop's compare
        view) it stays hidden rather than hide the flow it is meant to help find."""
        vp = self.view.viewport()
        return vp.width() >= ROOM * self.width() and vp.height() >= ROOM * self.height()

    def eventFilter(self, obj, ev):
        if ev.type() == QEvent.Resize:
            self._on_view_moved()
        return False

    def refresh(self) -> None:
        scene = self.view.scene()
        r = scene.items_rect()
        if r.isNull():
            self._image = None
            self.update()
            return
        r = r.adjusted(-40, -40, 40, 40)
        self._source = r
        img = QImage(self.width(), self.height(), QImage.Format_ARGB32_Premultiplied)
        img.fill(self._backdrop())
        p = QPainter(img)
        scene.show_grid, lod = False, scene.lod
        scene.lod = 0.1
        scene.render(p, QRectF(img.rect()), r, Qt.KeepAspectRatio)
        scene.show_grid, scene.lod = True, lod
        p.end()
        self._image = img
        self.update()

    def _backdrop(self) -> QColor:
        """The canvas background of the scene's theme, nearly opaque."""
        c = QColor(self.view.scene().colors.background)
        c.setAlpha(235)
        return c

    def _map(self) -> tuple[float, QPointF]:
        r = self._source
        s = min(self.width() / r.width(), self.height() / r.height())
        off = QPointF((self.width() - r.width() * s) / 2, (self.height() - r.height() * s) / 2)
        return s, off

    def paintEvent(self, e):
        p = QPainter(self)
        p.fillRect(self.rect(), self._backdrop())
        if self._image is not None:
            p.drawImage(0, 0, self._image)
            s, off = self._map()
            v = self.view.visible_scene_rect()
            rr = QRectF(off.x() + (v.left() - self._source.left()) * s, off.y() + (v.top() - self._source.top()) * s,
                        v.width() * s, v.height() * s)
            p.setPen(QPen(QColor("#ff7f0e"), 1.5))
            p.setBrush(Qt.NoBrush)
            p.drawRect(rr.intersected(QRectF(self.rect()).adjusted(0, 0, -1, -1)))
        p.setPen(QPen(QColor("#aaaaaa"), 1))
        p.setBrush(Qt.NoBrush)
        p.drawRect(self.rect().adjusted(0, 0, -1, -1))

    def _go(self, pos):
        if self._image is None:
            return
        s, off = self._map()
        x = self._source.left() + (pos.x() - off.x()) / s
        y = self._source.top() + (pos.y() - off.y()) / s
        self.view.centerOn(QPointF(x, y))
        self.view.viewport_moved.emit()

    def mousePressEvent(self, e):
        self._go(e.position())

    def mouseMoveEvent(self, e):
        if e.buttons() & Qt.LeftButton:
            self._go(e.position())
