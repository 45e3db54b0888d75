"""Opening a file as a user does: File → Open in the window's menu bar, the file typed into the
real Qt file dialog and accepted; what the studio then says is read off the message box it shows."""
from __future__ import annotations

import resource
import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QMessageBox


def _menu_action(window, menu_title: str, action_id: str):
    """The action ``action_id`` as it sits in the menu ``menu_title`` of the window's menu bar."""
    target = window.actions[action_id]
    for top in window.menuBar().actions():
        if top.text().replace("&", "") == menu_title and top.menu() is not None:
            assert target in top.menu().actions(), f"{action_id} is not in the {menu_title} menu"
            return target
    raise AssertionError(f"no {menu_title} menu")


def _boxes() -> list[QMessageBox]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def open_through_menu(window, qtbot, path: str, timeout_s: float = 10.0):
    """File → Open ``path``: returns (message shown or "", seconds, peak RSS growth in bytes).
    The message box is closed again."""
    seen = open_collecting(window, qtbot, path, timeout_s)
    return (seen.messages[-1] if seen.messages else ""), seen.seconds, seen.grew


class Opened:
    """What one File → Open showed: every message box's text (each closed once read; the
    damaged-file question answered "Open Recovered Copy"), whether the file dialog took the
    name (it keeps a folder open, and refuses a name Qt cannot hold), the seconds and the growth
    of the peak resident size."""

    def __init__(self):
        self.messages: list[str] = []
        self.dialog_took = True
        self.seconds = 0.0
        self.grew = 0


def _collect(seen: Opened, path: str, typed: list) -> None:
    """One look (from a timer): type the name into the file dialog once, reject the dialog if it
    kept the name, read and close every message box."""
    dialog = QApplication.activeModalWidget()
    if isinstance(dialog, QFileDialog):
        if not typed:
            typed.append(time.monotonic())
            dialog.findChild(QLineEdit, "fileNameEdit").setText(path)
            QTimer.singleShot(0, dialog.accept)  # not inside this tick: its "not found" box runs an event loop
        elif time.monotonic() - typed[0] > 0.5 and not _boxes():  # it did not take the name
            seen.dialog_took = False
            dialog.reject()
    for box in _boxes():
        if box.parent() is not None and isinstance(box.parent(), QFileDialog):
            box.close()  # the file dialog's own "not found": it keeps the dialog open
            continue
        seen.messages.append(box.text())
        recover = [b for b in box.buttons() if b.text() == "Open Recovered Copy"]
        if recover:
            recover[0].click()
        else:
            box.close()


def open_collecting(window, qtbot, path: str, timeout_s: float = 10.0, menu: bool = True) -> Opened:
    """File → Open ``path`` (``menu=False``: ``window.open_files``, as a drop) as a user does,
    every message box read and closed; waits until the load is done and no box is left."""
    for box in _boxes():
        box.close()
    seen, typed = Opened(), ([] if menu else [0.0])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10
    start = time.monotonic()
    timer = QTimer()
    timer.timeout.connect(lambda: _collect(seen, path, typed))
    timer.start(20)
    try:
        if menu:
            _menu_action(window, "File", "file.open").trigger()
            assert typed, "File → Open showed no file dialog"
        else:
            window.open_files([path])
        qtbot.waitUntil(lambda: window.pending_loads() == 0, timeout=int(timeout_s * 1000))
        qtbot.wait(60)  # a message box opens once the load is reported
        _collect(seen, path, typed)
    finally:
        timer.stop()
    seen.seconds = time.monotonic() - start
    seen.grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10) - before
    return seen
