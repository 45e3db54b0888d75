"""The curation window (issue 9): a Δ heatmap of a whole curriculum, near-duplicates, leaks,
coverage, a 2-D map and split editing with undo.

Entry points: ``open_curation(path, tasks)`` (a top-level window), ``CurateFeature`` for File →
Curate… in the main window, ``main_curate(path, tasks)`` for ``gindex-studio curate PATH --window``.
"""
from __future__ import annotations

from gindex_studio.ui.lazy import lazy_exports

__all__ = ["CurationWindow", "open_curation", "CurateFeature", "main_curate"]

__getattr__ = lazy_exports({"CurateFeature": "gindex_studio.ui.curation.menu",
                            **{name: "gindex_studio.ui.curation.window"
                               for name in ("CurationWindow", "open_curation", "main_curate")}})
