"""File → Run System… driven as a user does: the dialog opened from the File menu with clicks, its
fields typed, Run pressed; the compare window's task table fills as answers are scored, the
g-index so far above it, Cancel and Resume in the progress line. Checked against ``gindex`` on the
experiment written, against the requests a local OpenAI-compatible server counted, and for the
API key, which must appear in no file and no label."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QDialogButtonBox, QLabel, QLineEdit

from fake_chat_server import FLOW, ChatServer, completion, fenced, serve
from gindex_studio.core.systems.runlog import read_log
from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui.compare import window as compare_window

STUDY = DEMO_DIR / "study"
KEY = "sk-live-never-show-7731"
TREE = str(Path(__file__).resolve().parents[2])
SHOTS = Path("/tmp/shots")


@pytest.fixture(autouse=True)
def own_settings(tmp_path, monkeypatch):
    """The dialog remembers its fields in the studio's settings: a file of the test's, never the user's."""
    from gindex_studio.ui import preferences

    monkeypatch.setattr(preferences, "STUDIO_SETTINGS", [QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)])


@pytest.fixture
def studio(qtbot, tmp_path, library):
    from gindex_studio.ui.app import MainWindow

    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat),
                     autosave_dir=str(tmp_path / "autosave"), library=library)
    qtbot.addWidget(win)
    win.resize(1366, 768)
    win.show()
    qtbot.waitExposed(win)
    yield win
    for w in list(compare_window.WINDOWS):
        if w.system_run is not None:
            w.system_run.detach()
            w.system_run.join(10)
        w.dialogs.ask_save = lambda _name: "discard"
        w.close()
    QApplication.processEvents()


def open_window(qtbot, library):
    """A compare window of the test's, shown (its layout is not saved over the user's)."""
    win = compare_window.open_compare(None, library=library)
    win.settings = None
    win.setAttribute(Qt.WA_DeleteOnClose, False)
    qtbot.addWidget(win)
    qtbot.waitExposed(win)
    return win


def run_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("gindex-")]


def open_run_dialog(qtbot, win, action_id: str):
    """File → Run System… with the mouse: the menu bar's File, then the menu's item."""
    bar = win.menuBar()
    file_action = next(a for a in bar.actions() if a.text().replace("&", "") == "File")
    qtbot.mouseClick(bar, Qt.LeftButton, pos=bar.actionGeometry(file_action).center())
    menu = file_action.menu()
    qtbot.waitUntil(menu.isVisible)
    qtbot.mouseClick(menu, Qt.LeftButton, pos=menu.actionGeometry(win.actions[action_id]).center())
    get = (lambda: win.features["compare"].dialog) if action_id == "file.run_system" else (lambda: win.run_dialog)
    qtbot.waitUntil(lambda: get() is not None and get().isVisible())
    return get()


def type_into(qtbot, edit: QLineEdit, text: str) -> None:
    qtbot.mouseClick(edit, Qt.LeftButton, pos=edit.rect().center())
    qtbot.keyClick(edit, Qt.Key_A, Qt.ControlModifier)
    qtbot.keyClicks(edit, text)


def choose_kind(qtbot, dialog, key: str) -> None:
    """The system list opened with a click, walked with the arrow keys to the entry, Enter."""
    combo = dialog.kind
    qtbot.mouseClick(combo, Qt.LeftButton, pos=combo.rect().center())
    view = combo.view()
    qtbot.waitUntil(view.isVisible)
    target = combo.findData(key)
    while view.currentIndex().row() != target:
        qtbot.keyClick(view, Qt.Key_Down if view.currentIndex().row() < target else Qt.Key_Up)
    qtbot.keyClick(view, Qt.Key_Return)
    qtbot.waitUntil(lambda: combo.currentData() == key and not view.isVisible())


def press(qtbot, button: QAbstractButton) -> None:
    qtbot.mouseClick(button, Qt.LeftButton, pos=button.rect().center())


def press_run(qtbot, dialog) -> None:
    press(qtbot, dialog.buttons.button(QDialogButtonBox.Ok))


def gindex_cli(path) -> float:
    q = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "gindex", str(path), "--json"],
                       env={**os.environ, "PYTHONPATH": TREE}, capture_output=True, text=True, timeout=60)
    assert q.returncode == 0, q.stderr
    return json.loads(q.stdout)["g_index"]


