"""Flat Flatland programs: start / move / turn / loop nodes with typed ``out`` / ``body`` edges.

A ``FlatProgram`` is what is run, drawn and scored. Its JSON form is the reference's flat JSON
(spec §2): ``{id: {"id", "type", "targets": {"out": […], "body": […]}, "params": {…}}}`` with the
start node ``"__START__"`` of type ``info``. ``to_flow`` gives the project's ``Flow`` (ports
[out, body]; parameters as attributes) for the ``flatland`` Δ profile.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from gindex_studio.core.flows.flow import Flow, flow_from_nodes
from gindex_studio.core.flatland.errors import FlatlandError

START_ID = "__START__"
MAX_PARAM = 1e9  # |a number parameter| (dist, theta, loop bounds, position): the world is 128 units wide
TYPES = ("info", "move", "turn", "loop")
PARAM_KEYS = {"info": ("position", "theta"), "move": ("dist", "penup"), "turn": ("theta",),
              "loop": ("varname", "start", "end")}


@dataclass
class FlatNode:
    """One node: ``id``, ``type`` (info / move / turn / loop), ``params`` and ``targets`` per port."""

    id: str
    type: str
    params: dict
    targets: dict = field(default_factory=dict)

    def ports(self) -> tuple[str, ...]:
        return ("out", "body") if self.type == "loop" else ("out",)

    def arg_values(self) -> list:
        """The creation arguments in ``.lisp`` order (penup as 1 / 0)."""
        p = self.params
        if self.type == "move":
            return [p["dist"], 1 if p["penup"] else 0]
        if self.type == "turn":
            return [p["theta"]]
        if self.type == "loop":
            return [p["varname"], p["start"], p["end"]]
        return []

    def to_json(self) -> dict:
        targets = {port: list(self.targets.get(port, [])) for port in self.ports()}
        return {"id": self.id, "type": self.type, "targets": targets, "params": dict(self.params)}


@dataclass
class FlatProgram:
    """Nodes by id in order (the start node first). ``origin``: (source line, column, file) of each
    node when the program came from text, for error messages and step-through highlighting."""

    nodes: dict[str, FlatNode]
    start_id: str = START_ID
    origin: dict = field(default_factory=dict)

    @property
    def start(self) -> FlatNode:
        return self.nodes[self.start_id]

    def edges(self) -> list[tuple[str, str, str]]:
        """(source, port, target) for every edge, duplicates kept, in node order."""
        return [(n.id, port, t) for n in self.nodes.values() for port in n.ports() for t in n.targets.get(port, [])]

    def counts(self) -> tuple[int, int]:
        """(nodes, edges) as the reference counts them (duplicate edges counted)."""
        return len(self.nodes), len(self.edges())

    def to_json(self) -> dict:
        return {nid: n.to_json() for nid, n in self.nodes.items()}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2) + "\n"

    def to_flow(self, layout: bool = False) -> Flow:
        """The program as a Flow: one node dict per node, ``wires`` = [out targets, body targets],
        parameters as attributes (``position`` as a list). ``layout``: also give each node canvas
        coordinates ``x``, ``y`` (columns by distance from the start, never scored)."""
        places = self.layout() if layout else {}
        datas = []
        for n in self.nodes.values():
            wires = [list(n.targets.get("out", []))]
            if n.type == "loop":
                wires.append(list(n.targets.get("body", [])))
            d = {"id": n.id, "type": n.type, "wires": wires}
            d.update({k: (list(v) if isinstance(v, tuple) else v) for k, v in n.params.items()})
            if n.id in places:
                d["x"], d["y"] = places[n.id]
            datas.append(d)
        return flow_from_nodes(datas)

    def layout(self, dx: float = 170, dy: float = 70) -> dict[str, tuple[float, float]]:
        """Canvas positions: column = breadth-first distance from the start, one row per node of
        a column (unreachable nodes in a last column)."""
        depth = {self.start_id: 0}
        order = [self.start_id]
        for nid in order:
            for port in self.nodes[nid].ports():
                for t in self.nodes[nid].targets.get(port, []):
                    if t not in depth:
                        depth[t] = depth[nid] + 1
                        order.append(t)
        last = max(depth.values(), default=0) + 1
        rows: dict[int, int] = {}
        out = {}
        for nid in self.nodes:
            col = depth.get(nid, last)
            row = rows.get(col, 0)
            rows[col] = row + 1
            out[nid] = (100 + col * dx, 80 + row * dy)
        return out


def program_from_flow(flow: Flow) -> FlatProgram:
    """A Flow of start / move / turn / loop nodes (as ``to_flow`` makes, or as edited on the
    canvas) as a FlatProgram: wires[0] are out targets, a loop's wires[1] its body. Raises
    FlatlandError naming the node at fault (another type, a bad parameter, no single start)."""
    items = []
    for n in flow.vertex_nodes():
        ports = n.ports
        targets = {"out": list(ports[0]) if ports else []}
        if n.type == "loop":
            targets["body"] = list(ports[1]) if len(ports) > 1 else []
        params = {k: n.data[k] for k in PARAM_KEYS.get(n.type, ()) if k in n.data}
        items.append({"id": n.id, "type": n.type, "targets": targets, "params": params})
    return program_from_json(items)


def _brief(v) -> str:
    """A value for a message: a number or short string as it is, else its kind (a container may
    be nested too deeply to print)."""
    if isinstance(v, (int, float, bool)) or v is None or (isinstance(v, str) and len(v) <= 40):
        return repr(v)
    return f"a {type(v).__name__}"


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def param_problem(v) -> str | None:
    """Why ``v`` cannot be a number parameter of a node (None if it can): not finite, or beyond
    ±MAX_PARAM (a program is model output; a run or a drawing must stay in range)."""
    if isinstance(v, float) and v != v:
        return "is not a number (nan)"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "is not finite"
    if abs(v) > MAX_PARAM:
        return f"is out of range (at most {MAX_PARAM:.0e} in size)"
    return None


def _check_params(nid: str, typ: str, params: dict) -> dict:
    out = {}
    for key in PARAM_KEYS[typ]:
        if key not in params:
            raise FlatlandError(f"node {nid!r} ({typ}) has no parameter {key!r}")
        v = params[key]
        if key == "position":
            ok = isinstance(v, (list, tuple)) and len(v) == 2 and all(_number(x) for x in v)
            v = [v[0], v[1]] if ok else v
        elif key == "penup":
            ok = isinstance(v, bool) or v in (0, 1)
            v = bool(v)
        elif key == "varname":
            ok = isinstance(v, str)
        else:
            ok = _number(v)
        if not ok:
            raise FlatlandError(f"node {nid!r} ({typ}): parameter {key!r} has a bad value {_brief(v)}")
        for x in (v if key == "position" else [v] if _number(v) else []):
            problem = param_problem(x)
            if problem:
                raise FlatlandError(f"node {nid!r} ({typ}): parameter {key!r} {x:.6g} {problem}")
        out[key] = v
    return out


def program_from_json(value) -> FlatProgram:
    """A FlatProgram from the flat JSON (a dict of nodes by id, or a list of node objects).
    Raises FlatlandError naming the node at fault."""
    from gindex_studio.core.flows.nesting import depth_problem

    problem = depth_problem(value)
    if problem:
        raise FlatlandError(f"flat JSON {problem}")
    if isinstance(value, list):
        items = value
    elif isinstance(value, dict):
        items = list(value.values())
    else:
        raise FlatlandError("flat JSON must be an object of nodes by id (or a list of nodes)")
    nodes: dict[str, FlatNode] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise FlatlandError(f"a node must be an object with a string id, got {_brief(item)}")
        nid, typ = item["id"], item.get("type")
        if typ not in TYPES:
            raise FlatlandError(f"node {nid!r} has type {typ!r}; a flat program has only {', '.join(TYPES)}")
        if nid in nodes:
            raise FlatlandError(f"node id {nid!r} appears twice")
        params = item.get("params", {})
        if not isinstance(params, dict):
            raise FlatlandError(f"node {nid!r}: params must be an object")
        targets = item.get("targets", {}) or {}
        if not isinstance(targets, dict):
            raise FlatlandError(f"node {nid!r}: targets must be an object of port -> ids")
        node = FlatNode(nid, typ, _check_params(nid, typ, params), {})
        for port, ids in targets.items():
            if port not in node.ports():
                if ids:
                    raise FlatlandError(f"node {nid!r} ({typ}) has no port {port!r}")
                continue
            if not isinstance(ids, list) or not all(isinstance(t, str) for t in ids):
                raise FlatlandError(f"node {nid!r}: targets[{port!r}] must be a list of ids")
            node.targets[port] = list(ids)
        nodes[nid] = node
    starts = [n.id for n in nodes.values() if n.type == "info"]
    if len(starts) != 1:
        raise FlatlandError(f"a flat program needs exactly one start node of type info, found {len(starts)}")
    for n in nodes.values():
        for port, ids in n.targets.items():
            for t in ids:
                if t not in nodes:
                    raise FlatlandError(f"node {n.id!r} links to {t!r}, which is not in the program")
                if t == starts[0]:
                    raise FlatlandError(f"node {n.id!r} links into the start node")
    start = starts[0]
    ordered = {start: nodes[start], **{k: v for k, v in nodes.items() if k != start}}
    program = FlatProgram(ordered, start)
    check_termination(program)
    return program


def check_termination(program: FlatProgram) -> None:
    """Raise FlatlandError when a cycle is not bounded by a loop: every cycle must pass through a
    loop's ``body`` edge (the loop's counter ends it); a cycle of out edges runs forever."""
    graph = {nid: [t for t in n.targets.get("out", [])] for nid, n in program.nodes.items()}
    state: dict[str, int] = {}
    for root in graph:
        if root in state:
            continue
        stack = [(root, iter(graph[root]))]
        state[root] = 1
        path = [root]
        while stack:
            nid, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[nid] = 2
                stack.pop()
                path.pop()
                continue
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                where = program.origin.get(nid, (None, None, None))
                raise FlatlandError("a loop without a way out: the cycle " + " -> ".join(cycle)
                                    + " passes through no loop body, so it never ends", *where)
            if nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(graph[nxt])))
