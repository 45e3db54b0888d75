"""Issue 32's Done-when on a real X server: the 8-node status task (see status_task), authored from
the studio's empty start on Xvfb at 1366×768 with openbox, with every input sent by xdotool through
XTEST as a mouse and keyboard would send it, takes at most 45 actions (a click, a drag, a key press
= 1; a word typed into one field = 1); the flow it saves through the real Save dialog has the asked
structure and deploys and routes the status in the real Node-RED.

The studio runs as its own process under ``x11_driver`` (the real window, started empty), which
answers where its widgets are and what the model holds, and sends nothing: the test looks up a
target, sends the input with xdotool, and waits (polling the driver) until the studio shows the
effect before the next action. The gestures are the offscreen test's (test_authoring_count), with
what a real screen changes: the window opens as openbox leaves room for it (a 1354×722 client
area, where the offscreen test resizes to 1366×768), so the inspector shows less and the repeat
menu takes a scroll of its own; a combo box's list is a real popup (on this screen it opens over
the combo box and shows every entry, the switch's 22 operators down to the screen's bottom edge),
whose entry is clicked where it shows (two actions, where the offscreen test presses a letter or
End and Enter; keys remain the way to an entry the list would show only scrolled); nodes typed on
the canvas stay in view, so no Ctrl+0; Save is Ctrl+S, the path typed into the real Save
dialog's file name field (its suggestion is selected) and Enter.

Screenshots of the X screen (the start, the inject set, mid-way, the switch's operator list, the
Save dialog, the end, and the moment a wait failed) are saved in the test's temporary folder
(``shots/x11count-*.png``).
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .input_counter import handle_drag, shown_strip
from .status_task import LIMIT, URL, check_runs, check_structure
from .x11_support import SCREEN, Studio, display, xc  # noqa: F401 (display: the fixture)

DRIVER = Path(__file__).with_name("x11_driver.py")


class Driver:
    """The test's side of ``x11_driver``: questions, and waiting for an answer to come true."""

    def __init__(self, path: Path, studio: Studio, shot, timeout: float = 40.0):
        self.studio = studio
        self.shot = shot
        end = time.perf_counter() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.settimeout(30)
                self.sock.connect(str(path))
                break
            except OSError:
                self.sock.close()
                if time.perf_counter() > end or studio.proc.poll() is not None:
                    studio.log.seek(0)
                    pytest.fail(f"the driver did not answer within {timeout} s: {studio.log.read()[-1500:]}")
                time.sleep(0.05)
        self.buf = b""

    def ask(self, q: str, **kw):
        self.sock.sendall(json.dumps({"q": q, **kw}).encode() + b"\n")
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            assert chunk, "the driver closed its socket"
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        answer = json.loads(line)
        assert not (isinstance(answer, dict) and "error" in answer), answer
        return answer

    def until(self, what: str, q: str, check, timeout: float = 20.0, **kw):
        """Poll ``q`` until ``check(answer)`` holds; returns that answer (fails naming ``what``)."""
        end = time.perf_counter() + timeout
        while True:
            answer = self.ask(q, **kw)
            if check(answer):
                return answer
            if time.perf_counter() > end:
                pytest.fail(f"{what}: not seen within {timeout} s; last answer {answer}; state {self.ask('state')}; "
                            f"the screen: {self.shot('failed')}")
            time.sleep(0.03)


