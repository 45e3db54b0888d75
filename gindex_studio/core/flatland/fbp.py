"""The ``.fbp`` reader: one edge per line, named sub-flows, ``#include``, ``@param``, a run line.

Line forms (columns are kept for errors)::

    #include "circle.fbp"
    @param {r} (int (4 30))
    circle(start r) -> arc(loop k 0 36)        # opens the flow ``circle``; arc is its entry
    arc body -> chord(move (* 2 r) 0)          # defines chord, links arc's body port to it
    chord -> arc                               # a link between defined nodes
    arc -> circle(end)                         # arc's out port leaves the flow; closes it
    {"position":[64,40], "theta":0} -> circle(24)

Blank lines and lines starting with ``;`` or ``//`` are skipped.
"""
from __future__ import annotations

import json
import re

from gindex_studio.core.flows.nesting import NestingError, loads
from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.sexpr import Atom, SList, read
from gindex_studio.core.flatland.syntax import FlowDef, LinkDef, Module, NodeDef, Pos, Randomiser, RunDef

_NAME = re.compile(r"[^\s(){}:\"]+")


def parse_fbp(text: str, path: str | None = None) -> Module:
    """Parse ``.fbp`` text. Raises FlatlandError naming the file, line and column."""
    try:
        return _Parser(path).parse(text)
    except FlatlandError as e:
        raise e.in_file(path) if path else e


class _Parser:
    def __init__(self, path):
        self.module = Module(path)
        self.flow: FlowDef | None = None
        self.pending: dict = {}
        self.path = path

    def pos(self, line, col) -> Pos:
        return Pos(line, col, self.path)

    def parse(self, text: str) -> Module:
        for i, raw in enumerate(text.splitlines(), 1):
            stripped = raw.strip()
            if not stripped or stripped.startswith((";", "//")):
                continue
            col = raw.index(stripped[0]) + 1
            if stripped.startswith("@param"):
                self.param(stripped, i, col)
            elif stripped.startswith("#include"):
                self.include(stripped, i, col)
            else:
                self.edge(raw, i)
        if self.flow is not None:
            p = self.flow.pos
            raise FlatlandError(f"flow {self.flow.name!r} is never closed (a line 'x -> {self.flow.name}(end)')",
                                p.line, p.column)
        return self.module

    def include(self, text, line, col):
        m = re.fullmatch(r'#include\s+"([^"]+)"\s*', text)
        if not m:
            raise FlatlandError('#include needs a double-quoted file name: #include "circle.fbp"', line, col)
        self.module.includes.append((m.group(1), self.pos(line, col)))

    def param(self, text, line, col):
        m = re.fullmatch(r"@param\s*\{\s*([^\s{}]+)\s*\}\s*(.*)", text)
        if not m or not m.group(2):
            raise FlatlandError("@param needs a name and a randomiser: @param {p} (int (1 10))", line, col)
        body = read(m.group(2), line, col + m.start(2))
        self.pending[m.group(1)] = randomiser_of(body)

    def edge(self, raw, line):
        if "->" not in raw:
            col = len(raw) - len(raw.lstrip()) + 1
            raise FlatlandError("expected 'source -> target'", line, col)
        k = raw.index("->")
        lhs, rhs = raw[:k], raw[k + 2:]
        lcol = len(lhs) - len(lhs.lstrip()) + 1
        rcol = k + 3 + len(rhs) - len(rhs.lstrip())
        lhs, rhs = lhs.strip(), rhs.strip()
        if not lhs:
            raise FlatlandError("missing the source before '->'", line, k + 1)
        if not rhs:
            raise FlatlandError("missing the target after '->'", line, k + 3)
        if lhs.startswith("{"):
            return self.run_line(lhs, rhs, line, lcol, rcol)
        if re.fullmatch(r"[^\s(]+\(\s*start\b.*\)", lhs):
            return self.open_flow(lhs, rhs, line, lcol, rcol)
        if re.fullmatch(r"[^\s(]+\(\s*end\s*\)", rhs):
            return self.close_flow(lhs, line, lcol)
        src, port = self.endpoint(lhs, line, lcol)
        flow = self.need_flow(line, lcol)
        target = self.node_ref(rhs, line, rcol)
        flow.links.append(LinkDef(src, port, target, self.pos(line, lcol)))

    def need_flow(self, line, col) -> FlowDef:
        if self.flow is None:
            raise FlatlandError("this line is outside a flow definition (open one with 'name(start …) -> node(…)')",
                                line, col)
        return self.flow

    def endpoint(self, text, line, col):
        parts = text.split()
        if len(parts) > 2 or not _NAME.fullmatch(parts[0]):
            raise FlatlandError(f"expected a node name, optionally with a port ('loop1 body'), got {text!r}", line, col)
        port = parts[1] if len(parts) == 2 else "out"
        if port not in ("out", "body"):
            raise FlatlandError(f"unknown port {port!r} (ports are out and body)", line, col + text.index(port))
        return parts[0], port

    def node_ref(self, text, line, col) -> str:
        """A target: a defined name, or a new node ``name(type args…)`` (added to the flow)."""
        if "(" not in text:
            if not _NAME.fullmatch(text):
                raise FlatlandError(f"expected a node name, got {text!r}", line, col)
            return text
        node = self.node_def(text, line, col)
        self.need_flow(line, col).nodes.append(node)
        return node.name

    def node_def(self, text, line, col) -> NodeDef:
        if "(" not in text:
            raise FlatlandError(f"expected a new node name(type arguments…), got {text!r}", line, col)
        k = text.index("(")
        name = text[:k].strip()
        if not _NAME.fullmatch(name or "("):
            raise FlatlandError(f"expected a node name before '(', got {name!r}", line, col)
        body = read(text[k:], line, col + k)
        if not isinstance(body, SList) or not body or not isinstance(body[0], Atom) or not body[0].is_symbol:
            raise FlatlandError("a node is written name(type arguments…)", line, col + k)
        flow = self.need_flow(line, col)
        if flow.node(name) is not None:
            raise FlatlandError(f"node {name!r} is already defined in flow {flow.name!r}", line, col)
        return NodeDef(name, body[0].value, list(body[1:]), self.pos(line, col))

    def open_flow(self, lhs, rhs, line, lcol, rcol):
        if self.flow is not None:
            raise FlatlandError(f"flow {self.flow.name!r} is still open (close it with "
                                f"'last -> {self.flow.name}(end)' first)", line, lcol)
        k = lhs.index("(")
        name = lhs[:k]
        head = read(lhs[k:], line, lcol + k)
        params = []
        for p in head[1:]:
            if not isinstance(p, Atom) or not p.is_symbol:
                raise FlatlandError(f"a flow parameter must be a name, got {p}", line, getattr(p, "column", lcol))
            params.append(p.value)
        self.flow = FlowDef(name, params, dict(self.pending), self.pos(line, lcol))
        self.pending = {}
        node = self.node_def(rhs, line, rcol)
        self.flow.nodes.append(node)
        self.flow.entries.append((node.name, node.pos))

    def close_flow(self, lhs, line, lcol):
        flow = self.need_flow(line, lcol)
        src, port = self.endpoint(lhs, line, lcol)
        flow.exits.append((src, port, self.pos(line, lcol)))
        self.module.flows.append(flow)
        self.flow = None

    def run_line(self, lhs, rhs, line, lcol, rcol):
        if self.flow is not None:
            raise FlatlandError(f"flow {self.flow.name!r} is still open at the run line", line, lcol)
        if self.module.run is not None:
            raise FlatlandError("a second run line (a program runs one flow)", line, lcol)
        try:
            state = loads(lhs, 4)
        except json.JSONDecodeError as e:
            raise FlatlandError(f"the start state is not valid JSON: {e.msg}", line, lcol + e.colno - 1) from None
        except NestingError as e:
            raise FlatlandError(f"the start state is {e}", line, lcol) from None
        position, theta = start_state(state, line, lcol)
        if "(" in rhs:
            k = rhs.index("(")
            name = rhs[:k].strip()
            args = list(read(rhs[k:], line, rcol + k))
        else:
            name, args = rhs, []
        self.module.run = RunDef(name, args, position, theta, self.pos(line, rcol))


