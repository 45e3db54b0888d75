"""The flow editor's comfort (issue 32, items 3-6 and 10): a steady toolbar, keyboard authoring as
in Node-RED (Enter adds the first drawn match wired from the selected node, to its right; paste at
the pointer, clear of what is there), a hint on the empty canvas, New Task as New, a Debug dock
that opens tall enough and says what it is doing, and text that is not clipped or miscounted.
Driven through the widgets a user presses and types into."""
from __future__ import annotations

import threading

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QToolBar

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.ui.library_access import is_config_type

from .conftest import click, vp_point


def _toolbar(window) -> QToolBar:
    return window.findChild(QToolBar, "toolbar-main")


def _buttons(window) -> dict:
    tb = _toolbar(window)
    return {a.objectName(): tb.widgetForAction(a) for a in tb.actions() if a.objectName()}


def _type_in_palette(window, text: str) -> None:
    """Click the palette's filter, type ``text`` (replacing what is selected) and press Enter."""
    search = window.palette.search
    QTest.mouseClick(search, Qt.LeftButton, Qt.NoModifier, search.rect().center())
    search.selectAll()
    QTest.keyClicks(search, text)
    QTest.keyClick(search, Qt.Key_Return)


def _body(ed, node_id):
    item = ed.scene.nodes[node_id]
    return item.mapRectToScene(item.body())


# ----- 4: a steady toolbar -------------------------------------------------------------------------

def test_the_toolbar_does_not_move_under_the_pointer_and_fits_1024_pixels(window, qtbot):
    window.resize(1024, 700)
    ed = window.new_file()
    qtbot.wait(50)
    buttons = _buttons(window)
    for aid in ("file.new_task", "edit.undo", "edit.redo", "arrange.layout", "run.deploy", "view.fit"):
        assert buttons[aid].isVisible(), aid  # on the bar, not behind its overflow button
    before = {aid: b.geometry() for aid, b in buttons.items()}
    # an edit with a long name: its name goes into the tooltip and the Edit menu, not onto the bar
    _type_in_palette(window, "http request")
    (nid,) = ed.doc.node_ids()
    qtbot.wait(50)
    undo = window.actions["edit.undo"]
    assert buttons["edit.undo"].text() == "Undo"
    assert "http request" in undo.toolTip() and "http request" in undo.text()
    assert {aid: b.geometry() for aid, b in buttons.items()} == before
    QTest.mouseClick(buttons["edit.undo"], Qt.LeftButton)
    assert ed.doc.node_ids() == []
    assert buttons["edit.redo"].text() == "Redo" and "http request" in window.actions["edit.redo"].toolTip()
    assert {aid: b.geometry() for aid, b in buttons.items()} == before


def test_a_narrow_window_shows_a_plain_overflow_button_on_the_bar(window, qtbot):
    from PySide6.QtWidgets import QToolButton

    window.resize(560, 700)
    qtbot.wait(50)
    tb = _toolbar(window)
    more = tb.findChild(QToolButton, "qt_toolbar_ext_button")
    assert more.isVisible() and more.toolTip().startswith("More tools")
    assert tb.rect().contains(more.geometry())  # wholly on the bar, not cut by the window's edge
    assert not _buttons(window)["run.deploy"].isVisible()  # it is behind that button