def watch(run):
    """Every scored row and every end, as delivered (and on which thread)."""
    seen = {"scored": [], "ended": [], "failed": [], "threads": set()}

    def scored(result, g, n):
        seen["threads"].add(threading.current_thread() is threading.main_thread())
        seen["scored"].append((result.id, g, n))

    run.scored.connect(scored)
    run.ended.connect(lambda how, path: seen["ended"].append((how, path)))
    run.failed.connect(lambda line: seen["failed"].append(line))
    return seen


@pytest.fixture
def watched(monkeypatch):
    """What each run started from now on delivers (``watch``), hooked before it starts."""
    from gindex_studio.ui.compare.system_run import SystemRun

    seen = []
    start = SystemRun.start

    def watched_start(run):
        if not hasattr(run, "seen"):
            run.seen = watch(run)
            seen.append(run.seen)
        start(run)

    monkeypatch.setattr(SystemRun, "start", watched_start)
    return seen


def shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


def every_text(win) -> str:
    """What the window shows or tells in tooltips: labels, line edits, its title and status bar."""
    parts = [win.windowTitle(), win.statusBar().currentMessage()]
    for w in win.findChildren(QLabel):
        parts += [w.text(), w.toolTip()]
    for w in win.findChildren(QLineEdit):
        parts.append(w.text())
    return "\n".join(parts)


@pytest.mark.slow
def test_nearest_from_the_file_menu_fills_the_table_to_the_gindex_of_the_file(studio, qtbot, tmp_path, watched):
    dialog = open_run_dialog(qtbot, studio, "file.run_system")
    # prefilled from the demo study, nearest chosen
    assert dialog.edits["curriculum"].text() == str(STUDY / "curriculum") and dialog.kind.currentData() == "nearest"
    assert dialog.width() <= 1366 and dialog.height() <= 768
    shot(dialog, "run-system-dialog-light")
    out = tmp_path / "runs" / "nearest.json"
    type_into(qtbot, dialog.edits["output"], str(out))
    type_into(qtbot, dialog.concurrency.lineEdit(), "3")
    before = len(compare_window.WINDOWS)
    press_run(qtbot, dialog)
    qtbot.waitUntil(lambda: len(compare_window.WINDOWS) > before)
    win = compare_window.WINDOWS[-1]
    seen = watched[0]
    assert win.width() <= 1366 and win.height() <= 768
    qtbot.waitUntil(lambda: bool(seen["ended"]) and win.controller.result is not None, timeout=30_000)
    assert seen["ended"] == [("finished", str(out))] and not seen["failed"]
    assert [n for _id, _g, n in seen["scored"]] == list(range(1, 23)) and seen["threads"] == {True}
    cli = gindex_cli(out)
    assert seen["scored"][-1][1] == cli  # the running g-index once every task is in
    assert win.controller.result.g_index == cli  # the experiment as opened when the run ended
    assert win.tasks.g_label.text() == f"g-index {cli:,.3f}"
    assert win.tasks.proxy.rowCount() == 22
    assert win.run_bar.line.text().startswith("finished: answered 22 of 22")
    qtbot.waitUntil(lambda: win.current_task is not None)  # the worst task opens, as for any experiment
    shot(win, "run-system-finished-light")
    # the dialog remembers the last run
    again = open_run_dialog(qtbot, studio, "file.run_system")
    assert again.edits["output"].text() == str(out) and again.concurrency.value() == 3
    again.reject()