def start_state(state, line=None, col=None) -> tuple[tuple[float, float], float]:
    """(position, theta) of a start state object; defaults (64, 64) and 0 as the reference."""
    if not isinstance(state, dict):
        raise FlatlandError("the start state must be an object like {\"position\": [64, 64], \"theta\": 0}", line, col)
    pos = state.get("position", [64, 64])
    theta = state.get("theta", 0)
    ok = (isinstance(pos, list) and len(pos) == 2 and all(_is_number(v) for v in pos) and _is_number(theta))
    if not ok:
        raise FlatlandError("start position must be [x, y] and theta a number", line, col)
    from gindex_studio.core.flatland.program import param_problem

    for name, v in (("position x", pos[0]), ("position y", pos[1]), ("theta", theta)):
        problem = param_problem(v)
        if problem:
            raise FlatlandError(f"the start state's {name} {v:.6g} {problem}", line, col)
    return (pos[0], pos[1]), theta


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def randomiser_of(body) -> Randomiser:
    """``(int (a b))``, ``(float (a b))``, ``(bool (p))`` or ``(choice (v …))`` as a Randomiser."""
    line, col = getattr(body, "line", None), getattr(body, "column", None)
    usage = "a randomiser is (int (a b)), (float (a b)), (bool (p)) or (choice (v1 v2 …))"
    if not isinstance(body, SList) or len(body) != 2 or not isinstance(body[0], Atom):
        raise FlatlandError(usage, line, col)
    kind = body[0].value
    vals = body[1] if isinstance(body[1], SList) else [body[1]]
    if kind not in ("int", "float", "bool", "choice") or not all(isinstance(v, Atom) and not v.is_symbol for v in vals):
        raise FlatlandError(usage, line, col)
    values = [v.value for v in vals]
    if kind in ("int", "float") and (len(values) != 2 or values[0] >= values[1]):
        raise FlatlandError(f"({kind} (a b)) needs two numbers with a < b", line, col)
    if kind == "bool" and len(values) != 1:
        raise FlatlandError("(bool (p)) needs one probability", line, col)
    if kind == "choice" and not values:
        raise FlatlandError("(choice (…)) needs at least one value", line, col)
    return Randomiser(kind, values)
