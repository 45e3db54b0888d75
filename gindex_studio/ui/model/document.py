"""FlowDocument: one open flow as a QObject with signals and no graphics.

Every edit goes through a method here, and every method emits what changed; undo commands call
only these methods, and the canvas, inspector and problems panel follow the signals.

Node dicts keep their key order: a changed attribute stays where it was, a new one is appended,
and an attribute put back by undo returns to its old index.
"""
from __future__ import annotations

import copy
from typing import Any

from PySide6.QtCore import QObject, Signal

from gindex_studio.core.flows.checks import WORKSPACE_TYPES, flow_problems
from gindex_studio.core.flows.flow import Container, Flow, Node, Problem, normalise_wires

from gindex_studio.ui.library_access import bundled_library, is_config_type


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


#: marks a key that was absent (so undo deletes it rather than writing a value)
MISSING: Any = _Missing()


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None (not a number, NaN, infinite, or an integer beyond a
    double: a 400-digit x ended the load in an OverflowError, the file neither opened nor refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


class FlowDocument(QObject):
    """One flow being edited. ``flow`` is the core Flow; node dicts are edited in place."""

    node_added = Signal(str)
    node_removed = Signal(str)
    node_changed = Signal(str)  # attributes (name included)
    node_moved = Signal(str)
    wires_changed = Signal(str)  # the outgoing wires of this node
    task_changed = Signal()  # the task's title, prompt or domain, or the file's shape
    workspaces_changed = Signal()
    flow_reset = Signal()
    changed = Signal()  # after any edit
    problems_changed = Signal()

    def __init__(self, flow: Flow | None = None, path: str | None = None, library: Any = None, parent=None):
        super().__init__(parent)
        self.library = library if library is not None else bundled_library()
        self.path = path
        self.flow = flow if flow is not None else Flow()
        self._index: dict[str, Node] = {}
        self._auto_pos: dict[str, tuple[float, float]] = {}
        self._problems: list[Problem] = []
        self._runtime_problems: list[Problem] = []  # what the real Node-RED reported (ui.nodered)
        self._problems_stale = True
        self._reindex()
        self._place_unpositioned()

    # ----- reading --------------------------------------------------------------------------
    def node(self, node_id: str) -> Node | None:
        return self._index.get(node_id)

    def node_ids(self) -> list[str]:
        return list(self._index)

    def has(self, node_id: str) -> bool:
        return node_id in self._index

    def is_drawn(self, node_id: str) -> bool:
        """Program nodes are drawn; workspace tabs and config nodes are not."""
        n = self._index.get(node_id)
        if n is None:
            return False
        return n.type not in WORKSPACE_TYPES and not is_config_type(self.library, n.type)

    def drawn_ids(self) -> list[str]:
        return [i for i in self._index if self.is_drawn(i)]

    def config_ids(self) -> list[str]:
        return [i for i, n in self._index.items() if n.type not in WORKSPACE_TYPES and not self.is_drawn(i)]

    def position(self, node_id: str) -> tuple[float, float]:
        """Centre of the node (Node-RED's x, y); nodes without them get an automatic place."""
        d = self._index[node_id].data
        x, y = _number(d.get("x")), _number(d.get("y"))
        if x is not None and y is not None:
            return x, y
        return self._auto_pos.get(node_id, (100.0, 100.0))

    def has_position(self, node_id: str) -> bool:
        d = self._index[node_id].data
        return _number(d.get("x")) is not None and _number(d.get("y")) is not None

    def workspace_of(self, node_id: str) -> str:
        z = self._index[node_id].data.get("z")
        return z if isinstance(z, str) else ""

    def workspaces(self) -> list[tuple[str, str]]:
        """(z id, label) for each workspace: the flow's tabs in order, then other z values used."""
        out: dict[str, str] = {}
        for n in self._index.values():
            if n.type == "tab":
                label = n.data.get("label")
                out[n.id] = label if isinstance(label, str) and label else n.id
        for i in self.drawn_ids():
            z = self.workspace_of(i)
            if z not in out:
                out[z] = z or "Flow"
        if not out:
            out[""] = "Flow"
        return list(out.items())

    @property
    def prompt(self) -> str:
        return self.flow.prompt

    @property
    def has_prompt(self) -> bool:
        """True when the flow is a benchmark task (dataset shape ``{title, text, flow, name}``)."""
        return self.flow.container.kind == "dataset"

    def task_field(self, key: str) -> str:
        """``title``, ``text`` (the prompt) or ``name`` (the domain) of a task; "" otherwise."""
        w = self.flow.container.wrapper
        value = w.get(key) if w is not None else None
        return value if isinstance(value, str) else ""

    def problems(self) -> list[Problem]:
        if self._problems_stale:
            self._problems = flow_problems(self.flow, self.library) + self._runtime_problems
            self._problems_stale = False
        return self._problems

    def set_runtime_problems(self, problems: list[Problem]) -> None:
        """Problems the real Node-RED reported on a deploy; shown with the flow's own until replaced."""
        self._runtime_problems = list(problems)
        self._problems_stale = True
        self.problems_changed.emit()

    def problems_by_node(self) -> dict[str, list[Problem]]:
        out: dict[str, list[Problem]] = {}
        for p in self.problems():
            for i in p.nodes or ((p.node_id,) if p.node_id is not None else ()):
                out.setdefault(i, []).append(p)
        return out

    def connected_wires(self, node_id: str) -> list[tuple[str, int, str]]:
        """Every wire out of or into ``node_id``."""
        out = []
        for n in self._index.values():
            for port, targets in enumerate(n.ports):
                for t in targets:
                    if n.id == node_id or t == node_id:
                        out.append((n.id, port, t))
        return out

    def fresh_id(self) -> str:
        import secrets

        while True:
            i = secrets.token_hex(8)
            if i not in self._index:
                return i

    # ----- editing --------------------------------------------------------------------------
    def add_node(self, data: dict[str, Any], index: int | None = None) -> None:
        node = Node(data)
        if index is None or index > len(self.flow.nodes):
            self.flow.nodes.append(node)
        else:
            self.flow.nodes.insert(index, node)
        first = node.id not in self._index
        self._reindex()
        if first:
            self._emit(self.node_added, node.id)
        if node.type == "tab" or (first and self.workspace_of(node.id) not in dict(self.workspaces())):
            self.workspaces_changed.emit()
        self._touch()

    def remove_node(self, node_id: str) -> tuple[int, dict[str, Any]]:
        """Remove the (first) node with this id; returns its index and dict for undo."""
        node = self._index[node_id]
        index = next(i for i, n in enumerate(self.flow.nodes) if n is node)
        del self.flow.nodes[index]
        self._reindex()
        self.node_removed.emit(node_id)
        if node_id in self._index:  # a duplicate with the same id comes forward
            self.node_added.emit(node_id)
        if node.type == "tab":
            self.workspaces_changed.emit()
        self._touch()
        return index, node.data

    def node_index(self, node_id: str) -> int:
        node = self._index[node_id]
        return next(i for i, n in enumerate(self.flow.nodes) if n is node)

    def set_attribute(self, node_id: str, key: str, value: Any, index: int | None = None) -> None:
        """Set (or with MISSING, delete) an attribute; a new key goes at ``index`` or last."""
        data = self._index[node_id].data
        if value is MISSING:
            data.pop(key, None)
        elif key in data or index is None or index >= len(data):
            data[key] = value
        else:
            items = list(data.items())
            items.insert(index, (key, value))
            data.clear()
            data.update(items)
        if key in ("x", "y"):
            self.node_moved.emit(node_id)
        elif key == "wires":
            self.wires_changed.emit(node_id)
        else:
            self.node_changed.emit(node_id)
            if key == "z" or (key == "label" and self._index[node_id].type == "tab"):
                self.workspaces_changed.emit()
        self._touch()

    def key_index(self, node_id: str, key: str) -> int | None:
        keys = list(self._index[node_id].data)
        return keys.index(key) if key in keys else None

    def get_attribute(self, node_id: str, key: str) -> Any:
        return self._index[node_id].data.get(key, MISSING)

    def set_position(self, node_id: str, pos: tuple[float, float] | None) -> None:
        """Move a node; ``None`` removes x and y (the node had none before)."""
        data = self._index[node_id].data
        if pos is None:
            data.pop("x", None)
            data.pop("y", None)
        else:
            data["x"], data["y"] = _round(pos[0]), _round(pos[1])
        self.node_moved.emit(node_id)
        self._touch()

    def stored_position(self, node_id: str) -> tuple[float, float] | None:
        return self.position(node_id) if self.has_position(node_id) else None

    def set_wires(self, node_id: str, wires: Any) -> None:
        """Replace a node's ``wires`` (MISSING removes the key)."""
        self.set_attribute(node_id, "wires", wires)

    def wires_with(self, src: str, port: int, dst: str) -> list[list[str]]:
        ports = normalise_wires(self._index[src].data.get("wires"))
        while len(ports) <= port:
            ports.append([])
        if dst not in ports[port]:
            ports[port].append(dst)
        return ports

    def wires_without(self, src: str, port: int | None, dst: str) -> list[list[str]]:
        ports = normalise_wires(self._index[src].data.get("wires"))
        return [[t for t in p if not (t == dst and (port is None or port == i))] for i, p in enumerate(ports)]

    def wires_value(self, node_id: str) -> Any:
        return copy.deepcopy(self._index[node_id].data.get("wires", MISSING))

    def set_task_field(self, key: str, text: str) -> None:
        """Set a task's ``title``, ``text`` or ``name`` (nothing happens for a bare array)."""
        w = self.flow.container.wrapper
        if w is None or self.flow.container.kind != "dataset":
            return
        w[key] = text
        self.task_changed.emit()
        self._touch()

    def set_prompt(self, text: str) -> None:
        self.set_task_field("text", text)

    def set_container(self, container: Container) -> None:
        """Change the file's shape (bare array ↔ task); the nodes stay as they are."""
        self.flow.container = container
        self.task_changed.emit()
        self._touch()

    def replace_flow(self, flow: Flow) -> None:
        self.flow = flow
        self._reindex()
        self._place_unpositioned()
        self._problems_stale = True
        self.flow_reset.emit()
        self.workspaces_changed.emit()
        self._touch()

    # ----- internals ------------------------------------------------------------------------
    def _emit(self, signal, node_id: str) -> None:
        signal.emit(node_id)

    def _touch(self) -> None:
        self._problems_stale = True
        self.changed.emit()
        self.problems_changed.emit()

    def _reindex(self) -> None:
        index: dict[str, Node] = {}
        for n in self.flow.nodes:
            index.setdefault(n.id, n)
        self._index = index

    def _place_unpositioned(self) -> None:
        """Nodes without x/y get places from the layered layout (the file is not changed)."""
        missing = [i for i in self.drawn_ids() if not self.has_position(i)]
        if not missing:
            return
        from gindex_studio.core.editing.layout import estimate_size, layered_layout

        for z, _label in self.workspaces():
            ids = [i for i in self.drawn_ids() if self.workspace_of(i) == z]
            idset = set(ids)
            edges = [(s, d) for s, _p, d in self.flow.iter_wires() if s in idset and d in idset]
            sizes = {i: estimate_size(self.label(i), len(self._index[i].ports)) for i in ids}
            pos = layered_layout(ids, edges, sizes)
            self._auto_pos.update({i: pos[i] for i in missing if i in pos})

    def label(self, node_id: str) -> str:
        """What the node shows: its name, else its type's label, else its type."""
        n = self._index[node_id]
        if n.name:
            return n.name
        nt = self.library.get(n.type)
        label = getattr(nt, "label", "") if nt is not None else ""
        return label or n.type


def _round(v: float) -> float | int:
    r = round(v)
    return int(r) if abs(v - r) < 1e-6 else round(v, 2)
