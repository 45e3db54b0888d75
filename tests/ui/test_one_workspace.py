"""One workspace (issue 32, item 7): new windows cascade within the 1366×768 screen, every window
has a Window menu listing every open window with Alt+1 … shortcuts, the compare window reaches
File → Curate… with its experiment filled in, and Quit is the same everywhere: it asks about the
unsaved edits of every window, and a Cancel closes nothing and loses nothing."""
from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui import workspace

from .conftest import ScriptedDialogs
from .test_compare import demo_pair


def available() -> QRect:
    return QGuiApplication.primaryScreen().availableGeometry()


@pytest.fixture
def ended(monkeypatch):
    """Quit's end of the process, recorded instead."""
    calls = []
    monkeypatch.setattr(workspace, "end_process", lambda: calls.append(True))
    return calls


@pytest.fixture
def studio(qtbot, tmp_path, library):
    """The studio's main window on one edited flow, and a compare window on an edited pair."""
    from gindex_studio.ui.app import MainWindow
    from gindex_studio.ui.compare.window import CompareWindow

    main = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat),
                      autosave_dir=str(tmp_path / "autosave"), library=library)
    main.dialogs = ScriptedDialogs()
    qtbot.addWidget(main)
    main.show()
    qtbot.waitExposed(main)
    ed = main.new_file()
    ed.add_node("inject", ed.view.visible_scene_rect().center())
    main.new_file()  # a second, clean tab
    ref, gen = (shutil.copy(p, tmp_path) for p in demo_pair("telegram-2-reply"))
    cwin = CompareWindow(library)
    cwin.dialogs.ask_save = lambda *_a: "discard"  # no modal box at teardown, whatever happens
    qtbot.addWidget(cwin)
    cwin.open_pair(ref, gen)
    cwin.show()
    qtbot.waitExposed(cwin)
    gside = cwin.view.gen
    gside.add_node("debug", gside.view.visible_scene_rect().center())
    asked = []
    yield main, cwin, asked
    for w in (main, cwin):
        w.dialogs.ask_save = lambda *_a: "discard"
        w.close()


def press_quit(win, qtbot):
    with qtbot.waitActive(win):
        win.activateWindow()
    QTest.keyClick(win, Qt.Key_Q, Qt.ControlModifier)
    QApplication.processEvents()


def test_cascade_moves_a_window_off_the_one_below_and_keeps_it_on_the_screen():
    from gindex_studio.ui.window_geometry import FRAME, cascade

    screen = QRect(0, 0, 1366, 768)
    first = QRect(6, 36, 1354, 722)
    second = cascade(first, [first.topLeft()], screen)
    assert second.topLeft() == QPoint(38, 68)
    assert screen.marginsRemoved(FRAME).contains(second)
    third = cascade(QRect(33, 36, 1300, 722), [first.topLeft(), second.topLeft()], screen)
    assert third.topLeft() == QPoint(97, 100) and screen.marginsRemoved(FRAME).contains(third)
    assert cascade(QRect(400, 300, 500, 300), [first.topLeft()], screen) == QRect(400, 300, 500, 300)  # apart


def test_the_four_windows_open_cascaded_within_the_laptop_screen(qtbot, tmp_path, library):
    from gindex_studio.core.curation.cache import DeltaCache
    from gindex_studio.core.curation.workspace import load_workspace
    from gindex_studio.ui.analysis.window import AnalysisWindow
    from gindex_studio.ui.app import MainWindow
    from gindex_studio.ui.compare.window import CompareWindow
    from gindex_studio.ui.curation.window import CurationWindow

    makers = [
        lambda: MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat),
                           autosave_dir=str(tmp_path / "autosave"), library=library),
        lambda: CompareWindow(library),
        lambda: CurationWindow(load_workspace(DEMO_DIR / "experiment.json"), DeltaCache(tmp_path / "c.sqlite"),
                               library, deadline=0.01),
        lambda: AnalysisWindow(library),
    ]
    opened = []
    for make in makers:
        win = make()
        qtbot.addWidget(win)
        win.show()
        qtbot.waitExposed(win)
        QApplication.processEvents()
        opened.append(win)
    corners = [w.frameGeometry().topLeft() for w in opened]
    for k, c in enumerate(corners):
        assert available().contains(opened[k].frameGeometry()), (k, opened[k].frameGeometry())
        for earlier in corners[:k]:
            assert abs(c.x() - earlier.x()) >= 32 or abs(c.y() - earlier.y()) >= 32, (k, c, earlier)
    # every window's Window menu lists all four, in opening order, with Alt+1 … Alt+4
    for win in opened:
        menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Window")
        menu.aboutToShow.emit()
        shown = [a for a in menu.actions() if a.isVisible()]
        assert [a.text().split("  ", 1)[1] for a in shown] == [w.windowTitle() for w in opened]
        assert [a.shortcut().toString() for a in shown] == ["Alt+1", "Alt+2", "Alt+3", "Alt+4"]
        assert [a.isChecked() for a in shown] == [w is win for w in opened]
    # Alt+1 in the Analysis window brings the editor to the front
    with qtbot.waitActive(opened[3]):
        opened[3].activateWindow()
    QTest.keyClick(opened[3], Qt.Key_1, Qt.AltModifier)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is opened[0], timeout=3000)
    for win in opened:
        if hasattr(win, "dialogs"):
            win.dialogs.ask_save = lambda *_a: "discard"
        win.close()


