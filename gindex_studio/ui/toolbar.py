"""The editor window's main toolbar, steady under the pointer: every button keeps its width
whatever the last edit was called (Undo and Redo say only that; the edit they would undo is in
their tooltip and in the Edit menu), navigation buttons are icons only so that the row fits a
1024-pixel-wide window, and when it still does not fit its overflow button is plainly visible.

New is New Task (what authoring a reference starts from); its arrow offers an empty flow."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolBar, QToolButton

#: the main toolbar's actions (None: a separator); features append theirs (Deploy & run)
MAIN_IDS = ("file.new_task", "file.open", "file.save", None, "edit.undo", "edit.redo", None,
            "view.zoom_out", "view.zoom_in", "view.fit", None, "arrange.layout")
#: these buttons show their text beside the icon; the others show the icon (the text without one)
TEXT_IDS = frozenset({"file.new_task", "edit.undo", "edit.redo", "arrange.layout", "run.deploy"})

OVERFLOW_STYLE = ("QToolButton#qt_toolbar_ext_button { border: 1px solid palette(mid);"
                  " border-radius: 3px; background: palette(button); }")


def steady_undo_text(action: QAction, verb: str, what: str) -> None:
    """``verb`` ("Undo"/"Redo") on the toolbar whatever ``what`` (the stack's text) is; the menu
    entry and the tooltip name ``what``."""
    action.setText(f"&{verb} {what}".strip())
    action.setIconText(verb)
    keys = action.shortcut().toString()
    tip = f"{verb} {what}" if what else f"Nothing to {verb.lower()}"
    action.setToolTip(f"{tip} ({keys})" if keys else tip)


class MainToolBar(QToolBar):
    """A toolbar whose buttons take their style by action id as they are added (``TEXT_IDS``)."""

    def __init__(self, title: str = "Main", parent=None):
        super().__init__(title, parent)
        self.setObjectName("toolbar-main")
        self.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.setStyleSheet(OVERFLOW_STYLE)
        more = self.findChild(QToolButton, "qt_toolbar_ext_button")
        if more is not None:
            more.setToolTip("More tools: the buttons this window is too narrow to show")

    def actionEvent(self, e) -> None:
        super().actionEvent(e)
        if e.type() == QEvent.ActionAdded:
            self.style_button(e.action())

    def style_button(self, action: QAction) -> None:
        b = self.widgetForAction(action)
        if isinstance(b, QToolButton) and action.objectName():
            b.setToolButtonStyle(Qt.ToolButtonTextBesideIcon if action.objectName() in TEXT_IDS
                                 else Qt.ToolButtonIconOnly)


def main_toolbar(window, actions) -> MainToolBar:
    """The main window's toolbar with ``MAIN_IDS`` of the registry ``actions``; New Task's button
    has a menu with New Task and New (an empty flow)."""
    tb = MainToolBar("Main", window)
    actions.place(tb, MAIN_IDS)
    new = tb.widgetForAction(actions["file.new_task"])
    menu = QMenu(new)
    menu.setToolTipsVisible(True)
    menu.addAction(actions["file.new_task"])
    menu.addAction(actions["file.new"])
    new.setMenu(menu)
    new.setPopupMode(QToolButton.MenuButtonPopup)
    return tb
