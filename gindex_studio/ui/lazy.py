"""Lazy package exports: importing a window's package does not build its Qt classes."""
from __future__ import annotations

import importlib
from typing import Callable


def lazy_exports(where: dict[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` that imports ``name`` from the module ``where[name]`` on first use."""

    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(name)
        return getattr(importlib.import_module(where[name]), name)

    return __getattr__
