"""Where gindex-studio finds its bundled resources and keeps the user's data.

The bundled resources (node library, demo data, the application icon) live in the repository's top-level
``resources/`` folder. The build copies that folder into the package as package data
(``gindex_studio/resources``, see ``setup.py``), so an installed wheel or a frozen app finds it with
:mod:`importlib.resources`; an editable install of a checkout has no such copy and falls back to
``<checkout>/resources``. Either way the resources are plain files on disk (zip imports are not
supported). Nothing here imports Qt.
"""
from __future__ import annotations

import os
from importlib import resources as _resources
from pathlib import Path

APP_NAME = "gindex-studio"


def _find_resources() -> Path:
    """The package data copy when installed, else the checkout's ``resources/`` folder."""
    packaged = Path(str(_resources.files(__package__) / "resources"))
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "resources"
    if checkout.is_dir():
        return checkout
    return packaged  # neither exists: loaders report the missing folder by this name


RESOURCES: Path = _find_resources()
LIBRARY_DIR: Path = RESOURCES / "library"
DEMO_DIR: Path = RESOURCES / "demo"
ICONS_DIR: Path = RESOURCES / "icons"
APP_ICON: Path = ICONS_DIR / "gindex-studio.svg"  # the window and launcher icon


def user_data_dir(create: bool = True) -> Path:
    """The user's data folder: ``$XDG_DATA_HOME/gindex-studio`` (``~/.local/share`` when unset).

    The folder is created when ``create`` is true (the default) and it does not exist yet.
    """
    path = xdg_data_home() / APP_NAME
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def xdg_data_home() -> Path:
    """``$XDG_DATA_HOME`` when set to an absolute path, else ``~/.local/share`` (XDG base dirs)."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    if base and Path(base).expanduser().is_absolute():
        return Path(base).expanduser()
    return Path.home() / ".local" / "share"


def user_library_dir(create: bool = False) -> Path:
    """Folder for the user's own node-type JSON files (``<user data>/library``)."""
    path = user_data_dir(create=create) / "library"
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path