class XUser:
    """Sends input with xdotool (XTEST: as a real mouse and keyboard do) and counts it; ``log``
    names each action in order. Moving the pointer is not an action; a press-move-release is one."""

    def __init__(self, disp: str):
        self.disp = disp
        self.log: list[str] = []

    @property
    def count(self) -> int:
        return len(self.log)

    def _x(self, *args: str) -> None:
        p = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": self.disp}, capture_output=True,
                           text=True, timeout=30)
        assert p.returncode == 0, (args, p.stderr)

    def click(self, x: int, y: int, what: str) -> None:
        self._x("mousemove", "--sync", str(x), str(y), "click", "1")
        self.log.append(what)

    def drag(self, a: tuple[int, int], b: tuple[int, int], what: str, steps: int = 6) -> None:
        moves = []
        for k in range(1, steps + 1):
            moves += ["mousemove", "--sync", str(round(a[0] + (b[0] - a[0]) * k / steps)),
                      str(round(a[1] + (b[1] - a[1]) * k / steps))]
        self._x("mousemove", "--sync", str(a[0]), str(a[1]), "mousedown", "1", *moves, "mouseup", "1")
        self.log.append(what)

    def key(self, keys: str, what: str) -> None:
        self._x("key", keys)
        self.log.append(what)

    def type(self, text: str, what: str) -> None:
        self._x("type", "--delay", "20", text)
        self.log.append(what)


def _centre(rect) -> tuple[int, int]:
    x, y, w, h = rect
    return x + w // 2, y + h // 2


def _reveal(u: XUser, d: Driver, path: str, strip: int = 10) -> dict:
    """The inspector's widget ``path``, scrolled (one drag of the scroll bar's handle, as in
    ``Inputs.reveal``) until a strip of it at least ``strip`` px tall (or all of it) shows."""
    w = d.until(path, "widget", lambda a: a is not None and a["visible"], path=path)
    s = w["in_scroll"]
    need = min(strip, s["height"])
    if shown_strip(s["top"], s["height"], s["vp_height"], need) is None:
        bar = d.ask("scrollbar")
        dy = handle_drag(s["top"], s["height"], s["vp_height"], bar["travel"], bar["span"])
        a = tuple(bar["handle"])
        u.drag(a, (a[0], a[1] + dy), "drag the inspector's scroll bar")
        w = d.until(f"{path} scrolled into view", "widget",
                    lambda a: a["rect"] is not None and a["rect"][3] >= need, path=path)
    assert w["rect"] is not None and w["rect"][3] >= need, (path, w)
    return _still(d, path, w)


def _still(d: Driver, path: str, w: dict, seconds: float = 10.0) -> dict:
    """``w`` once the widget ``path`` has kept its place for 0.15 s: the inspector of a node just
    added still lays itself out, and a click at where the widget had been went to the scroll area
    (1 run in about 8, idle)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.15)
        again = d.ask("widget", path=path)
        if again is not None and again["rect"] is not None and again["rect"] == w["rect"]:
            return again
        w = again if again is not None else w
    raise AssertionError(f"{path} kept moving for {seconds:g} s: {w}")


def _click_node(u: XUser, d: Driver, node_type: str) -> None:
    n = d.ask("node", type=node_type)
    assert n is not None and n["shown"], f"{node_type} is off screen: {n}"
    u.click(*n["at"], f"select {node_type}")
    d.until(f"{node_type} selected", "state", lambda s: s["selected"] == [node_type])


def _field(u: XUser, d: Driver, path: str, text: str, what: str, at_end: bool = False) -> None:
    """Click into a text field (an empty one, or right of its text when ``at_end``) and type it."""
    w = _reveal(u, d, path)
    assert at_end or w["text"] == "", (what, w["text"])
    x, y, width, h = w["rect"]
    u.click(x + width - 6 if at_end else x + width // 2, y + h // 2, f"click {what}")
    d.until(f"{what} focused", "widget", lambda a: a["focus"], path=path)
    before = w["text"]
    u.type(text, what)
    d.until(f"{what} typed", "widget", lambda a: a["text"] == before + text, path=path)


def _pick(u: XUser, d: Driver, path: str, entry: str, what: str, keys: tuple[str, ...] = (), done=None,
          look: str = "") -> None:
    """Open the combo box ``path`` with a click (and save a screenshot named ``look`` of its list);
    then click its entry ``entry`` where the list shows it, or, when the list shows it only
    scrolled, press ``keys`` and Enter; then wait for ``done`` (a check of the state), else for the
    combo box to show ``entry``."""
    w = _reveal(u, d, path)
    u.click(*_centre(w["rect"]), f"open {what}")
    items = d.until(f"{what}'s list open", "items", lambda a: a is not None)
    if look:
        d.shot(look)
    (item,) = [i for i in items if i["text"] == entry]
    if item["rect"] is not None:
        u.click(*_centre(item["rect"]), f"{what}: click {entry!r}")
    else:
        assert keys, f"{entry!r} is not shown in the list ({items}; {d.shot('failed')})"
        for k in keys:
            u.key(k, f"{what}: {k}")
        u.key("Return", f"{what}: Enter")
    if done is not None:
        d.until(f"{what}: {entry}", "state", done)
    else:
        d.until(f"{what}: {entry}", "widget", lambda a: a is not None and a["text"] == entry and not a["open"], path=path)


def _quick_add(u: XUser, d: Driver, name: str, node_type: str) -> None:
    """Type a node's name on the canvas (its first key opens the quick-add popup) and press Enter."""
    u.type(name, f"type {name!r}")
    d.until(f"{name!r} in quick-add", "widget", lambda a: a is not None and a["text"] == name,
            path="editor.quick_add_popup.edit")
    u.key("Return", "Enter")
    d.until(f"{node_type} added", "state", lambda s: node_type in s["types"] and s["popup"] is None)


