"""Files and clipboard: open/save round trips, broken files, autosave restore, unsaved prompts."""
from __future__ import annotations

import json
import shutil

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QGuiApplication

from gindex_studio.core.flows.flow import flow_from_nodes

from .conftest import DEMO_PROGRAMS, snapshot


def _open(window, qtbot, path):
    n = len(window.editors())
    window.open_files([str(path)])
    qtbot.waitUntil(lambda: len(window.editors()) > n or bool(window.dialogs.errors), timeout=5000)
    return window.editor


def test_unedited_dataset_file_saves_semantically_identical(window, qtbot, tmp_path):
    src = DEMO_PROGRAMS[0]
    path = tmp_path / "prog.json"
    shutil.copy(src, path)
    ed = _open(window, qtbot, path)
    assert ed.prompt_box.isVisible() and ed.prompt.toPlainText() == json.loads(src.read_text())["text"]
    assert window.save()
    assert json.loads(path.read_text()) == json.loads(src.read_text())


@pytest.mark.parametrize("shape", ["array", "flows"])
def test_other_shapes_round_trip(window, qtbot, tmp_path, shape):
    nodes = [{"id": "a", "type": "inject", "z": "t", "x": 100, "y": 80, "wires": [["b"]], "zz": 1},
             {"id": "b", "type": "debug", "z": "t", "x": 300, "y": 80, "wires": []},
             {"id": "t", "type": "tab", "label": "Flow 1"}]
    value = nodes if shape == "array" else {"flows": nodes, "rev": "abc"}
    path = tmp_path / f"{shape}.json"
    path.write_text(json.dumps(value))
    ed = _open(window, qtbot, path)
    assert not ed.prompt_box.isVisible()
    window.save()
    assert json.loads(path.read_text()) == value


def test_edit_save_reopen_and_prompt_editing(window, qtbot, tmp_path):
    path = tmp_path / "p.json"
    shutil.copy(DEMO_PROGRAMS[0], path)
    ed = _open(window, qtbot, path)
    ed.prompt.setPlainText("A new task prompt")
    assert ed.doc.prompt == "A new task prompt" and ed.is_dirty()
    assert "•" in window.tabs.tabText(window.tabs.currentIndex())
    nid = ed.add_node("debug", QPointF(600, 400))
    window.save()
    assert not ed.is_dirty() and "•" not in window.tabs.tabText(window.tabs.currentIndex())
    window.close_editor(ed)
    ed2 = _open(window, qtbot, path)
    assert ed2.prompt.toPlainText() == "A new task prompt" and ed2.doc.has(nid)
    assert str(path.resolve()) in window.recent_files()


def test_save_as_writes_atomically_to_the_new_path(window, qtbot, tmp_path):
    ed = window.new_file()
    ed.add_node("inject", QPointF(100, 100))
    window.dialogs.next_save_path = str(tmp_path / "new.json")
    assert window.save()  # untitled: asks for a name
    assert ed.path == str(tmp_path / "new.json")
    assert [n["type"] for n in json.loads((tmp_path / "new.json").read_text())] == ["inject"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("content, expect", [
    (b"[{\"id\": \"a\", \"type\": ", "not valid JSON"),
    (b"42", "must be a JSON array or object"),
    (b"{\"hello\": 1}", "\"flow\" or \"flows\""),
    (b"[1, 2, 3]", "none is a node object"),
    (b"[" * 100000 + b"]" * 100000, "cannot be opened"),
    (b"\xff\xfe\x00garbage", "cannot be opened"),
])
def test_broken_files_are_explained_in_a_message(window, qtbot, tmp_path, content, expect):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    window.open_files([str(path)])
    qtbot.waitUntil(lambda: bool(window.dialogs.errors), timeout=5000)
    title, text = window.dialogs.errors[0]
    assert expect in text and str(path) in text
    assert window.editors() == []


def test_missing_file_and_folder_are_explained(window, qtbot, tmp_path):
    window.open_files([str(tmp_path / "nope.json"), str(tmp_path)])
    qtbot.waitUntil(lambda: len(window.dialogs.errors) == 1, timeout=5000)
    qtbot.wait(200)  # no second box follows: one message names both files
    ((title, text),) = window.dialogs.errors
    assert title == "Cannot open files" and text.startswith("2 files could not be opened")
    assert f"{tmp_path / 'nope.json'}\n\ncannot be" in text and f"{tmp_path}\n\nis a folder, not a flow file" in text


def test_a_file_too_big_for_the_free_memory_is_refused_before_it_is_read(window, qtbot, tmp_path, monkeypatch):
    import gindex_studio.core.support.limits as limits

    # the limit is about bytes, not nodes: 200 nodes carrying 4 MB of notes (drawing 20,000 nodes
    # took minutes on a loaded machine and once crashed a full run)
    nodes = [{"id": f"n{i}", "type": "debug", "name": f"n{i}", "info": "x" * 20000, "wires": []} for i in range(200)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"flows": nodes}))
    size = path.stat().st_size
    monkeypatch.setattr(limits, "available_memory", lambda: 100 * size)  # 50× the file is needed: fits
    window.open_files([str(path)], wait=True)
    assert len(window.editors()) == 1 and not window.dialogs.errors
    window.close_editor(window.editor, ask=False)
    monkeypatch.setattr(limits, "available_memory", lambda: 20 * size)
    import gindex_studio.ui.loader as loader

    parsed = []
    monkeypatch.setattr(loader, "read_flow_bytes", lambda data: parsed.append(data))
    window.open_files([str(path)])
    qtbot.waitUntil(lambda: bool(window.dialogs.errors), timeout=10000)
    assert parsed == []  # refused before reading, not after
    text = window.dialogs.errors[0][1]
    assert f"needs about {limits.human_bytes(50 * size)} of memory and {limits.human_bytes(20 * size)} is free" in text
    assert window.pending_loads() == 0 and window.editors() == []


