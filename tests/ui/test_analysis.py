"""The Analysis window, driven as a user would: its plots hold the core's numbers, hover names the
point, a click opens the task in the compare view, exports write valid PNG and SVG files."""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest

from gindex_studio.core.benchmark import stats
from gindex_studio.core.benchmark.analysis import System
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.core.benchmark.study import open_inputs
from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui.analysis.plots import FIGURES

STUDY = DEMO_DIR / "study" / "study.json"


@pytest.fixture(scope="module")
def systems():
    _name, pairs = open_inputs([STUDY])
    return [System(label, exp, compute_gindex(exp, workers=1)) for label, exp in pairs]


@pytest.fixture
def awin(qtbot, systems, library):
    from gindex_studio.ui.analysis.window import AnalysisWindow

    win = AnalysisWindow(library)
    win.resize(1366, 768)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.set_systems([System(s.label, s.experiment, s.result) for s in systems])
    assert win.wait_idle(60_000)  # computed in a worker process, drawn a piece per loop turn
    yield win
    for cw in win.compare_windows:
        cw.view.runner.wait(5000)
        cw.controller.runner.wait(5000)
        cw.dialogs.ask_save = lambda *_a: "discard"  # closing never waits on a message box
        cw.close()


def show_figure(win, fid, qtbot):
    """Bring the tab holding figure ``fid`` to the front and wait until it is laid out."""
    panel = win.panels[fid]
    page = panel.parentWidget()
    win.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: panel.isVisible() and panel.figure.widget.width() > 100)
    vb = panel.figure.widget.getPlotItem().getViewBox()
    def settled():  # the view range is final once it no longer changes between two looks
        now = vb.viewRange()
        QTest.qWait(60)
        return vb.viewRange() == now

    qtbot.waitUntil(settled)
    return panel.figure


def viewport_pos(fig, x, y):
    vb = fig.widget.getPlotItem().getViewBox()
    return fig.widget.mapFromScene(vb.mapViewToScene(QPointF(x, y)))


@pytest.mark.slow
def test_plotted_arrays_equal_the_core(awin):
    an = awin.analysis
    f = awin.figures
    for i, (a, row) in enumerate(zip(an.arrays, an.summary)):
        x, y = f["theta_size"].scatter(a.label).getData()
        assert x.tolist() == a.size.tolist() and y.tolist() == a.theta.tolist()
        assert [p.data()[:2] for p in f["theta_size"].scatter(a.label).points()] == [(a.label, t) for t in a.ids]
        x, y = f["theta_omega"].scatter(a.label).getData()
        assert x.tolist() == a.omega.tolist() and y.tolist() == a.theta.tolist()
        _x, y = f["skill_size"].curve(a.label, 0).getData()
        np.testing.assert_array_equal(y, an.bins.skill[a.label])
        _x, y = f["skill_size"].curve(a.label, 1).getData()
        np.testing.assert_array_equal(y, an.bins.pass_k[a.label])
        x, y = f["theta_samples"].scatter(row.label).getData()
        assert x.tolist() == [np.log10(row.samples)] and y.tolist() == [row.theta.value]
        x, y = f["theta_compute"].scatter(row.label).getData()
        assert x.tolist() == [np.log10(row.compute)] and y.tolist() == [row.theta.value]
        for fid, param, logx in (("resp_samples", "samples", True), ("resp_compute", "compute", True),
                                 ("resp_theta", "theta", False)):
            c = an.curves[a.label][param]
            x, y = f[fid].curve(a.label, 0).getData()
            np.testing.assert_allclose(x, np.log10(c.x) if logx else c.x)
            np.testing.assert_array_equal(y, c.y)
            _x, low = f[fid].curve(a.label, 1).getData()
            np.testing.assert_array_equal(low, c.low)
        bars = next(it for it in f["tc_share"].items[a.label] if type(it).__name__ == "BarGraphItem")
        assert bars.opts["height"].tolist() == a.share.tolist()
        assert a.share.sum() == pytest.approx(1.0)
    # bubble size grows with the g-index
    sizes = [f["theta_samples"].scatter(r.label).points()[0].size() for r in an.summary]
    assert np.argsort(sizes).tolist() == np.argsort([r.g_index.value for r in an.summary]).tolist()


@pytest.mark.slow
def test_comparison_table_marks_best_and_worst(awin):
    an, t = awin.analysis, awin.table
    header = [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())]
    assert header == ["system", "g-index", "θ", "training samples", "compute", "mean Ω", "skill level", "pass@1"]
    best = int(np.argmax([r.g_index.value for r in an.summary]))
    worst = int(np.argmin([r.g_index.value for r in an.summary]))
    g = an.summary[best].g_index
    assert t.item(best, 1).text() == f"{g.value:,.1f} [{g.low:,.1f}, {g.high:,.1f}]"
    assert t.item(best, 1).toolTip() == "best g-index" and t.item(worst, 1).toolTip() == "worst g-index"
    assert t.item(best, 1).font().bold()
    text = awin.comparisons.toPlainText()
    for p in an.pairs:
        assert p.g_sentence in text and p.theta_sentence in text


