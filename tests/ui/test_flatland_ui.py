"""Flatland in the studio, driven by real gestures: open a .fbp, edit a move's distance in the
inspector and see the Drawing dock change; step through; loop body ports and wires; save; the
compare window; Augment and New Flatland Dataset from the menu."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDoubleSpinBox, QFileDialog, QInputDialog

from gindex_studio.core.flows.checks import cycle_problems
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file
from gindex_studio.core.flatland.score import draw, score
from gindex_studio.ui.canvas.items import LOOP_BODY_COLOR

from .conftest import click


def _open(window, qtbot, path):
    n = len(window.editors())
    window.open_files([str(path)])
    qtbot.waitUntil(lambda: len(window.editors()) > n or bool(window.dialogs.errors), timeout=5000)
    return window.editor


def _ink(widget) -> int:
    """Dark pixels of what the widget shows."""
    img = widget.grab().toImage()
    return sum(1 for y in range(0, img.height(), 2) for x in range(0, img.width(), 2)
               if img.pixelColor(x, y).lightness() < 80)


@pytest.fixture
def square_file(tmp_path):
    for name in ("square.fbp", "polygon.fbp"):
        shutil.copy(LIBRARY_DIR / name, tmp_path / name)
    return tmp_path / "square.fbp"


def test_editing_a_move_distance_changes_the_drawing(window, qtbot, square_file):
    ed = _open(window, qtbot, square_file)
    panel = window.features["flatland"].panel
    window.docks["drawing"].raise_()
    qtbot.waitUntil(lambda: panel.trace is not None, timeout=3000)
    before = panel.image.copy()
    assert (before == draw(load_file(square_file))).all()
    ink_before = _ink(panel.view)
    # click the move node's body on the canvas, then type a new distance in the inspector
    item = ed.scene.nodes["quad/edge"]
    ed.view.centerOn(item)
    click(ed.view, item.sceneBoundingRect().center())
    qtbot.waitUntil(lambda: window.inspector.node_id == "quad/edge", timeout=2000)
    spin = window.inspector.editors["dist"]
    assert isinstance(spin, QDoubleSpinBox) and spin.value() == 48
    spin.setFocus()
    spin.selectAll()
    QTest.keyClicks(spin, "20")
    QTest.keyClick(spin, Qt.Key_Return)
    qtbot.waitUntil(lambda: ed.doc.get_attribute("quad/edge", "dist") == 20, timeout=2000)
    qtbot.waitUntil(lambda: not (panel.image == before).all(), timeout=2000)
    # the model, the drawing and the pixels on screen all changed: a 20-unit square
    assert panel.image.sum() < before.sum()
    xs = np.nonzero(panel.image.any(axis=0))[0]
    assert xs.max() - xs.min() in (20, 21)  # 40 → 60, the way back lands at 39.999…
    assert _ink(panel.view) < ink_before
    # undo brings the drawing back
    window.undo_group.undo()
    qtbot.waitUntil(lambda: (panel.image == before).all(), timeout=2000)


def test_step_through_highlights_the_node_of_each_segment(window, qtbot, square_file):
    ed = _open(window, qtbot, square_file)
    panel = window.features["flatland"].panel
    window.docks["drawing"].raise_()
    qtbot.waitUntil(lambda: panel.trace is not None, timeout=3000)
    QTest.mouseClick(panel.stepping, Qt.LeftButton)
    assert panel.current_step() == 1 and panel.image.sum() < draw(load_file(square_file)).sum()
    assert "drawn by quad/edge" in panel.step_label.text()
    assert ed.scene.selected_node_ids() == ["quad/edge"]
    panel.slider.setFocus()
    QTest.keyClick(panel.slider, Qt.Key_Right)
    assert panel.current_step() == 2 and panel.view.segment is not None
    img = panel.view.grab().toImage()
    red = sum(1 for y in range(0, img.height(), 2) for x in range(0, img.width(), 2)
              if img.pixelColor(x, y).red() > 180 and img.pixelColor(x, y).green() < 90)
    assert red > 5  # the current segment is drawn in red


def test_loop_body_is_drawn_distinctly_and_its_cycle_is_no_problem(window, qtbot, tmp_path):
    shutil.copy(LIBRARY_DIR / "circle.fbp", tmp_path / "circle.fbp")
    ed = _open(window, qtbot, tmp_path / "circle.fbp")
    body = [w for w in ed.scene.items() if getattr(w, "port", None) == 1 and getattr(w, "src", None) is not None]
    assert body and body[0].pen().color().name() == LOOP_BODY_COLOR and body[0].pen().style() == Qt.DashLine
    assert cycle_problems(ed.doc.flow) == []  # the loop's own cycle
    assert not [p for p in ed.doc.problems() if p.kind == "cycle"]


def test_save_as_fbp_and_lisp_round_trip(window, qtbot, square_file, tmp_path):
    ed = _open(window, qtbot, square_file)
    program = load_file(square_file)
    for name in ("out.fbp", "out.lisp"):
        assert window._write(ed, str(tmp_path / name))
        assert load_file(tmp_path / name).to_json() == program.to_json()


def test_compare_window_shows_both_drawings_and_the_core_delta(qtbot, tmp_path):
    from gindex_studio.ui.flatland.actions import open_compare

    gen = tmp_path / "gen.fbp"
    gen.write_text('#include "polygon.fbp"\nsq(start) -> p(polygon 30 4)\np -> sq(end)\n'
                   '{"position":[40,40], "theta":0} -> sq()\n')
    w = open_compare(str(LIBRARY_DIR / "square.fbp"), str(gen))
    qtbot.addWidget(w)
    qtbot.waitExposed(w)
    ref_p, gen_p = load_file(LIBRARY_DIR / "square.fbp"), load_file(gen)
    assert w.result.delta == score(ref_p, gen_p).delta
    assert f"Δ = {w.result.delta:.4f}" in w.summary.text() and "image similarity" in w.summary.text()
    assert _ink(w.views["reference"]) > _ink(w.views["generated"]) > 0  # a 48-unit and a 30-unit square
    ov = w.views["overlay"].grab().toImage()
    colours = {ov.pixelColor(x, y).name() for y in range(0, ov.height(), 2) for x in range(0, ov.width(), 2)}
    assert "#d62728" in colours and "#000000" in colours  # reference-only ink and shared ink
    w.resize(1366, 420)
    w.grab().save(str(tmp_path / "compare.png"))


def test_augment_and_dataset_from_the_menu(window, qtbot, square_file, tmp_path, monkeypatch):
    _open(window, qtbot, square_file)
    out = tmp_path / "variants"
    out.mkdir()
    answers = iter([(3, True), (5, True)])
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: next(answers))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    window.findChild(QAction, "flatland.augment").trigger()
    assert sorted(p.name for p in out.iterdir())[:3] == ["square-001.json", "square-001.lisp", "square-001.png"]
    assert len(list(out.glob("*.lisp"))) == 3
    from gindex_studio.ui.flatland.actions import write_new_dataset

    assert write_new_dataset(str(tmp_path / "ds"), seed=1, per_domain=1, per_test_domain=1) == 23
    assert (tmp_path / "ds" / "test" / "medium").is_dir()


def test_the_docks_drawing_size_is_the_renderers():
    """The dock keeps its own copy of the side (so that it loads no numpy before a drawing)."""
    from gindex_studio.core.flatland import render
    from gindex_studio.ui.flatland import drawing

    assert drawing.SIZE == render.SIZE
