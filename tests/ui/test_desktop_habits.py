"""The habits of a desktop editor, driven through the real window: Help (F1 guide, shortcut
list, About), Find (Ctrl+F) cycling through matches, dropping files on the window, recent
experiments, preferences that survive a restart, dark mode on canvas and panels, and a shrunken
window that keeps the navigator and the flow reachable."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui import theme

from .test_structured_editors import pick


@pytest.fixture(autouse=True)
def light_afterwards():
    yield
    theme.apply_theme("light")


def activate(qtbot, win) -> None:
    """Show ``win`` as the active window (it has the keyboard, as a window a user just opened)."""
    with qtbot.waitActive(win):
        win.show()
        win.activateWindow()


def test_f1_opens_the_user_guide_covering_the_three_jobs(window, qtbot):
    activate(qtbot, window)
    QTest.keyClick(window, Qt.Key_F1)
    guide = window.guide
    assert guide is not None and guide.isVisible()
    heads = guide.headings()
    assert heads[0] == "gindex-studio user guide"
    for job in ("Job 1: authoring a reference", "Job 2: debugging a model's output", "Job 3: curating a curriculum"):
        assert job in heads
    assert "Save as Benchmark Task" in guide.browser.toPlainText()


def test_the_shortcut_list_is_generated_from_the_actions(window, qtbot):
    activate(qtbot, window)
    QTest.keyClick(window, Qt.Key_Slash, Qt.ControlModifier)
    table = window.shortcuts.table
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["Find…"] == "Ctrl+F" and rows["User Guide"] == "F1" and rows["New Task"] == "Ctrl+Shift+N"
    assert rows["Compare…"] == "Ctrl+Shift+D"  # actions other modules put in the menus are listed too
    with_keys = [a for a in window.actions.actions.values() if not a.shortcut().isEmpty()]
    assert len(rows) >= len(with_keys)
    QTest.keyClicks(window.shortcuts.filter, "undo")
    shown = [table.item(r, 0).text() for r in range(table.rowCount()) if not table.isRowHidden(r)]
    assert shown == ["Undo"]


def test_about_names_the_versions(window):
    from PySide6 import __version__ as pyside

    from gindex_studio import __version__

    window.actions["help.about"].trigger()
    box = QApplication.activeModalWidget() or next(w for w in QApplication.topLevelWidgets() if w.objectName() == "about")
    from gindex_studio.core.scoring.search_info import search_in_use

    assert f"gindex-studio {__version__}" in box.text() and f"PySide6 {pyside}" in box.text()
    assert search_in_use().split(" (")[0] in box.text()  # "search: C extension" / "search: pure Python, …"
    box.close()


def find_flow():
    return flow_from_nodes([
        {"id": "p1", "type": "function", "name": "parse input", "x": 100, "y": 100, "wires": [["p2"]]},
        {"id": "p2", "type": "function", "name": "parse reply", "x": 300, "y": 200, "wires": [["d"]]},
        {"id": "d", "type": "debug", "name": "show", "complete": "payload.parsed", "x": 500, "y": 100, "wires": []},
        {"id": "x", "type": "inject", "name": "tick", "x": 100, "y": 300, "wires": [["p1"]]},
        {"id": "bot", "type": "chatbot-telegram-node", "botname": "parsebot"},
    ])


def test_find_cycles_through_name_type_and_attribute_matches(window, qtbot):
    activate(qtbot, window)
    ed = window.add_editor(find_flow(), None)
    ed.view.setFocus()
    QTest.keyClick(ed.view, Qt.Key_F, Qt.ControlModifier)
    bar = ed.find_bar
    assert bar.isVisible() and bar.edit.hasFocus()
    QTest.keyClicks(bar.edit, "parse")
    assert bar.count.text() == "– of 4"
    seen = []
    for _ in range(5):
        QTest.keyClick(bar.edit, Qt.Key_Return)
        seen.append(bar.matches[bar.index])
        if ed.doc.is_drawn(seen[-1]):
            assert ed.scene.selected_node_ids() == [seen[-1]]
            assert ed.view.viewport().rect().contains(ed.view.mapFromScene(ed.scene.nodes[seen[-1]].scenePos()))
        else:
            assert window.inspector.node_id == seen[-1]  # a config node opens in the inspector
    # reading order (top to bottom, left to right; config nodes last), then round again
    assert seen == ["p1", "d", "p2", "bot", "p1"]
    assert bar.count.text() == "1 of 4"
    QTest.keyClick(bar.edit, Qt.Key_Return, Qt.ShiftModifier)
    assert bar.matches[bar.index] == "bot" and bar.count.text() == "4 of 4"
    bar.edit.selectAll()
    QTest.keyClicks(bar.edit, "type:inject")
    QTest.keyClick(bar.edit, Qt.Key_Return)
    assert ed.scene.selected_node_ids() == ["x"] and bar.count.text() == "1 of 1"
    bar.edit.selectAll()
    QTest.keyClicks(bar.edit, "nothing like it")
    assert bar.count.text() == "no match"
    QTest.keyClick(bar.edit, Qt.Key_Escape)
    assert not bar.isVisible()


def drop_on(widget, paths, pos: QPoint | None = None) -> bool:
    """Drag files over ``widget`` and drop them where a user lets go (the event travels up the
    widget tree as Qt delivers it)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(pos or widget.rect().center())
    enter = QDragEnterEvent(pos.toPoint(), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(widget, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(widget, drop)
    return drop.isAccepted()


def close_compare(qtbot, cw) -> None:
    """Let the compare window's queued fits run, stop its scoring, then close it unasked."""
    qtbot.wait(30)
    cw.view.runner.cancel()
    cw.view.runner.wait(5000)
    if getattr(cw, "controller", None) is not None:
        cw.controller.dirty = False
    cw.close()
    qtbot.wait(1)


def test_dropping_a_flow_and_an_experiment_on_the_canvas_opens_them(window, qtbot, tmp_path):
    ed = window.new_file()
    flow = tmp_path / "dropped.json"
    flow.write_text(json.dumps([{"id": "n", "type": "debug", "name": "dropped", "x": 10, "y": 10, "wires": []}]))
    assert drop_on(ed.view.viewport(), [flow])
    qtbot.waitUntil(lambda: window.pending_loads() == 0 and len(window.editors()) == 2)
    assert window.editor.path == str(flow) and window.editor.doc.node("n").data["name"] == "dropped"

    from gindex_studio.ui.compare import window as compare_window

    before = list(compare_window.WINDOWS)
    exp = Path(DEMO_DIR, "experiment.json")
    assert drop_on(window.editor.view.viewport(), [exp])
    (cw,) = [w for w in compare_window.WINDOWS if w not in before]
    try:
        assert cw.controller.experiment is not None
        assert window.recent_experiments() == [str(exp.resolve())]
        assert len(window.editors()) == 2  # not opened as a flow
        window._fill_recent()
        texts = [a.text() for a in window.recent_menu.actions()]
        assert str(flow) in texts and "Experiments" in texts and str(exp.resolve()) in texts
        assert texts.index("Experiments") < texts.index(str(exp.resolve()))
    finally:
        close_compare(qtbot, cw)


def test_preferences_persist_across_a_restart_and_dark_mode_reaches_canvas_and_panels(qtbot, tmp_path, library):
    from gindex_studio.ui.app import MainWindow

    from .conftest import ScriptedDialogs, two_node_flow

    ini = str(tmp_path / "settings.ini")
    lib_folder = tmp_path / "mytypes"
    lib_folder.mkdir()

    def start():
        win = MainWindow(settings=QSettings(ini, QSettings.IniFormat), autosave_dir=str(tmp_path / "autosave"), library=library)
        win.dialogs = ScriptedDialogs()
        qtbot.addWidget(win)
        activate(qtbot, win)
        return win

    win = start()
    ed = win.add_editor(two_node_flow(), None)
    QTest.keyClick(win, Qt.Key_Comma, Qt.ControlModifier)
    dlg = win.preferences_dialog
    assert dlg is not None and dlg.isVisible()
    pick(dlg.theme, "Dark")
    pick(dlg.profile, "companion")
    dlg.deadline.setFocus()
    dlg.deadline.selectAll()
    QTest.keyClicks(dlg.deadline, "2.5")
    QTest.mouseClick(dlg.grid, Qt.LeftButton, pos=QPoint(8, dlg.grid.height() // 2))
    QTest.keyClicks(dlg.folder_edit, str(tmp_path / "nope"))
    QTest.mouseClick(dlg.findChild(type(dlg.buttons.button(QDialogButtonBox.Ok)), "pref-folder-add"), Qt.LeftButton)
    assert "No such folder" in dlg.folder_error.text() and dlg.folders.count() == 0
    dlg.folder_edit.selectAll()
    QTest.keyClicks(dlg.folder_edit, str(lib_folder))
    QTest.keyClick(dlg.folder_edit, Qt.Key_Return)
    assert dlg.folders.count() == 1
    QTest.mouseClick(dlg.buttons.button(QDialogButtonBox.Ok), Qt.LeftButton)
    assert not dlg.isVisible()

    # dark now: panels (palette) and the canvas, drawn
    assert QApplication.palette().color(QPalette.Window).lightness() < 100
    assert ed.scene.colors == theme.DARK_LOOK and not ed.scene.show_grid
    img = ed.view.viewport().grab().toImage()
    corner = img.pixelColor(5, 5)
    assert corner.lightness() < 60, corner.name()
    text = QApplication.palette().color(QPalette.WindowText)
    assert text.lightness() > 180  # light text on the dark panels

    win.resize(760, 560)  # within the offscreen screen (restoreGeometry keeps windows on screen)
    win.docks["history"].toggleViewAction().trigger()  # Panels → History: closed
    assert not win.docks["history"].isVisible()
    win.close()

    win2 = start()
    try:
        p = win2.prefs
        assert (p.theme, p.profile, p.deadline, p.show_grid, p.library_folders) == ("dark", "companion", 2.5, False, [str(lib_folder)])
        assert theme.is_dark()
        assert (win2.width(), win2.height()) == (760, 560)
        assert not win2.docks["history"].isVisible()
        # a new compare window starts with the preferred profile and deadline
        from gindex_studio.ui.compare.window import open_compare

        cw = open_compare(None, library=library)
        assert (cw.view.options.profile.name, cw.view.options.deadline) == ("companion", 2.5)
        close_compare(qtbot, cw)
    finally:
        win2.close()


def test_a_shrunken_window_keeps_the_navigator_and_the_flow_reachable(window, qtbot):
    ed = window.add_editor(two_node_flow_far(), None)
    window.resize(640, 420)
    qtbot.wait(10)  # the first fit
    QTest.keyClick(ed.view, Qt.Key_1, Qt.ControlModifier)  # actual size: most of the flow is out of view
    vp = ed.view.viewport()
    mm = ed.minimap
    assert mm.isVisible()
    assert vp.rect().contains(mm.geometry())  # the whole navigator is inside the canvas
    assert mm.width() * mm.height() <= vp.width() * vp.height() / 6  # and leaves most of it free
    assert vp.width() >= 280 and vp.height() >= 150
    # clicking in the navigator moves the canvas there
    before = ed.view.visible_scene_rect().center()
    QTest.mouseClick(mm, Qt.LeftButton, pos=QPoint(mm.width() - 4, mm.height() - 4))
    after = ed.view.visible_scene_rect().center()
    assert after.x() > before.x() or after.y() > before.y()


def two_node_flow_far():
    return flow_from_nodes([
        {"id": "a", "type": "inject", "name": "tick", "x": 0, "y": 0, "wires": [["b"]]},
        {"id": "b", "type": "debug", "name": "show", "x": 2400, "y": 1600, "wires": []},
    ])
