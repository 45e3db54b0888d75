"""The experiment and analysis calls the studio runs in worker processes (``support.workers.Worker``), each streaming its
progress as small events. Every function here is ``fn(emit, *args)``; what it returns is sent
back once, so it leaves out what is large and cheap to rebuild.

- ``gindex_job``: ``compute_gindex`` with a listener; events ``("stage", (name, done, total))``
  (curriculum steps thinned to about a hundred), ``("delta", (index, reports))``,
  ``("task", TaskResult)``. The result comes back without its curriculum (``_state``): the
  curriculum is megabytes that would take the reader most of a second to unpickle;
  ``restore_curriculum`` rebuilds it where an edit needs it.
- ``companion_job``: ``compute_companion_gindex``.
- ``score_systems_job``: the g-index of the Analysis window's experiments (one
  ``("stage", ("systems", k, n))`` per experiment); ``analyse_job``: its numbers
  (``analysis.analyse`` of ``slim_systems``) without the systems themselves.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from gindex_studio.core.benchmark import gindex as gi
from gindex_studio.core.benchmark.gindex import GIndexResult, Listener


class _EmitListener(Listener):
    def __init__(self, emit):
        self.emit = emit

    def stage(self, name, done, total):
        if name != "curriculum" or done == total or done % max(1, total // 100) == 0:
            self.emit("stage", (name, done, total))

    def delta(self, index, reports):
        self.emit("delta", (index, reports))

    def task(self, result):
        self.emit("task", result)


def _light(result: GIndexResult) -> GIndexResult:
    """``result`` without its curriculum (rebuilt on demand by ``restore_curriculum``)."""
    if result._state:
        result._state = {k: v for k, v in result._state.items() if k != "curriculum"}
    return result


def gindex_job(emit, experiment, options, workers):
    return with_interval(_light(gi.compute_gindex(experiment, options, workers=workers, listener=_EmitListener(emit))))


#: where ``with_interval`` keeps a result's bootstrap interval (an attribute beside its fields)
_INTERVAL = "bootstrap_interval_95"


def with_interval(result: GIndexResult) -> GIndexResult:
    """``result`` carrying its 95 % bootstrap interval over tasks (``gindex.bootstrap_interval``
    with its defaults), computed here, off the GUI thread; ``interval_of`` reads it."""
    if len(result.tasks) >= 2:
        result.__dict__[_INTERVAL] = gi.bootstrap_interval(result)
    return result


def interval_of(result: GIndexResult):
    """The result's 95 % bootstrap interval: the one ``with_interval`` computed, else computed now."""
    got = result.__dict__.get(_INTERVAL)
    return got if got is not None else gi.bootstrap_interval(result)


def restore_curriculum(result: GIndexResult, experiment, options=None) -> None:
    """Give ``result`` (from ``gindex_job``) its curriculum again, built from ``experiment`` as
    ``compute_gindex`` built it; nothing when it has one or when the experiment's curriculum is not
    the one it was computed on (``recompute_task`` then computes afresh)."""
    st = result._state
    if not st or st.get("curriculum") is not None or st.get("curriculum_key") != gi._curriculum_key(experiment):
        return
    st["curriculum"] = gi._build_curriculum(experiment, gi._options_of(experiment, options))


def companion_job(emit, companion_experiment):
    return with_interval(gi.compute_companion_gindex(companion_experiment))


def score_systems_job(emit, experiments, workers=1):
    """The g-index of each experiment, in order (the caller holds the experiments already)."""
    out = []
    for k, exp in enumerate(experiments):
        out.append(_light(gi.compute_gindex(exp, workers=workers)))
        emit("stage", ("systems", k + 1, len(experiments)))
    return out


@dataclass
class TaskReference:
    """A task as ``analysis.task_arrays`` reads it: its id and reference program."""

    id: str
    reference: Any


@dataclass
class References:
    """An experiment as ``analysis.task_arrays`` reads it (its tasks' references, for the
    programs' sizes): what ``analyse_job`` is sent instead of the whole experiment (attempts,
    curriculum), which would only cost pickling."""

    tasks: list[TaskReference]


def slim_systems(systems):
    """``systems`` with what ``analysis.analyse`` reads and nothing more: the experiment as
    ``References``, the result without its computation state (the curriculum). The originals
    are not changed."""
    from gindex_studio.core.benchmark.analysis import System

    out = []
    for s in systems:
        exp = None if s.experiment is None else References([TaskReference(t.id, t.reference) for t in s.experiment.tasks])
        res = copy.copy(s.result)
        res._state = {}
        out.append(System(s.label, exp, res))
    return out


def analyse_job(emit, systems, k):
    """``analyse(systems, k)`` (send ``slim_systems``), returned without its systems (the
    caller holds them)."""
    from gindex_studio.core.benchmark.analysis import analyse

    an = analyse(systems, k=k)
    an.systems = []
    return an
