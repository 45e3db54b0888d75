"""The compare view (issue 4): a reference and a generated program side by side, the mapping found
by Δ drawn on both, the score panel, live rescoring, experiments and authoring helpers.

Entry points: ``CompareWindow`` (a top-level window), ``main_compare(ref, gen)`` for
``gindex-studio compare REF GEN``, ``install_actions(main_window)`` for the studio's File menu.
"""
from __future__ import annotations

__all__ = ["CompareWindow", "CompareView", "main_compare", "install_actions"]


def __getattr__(name):  # lazy: importing the package does not build Qt classes
    if name == "install_actions":
        from gindex_studio.ui.compare.menu import install_actions

        return install_actions
    if name in ("CompareWindow", "main_compare"):
        from gindex_studio.ui.compare import window

        return getattr(window, name)
    if name == "CompareView":
        from gindex_studio.ui.compare.view import CompareView

        return CompareView
    raise AttributeError(name)
