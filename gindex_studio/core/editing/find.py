"""Find nodes by name, type or attribute value (pure Python over a FlowDocument).

``find_nodes(doc, query)`` returns the ids of matching nodes in reading order: drawn nodes by
workspace, then top to bottom, left to right; config nodes last. Case-insensitive substring of
the label (name, else type label), the type, the id, or any attribute's value (strings as they
are, other values as compact JSON). ``"type:debug"`` restricts to the type; ``"name:x"`` to the
label.
"""
from __future__ import annotations

import json
from typing import Any

from gindex_studio.core.flows.flow import LAYOUT_KEYS

SKIP = LAYOUT_KEYS | {"wires", "z"}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def node_matches(doc, node_id: str, query: str) -> bool:
    q = query.strip().lower()
    if not q:
        return False
    node = doc.node(node_id)
    field, _, rest = q.partition(":")
    if rest and field in ("type", "name"):
        target = node.type if field == "type" else doc.label(node_id)
        return rest.strip() in target.lower()
    if q in doc.label(node_id).lower() or q in node.type.lower() or q in node_id.lower():
        return True
    return any(q in _text(v).lower() for k, v in node.data.items() if k not in SKIP and k not in ("id", "type"))


def find_nodes(doc, query: str) -> list[str]:
    """Matching node ids in reading order (see the module docstring)."""
    order = {z: k for k, (z, _label) in enumerate(doc.workspaces())}

    def key(i: str):
        if not doc.is_drawn(i):
            return (1, 0, 0.0, 0.0)
        x, y = doc.position(i)
        return (0, order.get(doc.workspace_of(i), 0), round(y / 20), x)

    hits = [i for i in doc.node_ids() if doc.node(i).type != "tab" and node_matches(doc, i, query)]
    return sorted(hits, key=key)
