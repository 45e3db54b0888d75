"""The Analysis window's figures read as a paper's would, at 1366×768 and when exported: legends
beside the plot area, never on the data (also at k = 3), the compute axis says what its numbers
are, the ★ of Figs 7-9 is in the legend, bubble labels sit beside the bubbles, and the Add
dialog starts where experiments were last added from (else Documents), never the working folder."""
from __future__ import annotations

import os

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest

from gindex_studio.core.benchmark.analysis import System
from gindex_studio.paths import DEMO_DIR

from tests.ui.test_analysis import show_figure, systems  # noqa: F401  (the module's fixture)


def open_window(qtbot, library, systems, settings=None):
    from gindex_studio.ui.analysis.window import AnalysisWindow

    win = AnalysisWindow(library, settings=settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.set_systems(systems)
    assert win.wait_idle(60_000)
    return win


@pytest.fixture
def awin(qtbot, systems, library):  # noqa: F811
    return open_window(qtbot, library, [System(s.label, s.experiment, s.result) for s in systems])


def legend_rect(fig) -> QRectF:
    return fig.widget.getPlotItem().legend.sceneBoundingRect()


def plot_rect(fig) -> QRectF:
    return fig.widget.getPlotItem().getViewBox().sceneBoundingRect()


@pytest.mark.slow
def test_the_window_opens_on_the_laptop_screen(awin):
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.primaryScreen().availableGeometry().contains(awin.frameGeometry())


@pytest.mark.slow
def test_legends_sit_beside_the_plot_area_at_k_3(awin, qtbot, tmp_path):
    awin.k_spin.selectAll()
    QTest.keyClicks(awin.k_spin, "3")
    QTest.keyClick(awin.k_spin, Qt.Key_Return)
    qtbot.waitUntil(lambda: awin.analysis.bins.k == 3 and not awin.busy, timeout=60_000)
    with_legend = [fid for fid, f in awin.figures.items() if f.widget.getPlotItem().legend is not None]
    assert set(with_legend) == set(awin.figures) - {"theta_samples", "theta_compute"}  # bubbles: labels
    for fid in with_legend:
        fig = show_figure(awin, fid, qtbot)
        legend, plot = legend_rect(fig), plot_rect(fig)
        assert fig.widget.getPlotItem().legend.items, fid
        assert not legend.intersects(plot), fid
        assert legend.left() >= plot.right(), fid  # to the right of the data
        assert QRectF(fig.widget.rect()).contains(legend), fid  # whole, not cut off
    fig = awin.figures["skill_size"]
    texts = [label.text for _sample, label in fig.widget.getPlotItem().legend.items]
    assert "pass@3" in texts and "skill level (θ = 1)" in texts
    # every point of every pass@3 line lies in the plot area, none under the legend
    vb = fig.widget.getPlotItem().getViewBox()
    for a in awin.analysis.arrays:
        x, y = fig.curve(a.label, 1).getData()
        for px, py in zip(x, y):
            if py == py:  # NaN: no task in that bin
                p = vb.mapViewToScene(pg.Point(px, py))
                assert not legend_rect(fig).contains(p)
    # an exported figure draws the legend beside the plot as well, scaled with it
    path = tmp_path / "skill.png"
    awin.ask_save_path = lambda *a: str(path)
    QTest.mouseClick(awin.panels["skill_size"].png_button, Qt.LeftButton)
    img = QImage(str(path))
    scale = img.width() / fig.widget.getPlotItem().sceneBoundingRect().width()
    lg, pr = legend_rect(fig), plot_rect(fig)
    dark = lambda x0, x1, y0, y1: sum(  # noqa: E731
        img.pixelColor(x, y).lightness() < 120 for x in range(int(x0 * scale), int(x1 * scale), 2)
        for y in range(int(y0 * scale), int(y1 * scale), 2))
    assert dark(lg.left(), lg.right(), lg.top(), lg.bottom()) > 50  # the legend's words are there
    assert img.width() == 1200 and pr.right() * scale < lg.left() * scale


def test_compute_axis_says_what_compute_is(awin):
    for fid in ("theta_compute", "resp_compute"):
        text = awin.figures[fid].widget.getPlotItem().getAxis("bottom").labelText
        assert "power × time" in text and "experiment's own unit" in text, text
    header = [awin.table.horizontalHeaderItem(c) for c in range(awin.table.columnCount())]
    tip = next(h.toolTip() for h in header if h.text() == "compute")
    assert "power × time" in tip and "unit" in tip


@pytest.mark.slow
def test_the_star_of_figs_7_to_9_is_in_their_legend(awin):
    for fid in ("resp_samples", "resp_compute", "resp_theta"):
        legend = awin.figures[fid].widget.getPlotItem().legend
        stars = [label.text for sample, label in legend.items
                 if isinstance(sample.item, pg.ScatterPlotItem) and sample.item.opts["symbol"] == "star"]
        assert len(stars) == 1 and "this experiment" in stars[0], fid
        bands = [label.text for sample, label in legend.items if "random splits" in label.text]
        assert len(bands) == 1, fid


@pytest.mark.slow
def test_bubble_labels_do_not_touch_any_bubble(qtbot, systems, library):  # noqa: F811
    """Crowded: each system twice more under other names, so bubbles lie on one another."""
    crowd = [System(f"{s.label}{tag}", s.experiment, s.result) for tag in ("", " again", " third") for s in systems]
    win = open_window(qtbot, library, crowd)
    for size in ((1366, 768), (1000, 640)):
        win.resize(*size)
        for fid in ("theta_samples", "theta_compute"):
            fig = show_figure(win, fid, qtbot)
            bubbles = fig.labels.bubble_rects()
            labels = [t.sceneBoundingRect() for _x, _y, _s, t, _l in fig.labels.bubbles]
            assert len(bubbles) == len(labels) == 9
            for k, lab in enumerate(labels):
                assert QRectF(fig.widget.rect()).contains(lab), (fid, size, k)
                assert not any(lab.intersects(b) for b in bubbles), (fid, size, k)
                assert not any(lab.intersects(o) for o in labels[k + 1:]), (fid, size, k)


@pytest.mark.slow
def test_add_dialog_starts_in_the_last_folder_else_documents(awin, qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    import gindex_studio.ui.analysis.window as window_module

    monkeypatch.setattr(window_module, "_OPEN_FOLDER", [""])
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    awin.geometry_settings = settings
    asked = []

    def answer(title, folder, filt):
        asked.append(folder)
        return [str(DEMO_DIR / "study" / "gpt2-small.json")] if len(asked) == 1 else []

    awin.ask_open_paths = answer
    first_run = window_module.open_folder(None)  # Documents, else home
    with qtbot.waitSignal(awin.analysed, timeout=60_000):
        QTest.keySequence(awin, "Ctrl+O")
    assert asked[0] != os.getcwd() and os.path.isdir(asked[0])
    assert asked[0] == first_run
    QTest.keySequence(awin, "Ctrl+O")
    assert asked[1] == str(DEMO_DIR / "study"), asked  # where the last experiments came from
    monkeypatch.setattr(window_module, "_OPEN_FOLDER", [""])  # a new session: the settings remember
    assert window_module.open_folder(settings) == str(DEMO_DIR / "study")


@pytest.mark.slow
def test_every_figure_follows_a_switch_to_the_dark_theme(awin):
    """No white plot on the dark theme: each figure's background is the theme's plot colour and
    its axes' numbers and names, the legend's words and the bubbles' labels read on it (WCAG ≥
    4.5), after a switch with the window open."""
    from gindex_studio.ui import theme

    theme.apply_theme("dark")
    try:
        bg, _fg = theme.plot_colors()
        assert theme.relative_luminance(bg) < 0.15
        assert awin.figures
        for fid, fig in awin.figures.items():
            assert fig.widget.backgroundBrush().color().name() == bg, fid
            for name in ("left", "bottom"):
                text = fig.widget.getPlotItem().getAxis(name).textPen().color().name()
                assert theme.contrast_ratio(text, bg) >= 4.5, (fid, name, text)
            item = fig.widget.getPlotItem()
            words = [it.color.name() for it in item.items if isinstance(it, pg.TextItem)]  # bubble labels
            if item.legend is not None:
                words.append(pg.mkColor(item.legend.opts["labelTextColor"]).name())
            for colour in words:
                assert theme.contrast_ratio(colour, bg) >= 4.5, (fid, colour)
    finally:
        theme.apply_theme("light")


@pytest.mark.slow
def test_a_figure_exported_from_the_dark_theme_is_black_on_white(awin, tmp_path):
    from gindex_studio.ui import theme
    from gindex_studio.ui.analysis.plots import export_png

    theme.apply_theme("dark")
    try:
        fig = next(iter(awin.figures.values()))
        out = tmp_path / "fig.png"
        export_png(fig, str(out), width=600)
        img = QImage(str(out))
        assert img.pixelColor(3, 3).name() == "#ffffff"  # a paper's figure
        assert fig.widget.backgroundBrush().color().name() == theme.plot_colors()[0]  # the screen's again
    finally:
        theme.apply_theme("light")
