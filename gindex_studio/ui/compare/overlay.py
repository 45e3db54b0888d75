"""Drawing a score result on the two canvases, readable without colour.

Every mapped pair gets a number, a hue and a shape (the same on both sides); missing and extra nodes
get a hatch and a dashed/dotted frame; matched, missing and extra wires differ by dash pattern as
well as hue. All of it goes through the scene's overlay API (``Decoration``, ``set_edge_style``,
``set_emphasis``) and is painted by the node and wire items themselves, so the marks never take the
mouse from the canvas.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from gindex_studio.core.scoring.divergence import ScoreResult

from gindex_studio.ui.canvas import geometry as g
from gindex_studio.ui.canvas.look import DEFAULT_LOOK, Badge, Decoration
from gindex_studio.ui.canvas.marks import FRAME, HATCH, paint_badge

#: pair hues: Okabe-Ito and Tol colours minus the red and blue used for missing/extra
PAIR_COLORS = ["#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442", "#882255", "#44AA99", "#999933", "#332288"]
#: shapes cycle with a different period (7) than hues (9): 63 distinct (hue, shape) badges
SHAPES = ["circle", "square", "triangle", "diamond", "down", "hexagon", "star"]


def pair_style(k: int) -> Badge:
    """Badge of the k-th pair (0-based)."""
    return Badge(k + 1, PAIR_COLORS[k % len(PAIR_COLORS)], SHAPES[k % len(SHAPES)])


def pair_label(pair) -> str:
    """``w=1`` or ``w=2/3 ≠ topic, payload`` for a mapped pair."""
    if pair.w >= 1:
        return "w=1"
    keys = ", ".join(pair.differing_keys)
    return f"w={pair.w_exact} ≠ {keys}" if keys else f"w={pair.w_exact}"


def styles_for(result: ScoreResult, reference_order: list[str]) -> dict[str, Badge]:
    """Reference id → pair badge, numbered in the reference file's order."""
    rank = {nid: k for k, nid in enumerate(reference_order)}
    pairs = sorted(result.mapping, key=lambda p: rank.get(p.reference, len(rank)))
    return {p.reference: pair_style(k) for k, p in enumerate(pairs)}


class Overlay:
    """The marks of one score result on one editor's scene (``side``: reference or generated)."""

    def __init__(self, editor, side: str):
        self.editor = editor
        self.side = side

    @property
    def scene(self):
        return self.editor.scene

    def clear(self) -> None:
        self.scene.clear_decorations()

    def apply(self, result: ScoreResult, styles: dict[str, Badge]) -> None:
        """Draw ``result``; ``styles``: reference id → the pair's badge."""
        sc = self.scene
        emphasised = sc.emphasised()
        sc.clear_decorations()
        ref = self.side == "reference"
        for pair in result.mapping:
            nid = pair.reference if ref else pair.generated
            badge = styles[pair.reference]
            sc.set_node_decoration(nid, Decoration(color=badge.color, badge=badge, label=pair_label(pair)))
        kind = "missing" if ref else "extra"
        for nid in (result.missing_nodes if ref else result.extra_nodes):
            sc.set_node_decoration(nid, Decoration(hatch=kind, mark=kind))
        for r_edge, g_edge in result.matched_edges:
            self._edge(r_edge if ref else g_edge, "matched")
        for e in (result.missing_edges if ref else result.extra_edges):
            self._edge(e, kind)
        sc.set_emphasis(emphasised)

    def _edge(self, e: list, style: str) -> None:
        if len(e) == 3:
            self.scene.set_edge_style(e[0], e[1], e[2], style)
        else:
            self.scene.set_edge_style(e[0], None, e[1], style)

    def emphasise(self, nid: str | None) -> None:
        """Ring one node (the partner of what is hovered); None removes the ring."""
        self.scene.set_emphasis(nid)

    # ----- what is drawn (for tests and scripts) ------------------------------------------------
    def drawn_pairs(self) -> dict[str, int]:
        """Node id → pair number of every pair badge drawn on this canvas (what a user sees)."""
        return {nid: it.decoration.badge.number for nid, it in self.scene.nodes.items()
                if it.decoration is not None and it.decoration.badge is not None}

    def drawn_marks(self, kind: str) -> set[str]:
        """Ids of the nodes drawn with the ``missing`` or ``extra`` hatch."""
        return {nid for nid, it in self.scene.nodes.items() if it.decoration is not None and it.decoration.hatch == kind}

    def drawn_label(self, nid: str) -> str:
        item = self.scene.nodes.get(nid)
        return item.decoration.label if item is not None and item.decoration is not None else ""


