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
