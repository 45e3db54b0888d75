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


def _accept_dialog(path: str, seen: list) -> None:
    """Type ``path`` into the open file dialog's name field and accept it (run from a timer while
    the dialog's own event loop runs)."""
    dialog = QApplication.activeModalWidget()
    if not isinstance(dialog, QFileDialog):
        QTimer.singleShot(20, lambda: _accept_dialog(path, seen))
        return
    seen.append(dialog)
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    name.setText(path)
    dialog.accept()


def _boxes() -> list[QMessageBox]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def open_through_menu(window, qtbot, path: str, timeout_s: float = 10.0):
    """File → Open ``path``: returns (message shown or "", seconds, peak RSS growth in bytes).
    The message box is closed again."""
    for box in _boxes():
        box.close()
    seen: list = []
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10
    start = time.monotonic()
    QTimer.singleShot(0, lambda: _accept_dialog(path, seen))
    _menu_action(window, "File", "file.open").trigger()
    assert seen, "File → Open showed no file dialog"
    qtbot.waitUntil(lambda: window.pending_loads() == 0, timeout=int(timeout_s * 1000))
    took = time.monotonic() - start
    grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10) - before
    boxes = _boxes()
    text = boxes[-1].text() if boxes else ""
    for box in boxes:
        box.close()
    return text, took, grew
