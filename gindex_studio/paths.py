"""Where gindex-studio finds its bundled resources and keeps the user's data.

The package is installed editable, so the bundled ``resources`` folder is found next to the package
folder: ``<repo>/resources``.
"""
from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "gindex-studio"

REPO_ROOT: Path = Path(__file__).resolve().parent.parent
RESOURCES: Path = REPO_ROOT / "resources"
LIBRARY_DIR: Path = RESOURCES / "library"
DEMO_DIR: Path = RESOURCES / "demo"


def user_data_dir(create: bool = True) -> Path:
    """The user's data folder: ``$XDG_DATA_HOME/gindex-studio`` (``~/.local/share`` when unset).

    The folder is created when ``create`` is true (the default) and it does not exist yet.
    """
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    root = Path(base).expanduser() if base and Path(base).expanduser().is_absolute() else (
        Path.home() / ".local" / "share"
    )
    path = root / APP_NAME
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def user_library_dir(create: bool = False) -> Path:
    """Folder for the user's own node-type JSON files (``<user data>/library``)."""
    path = user_data_dir(create=create) / "library"
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path
