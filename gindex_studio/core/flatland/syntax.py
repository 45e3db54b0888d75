"""What a ``.fbp`` or ``.lisp`` file says, before sub-flows are resolved: the parsed module.

Both readers (``fbp.parse_fbp``, ``lisp.parse_lisp``) produce a ``Module``; ``resolve`` turns a
module (with its includes) into one flat program. Arguments stay unevaluated S-expressions, so
sub-flow parameters and LISP expressions are evaluated per instance.
"""
from __future__ import annotations

from dataclasses import dataclass, field

PRIMITIVES = {"move": ("dist", "penup"), "turn": ("theta",), "loop": ("varname", "start", "end")}
PORTS = ("out", "body")


@dataclass
class Pos:
    """Where something is written: file (may be None), 1-based line and column."""

    line: int | None = None
    column: int | None = None
    file: str | None = None


@dataclass
class Randomiser:
    """An ``@param`` randomiser: kind ``int`` [a, b), ``float`` [a, b), ``bool`` (p true) or
    ``choice`` (values)."""

    kind: str
    values: list


@dataclass
class NodeDef:
    name: str
    type: str  # move / turn / loop, or the name of a sub-flow
    args: list  # unevaluated expressions
    pos: Pos


@dataclass
class LinkDef:
    source: str
    port: str
    target: str
    pos: Pos


@dataclass
class FlowDef:
    """A named sub-flow: parameters, randomisers, nodes, links, entries and exits."""

    name: str
    params: list[str]
    randomisers: dict[str, Randomiser]
    pos: Pos
    nodes: list[NodeDef] = field(default_factory=list)
    links: list[LinkDef] = field(default_factory=list)
    entries: list[tuple[str, Pos]] = field(default_factory=list)
    exits: list[tuple[str, str, Pos]] = field(default_factory=list)  # (node, port, pos)

    def node(self, name: str) -> NodeDef | None:
        for n in self.nodes:
            if n.name == name:
                return n
        return None


@dataclass
class RunDef:
    """The line that runs a flow: its name, arguments and the start state."""

    flow: str
    args: list
    position: tuple[float, float]
    theta: float
    pos: Pos


@dataclass
class Module:
    """One program file: includes (name, pos), flow definitions in order, and the run line."""

    path: str | None
    includes: list[tuple[str, Pos]] = field(default_factory=list)
    flows: list[FlowDef] = field(default_factory=list)
    run: RunDef | None = None
