"""The core calls the studio runs in worker processes (``workers.Worker``), each streaming its
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
  (``analysis.analyse``) without the systems themselves.
"""
from __future__ import annotations

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
    return _light(gi.compute_gindex(experiment, options, workers=workers, listener=_EmitListener(emit)))


def restore_curriculum(result: GIndexResult, experiment, options=None) -> None:
    """Give ``result`` (from ``gindex_job``) its curriculum again, built from ``experiment`` as
    ``compute_gindex`` built it; nothing when it has one or when the experiment's curriculum is not
    the one it was computed on (``recompute_task`` then computes afresh)."""
    st = result._state
    if not st or st.get("curriculum") is not None or st.get("curriculum_key") != gi._curriculum_key(experiment):
        return
    st["curriculum"] = gi._build_curriculum(experiment, gi._options_of(experiment, options))


def companion_job(emit, companion_experiment):
    return gi.compute_companion_gindex(companion_experiment)


def score_systems_job(emit, experiments, workers=1):
    """The g-index of each experiment, in order (the caller holds the experiments already)."""
    out = []
    for k, exp in enumerate(experiments):
        out.append(_light(gi.compute_gindex(exp, workers=workers)))
        emit("stage", ("systems", k + 1, len(experiments)))
    return out


def analyse_job(emit, systems, k):
    """``analyse(systems, k)``, returned without its systems (the caller holds them)."""
    from gindex_studio.core.benchmark.analysis import analyse

    an = analyse(systems, k=k)
    an.systems = []
    return an
