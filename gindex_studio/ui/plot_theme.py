"""Plots (pyqtgraph) in the theme's colours: ``ThemedPlot(widget)`` keeps a ``PlotWidget``'s
background, axes, title, legend and text labels in ``theme.plot_colors()``, now and at every theme
change. Its own module: pyqtgraph loads only with the windows that draw plots."""
from __future__ import annotations

from contextlib import contextmanager

import pyqtgraph as pg
from PySide6.QtCore import QObject
from PySide6.QtGui import QColor

from gindex_studio.ui.canvas.look import follow_look
from gindex_studio.ui.theme import ROLE_COLORS, plot_colors


def plot_text_colour() -> str:
    """The colour of text drawn in a plot (labels beside the data) in the theme in force."""
    return plot_colors()[1]


class ThemedPlot(QObject):
    """Keeps a pyqtgraph ``PlotWidget`` in ``plot_colors()`` (its background, axes, their labels,
    the title, the legend's words and the text items on the data), now and at every theme
    change; a child of the widget, so it goes with it."""

    def __init__(self, widget):
        super().__init__(widget)
        self.widget = widget
        follow_look(self)
        self.set_colors()

    def set_colors(self, _look=None) -> None:
        self.paint(*plot_colors())

    def paint(self, bg: str, fg: str) -> None:
        """The plot on background ``bg`` with its words in ``fg`` (``for_paper``: the light theme's)."""
        self.widget.setBackground(QColor(bg))
        item = self.widget.getPlotItem()
        for name in ("left", "bottom", "right", "top"):
            axis = item.getAxis(name)
            axis.setPen(QColor(fg))
            axis.setTextPen(QColor(fg))
        item.titleLabel.setText(item.titleLabel.text, color=fg)
        legend = getattr(item, "legend", None)
        if legend is not None:
            legend.setLabelTextColor(QColor(fg))
        for it in item.items:
            if isinstance(it, pg.TextItem):
                it.setColor(QColor(fg))

    def views(self) -> list:
        return []


@contextmanager
def for_paper(widget):
    """While exporting a figure: the light theme's plot colours whatever the theme (a paper's
    figure is black on white); the theme's again afterwards."""
    themed = widget.findChild(ThemedPlot)
    if themed is not None:
        fg, bg = ROLE_COLORS["light"]["plot"]
        themed.paint(bg, fg)
    try:
        yield
    finally:
        if themed is not None:
            themed.set_colors()
