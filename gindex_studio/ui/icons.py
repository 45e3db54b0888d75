"""Icons for node types and toolbar actions, drawn from the icon fonts that qtawesome ships.

Sets used: Material Design Icons 6 (``mdi6.*``: icons and font under the Apache License 2.0) and
Font Awesome 6 Free brands (``fa6b.*``: icons CC BY 4.0, font SIL OFL 1.1); qtawesome itself is
MIT. A type's icon is its own (``TYPE_ICONS``, read from ``resources/icons/node-types.json``), else
its category's (``CATEGORY_ICONS``), else a generic one. Without qtawesome (an optional install)
every function returns None and the canvas draws the type's initial letter instead.
"""
from __future__ import annotations

import json
from functools import lru_cache

from PySide6.QtGui import QColor, QIcon, QPixmap

from gindex_studio.core.flatland import WORLD
from gindex_studio.paths import ICONS_DIR

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

#: node type → its own icon (resources/icons/node-types.json)
TYPE_ICONS: dict[str, str] = json.loads((ICONS_DIR / "node-types.json").read_text(encoding="utf-8"))

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
