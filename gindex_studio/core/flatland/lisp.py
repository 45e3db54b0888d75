"""The ``.lisp`` form: one S-expression, read into a ``Module`` and written from a flat program.

Forms (as the reference writes them)::

    (begin
      (#include "circle.fbp")
      (define-flow name (params…) ((p (int (a b))) …)
        ((create-node n type args…) (create-entry n) (create-link a b) (create-link a:body b)
         (create-exit n) …))
      (run-flow name (args…) (x y) theta))
"""
from __future__ import annotations

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.sexpr import Atom, SList, format_value, read
from gindex_studio.core.flatland.syntax import FlowDef, LinkDef, Module, NodeDef, Pos, RunDef
from gindex_studio.core.flatland.fbp import randomiser_of, start_state


def parse_lisp(text: str, path: str | None = None) -> Module:
    """Parse ``.lisp`` text. Raises FlatlandError naming the file, line and column."""
    try:
        return _read_module(read(text), path)
    except FlatlandError as e:
        raise e.in_file(path) if path else e


def _pos(x, path) -> Pos:
    return Pos(getattr(x, "line", None), getattr(x, "column", None), path)


def _sym(x, what: str) -> str:
    if not isinstance(x, Atom) or not x.is_symbol:
        raise FlatlandError(f"expected {what}, got {x}", getattr(x, "line", None), getattr(x, "column", None))
    return x.value


def _form(x) -> str:
    if not isinstance(x, SList) or not x or not isinstance(x[0], Atom) or not x[0].is_symbol:
        raise FlatlandError(f"expected a form (name …), got {x}", getattr(x, "line", None), getattr(x, "column", None))
    return x[0].value


def _read_module(expr, path) -> Module:
    module = Module(path)
    if _form(expr) != "begin":
        raise FlatlandError("a .lisp program is one (begin …) form", expr.line, expr.column)
    for item in expr[1:]:
        head = _form(item)
        if head == "#include":
            name = _sym(item[1] if len(item) > 1 else item, 'a "file name"')
            if not (name.startswith('"') and name.endswith('"')):
                raise FlatlandError('#include needs a double-quoted file name', item.line, item.column)
            module.includes.append((name.strip('"'), _pos(item, path)))
        elif head == "define-flow":
            module.flows.append(_define_flow(item, path))
        elif head == "run-flow":
            module.run = _run_flow(item, path)
        else:
            raise FlatlandError(f"unknown form {head!r} (expected #include, define-flow or run-flow)",
                                item.line, item.column)
    return module


def _define_flow(item, path) -> FlowDef:
    if len(item) != 5 or not isinstance(item[2], SList) or not isinstance(item[3], SList) or not isinstance(item[4], SList):
        raise FlatlandError("(define-flow name (params…) (randomisers…) (body…))", item.line, item.column)
    name = _sym(item[1], "a flow name")
    params = [_sym(p, "a parameter name") for p in item[2]]
    randomisers = {}
    for r in item[3]:
        if not isinstance(r, SList) or len(r) != 2:
            raise FlatlandError("a randomiser is (name (kind (values…)))", *_where(r))
        randomisers[_sym(r[0], "a parameter name")] = randomiser_of(r[1])
    flow = FlowDef(name, params, randomisers, _pos(item, path))
    for form in item[4]:
        head = _form(form)
        if head == "create-node":
            if len(form) < 3:
                raise FlatlandError("(create-node name type args…)", form.line, form.column)
            flow.nodes.append(NodeDef(_sym(form[1], "a node name"), _sym(form[2], "a node type"), list(form[3:]),
                                      _pos(form, path)))
        elif head == "create-entry":
            flow.entries.append((_sym(form[1], "a node name"), _pos(form, path)))
        elif head == "create-exit":
            node, port = _split_port(_sym(form[1], "a node name"))
            if len(form) > 2:
                port = _sym(form[2], "a port")
            flow.exits.append((node, port, _pos(form, path)))
        elif head == "create-link":
            if len(form) != 3:
                raise FlatlandError("(create-link source[:port] target)", form.line, form.column)
            src, port = _split_port(_sym(form[1], "a node name"))
            dst, _ = _split_port(_sym(form[2], "a node name"))
            flow.links.append(LinkDef(src, port, dst, _pos(form, path)))
        else:
            raise FlatlandError(f"unknown form {head!r} in a flow body", form.line, form.column)
    return flow


