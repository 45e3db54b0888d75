"""A Flatland experiment in the compare window, driven through real widgets: opened with the
keyboard, the task table's Δ, Ω and the g-index as the core computes them, a task opened by a
click on its row, and View → Flatland Drawings (Ctrl+Shift+F) showing its drawings and Δ."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.flatland.dataset import generate, write_dataset
from gindex_studio.core.benchmark.gindex import compute_gindex

from .test_compare import settle
from .test_compare_experiment import cwin, settle_g  # noqa: F401  (cwin: the compare window fixture)


@pytest.fixture(scope="module")
def flat_experiment(tmp_path_factory):
    root = tmp_path_factory.mktemp("flatui")
    tasks = generate(seed=11, per_domain=2, per_test_domain=1)
    write_dataset(tasks, root)
    train = sorted({t.domain for t in tasks if t.split == "train"})
    medium = [t for t in tasks if t.split == "medium"]
    answers = [(root / "train" / "circles-3" / "circles-3-001.fbp").read_text(), medium[1].text,
               "p(start) -> m(move 20 0)\nm -> t(turn 90)\nt -> p(end)\n{} -> p()\n", "not a program"]
    exp = {
        "format": "gindex-studio.experiment/1", "name": "flatland ui", "system": "s", "profile": "flatland",
        "compute": {"total": 64},
        "curriculum": [{"domain": d, "programs": [f"train/{d}"], "samples": 2} for d in train],
        "tasks": [{"id": t.name, "domain": t.domain, "reference": f"test/medium/{t.domain}/{t.name}.fbp",
                   "generated": {"text": a}} for t, a in zip(medium, answers)],
    }
    path = root / "experiment.json"
    path.write_text(json.dumps(exp))
    return path


def test_flatland_experiment_table_task_and_drawings(cwin, qtbot, flat_experiment):
    drawings = cwin.actions["view.flatland_drawings"]
    view_menu = next(a.menu() for a in cwin.menuBar().actions() if a.text().replace("&", "") == "View")
    assert drawings in view_menu.actions() and drawings.shortcut().toString() == "Ctrl+Shift+F"
    assert not drawings.isEnabled()
    cwin.dialogs.next_file = str(flat_experiment)
    qtbot.keyClick(cwin, Qt.Key_O, Qt.ControlModifier | Qt.ShiftModifier)
    settle_g(qtbot, cwin, timeout=60_000)
    expected = compute_gindex(load_experiment(flat_experiment), workers=1)
    res = cwin.controller.result
    assert res.profile == "flatland" and res.g_index == pytest.approx(expected.g_index)
    assert f"{expected.g_index:,.3f}" in cwin.tasks.g_label.text()
    panel = cwin.tasks
    assert panel.proxy.rowCount() == 4
    cols = ["Task", "Domain", "Prompt", "Δ", "θ", "Behaves", "Ω", "TC", "Exact"]
    for r in range(4):
        k = panel.proxy.mapToSource(panel.proxy.index(r, 0)).row()
        t = expected.tasks[k]
        assert float(panel.proxy.index(r, cols.index("Δ")).data()) == pytest.approx(t.delta, abs=1e-3)
        assert float(panel.proxy.index(r, cols.index("Ω")).data()) == pytest.approx(t.omega, abs=1e-3)
    assert expected.tasks[1].delta == 0 and expected.tasks[3].syntax is not None
    assert drawings.isEnabled()
    # a click on the third task's row opens it in the compare view
    k = 2
    row = panel.proxy.mapFromSource(panel.model.index(k, 0))
    rect = panel.table.visualRect(row)
    qtbot.mouseClick(panel.table.viewport(), Qt.LeftButton, pos=rect.center())
    settle(qtbot, cwin.view)
    assert cwin.current_task == k
    assert cwin.view.result.delta == expected.tasks[k].delta
    # View → Flatland Drawings by its shortcut
    cwin.activateWindow()
    qtbot.keyClick(cwin, Qt.Key_F, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: getattr(cwin, "flatland_drawings", None) is not None, timeout=10_000)
    fc = cwin.flatland_drawings
    assert fc.result.delta == expected.tasks[k].delta
    assert f"Δ = {expected.tasks[k].delta:.4f}" in fc.summary.text()
    assert fc.ref_image.any() and fc.gen_image.any() and "image similarity" in fc.summary.text()
    fc.close()
