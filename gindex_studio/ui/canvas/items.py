"""Graphics items: nodes with their ports, and wires. They draw what the scene tells them.

Items never touch the document: the scene builds a ``NodeLook`` from the model and hands it over,
with the theme's colours (``CanvasLook``) and any overlay (``Decoration``) a view lays on a node.
Overlays are painted by the items themselves: nothing is stacked above them to take the mouse.
A node's mouse shape is its body plus every port square with a margin.
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

from gindex_studio.ui.icons import type_pixmap
from gindex_studio.ui.canvas import geometry as g
from gindex_studio.ui.canvas.look import DEFAULT_LOOK, Badge, CanvasLook, Decoration
from gindex_studio.ui.canvas.marks import paint_badge, paint_emphasis, paint_hatch

__all__ = ["Badge", "CanvasLook", "Decoration", "NodeItem", "NodeLook", "PortItem", "WireItem", "wire_path"]

#: problem kinds drawn as errors (red); other kinds are warnings (amber)
ERROR_KINDS = frozenset({"cycle", "self-loop", "dangling-wire", "duplicate-id", "invalid-json-attribute",
                         "refused", "timeout", "runtime-crash"})


#: the status line under a node names its problems briefly (details: tooltip, Problems panel)
SHORT = {
    "refused": "refused",
    "unknown-type": "unknown type",
    "dangling-wire": "wire to missing node",
    "cycle": "in a cycle",
    "self-loop": "wired to itself",
    "duplicate-id": "duplicate id",
    "invalid-json-attribute": "invalid JSON",
}

#: the default look's wire styles as (QColor, dash, width) (for legends)
EDGE_STYLES = {k: (QColor(w.color), w.dash, w.width) for k, w in DEFAULT_LOOK.wires.items() if k != "plain"}
MARK_COLORS = dict(DEFAULT_LOOK.marks)
#: extra room a port square gets for the mouse, beyond its drawn half-size (scene units)
PORT_MARGIN = 4.0
#: room above a node's body for a pair badge and its label
BADGE = 20.0


#: a Flatland loop's ``body`` port (output 1) and its wires are drawn in this colour, the wires dashed
LOOP_BODY_COLOR = "#e07b10"


def is_loop_body(node_type: str, port: int) -> bool:
    """True for the body port (output 1) of a Flatland ``loop`` node."""
    return node_type == "loop" and port == 1


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
    category: str = ""  # the library category (its icon when the type has none of its own)


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
    """A node: body in its category colour, glyph band, label, ports, badge and status line, and
    the overlay it was given (``set_decoration``) and the hover ring (``set_emphasis``)."""

    def __init__(self, node_id: str, look: NodeLook, colors: CanvasLook = DEFAULT_LOOK):
        super().__init__()
        self.node_id = node_id
        self.look = look
        self.colors = colors
        self.decoration: Decoration | None = None
        self.emphasis = False
        self.wires: set["WireItem"] = set()
        self.input_port: PortItem | None = None
        self.output_ports: list[PortItem] = []
        self.w = self.h = 0.0
        self._status = ""
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
            self._fill = self.colors.color("unknown_fill")
        self._status = self._status_full = ""
        if look.problems:
            kinds = list(dict.fromkeys(k for k, _ in look.problems))
            text = self._status_full = ", ".join(SHORT.get(k, k) for k in kinds)
            self._status = QFontMetricsF(g.small_font()).elidedText(text, Qt.ElideRight, self.w - 14)
            error = any(k in ERROR_KINDS for k, _ in look.problems)
            self._status_color = self.colors.color("error" if error else "warning")
        self._sync_ports()
        self._sync_label()
        self.setToolTip(self._tooltip())
        self.update()

    def set_colors(self, colors: CanvasLook) -> None:
        """A new theme: repaint in its colours."""
        self.colors = colors
        self.set_look(self.look)

    def _tooltip(self) -> str:
        lines = [f"{self.look.label}  ({self.look.type})", f"id {self.node_id}"]
        lines += [f"⚠ {m}" for _k, m in self.look.problems]
        if self.decoration is not None and self.decoration.label:
            lines.append(self.decoration.label)
        return "\n".join(lines)

    def _sync_ports(self) -> None:
        self.input_port = PortItem(self, -1) if self.look.inputs else None
        self.output_ports = [PortItem(self, k) for k in range(self.look.outputs)]
        self._shape = None
        self._bounds = self._compute_bounds()

    def ports(self) -> list[PortItem]:
        return ([self.input_port] if self.input_port is not None else []) + self.output_ports

    def port_at(self, scene_pos: QPointF, radius: float = g.PORT / 2 + PORT_MARGIN) -> PortItem | None:
        """The port whose drawn square, grown by ``PORT_MARGIN``, holds ``scene_pos`` (the nearest
        one when two overlap)."""
        p = self.mapFromScene(scene_pos)
        best, best_d = None, None
        for port in self.ports():
            c = port.pos()
            dx, dy = abs(c.x() - p.x()), abs(c.y() - p.y())
            if dx <= radius and dy <= radius and (best_d is None or dx + dy < best_d):
                best, best_d = port, dx + dy
        return best

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
        if deco == self.decoration:
            return
        self.prepareGeometryChange()
        self.decoration = deco
        self._sync_label()
        self._bounds = self._compute_bounds()
        self.setToolTip(self._tooltip())
        self.update()

    def set_emphasis(self, on: bool) -> None:
        """Ring the node (its partner is hovered on the other canvas)."""
        if on != self.emphasis:
            self.prepareGeometryChange()
            self.emphasis = on
            self._bounds = self._compute_bounds()
            self.update()

    def _sync_label(self) -> None:
        d = self.decoration
        text = d.label if d is not None else ""
        self._deco_label = QFontMetricsF(g.small_font()).elidedText(text, Qt.ElideRight, self.w + 60) if text else ""

    # ----- geometry ------------------------------------------------------------------------
    def body(self) -> QRectF:
        return g.body_rect(self.w, self.h)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def _compute_bounds(self) -> QRectF:
        r = self.body().adjusted(-g.PORT / 2 - PORT_MARGIN - 1, -10, g.PORT / 2 + PORT_MARGIN + 1, 6)
        if self._status:  # room for the status line as drawn zoomed out (``g.status_scale``)
            r.setBottom(r.bottom() + g.STATUS_H * g.STATUS_MAX_SCALE)
        d = self.decoration
        if d is not None and (d.label or d.badge is not None or d.mark):
            r.setTop(r.top() - BADGE * 1.6 - 6)
            r.setRight(max(r.right(), self.body().right() + 64))
        if d is not None and d.hatch or self.emphasis:
            r = r.united(self.body().adjusted(-12, -12, 12, 12))
        return r

    def shape(self) -> QPainterPath:
        """What the mouse hits: the body and every port square grown by ``PORT_MARGIN``."""
        if self._shape is None:
            p = QPainterPath()
            p.setFillRule(Qt.WindingFill)  # overlapping squares add to the body, never cut holes
            p.addRoundedRect(self.body(), 5, 5)
            half = g.PORT / 2 + PORT_MARGIN
            for port in self.ports():
                c = port.pos()
                p.addRect(QRectF(c.x() - half, c.y() - half, 2 * half, 2 * half))
            self._shape = p
        return self._shape

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
        c = self.colors
        deco = self.decoration
        selected = bool(option.state & QStyle.State_Selected)
        body = self._body
        if deco is not None and deco.hatch:
            paint_hatch(p, body, deco.hatch, c.marks.get(deco.hatch, c.border))
        if lod < 0.3:
            if deco is None and not self._status and not self.emphasis:  # far away: a plain block
                if selected:
                    p.fillRect(body.adjusted(-6, -6, 6, 6), c.color("select"))
                p.fillRect(body, self._fill)
                return
            p.setPen(Qt.NoPen if not selected else QPen(c.color("select"), 4))
            p.setBrush(self._fill)
            p.drawRect(body)
            if deco is not None and deco.color:
                p.setPen(QPen(QColor(deco.color), 6))
                p.setBrush(Qt.NoBrush)
                p.drawRect(body)
            elif self._status:
                p.fillRect(QRectF(body.right() - 12, body.top() - 6, 14, 14), self._status_color)
            self._paint_overlay(p, body, lod)
            return
        if deco is not None and deco.color:
            p.setPen(QPen(QColor(deco.color), 4))
            p.setBrush(Qt.NoBrush)
            p.drawRoundedRect(body.adjusted(-4, -4, 4, 4), 8, 8)
        p.setPen(QPen(c.color("select"), 3) if selected else QPen(c.color("border"), 1))
        p.setBrush(self._fill)
        if self.look.unknown:
            p.setPen(QPen(c.color("select") if selected else c.color("error"), 3 if selected else 1.5, Qt.DashLine))
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
            icon = None if self.look.unknown else type_pixmap(self.look.type, self.look.category, 48)
            if icon is not None and not icon.isNull():
                s = g.ICON_W * 0.6
                mid = band.center()
                p.drawPixmap(QRectF(mid.x() - s / 2, mid.y() - s / 2, s, s), icon, QRectF(icon.rect()))
            else:  # no icon set installed, or a type the library does not know: its initial
                p.setPen(QColor(0, 0, 0, 140))
                p.setFont(g.glyph_font())
                p.drawText(band, Qt.AlignCenter, self.look.glyph)
            p.setPen(c.color("text"))
            p.setFont(g.label_font())
            text_rect = QRectF(body.left() + g.ICON_W + g.PAD - 2, body.top(), body.width() - g.ICON_W - 2 * g.PAD + 4, body.height())
            p.drawText(text_rect, Qt.AlignVCenter | Qt.AlignLeft, self._elided)
        if lod >= 0.4:
            p.setPen(QPen(c.color("border"), 1))
            s = g.PORT
            for port in self.ports():
                body_port = is_loop_body(self.look.type, port.port)
                fill = c.color("port_fill") if not body_port else QColor(LOOP_BODY_COLOR)
                p.setBrush(c.color("port_hover") if port.port == self.hover_port else fill)
                pc = port.pos()
                if body_port:  # a Flatland loop's body port: a round, orange port
                    p.drawEllipse(QRectF(pc.x() - s / 2 - 1, pc.y() - s / 2 - 1, s + 2, s + 2))
                else:
                    p.drawRoundedRect(QRectF(pc.x() - s / 2, pc.y() - s / 2, s, s), 2, 2)
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
                k = g.status_step(lod)
                dot = QRectF(body.left() + 2, body.bottom() + 5 * k, 8 * k, 8 * k)
                p.setBrush(self._status_color)
                p.drawRect(dot)
                text = self._status
                if k > 1:  # zoomed out: larger letters (elided again to the node's width)
                    p.setFont(g.status_font(k))
                    text = QFontMetricsF(g.status_font(k)).elidedText(self._status_full, Qt.ElideRight,
                                                                      self.w - 6 - 8 * k)
                p.drawText(QRectF(dot.right() + 4, body.bottom() + 2, self.w, (g.STATUS_H - 2) * k),
                           Qt.AlignVCenter | Qt.AlignLeft, text)
        self._paint_overlay(p, body, lod)

    def _paint_overlay(self, p: QPainter, body: QRectF, lod: float) -> None:
        """Badge, mark chip and label above the body; the hover ring around it. Far away the
        badge grows so that its number stays readable and the label is left out."""
        deco = self.decoration
        if deco is not None:
            x = body.left()
            big = lod < 0.5
            s = BADGE * 1.6 if big else BADGE
            top = body.top() - s - 4
            if deco.badge is not None:
                paint_badge(p, QRectF(x, top, s, s), deco.badge)
                x += s + 4
            if not big:
                p.setFont(g.small_font())
                if deco.mark:
                    color = QColor(self.colors.marks.get(deco.mark, deco.color or "#555555"))
                    w = QFontMetricsF(g.small_font()).horizontalAdvance(deco.mark) + 10
                    chip = QRectF(x, top + (s - 15) / 2, w, 15)
                    p.setPen(Qt.NoPen)
                    p.setBrush(color)
                    p.drawRoundedRect(chip, 4, 4)
                    p.setPen(QColor("white"))
                    p.drawText(chip, Qt.AlignCenter, deco.mark)
                    x += w + 4
                if self._deco_label:
                    p.setPen(self.colors.color("canvas_text"))  # on the canvas, not on the node
                    p.drawText(QRectF(x, top, body.width() + 60, s), Qt.AlignVCenter | Qt.AlignLeft, self._deco_label)
        if self.emphasis:
            paint_emphasis(p, body, deco.badge.color if deco is not None and deco.badge is not None else None)

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

    Painted by Qt (no Python paint call per frame). Its style (``matched``/``missing``/``extra``)
    sets colour and dash; selection (the scene's ``selected``) adds a wide halo *under* the wire,
    so a selected missing wire still shows its colour and dashes. Rubber bands select nodes only,
    as in Node-RED.
    """

    def __init__(self, src: NodeItem, port: int, dst: NodeItem, colors: CanvasLook = DEFAULT_LOOK):
        super().__init__()
        self.src, self.port, self.dst = src, port, dst
        self.colors = colors
        self.style: str | None = None
        self.selected = False
        self.halo: QGraphicsPathItem | None = None
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
        self.setPath(wire_path(a, b, self.src.body().height(), self.dst.body().height()))
        if self.halo is not None:
            self.halo.setPath(self.path())
        self._shape = None

    def set_style(self, style: str | None) -> None:
        self.style = style
        self._apply_pen()

    def set_colors(self, colors: CanvasLook) -> None:
        self.colors = colors
        self._apply_pen()

    def set_selected(self, on: bool) -> None:
        if on != self.selected:
            self.selected = on
            self._apply_pen()

    def _apply_pen(self) -> None:
        ws = self.colors.wire(self.style)
        width = ws.width + (1.0 if self.selected else 0.0)
        body = self.style is None and is_loop_body(self.src.look.type, self.port)
        pen = QPen(QColor(LOOP_BODY_COLOR if body else ws.color), width + (0.5 if body else 0.0))
        pen.setStyle(Qt.DashLine if body else ws.dash)
        self.setPen(pen)
        if self.selected and self.halo is None:
            self.halo = QGraphicsPathItem(self)
            self.halo.setFlag(QGraphicsItem.ItemStacksBehindParent, True)
            self.halo.setAcceptedMouseButtons(Qt.NoButton)
            self.halo.setAcceptHoverEvents(False)
            self.halo.setPath(self.path())
        if self.halo is not None:
            glow = self.colors.color("select")
            glow.setAlpha(150)
            self.halo.setPen(QPen(glow, width + 6, Qt.SolidLine, Qt.RoundCap))
            self.halo.setVisible(self.selected)

    def shape(self) -> QPainterPath:
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(10)
            self._shape = stroker.createStroke(self.path())
        return self._shape


