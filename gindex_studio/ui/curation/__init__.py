"""The curation window (issue 9): a Δ heatmap of a whole curriculum, near-duplicates, leaks,
coverage, a 2-D map and split editing with undo.

Entry points: ``open_curation(path, tasks)`` (a top-level window), ``install_actions(main_window)``
for File → Curate…, ``main_curate(path, tasks)`` for ``gindex-studio curate PATH --window``.
"""
from __future__ import annotations

__all__ = ["CurationWindow", "open_curation", "install_actions", "main_curate"]


def __getattr__(name):  # lazy: importing the package does not build Qt classes
    if name == "install_actions":
        from gindex_studio.ui.curation.menu import install_actions

        return install_actions
    if name in __all__:
        from gindex_studio.ui.curation import window

        return getattr(window, name)
    raise AttributeError(name)
