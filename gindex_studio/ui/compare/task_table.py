"""The experiment's task table: ``TaskTableModel`` (one row per task: a ``TaskResult``, pending
while its Ω is computed), ``TaskFilter`` (failures only, a domain, free text) and the cells' texts."""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QFont

from gindex_studio.core.benchmark.curriculum import LEAK_THRESHOLD
from gindex_studio.core.benchmark.gindex import GIndexResult, pending_task_result

from gindex_studio.ui.compare.panel import fmt
from gindex_studio.ui.theme import error_color, role_colors

COLUMNS = ["Task", "Domain", "Prompt", "Δ", "θ", "Behaves", "Ω", "TC", "Exact"]
SORT_ROLE = Qt.UserRole + 1


class TaskTableModel(QAbstractTableModel):
    """One row per task: a ``TaskResult``, pending (``pending_task_result``: Ω None) while its Ω is computed. Rows
    arrive one by one during a computation (``begin``, ``add_delta``, ``complete``) and are
    replaced by the final result's (``set_result``)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result: GIndexResult | None = None
        self.rows: list = []
        self.edited: set[int] = set()
        self.unsaved: set[int] = set()
        #: task index -> (cell text, sort key, tooltip) of its probes (Run → Run Probes); beside θ, never in it
        self.behaviour: dict[int, tuple[str, float, str]] = {}
        self.failed_bg = QColor(role_colors("failed")[1])

    def begin(self) -> None:
        """A computation from scratch starts: no row yet."""
        self.beginResetModel()
        self.result, self.rows = None, []
        self.behaviour = {}
        self.endResetModel()

    def add_delta(self, index: int, task, reports) -> None:
        """Task ``index``'s Δ is known: its row appears (or is replaced)."""
        row = pending_task_result(index, task, reports)
        if index < len(self.rows):
            self.rows[index] = row
            self.dataChanged.emit(self.index(index, 0), self.index(index, len(COLUMNS) - 1))
            return
        while len(self.rows) < index:  # never happens in order, but a row is a task's own
            self.rows.append(None)
        self.beginInsertRows(QModelIndex(), len(self.rows), index)
        self.rows.append(row)
        self.endInsertRows()

    def put(self, task) -> None:
        """Task ``task.index`` (a complete ``TaskResult``) arrives in any order (a system run's
        answers): its row is replaced, or added with empty rows (hidden) for the tasks before it."""
        k = task.index
        if k < len(self.rows):
            self.rows[k] = task
            self.dataChanged.emit(self.index(k, 0), self.index(k, len(COLUMNS) - 1))
            return
        self.beginInsertRows(QModelIndex(), len(self.rows), k)
        self.rows.extend([None] * (k - len(self.rows)) + [task])
        self.endInsertRows()

    def complete(self, task) -> None:
        """Task ``task.index`` (a ``TaskResult``) is complete."""
        k = task.index
        if k < len(self.rows):
            self.rows[k] = task
            self.dataChanged.emit(self.index(k, 0), self.index(k, len(COLUMNS) - 1))

    def set_behaviour(self, index: int, text: str, key: float, tip: str = "") -> None:
        """Task ``index``'s behaviour cell (``key`` sorts it: the share of probes agreeing)."""
        self.behaviour[index] = (text, key, tip)
        if index < len(self.rows):
            col = COLUMNS.index("Behaves")
            self.dataChanged.emit(self.index(index, col), self.index(index, col))

    @property
    def leaks_apply(self) -> bool:
        """Tasks with programs (not the companion's aggregate mode, where a task is a domain)."""
        return self.result is None or self.result.mode == "tasks"

    @property
    def completed(self) -> int:
        return sum(1 for t in self.rows if t is not None and t.omega is not None)

    def set_result(self, result: GIndexResult | None, edited: set[int], unsaved: set[int] = frozenset()) -> None:
        """The final rows; ``edited``: tasks scored on a what-if edit (marked ✎ and in italics),
        ``unsaved``: tasks whose edits are not saved yet."""
        self.unsaved = set(unsaved)
        if result is not None and len(result.tasks) == len(self.rows) and self.rows:
            self.result, self.rows, self.edited = result, list(result.tasks), set(edited)
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(COLUMNS) - 1))
            return
        self.beginResetModel()
        self.result, self.edited = result, set(edited)
        self.rows = list(result.tasks) if result is not None else []
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Horizontal and role == Qt.ToolTipRole:
            return {
                "Δ": "divergence of the generated program from the reference (0 = perfect)",
                "θ": "1 − Δ",
                "Behaves": "on how many probes the generated program behaves like the reference in Node-RED "
                           "(Run → Run Probes; reported beside θ, never part of the g-index)",
                "Ω": "distance of the task from the curriculum (nearest curriculum program)",
                "TC": "the task's contribution to the g-index",
                "Exact": "every search finished (no deadline cut it)",
            }.get(COLUMNS[section])
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or self.rows[index.row()] is None:
            return None
        t = self.rows[index.row()]
        col = COLUMNS[index.column()]
        if t.omega is None and col in ("Ω", "TC", "Exact"):
            return self._pending(role, col)
        if role == Qt.DisplayRole:
            return _SHOW[col](self, t)
        if role == SORT_ROLE:
            if col == "Behaves":
                return self.behaviour.get(t.index, ("", -1.0))[1]
            return _SORT[col](t)
        if role == Qt.ToolTipRole:
            if col == "Prompt":
                return t.prompt
            if col == "Task":
                tip = t.id
                if t.index in self.edited:
                    tip += ("\n✎ scored on a what-if edit, not the model's output (Revert to Model Output undoes it)"
                            + (" — not saved yet" if t.index in self.unsaved else ""))
                elif t.index in self.unsaved:
                    tip += "\nback to the model's output — not saved yet"
                if t.syntax:
                    tip += f"\nsyntax error: {t.syntax.get('message')}"
                return tip
            if col == "Behaves" and t.index in self.behaviour:
                return self.behaviour[t.index][2]
            if col == "Ω" and t.nearest and self.leaks_apply:
                return leak_tip(t, self.result.leak_threshold if self.result is not None else LEAK_THRESHOLD)
        if role == Qt.TextAlignmentRole and col in ("Δ", "θ", "Ω", "TC"):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ForegroundRole and col == "Ω" and t.leak is not False and self.leaks_apply:
            return QColor(error_color())  # reads on the theme's rows
        if role == Qt.FontRole and t.index in self.edited:
            f = QFont()
            f.setItalic(True)
            return f
        return None

    def _pending(self, role, col):
        if role == Qt.DisplayRole:
            return "…"
        if role == SORT_ROLE:
            return float("inf") if col != "Exact" else -1
        if role == Qt.ToolTipRole:
            return "Ω is being computed"
        if role == Qt.TextAlignmentRole and col != "Exact":
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None


