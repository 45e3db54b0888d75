"""The compare view (issue 4): a reference and a generated program side by side, the mapping found
by Δ drawn on both, the score panel, live rescoring, experiments and authoring helpers.

Entry points: ``CompareWindow`` (a top-level window), ``main_compare(ref, gen)`` for
``gindex-studio compare REF GEN``, ``CompareFeature`` for the studio's File menu.
"""
from __future__ import annotations

from gindex_studio.ui.lazy import lazy_exports

__all__ = ["CompareWindow", "CompareView", "main_compare", "CompareFeature"]

__getattr__ = lazy_exports({"CompareFeature": "gindex_studio.ui.compare.menu",
                            "CompareWindow": "gindex_studio.ui.compare.window",
                            "main_compare": "gindex_studio.ui.compare.window",
                            "CompareView": "gindex_studio.ui.compare.view"})
