"""Light and dark themes: one place that decides the widget palette and the canvas colours.

``apply_theme(mode)`` with ``mode`` in ``"light"``, ``"dark"``, ``"system"`` sets the application's
Fusion palette and gives every canvas (``FlowScene``) the matching ``CanvasLook``; new canvases
take ``current_look()``. The wire and mark colours of both looks are the Okabe–Ito / tab10 hues
the light look already uses for matched / missing / extra (told apart by dash pattern too), so
the colour-blind safe mapping holds on either background.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from gindex_studio.ui.canvas.look import DEFAULT_LOOK, CanvasLook, recolour_followers, set_current_look

MODES = ("system", "light", "dark")

#: the dark canvas: node fills keep their library colours (their labels stay dark on them)
DARK_LOOK: CanvasLook = replace(
    DEFAULT_LOOK,
    background="#1f2124",
    grid="#2c2f33",
    border="#15171a",
    port_fill="#d0d0d0",
    unknown_fill="#9e9e9e",
)

_state = {"dark": False}


def system_is_dark() -> bool:
    """True when the desktop asks for a dark colour scheme (Qt ≥ 6.5 knows; else the palette)."""
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if scheme is not None:
        s = scheme()
        if s == Qt.ColorScheme.Dark:
            return True
        if s == Qt.ColorScheme.Light:
            return False
    app = QGuiApplication.instance()
    return bool(app) and app.palette().color(QPalette.Window).lightness() < 128


def is_dark() -> bool:
    return _state["dark"]


def current_look() -> CanvasLook:
    """The canvas colours of the theme in force."""
    return DARK_LOOK if _state["dark"] else DEFAULT_LOOK


def dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor("#2b2d30"), QColor("#1f2124"), QColor("#e6e6e6")
    for role, color in (
        (QPalette.Window, window), (QPalette.WindowText, text), (QPalette.Base, base),
        (QPalette.AlternateBase, QColor("#2f3236")), (QPalette.ToolTipBase, QColor("#3a3d41")),
        (QPalette.ToolTipText, text), (QPalette.Text, text), (QPalette.Button, QColor("#35383c")),
        (QPalette.ButtonText, text), (QPalette.BrightText, QColor("#ff6b6b")),
        (QPalette.Highlight, QColor("#3d7bd9")), (QPalette.HighlightedText, QColor("#ffffff")),
        (QPalette.Link, QColor("#6fa8ff")), (QPalette.PlaceholderText, QColor("#8a8d91")),
        (QPalette.Mid, QColor("#4a4d52")), (QPalette.Dark, QColor("#151719")), (QPalette.Light, QColor("#4f5358")),
        (QPalette.Midlight, QColor("#404348")), (QPalette.Shadow, QColor("#000000")),
    ):
        p.setColor(role, color)
    dim = QColor("#7a7d82")
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        p.setColor(QPalette.Disabled, role, dim)
    return p


def apply_theme(mode: str = "system") -> bool:
    """Apply ``mode``; returns True when the result is dark. Repaints every open canvas.

    Following a light system leaves the platform's style and palette alone; dark (asked for, or
    the system's) and a light theme on a dark system use Fusion with our palette, the one style
    that draws every palette role, so no panel keeps light-only colours."""
    app = QApplication.instance()
    system_dark = system_is_dark() if app is not None else False
    dark = system_dark if mode == "system" else mode == "dark"
    _state["dark"] = dark
    set_current_look(current_look())
    if app is None:
        return dark
    if "system_palette" not in _state:
        _state["system_palette"] = QPalette(app.palette())
        _state["system_style"] = app.style().name()
    if dark or system_dark:
        if "fusion" not in app.style().name().lower():
            app.setStyle("Fusion")
        app.setPalette(dark_palette() if dark else app.style().standardPalette())
    else:
        if app.style().name() != _state["system_style"]:
            app.setStyle(_state["system_style"])
        app.setPalette(_state["system_palette"])
    # only scenes that registered: walking app.allWidgets() reached views of windows being torn
    # down and crashed in scene()
    recolour_followers(current_look())
    return dark


def error_color() -> str:
    """Red for error text that reads on the current background."""
    return "#ff6b6b" if _state["dark"] else "#c62828"


def warning_color() -> str:
    return "#ffb74d" if _state["dark"] else "#b26a00"


def code_colors() -> dict[str, str]:
    """Syntax colours for the code editors, readable on the theme's text background."""
    if _state["dark"]:
        return {"keyword": "#c792ea", "name": "#82aaff", "number": "#f78c6c", "string": "#c3e88d", "comment": "#9aa0a6"}
    return {"keyword": "#7b1fa2", "name": "#1a56a8", "number": "#a0451a", "string": "#2e7d32", "comment": "#6a6a6a"}