@pytest.mark.slow
def test_an_endpoint_run_cancelled_half_way_resumes_asking_only_the_rest(qtbot, tmp_path, library, monkeypatch,
                                                                        watched):
    monkeypatch.setenv("TINY_KEY", KEY)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    refs, ids = {}, {}
    for f in sorted((STUDY / "tasks").glob("*.json"))[:12]:
        shutil.copy(f, tasks / f.name)
        d = json.loads(f.read_text())
        refs[d["text"]], ids[d["text"]] = d["flow"], f.stem

    resumed = []

    def reply(body, n):  # past the 10th request, slow until the resume: Cancel lands mid-run under any load
        task = body["messages"][0]["content"].rstrip().rsplit("Task: ", 1)[1]
        return 200, {}, completion(fenced(refs[task] if len(task) % 2 else FLOW)), 0.6 if n > 10 and not resumed else 0.04

    server = ChatServer(reply)
    win = open_window(qtbot, library)
    out = tmp_path / "run" / "tiny.json"
    with serve(server) as url:
        dialog = open_run_dialog(qtbot, win, "compare.run_system")
        choose_kind(qtbot, dialog, "openai")
        for key, text in (("base_url", url), ("model", "tiny"), ("api_key_env", "TINY_KEY"),
                          ("tasks", str(tasks)), ("output", str(out))):
            type_into(qtbot, dialog.edits[key], text)
        type_into(qtbot, dialog.attempts.lineEdit(), "2")
        type_into(qtbot, dialog.concurrency.lineEdit(), "2")
        shot(dialog, "run-system-dialog-endpoint-light")
        press_run(qtbot, dialog)
        qtbot.waitUntil(lambda: win.system_run is not None)
        seen = watched[0]
        qtbot.waitUntil(lambda: len(seen["scored"]) >= 4, timeout=20_000)
        shot(win, "run-system-mid-run-light")
        press(qtbot, win.run_bar.cancel_button)
        qtbot.waitUntil(lambda: bool(seen["ended"]), timeout=20_000)
        assert seen["ended"] == [("cancelled", "")] and not out.exists()
        assert win.run_bar.resume_button.isVisible() and not win.run_bar.cancel_button.isVisible()
        assert win.windowTitle().startswith("openai on tiny.json (cancelled)")
        log = read_log(out.with_name("tiny.json.log.jsonl"))[1]
        kept = len(log)
        # the requests in flight when Cancel was pressed finished and were kept: every request sent is answered
        assert 8 <= kept < 24 and server.count == kept and all(r["error"] is None for r in log.values())
        assert f"answered {kept} of 24" in win.run_bar.line.text()
        rows = win.tasks.proxy.rowCount()  # the tasks scored before Cancel (scoring stops with it)
        assert rows == len(seen["scored"]) and 4 <= rows <= kept // 2
        server.requests.clear()
        resumed.append(True)
        press(qtbot, win.run_bar.resume_button)
        qtbot.waitUntil(lambda: len(seen["ended"]) == 2 and win.controller.result is not None, timeout=30_000)
    assert seen["ended"][1] == ("finished", str(out)) and not seen["failed"]
    assert server.count == 24 - kept  # only what was not answered
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in server.headers)
    # and exactly those: per task, as many requests as it had attempts without an answer
    asked = Counter(ids[b["messages"][0]["content"].rstrip().rsplit("Task: ", 1)[1]] for b in server.requests)
    missing = Counter({t: 2 - sum((t, a) in log for a in (0, 1)) for t in ids.values()})
    assert asked == +missing
    cli = gindex_cli(out)
    assert seen["scored"][-1][1] == cli and win.controller.result.g_index == cli
    assert seen["scored"][-1][2] == 12 and win.tasks.proxy.rowCount() == 12
    shot(win, "run-system-finished-endpoint-light")
    for p in tmp_path.rglob("*"):
        if p.is_file():
            assert KEY.encode() not in p.read_bytes(), p
    assert KEY not in every_text(win)
    win.close()
    assert not run_threads()


def test_an_unreachable_endpoint_says_so_in_the_window_without_waiting(qtbot, tmp_path, library, monkeypatch,
                                                                      watched):
    monkeypatch.setenv("TINY_KEY", KEY)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    from gindex_studio.core.systems.session import RunConfig

    win = open_window(qtbot, library)
    start = time.monotonic()
    run = win.run_system(RunConfig("openai", STUDY / "curriculum", [STUDY / "tasks"], tmp_path / "e.json",
                                   base_url=f"http://127.0.0.1:{port}/v1", model="m", api_key_env="TINY_KEY"))
    seen = watched[0]
    qtbot.waitUntil(lambda: bool(seen["failed"]), timeout=10_000)
    assert time.monotonic() - start < 8
    line = f"cannot reach http://127.0.0.1:{port}: Connection refused"
    assert seen["failed"] == [line] and win.run_bar.error.text() == line and win.run_bar.error.isVisible()
    assert win.run_bar.resume_button.isVisible()
    assert KEY not in every_text(win)
    run.join(5)
    assert not run_threads()
    win.close()


