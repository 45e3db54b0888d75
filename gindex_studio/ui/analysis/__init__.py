"""The Analysis window (issue 10): systems compared in the paper's figures, with intervals.

Entry points: ``AnalysisWindow``, ``open_analysis(paths)``, ``install_actions(main_window)`` (File →
Analysis…), ``write_report(analysis, path)`` for the HTML report.
"""
from __future__ import annotations

__all__ = ["AnalysisWindow", "open_analysis", "install_actions", "write_report"]


def __getattr__(name):  # lazy: importing the package does not build Qt classes
    if name == "install_actions":
        from gindex_studio.ui.analysis.menu import install_actions

        return install_actions
    if name in ("AnalysisWindow", "open_analysis"):
        from gindex_studio.ui.analysis import window

        return getattr(window, name)
    if name == "write_report":
        from gindex_studio.ui.analysis.report import write_report

        return write_report
    raise AttributeError(name)
