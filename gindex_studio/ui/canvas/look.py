"""What the canvas items are told to look like: the colours of a theme (``CanvasLook``) and the
per-node overlay a view may lay on a node (``Decoration``: halo, pair badge, label, missing/extra
hatch).

Items paint overlays themselves from these values; nothing is stacked above a node or a wire, so
overlays never take the mouse. A theme supplies a different ``CanvasLook`` (``scene.set_look``).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor


@dataclass(frozen=True)
class WireStyle:
    """How a wire of one kind is stroked."""

    color: str
    dash: Qt.PenStyle
    width: float


def _wire_styles() -> dict[str, WireStyle]:
    return {
        "plain": WireStyle("#8c8c8c", Qt.SolidLine, 2.5),
        "matched": WireStyle("#2ca02c", Qt.SolidLine, 3.0),
        "missing": WireStyle("#d62728", Qt.DashLine, 2.5),
        "extra": WireStyle("#1f77b4", Qt.DotLine, 2.5),
    }


@dataclass(frozen=True)
class CanvasLook:
    """The colours of the canvas. Every item and the scene read them from here (a theme replaces
    the whole object)."""

    background: str = "#ffffff"
    grid: str = "#eeeeee"
    select: str = "#ff7f0e"
    border: str = "#888888"
    text: str = "#222222"
    #: text drawn on the canvas itself, not on a node (the compare view's ``w=1`` labels)
    canvas_text: str = "#222222"
    error: str = "#d62728"
    warning: str = "#e69500"
    port_fill: str = "#eeeeee"
    port_hover: str = "#ffd966"
    unknown_fill: str = "#d9d9d9"
    #: missing (reference only) and extra (generated only) marks
    marks: dict[str, str] = field(default_factory=lambda: {"matched": "#2ca02c", "missing": "#d62728", "extra": "#1f77b4"})
    wires: dict[str, WireStyle] = field(default_factory=_wire_styles)

    def color(self, name: str) -> QColor:
        return QColor(getattr(self, name))

    def wire(self, style: str | None) -> WireStyle:
        return self.wires.get(style or "plain", self.wires["plain"])


DEFAULT_LOOK = CanvasLook()
_CURRENT = [DEFAULT_LOOK]


def current_look() -> CanvasLook:
    """The look new canvases start with (the theme in force, see ``ui/theme.py``)."""
    return _CURRENT[0]


def set_current_look(look: CanvasLook) -> None:
    _CURRENT[0] = look


@dataclass(frozen=True)
class Badge:
    """A pair badge: a number in a coloured shape (circle, square, triangle, diamond, down,
    hexagon, star), the same on both canvases of a compare view."""

    number: int
    color: str
    shape: str = "circle"


@dataclass(frozen=True)
class Decoration:
    """An overlay on a node, painted by the node item itself.

    color: halo colour; mark: a short word drawn as a chip (``matched``/``missing``/``extra``);
    label: text above the node (``w=2/3 ≠ topic``); badge: the pair badge drawn above the node's
    top-left corner; hatch: ``missing``/``extra`` draws a hatched, dashed/dotted frame.
    """

    color: str | None = None
    mark: str | None = None
    label: str = ""
    badge: Badge | None = None
    hatch: str | None = None


_FOLLOWERS: "weakref.WeakSet" = weakref.WeakSet()


def follow_look(scene) -> None:
    """Register a scene (anything with ``set_colors(look)`` and ``views()``) to be recoloured when
    the theme changes; held weakly, so a closed window's scene simply drops out."""
    _FOLLOWERS.add(scene)


def recolour_followers(look: CanvasLook) -> None:
    """Give every live registered scene ``look`` and repaint its views. A scene whose Qt object is
    already gone (a window closed but not yet collected) is skipped, never touched."""
    for scene in list(_FOLLOWERS):
        try:
            scene.set_colors(look)
            for view in scene.views():
                view.viewport().update()
        except RuntimeError:  # its C++ object was deleted
            _FOLLOWERS.discard(scene)
