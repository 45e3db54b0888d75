"""Resolve a parsed module (and its ``#include`` files) into one ``FlatProgram``.

Sub-flows are inlined as the reference does: a sub-flow node's incoming edges go to the sub-flow's
entry nodes, and its outgoing edges (per port) leave from its exit nodes. Arguments are evaluated
per instance in a scope chain (the sub-flow's parameters, then the scope it was created in, as
the reference's dynamic scoping). Node ids are paths of names: ``arms/limb1``.

An optional ``Augment`` (see ``augment.py``) redraws values while resolving; without it the program
is resolved exactly as written.
"""
from __future__ import annotations

import os
from pathlib import Path

from gindex_studio.core.flows.files import UserFileError, path_problem, read_user_text
from gindex_studio.paths import RESOURCES
from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.expr import Scope, evaluate, is_literal
from gindex_studio.core.flatland.fbp import parse_fbp
from gindex_studio.core.flatland.lisp import parse_lisp
from gindex_studio.core.flatland.program import START_ID, FlatNode, FlatProgram, check_termination
from gindex_studio.core.flatland.syntax import PRIMITIVES, FlowDef, Module, Pos

LIBRARY_DIR = RESOURCES / "flatland"
MAX_DEPTH = 64


def parse_text(text: str, path: str | None = None, kind: str | None = None) -> Module:
    """Parse program text as ``.fbp`` or ``.lisp`` (``kind``; else by the path's suffix, else a text
    starting with ``(`` is LISP)."""
    if kind is None:
        suffix = Path(path).suffix.lower() if path else ""
        kind = "lisp" if suffix == ".lisp" or (suffix != ".fbp" and text.lstrip().startswith("(")) else "fbp"
    return parse_lisp(text, path) if kind == "lisp" else parse_fbp(text, path)


def _include_path(name: str, pos: Pos, library: Path) -> Path:
    """A bare file name is looked up in the library folder, then beside the including file; a
    path is relative to the including file's folder."""
    here = Path(pos.file).parent if pos.file else Path.cwd()
    if os.path.basename(name) == name:
        for candidate in (library / name, here / name):
            if candidate.is_file() or path_problem(candidate):  # a pipe or device: refused by the read
                return candidate
    else:
        candidate = (here / name)
        if candidate.is_file() or path_problem(candidate):
            return candidate
    raise FlatlandError(f"#include: cannot find {name!r} (looked in {library} and {here})", pos.line, pos.column,
                        pos.file)


def collect_flows(module: Module, library: Path | None = None) -> dict[str, FlowDef]:
    """Every flow the module can use: its includes' (recursively, in order) then its own; a later
    definition of a name replaces an earlier one, as in the reference."""
    library = Path(library) if library is not None else LIBRARY_DIR
    flows: dict[str, FlowDef] = {}
    seen: set[Path] = set()

    def visit(mod: Module):
        for name, pos in mod.includes:
            path = _include_path(name, pos, library).resolve()
            if path in seen:
                continue
            seen.add(path)
            try:
                text = read_user_text(path, "a Flatland program")
            except UserFileError as e:
                raise FlatlandError(f"#include {name!r}: {e}", pos.line, pos.column, pos.file) from None
            visit(parse_text(text, str(path)))
        for f in mod.flows:
            flows[f.name] = f

    if module.path:
        seen.add(Path(module.path).resolve())
    visit(module)
    return flows


