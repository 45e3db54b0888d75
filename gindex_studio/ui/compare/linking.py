"""Following the user's eye across the two canvases: hovering a node rings its partner on the other
side, and (when linked) zoom and scroll of one canvas carry over to the other."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF

from gindex_studio.ui.canvas.items import NodeItem
from gindex_studio.ui.compare.model import SIDES, other_side
from gindex_studio.ui.compare.navigation import reveal


class HoverRing(QObject):
    """Watches both viewports; the partner of the node under the mouse gets the ring."""

    def __init__(self, model, editors: dict, linked, parent=None):
        super().__init__(parent)
        self.model, self.editors, self.linked = model, editors, linked
        self.hovered: dict[str, str | None] = {r: None for r in SIDES}
        for ed in editors.values():
            ed.view.viewport().installEventFilter(self)
            ed.view.viewport().setMouseTracking(True)

    def eventFilter(self, obj, ev):
        t = ev.type()
        if t in (QEvent.MouseMove, QEvent.Leave):
            for role, ed in self.editors.items():
                if obj is ed.view.viewport():
                    nid = None
                    if t == QEvent.MouseMove:
                        item = ed.view.item_at(ev.position().toPoint())
                        nid = item.node_id if isinstance(item, NodeItem) else None
                    self.hover(role, nid)
        return False

    def hover(self, role: str, node_id: str | None) -> None:
        if self.hovered[role] == node_id:
            return
        self.hovered[role] = node_id
        other = other_side(role)
        partner = self.model.partner(role, node_id) if node_id else None
        ed = self.editors[other]
        ed.scene.set_emphasis(partner)
        if partner and partner in ed.scene.nodes and not self.linked():
            reveal(ed.view, ed.scene.nodes[partner].sceneBoundingRect(), 40)


class ViewLink:
    """Linked zoom and scroll: the generated canvas keeps the offset it had when linking began."""

    def __init__(self, editors: dict):
        self.editors = editors
        self.on = False
        self.syncing = False
        self.offset = QPointF()
        for role, ed in editors.items():
            ed.view.viewport_moved.connect(lambda r=role: self._moved(r))

    def center(self, role: str) -> QPointF:
        v = self.editors[role].view
        return v.mapToScene(v.viewport().rect().center())

    def set_on(self, on: bool) -> None:
        self.on = on
        if on:
            self.syncing = True
            try:
                self.editors["generated"].view.set_zoom(self.editors["reference"].view.zoom())
            finally:
                self.syncing = False
            self.relink()

    def relink(self) -> None:
        if self.on:
            self.offset = self.center("generated") - self.center("reference")

    def _moved(self, role: str) -> None:
        if not self.on or self.syncing:
            return
        src, dst = self.editors[role].view, self.editors[other_side(role)].view
        self.syncing = True
        try:
            if abs(dst.zoom() - src.zoom()) > 1e-9:
                dst.set_zoom(src.zoom())
            off = self.offset if role == "reference" else -self.offset
            dst.centerOn(self.center(role) + off)
        finally:
            self.syncing = False