def author(u: XUser, d: Driver, shot) -> None:
    """The authoring, gesture by gesture (the offscreen test's ``author``)."""
    assert d.ask("state")["types"] is None  # the studio as it starts: no flow open
    shot("start")

    search = d.ask("widget", path="palette.search")
    u.click(*_centre(search["rect"]), "click palette filter")
    d.until("palette filter focused", "state", lambda s: s["focus_path"] == "palette.search")
    u.type("inject", "type 'inject'")
    d.until("filter typed", "widget", lambda a: a["text"] == "inject", path="palette.search")
    u.key("Return", "Enter")
    d.until("inject added", "state", lambda s: s["types"] == ["inject"])
    _pick(u, d, "inspector.repeat.mode", "at a specific time", "inject: repeat")
    _reveal(u, d, "inspector.repeat.#day:Sun")  # one scroll shows the time and the days
    at = _reveal(u, d, "inspector.repeat.at")
    u.click(at["text_left"] + at["digit_w"], at["rect"][1] + at["rect"][3] // 2, "inject: hour")
    u.type("09", "inject: hour")
    d.until("hour typed", "widget", lambda a: a["text"].startswith("09"), path="inspector.repeat.at")
    for day in ("Sat", "Sun"):
        box = _reveal(u, d, f"inspector.repeat.#day:{day}")
        u.click(box["rect"][0] + 8, box["rect"][1] + box["rect"][3] // 2, f"inject: untick {day}")
        d.until(f"{day} unticked", "widget", lambda a: not a["checked"], path=f"inspector.repeat.#day:{day}")
    shot("inject")

    _click_node(u, d, "inject")
    _quick_add(u, d, "http request", "http request")
    _field(u, d, "inspector.url", URL, "http: URL")
    _click_node(u, d, "http request")
    for name in ("json", "switch", "change", "debug"):
        _quick_add(u, d, name, name)
    shot("mid")

    _click_node(u, d, "change")
    _field(u, d, "inspector.rules.rows[0].to.edit", "fine", "change: to the value")
    _click_node(u, d, "switch")
    _field(u, d, "inspector.property.edit", ".status", "switch: property", at_end=True)
    _field(u, d, "inspector.rules.rows[0].value_field.edit", "ok", "switch: rule 1 value")
    add = _reveal(u, d, "inspector.rules.#add-rule")
    u.click(*_centre(add["rect"]), "switch: + add")
    d.until("rule 2 added", "widget", lambda a: a is not None, path="inspector.rules.rows[1].op")
    _pick(u, d, "inspector.rules.rows[1].op", "otherwise", "switch: rule 2 operator", keys=("End",),
          look="operators")

    _click_node(u, d, "switch")
    _quick_add(u, d, "telegram sender", "chatbot-telegram-send")
    _pick(u, d, "inspector.bot.combo", "Create new chatbot-telegram-node…", "sender: bot",
          done=lambda s: "chatbot-telegram-node" in s["types"] and s["popup"] is None)


def save(u: XUser, d: Driver, path: Path, shot) -> dict:
    """Ctrl+S opens the real Save dialog (the flow is untitled); type the file's path into its
    file name field, which has the focus, and press Enter."""
    u.key("ctrl+s", "Ctrl+S")
    dlg = d.until("the Save dialog", "dialog", lambda a: a is not None and a["active"] and a["file_name_focus"])
    shot("save")
    assert dlg["selected"] == dlg["file_name"] != "", dlg  # the suggested name: typing replaces it
    u.type(str(path), "Save dialog: type the path")
    d.until("the path typed", "dialog", lambda a: a is not None and a["file_name"] == str(path))
    u.key("Return", "Save dialog: Enter")
    d.until("saved", "state", lambda s: s["modal"] is None and s["path"] == str(path) and not s["dirty"])
    return dlg


@pytest.fixture
def shot(display, tmp_path):
    """Save the X screen as ``shots/x11count-NAME.png`` in the test's folder once it has stopped
    changing for 0.3 s (5 s at most: a window just closed may still show); returns the path."""
    folder = tmp_path / "shots"
    folder.mkdir()

    def save(name: str) -> Path:
        path = folder / f"x11count-{name}.png"
        img, end = xc.grab(display, (0, 0, *SCREEN)), time.perf_counter() + 5
        while time.perf_counter() < end:
            time.sleep(0.3)
            again = xc.grab(display, (0, 0, *SCREEN))
            if again.tobytes() == img.tobytes():
                break
            img = again
        img.save(path)
        return path

    return save


@pytest.fixture
def studio(display, tmp_path, shot):
    """The studio under the driver on the display, and the driver's answers; stopped afterwards."""
    home = tmp_path / "home"
    home.mkdir()
    sock = tmp_path / "driver.sock"
    s = Studio(display, [str(sock), str(home)], home, command=[sys.executable, str(DRIVER)])
    try:
        d = Driver(sock, s, shot)
        wid = d.until("the studio's window", "state", lambda st: st["active"] == "MainWindow")["wid"]
        xc.settle(display, str(wid), quiet=0.5, limit=20)
        yield s, d
    finally:
        if s.proc.poll() is None:
            s.proc.terminate()
            try:
                s.proc.wait(10)
            except subprocess.TimeoutExpired:
                s.proc.kill()
                s.proc.wait()
        s.log.seek(0)
        out = s.log.read()
        s.log.close()
        assert "Traceback" not in out, out[-2000:]


def _author_and_save(display, studio, shot, tmp_path) -> tuple[XUser, dict]:
    _s, d = studio
    u = XUser(display)
    t0 = time.perf_counter()
    author(u, d, shot)
    path = tmp_path / "status.json"
    save(u, d, path, shot)
    shot("end")
    took = time.perf_counter() - t0
    print(f"\nauthoring the status task on X took {u.count} actions in {took:.1f} s:\n  " + "\n  ".join(u.log))
    saved = json.loads(path.read_text())
    check_structure(saved)
    return u, saved


@pytest.mark.slow
def test_the_status_task_authored_with_xdotool_takes_at_most_45_actions_and_runs_in_the_real_node_red(
        display, studio, shot, tmp_path, nodered_session):
    u, saved = _author_and_save(display, studio, shot, tmp_path)
    check_runs(nodered_session, saved)
    assert u.count <= LIMIT, u.log
