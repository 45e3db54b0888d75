"""Δ between Flatland programs (the ``flatland`` profile) and drawing them for comparison.

``score(reference, generated)`` is ``divergence.score`` on the programs' flows under the flatland
profile (their ``Prepared`` made straight from the programs by ``prepare_program``): the
project's exact maximum common subgraph search with typed (port-aware) edges, cycles allowed,
graded weights from ``weights``. ``draw(program)`` runs and rasterises.
"""
from __future__ import annotations

import numpy as np

from gindex_studio.core.flows.checks import closes_cycle
from gindex_studio.core.scoring.divergence import (
    Prepared,
    ScoreOptions,
    ScoreResult,
    prepare,
    score_prepared,
)
from gindex_studio.core.scoring.matching import Graph
from gindex_studio.core.scoring.similarity import IGNORED as _IGNORED
from gindex_studio.core.flatland.profile import FLATLAND, NODE_TYPES as _FLATLAND_TYPES, flatland_signature
from gindex_studio.core.flatland.program import FlatProgram
from gindex_studio.core.flatland.render import rasterise
from gindex_studio.core.flatland.run import execute

OPTIONS = ScoreOptions(profile=FLATLAND)


def score(reference: FlatProgram, generated: FlatProgram, deadline: float | None = None) -> ScoreResult:
    """The full score report of ``generated`` against ``reference`` (exact unless ``deadline``)."""
    opts = OPTIONS if deadline is None else ScoreOptions(profile=FLATLAND, deadline=deadline)
    return score_prepared(prepare_program(reference), prepare_program(generated), opts)


def prepare_program(program: FlatProgram) -> Prepared:
    """``divergence.prepare(program.to_flow(), OPTIONS)`` without building the Flow: the same
    Prepared, made from the nodes directly when the program is plain (each key its node's string
    id, a Flatland type, every target a node, no parameter named like a structure or layout key, no
    cycle but through loop bodies); anything else goes the general way, which reports it."""
    nodes = program.nodes
    index: dict[str, int] = {}
    for key, n in nodes.items():
        if type(key) is not str or n.id != key or type(n.type) is not str or n.type not in _FLATLAND_TYPES:
            return prepare(program.to_flow(), OPTIONS)
        index[key] = len(index)
    n_nodes = len(index)
    if not n_nodes:
        return prepare(program.to_flow(), OPTIONS)
    sigs = []
    out: list[dict[int, int]] = [{} for _ in range(n_nodes)]
    inn: list[dict[int, int]] = [{} for _ in range(n_nodes)]
    back = []  # out-port wires (k, j) with j < k
    n_edges = 0
    for k, n in enumerate(nodes.values()):
        params = n.params
        if not _IGNORED.isdisjoint(params):
            return prepare(program.to_flow(), OPTIONS)
        sigs.append(_signature(n.type, params))
        outs = n.targets.get("out", ())
        for port, targets in enumerate((outs, n.targets.get("body", ())) if n.type == "loop" else (outs,)):
            for t in targets:
                j = index.get(t) if type(t) is str else None
                if j is None:  # a dangling or non-string target: a reader warning, the general way
                    return prepare(program.to_flow(), OPTIONS)
                if j <= k:
                    if j == k:
                        return prepare(program.to_flow(), OPTIONS)  # a self-loop: its warning
                    if port == 0:
                        back.append((k, j))
                if port == 1 and t in outs:
                    continue  # as prepare under the flatland profile: out and body to one target: out
                a = out[k]
                m = a.get(port, 0)
                if not m >> j & 1:
                    a[port] = m | (1 << j)
                    n_edges += 1
                    b = inn[j]
                    b[port] = b.get(port, 0) | (1 << k)
    # (only loops have a body port, and cycle_problems leaves it out)
    if back and closes_cycle([m.get(0, 0) for m in out], back):
        return prepare(program.to_flow(), OPTIONS)  # a cycle that is not a loop's: its warning
    return Prepared(Graph(list(index), sigs, out, inn, [frozenset()] * n_nodes, n_edges), [], True)


_SIGS: dict[tuple, object] = {}
_SIGS_LIMIT = 100_000
_PLAIN = frozenset({int, float, str, bool, type(None)})


def _signature(type_: str, params: dict):
    """``flatland_signature`` of a node's type and parameters (tuples as lists), shared by nodes
    with equal content: the key holds each value's type too (and a list's or tuple's items'), so
    1, 1.0 and True stay apart; values nested deeper are not cached."""
    key = []
    for p, v in params.items():
        tv = type(v)
        if tv is list or tv is tuple:
            if not all(type(x) in _PLAIN for x in v):
                key = None
                break
            key.append((p, tv, tuple(v), tuple(map(type, v))))
        elif tv in _PLAIN:
            key.append((p, tv, v))
        else:
            key = None
            break
    if key is not None:
        key = (type_, *key)
        sig = _SIGS.get(key)
        if sig is not None:
            return sig
    sig = flatland_signature(type_, {p: list(v) if isinstance(v, tuple) else v for p, v in params.items()})
    if key is not None:
        if len(_SIGS) >= _SIGS_LIMIT:
            _SIGS.clear()
        _SIGS[key] = sig
    return sig


def delta(reference: FlatProgram, generated: FlatProgram) -> float:
    """Just Δ, exact."""
    return score(reference, generated).delta


def draw(program: FlatProgram) -> np.ndarray:
    """The 128×128 boolean drawing of ``program`` (see ``run.execute`` for the guard)."""
    return rasterise(execute(program).segments)