def test_new_on_the_toolbar_starts_a_task_and_its_arrow_an_empty_flow(window, qtbot):
    new = _buttons(window)["file.new_task"]
    assert new.text() == "New Task"
    QTest.mouseClick(new, Qt.LeftButton, Qt.NoModifier, QPoint(8, new.height() // 2))
    assert window.editor is not None and window.editor.doc.has_prompt
    plain = [a for a in new.menu().actions() if a.objectName() == "file.new"]
    assert plain, "the arrow's menu offers an empty flow"
    plain[0].trigger()
    assert not window.editor.doc.has_prompt and len(window.editors()) == 2


# ----- 6: the empty canvas says how to add ----------------------------------------------------------

def _hint_pixels(ed) -> int:
    """Dark-text pixels in the band across the middle of the canvas (light theme)."""
    img = ed.view.viewport().grab().toImage()
    mid = img.height() // 2
    n = 0
    for y in range(mid - 30, mid + 30, 2):
        for x in range(0, img.width(), 2):
            c = QColor(img.pixel(x, y))
            n += c.lightness() < 120
    return n


def test_the_empty_canvas_says_how_to_add_a_node_until_one_is_there(window, qtbot):
    window.resize(1366, 768)
    ed = window.new_task()
    qtbot.wait(50)
    assert "Double-click" in ed.view.hint_text() and "drag" in ed.view.hint_text().lower()
    assert _hint_pixels(ed) > 100
    # double-click near the top-left and choose a node: the hint goes (and its pixels with it)
    vp = ed.view.viewport()
    QTest.mouseDClick(vp, Qt.LeftButton, Qt.NoModifier, QPoint(90, 40))
    popup = ed.quick_add_popup
    QTest.keyClicks(popup.edit, "inject")
    QTest.keyClick(popup.edit, Qt.Key_Return)
    assert len(ed.doc.node_ids()) == 1
    qtbot.wait(50)
    assert ed.view.hint_text() == ""
    assert _hint_pixels(ed) == 0
    QTest.mouseClick(_buttons(window)["edit.undo"], Qt.LeftButton)
    qtbot.wait(50)
    assert ed.doc.node_ids() == [] and _hint_pixels(ed) > 100


# ----- 5: adding nodes by keyboard ---------------------------------------------------------------

def test_palette_enter_adds_the_first_drawn_match_wired_from_the_selection_and_to_its_right(window, qtbot):
    window.resize(1366, 768)
    ed = window.new_file()
    _type_in_palette(window, "inject")
    (first,) = ed.doc.node_ids()
    assert ed.scene.selected_node_ids() == [first]
    # "telegram" matches the bot (a config type) too: Enter adds a drawn node, not the config node
    _type_in_palette(window, "telegram")
    shown = window.palette.visible_types()
    assert any(is_config_type(window.library, t) for t in shown)
    (second,) = set(ed.doc.node_ids()) - {first}
    assert not is_config_type(window.library, ed.doc.node(second).type) and ed.doc.config_ids() == []
    assert ed.doc.node(first).data["wires"] == [[second]]
    a, b = _body(ed, first), _body(ed, second)
    assert b.left() > a.right() and abs(b.center().y() - a.center().y()) <= 20
    # one undo step: node and wire go together
    ed.undo_stack.undo()
    assert ed.doc.node_ids() == [first] and ed.doc.node(first).data["wires"] == [[]]
    # a chain: each new node is wired from the one added before it, further right
    ed.scene.select_nodes([first])
    chain = [first]
    for text in ("http request", "function", "debug"):
        _type_in_palette(window, text)
        (new,) = set(ed.doc.node_ids()) - set(chain)
        assert ed.doc.node(chain[-1]).data["wires"] == [[new]], text
        assert _body(ed, new).left() > _body(ed, chain[-1]).right(), text
        chain.append(new)


def test_enter_without_a_selection_adds_at_the_centre_unwired(window, qtbot):
    ed = window.new_file()
    _type_in_palette(window, "inject")
    ed.scene.select_nodes([])
    _type_in_palette(window, "debug")
    ids = ed.doc.node_ids()
    assert len(ids) == 2 and all(not any(p for p in ed.doc.node(i).data.get("wires", [])) for i in ids)
    assert not _body(ed, ids[0]).intersects(_body(ed, ids[1]))


def test_a_switchs_free_output_is_wired_next(window, qtbot):
    ed = window.add_editor(flow_from_nodes([
        {"id": "sw", "type": "switch", "x": 200, "y": 200, "property": "payload", "propertyType": "msg",
         "rules": [{"t": "eq", "v": "a", "vt": "str"}, {"t": "else"}], "checkall": "true", "outputs": 2,
         "wires": [["x"], []]},
        {"id": "x", "type": "debug", "x": 420, "y": 160, "wires": []},
    ]), None)
    qtbot.wait(20)
    click(ed.view, _body(ed, "sw").center())
    assert ed.scene.selected_node_ids() == ["sw"]
    _type_in_palette(window, "debug")
    (new,) = set(ed.doc.node_ids()) - {"sw", "x"}
    assert ed.doc.node("sw").data["wires"] == [["x"], [new]]
    assert not _body(ed, new).intersects(_body(ed, "x"))


def test_typing_on_the_canvas_with_a_node_selected_adds_the_next_node_wired(window, qtbot):
    ed = window.add_editor(flow_from_nodes([{"id": "a", "type": "inject", "x": 200, "y": 200, "wires": [[]]}]), None)
    qtbot.wait(20)
    click(ed.view, _body(ed, "a").center())
    ed.view.setFocus()
    QTest.keyClick(ed.view, Qt.Key_D)  # the first key opens the popup; the rest go into its field
    popup = ed.quick_add_popup
    QTest.keyClicks(popup.edit, "ebu")
    assert popup.isVisible() and popup.types_shown()[0] == "debug"
    QTest.keyClick(popup.edit, Qt.Key_Return)
    (new,) = set(ed.doc.node_ids()) - {"a"}
    assert ed.doc.node("a").data["wires"] == [[new]]
    assert _body(ed, new).left() > _body(ed, "a").right()


def test_paste_lands_at_the_pointer_clear_of_the_original(window, qtbot):
    window.resize(1366, 768)
    ed = window.add_editor(flow_from_nodes([{"id": "a", "type": "debug", "x": 200, "y": 200, "wires": []}]), None)
    qtbot.wait(50)
    ed.view.zoom_reset()
    ed.view.centerOn(300, 250)
    click(ed.view, _body(ed, "a").center())
    QTest.keyClick(ed.view, Qt.Key_C, Qt.ControlModifier)
    messages = []
    ed.message.connect(messages.append)
    # the pointer over the original itself: the copy is put just below it, not on top
    QCursor.setPos(ed.view.viewport().mapToGlobal(vp_point(ed.view, _body(ed, "a").center())))
    QTest.keyClick(ed.view, Qt.Key_V, Qt.ControlModifier)
    (copy,) = set(ed.doc.node_ids()) - {"a"}
    assert not _body(ed, copy).intersects(_body(ed, "a"))
    assert abs(_body(ed, copy).center().x() - _body(ed, "a").center().x()) <= 20
    assert _body(ed, copy).top() - _body(ed, "a").bottom() < 80
    assert messages[-1] == "Pasted 1 node" and ed.undo_stack.undoText() == "Paste 1 node"
    # elsewhere on free canvas: exactly at the pointer
    spot = QPointF(520, 380)
    QCursor.setPos(ed.view.viewport().mapToGlobal(vp_point(ed.view, spot)))
    QTest.keyClick(ed.view, Qt.Key_V, Qt.ControlModifier)
    (third,) = set(ed.doc.node_ids()) - {"a", copy}
    c = _body(ed, third).center()
    assert abs(c.x() - spot.x()) <= 20 and abs(c.y() - spot.y()) <= 20


# ----- 3: the Debug dock ---------------------------------------------------------------------------

def test_debug_dock_opens_eight_lines_tall_and_says_while_node_red_starts(window, qtbot):
    from gindex_studio.core.nodered.runtime import NodeRedError
    from gindex_studio.ui.nodered.debug_panel import FIRST_LINES

    window.resize(1366, 768)
    release = threading.Event()

    def slow_runtime(progress):
        progress(None, "starting Node-RED")
        release.wait(20)
        raise NodeRedError("no Node-RED in this test")

    ctl = window.features["run"].controller
    ctl.worker.factory = slow_runtime
    window.add_editor(flow_from_nodes([{"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [[]]}]), None)
    dock = window.docks["debug"]
    QTest.mouseClick(_buttons(window)["run.deploy"], Qt.LeftButton)
    panel = ctl.panel
    assert "starting" in panel.progress_text().lower()  # at once, before Node-RED answers
    qtbot.waitUntil(lambda: "first start" in panel.progress_text(), timeout=5000)
    assert panel.progress_bar.isVisible()
    lines = panel.list.fontMetrics().lineSpacing()
    qtbot.waitUntil(lambda: panel.list.viewport().height() >= FIRST_LINES * lines, timeout=3000)
    qtbot.wait(200)
    assert panel.list.viewport().height() >= FIRST_LINES * lines  # and it stays so
    release.set()
    qtbot.waitUntil(lambda: panel.progress_text() == "", timeout=10000)
    assert any("no Node-RED in this test" in t for t in panel.visible_texts())
    # the user may make it smaller again: the first height is not forced a second time
    window.resizeDocks([dock], [90], Qt.Vertical)
    qtbot.wait(100)
    assert dock.height() < 120
    # dragging its title bar up (aiming for its edge) does not tear it off the window
    a, b = QPoint(300, 8), QPoint(300, -140)
    QTest.mouseMove(dock, a)
    QTest.mousePress(dock, Qt.LeftButton, Qt.NoModifier, a)
    for k in range(1, 9):
        QTest.mouseMove(dock, a + (b - a) * (k / 8))
    QTest.mouseRelease(dock, Qt.LeftButton, Qt.NoModifier, b)
    qtbot.wait(50)
    assert not dock.isFloating() and dock.isVisible()
    ctl.shutdown()


def test_run_debug_opens_the_dock_tall_enough_too(window, qtbot):
    from gindex_studio.ui.nodered.debug_panel import FIRST_LINES

    window.resize(1366, 768)
    window.new_file()
    window.actions["panels.debug"].trigger()  # Run → Debug
    panel = window.features["run"].panel
    lines = panel.list.fontMetrics().lineSpacing()
    qtbot.waitUntil(lambda: panel.list.viewport().height() >= FIRST_LINES * lines, timeout=3000)
    assert window.docks["debug"].isVisible() and panel.progress_text() == ""


# ----- 10: clipped or miscounted text ------------------------------------------------------------

def test_problems_details_take_the_room_beside_them(window, qtbot):
    window.resize(1366, 768)
    ed = window.add_editor(flow_from_nodes([
        {"id": "f", "type": "function", "x": 100, "y": 100, "func": "return msg", "wires": [["gone"]]},
    ]), None)
    qtbot.waitUntil(lambda: window.problems.topLevelItemCount() > 0, timeout=3000)
    p = window.problems
    used = sum(p.columnWidth(k) for k in range(p.columnCount()))
    assert used >= p.viewport().width() - 2  # no empty column beside a clipped message
    row = p.topLevelItem(0)
    assert p.fontMetrics().horizontalAdvance(row.text(2)) < p.columnWidth(2)


def test_opened_counts_the_nodes_drawn(window, qtbot, tmp_path):
    import json

    path = tmp_path / "three.json"
    path.write_text(json.dumps([
        {"id": "t", "type": "tab", "label": "Flow 1"},
        {"id": "a", "type": "inject", "z": "t", "x": 100, "y": 100, "wires": [["b"]]},
        {"id": "b", "type": "function", "z": "t", "x": 300, "y": 100, "func": "return msg", "wires": [["c"]]},
        {"id": "c", "type": "debug", "z": "t", "x": 500, "y": 100, "wires": []},
    ]))
    window.open_files([str(path)])
    qtbot.waitUntil(lambda: window.editor is not None and window.editor.path == str(path), timeout=5000)
    qtbot.waitUntil(lambda: "Opened" in window.statusBar().currentMessage(), timeout=3000)
    assert ": 3 nodes" in window.statusBar().currentMessage()
    assert len(window.editor.scene.visible_ids()) == 3


def _status_text_height(ed, node_id) -> int:
    """On-screen pixel rows of the status line under the node (its colour, right of the dot)."""
    item = ed.scene.nodes[node_id]
    img = ed.view.viewport().grab().toImage()
    body = ed.view.mapFromScene(item.mapRectToScene(item.body())).boundingRect()
    assert QColor(item._status_color).red() > 200  # error and warning colours are red-dominant
    rows = set()
    for y in range(body.bottom() + 1, min(img.height(), body.bottom() + 30)):
        for x in range(body.left() + 12, min(img.width(), body.right() + 40)):
            c = QColor(img.pixel(x, y))
            if c.red() - max(c.green(), c.blue()) > 40:
                rows.add(y)
    return (max(rows) - min(rows) + 1) if rows else 0


def test_status_lines_stay_readable_at_54_percent(window, qtbot):
    window.resize(1366, 768)
    ed = window.add_editor(flow_from_nodes([
        {"id": "f", "type": "function", "x": 100, "y": 100, "func": "return msg", "wires": [["gone"]]},
    ]), None)
    qtbot.waitUntil(lambda: bool(ed.scene.nodes["f"]._status), timeout=3000)
    qtbot.wait(50)  # the first fit has run
    ed.view.set_zoom(0.54)
    ed.view.centerOn(150, 120)
    qtbot.wait(50)
    assert abs(ed.view.zoom() - 0.54) < 1e-6
    assert _status_text_height(ed, "f") >= 7  # drawn at 11 px × 0.54 the letters were 5 px tall


def test_the_compare_windows_dock_tabs_are_not_clipped(qtbot, library):
    from PySide6.QtWidgets import QTabBar

    from .conftest import shown_compare_window
    from .test_compare import demo_pair

    win = shown_compare_window(qtbot, library, 1366, 768)
    assert win.open_pair(*demo_pair("telegram-2-reply"))
    qtbot.wait(100)
    bars = [b for b in win.findChildren(QTabBar) if b.isVisible() and "Palette" in
            [b.tabText(i) for i in range(b.count())]]
    assert bars, "the palette is a tab beside the inspector"
    for bar in bars:
        for i in range(bar.count()):
            assert bar.tabRect(i).width() >= bar.tabSizeHint(i).width(), bar.tabText(i)  # not "Pal…"
    win.view.runner.cancel()
    win.view.runner.wait(5000)


def test_a_chain_typed_on_the_canvas_stays_in_view(window, qtbot):
    """Typing on the canvas adds the next node right of the selected one, and the new one is
    scrolled into view, as the palette's Enter does (a chain of six ran off the canvas's right
    edge: the authoring count test needed Ctrl+0 to see it)."""
    ed = window.add_editor(flow_from_nodes([{"id": "a", "type": "inject", "x": 200, "y": 200, "wires": [[]]}]), None)
    qtbot.wait(20)
    last = "a"
    for _ in range(6):
        click(ed.view, _body(ed, last).center())
        ed.view.setFocus()
        before = set(ed.doc.node_ids())
        QTest.keyClick(ed.view, Qt.Key_F)
        popup = ed.quick_add_popup
        QTest.keyClicks(popup.edit, "unction")
        QTest.keyClick(popup.edit, Qt.Key_Return)
        qtbot.wait(20)
        (new,) = set(ed.doc.node_ids()) - before
        assert ed.doc.node(last).data["wires"][0] == [new]
        last = new
    assert ed.view.viewport().rect().contains(ed.view.mapFromScene(_body(ed, last).center()))


def test_clicking_the_palette_filter_again_lets_the_next_name_replace_the_last(window, qtbot):
    """After a node was added from the filter and the user worked on the canvas, a click back in
    the filter selects its old text, so typing the next name replaces it (it was appended:
    "injectdebug" matched nothing)."""
    window.add_editor(flow_from_nodes([]), None)
    search = window.palette.search
    QTest.mouseClick(search, Qt.LeftButton, Qt.NoModifier, search.rect().center())
    QTest.keyClicks(search, "inject")
    QTest.keyClick(search, Qt.Key_Return)
    ed = window.editor
    click(ed.view, QPointF(ed.view.mapToScene(ed.view.viewport().rect().bottomLeft() + QPoint(40, -40))))
    qtbot.waitUntil(lambda: not search.hasFocus(), timeout=2000)
    QTest.mouseClick(search, Qt.LeftButton, Qt.NoModifier, search.rect().center())
    qtbot.wait(10)
    QTest.keyClicks(search, "debug")
    assert search.text() == "debug"
