"""Δ between Flatland programs (the ``flatland`` profile) and drawing them for comparison.

``score(reference, generated)`` is ``divergence.score`` on the programs' flows under the flatland
profile: the project's exact maximum common subgraph search with typed (port-aware) edges,
cycles allowed, graded weights from ``weights``. ``draw(program)`` runs and rasterises.
"""
from __future__ import annotations

import numpy as np

from ..divergence import ScoreOptions, ScoreResult
from ..divergence import score as _score
from .program import FlatProgram
from .render import rasterise
from .run import execute

OPTIONS = ScoreOptions(profile="flatland")


def score(reference: FlatProgram, generated: FlatProgram, deadline: float | None = None) -> ScoreResult:
    """The full score report of ``generated`` against ``reference`` (exact unless ``deadline``)."""
    opts = OPTIONS if deadline is None else ScoreOptions(profile="flatland", deadline=deadline)
    return _score(reference.to_flow(), generated.to_flow(), opts)


def delta(reference: FlatProgram, generated: FlatProgram) -> float:
    """Just Δ, exact."""
    return score(reference, generated).delta


def draw(program: FlatProgram) -> np.ndarray:
    """The 128×128 boolean drawing of ``program`` (see ``run.execute`` for the guard)."""
    return rasterise(execute(program).segments)
