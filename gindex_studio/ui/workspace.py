"""One workspace: the studio's top-level windows (editor, compare, curation, Analysis) as one.

Every window adds a :class:`WorkspaceFeature`: it registers the window (in opening order), gives
it a Window menu listing every open window (``window.1`` … ``window.9``, Alt+1 … Alt+9) and
File → Quit, which is :func:`quit_studio` in every window.

Quit asks each window about its unsaved edits first (a window's ``confirm_close()``: True when it
may close; it saves what the user saves and discards nothing). A Cancel, or a save that fails,
stops there: no window closes and nothing is lost. Otherwise every window closes without asking
again (``quitting()`` is True meanwhile, and each ``closeEvent`` skips its question) and the
process ends (``end_process``).
"""
from __future__ import annotations

import weakref

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMainWindow

from gindex_studio.ui.features import Placement, WindowFeature

#: how many windows the Window menu lists with a shortcut (Alt+1 … Alt+9)
MAX_LISTED = 9
WINDOW_IDS = [f"window.{k}" for k in range(1, MAX_LISTED + 1)]

_windows: list[weakref.ref] = []  # in opening order
_state = {"quitting": False}


def end_process() -> None:
    """What Quit does once every window has closed (tests replace it)."""
    QApplication.quit()


def windows() -> list[QMainWindow]:
    """The open studio windows, in the order they were opened (closed ones left out)."""
    alive = []
    for ref in list(_windows):
        w = ref()
        try:
            shown = w is not None and w.isVisible()
        except RuntimeError:  # its C++ side is gone
            shown = False
        if shown:
            alive.append(w)
    return alive


def register(window: QMainWindow) -> None:
    """``window`` joins the workspace (listed from when it is shown until it closes)."""
    _windows[:] = [r for r in _windows if r() is not None and r() is not window]
    _windows.append(weakref.ref(window))
    window.destroyed.connect(lambda *_: refresh_all())


def quitting() -> bool:
    """True while Quit closes the windows (the user has already been asked about every one)."""
    return _state["quitting"]


def confirm_all(wins: list[QMainWindow]) -> bool:
    """Ask each window in turn about its unsaved edits; False at the first Cancel (or failed save)."""
    for w in wins:
        confirm = getattr(w, "confirm_close", None)
        if confirm is not None and not confirm():
            return False
    return True


def quit_studio() -> bool:
    """File → Quit in any window: ask about every window's unsaved edits, then close them all and
    end the process. False (nothing closed) when the user cancelled."""
    if quitting():
        return False
    wins = windows()
    if not confirm_all(wins):
        return False
    _state["quitting"] = True
    try:
        for w in reversed(wins):
            w.close()
    finally:
        _state["quitting"] = False
    end_process()
    return True


def activate(window: QMainWindow) -> None:
    """Bring ``window`` to the front (restored if minimised) and give it the focus."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


def refresh_all() -> None:
    """Every window's Window menu entries follow the open windows (so their shortcuts do too)."""
    for w in windows():
        feature = getattr(w, "features", {}).get(WorkspaceFeature.name)
        if feature is not None:
            feature.refresh()


class WorkspaceFeature(WindowFeature):
    """The Window menu (every open window, Alt+1 … Alt+9, a check at this one) and File → Quit
    (``quit_in_file``: placed at the File menu's end; False when the window has placed it)."""

    name = "workspace"

    def __init__(self, quit_in_file: bool = True):
        self.quit_in_file = quit_in_file
        self.menu = None
        self.entries: list[QAction] = []

    def actions(self):
        slots = {"file.quit": quit_studio}
        for k, aid in enumerate(WINDOW_IDS):
            slots[aid] = lambda _on=False, k=k: self.show_window(k)
        return slots

    def menus(self):
        places = [Placement("Window", WINDOW_IDS, title="&Window")]
        if self.quit_in_file:
            places.insert(0, Placement("File", [None, "file.quit"]))
        return places

    def attach(self, window: QMainWindow) -> None:
        super().attach(window)
        self.menu = next(a.menu() for a in window.menuBar().actions()
                         if a.menu() is not None and a.text().replace("&", "") == "Window")
        self.menu.aboutToShow.connect(self.refresh)
        self.entries = [window.findChild(QAction, aid) for aid in WINDOW_IDS]
        register(window)
        _ShownOrHidden(window)
        window.windowTitleChanged.connect(lambda _t: refresh_all())
        self.refresh()

    def show_window(self, k: int) -> None:
        """Window → the k-th open window (0-based): to the front."""
        wins = windows()
        if k < len(wins):
            activate(wins[k])
        self.refresh()

    def refresh(self) -> None:
        """Entry k names the k-th open window; entries past the last window are hidden."""
        if self.window is None:
            return
        wins = windows()
        for k in range(MAX_LISTED):
            a = self.entries[k]
            a.blockSignals(True)
            if k < len(wins):
                a.setText(f"&{k + 1}  {wins[k].windowTitle().replace('&', '&&')}")
                a.setChecked(wins[k] is self.window)
                a.setVisible(True)
            else:
                a.setChecked(False)
                a.setVisible(False)
            a.blockSignals(False)


class _ShownOrHidden(QObject):
    """Every Window menu follows a window's showing, hiding and closing."""

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        window.installEventFilter(self)

    def eventFilter(self, obj, ev):
        if ev.type() in (QEvent.Show, QEvent.Hide, QEvent.Close):
            QTimer.singleShot(0, refresh_all)  # once the window is shown or hidden
        return False
