"""Where a top-level window opens and how big: within the available geometry of the screen it
opens on, and as the user left it last time when that still fits.

``place(window, settings, key, preferred)`` is called once before the window is first shown:
it restores the geometry saved under ``<key>/geometry`` (size, position, maximised state) when
that geometry lies within the available geometry of a current screen, and otherwise gives the
window ``preferred`` size clamped to the available size (less a title bar), centred on the
screen; a window opening where another one is opens down and right of it (cascaded, shrunk to
stay on the screen). ``remember(window, settings, key)`` saves it (call it when the window closes). With
``settings`` None nothing is read or saved (tests, scripts). One helper for every window: the
studio, compare, curation and Analysis windows.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QMargins, QObject, QPoint, QRect, QSize, QTimer
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

#: room left for the window manager's frame and title bar before the real frame is known (it is
#: measured once the window is shown, and the window is moved or shrunk to keep its frame on screen)
FRAME = QMargins(6, 36, 6, 10)


def target_screen(window: QWidget):
    """The screen a new window opens on: its parent's, else the active window's, else the one
    under the pointer, else the primary screen."""
    for w in (window.parentWidget(), QApplication.activeWindow()):
        if w is not None and w is not window and w.screen() is not None:
            return w.screen()
    return QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()


def default_rect(available: QRect, preferred: QSize, frame: QMargins = FRAME) -> QRect:
    """The client area of a window of ``preferred`` size clamped so that it and its ``frame`` fit
    in ``available``, centred there."""
    room = available.marginsRemoved(frame)
    w = min(preferred.width(), room.width())
    h = min(preferred.height(), room.height())
    return QRect(room.x() + (room.width() - w) // 2, room.y() + (room.height() - h) // 2, w, h)


def popup_rect(anchor: QPoint, size: QSize, available: QRect) -> QRect:
    """Where a popup of ``size`` opened at ``anchor`` (its wished top-left corner) goes so that it
    lies wholly within ``available``: below and right of the anchor when there is room, else
    flipped above / to the left of it (as menus do), and clamped to ``available`` at last."""
    w, h = min(size.width(), available.width()), min(size.height(), available.height())
    x, y = anchor.x(), anchor.y()
    if x + w > available.right() + 1:
        x = x - w if x - w >= available.left() else available.right() + 1 - w
    if y + h > available.bottom() + 1:
        y = y - h if y - h >= available.top() else available.bottom() + 1 - h
    x = max(available.left(), min(x, available.right() + 1 - w))
    y = max(available.top(), min(y, available.bottom() + 1 - h))
    return QRect(x, y, w, h)


def screen_at(point: QPoint):
    """The screen holding ``point`` (global), else the primary screen."""
    return QGuiApplication.screenAt(point) or QGuiApplication.primaryScreen()


def fits(rect: QRect) -> bool:
    """``rect`` lies within the available geometry of one of the current screens."""
    return any(s.availableGeometry().contains(rect) for s in QGuiApplication.screens())


#: how far each new window opens down and right of one already open at its place
CASCADE = QPoint(32, 32)
#: the least a cascaded window shrinks to before the cascade starts again at the top left
CASCADE_MIN = QSize(720, 420)


def cascade(rect: QRect, taken: list[QPoint], available: QRect, frame: QMargins = FRAME) -> QRect:
    """``rect`` (a client area) moved down and right by ``CASCADE`` while its top-left corner is
    less than a step (in both directions) from an open window's, and shrunk so that it and its
    ``frame`` stay within ``available``; past ``CASCADE_MIN`` it starts again at the top left of
    ``available``."""
    room = available.marginsRemoved(frame)
    r = QRect(rect)

    def over(p: QPoint) -> bool:
        return abs(r.x() - p.x()) < CASCADE.x() and abs(r.y() - p.y()) < CASCADE.y()

    for _ in range(len(taken) + 1):
        if not any(over(p) for p in taken):
            break
        r.translate(CASCADE)
        r.setRight(min(r.right(), room.right()))
        r.setBottom(min(r.bottom(), room.bottom()))
        if r.width() < min(CASCADE_MIN.width(), rect.width()) or r.height() < min(CASCADE_MIN.height(), rect.height()):
            r = QRect(room.topLeft(), rect.size()).intersected(room)
    return r


def open_windows(window: QWidget) -> list[QWidget]:
    """The other visible top-level main windows (where a new one must not open exactly over)."""
    from PySide6.QtWidgets import QMainWindow

    return [w for w in QApplication.topLevelWidgets()
            if w is not window and isinstance(w, QMainWindow) and w.isVisible() and not w.isMaximized()]


def _cascade_from_open(window: QWidget) -> None:
    others = open_windows(window)
    screen = target_screen(window)
    if not others or screen is None:
        return
    g = window.geometry()
    moved = cascade(g, [w.geometry().topLeft() for w in others], screen.availableGeometry())
    if moved != g:
        window.setGeometry(moved)


def place(window: QWidget, settings, key: str, preferred: tuple[int, int]) -> bool:
    """Size and place ``window`` before it is first shown (see the module), cascaded from the
    windows already open (``cascade``). True when the saved geometry was restored."""
    saved = settings.value(f"{key}/geometry") if settings is not None else None
    normal = settings.value(f"{key}/normal") if settings is not None else None
    # Qt's restoreGeometry pulls an off-screen geometry onto the screen by itself: whether the
    # saved one fits is decided on the normal (not maximised) rectangle saved beside it
    if saved is not None and isinstance(normal, QRect) and fits(normal):
        try:
            ok = window.restoreGeometry(saved)
        except (TypeError, ValueError):
            ok = False
        if ok:
            if not window.windowState() & _maximised():
                _cascade_from_open(window)
            _KeepOnScreen(window)
            return True
    screen = target_screen(window)
    if screen is None:
        window.resize(*preferred)
        return False
    window.setGeometry(default_rect(screen.availableGeometry(), QSize(*preferred)))
    _cascade_from_open(window)
    _KeepOnScreen(window)
    return False


def remember(window: QWidget, settings, key: str) -> None:
    """Save ``window``'s geometry (size, position, maximised state) under ``<key>/geometry``, and
    its normal rectangle under ``<key>/normal``."""
    if settings is not None:
        settings.setValue(f"{key}/geometry", window.saveGeometry())
        maximised = window.windowState() & _maximised()
        settings.setValue(f"{key}/normal", QRect(window.normalGeometry() if maximised else window.geometry()))


class _KeepOnScreen(QObject):
    """Once the window is shown and its real frame known: if the frame sticks out of the screen's
    available geometry, the window is moved (and if need be shrunk) to fit. Once only, and only
    when nothing resized or moved the window between ``place`` and its showing (a script's
    explicit size is kept)."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        self.placed = window.geometry()
        window.installEventFilter(self)

    def eventFilter(self, obj, ev):
        if obj is self.window and ev.type() == QEvent.Show:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self, self.fit)
            # on X11 the window manager reports the frame a moment after the window is shown
            QTimer.singleShot(400, self, self.fit)
        return False

    def fit(self) -> None:
        w = self.window
        if w.windowState() & _maximised() or w.screen() is None or w.geometry().size() != self.placed.size():
            return
        g, f = w.geometry(), w.frameGeometry()
        frame = QMargins(g.left() - f.left(), g.top() - f.top(), f.right() - g.right(), f.bottom() - g.bottom())
        avail = w.screen().availableGeometry()
        if not avail.contains(f):
            w.setGeometry(default_rect(avail, g.size(), frame))



def _maximised():
    from PySide6.QtCore import Qt

    return Qt.WindowMaximized | Qt.WindowFullScreen


def use_laptop_screen(width: int = 1366, height: int = 768) -> None:
    """For screenshot scripts, before the QApplication exists: on the offscreen platform (the
    default here), one screen of ``width`` × ``height``, so that windows open as on that laptop."""
    import json
    import os
    import tempfile

    platform = os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if platform != "offscreen":
        return
    path = os.path.join(tempfile.gettempdir(), f"gindex-offscreen-{width}x{height}-{os.getuid()}.json")
    screen = {"name": "laptop", "x": 0, "y": 0, "width": width, "height": height, "logicalDpi": 96,
              "logicalBaseDpi": 96, "dpr": 1}
    with open(path, "w") as f:
        json.dump({"screens": [screen]}, f)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={path}"
