"""The Analysis window (issue 10): systems compared in the paper's figures, with intervals.

Entry points: ``AnalysisWindow``, ``open_analysis(paths)``, ``AnalysisFeature`` (File →
Analysis… in the main window), ``write_report(analysis, path)`` for the HTML report.
"""
from __future__ import annotations

from gindex_studio.ui.lazy import lazy_exports

__all__ = ["AnalysisWindow", "open_analysis", "AnalysisFeature", "write_report"]

__getattr__ = lazy_exports({"AnalysisFeature": "gindex_studio.ui.analysis.menu",
                            "AnalysisWindow": "gindex_studio.ui.analysis.window",
                            "open_analysis": "gindex_studio.ui.analysis.window",
                            "write_report": "gindex_studio.ui.analysis.report"})
