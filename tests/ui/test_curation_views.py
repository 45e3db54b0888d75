"""The curation window beyond the basics (issue 9): the domain × domain summary above the full
matrix's size with drill-down, the progressive fill and its Cancel button, the Ω histogram,
coverage and mislabels against the core, the Domain… button, Ctrl+click on the map. Every
gesture is a real mouse or key event at the pixel a user would use."""
from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from gindex_studio.core.curation import analysis as an
from gindex_studio.core.curation.report import engine_for
from gindex_studio.core.curation.workspace import Item, Workspace, load_workspace
from gindex_studio.core.benchmark.curriculum import delta_matrix
from gindex_studio.core.flows.generate import perturb, random_flow
from gindex_studio.paths import DEMO_DIR

from .curation_support import close_window, compared, hover, index_of, open_window

EXPERIMENT = DEMO_DIR / "experiment.json"


@pytest.fixture(scope="module")
def demo_matrix():
    ws = load_workspace(EXPERIMENT)
    return np.array(delta_matrix([it.flow for it in ws.items]), dtype=float)


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = open_window(qtbot, load_workspace(EXPERIMENT), tmp_path)
    yield win
    close_window(win)


@pytest.fixture
def summary_window(qtbot, tmp_path, monkeypatch):
    """The demo experiment (64 programs) with the full-matrix limit at 20: the summary shows."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = open_window(qtbot, load_workspace(EXPERIMENT), tmp_path, full_matrix_limit=20, summary_sample=3)
    yield win
    close_window(win)


def cell_pos(view, r, c):
    return view.cell_center(r, c)


# ----- the summary and drill-down ---------------------------------------------------------------


@pytest.mark.slow
def test_summary_shows_the_sampled_mean_and_the_exact_least_delta(summary_window, demo_matrix, qtbot):
    win = summary_window
    assert win.pages.currentWidget() is win.summary and win.summary.isVisible()
    ws = win.model.ws
    names = ws.domain_names()
    assert win.summary.names == names
    for a, na in enumerate(names):
        for b, nb in enumerate(names):
            sa = an.summary_sample(win.summary_blocks[na], 3)
            sb = an.summary_sample(win.summary_blocks[nb], 3)
            vals = [demo_matrix[i, j] for i in sa for j in sb if i != j]
            if not vals:
                assert np.isnan(win.summary.matrix.values[a, b])
                continue
            assert win.summary.matrix.values[a, b] == pytest.approx(np.mean(vals), abs=1e-12)
            assert win.summary.sampled[a, b] == len(vals)
            block = [demo_matrix[i, j] for i in win.summary_blocks[na] for j in win.summary_blocks[nb] if i != j]
            assert win.summary.least[a, b] == min(block)  # exact, over the whole block
            i, j = win.summary.least_pair[a][b]
            assert demo_matrix[i, j] == min(block)
    # what is drawn is the mean matrix
    from gindex_studio.ui.curation.heatmap import cell_colours

    assert np.array_equal(win.summary.image.image, cell_colours(win.summary.matrix.values))

    a, b = names.index("gmail-send"), names.index("youtube-play")
    hover(win.summary.plot.viewport(), cell_pos(win.summary, a, b))
    qtbot.waitUntil(lambda: win.summary.hover_text.startswith("gmail-send"))
    text = win.summary.hover_text
    assert "× youtube-play" in text and f"mean Δ {win.summary.matrix.values[a, b]:.4f}" in text
    assert f"{win.summary.sampled[a, b]:,} sampled pairs of {win.summary.total[a, b]:,}" in text
    assert f"least Δ {win.summary.least[a, b]:.4f} (exact, over all {win.summary.total[a, b]:,} pairs: " in text

    # while the exact least is still searched, the hover says the value is the sample's
    blocks = [win.summary_blocks[n] for n in names]
    sample_row = next(an.domain_summary(engine_for(ws), blocks, 3, None))  # domain 0, from the sample only
    win.summary.set_summary_row(sample_row)
    hover(win.summary.plot.viewport(), cell_pos(win.summary, 0, b))
    qtbot.waitUntil(lambda: win.summary.hover_text.startswith(names[0]))
    assert f"least Δ ≤ {sample_row.least[b]:.4f} (the sample's; the exact least over all" in win.summary.hover_text


@pytest.mark.slow
def test_clicking_a_block_opens_its_matrix_and_a_cell_there_compares_the_pair(summary_window, demo_matrix, qtbot):
    win = summary_window
    names = win.summary.names
    a, b = names.index("gmail-send"), names.index("youtube-resume")
    qtbot.mouseClick(win.summary.plot.viewport(), Qt.LeftButton, pos=cell_pos(win.summary, a, b))
    assert win.pages.currentIndex() == 1 and win.block == ("gmail-send", "youtube-resume")
    assert "gmail-send (4) × youtube-resume (4)" == win.block_label.text()
    win.wait_for_matrix()
    qtbot.waitUntil(lambda: win.matrix_seconds is not None, timeout=30_000)
    hm = win.heatmap
    rows, cols = win.summary_blocks["gmail-send"], win.summary_blocks["youtube-resume"]
    assert hm.matrix.order == rows and hm.matrix.cols == cols
    assert np.array_equal(hm.matrix.values, demo_matrix[np.ix_(rows, cols)]) and hm.matrix.exact.all()

    r, c = 2, 3
    qtbot.mouseClick(hm.plot.viewport(), Qt.LeftButton, pos=hm.cell_center(r, c))
    ws = win.model.ws
    assert compared(win) == (ws.items[rows[r]].label.rsplit("/", 1)[-1], ws.items[cols[c]].label.rsplit("/", 1)[-1])

    qtbot.mouseClick(win.back_button, Qt.LeftButton)
    assert win.pages.currentWidget() is win.summary and win.block is None


@pytest.mark.slow
def test_opening_another_block_while_one_fills_shows_only_the_new_block(summary_window, demo_matrix, qtbot):
    win = summary_window
    names = win.summary.names
    first, second = (names.index("http"), names.index("twitter")), (names.index("facebook"), names.index("facebook"))
    qtbot.mouseClick(win.summary.plot.viewport(), Qt.LeftButton, pos=cell_pos(win.summary, *first))
    qtbot.mouseClick(win.back_button, Qt.LeftButton)
    qtbot.mouseClick(win.summary.plot.viewport(), Qt.LeftButton, pos=cell_pos(win.summary, *second))
    win.wait_for_matrix()
    qtbot.waitUntil(lambda: win.matrix_seconds is not None, timeout=30_000)
    rows = win.summary_blocks["facebook"]
    assert win.model.matrix.order == rows == win.model.matrix.cols
    assert np.array_equal(win.model.matrix.values, demo_matrix[np.ix_(rows, rows)])


# ----- progressive fill and Cancel ----------------------------------------------------------------


def slow_workspace(n=60, seed=4):
    """``n`` near-copies of four 50-node templates: a row takes about half a second."""
    rng = random.Random(seed)
    temps = [random_flow(50, rng, f"d{d}x") for d in range(4)]
    items = []
    for k in range(n):
        flow = perturb(temps[k % 4], rng, 0.2, prefix=f"p{k}x")
        items.append(Item(f"d{k % 4}/p{k:02d}.json", None, flow, f"d{k % 4}", "curriculum"))
    return Workspace(items)


@pytest.mark.slow
def test_matrix_fills_coarse_first_then_rows_and_cancel_stops_it(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    ws = slow_workspace()
    win = open_window(qtbot, ws, tmp_path, wait=False, deadline=0.02)
    hm = win.heatmap
    n = len(ws)
    qtbot.waitUntil(lambda: not np.isnan(hm.matrix.lower[0]).any(), timeout=30_000)
    assert win.matrix_seconds is None  # still filling
    pending = np.isnan(hm.matrix.lower).any(axis=1)
    assert pending.any()
    # rows not yet computed show the coarse preview (no hole), and the image is what is drawn
    assert not np.isnan(hm.matrix.values[pending]).any()
    from gindex_studio.ui.curation.heatmap import cell_colours

    assert np.array_equal(hm.image.image, cell_colours(hm.matrix.values))
    assert hm.image.levels is None and hm.image.lut is None  # the colours are drawn as they are
    qtbot.mouseClick(win.cancel_button, Qt.LeftButton)
    job = win._matrix_job
    job.wait(30_000)
    qtbot.wait(20)
    assert not win.cancel_button.isEnabled() and "cancelled" in win.progress.text()
    assert win.matrix_seconds is None and win.progress.value() < n
    done = ~np.isnan(hm.matrix.lower).any(axis=1)
    assert done.sum() == win.progress.value()
    # the rows shown are the core's values (exact cells exactly; cut cells as intervals)
    engine = engine_for(ws)
    rows = np.flatnonzero(done)[:2]
    assert hm.matrix.exact[rows].any()
    for r in rows:
        for c in range(n):
            if hm.matrix.exact[r, c]:
                assert hm.matrix.values[r, c] == float(engine.delta(hm.matrix.order[r], hm.matrix.order[c]))
            else:
                assert hm.matrix.lower[r, c] <= hm.matrix.values[r, c]
    close_window(win)


@pytest.mark.slow
def test_opening_a_block_while_the_summary_runs_stops_the_summary(qtbot, tmp_path, monkeypatch):
    """The block's job shares the summary's engine: the summary must still see its own cancel."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = open_window(qtbot, slow_workspace(), tmp_path, wait=False, full_matrix_limit=20, summary_sample=3,
                      deadline=0.02)
    summary_job = win._matrix_job
    completed = []
    summary_job.done.connect(lambda s: completed.append(s))
    qtbot.waitUntil(lambda: len(win.summary.rows_done) == 4, timeout=60_000)  # sampled; the exact least runs
    assert summary_job.isRunning()
    qtbot.mouseClick(win.summary.plot.viewport(), Qt.LeftButton, pos=cell_pos(win.summary, 0, 1))
    assert win._matrix_job is not summary_job and summary_job.isFinished()
    win.wait_for_matrix()
    qtbot.waitUntil(lambda: win.matrix_seconds is not None, timeout=60_000)
    assert not completed  # stopped by the click, not run to its end
    rows, cols = win.summary_blocks["d0"], win.summary_blocks["d1"]
    assert win.model.matrix.order == rows and win.model.matrix.cols == cols and not np.isnan(win.model.matrix.lower).any()
    close_window(win)


