"""The node library as the UI sees it.

Uses ``gindex_studio.core.library.NodeLibrary.bundled()``. Until that module is installed, a small
stand-in with the same API (``get``, ``types``, ``categories``, ``by_category``, ``fill_defaults``,
``output_count``, ``input_count``, ``unknown_types``) keeps the editor usable.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def bundled_library() -> Any:
    try:
        from gindex_studio.core.library import NodeLibrary
    except ImportError:
        return FallbackLibrary()
    return NodeLibrary.bundled()


def node_type_color(library: Any, type_id: str) -> str:
    """The colour of a node type (its own, else its category's), '#d9d9d9' if unknown."""
    nt = library.get(type_id)
    if nt is None:
        return "#d9d9d9"
    color = getattr(nt, "color", None)
    if color:
        return color
    for c in library.categories:
        if c.id == nt.category:
            return c.color or "#d9d9d9"
    return "#d9d9d9"


def is_config_type(library: Any, type_id: str) -> bool:
    """Config nodes (``ui_tab``, ``ui_group``, …) are not drawn on the canvas."""
    nt = library.get(type_id)
    return bool(getattr(nt, "config", False)) if nt is not None else False


def port_counts(library: Any, node: Any) -> tuple[int, int]:
    """(inputs, outputs) of a node: the library's, widened to the ports its wires use."""
    wired = len(node.ports)
    nt = library.get(node.type)
    if nt is None:
        return 1, max(wired, 1)
    try:
        ins = int(library.input_count(node))
        outs = int(library.output_count(node))
    except Exception:
        ins, outs = int(getattr(nt, "inputs", 1) or 0), int(getattr(nt, "outputs", 1) or 0)
    return min(ins, 1), max(outs, wired)


# ----- stand-in ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Attribute:
    key: str
    kind: str = "string"
    default: Any = ""
    choices: tuple = ()
    label: str = ""


@dataclass(frozen=True)
class _Category:
    id: str
    label: str
    description: str = ""
    color: str = "#d9d9d9"


@dataclass(frozen=True)
class _NodeType:
    type: str
    label: str
    category: str
    color: str
    inputs: int
    outputs: int
    attributes: tuple = field(default_factory=tuple)
    description: str = ""
    icon: str = ""
    config: bool = False

    def defaults(self) -> dict[str, Any]:
        return {a.key: a.default for a in self.attributes}


class FallbackLibrary:
    """A few common Node-RED types, used only while the core library is not installed."""

    def __init__(self) -> None:
        A = _Attribute
        cats = [
            _Category("common", "Common", "Injecting, debugging", "#a6bbcf"),
            _Category("function", "Function", "Transforming messages", "#fdd0a2"),
            _Category("network", "Network", "HTTP and sockets", "#e7e7ae"),
            _Category("config", "Config", "Configuration", "#dddddd"),
        ]
        T = _NodeType
        types = [
            T("inject", "inject", "common", "#a6bbcf", 0, 1, (A("payload", "string", ""), A("payloadType", "enum", "date", ("date", "str", "num", "json", "bool")), A("repeat", "string", ""), A("once", "boolean", False)), "Injects a message into a flow."),
            T("debug", "debug", "common", "#87a980", 1, 0, (A("active", "boolean", True), A("complete", "string", "false")), "Shows messages in the debug sidebar."),
            T("function", "function", "function", "#fdd0a2", 1, 1, (A("func", "code", "return msg;"), A("outputs", "number", 1)), "A JavaScript function run on each message."),
            T("change", "change", "function", "#e2d96e", 1, 1, (A("rules", "json", []),), "Sets, changes or deletes message properties."),
            T("switch", "switch", "function", "#e2d96e", 1, 1, (A("property", "string", "payload"), A("rules", "json", []), A("checkall", "enum", "true", ("true", "false"))), "Routes messages by property values."),
            T("http request", "http request", "network", "#e7e7ae", 1, 1, (A("method", "enum", "GET", ("GET", "POST", "PUT", "DELETE", "use")), A("url", "string", ""), A("ret", "enum", "txt", ("txt", "bin", "obj"))), "Sends HTTP requests and returns the response."),
            T("http in", "http in", "network", "#e7e7ae", 0, 1, (A("url", "string", ""), A("method", "enum", "get", ("get", "post", "put", "delete"))), "Creates an HTTP end-point."),
            T("http response", "http response", "network", "#e7e7ae", 1, 0, (A("statusCode", "string", ""),), "Sends responses back to HTTP requests."),
            T("ui_tab", "dashboard tab", "config", "#dddddd", 0, 0, (A("icon", "string", "dashboard"),), "A dashboard tab.", config=True),
        ]
        self.categories = cats
        self.types = types
        self._by_type = {t.type: t for t in types}

    def get(self, type_id: str):
        return self._by_type.get(type_id)

    def by_category(self, cat_id: str):
        return [t for t in self.types if t.category == cat_id]

    def unknown_types(self, flow) -> list[str]:
        return sorted({n.type for n in flow.nodes if n.type not in self._by_type and n.type != "tab"})

    def fill_defaults(self, node_data: dict) -> dict:
        nt = self.get(node_data.get("type"))
        out = dict(node_data)
        if nt:
            for k, v in nt.defaults().items():
                out.setdefault(k, v)
        return out

    def output_count(self, node) -> int:
        nt = self.get(node.type)
        return max(nt.outputs if nt else 1, len(node.ports))

    def input_count(self, node) -> int:
        nt = self.get(node.type)
        return nt.inputs if nt else 1
