"""Icons for node types and toolbar actions, drawn from the icon fonts that qtawesome ships.

Sets used: Material Design Icons 6 (``mdi6.*``: icons and font under the Apache License 2.0) and
Font Awesome 6 Free brands (``fa6b.*``: icons CC BY 4.0, font SIL OFL 1.1); qtawesome itself is
MIT. A type's icon is its own (``TYPE_ICONS``), else its category's (``CATEGORY_ICONS``), else
a generic one. Without qtawesome (an optional install) every function returns None and the canvas
draws the type's initial letter instead.
"""
from __future__ import annotations

from functools import lru_cache

from PySide6.QtGui import QColor, QIcon, QPixmap

from gindex_studio.core.flatland import WORLD

GENERIC = "mdi6.puzzle-outline"

CATEGORY_ICONS = {
    "common-utility": "mdi6.tools",
    "functional": "mdi6.function-variant",
    "network": "mdi6.lan",
    "sequence": "mdi6.format-list-numbered",
    "parser": "mdi6.code-braces",
    "storage": "mdi6.file-document-outline",
    "dashboard": "mdi6.view-dashboard-outline",
    "browser-automation": "mdi6.web",
    "spotify-automation": "fa6b.spotify",
    "gdrive-automation": "fa6b.google-drive",
    "scheduling": "mdi6.calendar-clock",
    "zoom-automation": "mdi6.video-outline",
    "system-utilities": "mdi6.monitor",
    "stock-automation": "mdi6.chart-line",
    "home-automation": "mdi6.home-automation",
    "chatbot": "mdi6.robot-outline",
    "social": "fa6b.twitter",
    "bot-utilities": "mdi6.head-cog-outline",
    WORLD: "mdi6.draw",  # Flatland's node types
}

TYPE_ICONS = {
    "inject": "mdi6.gesture-tap-button", "debug": "mdi6.bug-outline", "complete": "mdi6.check-circle-outline",
    "catch": "mdi6.alert-circle-outline", "status": "mdi6.information-outline", "link in": "mdi6.import",
    "link out": "mdi6.export", "link call": "mdi6.phone-forward", "comment": "mdi6.comment-text-outline",
    "function": "mdi6.function-variant", "switch": "mdi6.source-branch", "change": "mdi6.swap-horizontal",
    "range": "mdi6.arrow-expand-horizontal", "template": "mdi6.file-document-edit-outline",
    "delay": "mdi6.timer-sand", "trigger": "mdi6.timer-outline", "exec": "mdi6.console", "rbe": "mdi6.filter-outline",
    "mqtt in": "mdi6.access-point", "mqtt out": "mdi6.access-point", "http in": "mdi6.web",
    "http response": "mdi6.reply", "http request": "mdi6.web", "websocket in": "mdi6.swap-vertical",
    "websocket out": "mdi6.swap-vertical", "split": "mdi6.call-split", "join": "mdi6.call-merge",
    "sort": "mdi6.sort", "batch": "mdi6.group", "csv": "mdi6.table", "html": "mdi6.language-html5",
    "json": "mdi6.code-json", "xml": "mdi6.xml", "yaml": "mdi6.code-braces", "file": "mdi6.content-save-outline",
    "file in": "mdi6.file-import-outline", "watch": "mdi6.eye-outline", "cronplus": "mdi6.calendar-clock",
    "ui_button": "mdi6.gesture-tap-button", "ui_dropdown": "mdi6.form-dropdown", "ui_switch": "mdi6.toggle-switch-outline",
    "ui_slider": "mdi6.tune-variant", "ui_numeric": "mdi6.numeric", "ui_text_input": "mdi6.form-textbox",
    "ui_date_picker": "mdi6.calendar", "ui_colour_picker": "mdi6.palette-outline", "ui_form": "mdi6.form-select",
    "ui_text": "mdi6.format-text", "ui_gauge": "mdi6.gauge", "ui_chart": "mdi6.chart-line",
    "ui_audio": "mdi6.volume-high", "ui_toast": "mdi6.message-alert-outline", "ui_template": "mdi6.language-html5",
    "ui_group": "mdi6.group", "ui_tab": "mdi6.tab",
    "chatbot-telegram-receive": "fa6b.telegram", "chatbot-telegram-send": "fa6b.telegram",
    "chatbot-telegram-node": "fa6b.telegram", "chatbot-facebook-receive": "fa6b.facebook-messenger",
    "chatbot-facebook-send": "fa6b.facebook-messenger", "chatbot-facebook-node": "fa6b.facebook-messenger",
    "chatbot-message": "mdi6.message-text-outline", "twitter in": "fa6b.twitter", "bot-intent": "mdi6.head-question-outline",
    "search-gdrive": "fa6b.google-drive", "gsheet-append": "mdi6.google-spreadsheet", "Export File": "mdi6.file-export-outline",
    "desktop-clipboard-add": "mdi6.clipboard-plus-outline", "desktop-clipboard-get": "mdi6.clipboard-arrow-down-outline",
    "desktop-system-notify": "mdi6.bell-outline", "desktop-system-open": "mdi6.open-in-app",
    "desktop-macos-file-search": "mdi6.file-search-outline", "light-control": "mdi6.lightbulb-outline",
    "switch-control": "mdi6.power-socket", "create-meeting": "mdi6.video-plus-outline",
    "play": "mdi6.play-circle-outline", "search": "mdi6.magnify", "playlist": "mdi6.playlist-music",
    "move": "mdi6.arrow-right-bold", "turn": "mdi6.rotate-right", "loop": "mdi6.repeat", "info": "mdi6.information-outline",
}

