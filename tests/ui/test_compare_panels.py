"""The compare window has the flow editor's own palette, inspector and history, following the side
last selected on or focused: a node of either side is edited in the inspector (one undo command
on that side's stack) and nodes are added from the palette or quick-add on either canvas; Δ
follows, as the core computes it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtTest import QTest

from gindex_studio.core.scoring.divergence import score
from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui.compare.panel import fmt
from gindex_studio.ui.panels.inspector import Inspector, JsonEditor
from gindex_studio.ui.panels.palette import Palette

from .conftest import shown_compare_window, snapshot, vp_point

DEMO = Path(DEMO_DIR)
DOMAIN = "telegram-2-reply"


@pytest.fixture
def cwin(qtbot, library):
    win = shown_compare_window(qtbot, library, 1800, 1000)
    assert win.open_pair(str(DEMO / "programs" / DOMAIN / f"{DOMAIN}-4.json"),
                         str(DEMO / "generated" / f"{DOMAIN}-4.txt"))
    settle(qtbot, win.view)
    yield win
    win.view.runner.cancel()
    win.view.runner.wait(5000)


def settle(qtbot, view, timeout=10_000):
    qtbot.waitUntil(lambda: view.result is not None and not view.timer.isActive() and not view.runner.busy,
                    timeout=timeout)


def core_delta(view) -> float:
    r = score(view.ref.doc.flow, view.gen.doc.flow, view.options)
    assert r.exact
    return r.delta


def assert_panel_shows_core(view) -> None:
    want = core_delta(view)
    assert view.result.exact and view.result.delta == want
    assert view.panel.delta_label.text() == f"Δ = {fmt(want)}"


def mapped_chatbot_message(view) -> tuple[str, str]:
    """A mapped pair of chatbot-message nodes (their "message" attribute counts for w)."""
    for p in view.result.mapping:
        if view.gen.doc.node(p.generated).type == "chatbot-message" and p.w == 1:
            return p.reference, p.generated
    raise AssertionError("no identical chatbot-message pair in the demo task")


def test_the_panels_are_the_editors_own_widgets(cwin):
    assert isinstance(cwin.inspector, Inspector) and isinstance(cwin.palette, Palette)
    assert cwin.docks["inspector"].isVisible() and cwin.docks["palette"].isVisible()
    # one column of tabs on the right (the canvases get the width; issue 7, defect 5)
    assert cwin.dockWidgetArea(cwin.docks["palette"]) == Qt.RightDockWidgetArea
    assert cwin.dockWidgetArea(cwin.docks["inspector"]) == Qt.RightDockWidgetArea
    assert cwin.docks["palette"] in cwin.tabifiedDockWidgets(cwin.docks["inspector"])
    panels = next(a.menu() for a in cwin.menuBar().actions() if a.text().replace("&", "") == "Panels")
    names = {a.objectName() for a in panels.actions()}
    assert {"panels.palette", "panels.inspector", "panels.history", "panels.experiment"} <= names


def test_the_inspector_follows_the_selected_side(cwin, qtbot):
    v = cwin.view
    ref_id, gen_id = mapped_chatbot_message(v)
    v.select_node("reference", ref_id)
    # the partner is revealed on the generated side, but the inspector stays on the user's pick
    assert v.gen.scene.selected_node_ids() == [gen_id]
    assert cwin.inspector.editor is v.ref and cwin.inspector.node_id == ref_id
    assert cwin.active_role == "reference" and "reference" in cwin.docks["inspector"].windowTitle()
    v.select_node("generated", gen_id)
    assert cwin.inspector.editor is v.gen and cwin.inspector.node_id == gen_id
    assert cwin.active_role == "generated" and "generated" in cwin.docks["inspector"].windowTitle()
    assert cwin.undo_group.activeStack() is v.gen.undo_stack
    # stepping through the differences points it at the difference's node
    d = v.goto_difference(0)
    role, nid = ("reference", d.reference[0]) if d.reference else ("generated", d.generated[0])
    assert cwin.inspector.editor is v.editors[role] and cwin.inspector.node_id == nid
    # focusing a side's canvas points it at that side's selection
    v.ref.scene.select_nodes([])
    v.gen.scene.select_nodes([gen_id])
    v.gen.view.setFocus()
    qtbot.waitUntil(lambda: cwin.inspector.editor is v.gen)
    assert cwin.inspector.node_id == gen_id


def test_editing_a_generated_node_in_the_inspector_updates_delta(cwin, qtbot):
    v = cwin.view
    before = v.result.delta
    ref_before, gen_before = snapshot(v.ref.doc), snapshot(v.gen.doc)
    _ref_id, gen_id = mapped_chatbot_message(v)
    v.select_node("generated", gen_id)
    assert cwin.inspector.editor is v.gen and cwin.inspector.node_id == gen_id
    # the JSON editor of the node's "message" attribute, edited as a user would
    w = cwin.inspector.editors["message"]
    assert isinstance(w, JsonEditor)
    w.text.setPlainText(json.dumps([{"message": "Something the reference never says"}]))
    w.committed.emit()
    assert v.gen.undo_stack.count() == 1 and v.ref.undo_stack.count() == 0
    assert v.gen.undo_stack.text(0) == f"Edit Message of {v.gen.doc.label(gen_id)}"  # the library's words
    assert v.gen.doc.node(gen_id).data["message"] == [{"message": "Something the reference never says"}]
    settle(qtbot, v)
    assert_panel_shows_core(v)
    assert v.result.delta > before
    assert v.result.pair_of(gen_id, "generated") is None or v.result.pair_of(gen_id, "generated").w < 1
    # Edit → Undo (the active side is the generated one) restores the program and Δ
    cwin.actions["edit.undo"].trigger()
    assert snapshot(v.gen.doc) == gen_before and snapshot(v.ref.doc) == ref_before
    settle(qtbot, v)
    assert v.result.delta == before
    assert_panel_shows_core(v)


def test_add_and_remove_attributes_on_the_reference_side(cwin, qtbot):
    v = cwin.view
    ref_id, _gen_id = mapped_chatbot_message(v)
    before = snapshot(v.ref.doc)
    v.select_node("reference", ref_id)
    insp = cwin.inspector
    insp.new_key.setText("topic")
    insp.new_value.setText('"greetings"')
    insp.add_attribute()
    assert v.ref.doc.node(ref_id).data["topic"] == "greetings"
    assert v.ref.undo_stack.count() == 1 and v.gen.undo_stack.count() == 0
    assert "topic" in insp.editors  # the inspector rebuilt with the new attribute
    settle(qtbot, v)
    assert_panel_shows_core(v)  # an attribute only the reference has lowers w
    insp.remove_attribute("language")
    assert "language" not in v.ref.doc.node(ref_id).data
    assert v.ref.undo_stack.count() == 2
    settle(qtbot, v)
    assert_panel_shows_core(v)
    v.ref.undo_stack.undo()
    v.ref.undo_stack.undo()
    assert snapshot(v.ref.doc) == before


def test_palette_drop_on_the_reference_side_and_undo(cwin, qtbot):
    v = cwin.view
    before_ref, before_gen = snapshot(v.ref.doc), snapshot(v.gen.doc)
    delta_before, n_ref_before = v.result.delta, v.result.n_reference
    ids_before = set(v.ref.doc.node_ids())
    mime = cwin.palette.tree.mimeData([cwin.palette.type_items["debug"]])
    c = v.ref.view.visible_scene_rect().center()
    target = vp_point(v.ref.view, QPointF(c.x(), c.y() + 120))
    drop = QDropEvent(QPointF(target), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    v.ref.view.dragEnterEvent(drop)
    v.ref.view.dropEvent(drop)
    (new,) = set(v.ref.doc.node_ids()) - ids_before
    assert v.ref.doc.node(new).type == "debug"
    assert v.ref.undo_stack.count() == 1 and snapshot(v.gen.doc) == before_gen
    settle(qtbot, v)
    assert_panel_shows_core(v)
    assert v.result.n_reference == n_ref_before + 1
    assert new in v.result.missing_nodes or v.result.pair_of(new) is not None
    # the new node is selected: the inspector shows it, on the reference side
    assert cwin.inspector.editor is v.ref and cwin.inspector.node_id == new
    cwin._set_active("reference")
    cwin.actions["edit.undo"].trigger()
    assert snapshot(v.ref.doc) == before_ref and not v.ref.doc.has(new)
    settle(qtbot, v)
    assert v.result.delta == delta_before
    assert_panel_shows_core(v)
    assert cwin.inspector.node_id is None  # the node it showed is gone


def test_palette_activation_and_quick_add_go_to_the_active_side(cwin, qtbot):
    v = cwin.view
    _ref_id, gen_id = mapped_chatbot_message(v)
    v.select_node("generated", gen_id)
    gen_ids, ref_ids = set(v.gen.doc.node_ids()), set(v.ref.doc.node_ids())
    cwin.palette.tree.itemActivated.emit(cwin.palette.type_items["function"], 0)
    (added,) = set(v.gen.doc.node_ids()) - gen_ids
    assert v.gen.doc.node(added).type == "function" and set(v.ref.doc.node_ids()) == ref_ids
    # quick add (Edit → Quick Add…) on the reference side once it is the active one
    v.select_node("reference", _ref_id)
    cwin.actions["edit.quick_add"].trigger()
    popup = v.ref.quick_add_popup
    assert popup is not None and popup.isVisible()
    QTest.keyClicks(popup.edit, "http request")
    QTest.keyClick(popup.edit, Qt.Key_Return)
    (qadded,) = set(v.ref.doc.node_ids()) - ref_ids
    assert v.ref.doc.node(qadded).type == "http request"
    assert v.ref.undo_stack.count() == 1 and v.gen.undo_stack.count() == 1
    settle(qtbot, v)
    assert_panel_shows_core(v)


def test_a_new_pair_empties_the_inspector(cwin, qtbot):
    v = cwin.view
    ref_id, _gen = mapped_chatbot_message(v)
    v.select_node("reference", ref_id)
    assert cwin.inspector.node_id == ref_id
    other = "gmail-send"
    cwin.open_pair(str(DEMO / "programs" / other / f"{other}-4.json"), str(DEMO / "generated" / f"{other}-4.txt"))
    settle(qtbot, v)
    assert not v.ref.doc.has(ref_id)
    assert cwin.inspector.node_id is None and cwin.inspector.editors == {}


def test_both_sides_get_the_same_width_with_broken_model_text(cwin, qtbot):
    """The generated side's long title and model text do not take the reference side's room."""
    v = cwin.view
    other = "googlesearch-to-csv"
    assert cwin.open_pair(str(DEMO / "programs" / other / f"{other}-4.json"), str(DEMO / "generated" / f"{other}-4.txt"))
    settle(qtbot, v)
    qtbot.waitUntil(lambda: abs(v.side_splitter.sizes()[0] - v.side_splitter.sizes()[1]) <= 2)
    a, b = v.side_splitter.sizes()
    assert a > 200 and b > 200
