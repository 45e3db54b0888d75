"""FlowScene: graphics items that follow a FlowDocument's signals, plus an overlay API.

The scene never edits the document. Overlays for the compare view::

    scene.set_node_decoration(node_id, Decoration(color="#2ca02c", badge=Badge(3, "#E69F00", "star"),
                                                  label="w=2/3 ≠ topic", hatch=None))
    scene.set_edge_style(src, port, dst, "matched" | "missing" | "extra" | None)
    scene.set_emphasis(node_id | None)
    scene.clear_decorations()

The node and wire items paint overlays themselves, so overlays never take the mouse. Colours come
from ``scene.colors`` (a ``CanvasLook``; ``set_colors`` switches theme).

``node_selected(str)`` is emitted with the id when exactly one node is selected, "" otherwise.
"""
from __future__ import annotations

from PySide6.QtCore import QLineF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene

from gindex_studio.core.flows.flow import normalise_wires

from gindex_studio.ui.library_access import node_type_color, port_counts
from gindex_studio.ui.model.document import FlowDocument
from gindex_studio.ui.canvas import geometry as g
from gindex_studio.ui.canvas.items import BADGE, NodeItem, NodeLook, WireItem
from gindex_studio.ui.canvas.look import CanvasLook, Decoration, current_look, follow_look
from gindex_studio.ui.canvas.marks import paint_badge

LOW_LOD = 0.3