@pytest.mark.slow
def test_k_spin_box_recomputes_pass_at_k(awin, qtbot):
    spin = awin.k_spin
    spin.setFocus()
    spin.selectAll()
    QTest.keyClicks(spin, "3")
    QTest.keyClick(spin, Qt.Key_Return)
    qtbot.waitUntil(lambda: awin.analysis.k == 3, timeout=60_000)  # recomputed in a worker process, as the fixture's
    assert awin.table.horizontalHeaderItem(7).text() == "pass@3"
    a = awin.analysis.arrays[2]
    assert awin.analysis.summary[2].pass_k.value == pytest.approx(np.mean(stats.pass_at_k(a.attempts, a.perfect, 3)))


@pytest.mark.slow
def test_hover_names_the_task_and_click_opens_it_in_the_compare_view(awin, qtbot):
    fig = show_figure(awin, "theta_size", qtbot)
    a = awin.analysis.arrays[2]
    j = int(np.argmin(a.theta))  # the worst task of the last system: drawn on top, alone at its place
    pos = viewport_pos(fig, a.size[j], a.theta[j])
    QTest.mouseMove(fig.widget.viewport(), pos)
    vb = fig.widget.getPlotItem().getViewBox()
    qtbot.waitUntil(lambda: a.ids[j] in vb.toolTip())
    assert a.label in vb.toolTip()
    QTest.mouseClick(fig.widget.viewport(), Qt.LeftButton, Qt.NoModifier, pos)
    qtbot.waitUntil(lambda: len(awin.compare_windows) == 1)
    cw = awin.compare_windows[0]
    exp = awin.systems[2].experiment
    index = exp.task_index(a.ids[j])
    assert cw.current_task == index
    assert cw.controller.experiment.path == exp.path
    ref_ids = sorted(n.id for n in cw.view.editors["reference"].doc.flow.nodes)
    assert ref_ids == sorted(n.id for n in exp.tasks[index].reference.nodes)


def hover(fig, qtbot, x, y, *words):
    """Move the mouse onto the data point (x, y) and wait for a tooltip holding ``words``."""
    pos = viewport_pos(fig, x, y)
    QTest.mouseMove(fig.widget.viewport(), pos)
    vb = fig.widget.getPlotItem().getViewBox()
    qtbot.waitUntil(lambda: all(w in vb.toolTip() for w in words))
    return pos


@pytest.mark.slow
def test_spread_over_attempts_is_plotted_hovered_and_clicked(awin, qtbot):
    fig = show_figure(awin, "theta_spread", qtbot)
    an = awin.analysis
    for a in an.arrays:
        bars = next(it for it in fig.items[a.label] if type(it).__name__ == "ErrorBarItem")
        x, y = fig.scatter(a.label).getData()
        assert y.tolist() == a.theta.tolist() and bars.opts["x"].tolist() == x.tolist()
        np.testing.assert_allclose(bars.opts["y"] + bars.opts["top"], a.theta_max)
        np.testing.assert_allclose(bars.opts["y"] - bars.opts["bottom"], a.theta_min)
        # θ is the mean over attempts; min and max bracket it
        assert (a.theta_min <= a.theta + 1e-12).all() and (a.theta <= a.theta_max + 1e-12).all()
    a = an.arrays[1]
    j = int(np.argmax(a.theta_max - a.theta_min))  # the task whose attempts disagree most
    x = fig.scatter(a.label).getData()[0][j]
    words = (a.ids[j], a.label, f"θ over {a.attempts[j]} attempts: {a.theta_min[j]:.3f}-{a.theta_max[j]:.3f}")
    pos = hover(fig, qtbot, x, a.theta[j], *words)
    QTest.mouseClick(fig.widget.viewport(), Qt.LeftButton, Qt.NoModifier, pos)
    qtbot.waitUntil(lambda: len(awin.compare_windows) == 1)
    assert awin.compare_windows[0].current_task == awin.systems[1].experiment.task_index(a.ids[j])


@pytest.mark.slow
def test_bubble_hover_names_the_system(awin, qtbot):
    fig = show_figure(awin, "theta_samples", qtbot)
    row = max(awin.analysis.summary, key=lambda r: r.g_index.value)  # the biggest bubble, drawn last or not
    x, y = fig.scatter(row.label).getData()
    hover(fig, qtbot, x[0], y[0], row.label, f"g-index {row.g_index.value:.1f}")
    QTest.mouseClick(fig.widget.viewport(), Qt.LeftButton, Qt.NoModifier, viewport_pos(fig, x[0], y[0]))
    QTest.qWait(50)
    assert awin.compare_windows == []  # a system, not a task: nothing to open


