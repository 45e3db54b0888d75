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
from gindex_studio.core.flatland import WORLD
from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.expr import Scope, evaluate, is_literal
from gindex_studio.core.flatland.fbp import parse_fbp
from gindex_studio.core.flatland.lisp import parse_lisp
from gindex_studio.core.flatland.program import START_ID, FlatNode, FlatProgram, check_termination, param_problem
from gindex_studio.core.flatland.syntax import PRIMITIVES, FlowDef, Module, Pos

LIBRARY_DIR = RESOURCES / WORLD
MAX_DEPTH = 64
#: the most nodes a program may expand to (its sub-flows inlined); counted before any is built
MAX_NODES = 100_000
#: how much of an include name an error shows
SHOWN_NAME = 160  # a whole path of a usual depth; a 100 kB name stays one short line


def parse_text(text: str, path: str | None = None, kind: str | None = None) -> Module:
    """Parse program text as ``.fbp`` or ``.lisp`` (``kind``; else by the path's suffix, else a text
    starting with ``(`` is LISP)."""
    if kind is None:
        suffix = Path(path).suffix.lower() if path else ""
        kind = "lisp" if suffix == ".lisp" or (suffix != ".fbp" and text.lstrip().startswith("(")) else "fbp"
    return parse_lisp(text, path) if kind == "lisp" else parse_fbp(text, path)


def include_folders(library=None, program_path: str | None = None) -> list[Path]:
    """Where ``#include`` may read, in lookup order: the library folder (``library``, else the
    bundled one), the user library folders (``<user data>/library``, ``$GINDEX_LIBRARY_PATH``), and
    the folder of ``program_path`` (a program the user opened; None for a generated program, which
    a model wrote and which must not read the user's files)."""
    from gindex_studio.core.flows.library import user_library_folders

    folders = [Path(library) if library is not None else LIBRARY_DIR, *user_library_folders()]
    if program_path:
        folders.append(Path(program_path).resolve().parent)
    return folders


def _shown(name: str) -> str:
    """``name`` quoted for a message, cut to :data:`SHOWN_NAME` characters."""
    return repr(name) if len(name) <= SHOWN_NAME else repr(name[:SHOWN_NAME]) + f"… ({len(name):,} characters)"


def _include_path(name: str, pos: Pos, folders: list[Path], own_folder: bool) -> Path:
    """The file ``#include name`` reads: ``name`` (a bare file name or a relative path, no ``..``
    part) below one of ``folders``, the first that has it. Symbolic links are followed and the
    target must still be inside that folder. The error names the include as written, never what
    any other file holds."""
    parts = name.replace("\\", "/").split("/")
    if os.path.isabs(name) or name.startswith(("/", "~")) or ".." in parts or not name.strip():
        raise FlatlandError(f"#include {_shown(name)}: only a file name or a path inside a library folder may be "
                            "included (no absolute path, no '..')", pos.line, pos.column, pos.file)
    where = "the library folders or the program's own folder" if own_folder else "the library folders"
    for folder in folders:
        try:
            root = folder.resolve()
            candidate = (root / name).resolve()
            if not candidate.is_relative_to(root):
                if os.path.lexists(root / name):
                    raise FlatlandError(f"#include {_shown(name)}: a link to a file outside {where}; it is not read",
                                        pos.line, pos.column, pos.file)
                continue
            if candidate.is_file() or path_problem(candidate):  # a pipe or a device: refused by the read
                return candidate
        except (OSError, RuntimeError):  # a symlink loop, a name too long for the file system
            continue
    raise FlatlandError(f"#include {_shown(name)}: not found in {where}", pos.line, pos.column, pos.file)


def collect_flows(module: Module, library: Path | None = None, own_folder: bool = True) -> dict[str, FlowDef]:
    """Every flow the module can use: its includes' (recursively, in order) then its own; a later
    definition of a name replaces an earlier one, as in the reference. Includes are read only from
    ``include_folders`` (the module's own folder only when ``own_folder`` and it has a path)."""
    own_folder = bool(own_folder and module.path)
    folders = include_folders(library, module.path if own_folder else None)
    flows: dict[str, FlowDef] = {}
    seen: set[Path] = set()

    def visit(mod: Module):
        names: set[str] = set()
        for name, pos in mod.includes:
            if name in names:
                continue  # the same #include again: already read (the file system is not asked again)
            names.add(name)
            path = _include_path(name, pos, folders, own_folder)
            if path in seen:
                continue
            seen.add(path)
            try:
                text = read_user_text(path, "a Flatland program")
            except UserFileError as e:
                raise FlatlandError(f"#include {_shown(name)}: {e}", pos.line, pos.column, pos.file) from None
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

    def evaluate(self, expr, scope: Scope, pos: Pos, what: str):
        """The value of ``expr``; an error names ``what`` is evaluated (the node and parameter)."""
        try:
            return evaluate(expr, scope)
        except FlatlandError as e:
            line, col = (e.line, e.column) if e.line is not None else (pos.line, pos.column)
            raise FlatlandError(f"{what}: {e.message}", line, col, e.file or pos.file) from None

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
                values.append(self.evaluate(a, caller, pos, f"argument {p!r} of {flow.name}"))
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
            what = f"node {nd.name!r} ({nd.type} {key})"
            v = self.evaluate(a, scope, nd.pos, what)
            if isinstance(v, bool):
                v = int(v)
            if not isinstance(v, (int, float)):
                raise self.err(f"{what} must be a number, got {repr(v)[:60]}", nd.pos)
            problem = param_problem(v)
            if problem:
                raise self.err(f"{what}: {v:.6g} {problem}", nd.pos)
            params[key] = v
        if nd.type == "move":
            params["penup"] = bool(params["penup"])
        if self.augment is not None and top:
            self.augment.redraw(nd.type, params, [is_literal(a) for a in nd.args])
        self.nodes[nid] = FlatNode(nid, nd.type, params, {})
        self.origin[nid] = (nd.pos.line, nd.pos.column, nd.pos.file)