# ----- leaks histogram, coverage, mislabels ---------------------------------------------------


def test_omega_histogram_bars_are_the_core_omegas(window, qtbot):
    view = window.leaks
    window.tabs.setCurrentWidget(view)
    ws = window.model.ws
    oms = an.omega(engine_for(ws), ws.indices("test"), ws.indices("curriculum"))
    values = np.array([float(n.delta) for n in oms.values()])
    edges = np.linspace(0.0, 1.0, 21)
    t = float(window.model.leak_threshold)
    leaky = view.bars.opts["height"]
    assert list(leaky) == list(np.histogram(values[values <= t], bins=edges)[0])
    rest = [it for it in view.hist.getPlotItem().items if it is not view.bars and hasattr(it, "opts")
            and "height" in it.opts]
    assert len(rest) == 1 and list(rest[0].opts["height"]) == list(np.histogram(values[values > t], bins=edges)[0])
    assert sum(leaky) == view.table.rowCount() == 4


def test_coverage_table_is_the_core_coverage_and_a_mislabel_click_compares(window, qtbot):
    view = window.coverage
    window.tabs.setCurrentWidget(view)
    rep = window.model.report
    table = view.table
    assert table.rowCount() == len(rep.coverage) == 16
    for r, c in enumerate(rep.coverage):
        assert table.item(r, 0).text() == c.domain
        assert int(table.item(r, 1).text()) == c.curriculum and int(table.item(r, 2).text()) == c.tests
        if c.mean_within is not None:
            assert float(table.item(r, 3).text()) == pytest.approx(c.mean_within, abs=5e-5)
    mis = view.mis
    row = next(r for r in range(mis.rowCount()) if mis.item(r, 0).text().endswith("youtube-pause-2.json"))
    qtbot.mouseClick(mis.viewport(), Qt.LeftButton, pos=mis.visualItemRect(mis.item(row, 1)).center())
    assert compared(window) == ("youtube-pause-2.json", "youtube-resume-2.json")


