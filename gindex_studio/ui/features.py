"""Window features: a part of a window (the Run menu and Debug dock, File → Curate…, Flatland's
menu and Drawing dock, …) that declares its actions, docks, menu places and toolbar entries and
keeps its own state, so that windows are composed of features instead of being patched.

A window holds a :class:`Features` and calls ``add(feature)``: the feature's actions are made by
the window's action registry, its docks join the window's ``docks`` and its actions go where its
:class:`Placement` says; then ``feature.attach(window)`` wires the rest. A feature never sets an
attribute on the window: tests and other code reach it with ``window.features[name]``.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Callable, Sequence

from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

from gindex_studio.ui.actions import ActionRegistry
from gindex_studio.ui.docks import add_docks


@dataclass(frozen=True)
class Placement:
    """Actions ``ids`` (None: a separator) in the menu titled ``menu`` (without "&"), before the
    action ``before`` when the menu holds it, else at its end. A menu the window lacks is made
    (titled ``title``, else ``"&" + menu``) before its Help menu, else before Panels, else last."""

    menu: str
    ids: Sequence[str | None]
    before: str | None = None
    title: str = ""


class WindowFeature:
    """A part of a window. Subclasses override what they have; state lives on the feature."""

    #: the key of the feature in ``window.features``
    name: str = ""
    _window_ref: weakref.ref | None = None

    @property
    def window(self) -> QMainWindow | None:
        """The window it is attached to (held weakly: a closed window is not kept alive by the
        features it holds)."""
        return self._window_ref() if self._window_ref is not None else None

    @window.setter
    def window(self, window: QMainWindow | None) -> None:
        self._window_ref = weakref.ref(window) if window is not None else None

    def actions(self) -> dict[str, Callable]:
        """Action id (a spec of ``actions.ALL_SPECS``) → its handler."""
        return {}

    def docks(self) -> list[tuple]:
        """Docks as ``(key, title, widget, area)`` (``docks.add_docks``); each dock's show/hide
        toggle is the registry's action ``panels.<key>``."""
        return []

    def menus(self) -> list[Placement]:
        return []

    def toolbar(self) -> list[str | None]:
        """Action ids appended to the window's main toolbar (``toolbar-main``), after a separator."""
        return []

    def attach(self, window: QMainWindow) -> None:
        """Wire signals once the actions, docks and menus are in place (overrides call this)."""
        self.window = window


class Features(dict):
    """The features of one window by name (``window.features``), added with :meth:`add`."""

    def __init__(self, window: QMainWindow, registry: ActionRegistry, docks: dict):
        super().__init__()
        self._window = weakref.ref(window)  # the window holds its features: no reference cycle
        self.registry, self.docks = registry, docks

    @property
    def window(self) -> QMainWindow:
        return self._window()

    def add(self, feature: WindowFeature) -> WindowFeature:
        for aid, slot in feature.actions().items():
            self.registry.add(aid, slot)
        for key, dock in add_docks(self.window, feature.docks()).items():
            self.docks[key] = dock
            self.registry.adopt(f"panels.{key}", dock.toggleViewAction())
        for p in feature.menus():
            self.registry.place(self._menu(p), p.ids, p.before)
        ids = feature.toolbar()
        bar = self.window.findChild(QToolBar, "toolbar-main")
        if ids and bar is not None:
            self.registry.place(bar, [None, *ids])
        self[feature.name] = feature
        feature.attach(self.window)
        return feature

    def _menu(self, p: Placement) -> QMenu:
        bar = self.window.menuBar()
        tops = {a.text().replace("&", ""): a for a in bar.actions() if a.menu() is not None}
        if p.menu in tops:
            return tops[p.menu].menu()
        menu = QMenu(p.title or "&" + p.menu, self.window)
        menu.setToolTipsVisible(True)
        anchor = tops.get("Help") or tops.get("Panels")
        bar.insertMenu(anchor, menu) if anchor is not None else bar.addMenu(menu)
        return menu
