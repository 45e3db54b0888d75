"""The curation window (issue 9), driven with real mouse clicks offscreen."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import orjson
import pytest
from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from gindex_studio.cli import main
from gindex_studio.core.benchmark.curriculum import delta_matrix
from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.benchmark.gindex import compute_gindex

from .curation_support import demo_window as window  # noqa: F401 - the fixture
from .curation_support import compared, drag_slider, hover, index_of


@pytest.mark.slow
def test_heatmap_shows_the_matrix_the_core_computes(window):
    flows = [it.flow for it in window.model.ws.items]
    expected = np.array(delta_matrix(flows))
    cells = window.model.matrix  # the model the heatmap observes
    assert window.heatmap.matrix is cells
    assert np.array_equal(cells.matrix(), expected)
    assert cells.exact.all() and cells.cells_cut() == 0 and cells.complete_rows() == len(flows)
    from gindex_studio.ui.curation.heatmap import cell_colours

    assert np.array_equal(window.heatmap.colours, cell_colours(cells.values))  # it draws what the model holds
    # the display order is the clustering order, domains contiguous
    order = cells.order
    assert sorted(order) == list(range(len(flows)))
    doms = [window.model.ws.items[i].domain for i in order]
    assert all(doms.index(d) == len(doms) - 1 - doms[::-1].index(d) - (doms.count(d) - 1) for d in set(doms))


@pytest.mark.slow
def test_clicking_a_cell_opens_that_pair(window, qtbot):
    hm = window.heatmap
    i, j = index_of(window, "gmail-send-2.json"), index_of(window, "facebook-1.json")
    r, c = hm.matrix.order.index(i), hm.matrix.order.index(j)
    pos = hm.cell_center(r, c)
    qtbot.mouseMove(hm.plot.viewport(), pos)
    qtbot.mouseClick(hm.plot.viewport(), Qt.LeftButton, pos=pos)
    assert compared(window) == ("gmail-send-2.json", "facebook-1.json")


@pytest.mark.slow
def test_hovering_a_cell_tells_the_pair_and_delta(window, qtbot):
    hm = window.heatmap
    i, j = index_of(window, "youtube-resume-4.json"), index_of(window, "youtube-resume-1.json")
    r, c = hm.matrix.order.index(i), hm.matrix.order.index(j)
    pos = hm.cell_center(r, c)
    hover(hm.plot.viewport(), pos)
    qtbot.waitUntil(lambda: "youtube-resume-4.json" in hm.hover_text)
    assert "youtube-resume-1.json" in hm.hover_text and "Δ = 0.000000" in hm.hover_text


@pytest.mark.slow
def test_hover_text_follows_a_quick_move_to_the_next_cell(window):
    """The pointer passes over one cell and stops on the next within a few milliseconds: the
    text names the cell it stopped on (pyqtgraph's own move signal drops such a move)."""
    hm = window.heatmap
    for r, c in [(0, 1), (0, 2), (3, 1), (3, 2)]:
        hover(hm.plot.viewport(), hm.cell_center(r, c))
        assert hm.hover_text == hm.describe(r, c)


@pytest.mark.slow
def test_clicking_a_duplicate_group_member_opens_it_with_its_nearest_member(window, qtbot):
    view = window.duplicates
    window.tabs.setCurrentWidget(view)
    tree = view.tree
    target = None
    for k in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(k)
        for m in range(top.childCount()):
            if top.child(m).text(0).endswith("gmail-send-3.json"):
                target = top.child(m)
    assert target is not None
    rect = tree.visualItemRect(target)
    qtbot.mouseClick(tree.viewport(), Qt.LeftButton, pos=rect.center())
    ref, gen = compared(window)
    assert ref == "gmail-send-3.json" and gen.startswith("gmail-send-") and gen != ref


@pytest.mark.slow
def test_clicking_a_leak_opens_the_task_and_its_nearest_program(window, qtbot):
    view = window.leaks
    window.tabs.setCurrentWidget(view)
    table = view.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text().endswith("youtube-resume-4.json"))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualItemRect(table.item(row, 2)).center())
    assert compared(window) == ("youtube-resume-4.json", "youtube-resume-1.json")


