"""Coloured rows and cells stay readable in both themes: WCAG contrast ≥ 4.5 of text on its
background for every role ui/theme.py colours, and palette rows that are neither unreadable nor
bright white in the dark theme."""
from __future__ import annotations

import pytest

from gindex_studio.ui import theme

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
