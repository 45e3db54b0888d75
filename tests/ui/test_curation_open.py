"""File → Curate… (issue 9): the dialog offers a folder of programs, an experiment, or a
curriculum folder plus task files, driven with real clicks from the studio's File menu."""
from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QRadioButton, QStyle, QStyleOptionButton

from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui.curation import window as curation_window

from .curation_support import close_window


class ScriptedChooser:
    def __init__(self, folder=None, experiment=None, files=()):
        self.folders, self.exp, self.files = list(folder or []), experiment, list(files)

    def folder(self, title):
        return self.folders.pop(0) if self.folders else None

    def experiment(self):
        return self.exp

    def task_files(self):
        return self.files


@pytest.fixture
def studio(qtbot, tmp_path, monkeypatch):
    from gindex_studio.ui.app import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat),
                     autosave_dir=str(tmp_path / "autosave"))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    for w in list(curation_window.WINDOWS):
        w.wait_for_report()
        close_window(w)
    QApplication.processEvents()


def open_curate_dialog(qtbot, studio):
    """File → Curate… with the mouse: the menu bar's File, then the menu's Curate… item."""
    bar = studio.menuBar()
    file_action = next(a for a in bar.actions() if a.text().replace("&", "") == "File")
    qtbot.mouseClick(bar, Qt.LeftButton, pos=bar.actionGeometry(file_action).center())
    menu = file_action.menu()
    qtbot.waitUntil(menu.isVisible)
    qtbot.mouseClick(menu, Qt.LeftButton, pos=menu.actionGeometry(studio.actions["file.curate"]).center())
    feature = studio.features["curate"]
    qtbot.waitUntil(lambda: feature.dialog is not None and feature.dialog.isVisible())
    return feature.dialog


def click(qtbot, widget):
    """A left click where a user would: on a radio button's round indicator, else the centre."""
    if isinstance(widget, QRadioButton):
        opt = QStyleOptionButton()
        widget.initStyleOption(opt)
        pos = widget.style().subElementRect(QStyle.SE_RadioButtonIndicator, opt, widget).center()
    else:
        pos = widget.rect().center()
    qtbot.mouseClick(widget, Qt.LeftButton, pos=pos)


def curriculum_and_tasks(tmp_path):
    """A curriculum folder (three demo domains without their 4th program) and two task files."""
    cur = tmp_path / "curriculum"
    for d in ("gmail-send", "youtube-resume", "http"):
        (cur / d).mkdir(parents=True)
        for k in (1, 2, 3):
            shutil.copy(DEMO_DIR / "programs" / d / f"{d}-{k}.json", cur / d)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    files = []
    for d in ("gmail-send", "youtube-resume"):
        files.append(str(shutil.copy(DEMO_DIR / "programs" / d / f"{d}-4.json", tasks)))
    return cur, files


@pytest.mark.slow
def test_curate_a_curriculum_folder_plus_task_files(qtbot, studio, tmp_path):
    cur, files = curriculum_and_tasks(tmp_path)
    dialog = open_curate_dialog(qtbot, studio)
    dialog.chooser = ScriptedChooser(folder=[str(cur)], files=files)
    ok = dialog.box.button(QDialogButtonBox.Ok)
    assert not dialog.tasks_box.isEnabled()
    click(qtbot, dialog.radios["tasks"])
    assert dialog.mode() == "tasks" and dialog.tasks_box.isEnabled()
    click(qtbot, dialog.browse)
    assert dialog.path.text() == str(cur)
    assert not ok.isEnabled()  # no task file yet
    click(qtbot, dialog.add_files)
    assert dialog.task_paths() == files and ok.isEnabled()
    click(qtbot, ok)
    assert not dialog.isVisible()
    win = curation_window.WINDOWS[-1]
    items = win.model.ws.items
    assert sorted(it.label for it in items if it.role == "test") == ["gmail-send-4.json", "youtube-resume-4.json"]
    assert len([it for it in items if it.role == "curriculum"]) == 9
    win.wait_for_report()
    leaks = {items[x.task].label for x in win.model.leaks()}
    assert "youtube-resume-4.json" in leaks  # the demo's known leak, found from task files too


@pytest.mark.slow
def test_curate_an_experiment_and_a_folder(qtbot, studio):
    dialog = open_curate_dialog(qtbot, studio)
    dialog.chooser = ScriptedChooser(experiment=str(DEMO_DIR / "experiment.json"))
    click(qtbot, dialog.radios["experiment"])
    click(qtbot, dialog.browse)
    click(qtbot, dialog.box.button(QDialogButtonBox.Ok))
    win = curation_window.WINDOWS[-1]
    assert win.model.ws.experiment is not None and len(win.model.ws.indices("test")) == 16

    dialog = open_curate_dialog(qtbot, studio)
    dialog.chooser = ScriptedChooser(folder=[str(DEMO_DIR / "programs")])
    assert dialog.mode() == "folder"
    click(qtbot, dialog.browse)
    click(qtbot, dialog.box.button(QDialogButtonBox.Ok))
    win2 = curation_window.WINDOWS[-1]
    assert win2 is not win and win2.model.ws.indices("test") == [] and len(win2.model.ws) == 64


def test_a_missing_path_is_refused_with_one_line_and_nothing_opens(qtbot, studio, tmp_path):
    dialog = open_curate_dialog(qtbot, studio)
    before = len(curation_window.WINDOWS)
    dialog.path.setFocus()
    qtbot.keyClicks(dialog.path, str(tmp_path / "nowhere"))
    click(qtbot, dialog.box.button(QDialogButtonBox.Ok))
    assert dialog.isVisible() and dialog.error.text() == f"{tmp_path / 'nowhere'}: no such folder"
    assert len(curation_window.WINDOWS) == before
    click(qtbot, dialog.box.button(QDialogButtonBox.Cancel))
    assert not dialog.isVisible() and len(curation_window.WINDOWS) == before


@pytest.mark.slow
def test_a_damaged_cache_is_set_aside_and_said_and_the_window_opens(qtbot, studio, tmp_path):
    """File → Curate… over a cache of random bytes (issue 26, item 5): the window opens, a message
    box over it says where the damaged file went, and the new cache is filled."""
    import os

    from PySide6.QtWidgets import QMessageBox

    from gindex_studio.paths import user_data_dir

    cache = user_data_dir() / "curation-cache.sqlite"
    assert str(cache).startswith(str(tmp_path))
    cache.write_bytes(os.urandom(40_000))
    dialog = open_curate_dialog(qtbot, studio)
    dialog.chooser = ScriptedChooser(experiment=str(DEMO_DIR / "experiment.json"))
    click(qtbot, dialog.radios["experiment"])
    click(qtbot, dialog.browse)
    before = len(curation_window.WINDOWS)
    click(qtbot, dialog.box.button(QDialogButtonBox.Ok))
    assert len(curation_window.WINDOWS) == before + 1
    win = curation_window.WINDOWS[-1]
    qtbot.waitExposed(win)
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert len(boxes) == 1 and boxes[0].parent() is win
    aside = [p for p in cache.parent.iterdir() if ".damaged-" in p.name]
    assert len(aside) == 1 and str(aside[0]) in boxes[0].text() and "set aside" in boxes[0].text()
    boxes[0].grab().save(str(tmp_path / "cache-notice.png"))
    qtbot.mouseClick(boxes[0].button(QMessageBox.Ok), Qt.LeftButton)
    qtbot.waitUntil(lambda: not boxes[0].isVisible())
    win.wait_for_report()
    assert win.cache.on_disk and win.cache.count() > 0
