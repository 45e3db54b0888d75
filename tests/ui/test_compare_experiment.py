"""The compare window with an experiment (task table, live g-index, saving back), the authoring
helpers, and the entry points (File menu, ``gindex-studio compare``)."""
from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from PySide6.QtCore import Qt

from gindex_studio.core.scoring.divergence import ScoreOptions, score
from gindex_studio.core.benchmark.experiment import load_experiment, with_edits
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.paths import DEMO_DIR

from .conftest import shown_compare_window
from .test_compare import demo_pair, settle


class Scripted:
    def __init__(self):
        self.errors = []
        self.next_file = None
        self.next_dir = None
        self.save_answer = "discard"

    def error(self, title, text):
        self.errors.append((title, text))

    def open_file(self, title, filt):
        return self.next_file

    def open_directory(self, title):
        return self.next_dir

    def save_file(self, title, suggestion, filt=""):
        return self.next_file

    def ask_save(self, name):
        return self.save_answer

    def ask_pair(self, reference=""):
        return None


@pytest.fixture
def demo_copy(tmp_path):
    """The demo experiment in a folder of its own (saving must not touch the installed data)."""
    dst = tmp_path / "demo"
    for sub in ("programs", "generated"):
        shutil.copytree(Path(DEMO_DIR, sub), dst / sub)
    shutil.copy(Path(DEMO_DIR, "experiment.json"), dst / "experiment.json")
    return dst / "experiment.json"


@pytest.fixture
def cwin(qtbot, library):
    win = shown_compare_window(qtbot, library, 1500, 950)
    win.dialogs = Scripted()
    yield win
    win.view.runner.wait(5000)
    win.controller.runner.wait(5000)


def settle_g(qtbot, win, timeout=10_000):
    c = win.controller
    qtbot.waitUntil(lambda: c.result is not None and not c.timer.isActive() and not c.runner.busy, timeout=timeout)


@pytest.mark.slow
def test_experiment_table_sorts_filters_and_opens_tasks(cwin, qtbot, demo_copy):
    assert cwin.open_experiment(str(demo_copy))
    settle_g(qtbot, cwin)
    exp = load_experiment(demo_copy)
    expected = compute_gindex(exp, workers=1)
    res = cwin.controller.result
    assert res.g_index == pytest.approx(expected.g_index)
    assert f"{expected.g_index:,.3f}" in cwin.tasks.g_label.text()
    assert "mean θ" in cwin.tasks.components.text() and "ρ = 0.0001" in cwin.tasks.components.text()
    from gindex_studio.core.benchmark.gindex import bootstrap_interval

    ci = bootstrap_interval(expected)
    assert f"95% interval {ci.low:,.1f} … {ci.high:,.1f}" in cwin.tasks.components.text()
    panel = cwin.tasks
    assert panel.proxy.rowCount() == len(exp.tasks)
    # the worst task opens first
    settle(qtbot, cwin.view)
    worst = max(expected.tasks, key=lambda t: t.delta)
    assert cwin.current_task == worst.index
    # failures only, a domain, text
    panel.failures.setChecked(True)
    assert set(panel.visible_tasks()) == {t.id for t in expected.tasks if t.delta > 0 or t.syntax}
    panel.failures.setChecked(False)
    panel.domain.setCurrentIndex(panel.domain.findData("twitter"))
    assert panel.visible_tasks() == ["twitter-4"]
    panel.domain.setCurrentIndex(0)
    panel.search.setText("telegram")
    assert set(panel.visible_tasks()) == {"telegram-2-reply-4", "telegram-3-reply-4"}
    panel.search.clear()
    # sorting by Δ, descending
    col = ["Task", "Domain", "Prompt", "Δ", "θ", "Behaves", "Ω", "TC", "Exact"].index("Δ")
    panel.table.sortByColumn(col, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.DescendingOrder)
    deltas = [float(panel.proxy.index(r, col).data()) for r in range(panel.proxy.rowCount())]
    assert deltas == sorted(deltas, reverse=True)
    # clicking a task opens it in the compare view
    k = exp.task_index("telegram-2-reply-4")
    row = panel.proxy.mapFromSource(panel.model.index(k, 0))
    panel.table.selectionModel().setCurrentIndex(row, panel.table.selectionModel().SelectionFlag.ClearAndSelect)
    settle(qtbot, cwin.view)
    assert cwin.current_task == k
    assert cwin.view.result.delta == expected.tasks[k].delta


