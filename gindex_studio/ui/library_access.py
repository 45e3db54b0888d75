"""The node library as the UI sees it.

Wraps ``gindex_studio.core.flows.library.NodeLibrary``: colours, config flags and port counts as the
canvas needs them.
"""
from __future__ import annotations

from typing import Any


def bundled_library() -> Any:
    """The bundled node library (loaded once, see ``NodeLibrary.bundled``)."""
    from gindex_studio.core.flows.library import NodeLibrary

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