@pytest.mark.slow
def test_domain_button_moves_a_program_and_coverage_follows_with_undo(window, qtbot):
    split = window.split
    window.tabs.setCurrentWidget(split)
    table = split.table
    i = index_of(window, "template-slider-2.json")
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualItemRect(table.item(i, 0)).center())
    window.dialogs.domain = "template-form"
    qtbot.mouseClick(split.domain_button, Qt.LeftButton)
    assert window.model.ws.items[i].domain == "template-form" and table.item(i, 1).text() == "template-form"
    window.wait_for_report()
    qtbot.waitUntil(lambda: next(c for c in window.model.report.coverage if c.domain == "template-form").curriculum == 1)
    cov = {window.coverage.table.item(r, 0).text(): int(window.coverage.table.item(r, 1).text())
           for r in range(window.coverage.table.rowCount())}
    assert cov["template-form"] == 1 and cov["template-slider"] == 2
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    assert window.model.ws.items[i].domain == "template-slider"
    window.wait_for_report()
    qtbot.waitUntil(lambda: next(c for c in window.model.report.coverage if c.domain == "template-form").curriculum == 0)


@pytest.mark.slow
def test_ctrl_click_on_the_map_adds_to_the_selection(window, qtbot):
    view = window.map
    window.tabs.setCurrentWidget(view)
    qtbot.wait(50)
    vb = view.plot.getViewBox()

    def at(i):
        x, y = view.points[i]
        return view.plot.mapFromScene(vb.mapViewToScene(QPointF(x, y)))

    a, b = index_of(window, "http-2.json"), index_of(window, "facebook-1.json")
    qtbot.mouseClick(view.plot.viewport(), Qt.LeftButton, pos=at(a))
    assert a in window.model.selection and b not in window.model.selection
    qtbot.mouseClick(view.plot.viewport(), Qt.LeftButton, Qt.ControlModifier, pos=at(b))
    assert {a, b} <= set(window.model.selection)
    assert {a, b} <= set(window.split.selected())
    # the heatmap outlines the selected programs' rows and columns
    assert len(window.heatmap._marks) == 2 * len(window.model.selection)