class _Builder:
    def __init__(self, flows: dict[str, FlowDef], augment=None):
        self.flows = flows
        self.augment = augment
        self.nodes: dict[str, FlatNode] = {}
        self.origin: dict[str, tuple] = {}

    def err(self, message: str, pos: Pos) -> FlatlandError:
        return FlatlandError(message, pos.line, pos.column, pos.file)

    def evaluate(self, expr, scope: Scope, pos: Pos):
        try:
            return evaluate(expr, scope)
        except FlatlandError as e:
            raise e.in_file(pos.file) if pos.file else e

    def instance(self, flow: FlowDef, args: list, caller: Scope, prefix: str, depth: int, pos: Pos, top: bool):
        """Create the nodes of one flow instance; return (entry ids, exits {port: [(id, port)]})."""
        if depth > MAX_DEPTH:
            raise self.err(f"sub-flow {flow.name!r} uses itself (nesting deeper than {MAX_DEPTH})", pos)
        if len(args) != len(flow.params):
            raise self.err(f"{flow.name} takes {len(flow.params)} argument(s) ({' '.join(flow.params)}), "
                           f"got {len(args)}", pos)
        values = []
        for p, a in zip(flow.params, args):
            if self.augment is not None and is_literal(a) and p in flow.randomisers:
                values.append(self.augment.draw(flow.randomisers[p]))
            else:
                values.append(self.evaluate(a, caller, pos))
        scope = Scope(dict(zip(flow.params, values)), caller)
        ins: dict[str, list[str]] = {}
        outs: dict[str, dict[str, list[tuple[str, str]]]] = {}
        for nd in flow.nodes:
            if nd.name in ins:
                raise self.err(f"node {nd.name!r} is defined twice in flow {flow.name!r}", nd.pos)
            nid = prefix + nd.name
            if nd.type in PRIMITIVES:
                self.primitive(nid, nd, scope, top)
                ins[nd.name] = [nid]
                ports = ("out", "body") if nd.type == "loop" else ("out",)
                outs[nd.name] = {p: [(nid, p)] for p in ports}
            elif nd.type in self.flows:
                e, x = self.instance(self.flows[nd.type], nd.args, scope, nid + "/", depth + 1, nd.pos, False)
                ins[nd.name], outs[nd.name] = e, x
            else:
                raise self.err(f"unknown node type or sub-flow {nd.type!r} (not defined here nor in an #include)",
                               nd.pos)
        for link in flow.links:
            for name in (link.source, link.target):
                if name not in ins:
                    raise self.err(f"link to an undefined node {name!r} in flow {flow.name!r}", link.pos)
            src_ports = outs[link.source]
            if link.port not in src_ports:
                raise self.err(f"{link.source!r} has no port {link.port!r}", link.pos)
            for sid, sport in src_ports[link.port]:
                self.nodes[sid].targets.setdefault(sport, []).extend(ins[link.target])
        entries = []
        for name, epos in flow.entries:
            if name not in ins:
                raise self.err(f"entry {name!r} is not a node of flow {flow.name!r}", epos)
            entries.extend(ins[name])
        exits: dict[str, list[tuple[str, str]]] = {}
        for name, port, xpos in flow.exits:
            if name not in ins:
                raise self.err(f"exit {name!r} is not a node of flow {flow.name!r}", xpos)
            if port not in outs[name]:
                raise self.err(f"{name!r} has no port {port!r}", xpos)
            exits.setdefault(port, []).extend(outs[name][port])
        return entries, exits

    def primitive(self, nid: str, nd, scope: Scope, top: bool):
        names = PRIMITIVES[nd.type]
        if len(nd.args) != len(names):
            raise self.err(f"{nd.type} takes {len(names)} argument(s) ({' '.join(names)}), got {len(nd.args)}",
                           nd.pos)
        params = {}
        for key, a in zip(names, nd.args):
            if key == "varname":
                if not (hasattr(a, "is_symbol") and a.is_symbol):
                    raise self.err(f"a loop's first argument is a counter name, got {a}", nd.pos)
                params[key] = a.value
                continue
            v = self.evaluate(a, scope, nd.pos)
            if isinstance(v, bool):
                v = int(v)
            if not isinstance(v, (int, float)):
                raise self.err(f"{nd.type} {key} must be a number, got {v!r}", nd.pos)
            params[key] = v
        if nd.type == "move":
            params["penup"] = bool(params["penup"])
        if self.augment is not None and top:
            self.augment.redraw(nd.type, params, [is_literal(a) for a in nd.args])
        self.nodes[nid] = FlatNode(nid, nd.type, params, {})
        self.origin[nid] = (nd.pos.line, nd.pos.column, nd.pos.file)


def resolve(module: Module, library: Path | str | None = None, augment=None) -> FlatProgram:
    """The flat program of ``module``. Raises FlatlandError (unknown sub-flow, bad arguments, no run
    line, a cycle no loop bounds …) with the file, line and column."""
    flows = collect_flows(module, Path(library) if library is not None else None)
    run = module.run
    if run is None:
        raise FlatlandError("no run line (e.g. {\"position\":[64,64], \"theta\":0} -> flowname(args…))",
                            None, None, module.path)
    if run.flow not in flows:
        raise FlatlandError(f"unknown flow {run.flow!r} in the run line", run.pos.line, run.pos.column, run.pos.file)
    b = _Builder(flows, augment)
    start = FlatNode(START_ID, "info", {"position": [run.position[0], run.position[1]], "theta": run.theta}, {})
    b.nodes[START_ID] = start
    if augment is not None:
        augment.redraw_start(start.params)
    entries, _exits = b.instance(flows[run.flow], run.args, Scope(), "", 0, run.pos, True)
    start.targets["out"] = list(entries)
    program = FlatProgram(b.nodes, START_ID, b.origin)
    check_termination(program)
    return program


def load_text(text: str, path: str | None = None, library=None, kind: str | None = None, augment=None) -> FlatProgram:
    """Program text (``.fbp``, ``.lisp`` or flat JSON) as a flat program."""
    stripped = text.lstrip()
    if kind == "json" or (kind is None and stripped.startswith(("{", "["))
                          and not (path or "").lower().endswith((".fbp", ".lisp"))):
        import json

        from gindex_studio.core.flatland.program import program_from_json

        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            raise FlatlandError(f"not valid JSON: {e.msg}", e.lineno, e.colno, path) from None
        try:
            return program_from_json(value)
        except FlatlandError as e:
            raise e.in_file(path) if path else e
    return resolve(parse_text(text, path, kind), library, augment)


def load_file(path: str | Path, library=None, augment=None) -> FlatProgram:
    """A program file as a flat program. Raises FlatlandError (also for a missing file)."""
    p = Path(path)
    try:
        text = read_user_text(p, "a Flatland program")
    except UserFileError as e:
        raise FlatlandError(str(e)) from None
    return load_text(text, str(p), library, augment=augment)