def test_bad_fields_are_named_under_each_field_and_nothing_is_kept(studio, qtbot, tmp_path, monkeypatch):
    monkeypatch.delenv("GINDEX_NOT_SET_VAR", raising=False)
    dialog = open_run_dialog(qtbot, studio, "file.run_system")
    choose_kind(qtbot, dialog, "openai")
    type_into(qtbot, dialog.edits["base_url"], "localhost:8000")
    type_into(qtbot, dialog.edits["model"], "")
    type_into(qtbot, dialog.edits["api_key_env"], KEY)  # the key itself, typed where its variable's name goes
    type_into(qtbot, dialog.edits["curriculum"], str(tmp_path / "nowhere"))
    type_into(qtbot, dialog.edits["output"], str(tmp_path))
    press_run(qtbot, dialog)
    assert dialog.isVisible()
    shown = {k: e.text() for k, e in dialog.errors.items() if e.isVisible()}
    assert shown == {"base_url": "an http:// or https:// address, e.g. http://127.0.0.1:8000/v1",
                     "model": "the model's name is needed",
                     "api_key_env": "the NAME of an environment variable (letters, digits and _), not the key itself",
                     "curriculum": f"no such folder: {tmp_path / 'nowhere'}",
                     "output": "a folder: give the experiment's file name, e.g. run.json"}
    shot(dialog, "run-system-dialog-errors-light")
    type_into(qtbot, dialog.edits["api_key_env"], "GINDEX_NOT_SET_VAR")
    press_run(qtbot, dialog)
    assert dialog.errors["api_key_env"].text() == ("no such variable in the studio's environment "
                                                   "(set it before starting the studio)")
    choose_kind(qtbot, dialog, "command")
    type_into(qtbot, dialog.edits["command"], "no-such-program-4711 --flag")
    press_run(qtbot, dialog)
    assert dialog.errors["command"].text() == "no program 'no-such-program-4711' (not a file, not on the PATH)"
    assert not dialog.errors["base_url"].isVisible()  # the endpoint's fields are not the command's
    dialog.reject()
    studio.settings.sync()  # nothing was remembered, the key least of all
    assert not [k for k in studio.settings.allKeys() if k.startswith("run/")]
    ini = tmp_path / "s.ini"
    assert not ini.exists() or KEY not in ini.read_text()


def test_closing_the_window_mid_run_stops_it_and_keeps_every_answer(qtbot, tmp_path, library, monkeypatch, watched):
    monkeypatch.setenv("TINY_KEY", KEY)
    server = ChatServer(lambda body, n: (200, {}, completion(fenced(FLOW)), 0.15))
    from gindex_studio.core.systems.session import RunConfig

    win = open_window(qtbot, library)
    out = tmp_path / "closed.json"
    asked = []
    win.dialogs.ask_stop_run = lambda: asked.append(1) or True
    with serve(server) as url:
        run = win.run_system(RunConfig("openai", STUDY / "curriculum", [STUDY / "tasks"], out, concurrency=3,
                                       base_url=url, model="tiny", api_key_env="TINY_KEY"))
        seen = watched[0]
        qtbot.waitUntil(lambda: server.count >= 4, timeout=10_000)
        errors = []
        win.dialogs.error = lambda title, text: errors.append(title)
        assert not win.open_experiment(str(DEMO_DIR / "experiment.json"))  # the table is the run's meanwhile
        assert errors == ["A system run is in progress"] and win.controller.experiment is None
        win.close()
        assert asked == [1] and not win.isVisible()
        assert run.join(10)  # the requests in flight finished by themselves
        QApplication.processEvents()
    assert not run_threads() and not seen["ended"]  # nothing reached the closed window
    log = read_log(out.with_name("closed.json.log.jsonl"))[1]
    assert len(log) == server.count < 22 and not out.exists()


