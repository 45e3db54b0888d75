"""Fixtures for driving the real editor widgets offscreen: library → editor → window."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

pytest.importorskip("PySide6", reason="the studio's window tests need the [gui] extra (PySide6)")
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.paths import DEMO_DIR

DEMO_PROGRAMS = sorted(Path(DEMO_DIR, "programs").glob("*/*.json"))


class ScriptedDialogs:
    """Stands in for the message boxes and file dialogs: records, and answers as told."""

    def __init__(self):
        self.errors: list[tuple[str, str]] = []
        self.save_answer = "discard"
        self.asked_save: list[str] = []
        self.restore_answer = True
        self.asked_restore: list[list[str]] = []
        self.next_save_path: str | None = None
        self.next_open: list[str] = []
        self.changed_answer = "cancel"
        self.asked_changed: list[str] = []
        self.recover_answer = True
        self.asked_recover: list[str] = []

    def error(self, title, text):
        self.errors.append((title, text))

    def ask_save(self, name):
        self.asked_save.append(name)
        return self.save_answer

    def ask_restore(self, names):
        self.asked_restore.append(names)
        return self.restore_answer

    def ask_open_recovered(self, text):
        self.asked_recover.append(text)
        return self.recover_answer

    def ask_changed_on_disk(self, path):
        self.asked_changed.append(path)
        return self.changed_answer

    def open_files(self, folder=""):
        return self.next_open

    def save_file(self, suggestion):
        return self.next_save_path


@pytest.fixture
def library():
    from gindex_studio.ui.library_access import bundled_library

    return bundled_library()


def two_node_flow():
    return flow_from_nodes([
        {"id": "a", "type": "inject", "name": "tick", "x": 100, "y": 100, "wires": [[]]},
        {"id": "b", "type": "debug", "name": "show", "x": 400, "y": 220, "wires": []},
    ])


@pytest.fixture
def make_editor(qtbot, library):
    def make(flow=None, path=None):
        from gindex_studio.ui.editor import FlowEditor

        ed = FlowEditor(flow if flow is not None else two_node_flow(), path, library)
        ed.resize(1000, 700)
        qtbot.addWidget(ed)
        ed.show()
        qtbot.waitExposed(ed)
        ed.view.zoom_reset()
        ed.view.centerOn(250, 160)
        return ed

    return make


@pytest.fixture
def editor(make_editor):
    return make_editor()


@pytest.fixture
def window(qtbot, tmp_path, library):
    from gindex_studio.ui.app import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    win = MainWindow(settings=settings, autosave_dir=str(tmp_path / "autosave"), library=library)
    win.dialogs = ScriptedDialogs()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    for ed in list(win.editors()):
        win.close_editor(ed, ask=False)
    win.autosave.close()


# ----- helpers -----------------------------------------------------------------------------------


def vp_point(view, scene_pos) -> QPoint:
    return view.mapFromScene(QPointF(scene_pos))


def drag(view, a: QPoint, b: QPoint, button=Qt.LeftButton, modifier=Qt.NoModifier, steps=6):
    vp = view.viewport()
    QTest.mousePress(vp, button, modifier, a)
    for k in range(1, steps + 1):
        p = a + (b - a) * (k / steps)
        QTest.mouseMove(vp, p)
    QTest.mouseRelease(vp, button, modifier, b)


def click(view, scene_pos, modifier=Qt.NoModifier):
    QTest.mouseClick(view.viewport(), Qt.LeftButton, modifier, vp_point(view, scene_pos))


def snapshot(doc):
    """The flow's JSON value (deep copy) for comparing against after undo."""
    return copy.deepcopy(doc.flow.to_json_value())


@pytest.fixture
def cview(qtbot, library):
    """A shown CompareView; its scoring worker is cancelled and joined afterwards."""
    from gindex_studio.ui.compare.view import CompareView

    v = CompareView(library)
    v.resize(1500, 900)
    qtbot.addWidget(v)
    v.show()
    qtbot.waitExposed(v)
    yield v
    v.runner.cancel()
    v.runner.wait(5000)


def shown_compare_window(qtbot, library, width: int, height: int):
    """A CompareWindow of the given size, shown and exposed."""
    from gindex_studio.ui.compare.window import CompareWindow

    win = CompareWindow(library)
    win.dialogs.ask_save = lambda _name: "discard"  # closing an edited window at teardown asks
    win.resize(width, height)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win
