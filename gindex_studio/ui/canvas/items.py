"""Graphics items: nodes with their ports, and wires. They draw what the scene tells them.

Items never touch the document: the scene builds a ``NodeLook`` from the model and hands it over.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyle

from . import geometry as g

SELECT_COLOR = QColor("#ff7f0e")
BORDER = QColor("#888888")
ERROR_COLOR = QColor("#d62728")
WARN_COLOR = QColor("#e69500")
WIRE_COLOR = QColor("#8c8c8c")
PORT_FILL = QColor("#eeeeee")
PORT_HOVER = QColor("#ffd966")

#: problem kinds drawn as errors (red); other kinds are warnings (amber)
ERROR_KINDS = frozenset({"cycle", "self-loop", "dangling-wire", "duplicate-id", "invalid-json-attribute"})


#: the status line under a node names its problems briefly (details: tooltip, Problems panel)
SHORT = {
    "unknown-type": "unknown type",
    "dangling-wire": "wire to missing node",
    "cycle": "in a cycle",
    "self-loop": "wired to itself",
    "duplicate-id": "duplicate id",
    "invalid-json-attribute": "invalid JSON",
}


@dataclass(frozen=True)
class Decoration:
    """An overlay on a node (used by the compare view).

    color: outline/halo colour; mark: ``matched``/``missing``/``extra`` (or any short word, drawn
    as a chip); label: text drawn above the node, e.g. ``w=0.83``.
    """

    color: str | None = None
    mark: str | None = None
    label: str = ""


EDGE_STYLES = {
    "matched": (QColor("#2ca02c"), Qt.SolidLine, 3.0),
    "missing": (QColor("#d62728"), Qt.DashLine, 2.5),
    "extra": (QColor("#1f77b4"), Qt.DotLine, 2.5),
}

MARK_COLORS = {"matched": "#2ca02c", "missing": "#d62728", "extra": "#1f77b4"}


@dataclass(frozen=True)
class NodeLook:
    label: str
    type: str
    color: str
    inputs: int
    outputs: int
    glyph: str = ""
    problems: tuple[tuple[str, str], ...] = ()  # (kind, message)
    unknown: bool = False


class PortItem:
    """An input (``port == -1``) or output port of a node. Not a graphics item: the node draws
    and hit-tests its ports (thousands of child items would cost more than the nodes)."""

    __slots__ = ("node", "port")

    def __init__(self, node: "NodeItem", port: int):
        self.node = node
        self.port = port

    @property
    def is_input(self) -> bool:
        return self.port < 0

    def pos(self) -> QPointF:
        n = self.node
        if self.port < 0:
            return g.input_port_pos(n.w, n.h)
        return g.output_port_pos(n.w, n.h, self.port, n.look.outputs)

    def scenePos(self) -> QPointF:
        return self.node.mapToScene(self.pos())

    def __eq__(self, other):
        return isinstance(other, PortItem) and other.node is self.node and other.port == self.port

    def __hash__(self):
        return hash((id(self.node), self.port))


class NodeItem(QGraphicsItem):
    """A node: body in its category colour, glyph band, label, ports, badge and status line."""

    def __init__(self, node_id: str, look: NodeLook):
        super().__init__()
        self.node_id = node_id
        self.look = look
        self.decoration: Decoration | None = None
        self.wires: set["WireItem"] = set()
        self.input_port: PortItem | None = None
        self.output_ports: list[PortItem] = []
        self.w = self.h = 0.0
        self.snap_to_grid = False
        self.hover_port: int | None = None
        self.lod_source = None  # the FlowScene: its ``lod`` is the current zoom (cheaper than asking the painter)
        self.setFlags(
            QGraphicsItem.ItemIsSelectable
            | QGraphicsItem.ItemIsMovable
            | QGraphicsItem.ItemSendsGeometryChanges
        )
        self.setZValue(1)
        self.setAcceptHoverEvents(True)
        self.set_look(look)

    # ----- state from the scene ----------------------------------------------------------------
    def set_look(self, look: NodeLook) -> None:
        self.prepareGeometryChange()
        self.look = look
        self.w, self.h = g.node_size(look.label, look.outputs)
        self._body = g.body_rect(self.w, self.h)
        self._elided = QFontMetricsF(g.label_font()).elidedText(
            look.label, Qt.ElideRight, self.w - g.ICON_W - 2 * g.PAD + 4
        )
        self._fill = QColor(look.color)
        if not self._fill.isValid():
            self._fill = QColor("#d9d9d9")
        self._status = ""
        if look.problems:
            kinds = list(dict.fromkeys(k for k, _ in look.problems))
            text = ", ".join(SHORT.get(k, k) for k in kinds)
            self._status = QFontMetricsF(g.small_font()).elidedText(text, Qt.ElideRight, self.w - 14)
            self._status_color = ERROR_COLOR if any(k in ERROR_KINDS for k, _ in look.problems) else WARN_COLOR
        self._sync_ports()
        self.setToolTip(self._tooltip())
        self.update()

    def _tooltip(self) -> str:
        lines = [f"{self.look.label}  ({self.look.type})", f"id {self.node_id}"]
        lines += [f"⚠ {m}" for _k, m in self.look.problems]
        return "\n".join(lines)

    def _sync_ports(self) -> None:
        self.input_port = PortItem(self, -1) if self.look.inputs else None
        self.output_ports = [PortItem(self, k) for k in range(self.look.outputs)]
        self._bounds = self._compute_bounds()

    def port_at(self, scene_pos: QPointF, radius: float = 9.0) -> PortItem | None:
        """The port whose centre is within ``radius`` of ``scene_pos``."""
        p = self.mapFromScene(scene_pos)
        for port in ([self.input_port] if self.input_port is not None else []) + self.output_ports:
            c = port.pos()
            if abs(c.x() - p.x()) <= radius and abs(c.y() - p.y()) <= radius:
                return port
        return None

    def hoverMoveEvent(self, e):
        port = self.port_at(e.scenePos())
        k = None if port is None else port.port
        if k != self.hover_port:
            self.hover_port = k
            self.update()

    def hoverLeaveEvent(self, e):
        if self.hover_port is not None:
            self.hover_port = None
            self.update()

    def set_decoration(self, deco: Decoration | None) -> None:
        self.prepareGeometryChange()
        self.decoration = deco
        self._bounds = self._compute_bounds()
        self.update()

    # ----- geometry ------------------------------------------------------------------------
    def body(self) -> QRectF:
        return g.body_rect(self.w, self.h)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def _compute_bounds(self) -> QRectF:
        r = self.body().adjusted(-8, -10, 8, 6)
        if self._status:
            r.setBottom(r.bottom() + g.STATUS_H)
        if self.decoration is not None and self.decoration.label:
            r.setTop(r.top() - 18)
        return r

    def shape(self) -> QPainterPath:
        """The body and the whole of each port (half of a port lies outside the body)."""
        p = QPainterPath()
        p.setFillRule(Qt.WindingFill)  # overlapping squares add to the body, never cut holes
        p.addRoundedRect(self.body(), 5, 5)
        for port in ([self.input_port] if self.input_port is not None else []) + self.output_ports:
            c = port.pos()
            p.addRect(QRectF(c.x() - g.PORT / 2, c.y() - g.PORT / 2, g.PORT, g.PORT))
        return p

    def output_pos(self, port: int) -> QPointF:
        return self.mapToScene(g.output_port_pos(self.w, self.h, port, max(self.look.outputs, port + 1)))

    def input_pos(self) -> QPointF:
        return self.mapToScene(g.input_port_pos(self.w, self.h))

    def scene_body(self) -> QRectF:
        return self.mapRectToScene(self.body())

    # ----- painting ------------------------------------------------------------------------
    def paint(self, p: QPainter, option, widget=None):
        src = self.lod_source
        lod = src.lod if src is not None else option.levelOfDetailFromTransform(p.worldTransform())
        deco = self.decoration
        if lod < 0.3 and deco is None and not self._status:  # far away: a plain block is enough
            if option.state & QStyle.State_Selected:
                p.fillRect(self._body.adjusted(-6, -6, 6, 6), SELECT_COLOR)
            p.fillRect(self._body, self._fill)
            return
        selected = bool(option.state & QStyle.State_Selected)
        body = self._body
        if lod < 0.3:
            p.setPen(Qt.NoPen if not selected else QPen(SELECT_COLOR, 4))
            p.setBrush(self._fill)
            p.drawRect(body)
            if deco is not None and deco.color:
                p.setPen(QPen(QColor(deco.color), 6))
                p.setBrush(Qt.NoBrush)
                p.drawRect(body)
            elif self._status:
                p.fillRect(QRectF(body.right() - 12, body.top() - 6, 14, 14), self._status_color)
            return
        if deco is not None and deco.color:
            p.setPen(QPen(QColor(deco.color), 4))
            p.setBrush(Qt.NoBrush)
            p.drawRoundedRect(body.adjusted(-4, -4, 4, 4), 8, 8)
        p.setPen(QPen(SELECT_COLOR, 3) if selected else QPen(BORDER, 1))
        p.setBrush(self._fill)
        if self.look.unknown:
            p.setPen(QPen(SELECT_COLOR if selected else ERROR_COLOR, 3 if selected else 1.5, Qt.DashLine))
        p.drawRoundedRect(body, 5, 5)
        # glyph band
        band = QRectF(body.left(), body.top(), g.ICON_W, body.height())
        p.setPen(Qt.NoPen)
        p.setBrush(QColor(0, 0, 0, 28))
        clip = QPainterPath()
        clip.addRoundedRect(body, 5, 5)
        p.save()
        p.setClipPath(clip)
        p.drawRect(band)
        p.restore()
        if lod >= 0.34:
            p.setPen(QColor(0, 0, 0, 140))
            p.setFont(g.glyph_font())
            p.drawText(band, Qt.AlignCenter, self.look.glyph)
            p.setPen(QColor("#222222"))
            p.setFont(g.label_font())
            text_rect = QRectF(body.left() + g.ICON_W + g.PAD - 2, body.top(), body.width() - g.ICON_W - 2 * g.PAD + 4, body.height())
            p.drawText(text_rect, Qt.AlignVCenter | Qt.AlignLeft, self._elided)
        if lod >= 0.4:
            p.setPen(QPen(BORDER, 1))
            s = g.PORT
            for port in ([self.input_port] if self.input_port is not None else []) + self.output_ports:
                p.setBrush(PORT_HOVER if port.port == self.hover_port else PORT_FILL)
                c = port.pos()
                p.drawRoundedRect(QRectF(c.x() - s / 2, c.y() - s / 2, s, s), 2, 2)
        if self._status:
            p.setPen(Qt.NoPen)
            p.setBrush(self._status_color)
            badge = QRectF(body.right() - 10, body.top() - 8, 16, 16)
            p.drawEllipse(badge)
            if lod >= 0.34:
                p.setPen(QColor("white"))
                p.setFont(g.small_font())
                p.drawText(badge, Qt.AlignCenter, "!")
                p.setPen(self._status_color)
                dot = QRectF(body.left() + 2, body.bottom() + 5, 8, 8)
                p.setBrush(self._status_color)
                p.drawRect(dot)
                p.drawText(QRectF(body.left() + 14, body.bottom() + 2, self.w - 14, g.STATUS_H - 2),
                           Qt.AlignVCenter | Qt.AlignLeft, self._status)
        if deco is not None and lod >= 0.34:
            self._paint_decoration(p, body, deco)

    def _paint_decoration(self, p: QPainter, body: QRectF, deco: Decoration) -> None:
        p.setFont(g.small_font())
        x = body.left()
        if deco.mark:
            color = QColor(MARK_COLORS.get(deco.mark, deco.color or "#555555"))
            w = QFontMetricsF(g.small_font()).horizontalAdvance(deco.mark) + 10
            chip = QRectF(x, body.top() - 20, w, 15)
            p.setPen(Qt.NoPen)
            p.setBrush(color)
            p.drawRoundedRect(chip, 4, 4)
            p.setPen(QColor("white"))
            p.drawText(chip, Qt.AlignCenter, deco.mark)
            x += w + 4
        if deco.label:
            p.setPen(QColor("#222222"))
            p.drawText(QRectF(x, body.top() - 20, 200, 15), Qt.AlignVCenter | Qt.AlignLeft, deco.label)

    # ----- moves ---------------------------------------------------------------------------
    def set_model_pos(self, x: float, y: float) -> None:
        """Place the item where the model says (no snapping: the model is the truth)."""
        snap, self.snap_to_grid = self.snap_to_grid, False
        self.setPos(x, y)
        self.snap_to_grid = snap

    def itemChange(self, change, value):
        if change == QGraphicsItem.ItemPositionChange and self.snap_to_grid:
            return QPointF(g.snap(value.x()), g.snap(value.y()))
        if change == QGraphicsItem.ItemPositionHasChanged:
            for w in self.wires:
                w.update_path()
            if self.lod_source is not None:
                self.lod_source.batch_dirty = True
        return super().itemChange(change, value)


class WireItem(QGraphicsPathItem):
    """A wire from an output port to an input port, drawn as a horizontal S-curve.

    Painted by Qt (no Python paint call per frame); selection is the scene's (``selected``), shown
    by the pen, so rubber bands select nodes only, as in Node-RED.
    """

    def __init__(self, src: NodeItem, port: int, dst: NodeItem):
        super().__init__()
        self.src, self.port, self.dst = src, port, dst
        self.style: str | None = None
        self.selected = False
        self.setZValue(0)
        self._shape: QPainterPath | None = None
        self._apply_pen()
        self.update_path()

    @property
    def key(self) -> tuple[str, int, str]:
        return self.src.node_id, self.port, self.dst.node_id

    def update_path(self) -> None:
        a = self.src.output_pos(self.port)
        b = self.dst.input_pos()
        self.setPath(wire_path(a, b))
        self._shape = None

    def set_style(self, style: str | None) -> None:
        self.style = style
        self._apply_pen()

    def set_selected(self, on: bool) -> None:
        if on != self.selected:
            self.selected = on
            self._apply_pen()

    def _apply_pen(self) -> None:
        color, dash, width = EDGE_STYLES.get(self.style or "", (WIRE_COLOR, Qt.SolidLine, 2.5))
        if self.selected:
            color, width = SELECT_COLOR, width + 1.5
        pen = QPen(color, width)
        pen.setStyle(dash)
        self.setPen(pen)

    def shape(self) -> QPainterPath:
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(10)
            self._shape = stroker.createStroke(self.path())
        return self._shape


def wire_path(a: QPointF, b: QPointF) -> QPainterPath:
    """Node-RED style: leave the port horizontally, arrive horizontally; loop back around."""
    dx = b.x() - a.x()
    bend = max(40.0, min(abs(dx) * 0.5, 150.0))
    if dx < 0:
        bend = max(bend, 60.0 + abs(b.y() - a.y()) * 0.25)
    path = QPainterPath(a)
    path.cubicTo(QPointF(a.x() + bend, a.y()), QPointF(b.x() - bend, b.y()), b)
    return path