@pytest.mark.slow
def test_moving_a_program_updates_leaks_undo_and_saved_experiment_scores_like_the_cli(window, qtbot, tmp_path, capsys):
    split = window.split
    window.tabs.setCurrentWidget(split)
    table = split.table
    src = index_of(window, "youtube-resume-1.json")
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualItemRect(table.item(src, 0)).center())
    assert window.model.selection == [src]
    qtbot.mouseClick(split.role_buttons["excluded"], Qt.LeftButton)
    assert window.model.ws.items[src].role == "excluded" and table.item(src, 2).text() == "excluded"
    window.wait_for_report()
    leaks = window.leaks.table
    names = {leaks.item(r, 0).text().rsplit("/", 1)[-1] for r in range(leaks.rowCount())}
    assert "youtube-resume-4.json" not in names and "gmail-send-4.json" in names

    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)  # Edit → Undo
    assert window.model.ws.items[src].role == "curriculum"
    window.wait_for_report()
    names = {leaks.item(r, 0).text().rsplit("/", 1)[-1] for r in range(leaks.rowCount())}
    assert "youtube-resume-4.json" in names
    qtbot.keyClick(window, Qt.Key_Y, Qt.ControlModifier)  # Redo (Ctrl+Y, as in the studio's other windows)
    assert window.model.ws.items[src].role == "excluded"
    window.wait_for_report()

    out = tmp_path / "curated" / "experiment.json"
    window.dialogs.save_path = str(out)
    qtbot.mouseClick(split.save_button, Qt.LeftButton)
    assert out.is_file() and not window.dialogs.errors
    exp = load_experiment(out)
    assert "youtube-resume-1.json" not in {p.path.name for c in exp.curriculum for p in c.programs}
    capsys.readouterr()
    assert main(["gindex", str(out), "--json", "--workers", "1"]) == 0
    assert orjson.loads(capsys.readouterr().out)["g_index"] == pytest.approx(compute_gindex(exp, workers=1).g_index,
                                                                             rel=1e-12)


@pytest.mark.slow
def test_leak_slider_filters_and_redraws_the_threshold(window, qtbot):
    view = window.leaks
    window.tabs.setCurrentWidget(view)
    before = view.table.rowCount()
    drag_slider(qtbot, view.slider.slider, 0)  # Δ ≤ 0: only the identical copy
    assert view.slider.slider.value() == 0 and window.model.leak_threshold == 0
    assert view.table.rowCount() == 1 and view.table.item(0, 0).text().endswith("youtube-resume-4.json")
    assert view.line.value() == 0.0
    assert " 1 leaks " in window.status.text()  # the status line follows the slider
    drag_slider(qtbot, view.slider.slider, 200)
    assert view.slider.slider.value() == 200
    assert view.table.rowCount() == 16 > before
    assert " 16 leaks " in window.status.text()


@pytest.mark.slow
def test_duplicate_slider_searches_again(window, qtbot):
    view = window.duplicates
    drag_slider(qtbot, view.slider.slider, 0)
    assert view.slider.slider.value() == 0
    window.wait_for_report()
    qtbot.waitUntil(lambda: window.model.report.duplicates.threshold == Fraction(0))
    assert view.tree.topLevelItemCount() == 1  # youtube-resume-1 = youtube-resume-4


@pytest.mark.slow
def test_selecting_on_the_map_selects_in_the_split_table(window, qtbot):
    view = window.map
    window.tabs.setCurrentWidget(view)
    qtbot.wait(50)
    i = index_of(window, "http-2.json")
    x, y = view.points[i]
    vb = view.plot.getViewBox()
    pos = view.plot.mapFromScene(vb.mapViewToScene(QPointF(x, y)))
    qtbot.mouseClick(view.plot.viewport(), Qt.LeftButton, pos=pos)
    assert i in window.model.selection
    assert i in window.split.selected()


@pytest.mark.slow
def test_screenshot_at_1366x768(window, tmp_path):
    window.resize(1366, 768)
    img = window.grab()
    assert img.width() >= 1366 - 2 and img.height() >= 768 - 2
    assert img.save(str(tmp_path / "curation.png"))


def test_file_menu_has_curate(qtbot, tmp_path, monkeypatch):
    from gindex_studio.ui.app import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = MainWindow(settings=__import__("PySide6.QtCore", fromlist=["QSettings"]).QSettings(
        str(tmp_path / "s.ini"), __import__("PySide6.QtCore", fromlist=["QSettings"]).QSettings.IniFormat),
        autosave_dir=str(tmp_path / "autosave"))
    qtbot.addWidget(win)
    file_menu = next(a.menu() for a in win.menuBar().actions() if a.text().replace("&", "") == "File")
    assert win.actions["file.curate"] in file_menu.actions()


@pytest.mark.slow
def test_hovering_many_cells_changes_no_widths_and_a_click_opens_the_pair_hovered(window, qtbot):
    """The hover is a tooltip: the window, the heatmap and the status line keep their sizes while
    the pointer passes over many cells (with long program names), and the heatmap does not move
    under the pointer, so a click opens the pair last hovered."""
    hm = window.heatmap
    qtbot.wait(50)
    before = (window.width(), hm.geometry(), hm.plot.geometry(), window.status.text())
    n = len(hm.matrix.order)
    cells = [(r, c) for r in range(0, n, max(1, n // 12)) for c in range(n - 1, -1, -max(1, n // 9))]
    assert len(cells) >= 80
    for r, c in cells:
        hover(hm.plot.viewport(), hm.cell_center(r, c))
        QApplication.processEvents()
        assert hm.hover_text == hm.describe(r, c)
    qtbot.wait(50)
    assert (window.width(), hm.geometry(), hm.plot.geometry(), window.status.text()) == before
    r, c = cells[-1]
    pos = hm.cell_center(r, c)
    qtbot.mouseClick(hm.plot.viewport(), Qt.LeftButton, pos=pos)
    i, j = hm.matrix.order[r], hm.matrix.cols[c]
    assert compared(window) == (Path(window.model.ws.items[i].label).name, Path(window.model.ws.items[j].label).name)
