"""Navigator: a small picture of the whole workspace with the visible area; click or drag to go.

The picture is re-rendered from the scene at most every 250 ms after changes (never per frame).
It sits in a corner of the canvas that no node is under (bottom-right first; it stays in its
corner while that one is free, and never moves under the pointer). When every corner has a node,
it is drawn translucent, so the nodes show through, and opaque while the pointer is over it.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

#: the canvas must be this many times the navigator's size, both ways, for it to show
ROOM = 2.5
#: corners in the order tried: bottom-right, bottom-left, top-right, top-left
CORNERS = ("bottom-right", "bottom-left", "top-right", "top-left")
#: gap between the navigator and the canvas's edges (pixels)
MARGIN = 6
#: opacity while it covers nodes (no corner free) and the pointer is elsewhere
SEE_THROUGH = 0.35


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
        self.corner = CORNERS[0]
        self.translucent = False  # every corner has a node under it: drawn see-through
        self._pressed = False
        self.setToolTip("Navigator: click or drag to move the view")

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        self._on_view_moved()

    def _on_view_moved(self) -> None:
        r = self.view.scene().items_rect()
        needed = not r.isNull() and not self.view.visible_scene_rect().contains(r)
        self.setVisible(self.enabled and needed and self.has_room())
        if self.isVisible():
            self.place()
        self.update()

    # ----- where it sits -----------------------------------------------------------------------
    def corner_rect(self, corner: str) -> QRect:
        """The navigator's rectangle (viewport pixels) in ``corner``."""
        vp = self.view.viewport()
        x = MARGIN if corner.endswith("left") else vp.width() - self.width() - MARGIN
        y = MARGIN if corner.startswith("top") else vp.height() - self.height() - MARGIN
        return QRect(x, y, self.width(), self.height())

    def node_rects(self) -> list[QRect]:
        """The drawn nodes of the shown workspace, in viewport pixels."""
        v = self.view
        return [v.mapFromScene(item.sceneBoundingRect()).boundingRect()
                for item in v.scene().nodes.values() if item.isVisible()]

    def place(self) -> None:
        """Into a corner free of nodes (the current one while it stays free); with none free,
        the corner covering the least node area, drawn translucent. Not while the pointer is on
        it (it would jump away from a click or a drag)."""
        if self._pressed or self.underMouse():
            return
        nodes = self.node_rects()

        def covered(corner: str) -> int:
            r = self.corner_rect(corner)
            return sum(_area(r.intersected(n)) for n in nodes if r.intersects(n))

        if covered(self.corner):
            free = [c for c in CORNERS if not covered(c)]
            self.corner = free[0] if free else min(CORNERS, key=lambda c: (covered(c), CORNERS.index(c)))
        self.translucent = bool(covered(self.corner))
        top_left = self.corner_rect(self.corner).topLeft()
        vp, parent = self.view.viewport(), self.parentWidget()
        self.move(vp.mapTo(parent, top_left) if parent is not vp else top_left)

    def enterEvent(self, e):
        self.update()  # opaque while the pointer is over it
        super().enterEvent(e)

    def leaveEvent(self, e):
        self.update()
        super().leaveEvent(e)

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
        if self.isVisible():
            self.place()  # nodes may have moved under it
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
        if self.translucent and not self.underMouse():
            p.setOpacity(SEE_THROUGH)
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
        self._pressed = True
        self._go(e.position())

    def mouseReleaseEvent(self, e):
        self._pressed = False
        self.place()

    def mouseMoveEvent(self, e):
        if e.buttons() & Qt.LeftButton:
            self._go(e.position())


def _area(r: QRect) -> int:
    return max(r.width(), 0) * max(r.height(), 0)