@pytest.mark.slow
def test_editing_a_task_updates_the_gindex_as_the_core_computes_and_saves_back(cwin, qtbot, demo_copy):
    cwin.open_experiment(str(demo_copy))
    settle_g(qtbot, cwin)
    before = cwin.controller.result.g_index
    exp0 = load_experiment(demo_copy)
    k = exp0.task_index("telegram-2-reply-4")
    cwin.tasks.select_task(k)
    settle(qtbot, cwin.view)
    expected_before_delta = cwin.view.result.delta
    gen = cwin.view.gen
    key = next(w for w in gen.scene.wires)  # delete the receiver's wire: a dataflow error
    gen.scene.select_wire(key)
    gen.delete_selection()
    settle(qtbot, cwin.view)
    settle_g(qtbot, cwin)
    # the same edit on a fresh copy of the experiment, computed by the core
    exp = load_experiment(demo_copy)
    exp.tasks[k].set_generated_flow(gen.doc.flow.copy())
    expected = compute_gindex(exp, workers=1)
    res = cwin.controller.result
    assert res.g_index == pytest.approx(expected.g_index, rel=1e-12)
    assert res.g_index != pytest.approx(before)
    assert res.tasks[k].delta == expected.tasks[k].delta == cwin.view.result.delta
    assert res.tasks[k].tc == pytest.approx(expected.tasks[k].tc)
    assert "→" in cwin.tasks.g_label.text()
    assert k in cwin.controller.edited and cwin.tasks.save_button.isEnabled()
    # the table marks the task as a what-if edit, and the window says so
    row = cwin.tasks.proxy.mapFromSource(cwin.tasks.model.index(k, 0))
    assert cwin.tasks.proxy.data(row).startswith("✎ ")
    assert cwin.tasks.edits_label.isVisible() and "not the model's output" in cwin.tasks.edits_label.text()
    # save back: the model's recorded output is kept, the edit is written beside it
    recorded = orjson.loads(demo_copy.read_bytes())["tasks"][k]["generated"]
    assert cwin.save_experiment()
    saved = orjson.loads(demo_copy.read_bytes())["tasks"][k]
    assert saved["generated"] == recorded and "file" in recorded
    assert saved["edited"]["generated"]["json"] == gen.doc.flow.to_json_value()
    assert "not the system's output" in saved["edited"]["note"]
    again = load_experiment(demo_copy)
    assert compute_gindex(again, workers=1).g_index == pytest.approx(before, rel=1e-12)  # the model's own
    assert compute_gindex(with_edits(again), workers=1).g_index == pytest.approx(expected.g_index, rel=1e-12)
    assert not cwin.tasks.save_button.isEnabled()
    # Revert to Model Output, pressed where a user would: the recorded output is on screen and scored
    button = cwin.tasks.revert_button
    assert button.isVisible()
    qtbot.mouseClick(button, Qt.LeftButton, pos=button.rect().center())
    settle(qtbot, cwin.view)
    settle_g(qtbot, cwin)
    assert cwin.controller.result.g_index == pytest.approx(before, rel=1e-12)
    assert cwin.view.result.delta == expected_before_delta
    assert not button.isVisible() and not cwin.tasks.edits_label.isVisible()
    assert cwin.save_experiment()
    assert "edited" not in orjson.loads(demo_copy.read_bytes())["tasks"][k]


def test_editing_the_reference_recomputes_omega_too(cwin, qtbot, demo_copy):
    cwin.open_experiment(str(demo_copy))
    settle_g(qtbot, cwin)
    exp = load_experiment(demo_copy)
    k = exp.task_index("twitter-4")
    cwin.tasks.select_task(k)
    settle(qtbot, cwin.view)
    ref = cwin.view.ref
    victim = next(i for i in ref.doc.drawn_ids())
    ref.scene.select_nodes([victim])
    ref.delete_selection()
    settle(qtbot, cwin.view)
    settle_g(qtbot, cwin)
    exp.tasks[k].set_reference_flow(ref.doc.flow.copy())
    expected = compute_gindex(exp, workers=1)
    assert cwin.controller.result.tasks[k].omega == pytest.approx(expected.tasks[k].omega)
    assert cwin.controller.result.g_index == pytest.approx(expected.g_index, rel=1e-12)