# ----- legend ------------------------------------------------------------------------------------


class Legend(QWidget):
    """What the marks mean: pair badges, missing/extra hatches, the three wire styles. The entries
    flow onto as many rows as the width needs (the score column is narrow on a laptop)."""

    ROW = 22
    GAP = 14
    NOTE = "w = share of equal attributes;  ≠ lists the attributes that differ"
    ENTRIES = (("pairs", "mapped pair (alike on both sides)"), ("missing", "missing (reference only)"),
               ("extra", "extra (generated only)"), ("wire:matched", "matched wire"),
               ("wire:missing", "missing wire"), ("wire:extra", "extra wire"))

    def __init__(self, parent=None):
        super().__init__(parent)
        sp = QSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        sp.setHeightForWidth(True)
        self.setSizePolicy(sp)
        self.setMinimumWidth(200)

    @staticmethod
    def _glyph_width(kind: str) -> float:
        return 80.0 if kind == "pairs" else 33.0

    def _placed(self, width: float) -> tuple[list[tuple[str, str, float, float]], float]:
        """(kind, word, x, y) of each entry for ``width``, and the note's y."""
        fm = QFontMetricsF(g.small_font())
        out, x, y = [], 4.0, 4.0
        for kind, word in self.ENTRIES:
            w = self._glyph_width(kind) + fm.horizontalAdvance(word)
            if x > 4.0 and x + w > width - 4:
                x, y = 4.0, y + self.ROW
            out.append((kind, word, x, y))
            x += w + self.GAP
        return out, y + self.ROW

    def _note_rect(self, width: float, top: float) -> QRectF:
        fm = QFontMetricsF(g.small_font())
        r = fm.boundingRect(QRectF(4, top, max(width - 8, 50), 200), Qt.TextWordWrap, self.NOTE)
        return QRectF(4, top, max(width - 8, 50), max(r.height(), fm.height()) + 4)

    def heightForWidth(self, width: int) -> int:
        _placed, top = self._placed(width)
        return int(self._note_rect(width, top).bottom() + 4)

    def hasHeightForWidth(self) -> bool:
        return True

    def sizeHint(self):
        return QSize(320, self.heightForWidth(320))

    def minimumSizeHint(self):
        return QSize(200, self.heightForWidth(self.width() or 320))

    def resizeEvent(self, e):
        super().resizeEvent(e)
        h = self.heightForWidth(self.width())
        if self.minimumHeight() != h:
            self.setFixedHeight(h)

    def paintEvent(self, _e):
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.setFont(g.small_font())
        placed, top = self._placed(self.width())
        for kind, word, x, y in placed:
            if kind == "pairs":
                for k in range(4):
                    paint_badge(p, QRectF(x + 20 * k, y + 2, 16, 16), pair_style(k))
            elif kind.startswith("wire:"):
                ws = DEFAULT_LOOK.wire(kind[5:])
                pen = QPen(QColor(ws.color), ws.width)
                pen.setStyle(ws.dash)
                p.setPen(pen)
                p.drawLine(QPointF(x, y + self.ROW / 2), QPointF(x + 28, y + self.ROW / 2))
            else:
                color = QColor(DEFAULT_LOOK.marks[kind])
                p.setPen(QPen(color, 1.5, FRAME[kind]))
                p.setBrush(QBrush(color, HATCH[kind]))
                p.drawRoundedRect(QRectF(x, y + 3, 28, 15), 3, 3)
            p.setPen(self.palette().windowText().color())  # the theme's text colour
            p.drawText(QRectF(x + self._glyph_width(kind), y, 400, self.ROW), Qt.AlignVCenter, word)
        p.drawText(self._note_rect(self.width(), top), Qt.TextWordWrap, self.NOTE)
        p.end()