def test_quit_cancelled_in_one_window_closes_nothing_and_loses_nothing(studio, qtbot, ended):
    main, cwin, asked = studio
    main.dialogs.save_answer = "discard"
    cwin.dialogs.ask_save = lambda name: asked.append(name) or "cancel"
    tabs = main.tabs.count()
    press_quit(main, qtbot)  # Ctrl+Q in the editor
    assert main.dialogs.asked_save and asked  # both windows were asked
    assert main.isVisible() and cwin.isVisible() and not ended
    assert main.tabs.count() == tabs  # no tab closed, the discarded one neither
    assert main.editors()[0].is_dirty() and cwin.unsaved_sides() == ["generated"]


def test_quit_from_the_compare_window_asks_every_window_then_ends_the_process(studio, qtbot, ended):
    main, cwin, asked = studio
    cwin.dialogs.ask_save = lambda name: asked.append(name) or "discard"
    press_quit(cwin, qtbot)
    assert len(main.dialogs.asked_save) == 1 and asked == ["the generated program"]  # each asked once
    assert not main.isVisible() and not cwin.isVisible()
    assert ended == [True]


def test_closing_the_editor_cancelled_on_its_second_edited_tab_keeps_both(window, qtbot):
    for _ in range(2):
        ed = window.new_file()
        ed.add_node("inject", ed.view.visible_scene_rect().center())
    answers = ["discard", "cancel"]
    window.dialogs.ask_save = lambda name: answers.pop(0) if answers else "discard"
    window.close()
    assert not answers  # both asked
    assert window.isVisible() and window.tabs.count() == 2
    assert all(ed.is_dirty() for ed in window.editors())


def test_the_curation_windows_ctrl_q_is_the_studios_quit(qtbot, tmp_path, ended):
    from gindex_studio.core.curation.workspace import load_workspace

    from .curation_support import open_window

    win = open_window(qtbot, load_workspace(DEMO_DIR / "experiment.json"), tmp_path, wait=False)
    assert win.registry["file.quit"].shortcut().toString() == "Ctrl+Q"
    press_quit(win, qtbot)
    assert not win.isVisible() and ended == [True]


def test_curate_from_the_compare_window_proposes_its_experiment(qtbot, tmp_path, library):
    from gindex_studio.ui.compare.window import CompareWindow
    from gindex_studio.ui.curation.menu import CurateFeature
    from gindex_studio.ui.curation.open_dialog import CurateDialog

    path = str(DEMO_DIR / "experiment.json")
    cwin = CompareWindow(library, features=[CurateFeature()])
    qtbot.addWidget(cwin)
    cwin.show()
    qtbot.waitExposed(cwin)
    assert cwin.open_experiment(path)
    file_menu = cwin.menuBar().actions()[0].menu()
    curate = next(a for a in file_menu.actions() if a.objectName() == "file.curate")
    curate.trigger()  # as File → Curate… does
    dialog = cwin.findChild(CurateDialog)
    try:
        assert dialog is not None and dialog.isVisible()
        assert dialog.mode() == "experiment" and dialog.path.text() == path
        assert dialog.choice() == (path, [])
    finally:
        dialog.reject()
        cwin.controller.runner.shutdown()
        cwin.close()


def test_quit_asks_about_an_edited_split_and_a_cancel_keeps_the_window(qtbot, tmp_path, ended):
    from gindex_studio.core.curation.workspace import load_workspace

    from .curation_support import open_window

    win = open_window(qtbot, load_workspace(DEMO_DIR / "experiment.json"), tmp_path, wait=False)
    split = win.split
    win.tabs.setCurrentWidget(split)
    table = split.table
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualItemRect(table.item(0, 0)).center())
    qtbot.mouseClick(split.role_buttons["excluded"], Qt.LeftButton)  # an edit of the split
    win.dialogs.save_answer = "cancel"
    press_quit(win, qtbot)
    assert win.dialogs.asked_save and win.isVisible() and not ended
    assert win.model.ws.items[0].role == "excluded"  # nothing lost
    win.dialogs.save_answer = "discard"
    press_quit(win, qtbot)
    assert not win.isVisible() and ended == [True]
