"""Anytime scoring (the compare view's policy): a short deadline-bounded search first, exact for
everything small; when that one was cut, it is shown at once and the full search runs on,
warm-started from its mapping. Pure core: the runner that calls it is the UI's.
"""
from __future__ import annotations

from dataclasses import replace

from gindex_studio.core.scoring.divergence import ScoreOptions, ScoreResult, score

#: seconds for the first, anytime pass (most programs of up to ~60 nodes finish exactly in it)
QUICK_DEADLINE = 0.04


def score_anytime(reference, generated, options: ScoreOptions, syntax=None, warm=(),
                  quick: float | None = None):
    """A job for a latest-wins runner: returns ``fn(partial, stale) -> ScoreResult``; ``partial(result)``
    receives the anytime result when the first pass was cut, ``stale()`` says a newer request came (a
    token with ``is_set`` also stops the search). ``quick``:
    seconds for the anytime pass (default ``QUICK_DEADLINE``)."""
    if quick is None:
        quick = QUICK_DEADLINE

    def fn(partial, stale) -> ScoreResult:
        cancel = stale if hasattr(stale, "is_set") else None  # a newer edit stops the search
        if options.deadline is not None and options.deadline <= quick:
            return score(reference, generated, options, syntax=syntax, warm=warm, cancel=cancel)
        first = score(reference, generated, replace(options, deadline=quick), syntax=syntax, warm=warm,
                      cancel=cancel)
        if first.exact:
            first.options = options.to_dict()
            return first
        if stale():
            return first
        partial(first)
        if stale():
            return first
        return score(reference, generated, options, syntax=syntax, cancel=cancel,
                     warm=[(p.reference, p.generated) for p in first.mapping])

    return fn
