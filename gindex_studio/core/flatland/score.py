"""Δ between Flatland programs (the ``flatland`` profile) and drawing them for comparison.

``score(reference, generated)`` is ``divergence.score`` on the programs' flows under the flatland
profile (their ``Prepared`` made straight from the programs by ``prepare_program``): the
project's exact maximum common subgraph search with typed (port-aware) edges, cycles allowed,
graded weights from ``weights``. ``draw(program)`` runs and rasterises.
"""
from __future__ import annotations

import numpy as np

from ..divergence import Prepared, ScoreOptions, ScoreResult, _flatland_loops_only, prepare, score_prepared
from ..matching import Graph
from ..similarity import IGNORED as _IGNORED, flatland_signature
from .program import FlatProgram
from .render import rasterise
from .run import execute

OPTIONS = ScoreOptions(profile="flatland")


def score(reference: FlatProgram, generated: FlatProgram, deadline: float | None = None) -> ScoreResult:
    """The full score report of ``generated`` against ``reference`` (exact unless ``deadline``)."""
    opts = OPTIONS if deadline is None else ScoreOptions(profile="flatland", deadline=deadline)
    return score_prepared(prepare_program(reference), prepare_program(generated), opts)


def prepare_program(program: FlatProgram) -> Prepared:
    """``divergence.prepare(program.to_flow(), OPTIONS)`` without building the Flow: the same
    Prepared, made from the nodes directly when the program is plain (each key its node's string
    id, string types, every target a node, no parameter named like a structure or layout key, no
    cycle but through loop bodies); anything else goes the general way, which reports it."""
    nodes = program.nodes
    index: dict[str, int] = {}
    for key, n in nodes.items():
        if type(key) is not str or n.id != key or type(n.type) is not str:
            return prepare(program.to_flow(), OPTIONS)
        index[key] = len(index)
    n_nodes = len(index)
    if not n_nodes:
        return prepare(program.to_flow(), OPTIONS)
    sigs = []
    types = []
    out: list[dict[int, int]] = [{} for _ in range(n_nodes)]
    inn: list[dict[int, int]] = [{} for _ in range(n_nodes)]
    back = []
    for k, n in enumerate(nodes.values()):
        params = n.params
        if not _IGNORED.isdisjoint(params):
            return prepare(program.to_flow(), OPTIONS)
        sigs.append(flatland_signature(n.type, {p: list(v) if isinstance(v, tuple) else v for p, v in params.items()}))
        types.append({"type": n.type})
        outs = n.targets.get("out", [])
        for port, targets in enumerate((outs, n.targets.get("body", [])) if n.type == "loop" else (outs,)):
            for t in targets:
                j = index.get(t) if type(t) is str else None
                if j is None:  # a dangling or non-string target: a reader warning, the general way
                    return prepare(program.to_flow(), OPTIONS)
                if j <= k:
                    back.append((k, j))
                if j == k or (port == 1 and t in outs):
                    continue  # as prepare under the flatland profile: no self-loops; out and body to one target: out
                a = out[k]
                a[port] = a.get(port, 0) | (1 << j)
                a = inn[j]
                a[port] = a.get(port, 0) | (1 << k)
    if back and not _flatland_loops_only(types, out, back):
        return prepare(program.to_flow(), OPTIONS)  # a cycle that is not a loop's: its warning
    n_edges = sum(m.bit_count() for ports in out for m in ports.values())
    return Prepared(Graph(list(index), sigs, out, inn, [frozenset()] * n_nodes, n_edges), [], True)


def delta(reference: FlatProgram, generated: FlatProgram) -> float:
    """Just Δ, exact."""
    return score(reference, generated).delta


def draw(program: FlatProgram) -> np.ndarray:
    """The 128×128 boolean drawing of ``program`` (see ``run.execute`` for the guard)."""
    return rasterise(execute(program).segments)
