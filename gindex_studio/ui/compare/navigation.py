"""Stepping through the differences (F8, Shift+F8, the list): each step selects exactly the
difference it shows, nothing left from earlier steps, so that Delete removes only that.

- attributes: the pair, one node on each side;
- missing/extra node: that node, on its side only;
- missing/extra wire: that wire, on its side only (its end nodes are brought into view, not
  selected); the other side shows the partners of its end nodes, unselected.
"""
from __future__ import annotations

from gindex_studio.ui.compare.panel import Difference


def reveal(view, rect, margin: int = 80) -> None:
    """Bring scene ``rect`` into ``view``: nothing moves when it is already wholly in view (a
    fitted program stays fitted); else it is scrolled in, ``margin`` px from the edges when the
    view has room for that, centred when it has not."""
    if view.visible_scene_rect().contains(rect):
        return
    vp = view.viewport()
    z = view.zoom()
    if rect.width() * z + 2 * margin <= vp.width() and rect.height() * z + 2 * margin <= vp.height():
        view.ensureVisible(rect, margin, margin)
    else:
        view.centerOn(rect.center())


def wires_of(scene, edge: list) -> list[tuple[str, int, str]]:
    """The drawn wires a core edge ([src, dst] or [src, port, dst]) stands for."""
    src, dst = edge[0], edge[-1]
    port = edge[1] if len(edge) == 3 else None
    return [k for k in scene.wires if k[0] == src and k[2] == dst and port in (None, k[1])]


def show_difference(editors: dict, d: Difference) -> str | None:
    """Select ``d`` on the canvases and bring it into view. Returns the side the selection is on
    (the side Delete should act on), or None (a syntax difference selects nothing)."""
    edge_side = None
    if d.kind == "missing-edge":
        edge_side = "reference"
    elif d.kind == "extra-edge":
        edge_side = "generated"
    active = None
    for role, ids in (("reference", d.reference), ("generated", d.generated)):
        ed = editors[role]
        sc = ed.scene
        sc.clear_wire_selection()
        drawn = [i for i in ids if ed.doc.has(i) and ed.doc.is_drawn(i)]
        if not drawn:
            sc.select_nodes([])
            continue
        ed.show_workspace(ed.doc.workspace_of(drawn[0]))
        if d.edge is not None:
            sc.select_nodes([])
            if role == edge_side:
                for key in wires_of(sc, d.edge):
                    sc.select_wire(key, add=True)
                active = role
        else:
            sc.select_nodes(drawn[:1])
            active = active or role
        rect = sc.nodes[drawn[0]].sceneBoundingRect()
        for i in drawn[1:]:
            rect = rect.united(sc.nodes[i].sceneBoundingRect())
        reveal(ed.view, rect)
    return active
