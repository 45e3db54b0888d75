"""One small class per mouse gesture on the canvas.

The view hands mouse events to the active gesture; a gesture ends by pushing one undo command
(or emitting a request, like quick-add after dropping a wire on empty canvas).
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from gindex_studio.ui.model import commands as cmd
from gindex_studio.ui.canvas.items import NodeItem, PortItem, WireItem, wire_path


class Gesture:
    def __init__(self, view):
        self.view = view

    @property
    def scene(self):
        return self.view.scene()

    def move(self, event) -> None:
        pass

    def release(self, event) -> None:
        pass

    def cancel(self) -> None:
        pass


class PanGesture(Gesture):
    """Drag the background with the middle button (or left with Space held)."""

    def __init__(self, view, event):
        super().__init__(view)
        self.last = event.position()
        view.viewport().setCursor(Qt.ClosedHandCursor)

    def move(self, event):
        d = event.position() - self.last
        self.last = event.position()
        h, v = self.view.horizontalScrollBar(), self.view.verticalScrollBar()
        h.setValue(h.value() - int(d.x()))
        v.setValue(v.value() - int(d.y()))

    def release(self, event):
        self.view.viewport().unsetCursor()


class WireGesture(Gesture):
    """Drag from a port; drop on a port (or node) of the other kind to wire, on empty to quick-add."""

    def __init__(self, view, port: PortItem):
        super().__init__(view)
        self.port = port
        self.start = port.scenePos()
        self.temp = QGraphicsPathItem()
        pen = QPen(QColor("#ff7f0e"), 2.5, Qt.DashLine)
        self.temp.setPen(pen)
        self.temp.setZValue(10)
        self.scene.addItem(self.temp)

    def move(self, event):
        p = self.view.mapToScene(event.position().toPoint())
        a, b = (p, self.start) if self.port.is_input else (self.start, p)
        self.temp.setPath(wire_path(a, b))

    def _target(self, scene_pos: QPointF):
        for item in self.scene.items(scene_pos):
            if isinstance(item, NodeItem) and item is not self.port.node:
                port = item.port_at(scene_pos)
                if port is not None and port.is_input != self.port.is_input:
                    return port
                if not self.port.is_input and item.input_port is not None:
                    return item.input_port
                if self.port.is_input and item.output_ports:
                    return item.output_ports[0]
        return None

    def release(self, event):
        self.cancel()
        p = self.view.mapToScene(event.position().toPoint())
        target = self._target(p)
        doc = self.view.doc
        if target is None:
            if not self.port.is_input:
                self.view.wire_dropped.emit(self.port.node.node_id, self.port.port, p)
            return
        src, dst = (target, self.port) if self.port.is_input else (self.port, target)
        s_id, port, d_id = src.node.node_id, src.port, dst.node.node_id
        if d_id in doc.node(s_id).ports[port] if port < len(doc.node(s_id).ports) else False:
            return
        self.view.push(cmd.SetWires(doc, s_id, doc.wires_with(s_id, port, d_id), f"Wire {doc.label(s_id)} → {doc.label(d_id)}"))

    def cancel(self):
        if self.temp.scene() is not None:
            self.scene.removeItem(self.temp)


class MoveGesture(Gesture):
    """Qt moves the selected items; on release the move becomes one command (or a splice)."""

    def __init__(self, view, item: NodeItem):
        super().__init__(view)
        self.item = item
        self.start = {}
        self.hot_wire: WireItem | None = None

    def begin(self):
        sc = self.scene
        self.start = {i: sc.nodes[i].pos() for i in sc.selected_node_ids()}
        if self.item.node_id not in self.start:
            self.start[self.item.node_id] = self.item.pos()

    def _splice_candidate(self) -> WireItem | None:
        if len(self.start) != 1 or self.item.wires:
            return None
        if self.item.input_port is None or not self.item.output_ports:
            return None
        for other in self.scene.items(self.item.sceneBoundingRect()):
            if isinstance(other, WireItem) and other.isVisible():
                if other.collidesWithItem(self.item):
                    return other
        return None

    def move(self, event):
        w = self._splice_candidate()
        if w is not self.hot_wire:
            if self.hot_wire is not None and self.hot_wire.scene() is not None:
                self.hot_wire.set_selected(False)
            self.hot_wire = w
            if w is not None:
                w.set_selected(True)

    def release(self, event):
        doc = self.view.doc
        moves = {}
        for i, old in self.start.items():
            item = self.scene.nodes.get(i)
            if item is None:
                continue
            new = item.pos()
            if (new - old).manhattanLength() > 0.5:
                moves[i] = (doc.stored_position(i), (new.x(), new.y()))
        wire = self._splice_candidate()
        if self.hot_wire is not None and self.hot_wire.scene() is not None:
            self.hot_wire.set_selected(False)
        if wire is not None and moves:
            self.view.push(cmd.splice(doc, self.item.node_id, wire.key, moves))
        elif moves:
            self.view.push(cmd.MoveNodes(doc, moves))