ACTION_ICONS = {
    "file.new": "mdi6.file-outline", "file.new_task": "mdi6.file-document-edit-outline", "file.open": "mdi6.folder-open-outline",
    "file.save": "mdi6.content-save-outline", "edit.undo": "mdi6.undo", "edit.redo": "mdi6.redo",
    "view.zoom_in": "mdi6.magnify-plus-outline", "view.zoom_out": "mdi6.magnify-minus-outline",
    "view.fit": "mdi6.fit-to-screen-outline", "arrange.layout": "mdi6.graph-outline", "edit.find": "mdi6.magnify",
    "help.guide": "mdi6.help-circle-outline", "run.deploy": "mdi6.play-circle-outline",
}


def _qta():
    try:
        import qtawesome
    except ImportError:
        return None
    return qtawesome


def available() -> bool:
    return _qta() is not None


def type_icon_name(type_id: str, category: str = "") -> str:
    """The icon name of a node type: its own, else its category's, else the generic one."""
    return TYPE_ICONS.get(type_id) or CATEGORY_ICONS.get(category) or GENERIC


@lru_cache(maxsize=512)
def _named(name: str, color: str) -> QIcon | None:
    qta = _qta()
    if qta is None:
        return None
    try:
        return qta.icon(name, color=QColor(color))
    except Exception:  # a name the installed font version lacks: fall back to the generic icon
        return qta.icon(GENERIC, color=QColor(color)) if name != GENERIC else None


@lru_cache(maxsize=1024)
def type_pixmap(type_id: str, category: str, size: int, color: str = "#2b2b2b") -> QPixmap | None:
    """The type's icon as a ``size``-pixel pixmap (cached), or None without qtawesome."""
    icon = _named(type_icon_name(type_id, category), color)
    return icon.pixmap(size, size) if icon is not None else None


def type_icon(type_id: str, category: str = "", color: str = "#2b2b2b") -> QIcon | None:
    return _named(type_icon_name(type_id, category), color)


def action_icon(action_id: str, color: str) -> QIcon | None:
    name = ACTION_ICONS.get(action_id)
    return _named(name, color) if name else None