@pytest.mark.slow
def test_theta_omega_point_click_opens_its_task(awin, qtbot):
    fig = show_figure(awin, "theta_omega", qtbot)
    an = awin.analysis
    a = an.arrays[-1]
    others = {(round(o.omega[k], 6), round(o.theta[k], 6)) for o in an.arrays[:-1] for k in range(len(o.ids))}
    mine = [(round(a.omega[k], 6), round(a.theta[k], 6)) for k in range(len(a.ids))]
    j = next(k for k in range(len(a.ids)) if mine.count(mine[k]) == 1 and mine[k] not in others)  # alone at its spot
    pos = hover(fig, qtbot, a.omega[j], a.theta[j], a.ids[j], a.domains[j], a.label)
    QTest.mouseClick(fig.widget.viewport(), Qt.LeftButton, Qt.NoModifier, pos)
    qtbot.waitUntil(lambda: len(awin.compare_windows) == 1)
    assert awin.compare_windows[0].current_task == awin.systems[-1].experiment.task_index(a.ids[j])


@pytest.mark.slow
def test_exports_write_valid_png_and_svg(awin, qtbot, tmp_path):
    fig = show_figure(awin, "resp_samples", qtbot)
    panel = awin.panels["resp_samples"]
    answers = iter([str(tmp_path / "fig.png"), str(tmp_path / "fig.svg")])
    awin.ask_save_path = lambda *a: next(answers)
    qtbot.mouseClick(panel.png_button, Qt.LeftButton)
    qtbot.mouseClick(panel.svg_button, Qt.LeftButton)
    img = QImage(str(tmp_path / "fig.png"))
    assert not img.isNull() and img.width() == 1200
    assert (tmp_path / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    root = ET.parse(tmp_path / "fig.svg").getroot()
    assert root.tag.endswith("svg")
    drawn = [e for e in root.iter() if e.tag.split("}")[-1] in ("path", "polyline")]
    assert len(drawn) > 20  # vector curves, bands and axes, not one raster image
    assert not [e for e in root.iter() if e.tag.split("}")[-1] == "image"]
    assert fig.title in (tmp_path / "fig.svg").read_text()


@pytest.mark.slow
def test_export_report_from_the_window(awin, tmp_path):
    awin.ask_save_path = lambda *a: str(tmp_path / "r.html")
    awin.registry["analysis.report"].trigger()
    text = (tmp_path / "r.html").read_text()
    assert text.count("data:image/svg+xml;base64,") == len(FIGURES) == 10 and "Paired comparisons" in text


@pytest.mark.slow
def test_open_study_scores_off_the_gui_thread(qtbot, library):
    from gindex_studio.ui.analysis.window import AnalysisWindow

    win = AnalysisWindow(library)
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.analysed, timeout=60_000):
        assert win.open_paths([str(STUDY)])
    assert [s.label for s in win.systems] == ["gpt2-small", "gpt2-medium", "gpt2-large"]
    assert win.tabs.count() == 5
    with qtbot.waitSignal(win.failed, timeout=5000):
        assert not win.open_paths([str(DEMO_DIR / "none.json")])
    assert "none.json: no such file" in win.status_label.text()


def test_studio_file_menu_has_analysis(window):
    act = window.actions["file.analysis"]
    assert act.objectName() == "file.analysis"
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.menu() and a.text().replace("&", "") == "File")
    assert act in file_menu.actions()


@pytest.mark.slow
def test_window_at_1366x768_screenshot(awin, qtbot, tmp_path):
    show_figure(awin, "theta_size", qtbot)
    assert awin.width() <= 1366 and awin.height() <= 768
    for fid in ("theta_size", "skill_size"):
        assert awin.panels[fid].figure.widget.height() > 300
    img = awin.grab()
    assert img.save(str(tmp_path / "analysis.png"))


@pytest.mark.slow
def test_exported_spread_figure_names_tasks_and_drops_the_hover_hint(awin, qtbot, tmp_path):
    from gindex_studio.ui.analysis.window import export_folder

    fig = show_figure(awin, "theta_spread", qtbot)
    panel = awin.panels["theta_spread"]
    asked = []
    awin.ask_save_path = lambda title, suggestion, filt: asked.append(suggestion) or str(tmp_path / "s.svg")
    qtbot.mouseClick(panel.svg_button, Qt.LeftButton)
    assert not asked[0].startswith(os.getcwd() + os.sep + "theta_spread")  # not the process's folder
    assert os.path.isabs(asked[0])
    text = (tmp_path / "s.svg").read_text()
    assert "hover" not in text
    assert sum(t in text for t in fig.order) >= 2  # the tasks' ids (as many as fit), not their ranks
    axis = fig.widget.getPlotItem().getAxis("bottom")
    assert "hover" in axis.labelText  # the window keeps its hint
    assert export_folder() == str(tmp_path)  # the next export starts where this one went