def expanded_size(flows: dict[str, FlowDef], name: str) -> int:
    """How many nodes flow ``name`` expands to with its sub-flows inlined, counted without building
    any; at most ``MAX_NODES + 1`` (more is not counted). A flow that uses itself, or an unknown
    type, counts as one node here: building the program reports it."""
    memo: dict[str, int] = {}
    open_: set[str] = set()  # flows being counted (on the path from ``name``)
    stack = [(name, False)]
    while stack:  # post-order, without recursion: a chain of thousands of flows is counted too
        f, finish = stack.pop()
        subs = [nd.type for nd in flows[f].nodes if nd.type not in PRIMITIVES and nd.type in flows]
        if finish:
            open_.discard(f)
            own = len(flows[f].nodes) - len(subs)
            memo[f] = min(own + sum(memo.get(t, 1) for t in subs), MAX_NODES + 1)
        elif f not in memo and f not in open_:
            open_.add(f)
            stack.append((f, True))
            stack.extend((t, False) for t in subs if t not in memo and t not in open_)
    return memo[name]


def resolve(module: Module, library: Path | str | None = None, augment=None, own_folder: bool = True) -> FlatProgram:
    """The flat program of ``module``. Raises FlatlandError (unknown sub-flow, bad arguments, no run
    line, a cycle no loop bounds …) with the file, line and column. ``own_folder``: includes may
    also come from the module's folder (a program the user opened; False for generated ones)."""
    flows = collect_flows(module, Path(library) if library is not None else None, own_folder)
    run = module.run
    if run is None:
        raise FlatlandError("no run line (e.g. {\"position\":[64,64], \"theta\":0} -> flowname(args…))",
                            None, None, module.path)
    if run.flow not in flows:
        raise FlatlandError(f"unknown flow {run.flow!r} in the run line", run.pos.line, run.pos.column, run.pos.file)
    size = expanded_size(flows, run.flow)
    if size > MAX_NODES:
        raise FlatlandError(f"the run line's flow {run.flow!r} expands to more than {MAX_NODES:,} nodes "
                            "(its sub-flows inlined); a Flatland program may have at most that many",
                            run.pos.line, run.pos.column, run.pos.file)
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


def load_text(text: str, path: str | None = None, library=None, kind: str | None = None, augment=None,
              own_folder: bool = True) -> FlatProgram:
    """Program text (``.fbp``, ``.lisp`` or flat JSON) as a flat program. ``own_folder``: see
    ``resolve`` (text without a path has no folder: includes come from the library folders)."""
    stripped = text.lstrip()
    if kind == "json" or (kind is None and stripped.startswith(("{", "["))
                          and not (path or "").lower().endswith((".fbp", ".lisp"))):
        import json

        from gindex_studio.core.flatland.program import program_from_json
        from gindex_studio.core.flows.nesting import NestingError, loads

        try:
            value = loads(text)
        except json.JSONDecodeError as e:
            raise FlatlandError(f"not valid JSON: {e.msg}", e.lineno, e.colno, path) from None
        except NestingError as e:
            raise FlatlandError(f"the JSON is {e}", None, None, path) from None
        try:
            return program_from_json(value)
        except FlatlandError as e:
            raise e.in_file(path) if path else e
    return resolve(parse_text(text, path, kind), library, augment, own_folder)


def load_file(path: str | Path, library=None, augment=None) -> FlatProgram:
    """A program file as a flat program. Raises FlatlandError (also for a missing file)."""
    p = Path(path)
    try:
        text = read_user_text(p, "a Flatland program")
    except UserFileError as e:
        raise FlatlandError(str(e)) from None
    return load_text(text, str(p), library, augment=augment)
