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
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle

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
    canvas_text="#e6e6e6",
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


class OutlinedIndicators(QProxyStyle):
    """Fusion, with check boxes outlined in the text colour's mid tone: Fusion outlines them in a
    shade darker than the window, which vanishes on a dark one."""

    def drawPrimitive(self, element, option, painter, widget=None):
        super().drawPrimitive(element, option, painter, widget)
        if element in (QStyle.PE_IndicatorCheckBox, QStyle.PE_IndicatorItemViewItemCheck):
            painter.save()
            painter.setPen(option.palette.placeholderText().color())
            painter.setBrush(Qt.NoBrush)
            painter.drawRoundedRect(option.rect.adjusted(0, 0, -1, -1), 2, 2)
            painter.restore()


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
        (QPalette.Link, QColor("#6fa8ff")), (QPalette.PlaceholderText, QColor("#a0a3a8")),
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
        if not isinstance(app.style(), OutlinedIndicators):
            app.setStyle(OutlinedIndicators("Fusion"))
        app.setPalette(dark_palette() if dark else app.style().standardPalette())
    else:
        if app.style().name() != _state["system_style"]:
            app.setStyle(_state["system_style"])
        app.setPalette(_state["system_palette"])
    # only scenes that registered: walking app.allWidgets() reached views of windows being torn
    # down and crashed in scene()
    recolour_followers(current_look())
    repolish_palette_sheets(app)
    return dark


def repolish_palette_sheets(app) -> None:
    """Qt resolves a style sheet's ``palette(…)`` colours only when the sheet is set: each widget
    whose sheet names one is given its sheet again, so that it takes the new palette (the compare
    window's header bars, the inspector's hints), instead of keeping the old theme's colours."""
    for w in app.allWidgets():
        sheet = w.styleSheet()
        if "palette(" in sheet:
            w.setStyleSheet("")
            w.setStyleSheet(sheet)


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


#: text and background of the coloured roles, per theme: (foreground, background). Each pair
#: keeps a WCAG contrast ratio ≥ 4.5 (tests/ui/test_theme_contrast.py computes it).
ROLE_COLORS = {
    "light": {
        "diff": ("#1a1a1a", "#ffe8b3"),          # a differing attribute row (compare)
        "error_line": ("#1a1a1a", "#fbd0ce"),    # the line where model output broke
        "error_mark": ("#ffffff", "#c62828"),    # the character where it broke
        "error_banner": ("#7a1212", "#fde2e1"),  # "Syntax error at line …"
        "best": ("#1a1a1a", "#d7f0d7"),          # best cell of a comparison table
        "worst": ("#1a1a1a", "#f6d5d5"),         # worst cell
        "failed": ("#1a1a1a", "#fff1e0"),        # a task whose output failed
        "banner": ("#5c4400", "#fff4ce"),        # a notice above the canvas
        "legend": ("#222222", "#ffffff"),        # the compare marks legend's words
        "plot": ("#222222", "#ffffff"),          # a plot's axes and labels on its background
    },
    "dark": {
        "diff": ("#fbe7b5", "#5a4300"),
        "error_line": ("#f6d7d5", "#5c1f1c"),
        "error_mark": ("#ffffff", "#b3261e"),
        "error_banner": ("#ffd7d4", "#4a1715"),
        "best": ("#d9f2d9", "#1d4a21"),
        "worst": ("#f7d9d9", "#5a2020"),
        "failed": ("#f5e3cc", "#4a3519"),
        "banner": ("#ffe9a8", "#4d3c0f"),
        "legend": ("#e6e6e6", "#2b2d30"),
        "plot": ("#e6e6e6", "#1f2124"),
    },
}


def role_colors(role: str) -> tuple[str, str]:
    """(text, background) of ``role`` in the theme in force."""
    return ROLE_COLORS["dark" if _state["dark"] else "light"][role]


def banner_colors() -> tuple[str, str]:
    return role_colors("banner")


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[k:k + 2], 16) for k in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast_ratio(fg: str, bg: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours (1 … 21)."""
    a, b = sorted((relative_luminance(fg), relative_luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def palette_row_colors(node_colour: str) -> tuple[str, str]:
    """(text, background) of a palette row for a node type of ``node_colour``: the colour itself
    in the light theme; in the dark one, the colour dimmed toward the window (no bright white
    rows), with black or white text, whichever reads better."""
    bg = node_colour
    if _state["dark"]:
        window = (0x2B, 0x2D, 0x30)
        rgb = [int(node_colour[k:k + 2], 16) for k in (1, 3, 5)]
        bg = "#" + "".join(f"{round(0.35 * c + 0.65 * w):02x}" for c, w in zip(rgb, window))
    fg = max(("#1a1a1a", "#ffffff"), key=lambda t: contrast_ratio(t, bg))
    return fg, bg


def plot_colors() -> tuple[str, str]:
    """(background, text) of a plot (the Ω histogram, the map, the Analysis figures) in the theme
    in force: the theme's text-field base and text, so that a plot is never a white block on the
    dark theme. The pair reads at WCAG ≥ 4.5 (``ROLE_COLORS``'s "plot")."""
    return role_colors("plot")[1], role_colors("plot")[0]
