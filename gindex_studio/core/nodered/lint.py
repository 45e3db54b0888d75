"""nrlint's rules on a flow: ``lint_flows`` runs the nrlint installed with Node-RED (through
``resources/nodered/lint.js``, one Node.js process for every flow of a call) and returns its
findings per node.

Which rules run is a set of rule names (:data:`DEFAULT_RULES` when not given; :func:`parse_rules`
reads ``"no-loops,-align-to-grid"``). Results are cached per flow content, rule set and install,
in memory and as small JSON files in ``<Node-RED home>/lint-cache`` (a damaged file is relinted),
so a flow already linted costs no Node.js start. Errors are :class:`LintError` with one line.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from gindex_studio.core.nodered.deploy import WORKSPACES, node_dicts
from gindex_studio.core.nodered.install import LOCK_DIR, Progress, ensure_installed, home, install_dir, node_version

SCRIPT = LOCK_DIR / "lint.js"
#: nrlint 1.2.0's rules (the pinned version) with what each checks
RULES: dict[str, str] = {
    "function-eslint": "run eslint on Function nodes",
    "no-loops": "ensure there are no loops in the flows",
    "no-duplicate-http-in-urls": "ensure all HTTP In nodes have a unique URL property",
    "no-unconnected-http-nodes": "ensure all HTTP In nodes reach an HTTP Response node",
    "no-unnamed-functions": "ensure all Function nodes have a name",
    "no-unnamed-links": "ensure all Links nodes have a name",
    "max-flow-size": "limit the number of nodes on any one flow",
    "no-overlapping-nodes": "ensure no nodes overlap",
    "align-to-grid": "ensure nodes are aligned to the grid",
}
#: on unless turned off: every rule about what a flow does; the layout rules (grid, overlap) and
#: the naming rules are off, since generated programs are rarely laid out or named by hand
DEFAULT_RULES: frozenset[str] = frozenset({"function-eslint", "no-loops", "no-duplicate-http-in-urls",
                                           "no-unconnected-http-nodes", "max-flow-size"})
TIMEOUT_S = 120.0
#: the largest flow linted unless the caller raises it: nrlint's eslint costs 5-10 ms per Function
#: node (2,000 unconnected ones took 18-20 s, 20,000 took 93 s), and its loop check overflows
#: Node.js's stack on a chain of ~8,000 nodes. Five times nrlint's own max-flow-size default (100);
#: the benchmark's programs have tens of nodes.
MAX_NODES = 500
_MEMORY: dict[str, list["LintProblem"]] = {}


class LintError(Exception):
    """nrlint cannot run; the message is one line for the user."""


class FlowTooLarge(LintError):
    """Flow ``index`` (0-based) has ``nodes`` nodes, over ``limit``: refused before nrlint runs."""

    def __init__(self, index: int, nodes: int, limit: int, of: int):
        self.index, self.nodes, self.limit = index, nodes, limit
        which = f"flow {index + 1} has" if of > 1 else "the flow has"
        super().__init__(f"{which} {nodes:,} nodes; nrlint is run on flows of at most {limit:,} "
                         f"(its eslint takes 5-10 ms per Function node and its loop check fails on long chains)")


@dataclass(frozen=True)
class LintProblem:
    """One nrlint finding: ``nodes`` are the file's node ids it is about (empty: the whole flow)."""

    rule: str
    severity: str  # "warn" or "error"
    message: str
    nodes: tuple[str, ...] = ()

    @property
    def node_id(self) -> str | None:
        return self.nodes[0] if self.nodes else None

    def line(self) -> str:
        where = f"node {self.node_id}: " if self.node_id else ""
        return f"lint {self.rule} ({self.severity}): {where}{self.message}"

    def to_dict(self) -> dict:
        return {"rule": self.rule, "severity": self.severity, "message": self.message, "nodes": list(self.nodes)}

    @classmethod
    def from_dict(cls, d: dict) -> "LintProblem":
        return cls(str(d["rule"]), str(d["severity"]), str(d["message"]), tuple(str(x) for x in d["nodes"]))


def parse_rules(text: str | None) -> frozenset[str]:
    """Rules from ``"all"``, ``"none"``, ``"default"`` or a comma list where ``name`` adds, ``-name``
    removes (starting from the default set when the list begins with ``+``/``-``, else from nothing).
    ValueError naming an unknown rule."""
    text = (text or "default").strip()
    if text in ("default", ""):
        return DEFAULT_RULES
    if text == "all":
        return frozenset(RULES)
    if text == "none":
        return frozenset()
    items = [t.strip() for t in text.split(",") if t.strip()]
    out = set(DEFAULT_RULES) if items and items[0][0] in "+-" else set()
    for item in items:
        name = item.lstrip("+-")
        if name not in RULES:
            raise ValueError(f"unknown nrlint rule {name!r} (rules: {', '.join(RULES)})")
        (out.discard if item.startswith("-") else out.add)(name)
    return frozenset(out)