@pytest.mark.slow
def test_switching_profile_in_an_experiment_recomputes_everything(cwin, qtbot, demo_copy):
    cwin.open_experiment(str(demo_copy))
    settle_g(qtbot, cwin)
    settle(qtbot, cwin.view)
    cwin.view.panel.profile.setCurrentText("companion")
    settle(qtbot, cwin.view)
    # the old result stands until the recomputation starts: wait for the new profile's, not for
    # a moment where nothing runs (under load that came before the recomputation was submitted)
    qtbot.waitUntil(lambda: cwin.controller.result is not None and cwin.controller.result.profile == "companion",
                    timeout=60_000)
    settle_g(qtbot, cwin, timeout=60_000)
    expected = compute_gindex(load_experiment(demo_copy), ScoreOptions(profile="companion"), workers=1)
    assert cwin.controller.result.g_index == pytest.approx(expected.g_index, rel=1e-12)
    assert cwin.controller.result.profile == "companion"


def test_copy_a_missing_node_across_with_its_wires(cwin, qtbot):
    cwin.open_pair(*demo_pair("telegram-2-reply"))
    v = cwin.view
    settle(qtbot, v)
    missing = next(i for i in v.result.missing_nodes if v.ref.doc.is_drawn(i))
    v.select_node("reference", missing)
    assert v.copy_node_button.isEnabled() and "generated" in v.copy_node_button.text()
    depth = v.gen.undo_stack.count()
    new_id = v.copy_selected_node()
    assert v.gen.undo_stack.count() == depth + 1  # one undo entry
    node = v.gen.doc.node(new_id)
    assert node.type == v.ref.doc.node(missing).type
    phi = {p.reference: p.generated for p in v.result.mapping}
    # wires to and from mapped neighbours are there, remapped to the partners
    for s, port, d in v.ref.doc.connected_wires(missing):
        if s == missing and d in phi:
            assert phi[d] in node.ports[port]
        if d == missing and s in phi:
            assert new_id in v.gen.doc.node(phi[s]).ports[port]
    settle(qtbot, v)
    assert v.result.delta == score(v.ref.doc.flow.copy(), v.gen.doc.flow.copy()).delta
    assert (missing, new_id) in {(p.reference, p.generated) for p in v.result.mapping}
    v.gen.undo_stack.undo()
    assert not v.gen.doc.has(new_id)


def test_copy_one_attribute_value_across(cwin, qtbot):
    cwin.open_pair(*demo_pair("template-slider"))
    v = cwin.view
    settle(qtbot, v)
    pair = next(p for p in v.result.mapping if p.w < 1)
    key = pair.differing_keys[0]
    v.select_node("reference", pair.reference)
    row = v.attr.keys.index(key)
    v.attr.table.selectRow(row)
    assert v.attr.selected_key() == key
    v.attr.to_gen.click()
    assert v.gen.doc.node(pair.generated).data.get(key) == v.ref.doc.node(pair.reference).data.get(key)
    settle(qtbot, v)
    new = v.result.pair_of(pair.reference)
    assert new is not None and key not in new.differing_keys
    v.gen.undo_stack.undo()
    settle(qtbot, v)
    assert key in v.result.pair_of(pair.reference).differing_keys
    # and the other way, through the window's action
    v.select_node("reference", pair.reference)
    v.attr.table.selectRow(v.attr.keys.index(key))
    cwin.actions["compare.attr_to_ref"].trigger()
    assert v.ref.doc.node(pair.reference).data.get(key) == v.gen.doc.node(pair.generated).data.get(key)
    assert v.ref.undo_stack.count() == 1


