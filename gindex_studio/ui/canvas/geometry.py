"""Sizes and port positions of drawn nodes (Node-RED proportions), in item coordinates.

A node item's origin is the node's centre (Node-RED's ``x``, ``y``).
"""
from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFont, QFontMetricsF

GRID = 20
NODE_H = 30.0
ICON_W = 30.0
PORT = 10.0
PORT_STEP = 15.0
MIN_W = 100.0
MAX_W = 320.0
PAD = 12.0
STATUS_H = 16.0


@lru_cache(maxsize=1)
def label_font() -> QFont:
    f = QFont()
    f.setFamilies(["DejaVu Sans", "Helvetica", "Arial", "sans-serif"])
    f.setPixelSize(13)
    return f


@lru_cache(maxsize=1)
def small_font() -> QFont:
    f = QFont(label_font())
    f.setPixelSize(11)
    return f


#: status text under a node is drawn at least this many pixels tall on the screen (zoomed out it
#: grows in the scene), up to ``STATUS_MAX_SCALE`` times its size at 100 %
STATUS_MIN_PX = 9.5
STATUS_MAX_SCALE = 1.6


def status_scale(zoom: float) -> float:
    """How much larger than ``small_font`` a node's status line is drawn at ``zoom``."""
    px = small_font().pixelSize()
    return min(STATUS_MAX_SCALE, max(1.0, STATUS_MIN_PX / (px * max(zoom, 1e-3))))


def status_step(zoom: float) -> float:
    """``status_scale`` rounded to a tenth: node items change size only when this does."""
    return round(status_scale(zoom) * 10) / 10


@lru_cache(maxsize=64)
def status_font(scale: float) -> QFont:
    """``small_font`` times ``scale`` (a ``status_step``)."""
    f = QFont(small_font())
    f.setPixelSize(max(1, round(small_font().pixelSize() * scale)))
    return f


@lru_cache(maxsize=1)
def glyph_font() -> QFont:
    f = QFont(label_font())
    f.setPixelSize(14)
    f.setBold(True)
    return f


@lru_cache(maxsize=1)
def _metrics() -> QFontMetricsF:
    return QFontMetricsF(label_font())


@lru_cache(maxsize=4096)
def text_width(text: str) -> float:
    return _metrics().horizontalAdvance(text)


def node_size(label: str, outputs: int) -> tuple[float, float]:
    """(width, height) of a node showing ``label`` with ``outputs`` output ports."""
    w = min(MAX_W, max(MIN_W, ICON_W + PAD + text_width(label) + PAD + (PORT / 2)))
    h = max(NODE_H, PORT_STEP * outputs + 6.0)
    return w, h


def body_rect(w: float, h: float) -> QRectF:
    return QRectF(-w / 2, -h / 2, w, h)


def input_port_pos(w: float, h: float) -> QPointF:
    """Centre of the input port (on the left edge)."""
    return QPointF(-w / 2, 0.0)


def output_port_pos(w: float, h: float, port: int, outputs: int) -> QPointF:
    """Centre of output ``port`` (ports spread evenly down the right edge)."""
    if outputs <= 1:
        return QPointF(w / 2, 0.0)
    top = -(outputs - 1) * PORT_STEP / 2
    return QPointF(w / 2, top + port * PORT_STEP)


def snap(v: float, grid: int = GRID) -> float:
    return round(v / grid) * grid