class FlowScene(QGraphicsScene):
    node_selected = Signal(str)
    selection_ids_changed = Signal(list)

    def __init__(self, doc: FlowDocument, parent=None):
        super().__init__(parent)
        self.doc = doc
        self.nodes: dict[str, NodeItem] = {}
        self.wires: dict[tuple[str, int, str], WireItem] = {}
        self.workspace: str | None = None  # None: show every workspace
        self.colors: CanvasLook = current_look()
        self._emphasised: str | None = None
        self.snap_to_grid = True
        self.show_grid = True
        self._decorations: dict[str, Decoration] = {}
        self._edge_styles: dict[tuple, str] = {}
        self.setItemIndexMethod(QGraphicsScene.BspTreeIndex)
        follow_look(self)
        doc.node_added.connect(self._on_node_added)
        doc.node_removed.connect(self._on_node_removed)
        doc.node_changed.connect(self._on_node_changed)
        doc.node_moved.connect(self._on_node_moved)
        doc.wires_changed.connect(self._on_wires_changed)
        doc.flow_reset.connect(self.rebuild)
        doc.problems_changed.connect(self._on_problems)
        self.selectionChanged.connect(self._on_selection)
        self.lod = 1.0  # the view's zoom, read by node items when painting
        self.low_detail = False  # far zoom: nodes are drawn in one batch (drawForeground)
        self.batch_dirty = True
        self._batch = None
        doc.changed.connect(self._mark_batch)
        self.selectionChanged.connect(self._mark_batch)
        self._wire_selection: set[tuple[str, int, str]] = set()
        self.rebuild()

    # ----- building ---------------------------------------------------------------------------
    def look(self, node_id: str, problems=None) -> NodeLook:
        doc = self.doc
        n = doc.node(node_id)
        lib = doc.library
        nt = lib.get(n.type)
        ins, outs = port_counts(lib, n)
        if problems is None:
            problems = doc.problems_by_node().get(node_id, [])
        label = doc.label(node_id)
        glyph = (getattr(nt, "label", "") or n.type)[:1].upper() if nt is not None else "?"
        return NodeLook(
            label=label,
            type=n.type,
            color=node_type_color(lib, n.type),
            inputs=ins,
            outputs=outs,
            glyph=glyph,
            problems=tuple((p.kind, p.message) for p in problems),
            unknown=nt is None,
            category=getattr(nt, "category", "") if nt is not None else "",
        )

    def rebuild(self) -> None:
        self.batch_dirty = True
        for item in list(self.wires.values()):
            self.removeItem(item)
        for item in list(self.nodes.values()):
            self.removeItem(item)
        self.nodes.clear()
        self.wires.clear()
        by_node = self.doc.problems_by_node()
        for i in self.doc.drawn_ids():
            self._make_node(i, by_node.get(i, []))
        for i in self.nodes:
            self._make_wires(i)
        self._apply_workspace()

    def _make_node(self, node_id: str, problems=None) -> NodeItem:
        item = NodeItem(node_id, self.look(node_id, problems), self.colors)
        item.lod_source = self
        if self.low_detail:
            item.setFlag(NodeItem.ItemHasNoContents, True)
        item.set_model_pos(*self.doc.position(node_id))
        item.snap_to_grid = self.snap_to_grid
        if node_id in self._decorations:
            item.set_decoration(self._decorations[node_id])
        item.set_emphasis(node_id == self._emphasised)
        self.addItem(item)
        self.nodes[node_id] = item
        return item

    def _make_wires(self, src: str) -> None:
        """(Re)draw the wires leaving ``src``: found through its item (every wire is on both of its
        ends' items), not by a pass over all wires (20 s for a 20,000-node flow)."""
        item = self.nodes.get(src)
        node = self.doc.node(src)
        if item is not None:
            for key in [w.key for w in item.wires if w.src is item]:
                self._drop_wire(key)
        if node is None or item is None:
            return
        for port, targets in enumerate(normalise_wires(node.data.get("wires"))):
            for dst in targets:
                if dst in self.nodes and (src, port, dst) not in self.wires:
                    item = WireItem(self.nodes[src], port, self.nodes[dst], self.colors)
                    self.nodes[src].wires.add(item)
                    self.nodes[dst].wires.add(item)
                    self.addItem(item)
                    self.wires[(src, port, dst)] = item
                    style = self._edge_styles.get((src, port, dst), self._edge_styles.get((src, None, dst)))
                    if style:
                        item.set_style(style)
                    self._wire_visibility(item)

    def _drop_wire(self, key) -> None:
        self._wire_selection.discard(key)
        item = self.wires.pop(key)
        item.src.wires.discard(item)
        item.dst.wires.discard(item)
        self.removeItem(item)

    # ----- following the document -------------------------------------------------------------
    def _on_node_added(self, node_id: str) -> None:
        if not self.doc.is_drawn(node_id):
            return
        if node_id in self.nodes:
            self._on_node_removed(node_id)
        item = self._make_node(node_id)
        item.setVisible(self._in_workspace(node_id))
        self._make_wires(node_id)
        for other in self.doc.node_ids():  # wires that pointed at it can now be drawn
            n = self.doc.node(other)
            if other != node_id and any(node_id in p for p in n.ports):
                self._make_wires(other)

    def _on_node_removed(self, node_id: str) -> None:
        item = self.nodes.pop(node_id, None)
        if item is None:
            return
        for w in list(item.wires):
            self._drop_wire(w.key)
        self.removeItem(item)

    def _on_node_changed(self, node_id: str) -> None:
        item = self.nodes.get(node_id)
        if item is None:
            if self.doc.is_drawn(node_id):
                self._on_node_added(node_id)
            return
        if not self.doc.is_drawn(node_id):
            self._on_node_removed(node_id)
            return
        item.set_look(self.look(node_id))
        item.setVisible(self._in_workspace(node_id))
        for w in item.wires:
            w.update_path()
            self._wire_visibility(w)

    def _on_node_moved(self, node_id: str) -> None:
        item = self.nodes.get(node_id)
        if item is not None:
            item.set_model_pos(*self.doc.position(node_id))

    def _on_wires_changed(self, node_id: str) -> None:
        item = self.nodes.get(node_id)
        if item is None:
            return
        look = self.look(node_id)
        if look != item.look:
            item.set_look(look)
        self._make_wires(node_id)

    def _on_problems(self) -> None:
        by_node = self.doc.problems_by_node()
        for i, item in self.nodes.items():
            probs = tuple((p.kind, p.message) for p in by_node.get(i, ()))
            if probs != item.look.problems:
                item.set_look(self.look(i, by_node.get(i, [])))

    # ----- workspaces -------------------------------------------------------------------------
    def set_workspace(self, z: str | None) -> None:
        self.batch_dirty = True
        self.workspace = z
        self._apply_workspace()

    def _in_workspace(self, node_id: str) -> bool:
        return self.workspace is None or self.doc.workspace_of(node_id) == self.workspace

    def _apply_workspace(self) -> None:
        for i, item in self.nodes.items():
            vis = self._in_workspace(i)
            item.setVisible(vis)
            if not vis:
                item.setSelected(False)
        for w in self.wires.values():
            self._wire_visibility(w)

    def _wire_visibility(self, w: WireItem) -> None:
        w.setVisible(w.src.isVisible() and w.dst.isVisible())

    def visible_ids(self) -> list[str]:
        return [i for i, item in self.nodes.items() if item.isVisible()]

    def items_rect(self) -> QRectF:
        r = QRectF()
        for item in self.nodes.values():
            if item.isVisible():
                r = r.united(item.sceneBoundingRect())
        return r

    # ----- selection --------------------------------------------------------------------------
    def selected_node_ids(self) -> list[str]:
        """Selected nodes in file order."""
        chosen = {i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)}
        return [i for i in self.doc.node_ids() if i in chosen]

    def selected_wires(self) -> list[tuple[str, int, str]]:
        return [k for k in self.wires if k in self._wire_selection]

    def select_wire(self, key, add: bool = False) -> None:
        """Select a wire (clicking it); without ``add`` everything else is deselected."""
        if not add:
            self.clear_wire_selection()
            self.clearSelection()
        if key in self.wires:
            self._wire_selection.add(key)
            self.wires[key].set_selected(True)

    def clear_wire_selection(self) -> None:
        for k in self._wire_selection:
            if k in self.wires:
                self.wires[k].set_selected(False)
        self._wire_selection.clear()

    def select_nodes(self, ids) -> None:
        ids = set(ids)
        self.blockSignals(True)
        self.clearSelection()
        for i in ids:
            if i in self.nodes:
                self.nodes[i].setSelected(True)
        self.blockSignals(False)
        self._on_selection()

    def _on_selection(self) -> None:
        ids = self.selected_node_ids()
        self.selection_ids_changed.emit(ids)
        self.node_selected.emit(ids[0] if len(ids) == 1 else "")

    def set_snap(self, on: bool) -> None:
        self.snap_to_grid = on
        for item in self.nodes.values():
            item.snap_to_grid = on

    # ----- overlay API (compare view) ---------------------------------------------------------
    def set_node_decoration(self, node_id: str, deco: Decoration | None) -> None:
        self.batch_dirty = True
        if deco is None:
            self._decorations.pop(node_id, None)
        else:
            self._decorations[node_id] = deco
        if node_id in self.nodes:
            self.nodes[node_id].set_decoration(deco)

    def set_edge_style(self, src: str, port: int | None, dst: str, style: str | None) -> None:
        """Style one wire (``port`` None: every wire from src to dst)."""
        key = (src, port, dst)
        if style is None:
            self._edge_styles.pop(key, None)
        else:
            self._edge_styles[key] = style
        for k, item in self.wires.items():
            if k[0] == src and k[2] == dst and (port is None or k[1] == port):
                item.set_style(style)

    def set_emphasis(self, node_id: str | None) -> None:
        """Ring one node (the partner of what is hovered on the other canvas); None: no ring."""
        old = self.nodes.get(self._emphasised) if self._emphasised else None
        if old is not None:
            old.set_emphasis(False)
        self._emphasised = node_id
        item = self.nodes.get(node_id) if node_id else None
        if item is not None:
            item.set_emphasis(True)

    def emphasised(self) -> str | None:
        return self._emphasised

    def decoration(self, node_id: str) -> Decoration | None:
        return self._decorations.get(node_id)

    def set_colors(self, colors: CanvasLook) -> None:
        """Switch theme: every item repaints in ``colors``."""
        self.colors = colors
        for item in self.nodes.values():
            item.set_colors(colors)
        for item in self.wires.values():
            item.set_colors(colors)
        self.batch_dirty = True
        self.update()

    def clear_decorations(self) -> None:
        self.batch_dirty = True
        self._decorations.clear()
        self._edge_styles.clear()
        self.set_emphasis(None)
        for item in self.nodes.values():
            if item.decoration is not None:
                item.set_decoration(None)
        for item in self.wires.values():
            if item.style is not None:
                item.set_style(None)

    # ----- level of detail --------------------------------------------------------------------
    def set_lod(self, zoom: float) -> None:
        """Called by the view on zoom: below LOW_LOD nodes are painted as one batch of blocks."""
        self.lod = zoom
        low = zoom < LOW_LOD
        if low != self.low_detail:
            self.low_detail = low
            for item in self.nodes.values():
                item.setFlag(NodeItem.ItemHasNoContents, low)
            self.batch_dirty = True
            self.update()

    def _mark_batch(self, *_):
        self.batch_dirty = True

    def _build_batch(self):
        fills: dict[str, list] = {}
        selected, status, deco, badges = [], [], [], []
        for item in self.nodes.values():
            if not item.isVisible():
                continue
            r = item.scene_body()
            fills.setdefault(item.look.color, []).append(r)
            if item.isSelected():
                selected.append(r.adjusted(-8, -8, 8, 8))
            if item._status:
                status.append((QRectF(r.right() - 14, r.top() - 8, 20, 20), item._status_color))
            d = item.decoration
            if d is not None and d.hatch:
                deco.append((r.adjusted(-10, -10, 10, 10), self.colors.marks.get(d.hatch, d.color or "#555555")))
            elif d is not None and d.color:
                deco.append((r.adjusted(-10, -10, 10, 10), d.color))
            if d is not None and d.badge is not None:
                s = BADGE * 1.6
                badges.append((QRectF(r.left(), r.top() - s - 4, s, s), d.badge))
        return [(QColor(c), rs) for c, rs in fills.items()], selected, status, deco, badges

    def drawForeground(self, p: QPainter, rect: QRectF) -> None:
        if not self.low_detail or not self.nodes:
            return
        if self.batch_dirty or self._batch is None:
            self._batch = self._build_batch()
            self.batch_dirty = False
        fills, selected, status, deco, badges = self._batch
        p.setPen(Qt.NoPen)
        for r, color in deco:
            p.fillRect(r, QColor(color))
        if selected:
            p.setBrush(self.colors.color("select"))
            p.drawRects(selected)
        for color, rs in fills:
            p.setBrush(color)
            p.drawRects(rs)
        for r, color in status:
            p.fillRect(r, color)
        for r, badge in badges:
            paint_badge(p, r, badge)
        if self._emphasised in self.nodes:
            p.setPen(QPen(QColor("#000000"), 3 / max(self.lod, 0.01), Qt.DashLine))
            p.setBrush(Qt.NoBrush)
            p.drawRect(self.nodes[self._emphasised].scene_body().adjusted(-14, -14, 14, 14))

    # ----- background -------------------------------------------------------------------------
    def drawBackground(self, p: QPainter, rect: QRectF) -> None:
        p.fillRect(rect, self.colors.color("background"))
        if not self.show_grid:
            return
        scale = p.worldTransform().m11()
        step = g.GRID
        while step * scale < 8:
            step *= 5
        left = int(rect.left() // step) * step
        top = int(rect.top() // step) * step
        pen = QPen(self.colors.color("grid"), 0)
        p.setPen(pen)
        lines = []

        x = left
        while x < rect.right():
            lines.append(QLineF(x, rect.top(), x, rect.bottom()))
            x += step
        y = top
        while y < rect.bottom():
            lines.append(QLineF(rect.left(), y, rect.right(), y))
            y += step
        p.drawLines(lines)
