"""Flow programs: Node-RED node arrays, their containers, and reading/writing them.

A flow file is a JSON array of node objects, a benchmark dataset object with the array under
``"flow"`` (plus ``"name"``, ``"text"``, ``"title"``), or a Node-RED runtime object with the array
under ``"flows"`` (plus ``"rev"``). See scoring-spec §1.

Contract:
- every node object is kept as the dict it was read as (key order and unknown keys included), so
  writing an unchanged flow gives a semantically identical file;
- non-object entries and objects without a string ``id``/``type`` are kept in ``Flow.invalid``
  (written back after the nodes) and reported, never scored;
- scoring views (``vertex_nodes``, ``edges``) keep the first node of a duplicated id and drop wires
  to ids that are not in the flow; every such decision is listed in ``Flow.problems``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson

from gindex_studio.core.flows.nesting import MAX_DEPTH, NestingError, checked, too_deep

LAYOUT_KEYS = frozenset({"x", "y", "z", "w", "h", "g"})
STRUCTURE_KEYS = frozenset({"id", "type", "wires"})


class FlowError(Exception):
    """A flow file that cannot be read at all (missing, not JSON, wrong shape)."""


@dataclass(frozen=True)
class Problem:
    """Something wrong in a flow that the studio reports but survives.

    kind: one of ``duplicate-id``, ``dangling-wire``, ``invalid-node``, ``self-loop``, ``cycle``,
    ``unknown-type``, ``invalid-json-attribute``, ``missing-config``, ``wrong-config-type``, ``encoding``,
    ``syntax``. ``node_id`` is the node to show first; ``nodes`` every node the problem is about
    (a cycle's members), when more than one.
    """

    kind: str
    message: str
    node_id: str | None = None
    nodes: tuple[str, ...] = ()


class Node:
    """One node object. ``data`` is the dict as read or edited; accessors normalise it."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]):
        self.data = data

    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def type(self) -> str:
        return self.data["type"]

    @property
    def name(self) -> str:
        value = self.data.get("name")
        return value if isinstance(value, str) else ""

    @property
    def ports(self) -> list[list[str]]:
        """Output ports as lists of target ids (a flat id list is one port, spec §1)."""
        return normalise_wires(self.data.get("wires"))

    @property
    def attributes(self) -> dict[str, Any]:
        """Every key except id, type and wires (layout keys included, as in the file)."""
        return {k: v for k, v in self.data.items() if k not in STRUCTURE_KEYS}

    def __repr__(self) -> str:
        return f"Node({self.id!r}, {self.type!r})"


def normalise_wires(wires: Any) -> list[list[str]]:
    """Node-RED ``wires`` as a list of ports, each a list of string ids.

    ``[["a"], ["b","c"]]`` stays as it is; a flat ``["a","b"]`` is one port; anything that is not a
    list gives no ports; non-string ids inside ports are skipped.
    """
    if not isinstance(wires, list) or not wires:
        return []
    if all(isinstance(p, list) for p in wires):
        return [[t for t in p if isinstance(t, str)] for p in wires]
    return [[t for t in wires if isinstance(t, str)]]


@dataclass
class Container:
    """How the node array was wrapped in its file.

    kind: ``array`` (bare list), ``dataset`` (object with ``flow``) or ``flows`` (object with
    ``flows``). ``wrapper`` is the original object (its other keys, in order), or None for arrays.
    """

    kind: str = "array"
    wrapper: dict[str, Any] | None = None

    @property
    def key(self) -> str | None:
        return {"dataset": "flow", "flows": "flows"}.get(self.kind)


@dataclass
class Flow:
    """A flow program: its nodes, how it was wrapped and what the reader noticed."""

    nodes: list[Node] = field(default_factory=list)
    container: Container = field(default_factory=Container)
    invalid: list[Any] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    # ----- dataset metadata -------------------------------------------------------------------
    @property
    def prompt(self) -> str:
        """The task prompt (``text`` of a dataset file), or ""."""
        w = self.container.wrapper
        return w.get("text", "") if w and isinstance(w.get("text"), str) else ""

    @property
    def domain(self) -> str:
        """The task domain (``name`` of a dataset file), or ""."""
        w = self.container.wrapper
        return w.get("name", "") if w and isinstance(w.get("name"), str) else ""

    # ----- scoring views ----------------------------------------------------------------------
    def vertex_nodes(self) -> list[Node]:
        """The vertices V: first node of each id, in file order (spec §1)."""
        seen: set[str] = set()
        out = []
        for n in self.nodes:
            i = n.data["id"]
            if i not in seen:
                seen.add(i)
                out.append(n)
        return out

    def by_id(self) -> dict[str, Node]:
        """Id → first node with that id."""
        out: dict[str, Node] = {}
        for n in self.nodes:
            out.setdefault(n.id, n)
        return out

    def edges(self, port_aware: bool = False) -> set[tuple]:
        """The edge set E: ``(src, dst)``, or ``(src, port, dst)`` with ``port_aware``.

        Duplicate wires count once; wires to ids not in the flow are dropped (see ``problems``).
        """
        ids = self.by_id()
        out: set[tuple] = set()
        for n in ids.values():
            for port, targets in enumerate(n.ports):
                for t in targets:
                    if t in ids:
                        out.add((n.id, port, t) if port_aware else (n.id, t))
        return out

    def iter_wires(self) -> Iterator[tuple[str, int, str]]:
        """Every wire as ``(src, port, dst)`` of the vertex nodes, dangling ones included."""
        for n in self.vertex_nodes():
            for port, targets in enumerate(n.ports):
                for t in targets:
                    yield n.id, port, t

    # ----- writing ----------------------------------------------------------------------------
    def to_json_value(self) -> Any:
        """The JSON value to write: same container shape and key order as read."""
        array = [n.data for n in self.nodes] + list(self.invalid)
        c = self.container
        if c.kind == "array" or c.wrapper is None:
            return array
        out = dict(c.wrapper)
        out[c.key] = array
        return out

    def dumps(self, indent: bool = True) -> bytes:
        """Serialise with orjson (indented by default), UTF-8 bytes."""
        value = self.to_json_value()
        option = orjson.OPT_INDENT_2 if indent else 0
        try:
            return orjson.dumps(value, option=option)
        except TypeError:  # integers beyond 64 bits: orjson refuses them, json does not
            import json

            # (also: strings holding bytes that were not UTF-8 when read, see ``loads_json``)
            return json.dumps(value, indent=2 if indent else None, ensure_ascii=False).encode("utf-8", "surrogateescape")

    def copy(self) -> "Flow":
        """A deep copy (node dicts copied through JSON)."""
        flow = flow_from_value(loads_json(self.dumps(indent=False)))
        flow.problems = list(self.problems)
        return flow


# ----- reading ------------------------------------------------------------------------------


def loads_json(data: bytes | str) -> Any:
    """Strict JSON with orjson, falling back to ``json`` for integers beyond 64 bits.

    Raises ``ValueError`` (``json.JSONDecodeError``) with position information on invalid JSON,
    and ``NestingError`` (a ValueError) for arrays and objects nested deeper than ``MAX_DEPTH``
    (orjson alone accepts 1,024 levels). ``NaN``, ``Infinity`` and numbers beyond a double
    (``1e999``) are invalid here as in orjson: the fallback refuses them too.
    """
    try:
        return checked(orjson.loads(data))
    except orjson.JSONDecodeError as e:
        if "depth limit" in str(e):
            raise NestingError(too_deep(MAX_DEPTH)) from None
        first = e
    import json

    # bytes that are not UTF-8 become lone surrogates ("surrogateescape") so that ``dumps``
    # writes exactly the same bytes back; never U+FFFD
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    try:
        value = json.loads(text, parse_constant=not_json_number, parse_float=finite_float)  # (no chained error)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise NestingError(too_deep(MAX_DEPTH)) from None
    except Exception:
        raise first
    finally:
        # ``first``'s traceback holds this frame, which holds ``first``: a cycle that keeps every
        # caller's frame (and what their locals hold) until the collector runs
        first = None
    return checked(value)


def not_json_number(name: str):
    """``json``'s ``parse_constant``: NaN, Infinity and -Infinity are not JSON (orjson refuses them)."""
    raise ValueError(f"{name} is not a JSON number")


def finite_float(text: str) -> float:
    """``json``'s ``parse_float``: a number beyond a double (1e999) is refused, as orjson does."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is beyond a double")
    return value


def flow_from_value(value: Any) -> Flow:
    """Build a Flow from an already parsed JSON value.

    Raises FlowError when the value has none of the three shapes of spec §1. A single node object
    (with ``id`` and ``type``) is accepted as a one-node flow.
    """
    if isinstance(value, list):
        return _flow_from_array(value, Container("array", None))
    if isinstance(value, dict):
        if isinstance(value.get("flow"), list):
            return _flow_from_array(value["flow"], Container("dataset", value))
        if isinstance(value.get("flows"), list):
            return _flow_from_array(value["flows"], Container("flows", value))
        if isinstance(value.get("id"), str) and isinstance(value.get("type"), str):
            return _flow_from_array([value], Container("array", None))
        raise FlowError(
            "a flow must be a JSON array of nodes, or an object with a \"flow\" or \"flows\" array"
        )
    raise FlowError(f"a flow must be a JSON array or object, not {type(value).__name__}")


def _flow_from_array(items: list, container: Container) -> Flow:
    flow = Flow(container=container)
    seen: set[str] = set()
    vertices = []  # the first node dict of each id (vertex_nodes)
    for i, item in enumerate(items):
        if isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(
            item.get("type"), str
        ):
            flow.nodes.append(Node(item))
            if item["id"] in seen:
                flow.problems.append(
                    Problem("duplicate-id", f"duplicate id {item['id']!r}: the first node with it is scored", item["id"])
                )
            else:
                vertices.append(item)
            seen.add(item["id"])
        else:
            flow.invalid.append(item)
            flow.problems.append(Problem("invalid-node", f"entry {i} is not a node object with a string id and type"))
    for d in vertices:  # iter_wires, without normalising the usual list of lists of ids
        wires = d.get("wires")
        if not wires:
            continue
        ports = wires if type(wires) is list and all(type(p) is list for p in wires) else normalise_wires(wires)
        for targets in ports:
            for dst in targets:
                if (type(dst) is str or isinstance(dst, str)) and dst not in seen:
                    src = d["id"]
                    flow.problems.append(Problem("dangling-wire", f"wire from {src!r} to missing node {dst!r} is ignored", src))
    return flow


def json_problem(e: ValueError) -> str:
    """``loads_json``'s error ``e`` as the one-line reason a file cannot be read: "its JSON is
    nested deeper ..." (``NestingError``) or "not valid JSON: ..."."""
    return f"its JSON is {e}" if isinstance(e, NestingError) else f"not valid JSON: {e}"


def read_flow_bytes(data: bytes | str) -> Flow:
    """Parse strict JSON text into a Flow. Raises FlowError with a one-line reason.

    Bytes that are not UTF-8 are kept as they are (written back unchanged) and reported as an
    ``encoding`` problem."""
    try:
        value = loads_json(data)
    except ValueError as e:
        raise FlowError(json_problem(e)) from None
    flow = flow_from_value(value)
    bad = _non_utf8_bytes(data)
    if bad:
        flow.problems.insert(0, Problem(
            "encoding", f"the file is not valid UTF-8: {bad} byte{'s' if bad != 1 else ''} kept as they are "
            "and written back unchanged (shown as \\udcXX)"))
    return flow


def _non_utf8_bytes(data: bytes | str) -> int:
    """How many bytes of ``data`` are not UTF-8 (0 for text)."""
    if isinstance(data, str):
        return 0
    try:
        data.decode("utf-8")
        return 0
    except UnicodeDecodeError:
        return sum(1 for c in data.decode("utf-8", "surrogateescape") if "\udc80" <= c <= "\udcff")


def read_user_file(path: str | Path, what: str = "a flow file") -> bytes:
    """The bytes of a file the user named. Raises FlowError with one line (missing, a folder, a
    pipe or device, larger than the input limit, unreadable: ``files.read_user_bytes``)."""
    try:
        return read_user_bytes(path, what)
    except UserFileError as e:
        raise FlowError(str(e)) from None


def read_flow_file(path: str | Path) -> Flow:
    """Read a flow file strictly. Raises FlowError (missing, unreadable, not JSON, wrong shape,
    entries of which none is a node: ``no_node_reason``)."""
    p = Path(path)
    data = read_user_file(p)
    try:
        flow = read_flow_bytes(data)
    except FlowError as e:
        raise FlowError(f"{p}: {e}") from None
    reason = no_node_reason(flow)
    if reason:
        raise FlowError(f"{p}: {reason}")
    return flow


def no_node_reason(flow: Flow) -> str | None:
    """Why a strictly read program is none: it holds entries and not one of them is a node
    (``[1, 2, 3]``). None when it has a node, or no entry at all (``[]``: an empty program)."""
    if flow.nodes or not flow.invalid:
        return None
    n = len(flow.invalid)
    return f"holds {n:,} entr{'y' if n == 1 else 'ies'} but none is a node object with a string id and type"


def write_flow_file(flow: Flow, path: str | Path) -> None:
    """Write atomically, keeping the file's mode and links; a read-only file is refused
    (``files.ReadOnlyError``). See :func:`gindex_studio.core.flows.files.atomic_write_bytes`."""
    atomic_write_bytes(Path(path), flow.dumps())


# the one safe way to replace a file (kept importable from here: experiments and studies use it)
from gindex_studio.core.flows.files import UserFileError, atomic_write_bytes, read_user_bytes  # noqa: E402


def flow_from_nodes(nodes: Iterable[dict[str, Any]]) -> Flow:
    """Convenience: a bare-array Flow from node dicts (used by tests and generators)."""
    return _flow_from_array(list(nodes), Container("array", None))
