"""One actions registry for both windows: the compare window's edit, zoom and layout actions are the
editor window's specs (same text, shortcut and tooltip), its own actions are specs of the same
registry, and its shortcuts act on the active side, as a user presses them."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest

from gindex_studio.ui.actions import ALL_SPECS, COMPARE_SPECS, SPECS

from .conftest import shown_compare_window
from .test_compare import demo_pair, settle

SHARED = ["edit.undo", "edit.redo", "edit.cut", "edit.copy", "edit.paste", "edit.delete", "edit.select_all",
          "edit.quick_add", "arrange.layout", "view.fit", "view.zoom_in", "view.zoom_out"]


def test_both_windows_build_their_actions_from_the_same_specs(window, qtbot, library):
    cwin = shown_compare_window(qtbot, library, 1366, 768)
    editor_ids = {s.id for s in SPECS}
    assert not editor_ids & {s.id for s in COMPARE_SPECS}  # no spec written twice
    for aid in SHARED:
        a, b = window.actions[aid], cwin.actions[aid]
        assert aid in editor_ids
        assert (a.text(), a.shortcut(), a.toolTip()) == (b.text(), b.shortcut(), b.toolTip()), aid
    for aid, act in cwin.actions.items():  # every compare action is a registry spec, shortcut included
        spec = ALL_SPECS[aid]
        assert act.shortcut() == (QKeySequence(spec.shortcut) if spec.shortcut else QKeySequence()), aid
    assert cwin.actions["compare.next"].shortcut() == QKeySequence("F8")
    keys = [a.shortcut().toString() for a in cwin.actions.values() if not a.shortcut().isEmpty()]
    assert len(keys) == len(set(keys)), "two compare actions share a key"


def test_the_shared_keys_work_on_the_active_side(qtbot, library):
    cwin = shown_compare_window(qtbot, library, 1366, 768)
    cwin.open_pair(*demo_pair("telegram-2-reply"))
    v = cwin.view
    settle(qtbot, v)
    gen = v.gen
    n = len(gen.doc.flow.nodes)
    gen.view.setFocus()
    cwin.active_role = "generated"
    cwin.undo_group.setActiveStack(gen.undo_stack)
    QTest.keyClick(gen.view.viewport(), Qt.Key_A, Qt.ControlModifier)  # Select All
    assert set(gen.scene.selected_node_ids()) == {i for i in gen.doc.drawn_ids()}
    QTest.keyClick(gen.view.viewport(), Qt.Key_Delete)
    assert len(gen.doc.flow.nodes) < n and v.ref.undo_stack.count() == 0
    QTest.keyClick(gen.view.viewport(), Qt.Key_Z, Qt.ControlModifier)  # Undo, on the generated side
    assert len(gen.doc.flow.nodes) == n
    settle(qtbot, v)