@pytest.mark.slow
def test_thresholds_are_fractions_of_slider_steps(window):
    assert window.model.duplicate_threshold == Fraction(1, 20)


@pytest.mark.slow
def test_the_heatmap_follows_a_theme_switch_in_what_it_draws(window, qtbot):
    """Dark: the plot's margin (the colour of cells not known yet) is dark and the domains' names
    are light; back to light, both as before. Read from the drawn pixels, not the settings."""
    from PySide6.QtGui import QColor

    from gindex_studio.ui import theme

    hm = window.heatmap

    def drawn():
        img = hm.plot.grab().toImage()
        margin = QColor(img.pixel(3, img.height() // 2))  # left of the names: background only
        label, _axis, _cells = next(b for b in hm.band_labels if b[1] == 0 and b[0].isVisible())
        box = hm.plot.mapFromScene(label.mapToScene(label.boundingRect()).boundingRect()).boundingRect()
        texts = [QColor(img.pixel(x, y)) for x in range(max(0, box.left()), min(img.width(), box.right()))
                 for y in range(max(0, box.top()), min(img.height(), box.bottom()))]
        return margin.lightness(), max(c.lightness() for c in texts), min(c.lightness() for c in texts)

    light_margin, light_max, light_min = drawn()
    try:
        theme.apply_theme("dark")
        qtbot.wait(50)
        dark_margin, dark_max, _dark_min = drawn()
    finally:
        theme.apply_theme("light")
    qtbot.wait(50)
    assert light_margin > 200 and light_min < 100  # light grey, dark letters
    assert dark_margin < 70 and dark_max > 180  # dark grey, light letters
    assert drawn()[0] == light_margin
