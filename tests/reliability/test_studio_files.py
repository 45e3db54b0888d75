"""The studio never changes a user's file behind their back (issue 14, items 2, 4, 7, 8).

Saving is driven through the window's File → Save action (what the menu and Ctrl+S trigger); the
questions the studio asks are answered by a scripted stand-in for its message boxes."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("PySide6", reason="the studio's window needs the [gui] extra (PySide6)")
from PySide6.QtCore import QPointF, QSettings  # noqa: E402

from gindex_studio.core.flows.flow import flow_from_nodes, read_flow_file, write_flow_file  # noqa: E402
from gindex_studio.paths import DEMO_DIR, RESOURCES  # noqa: E402
from gindex_studio.ui.app import demo_program  # noqa: E402

TWO = [{"id": "a", "type": "inject", "x": 100, "y": 100, "wires": [["b"]]},
       {"id": "b", "type": "debug", "x": 300, "y": 100, "wires": []}]


class Answers:
    """Records every question and answers as told."""

    def __init__(self):
        self.errors, self.asked_changed, self.asked_save_as = [], [], []
        self.changed_answer, self.next_save_path = "cancel", None

    def error(self, title, text):
        self.errors.append((title, text))

    def ask_changed_on_disk(self, path):
        self.asked_changed.append(path)
        return self.changed_answer

    def save_file(self, suggestion):
        self.asked_save_as.append(suggestion)
        return self.next_save_path

    def ask_save(self, name):
        return "discard"

    def ask_restore(self, names):
        return False


@pytest.fixture
def window(qtbot, tmp_path):
    from gindex_studio.ui.app import MainWindow
    from gindex_studio.ui.library_access import bundled_library

    win = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat),
                     autosave_dir=str(tmp_path / "autosave"), library=bundled_library())
    win.dialogs = Answers()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    for ed in list(win.editors()):
        win.close_editor(ed, ask=False)
    win.autosave.close()


def _open_edited(window, path: Path):
    """Open ``path`` and add a node to it (unsaved)."""
    window.open_files([str(path)], wait=True)
    ed = window.editor
    ed.add_node("debug", QPointF(500, 300))
    assert ed.is_dirty()
    return ed


def _save(window):
    window.actions["file.save"].trigger()


def _types(path: Path) -> list[str]:
    return [n["type"] for n in json.loads(path.read_text())]


@pytest.fixture
def changed_elsewhere(window, tmp_path):
    """A file opened and edited in the studio, then rewritten by another program."""
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(TWO))
    ed = _open_edited(window, path)
    path.write_text(json.dumps(TWO + [{"id": "c", "type": "function", "wires": []}]))
    return ed, path


def test_an_external_change_is_not_overwritten_without_asking(window, changed_elsewhere):
    ed, path = changed_elsewhere
    _save(window)
    assert window.dialogs.asked_changed == [str(path)]
    assert _types(path) == ["inject", "debug", "function"]  # cancelled: the other program's file stays
    assert ed.is_dirty()


def test_overwrite_writes_the_studios_version(window, changed_elsewhere):
    ed, path = changed_elsewhere
    window.dialogs.changed_answer = "overwrite"
    _save(window)
    assert _types(path) == ["inject", "debug", "debug"] and not ed.is_dirty()
    _save(window)  # the studio's own save is not "another program"
    assert len(window.dialogs.asked_changed) == 1


def test_reload_shows_the_file_as_it_is_on_disk(window, changed_elsewhere):
    ed, path = changed_elsewhere
    window.dialogs.changed_answer = "reload"
    _save(window)
    new = window.editor
    assert new is not ed and window.editors() == [new] and not new.is_dirty()
    assert sorted(new.doc.node_ids()) == ["a", "b", "c"]
    assert _types(path) == ["inject", "debug", "function"]


def test_save_as_keeps_both_versions(window, changed_elsewhere, tmp_path):
    ed, path = changed_elsewhere
    window.dialogs.changed_answer = "save_as"
    window.dialogs.next_save_path = str(tmp_path / "mine.json")
    _save(window)
    assert _types(path) == ["inject", "debug", "function"]
    assert _types(tmp_path / "mine.json") == ["inject", "debug", "debug"] and ed.path == str(tmp_path / "mine.json")


def test_touching_the_file_without_changing_it_does_not_ask(window, tmp_path):
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(TWO))
    _open_edited(window, path)
    os.utime(path, (1e9, 1e9))
    _save(window)
    assert window.dialogs.asked_changed == [] and _types(path) == ["inject", "debug", "debug"]


def test_saving_a_read_only_file_says_so_and_changes_nothing(window, tmp_path):
    path = tmp_path / "flow.json"
    path.write_text(json.dumps(TWO))
    path.chmod(0o444)
    ed = _open_edited(window, path)
    _save(window)
    assert len(window.dialogs.errors) == 1
    title, text = window.dialogs.errors[0]
    assert title == "Cannot save" and "is read-only" in text and "Save As" in text
    assert _types(path) == ["inject", "debug"] and oct(path.stat().st_mode & 0o777) == "0o444"
    assert ed.is_dirty()


@pytest.mark.slow
def test_a_5001_node_flow_the_editor_saved_opens_again(window, tmp_path):
    nodes = [{"id": f"n{i}", "type": "debug", "x": 40 * (i % 100), "y": 40 * (i // 100), "wires": []}
             for i in range(5001)]
    path = tmp_path / "big.json"
    write_flow_file(flow_from_nodes(nodes), path)  # what File → Save writes
    window.open_files([str(path)], wait=True)
    assert window.dialogs.errors == []
    assert len(window.editor.doc.node_ids()) == 5001


def test_the_bundled_demo_opens_as_an_untitled_copy(window, qtbot, tmp_path):
    demo = Path(demo_program())
    before = demo.read_bytes()
    window.actions["file.demo"].trigger()
    qtbot.waitUntil(lambda: window.editor is not None, timeout=5000)
    ed = window.editor
    assert ed is not None and ed.path is None
    assert window.tabs.tabText(window.tabs.currentIndex()).startswith(f"{demo.name} (copy)")
    ed.add_node("debug", QPointF(500, 300))
    _save(window)  # no path: Save asks where, proposing a place outside the installed resources
    suggestion = window.dialogs.asked_save_as[0]
    assert Path(suggestion).name == demo.name and not Path(suggestion).resolve().is_relative_to(RESOURCES.resolve())
    assert demo.read_bytes() == before
    window.dialogs.next_save_path = str(tmp_path / "mine.json")
    _save(window)
    assert demo.read_bytes() == before and ed.path == str(tmp_path / "mine.json")
    assert len(read_flow_file(tmp_path / "mine.json").nodes) == len(read_flow_file(demo).nodes) + 1


def test_any_bundled_file_opened_by_name_is_a_copy_too(window):
    path = sorted(Path(DEMO_DIR, "programs").glob("*/*.json"))[-1]
    window.open_files([str(path)], wait=True)
    assert window.editor.path is None
