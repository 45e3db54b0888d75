"""Copy and paste as Node-RED JSON (pure Python; the editor moves the text to the clipboard).

Copy gives a JSON array Node-RED's import dialog accepts: the selected nodes with ``x``/``y``,
wires only between copied nodes. Paste reads Node-RED JSON strictly, else model output leniently;
every pasted node gets a fresh id, wires and references (``z``, ``g``, config ids) are remapped,
wires to nodes that were not pasted are dropped.
"""
from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import orjson

from gindex_studio.core.flows.flow import FlowError, flow_from_value, loads_json, normalise_wires
from gindex_studio.core.flows.lenient import SyntaxIssue, read_model_output


def export_nodes(nodes: Iterable[dict[str, Any]], positions: Callable[[str], tuple[float, float]] | None = None) -> str:
    """Node-RED JSON text for these node dicts (wires kept only between them)."""
    nodes = [copy.deepcopy(n) for n in nodes]
    ids = {n["id"] for n in nodes}
    for n in nodes:
        if "wires" in n:
            n["wires"] = [[t for t in p if t in ids] for p in normalise_wires(n["wires"])]
        if positions is not None and not _has_xy(n) and n.get("type") != "tab":
            x, y = positions(n["id"])
            n["x"], n["y"] = round(x), round(y)
    return orjson.dumps(nodes, option=orjson.OPT_INDENT_2).decode()


def _has_xy(n: dict) -> bool:
    return all(isinstance(n.get(k), (int, float)) and not isinstance(n.get(k), bool) for k in ("x", "y"))


@dataclass
class Pasted:
    nodes: list[dict[str, Any]] = field(default_factory=list)
    syntax: SyntaxIssue | None = None
    error: str = ""


def parse_paste(text: str) -> Pasted:
    """Nodes in ``text``: strict Node-RED JSON, else lenient model-output reading."""
    try:
        flow = flow_from_value(loads_json(text))
        return Pasted([n.data for n in flow.nodes])
    except (ValueError, FlowError):
        pass
    read = read_model_output(text)
    nodes = [n.data for n in read.flow.nodes]
    err = "" if nodes else (read.syntax.message if read.syntax else "no nodes found")
    return Pasted(nodes, read.syntax, err)


def remap_nodes(
    nodes: list[dict[str, Any]],
    taken: set[str],
    workspace: str | None,
    known_workspaces: set[str],
    at: tuple[float, float] | None = None,
) -> list[dict[str, Any]]:
    """Fresh ids, remapped references, pasted into ``workspace`` and moved so their centre is ``at``."""
    nodes = [copy.deepcopy(n) for n in nodes]
    mapping: dict[str, str] = {}
    used = set(taken)
    for n in nodes:
        old = n["id"]
        if old in mapping:
            continue
        new = secrets.token_hex(8)
        while new in used:
            new = secrets.token_hex(8)
        used.add(new)
        mapping[old] = new
    pasted_tabs = {mapping[n["id"]] for n in nodes if n.get("type") == "tab"}
    seen: set[str] = set()
    out = []
    for n in nodes:
        if n["id"] in seen:  # duplicates inside the paste: keep the first
            continue
        seen.add(n["id"])
        for k, v in list(n.items()):
            if k in ("id", "wires"):
                continue
            if isinstance(v, str) and v in mapping:
                n[k] = mapping[v]
        n["id"] = mapping[n["id"]]
        if "wires" in n:
            n["wires"] = [[mapping[t] for t in p if t in mapping] for p in normalise_wires(n["wires"])]
        if n.get("type") != "tab":
            z = n.get("z")
            if not (isinstance(z, str) and (z in pasted_tabs or z in known_workspaces)):
                if workspace:
                    n["z"] = workspace
                else:
                    n.pop("z", None)
        out.append(n)
    if at is not None:
        placed = [n for n in out if _has_xy(n)]
        if placed:
            cx = sum(n["x"] for n in placed) / len(placed)
            cy = sum(n["y"] for n in placed) / len(placed)
            dx, dy = at[0] - cx, at[1] - cy
            for n in placed:
                n["x"], n["y"] = round(n["x"] + dx), round(n["y"] + dy)
        k = 0
        for n in out:
            if not _has_xy(n) and n.get("type") != "tab":
                n["x"], n["y"] = round(at[0] + 160 * (k % 5)), round(at[1] + 60 * (k // 5))
                k += 1
    return out