def wire_path(a: QPointF, b: QPointF, src_h: float = g.NODE_H, dst_h: float = g.NODE_H) -> QPainterPath:
    """Node-RED style: leave the port horizontally, arrive horizontally. A backward wire (its
    target left of its source) loops back as Node-RED's do: out to the right, down (or up) to a
    lane clear of both nodes' bodies (``src_h``, ``dst_h``: their heights), along it, and into
    the target from the left; the lane runs between the two rows when they are far enough apart,
    else below both nodes."""
    dx = b.x() - a.x()
    path = QPainterPath(a)
    if dx >= 0:
        bend = max(40.0, min(dx * 0.5, 150.0))
        path.cubicTo(QPointF(a.x() + bend, a.y()), QPointF(b.x() - bend, b.y()), b)
        return path
    gap = (src_h + dst_h) / 2 + 2 * LOOP_CLEARANCE
    if abs(b.y() - a.y()) >= gap:
        lane = (a.y() + b.y()) / 2  # between the rows
    else:
        lane = max(a.y() + src_h / 2, b.y() + dst_h / 2) + LOOP_CLEARANCE  # below both nodes
    r = LOOP_RADIUS
    path.cubicTo(QPointF(a.x() + 2 * r, a.y()), QPointF(a.x() + 2 * r, lane), QPointF(a.x(), lane))
    path.lineTo(QPointF(b.x(), lane))
    path.cubicTo(QPointF(b.x() - 2 * r, lane), QPointF(b.x() - 2 * r, b.y()), b)
    return path


#: how far a backward wire's lane keeps from a node's body, and how wide its turns are
LOOP_CLEARANCE = 20.0
LOOP_RADIUS = 20.0