def _where(x):
    return getattr(x, "line", None), getattr(x, "column", None)


def _split_port(text: str) -> tuple[str, str]:
    name, _, port = text.partition(":")
    return name, port or "out"


def _run_flow(item, path) -> RunDef:
    if len(item) != 5 or not isinstance(item[2], SList) or not isinstance(item[3], SList) or len(item[3]) != 2:
        raise FlatlandError("(run-flow name (args…) (x y) theta)", item.line, item.column)
    vals = [item[3][0], item[3][1], item[4]]
    if not all(isinstance(v, Atom) and not v.is_symbol for v in vals):
        raise FlatlandError("run-flow position and theta must be numbers", item.line, item.column)
    position, theta = start_state({"position": [vals[0].value, vals[1].value], "theta": vals[2].value},
                                  item.line, item.column)
    return RunDef(_sym(item[1], "a flow name"), list(item[2]), position, theta, _pos(item, path))


def write_lisp(program, name: str = "main") -> str:
    """A flat program (``program.FlatProgram``) as ``.lisp`` text: one flow of primitives, run from
    the start node's state. Reading it back gives the same nodes, parameters and edges."""
    start = program.start
    lines = ["(begin", f"  (define-flow {name} () ()", "    ("]
    order = [nid for nid in program.nodes if nid != program.start_id]
    for nid in order:
        node = program.nodes[nid]
        args = " ".join(format_value(v) for v in node.arg_values())
        lines.append(f"     (create-node {nid} {node.type} {args})")
    for nid in start.targets.get("out", []):
        lines.append(f"     (create-entry {nid})")
    for nid in order:
        for port, targets in program.nodes[nid].targets.items():
            src = nid if port == "out" else f"{nid}:{port}"
            for t in targets:
                lines.append(f"     (create-link {src} {t})")
    lines[-1] += "))"
    x, y = start.params["position"]
    theta = start.params["theta"]
    lines.append(f"  (run-flow {name} () ({format_value(x)} {format_value(y)}) {format_value(theta)}))")
    return "\n".join(lines) + "\n"


def write_fbp(program, name: str = "main") -> str:
    """A flat program as ``.fbp`` text: one flow whose nodes are defined on the first edge into
    them (breadth-first from the start). Raises FlatlandError when that cannot express it: the
    start feeds several nodes, or a node cannot be reached from the start (save as ``.lisp``)."""
    from gindex_studio.core.flatland.errors import FlatlandError

    start = program.start
    entry = start.targets.get("out", [])
    if len(entry) != 1:
        raise FlatlandError(f"the start feeds {len(entry)} nodes; .fbp has one entry per flow: save as .lisp")

    def define(nid: str) -> str:
        node = program.nodes[nid]
        return f"{nid}({node.type} {' '.join(format_value(v) for v in node.arg_values())})"

    lines = [f"{name}(start) -> {define(entry[0])}"]
    defined, order = {entry[0]}, [entry[0]]
    for nid in order:
        node = program.nodes[nid]
        for port in node.ports():
            for t in node.targets.get(port, []):
                src = nid if port == "out" else f"{nid} {port}"
                if t in defined:
                    lines.append(f"{src} -> {t}")
                else:
                    lines.append(f"{src} -> {define(t)}")
                    defined.add(t)
                    order.append(t)
    missing = [nid for nid in program.nodes if nid not in defined and nid != program.start_id]
    if missing:
        raise FlatlandError(f"node {missing[0]!r} cannot be reached from the start; .fbp defines nodes on "
                            "their incoming edges: save as .lisp")
    lines.append(f"{entry[0]} -> {name}(end)")
    x, y = start.params["position"]
    lines += ["", f'{{"position":[{format_value(x)},{format_value(y)}], "theta":{format_value(start.params["theta"])}}}'
              f" -> {name}()"]
    return "\n".join(lines) + "\n"