def test_a_key_typed_for_another_system_is_never_kept(studio, qtbot, tmp_path, watched):
    """The key pasted into the endpoint's variable field, then nearest chosen and run: the hidden
    field was never checked, so nothing of it is remembered."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for f in sorted((STUDY / "tasks").glob("*.json"))[:2]:
        shutil.copy(f, tasks / f.name)
    dialog = open_run_dialog(qtbot, studio, "file.run_system")
    choose_kind(qtbot, dialog, "openai")
    type_into(qtbot, dialog.edits["api_key_env"], KEY.replace("-", "_"))  # a key that looks like a name
    choose_kind(qtbot, dialog, "nearest")
    type_into(qtbot, dialog.edits["tasks"], str(tasks))
    type_into(qtbot, dialog.edits["output"], str(tmp_path / "near.json"))
    press_run(qtbot, dialog)
    qtbot.waitUntil(lambda: bool(watched) and bool(watched[0]["ended"]), timeout=60_000)
    assert watched[0]["ended"] == [("finished", str(tmp_path / "near.json"))]
    studio.settings.sync()
    assert studio.settings.value("run/system") == "nearest"
    assert studio.settings.value("run/tasks") == str(tasks)
    assert KEY.replace("-", "_") not in (tmp_path / "s.ini").read_text()


@pytest.mark.slow
def test_resume_after_opening_another_experiment_takes_the_table_back(qtbot, tmp_path, library, monkeypatch,
                                                                       watched):
    """A run cancelled, the demo experiment opened in its window, then Resume pressed: the table is
    the run's again (the demo is left), the last run's error is gone once the resume asks again,
    and a row of the stopped run clicked says why it does not open."""
    monkeypatch.setenv("TINY_KEY", KEY)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for f in sorted((STUDY / "tasks").glob("*.json"))[:4]:
        shutil.copy(f, tasks / f.name)
    resumed = []

    def reply(body, n):  # the first request refused, then slow until the resume
        if n == 0 and not resumed:
            return 400, {}, b'{"error": "bad request"}', 0.0
        return 200, {}, completion(fenced(FLOW)), 0.04 if resumed or n < 3 else 0.8

    server = ChatServer(reply)
    from gindex_studio.core.systems.session import RunConfig

    win = open_window(qtbot, library)
    out = tmp_path / "back.json"
    with serve(server) as url:
        win.run_system(RunConfig("openai", STUDY / "curriculum", [tasks], out, base_url=url, model="tiny",
                                 api_key_env="TINY_KEY", retries=0))
        seen = watched[0]
        qtbot.waitUntil(lambda: win.run_bar.error.isVisible(), timeout=30_000)
        assert win.run_bar.error.text().startswith("last error: HTTP 400")
        qtbot.waitUntil(lambda: win.tasks.proxy.rowCount() >= 1, timeout=30_000)
        press(qtbot, win.run_bar.cancel_button)
        qtbot.waitUntil(lambda: bool(seen["ended"]), timeout=30_000)
        assert seen["ended"] == [("cancelled", "")]
        rows = win.tasks.proxy.rowCount()
        view = win.tasks.table
        rect = view.visualRect(win.tasks.proxy.index(0, 0))
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=rect.center())
        assert win.statusBar().currentMessage().startswith("The run has not finished")
        shot(win, "run-system-cancelled-row-clicked-light")
        assert win.open_experiment(str(DEMO_DIR / "experiment.json"))
        qtbot.waitUntil(lambda: win.controller.result is not None, timeout=60_000)
        assert win.tasks.proxy.rowCount() == 16 and rows < 4
        resumed.append(True)
        press(qtbot, win.run_bar.resume_button)
        assert win.controller.experiment is None and not win.run_bar.error.isVisible()
        assert win.tasks.proxy.rowCount() == 0 and win.tasks.g_label.text() == "g-index … (preparing the run)"
        assert win.run_bar.line.text().startswith("preparing") and not win.run_bar.resume_button.isVisible()
        shot(win, "run-system-resumed-light")
        qtbot.waitUntil(lambda: len(seen["ended"]) == 2 and win.controller.result is not None, timeout=60_000)
    assert seen["ended"][1] == ("finished", str(out)) and not seen["failed"]
    assert win.controller.experiment.path == out and win.tasks.proxy.rowCount() == 4
    assert not win.run_bar.error.isVisible()
    win.close()
    assert not run_threads()


def test_an_endpoint_behind_a_proxy_is_not_probed_directly(monkeypatch):
    """The client sends through ``HTTP(S)_PROXY``: a host reachable only from the proxy must not be
    refused as unreachable; ``NO_PROXY`` hosts are probed as before."""
    from gindex_studio.core.systems.session import SessionError
    from gindex_studio.ui.compare.system_run import reach

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(var, raising=False)
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(SessionError, match="cannot reach"):
        reach(url, timeout=2)
    monkeypatch.setenv("http_proxy", "http://proxy.invalid:3128")
    reach(url, timeout=2)  # the proxy's business
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    with pytest.raises(SessionError, match="cannot reach"):
        reach(url, timeout=2)
