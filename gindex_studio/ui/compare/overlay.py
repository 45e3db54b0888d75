"""Drawing a score result on the two canvases, readable without colour.

Every mapped pair gets a number, a hue and a shape (the same on both sides); missing and extra nodes
get a word chip and a hatch pattern; matched, missing and extra wires differ by dash pattern as well
as hue. The editor's overlay API (``Decoration``, ``set_edge_style``) draws halos, chips and wires;
the number/shape badges, the w label, the hatch and the hover ring are ``MarkItem`` children of the
node items (they move with them and vanish with them).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QSizePolicy, QWidget

from gindex_studio.core.divergence import ScoreResult

from ..canvas import geometry as g
from ..canvas.items import EDGE_STYLES, MARK_COLORS, Decoration

#: pair hues: Okabe-Ito and Tol colours minus the red and blue used for missing/extra
PAIR_COLORS = ["#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442", "#882255", "#44AA99", "#999933", "#332288"]
#: shapes cycle with a different period (7) than hues (9): 63 distinct (hue, shape) badges
SHAPES = ["circle", "square", "triangle", "diamond", "down", "hexagon", "star"]
MISSING_COLOR = MARK_COLORS["missing"]
EXTRA_COLOR = MARK_COLORS["extra"]
HATCH = {"missing": Qt.BDiagPattern, "extra": Qt.DiagCrossPattern}


@dataclass(frozen=True)
class PairStyle:
    number: int  # 1-based, in reference order
    color: str
    shape: str


def pair_style(k: int) -> PairStyle:
    """Style of the k-th pair (0-based)."""
    return PairStyle(k + 1, PAIR_COLORS[k % len(PAIR_COLORS)], SHAPES[k % len(SHAPES)])


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
    if shape == "circle":
        path.addEllipse(r)
    elif shape == "square":
        path.addRect(r.adjusted(1, 1, -1, -1))
    elif shape == "triangle":
        path.addPolygon(QPolygonF([QPointF(c.x(), r.top()), QPointF(r.right(), r.bottom()), QPointF(r.left(), r.bottom())]))
        path.closeSubpath()
    elif shape == "down":
        path.addPolygon(QPolygonF([QPointF(r.left(), r.top()), QPointF(r.right(), r.top()), QPointF(c.x(), r.bottom())]))
        path.closeSubpath()
    elif shape == "diamond":
        path.addPolygon(QPolygonF([QPointF(c.x(), r.top()), QPointF(r.right(), c.y()), QPointF(c.x(), r.bottom()), QPointF(r.left(), c.y())]))
        path.closeSubpath()
    elif shape == "hexagon":
        pts = [QPointF(c.x() + w / 2 * math.cos(a), c.y() + h / 2 * math.sin(a)) for a in (math.pi / 3 * k for k in range(6))]
        path.addPolygon(QPolygonF(pts))
        path.closeSubpath()
    else:  # star
        pts = []
        for k in range(10):
            rad = (w / 2) if k % 2 == 0 else (w / 4.2)
            a = -math.pi / 2 + k * math.pi / 5
            pts.append(QPointF(c.x() + rad * math.cos(a), c.y() + rad * math.sin(a)))
        path.addPolygon(QPolygonF(pts))
        path.closeSubpath()
    return path


def paint_badge(p: QPainter, r: QRectF, style: PairStyle) -> None:
    """A pair badge: its shape in its hue with the pair number inside (painter state kept)."""
    p.save()
    p.setPen(QPen(QColor("#333333"), 1))
    p.setBrush(QColor(style.color))
    p.drawPath(shape_path(style.shape, r))
    p.setPen(text_on(style.color))
    f = type(g.small_font())(g.small_font())
    f.setBold(True)
    f.setPixelSize(12 if style.number < 10 else 10 if style.number < 100 else 8)
    p.setFont(f)
    rr = QRectF(r)
    if style.shape == "triangle":
        rr.setTop(r.top() + r.height() * 0.3)
    elif style.shape == "down":
        rr.setBottom(r.bottom() - r.height() * 0.3)
    p.drawText(rr, Qt.AlignCenter, str(style.number))
    p.restore()


class MarkItem(QGraphicsItem):
    """The compare marks of one node: a pair badge and its w label, or a missing/extra hatch."""

    BADGE = 20.0

    def __init__(self, node_item, kind: str, style: PairStyle | None = None, text: str = ""):
        super().__init__(node_item)
        self.node_item = node_item
        self.kind = kind  # "pair" | "missing" | "extra"
        self.style = style
        self.text = text
        self.emphasis = False
        self._body = QRectF(node_item.body())
        self._elided = text
        self.setAcceptedMouseButtons(Qt.NoButton)
        self.setAcceptHoverEvents(False)
        self.setZValue(3)
        self._sync()

    def _sync(self) -> None:
        self.prepareGeometryChange()
        body = self.node_item.body()
        self._body = QRectF(body)
        room = max(40.0, body.width() - (self.BADGE + 4) - 18)
        self._elided = QFontMetricsF(g.small_font()).elidedText(self.text, Qt.ElideRight, room + 60)
        self.setToolTip(self.text)

    def set_emphasis(self, on: bool) -> None:
        if on != self.emphasis:
            self.emphasis = on
            self.update()

    def boundingRect(self) -> QRectF:
        b = self._body
        return QRectF(b.left() - 10, b.top() - self.BADGE - 8, b.width() + 80, b.height() + self.BADGE + 18)

    def paint(self, p: QPainter, option, widget=None):
        if self._body != self.node_item.body():
            self._sync()
        b = self._body
        if self.kind in HATCH:
            color = QColor(MISSING_COLOR if self.kind == "missing" else EXTRA_COLOR)
            p.setPen(QPen(color, 2, Qt.DashLine if self.kind == "missing" else Qt.DotLine))
            hatch = QColor(color)
            hatch.setAlpha(120)  # the node's label stays readable under the pattern
            brush = QBrush(hatch, HATCH[self.kind])
            p.setBrush(brush)
            p.drawRoundedRect(b.adjusted(-3, -3, 3, 3), 7, 7)
        elif self.style is not None:
            lod = option.levelOfDetailFromTransform(p.worldTransform())
            s = self.BADGE if lod >= 0.5 else self.BADGE * 1.6
            badge = QRectF(b.left(), b.top() - s - 4, s, s)
            paint_badge(p, badge, self.style)
            if self.text and lod >= 0.5:
                p.setFont(g.small_font())
                p.setPen(QColor("#222222"))
                p.drawText(QRectF(badge.right() + 4, badge.top(), b.width() + 60, s), Qt.AlignVCenter | Qt.AlignLeft, self._elided)
        if self.emphasis:
            color = QColor(self.style.color) if self.style is not None else QColor("#000000")
            pen = QPen(QColor("#000000"), 2.5, Qt.DashLine)
            p.setBrush(Qt.NoBrush)
            p.setPen(pen)
            p.drawRoundedRect(b.adjusted(-8, -8, 8, 8), 10, 10)
            p.setPen(QPen(color, 1.5))
            p.drawRoundedRect(b.adjusted(-10, -10, 10, 10), 11, 11)


def pair_label(pair) -> str:
    """``w=1`` or ``w=2/3 ≠ topic, payload`` for a mapped pair."""
    if pair.w >= 1:
        return "w=1"
    keys = ", ".join(pair.differing_keys)
    return f"w={pair.w_exact} ≠ {keys}" if keys else f"w={pair.w_exact}"


class Overlay:
    """The marks of one score result on one editor's scene (``side``: reference or generated)."""

    def __init__(self, editor, side: str):
        self.editor = editor
        self.side = side
        self.items: dict[str, MarkItem] = {}
        self.kinds: dict[str, tuple] = {}  # node id -> ("pair", k, partner) | ("missing",) | ("extra",)
        self._emphasised: str | None = None

    @property
    def scene(self):
        return self.editor.scene

    def clear(self) -> None:
        for item in self.items.values():
            if shiboken6.isValid(item) and item.scene() is not None:
                item.scene().removeItem(item)
        self.items.clear()
        self.kinds.clear()
        self._emphasised = None
        self.scene.clear_decorations()

    def apply(self, result: ScoreResult, styles: dict[str, PairStyle]) -> None:
        """Draw ``result``; ``styles``: reference id → the pair's style."""
        self.clear()
        ref = self.side == "reference"
        for pair in result.mapping:
            nid, partner = (pair.reference, pair.generated) if ref else (pair.generated, pair.reference)
            st = styles[pair.reference]
            self.kinds[nid] = ("pair", st.number, partner)
            self.scene.set_node_decoration(nid, Decoration(color=st.color))
            self._mark(nid, "pair", st, pair_label(pair))
        lonely = result.missing_nodes if ref else result.extra_nodes
        kind = "missing" if ref else "extra"
        for nid in lonely:
            self.kinds[nid] = (kind,)
            self.scene.set_node_decoration(nid, Decoration(mark=kind))
            self._mark(nid, kind)
        for r_edge, g_edge in result.matched_edges:
            self._edge(r_edge if ref else g_edge, "matched")
        for e in (result.missing_edges if ref else result.extra_edges):
            self._edge(e, kind)

    def _mark(self, nid: str, kind: str, style: PairStyle | None = None, text: str = "") -> None:
        node_item = self.scene.nodes.get(nid)
        if node_item is not None:
            self.items[nid] = MarkItem(node_item, kind, style, text)

    def _edge(self, e: list, style: str) -> None:
        if len(e) == 3:
            self.scene.set_edge_style(e[0], e[1], e[2], style)
        else:
            self.scene.set_edge_style(e[0], None, e[1], style)

    def emphasise(self, nid: str | None) -> None:
        """Ring one node (the partner of what is hovered); None removes the ring."""
        if self._emphasised == nid:
            return
        old = self.items.get(self._emphasised) if self._emphasised else None
        if old is not None and shiboken6.isValid(old):
            old.set_emphasis(False)
        self._emphasised = nid
        item = self.items.get(nid) if nid else None
        if item is not None and shiboken6.isValid(item):
            item.set_emphasis(True)

    def drawn_pairs(self) -> dict[str, int]:
        """Node id → pair number of every pair badge drawn on this canvas (what a user sees)."""
        return {nid: it.style.number for nid, it in self.items.items()
                if shiboken6.isValid(it) and it.scene() is not None and it.kind == "pair"}

    def drawn_marks(self, kind: str) -> set[str]:
        return {nid for nid, it in self.items.items()
                if shiboken6.isValid(it) and it.scene() is not None and it.kind == kind}


