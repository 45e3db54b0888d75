"""A counting wrapper around QTest for tests that measure authoring effort: every gesture a user
makes goes through it and adds to ``count`` (a click, a drag, a key press = 1;
typing a word into one field = 1). Keys and typed text go to the widget that has the keyboard
focus, as a real keyboard's do, so a test cannot type into a widget the user could not reach."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QScrollArea, QStyle, QStyleOptionSlider, QWidget


def shown_strip(top: int, height: int, view_height: int, need: int) -> int | None:
    """For a widget ``height`` px tall whose top is at ``top`` in a scrolled view ``view_height``
    px tall: the y (in the widget) of the middle of its shown strip, or None when less than
    ``need`` px of it show."""
    lo, hi = max(top, 0), min(top + height, view_height)
    return (lo + hi) // 2 - top if hi - lo >= need else None


def handle_drag(top: int, height: int, view_height: int, travel: int, span: int) -> int:
    """How far (px, down > 0) to drag a scroll bar's handle, which moves ``travel`` px over the
    bar's range ``span``, to bring such a widget's bottom into view (its top, when it is above)."""
    assert travel > 0 and span > 0, (travel, span)
    change = top + height + 8 - view_height if top > 0 else top - 8  # content px to scroll
    return round(change * travel / span)


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
        pos = pos if pos is not None else widget.rect().center()
        assert widget.isVisible() and widget.visibleRegion().contains(pos), f"{what}: not on screen at {pos}"
        window = widget.window()
        if not window.isActiveWindow():  # a window manager activates the window clicked in (offscreen
            window.activateWindow()      # Qt leaves none active once a popup has closed)
            QApplication.processEvents()
        QTest.mouseClick(widget, Qt.LeftButton, Qt.NoModifier, pos)
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

    def _shown(self, vp: QWidget, widget: QWidget, need: int) -> int | None:
        return shown_strip(widget.mapTo(vp, QPoint(0, 0)).y(), widget.height(), vp.height(), need)

    def reveal(self, scroll: QScrollArea, widget: QWidget, strip: int = 10) -> int:
        """Scroll ``scroll`` until ``widget`` shows a strip at least ``strip`` px tall (or wholly, if
        smaller), as a user scrolls only until they can click it: one drag of the scroll bar's
        handle (1 action) that brings the widget's bottom into view; returns the y (in
        ``widget``) of the middle of its shown strip."""
        vp = scroll.viewport()
        need = min(strip, widget.height())
        y = self._shown(vp, widget, need)
        if y is not None:
            return y
        bar = scroll.verticalScrollBar()
        opt = QStyleOptionSlider()
        bar.initStyleOption(opt)
        handle = bar.style().subControlRect(QStyle.CC_ScrollBar, opt, QStyle.SC_ScrollBarSlider, bar)
        groove = bar.style().subControlRect(QStyle.CC_ScrollBar, opt, QStyle.SC_ScrollBarGroove, bar)
        a = handle.center()
        b = a + QPoint(0, handle_drag(widget.mapTo(vp, QPoint(0, 0)).y(), widget.height(), vp.height(),
                                      groove.height() - handle.height(), bar.maximum() - bar.minimum()))
        QTest.mousePress(bar, Qt.LeftButton, Qt.NoModifier, a)
        for k in range(1, 7):
            QTest.mouseMove(bar, a + (b - a) * (k / 6))
        QTest.mouseRelease(bar, Qt.LeftButton, Qt.NoModifier, b)
        QApplication.processEvents()
        self._note("drag the inspector's scroll bar")
        y = self._shown(vp, widget, need)
        assert y is not None, "one drag of the scroll bar did not show the widget"
        return y
