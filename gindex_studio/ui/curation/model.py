"""The Qt-side curation document: the workspace, thresholds, selection, the latest report, undo,
and the Δ matrix (``matrix``, a ``MatrixModel``).

Views follow its signals; undo commands call only ``apply_role`` / ``apply_domain``.
"""
from __future__ import annotations

from fractions import Fraction

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from gindex_studio.core.curation import analysis as an
from gindex_studio.core.curation.report import (
    DEFAULT_DUPLICATES, DEFAULT_LEAKS, DEFAULT_OUTLIERS, CurationReport,
)
from gindex_studio.core.curation.workspace import Workspace

from gindex_studio.ui.curation.matrix import MatrixModel


class CurationModel(QObject):
    splitChanged = Signal()  # a role or a domain changed
    reportChanged = Signal()  # a new report arrived (duplicates, Ω, neighbours, coverage)
    thresholdsChanged = Signal()  # a slider moved (leaks and outliers are filtered at once)
    selectionChanged = Signal()

    def __init__(self, ws: Workspace, parent=None):
        super().__init__(parent)
        self.ws = ws
        self.undo = QUndoStack(self)
        self.duplicate_threshold: Fraction = DEFAULT_DUPLICATES
        self.leak_threshold: Fraction = DEFAULT_LEAKS
        self.outlier_threshold: Fraction = DEFAULT_OUTLIERS
        self.report: CurationReport | None = None
        self.selection: list[int] = []
        self.matrix = MatrixModel(self)  # the Δ matrix as its rows arrive (the heatmap draws it)

    # ----- split -------------------------------------------------------------------------------

    def set_roles(self, indices: list[int], role: str) -> None:
        """Give the programs a role, as one undoable step."""
        changes = [(i, self.ws.items[i].role) for i in indices if self.ws.items[i].role != role]
        if changes:
            self.undo.push(_SetField(self, "role", changes, role))

    def set_domain(self, indices: list[int], domain: str) -> None:
        changes = [(i, self.ws.items[i].domain) for i in indices if self.ws.items[i].domain != domain]
        if changes:
            self.undo.push(_SetField(self, "domain", changes, domain.strip()))

    def apply(self, kind: str, values: list[tuple[int, str]]) -> None:
        for i, v in values:
            (self.ws.set_role if kind == "role" else self.ws.set_domain)(i, v)
        self.splitChanged.emit()

    # ----- report and thresholds ---------------------------------------------------------------

    def set_report(self, report: CurationReport) -> None:
        self.report = report
        self.reportChanged.emit()

    def set_thresholds(self, duplicates: Fraction | None = None, leaks: Fraction | None = None,
                       outliers: Fraction | None = None) -> None:
        if duplicates is not None:
            self.duplicate_threshold = duplicates
        if leaks is not None:
            self.leak_threshold = leaks
        if outliers is not None:
            self.outlier_threshold = outliers
        self.thresholdsChanged.emit()

    def leaks(self) -> list[an.Leak]:
        """Leaks at the current threshold, from the report's Ω (no search)."""
        if self.report is None:
            return []
        tests = set(self.ws.indices("test"))
        return an.leaks(None, sorted(tests), [], self.leak_threshold,
                        {t: n for t, n in self.report.omegas.items() if t in tests})

    def outliers(self) -> list[an.Neighbours]:
        return an.outliers(self.report.neighbours, self.outlier_threshold) if self.report else []

    def select(self, indices: list[int]) -> None:
        indices = sorted(set(int(i) for i in indices))
        if indices != self.selection:
            self.selection = indices
            self.selectionChanged.emit()


class _SetField(QUndoCommand):
    """Set the role (or domain) of some programs; undo restores each one's previous value."""

    def __init__(self, model: CurationModel, kind: str, old: list[tuple[int, str]], new: str):
        names = ", ".join(model.ws.items[i].label.rsplit("/", 1)[-1] for i, _ in old[:2])
        more = f" and {len(old) - 2} more" if len(old) > 2 else ""
        super().__init__(f"{kind} of {names}{more} → {new}")
        self.model, self.kind, self.old, self.new = model, kind, old, new

    def redo(self) -> None:
        self.model.apply(self.kind, [(i, self.new) for i, _ in self.old])

    def undo(self) -> None:
        self.model.apply(self.kind, self.old)