def test_open_pair_reports_bad_files(cwin, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    assert not cwin.open_pair(str(bad), demo_pair("http")[1])
    assert cwin.dialogs.errors and "reference" in cwin.dialogs.errors[-1][0].lower()
    assert not cwin.open_pair(demo_pair("http")[0], str(tmp_path / "nope.txt"))


def test_main_compare_rejects_missing_files(capsys):
    from gindex_studio.ui.compare.window import main_compare

    assert main_compare("/nonexistent/ref.json", "/nonexistent/gen.txt") == 1
    assert "no such file" in capsys.readouterr().err


def test_studio_window_has_compare_actions(window, qtbot, monkeypatch):
    from gindex_studio.ui import app
    from gindex_studio.ui.compare import window as cw

    assert hasattr(app, "main_compare")
    acts = {aid: window.actions[aid] for aid in window.features["compare"].actions()}
    assert set(acts) == {"file.compare", "file.open_experiment", "file.run_system"}
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.menu() and a.text().replace("&", "") == "File")
    assert acts["file.compare"] in file_menu.actions()
    ref, gen = demo_pair("telegram-2-reply")
    monkeypatch.setattr(cw.CompareDialogs, "ask_pair", lambda self, reference="": (ref, gen, None))
    acts["file.compare"].trigger()
    win = cw.WINDOWS[-1]
    qtbot.addWidget(win)
    settle(qtbot, win.view)
    assert win.view.result.delta == pytest.approx(0.234375)
    win.view.runner.wait(5000)


def test_companion_experiment_loads_read_only_with_its_domain_folder(cwin, qtbot, tmp_path):
    import json

    from gindex_studio.core.benchmark.experiment import load_companion_experiment
    from gindex_studio.core.benchmark.gindex import compute_companion_gindex

    value = {
        "model": {"name": "GPT2", "train_params": {"model_name": "gpt2-medium"}},
        "train_set": {"data": [{"name": "http", "num_samples": 80}, {"name": "twitter", "num_samples": 40}], "total": 120},
        "test_set": {"data": [{"name": "telegram-2-reply", "num_samples": 4}]},
        "train_cost": {"time": 2392, "compute": 74.75},
        "performance": {"divergence": 0.234, "domains": [{"name": "telegram-2-reply", "num_samples": 4, "divergence": 0.234, "perfects": 0.25}]},
    }
    path = tmp_path / "companion.json"
    path.write_text(json.dumps(value))
    cwin.dialogs.next_dir = str(Path(DEMO_DIR, "programs"))
    assert cwin.open_experiment(str(path))
    settle_g(qtbot, cwin)
    expected = compute_companion_gindex(load_companion_experiment(path, Path(DEMO_DIR, "programs")))
    assert cwin.controller.mode == "companion"
    assert cwin.controller.result.g_index == pytest.approx(expected.g_index)
    assert "companion aggregate mode" in cwin.tasks.components.text()
    assert cwin.tasks.visible_tasks() == ["telegram-2-reply"]
    assert not cwin.tasks.save_button.isEnabled()


def test_unmatched_node_shows_the_closest_candidate_and_copies_values_from_it(cwin, qtbot):
    cwin.open_pair(*demo_pair("telegram-2-reply"))
    v = cwin.view
    settle(qtbot, v)
    missing = next(i for i in v.result.missing_nodes if v.ref.doc.node(i).type == "chatbot-message")
    v.select_node("reference", missing)
    cand = v.closest_unmatched("reference", missing)
    assert cand is not None and cand[0] in v.result.extra_nodes
    assert "Closest unmatched" in v.attr.title.text() and set(v.attr.differing) == set(cand[2])
    key = cand[2][0]
    v.attr.table.selectRow(v.attr.keys.index(key))
    v.attr.to_gen.click()
    assert v.gen.doc.node(cand[0]).data[key] == v.ref.doc.node(missing).data[key]
    settle(qtbot, v)
    assert v.result.delta == score(v.ref.doc.flow.copy(), v.gen.doc.flow.copy()).delta


def test_big_programs_show_an_anytime_result_first(qtbot, library, monkeypatch):
    import random

    from gindex_studio.core.flows.generate import perturb, random_flow
    from gindex_studio.core.scoring import anytime
    from gindex_studio.ui.compare.view import CompareView

    monkeypatch.setattr(anytime, "QUICK_DEADLINE", 0.0)  # cut the first pass at once
    rng = random.Random(7)
    ref = random_flow(40, rng)
    gen = perturb(ref, rng, 0.15)
    v = CompareView(library)
    qtbot.addWidget(v)
    v.show()
    seen = []
    v.runner.partial.connect(lambda r: seen.append(("partial", r.exact, v.panel.status_label.text())))
    v.scored.connect(lambda r: seen.append(("final", r.exact, v.panel.status_label.text())))
    v.set_pair(ref, gen)
    settle(qtbot, v)
    assert seen[-1][:2] == ("final", True) and "exact" in seen[-1][2]
    # the quick pass could not prove optimality: its result and bound were on screen first
    assert len(seen) == 2 and seen[0][:2] == ("partial", False) and "anytime" in seen[0][2]
    assert v.result.delta == score(ref, gen).delta
    v.runner.wait(5000)


