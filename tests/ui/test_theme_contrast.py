"""Coloured rows and cells stay readable in both themes: WCAG contrast ≥ 4.5 of text on its
background for every role ui/theme.py colours, and palette rows that are neither unreadable nor
bright white in the dark theme."""
from __future__ import annotations

import pytest

from gindex_studio.ui import theme
from PySide6.QtWidgets import QWidget

WCAG_AA = 4.5


def test_contrast_ratio_matches_wcag_examples():
    assert theme.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert theme.contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_every_role_reads_at_aa(mode):
    for role, (fg, bg) in theme.ROLE_COLORS[mode].items():
        assert theme.contrast_ratio(fg, bg) >= WCAG_AA, (mode, role, fg, bg)


def test_dark_roles_have_dark_backgrounds():
    for role, (_fg, bg) in theme.ROLE_COLORS["dark"].items():
        assert theme.relative_luminance(bg) < 0.15, role  # no pale cell under the dark theme's light text


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_palette_rows_read_and_are_not_bright_in_dark(qapp, library, mode):
    theme.apply_theme(mode)
    try:
        colours = {c.color for c in library.categories} | {t.color for t in library.types}
        assert {"#ffffff", "#87a980"} <= colours  # the comment's white and the debug's green among them
        for c in colours:
            fg, bg = theme.palette_row_colors(c)
            assert theme.contrast_ratio(fg, bg) >= WCAG_AA, (mode, c)
            if mode == "dark":
                assert theme.relative_luminance(bg) < 0.5, c  # the comment row is not bright white
    finally:
        theme.apply_theme("light")


def test_palette_rows_follow_a_theme_switch(window):
    from PySide6.QtWidgets import QApplication

    row = window.palette.type_items["comment"]
    theme.apply_theme("dark")
    try:
        QApplication.processEvents()
        bg = row.background(0).color().name()
        assert theme.relative_luminance(bg) < 0.5  # no bright white row on the dark list
        assert theme.contrast_ratio(row.foreground(0).color().name(), bg) >= WCAG_AA
    finally:
        theme.apply_theme("light")
        QApplication.processEvents()
    assert row.background(0).color().name() == "#ffffff"


def test_canvas_labels_read_on_the_canvas_in_both_looks():
    """The compare view's ``w=1`` labels are drawn on the canvas, not on a node."""
    for look in (theme.DEFAULT_LOOK, theme.DARK_LOOK):
        assert theme.contrast_ratio(look.canvas_text, look.background) >= WCAG_AA, look.background


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_the_curation_histogram_and_map_follow_the_theme(qtbot, tmp_path, mode):
    """The Ω histogram (Leaks) and the map are drawn on the theme's plot colours, at once and
    after a switch: no white block on the dark theme."""
    from gindex_studio.core.curation.workspace import load_workspace
    from gindex_studio.paths import DEMO_DIR

    from .curation_support import open_window

    theme.apply_theme("light" if mode == "dark" else "dark")  # opened in the other theme, then switched
    try:
        win = open_window(qtbot, load_workspace(DEMO_DIR / "experiment.json"), tmp_path, wait=False)
        theme.apply_theme(mode)
        bg, fg = theme.plot_colors()
        assert theme.contrast_ratio(fg, bg) >= WCAG_AA
        for plot in (win.leaks.hist, win.map.plot):
            assert plot.backgroundBrush().color().name() == bg
            axis = plot.getPlotItem().getAxis("bottom")
            assert theme.contrast_ratio(axis.textPen().color().name(), bg) >= WCAG_AA
        if mode == "dark":
            assert theme.relative_luminance(bg) < 0.15
        win.close()
    finally:
        theme.apply_theme("light")


def test_the_dark_placeholder_and_help_text_read_on_every_dark_surface(qapp):
    """Hints and node help (``palette(placeholder-text)``) on the window, the fields and the buttons."""
    p = theme.dark_palette()
    from PySide6.QtGui import QPalette

    hint = p.color(QPalette.PlaceholderText).name()
    for role in (QPalette.Window, QPalette.Base, QPalette.Button, QPalette.AlternateBase):
        assert theme.contrast_ratio(hint, p.color(role).name()) >= WCAG_AA, role


def test_a_compare_window_switched_to_dark_has_dark_headers_inspector_and_readable_hints(qtbot, library):
    """Opened in the light theme, then switched: the header bars, the syntax banner and the
    inspector follow (Qt resolves a style sheet's palette colours only when it is set)."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from .conftest import click, shown_compare_window
    from .test_compare import demo_pair, settle

    theme.apply_theme("light")
    win = shown_compare_window(qtbot, library, 1366, 768)
    win.open_pair(*demo_pair("telegram-2-reply"))
    settle(qtbot, win.view)
    ed = win.view.ref
    item = next(iter(ed.scene.nodes.values()))
    click(ed.view, item.scene_body().center())  # the inspector shows the node and its help text
    QApplication.processEvents()
    try:
        theme.apply_theme("dark")
        QApplication.processEvents()
        window_bg = QApplication.palette().color(QPalette.Window).name()
        for side in win.view.sides.values():
            img = side.header.grab().toImage()
            bg = img.pixelColor(img.width() - 3, img.height() // 2).name()  # the bar, beside its buttons
            assert theme.relative_luminance(bg) < 0.15, bg
            title_fg = side.title.palette().color(side.title.foregroundRole()).name()
            assert theme.contrast_ratio(title_fg, bg) >= WCAG_AA
        hints = [w for w in win.findChildren(QWidget) if "palette(placeholder-text)" in w.styleSheet()]
        assert hints  # the inspector's hint and the node's help text among them
        for w in hints:
            fg = w.palette().color(w.foregroundRole()).name()
            assert theme.contrast_ratio(fg, window_bg) >= WCAG_AA, (w.objectName(), fg)
        img = win.inspector.grab().toImage()
        assert theme.relative_luminance(img.pixelColor(img.width() // 2, img.height() - 5).name()) < 0.15
    finally:
        theme.apply_theme("light")
        QApplication.processEvents()