def styles_for(result: ScoreResult, reference_order: list[str]) -> dict[str, PairStyle]:
    """Reference id → pair style, numbered in the reference file's order."""
    rank = {nid: k for k, nid in enumerate(reference_order)}
    pairs = sorted(result.mapping, key=lambda p: rank.get(p.reference, len(rank)))
    return {p.reference: pair_style(k) for k, p in enumerate(pairs)}


# ----- legend ------------------------------------------------------------------------------------


class Legend(QWidget):
    """What the marks mean: pair badges, missing/extra hatches, the three wire styles."""

    ROW = 22

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self.setMinimumHeight(self.ROW * 4 + 8)
        self.setMinimumWidth(280)

    def sizeHint(self):
        from PySide6.QtCore import QSize

        return QSize(320, self.ROW * 4 + 8)

    def paintEvent(self, _e):
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.setFont(g.small_font())
        fm = QFontMetricsF(g.small_font())
        y = 4.0
        # row 1: pairs
        x = 4.0
        for k in range(4):
            paint_badge(p, QRectF(x, y + 2, 16, 16), pair_style(k))
            x += 20
        p.setPen(QColor("#222222"))
        p.drawText(QRectF(x + 4, y, 400, self.ROW), Qt.AlignVCenter, "mapped pair: same number, hue and shape on both sides")
        y += self.ROW
        # row 2: nodes
        x = 4.0
        for kind, word in (("missing", "missing (reference only)"), ("extra", "extra (generated only)")):
            color = QColor(MISSING_COLOR if kind == "missing" else EXTRA_COLOR)
            box = QRectF(x, y + 3, 28, 15)
            p.setPen(QPen(color, 1.5, Qt.DashLine if kind == "missing" else Qt.DotLine))
            p.setBrush(QBrush(color, HATCH[kind]))
            p.drawRoundedRect(box, 3, 3)
            p.setPen(QColor("#222222"))
            p.drawText(QRectF(box.right() + 5, y, 200, self.ROW), Qt.AlignVCenter, word)
            x = box.right() + 5 + fm.horizontalAdvance(word) + 16
        y += self.ROW
        # row 3: wires
        x = 4.0
        for style, word in (("matched", "matched wire"), ("missing", "missing wire"), ("extra", "extra wire")):
            color, dash, width = EDGE_STYLES[style]
            pen = QPen(color, width)
            pen.setStyle(dash)
            p.setPen(pen)
            p.drawLine(QPointF(x, y + self.ROW / 2), QPointF(x + 30, y + self.ROW / 2))
            p.setPen(QColor("#222222"))
            p.drawText(QRectF(x + 35, y, 200, self.ROW), Qt.AlignVCenter, word)
            x += 35 + fm.horizontalAdvance(word) + 16
        y += self.ROW
        p.setPen(QColor("#222222"))
        p.drawText(QRectF(4, y, self.width() - 8, self.ROW), Qt.AlignVCenter,
                   "w = share of equal attributes;  ≠ lists the attributes that differ")
        p.end()