def test_copy_paste_round_trip_through_the_clipboard(make_editor):
    ed = make_editor(flow_from_nodes([
        {"id": "a", "type": "inject", "name": "tick", "x": 100, "y": 100, "wires": [["b", "c"]]},
        {"id": "b", "type": "debug", "x": 300, "y": 100, "wires": []},
        {"id": "c", "type": "debug", "x": 300, "y": 200, "wires": []},
    ]))
    ed.scene.select_nodes(["a", "b"])
    assert ed.copy()
    text = QGuiApplication.clipboard().text()
    copied = json.loads(text)
    assert [n["id"] for n in copied] == ["a", "b"]
    assert copied[0]["wires"] == [["b"]]  # wires leaving the selection are dropped for Node-RED
    assert all("x" in n and "y" in n for n in copied)
    before = snapshot(ed.doc)
    new = ed.paste()
    assert len(new) == 2 and not set(new) & {"a", "b", "c"}
    pa, pb = (ed.doc.node(i).data for i in new)
    assert pa["type"] == "inject" and pa["name"] == "tick" and pa["wires"] == [[pb["id"]]]
    assert (new[0], 0, new[1]) in ed.scene.wires and sorted(ed.scene.selected_node_ids()) == sorted(new)
    assert ed.undo_stack.undoText() == "Paste 2 nodes"
    ed.undo_stack.undo()
    assert snapshot(ed.doc) == before
    # and a second paste gets other fresh ids again
    assert not set(ed.paste(text)) & set(new)


def test_paste_raw_model_output_recovers_and_reports(make_editor):
    ed = make_editor()
    messages = []
    ed.message.connect(messages.append)
    raw = ("Here is your flow:\n```json\n[{\"id\": \"x1\", \"type\": \"inject\", \"wires\": [[\"x2\"]]},\n"
           " {\"id\": \"x2\", \"type\": \"debug\", \"wires\": []},\n {\"id\": \"x3\", \"type\": \"deb")
    QGuiApplication.clipboard().setText(raw)
    new = ed.paste()
    assert len(new) == 2
    d1, d2 = (ed.doc.node(i).data for i in new)
    assert d1["wires"] == [[d2["id"]]] and "x" in d1  # placed on the canvas
    assert ed.last_paste_syntax is not None and "line" in messages[-1]


def test_paste_of_junk_changes_nothing(make_editor):
    ed = make_editor()
    before = snapshot(ed.doc)
    assert ed.paste("no json here at all") == []
    assert snapshot(ed.doc) == before and ed.undo_stack.count() == 0