def leak_tip(t, threshold) -> str:
    """The Ω cell's tooltip: the nearest curriculum program and the core's leak flag."""
    near = f"nearest curriculum program: {t.nearest} (Ω = {fmt(t.omega)})"
    if t.leak:
        same = "identical (up to ids and ignored keys)" if t.omega == 0 else "near-identical"
        return f"{near}\nthe reference is {same} to it (Ω ≤ {float(threshold):g}): the task leaks from training"
    if t.leak is None:
        return f"{near}\na deadline cut the Ω search: whether Ω ≤ {float(threshold):g} (a leak) is not decided"
    return near


_SHOW = {  # column -> text of a row (only the cell asked for is computed: a pending row has no Ω)
    "Task": lambda m, t: ("✎ " if t.index in m.edited else "") + t.id + (" •" if t.index in m.unsaved else ""),
    "Domain": lambda m, t: t.domain,
    "Prompt": lambda m, t: " ".join(t.prompt.split())[:160],
    "Δ": lambda m, t: fmt(t.delta),
    "θ": lambda m, t: fmt(t.theta),
    "Behaves": lambda m, t: m.behaviour.get(t.index, ("",))[0],
    "Ω": lambda m, t: fmt(t.omega) + ({True: " leak", None: " leak?"}.get(t.leak, "") if m.leaks_apply else ""),
    "TC": lambda m, t: f"{t.tc:,.1f}",
    "Exact": lambda m, t: "yes" if t.exact and t.omega_exact else "bound",
}
_SORT = {
    "Task": lambda t: t.id, "Domain": lambda t: t.domain, "Prompt": lambda t: t.prompt, "Δ": lambda t: t.delta,
    "θ": lambda t: t.theta, "Ω": lambda t: t.omega, "TC": lambda t: t.tc,
    "Exact": lambda t: int(t.exact and t.omega_exact),
}


class TaskFilter(QSortFilterProxyModel):
    """Failures only (Δ > 0), one domain, and free text over id, domain and prompt."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.failures_only = False
        self.domain = ""
        self.text = ""
        self.setSortRole(SORT_ROLE)

    def set_filter(self, failures_only: bool | None = None, domain: str | None = None, text: str | None = None):
        begin = getattr(self, "beginFilterChange", None)  # Qt ≥ 6.9; invalidateFilter before
        if begin is not None:
            begin()
        if failures_only is not None:
            self.failures_only = failures_only
        if domain is not None:
            self.domain = domain
        if text is not None:
            self.text = text.casefold().strip()
        if begin is not None:
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateFilter()

    def filterAcceptsRow(self, row, parent):
        t = self.sourceModel().rows[row]
        if t is None:
            return False
        if self.failures_only and t.delta <= 0 and not t.syntax:
            return False
        if self.domain and t.domain != self.domain:
            return False
        if self.text and self.text not in f"{t.id} {t.domain} {t.prompt}".casefold():
            return False
        return True
