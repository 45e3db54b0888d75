"""FlowView: zoom, pan, fit, and dispatch of mouse gestures; typing opens quick-add."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import QGraphicsView

from gindex_studio.ui.canvas.interactions import MoveGesture, PanGesture, WireGesture
from gindex_studio.ui.canvas.items import NodeItem, WireItem

#: scene pixels kept around the flow when fitting it to the view
FIT_MARGIN = 40

MIN_ZOOM, MAX_ZOOM = 0.05, 4.0


class FlowView(QGraphicsView):
    quick_add_requested = Signal(QPointF, str)  # scene position, text typed so far
    wire_dropped = Signal(str, int, QPointF)  # src id, port, scene position
    zoom_changed = Signal(float)
    viewport_moved = Signal()

    def __init__(self, scene, push, parent=None):
        super().__init__(scene, parent)
        self.doc = scene.doc
        self.push = push  # callable(QUndoCommand)
        self.gesture = None
        self.space_down = False
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.IntersectsItemShape)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.SmartViewportUpdate)
        self.setOptimizationFlags(QGraphicsView.DontSavePainterState)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.StrongFocus)
        self.setSceneRect(QRectF(-5000, -5000, 20000, 20000))
        self.horizontalScrollBar().valueChanged.connect(self.viewport_moved)
        self.verticalScrollBar().valueChanged.connect(self.viewport_moved)
        self._hinted = None  # whether the empty-canvas hint was last drawn (see ``hint_text``)
        for signal in (self.doc.node_added, self.doc.node_removed, self.doc.flow_reset, self.doc.workspaces_changed):
            signal.connect(self.sync_hint)

    # ----- the empty canvas's hint ------------------------------------------------------------
    def hint_text(self) -> str:
        """What the canvas says when this workspace has no drawn node (else "")."""
        if any(item.isVisible() for item in self.scene().nodes.values()):
            return ""
        return EMPTY_HINT

    def sync_hint(self, *_):
        """The hint appears or goes: the whole viewport is repainted (not only the items' rects)."""
        shown = bool(self.hint_text())
        if shown != self._hinted:
            self._hinted = shown
            self.viewport().update()

    def drawForeground(self, p: QPainter, rect: QRectF) -> None:
        super().drawForeground(p, rect)
        text = self.hint_text()
        self._hinted = bool(text)
        if not text:
            return
        from gindex_studio.ui.canvas.geometry import label_font

        p.save()
        p.resetTransform()
        dark = self.scene().colors.color("background").lightness() < 128
        p.setPen(QColor(HINT_ON_DARK if dark else HINT_ON_LIGHT))
        f = QFont(label_font())
        f.setPixelSize(15)
        p.setFont(f)
        vp = self.viewport().rect().adjusted(24, 24, -24, -24)
        p.drawText(vp, Qt.AlignCenter | Qt.TextWordWrap, text)
        p.restore()

    # ----- zoom -------------------------------------------------------------------------------
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, z: float, anchor: QPointF | None = None) -> None:
        z = max(MIN_ZOOM, min(MAX_ZOOM, z))
        f = z / self.zoom()
        if anchor is not None:
            old = self.transformationAnchor()
            self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.scale(f, f)
        self.scene().set_lod(self.zoom())
        if anchor is not None:
            self.setTransformationAnchor(old)
        self.zoom_changed.emit(self.zoom())
        self.viewport_moved.emit()

    def zoom_in(self) -> None:
        self.setTransformationAnchor(QGraphicsView.AnchorViewCenter)
        self.set_zoom(self.zoom() * 1.25)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)

    def zoom_out(self) -> None:
        self.setTransformationAnchor(QGraphicsView.AnchorViewCenter)
        self.set_zoom(self.zoom() / 1.25)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)

    def zoom_reset(self) -> None:
        self.setTransformationAnchor(QGraphicsView.AnchorViewCenter)
        self.set_zoom(1.0)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)

    def fit_zoom(self, width: float, height: float) -> float:
        """The zoom ``fit`` would choose in a viewport of ``width`` × ``height`` (at most 100 %)."""
        r = self.scene().items_rect()
        if r.isNull():
            return 1.0
        r = r.adjusted(-FIT_MARGIN, -FIT_MARGIN, FIT_MARGIN, FIT_MARGIN)
        return min(width / r.width(), height / r.height(), 1.0)

    def fit(self) -> None:
        r = self.scene().items_rect()
        if r.isNull():
            self.zoom_reset()
            return
        r = r.adjusted(-FIT_MARGIN, -FIT_MARGIN, FIT_MARGIN, FIT_MARGIN)
        z = self.fit_zoom(max(self.viewport().width(), 50), max(self.viewport().height(), 50))
        self.set_zoom(z)
        self.centerOn(r.center())
        self.viewport_moved.emit()

    def moveEvent(self, e):
        """A bar appearing or going above the canvas (config nodes, find, a banner) moves the view
        within its window: the picture is scrolled by as much, so that nothing on the canvas
        moves on the screen."""
        super().moveEvent(e)
        d = e.pos() - e.oldPos()
        if self.isVisible() and self.window().isVisible() and (d.x() or d.y()):
            h, v = self.horizontalScrollBar(), self.verticalScrollBar()
            h.setValue(h.value() + d.x())
            v.setValue(v.value() + d.y())

    def wheelEvent(self, e):
        dy = e.angleDelta().y()
        if dy == 0:
            return super().wheelEvent(e)
        self.set_zoom(self.zoom() * (1.0015 ** dy))

    def center_on_node(self, node_id: str) -> None:
        item = self.scene().nodes.get(node_id)
        if item is not None:
            self.centerOn(item)
            self.viewport_moved.emit()

    # ----- gestures ---------------------------------------------------------------------------
    def item_at(self, pos) -> NodeItem | WireItem | None:
        """The topmost node or wire under viewport point ``pos``. Items that take no mouse button
        (selection halos, overlays, the gesture's temporary wire) are looked through."""
        for item in self.items(pos):
            if isinstance(item, (NodeItem, WireItem)) and item.isVisible():
                return item
        return None

    def mousePressEvent(self, e):
        if e.button() == Qt.MiddleButton or (e.button() == Qt.LeftButton and self.space_down):
            self.gesture = PanGesture(self, e)
            e.accept()
            return
        if e.button() == Qt.LeftButton:
            item = self.item_at(e.position().toPoint())
            port = item.port_at(self.mapToScene(e.position().toPoint())) if isinstance(item, NodeItem) else None
            if port is not None:
                self.gesture = WireGesture(self, port)
                e.accept()
                return
            if isinstance(item, WireItem):
                self.scene().select_wire(item.key, add=bool(e.modifiers() & Qt.ControlModifier))
                e.accept()
                return
            if not e.modifiers() & Qt.ControlModifier:
                self.scene().clear_wire_selection()
            node = item if isinstance(item, NodeItem) else None
            super().mousePressEvent(e)
            if node is not None and node.isSelected():
                self.gesture = MoveGesture(self, node)
                self.gesture.begin()
            return
        super().mousePressEvent(e)

    def mouseMoveEvent(self, e):
        if isinstance(self.gesture, (PanGesture, WireGesture)):
            self.gesture.move(e)
            return
        super().mouseMoveEvent(e)
        if self.gesture is not None:
            self.gesture.move(e)

    def mouseReleaseEvent(self, e):
        g, self.gesture = self.gesture, None
        if isinstance(g, (PanGesture, WireGesture)):
            g.release(e)
            return
        super().mouseReleaseEvent(e)
        if g is not None:
            g.release(e)

    def mouseDoubleClickEvent(self, e):
        item = self.item_at(e.position().toPoint())
        if item is None:
            self.quick_add_requested.emit(self.mapToScene(e.position().toPoint()), "")
            return
        super().mouseDoubleClickEvent(e)

    # ----- keys -------------------------------------------------------------------------------
    def keyPressEvent(self, e):
        if e.key() == Qt.Key_Space and not e.isAutoRepeat():
            self.space_down = True
            self.viewport().setCursor(Qt.OpenHandCursor)
            return
        if e.key() == Qt.Key_Escape and self.gesture is not None:
            self.gesture.cancel()
            self.gesture = None
            return
        text = e.text()
        if text and text.isprintable() and not text.isspace() and not (e.modifiers() & (Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier)):
            self.quick_add_requested.emit(self.cursor_scene_pos(), text)
            return
        super().keyPressEvent(e)

    def keyReleaseEvent(self, e):
        if e.key() == Qt.Key_Space and not e.isAutoRepeat():
            self.space_down = False
            self.viewport().unsetCursor()
            return
        super().keyReleaseEvent(e)

    def cursor_scene_pos(self) -> QPointF:
        p = self.viewport().mapFromGlobal(self.cursor().pos())
        if not self.viewport().rect().contains(p):
            p = self.viewport().rect().center()
        return self.mapToScene(p)

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    # ----- drops from the palette -------------------------------------------------------------
    def dragEnterEvent(self, e):
        if e.mimeData().hasFormat(PALETTE_MIME):
            e.acceptProposedAction()
        elif e.mimeData().hasUrls():
            e.ignore()  # files: the window opens them
        else:
            super().dragEnterEvent(e)

    def dragMoveEvent(self, e):
        if e.mimeData().hasFormat(PALETTE_MIME):
            e.acceptProposedAction()
        elif e.mimeData().hasUrls():
            e.ignore()
        else:
            super().dragMoveEvent(e)

    def dropEvent(self, e):
        if e.mimeData().hasUrls() and not e.mimeData().hasFormat(PALETTE_MIME):
            e.ignore()
            return
        if e.mimeData().hasFormat(PALETTE_MIME):
            type_id = bytes(e.mimeData().data(PALETTE_MIME)).decode()
            self.type_dropped.emit(type_id, self.mapToScene(e.position().toPoint()))
            e.acceptProposedAction()
        else:
            super().dropEvent(e)

    type_dropped = Signal(str, QPointF)


PALETTE_MIME = "application/x-gindex-node-type"

#: the hint's colour on a light / dark canvas (contrast above 7:1 on either theme's background)
HINT_ON_LIGHT, HINT_ON_DARK = "#4a4a4a", "#c8c8c8"
#: shown on a canvas with no drawn node: the ways to add one
EMPTY_HINT = ("Double-click here, or start typing, to add a node\n"
              "Drag from a node's output port to empty space to add the next node, wired\n"
              "or drag a node type from the Palette")
