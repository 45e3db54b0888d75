"""A counting wrapper around QTest for tests that measure authoring effort: every gesture a user
makes goes through it and adds to ``count`` (a click, a drag, a key press or a wheel notch = 1;
typing a word into one field = 1). Keys and typed text go to the widget that has the keyboard
focus, as a real keyboard's do, so a test cannot type into a widget the user could not reach."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget


class Inputs:
    """Sends input events and counts them; ``log`` names each action in order."""

    def __init__(self, home: QWidget):
        self.home = home
        self.log: list[str] = []

    def _focus(self, what) -> QWidget:
        """The widget the keyboard types into. Offscreen Qt leaves no window active once a popup or
        tool window has closed (or keeps the focus in the hidden popup), where a window manager gives the activation back to the window
        below: that is done here, so the keys reach the widget that had the focus in it."""
        focus = QApplication.focusWidget()
        if QApplication.activeWindow() is None or focus is None or not focus.isVisible():
            self.home.activateWindow()
            QApplication.processEvents()
        target = QApplication.focusWidget()
        assert target is not None, f"no widget has the keyboard focus for {what!r}"
        return target

    @property
    def count(self) -> int:
        return len(self.log)

    def _note(self, what: str) -> None:
        self.log.append(what)

    def click(self, widget: QWidget, pos: QPoint | None = None, what: str = "click") -> None:
        """One left click on ``widget`` (at ``pos``, else its centre)."""
        assert widget.isVisible(), what
        window = widget.window()
        if not window.isActiveWindow():  # a window manager activates the window clicked in (offscreen
            window.activateWindow()      # Qt leaves none active once a popup has closed)
            QApplication.processEvents()
        QTest.mouseClick(widget, Qt.LeftButton, Qt.NoModifier, pos if pos is not None else widget.rect().center())
        self._note(what)
        QApplication.processEvents()

    def key(self, key, modifier=Qt.NoModifier, what: str = "") -> None:
        """One key press (with its modifiers) into the focused widget."""
        target = self._focus(what or key)
        QTest.keyClick(target, key, modifier)
        QApplication.processEvents()
        self._note(what or f"key {key}")

    def type(self, text: str, what: str = "") -> None:
        """Type ``text`` into the focused widget (one action: a word into one field); each
        character goes to whichever widget has the focus when it is typed."""
        for ch in text:
            QTest.keyClicks(self._focus(text), ch)
        self._note(what or f"type {text!r}")

    def wheel_into_view(self, scroll: QScrollArea, widget: QWidget) -> None:
        """Scroll ``scroll`` with the mouse wheel (one notch = 1) until ``widget`` is wholly shown."""
        vp = scroll.viewport()
        for _ in range(40):
            top = widget.mapTo(vp, QPoint(0, 0)).y()
            if top >= 0 and top + widget.height() <= vp.height():
                return
            delta = -120 if top > 0 else 120
            centre = QPointF(vp.rect().center())
            ev = QWheelEvent(centre, QPointF(vp.mapToGlobal(vp.rect().center())), QPoint(0, 0), QPoint(0, delta),
                             Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
            QApplication.sendEvent(vp, ev)
            self._note("wheel")
        raise AssertionError("the widget never came into view")