def test_autosave_restores_an_unsaved_edit_after_a_crash(qtbot, tmp_path, library):
    from PySide6.QtCore import QSettings

    from gindex_studio.ui.app import MainWindow

    from .conftest import ScriptedDialogs

    path = tmp_path / "p.json"
    shutil.copy(DEMO_PROGRAMS[0], path)
    original = path.read_bytes()

    def make():
        w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat), str(tmp_path / "auto"), library=library)
        w.dialogs = ScriptedDialogs()
        qtbot.addWidget(w)
        return w

    w1 = make()
    w1.open_files([str(path)], wait=True)
    ed = w1.editor
    nid = ed.add_node("debug", QPointF(700, 500))
    w1.autosave_now()
    assert list((tmp_path / "auto").iterdir())
    # the crash: the process goes away without closing anything (its session ends, files stay)
    w1.autosave_timer.stop()
    w1.autosave.close()
    assert path.read_bytes() == original

    w2 = make()
    assert w2.offer_restore() == 1
    assert w2.dialogs.asked_restore == [[str(path)]]
    ed2 = w2.editor
    assert ed2.doc.has(nid) and ed2.path == str(path) and ed2.is_dirty()
    w2.save()
    assert nid in path.read_text() and not ed2.is_dirty()
    assert not list((tmp_path / "auto").iterdir())  # saved: the autosave is gone
    w2.autosave.close()
    w3 = make()
    assert w3.offer_restore() == 0
    w3.autosave.close()


def test_autosave_of_a_running_session_is_not_offered(window, qtbot, tmp_path, library):
    ed = window.new_file()
    ed.add_node("inject", QPointF(0, 0))
    window.autosave_now()
    from gindex_studio.ui.autosave import AutosaveStore

    other = AutosaveStore(window.autosave.dir)
    assert other.orphans() == []
    other.close()


def test_closing_with_unsaved_changes_asks(window, qtbot, tmp_path):
    ed = window.new_file()
    ed.add_node("inject", QPointF(0, 0))
    window.dialogs.save_answer = "cancel"
    assert not window.close_editor(ed)
    assert window.dialogs.asked_save == ["untitled"] and window.editors() == [ed]
    window.dialogs.save_answer = "save"
    window.dialogs.next_save_path = str(tmp_path / "kept.json")
    assert window.close_editor(ed)
    assert (tmp_path / "kept.json").exists() and window.editors() == []
    clean = window.new_file()
    window.dialogs.asked_save.clear()
    assert window.close_editor(clean) and window.dialogs.asked_save == []


def test_window_close_asks_and_can_be_cancelled(window):
    ed = window.new_file()
    ed.add_node("inject", QPointF(0, 0))
    window.dialogs.save_answer = "cancel"
    assert not window.close()
    assert window.isVisible()
    window.dialogs.save_answer = "discard"


def test_hostile_node_shapes_open_and_draw(window, qtbot, tmp_path):
    nodes = [
        {"id": "a", "type": "inject", "x": "12", "y": None, "name": {"evil": True}, "wires": "b"},
        {"id": "b", "type": "no-such", "x": 1e308, "y": -1e308, "wires": [[1, None, "a"], "zz", ["c"]]},
        {"id": "c", "type": "debug", "name": "n" * 5000, "x": 100, "y": 100, "wires": {"x": 1}},
        {"id": "d", "type": "function", "outputs": "many", "x": float("nan"), "y": 0, "wires": [[]]},
        {"id": "t", "type": "tab"},
        {"id": "e", "type": "change", "z": ["not", "a", "string"], "x": 5, "y": 5, "rules": "{bad", "wires": []},
        "junk", 17, None,
    ]
    import json as _json

    path = tmp_path / "hostile.json"
    path.write_text(_json.dumps(nodes, allow_nan=True).replace("NaN", "1"))
    window.open_files([str(path)])
    qtbot.waitUntil(lambda: bool(window.editors()) or bool(window.dialogs.errors), timeout=5000)
    ed = window.editor
    assert ed is not None and set(ed.scene.nodes) == {"a", "b", "c", "d", "e"}
    long = ed.scene.nodes["c"]
    assert long.w <= 320  # a 5,000-character name is elided, not drawn across the canvas
    ed.auto_layout()
    ed.focus_node("a")
    assert window.inspector.node_id == "a"
    ed.focus_node("e")
    kinds = {p.kind for p in ed.doc.problems()}
    assert {"invalid-node", "unknown-type", "invalid-json-attribute"} <= kinds
    window.save()
    assert _json.loads(path.read_text())[6:] == ["junk", 17, None]  # invalid entries are kept