def lintable(nodes: list[dict]) -> tuple[list[dict], set[str]]:
    """The flow as nrlint reads it: every node on a tab (nrlint skips nodes whose tab is missing),
    and the ids of the tabs added here (findings about them are about the whole flow)."""
    tabs = {n["id"] for n in nodes if n["type"] in ("tab", "subflow")}
    added: list[dict] = []
    default = None
    out = []
    for n in nodes:
        d = dict(n)
        if d["type"] not in WORKSPACES:
            z = d.get("z")
            if isinstance(z, str) and z and z not in tabs:
                tabs.add(z)
                added.append({"id": z, "type": "tab", "label": "Flow"})
            elif not z and ("wires" in d or "x" in d):
                if default is None:
                    default = "gindex-lint-tab"
                    added.append({"id": default, "type": "tab", "label": "Flow"})
                d["z"] = default
        out.append(d)
    return added + out, {t["id"] for t in added}


def _key(nodes: list[dict], rules: frozenset[str], folder: Path, script: bytes) -> str:
    h = hashlib.sha256()
    h.update(folder.name.encode())
    h.update(script)
    h.update(json.dumps(sorted(rules)).encode())
    h.update(json.dumps(nodes, sort_keys=True, ensure_ascii=False, default=str).encode())
    return h.hexdigest()


def cache_dir() -> Path:
    return home() / "lint-cache"


def _read_cache(key: str) -> list[LintProblem] | None:
    if key in _MEMORY:
        return _MEMORY[key]
    try:
        raw = json.loads((cache_dir() / f"{key}.json").read_text(encoding="utf-8"))
        found = [LintProblem.from_dict(d) for d in raw]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    _MEMORY[key] = found
    return found


def _write_cache(key: str, found: list[LintProblem]) -> None:
    _MEMORY[key] = found
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump([p.to_dict() for p in found], f)
        os.replace(tmp, folder / f"{key}.json")
    except OSError:
        pass  # a cache that cannot be written only costs a relint


def lint_flows(sources: Iterable[Any], rules: Iterable[str] | None = None, progress: Progress | None = None,
               use_cache: bool = True, max_nodes: int = MAX_NODES) -> list[list[LintProblem]]:
    """nrlint's findings for each flow (any shape :func:`node_dicts` reads), in order. Flows in the
    cache are not linted again; the rest go to one Node.js process. Installs Node-RED (and nrlint)
    first when needed. :class:`FlowTooLarge` when a flow has more than ``max_nodes`` nodes (checked
    before anything runs), or when Node.js, the install or nrlint fails."""
    from gindex_studio.core.nodered.install import InstallError

    chosen = frozenset(DEFAULT_RULES if rules is None else rules)
    unknown = sorted(chosen - set(RULES))
    if unknown:
        raise LintError(f"unknown nrlint rule {unknown[0]!r} (rules: {', '.join(RULES)})")
    flows = [node_dicts(s) for s in sources]
    for k, nodes in enumerate(flows):
        if len(nodes) > max_nodes:
            raise FlowTooLarge(k, len(nodes), max_nodes, len(flows))
    if not chosen:
        return [[] for _ in flows]
    where = install_dir()  # reads the lock file: once per call
    script = SCRIPT.read_bytes()
    keys = [_key(f, chosen, where, script) for f in flows]
    out: list[list[LintProblem] | None] = [(_read_cache(k) if use_cache else None) for k in keys]
    todo = [k for k, found in enumerate(out) if found is None]
    if todo:
        try:
            folder = ensure_installed(progress)
            node, _ = node_version()
        except InstallError as e:
            raise LintError(str(e)) from None
        prepared = [lintable(flows[k]) for k in todo]
        answer = _run(node, folder, [p[0] for p in prepared], chosen)
        for k, (nodes, added), results in zip(todo, prepared, answer):
            found = _findings(results, added, flows[k])
            out[k] = found
            _write_cache(keys[k], found)
    return [list(f or []) for f in out]


def lint(source: Any, rules: Iterable[str] | None = None, use_cache: bool = True) -> list[LintProblem]:
    """nrlint's findings for one flow (see :func:`lint_flows`)."""
    return lint_flows([source], rules, use_cache=use_cache)[0]


def _run(node: str, folder: Path, flows: list[list[dict]], rules: frozenset[str]) -> list[list[dict]]:
    request = json.dumps({"rules": {r: True for r in sorted(rules)}, "flows": flows}, default=str)
    try:
        proc = subprocess.run([node, str(SCRIPT), str(folder)], input=request, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise LintError(f"nrlint did not finish within {TIMEOUT_S:.0f} s") from None
    except OSError as e:
        raise LintError(f"Node.js does not run nrlint: {e}") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise LintError(f"nrlint failed (exit {proc.returncode}): {last[:300]}")
    try:
        results = json.loads(proc.stdout)["results"]
    except (ValueError, KeyError, TypeError):
        raise LintError(f"nrlint answered something unreadable: {proc.stdout[:200]!r}") from None
    if len(results) != len(flows):
        raise LintError(f"nrlint answered for {len(results)} flows, not {len(flows)}")
    return results


def _findings(results: list[dict], added_tabs: set[str], nodes: list[dict]) -> list[LintProblem]:
    ids = {n["id"] for n in nodes}
    out = []
    for r in results:
        if "error" in r:
            out.append(LintProblem("nrlint", "error", f"nrlint could not read the flow: {r['error']}"))
            continue
        where = tuple(i for i in r.get("location", []) if i in ids and i not in added_tabs)
        out.append(LintProblem(str(r["rule"]), str(r.get("severity") or "warn"), str(r["message"]), where))
    return out
