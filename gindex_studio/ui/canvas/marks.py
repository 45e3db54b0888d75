"""Painting overlay marks (pair badges, missing/extra hatches, the hover ring), readable without
colour: each mark differs by shape or line pattern as well as by hue. Pure painter functions, used
by node items, the scene's far-zoom batch and the compare legend; the painter's state is kept."""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen, QPolygonF

from gindex_studio.ui.canvas import geometry as g
from gindex_studio.ui.canvas.look import Badge

#: hatch pattern of missing/extra nodes
HATCH = {"missing": Qt.BDiagPattern, "extra": Qt.DiagCrossPattern}
#: frame line pattern of missing/extra nodes
FRAME = {"missing": Qt.DashLine, "extra": Qt.DotLine}


def text_on(color: str) -> QColor:
    """Black or white, whichever reads better on ``color`` (WCAG relative luminance)."""
    c = QColor(color)

    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())
    return QColor("#000000") if lum > 0.22 else QColor("#ffffff")


def shape_path(shape: str, r: QRectF) -> QPainterPath:
    """The badge outline of ``shape`` inscribed in ``r``."""
    c, w, h = r.center(), r.width(), r.height()
    path = QPainterPath()

    def poly(points):
        path.addPolygon(QPolygonF(points))
        path.closeSubpath()

    if shape == "circle":
        path.addEllipse(r)
    elif shape == "square":
        path.addRect(r.adjusted(1, 1, -1, -1))
    elif shape == "triangle":
        poly([QPointF(c.x(), r.top()), QPointF(r.right(), r.bottom()), QPointF(r.left(), r.bottom())])
    elif shape == "down":
        poly([QPointF(r.left(), r.top()), QPointF(r.right(), r.top()), QPointF(c.x(), r.bottom())])
    elif shape == "diamond":
        poly([QPointF(c.x(), r.top()), QPointF(r.right(), c.y()), QPointF(c.x(), r.bottom()), QPointF(r.left(), c.y())])
    elif shape == "hexagon":
        poly([QPointF(c.x() + w / 2 * math.cos(a), c.y() + h / 2 * math.sin(a)) for a in (math.pi / 3 * k for k in range(6))])
    else:  # star
        pts = []
        for k in range(10):
            rad = (w / 2) if k % 2 == 0 else (w / 4.2)
            a = -math.pi / 2 + k * math.pi / 5
            pts.append(QPointF(c.x() + rad * math.cos(a), c.y() + rad * math.sin(a)))
        poly(pts)
    return path


def paint_badge(p: QPainter, r: QRectF, badge: Badge) -> None:
    """A pair badge: its shape in its hue with the pair number inside."""
    p.save()
    p.setPen(QPen(QColor("#333333"), 1))
    p.setBrush(QColor(badge.color))
    p.drawPath(shape_path(badge.shape, r))
    p.setPen(text_on(badge.color))
    f = type(g.small_font())(g.small_font())
    f.setBold(True)
    size = 12 if badge.number < 10 else 10 if badge.number < 100 else 8
    f.setPixelSize(max(1, round(size * r.height() / 20)))
    p.setFont(f)
    rr = QRectF(r)
    if badge.shape == "triangle":
        rr.setTop(r.top() + r.height() * 0.3)
    elif badge.shape == "down":
        rr.setBottom(r.bottom() - r.height() * 0.3)
    p.drawText(rr, Qt.AlignCenter, str(badge.number))
    p.restore()


def paint_hatch(p: QPainter, body: QRectF, kind: str, color: str) -> None:
    """The missing/extra frame: a hatched fill (the label stays readable) and a dashed/dotted rim."""
    p.save()
    c = QColor(color)
    p.setPen(QPen(c, 2, FRAME.get(kind, Qt.SolidLine)))
    hatch = QColor(c)
    hatch.setAlpha(120)
    p.setBrush(QBrush(hatch, HATCH.get(kind, Qt.SolidPattern)))
    p.drawRoundedRect(body.adjusted(-3, -3, 3, 3), 7, 7)
    p.restore()


def paint_emphasis(p: QPainter, body: QRectF, color: str | None) -> None:
    """The hover ring around a partner node: black dashes and a rim in the pair's hue."""
    p.save()
    p.setBrush(Qt.NoBrush)
    p.setPen(QPen(QColor("#000000"), 2.5, Qt.DashLine))
    p.drawRoundedRect(body.adjusted(-8, -8, 8, 8), 10, 10)
    p.setPen(QPen(QColor(color or "#000000"), 1.5))
    p.drawRoundedRect(body.adjusted(-10, -10, 10, 10), 11, 11)
    p.restore()