def test_gindex_studio_compare_opens_the_window(monkeypatch):
    from PySide6.QtWidgets import QApplication

    from gindex_studio import cli
    from gindex_studio.ui.compare import window as cw

    opened = []
    monkeypatch.setattr(QApplication, "exec", lambda self=None: opened.append(cw.WINDOWS[-1]) or 0)
    ref, gen = demo_pair("telegram-2-reply")
    assert cli.main(["compare", ref, gen]) == 0
    win = opened[0]
    assert win.view.ref.doc.path == ref
    win.view.runner.wait(5000)
    win.close()


def test_the_table_marks_the_tasks_the_core_flags_as_leaks(cwin, qtbot, demo_copy):
    from PySide6.QtCore import Qt

    assert cwin.open_experiment(str(demo_copy))
    settle_g(qtbot, cwin)
    res = cwin.controller.result
    model = cwin.tasks.model
    col = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())].index("Ω")
    # the core's flag (Ω ≤ 0.05): the copy youtube-resume-4 and three near-copies
    flagged = {t.id for t in res.tasks if t.leak}
    assert flagged == {"youtube-resume-4", "gmail-send-4", "google-search-4", "youtube-play-4"}
    for t in res.tasks:
        text = model.data(model.index(t.index, col))
        assert text.endswith(" leak") == (t.id in flagged), t.id
        assert (model.data(model.index(t.index, col), Qt.ForegroundRole) is not None) == (t.id in flagged)
    k = cwin.controller.experiment.task_index("youtube-resume-4")
    tip = model.data(model.index(k, col), Qt.ToolTipRole)
    assert "identical" in tip and "leaks from training" in tip and res.tasks[k].nearest in tip
    k = cwin.controller.experiment.task_index("gmail-send-4")
    tip = model.data(model.index(k, col), Qt.ToolTipRole)
    assert "near-identical" in tip and "Ω = 0.024" in tip


def test_task_column_fits_the_rows_scrolled_into_view(cwin, qtbot, demo_copy):
    """The columns fit the rows on screen (measuring every row on every change made each finished
    task cost O(rows) on the GUI thread); rows scrolled into view by the wheel are fitted too."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    assert cwin.open_experiment(str(demo_copy))
    settle_g(qtbot, cwin)
    panel = cwin.tasks
    table, header = panel.table, panel.table.horizontalHeader()
    table.sortByColumn(0, Qt.AscendingOrder)
    ids = [panel.proxy.index(r, 0).data() for r in range(panel.proxy.rowCount())]
    longest = max(range(len(ids)), key=lambda r: len(ids[r]))
    table.setFixedHeight(table.horizontalHeader().height() + 3 * table.verticalHeader().defaultSectionSize() + 4)
    table.scrollToTop()  # (the worst task, opened first, was scrolled into view)
    qtbot.waitUntil(lambda: 0 <= table.rowAt(table.viewport().height() - 1) < longest)
    on_screen = range(table.rowAt(table.viewport().height() - 1) + 1)
    fm = table.fontMetrics()
    assert max(fm.horizontalAdvance(ids[r]) for r in on_screen) < fm.horizontalAdvance(ids[longest])  # not yet
    narrow = header.sectionSize(0)
    assert narrow < fm.horizontalAdvance(ids[longest])
    vp = table.viewport()
    centre = QPointF(vp.rect().center())
    while not (table.rowAt(0) <= longest <= table.rowAt(vp.height() - 1)):  # the user turns the wheel
        before = table.verticalScrollBar().value()
        ev = QWheelEvent(centre, QPointF(vp.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, -120),
                         Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
        QApplication.sendEvent(vp, ev)
        assert table.verticalScrollBar().value() > before
    qtbot.waitUntil(lambda: header.sectionSize(0) >= fm.horizontalAdvance(ids[longest]))
    assert header.resizeContentsPrecision() == 0
