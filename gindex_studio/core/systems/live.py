"""A run's answers scored as they arrive: each task's Δ, θ, Ω and TC once all its attempts are
answered, and the running g-index (the mean TC of the tasks scored so far).

Ω depends on the tasks' references and the curriculum only, so it is computed once, on the run's
placeholder experiment (``run.placeholder_experiment``), before the first answer; each task is
then scored on its answers alone (``gindex.score_task_anew``). An attempt answered with an error
is scored as the empty answer, as ``run.write_experiment`` writes it. Once every task is scored,
``g_index`` is the g-index ``compute_gindex`` gives the written experiment. Pure Python, no Qt;
used from one thread at a time.
"""
from __future__ import annotations

from gindex_studio.core.benchmark.experiment import Attempt, Experiment, Source
from gindex_studio.core.benchmark.gindex import GIndexResult, TaskResult, compute_gindex, g_index_of, score_task_anew
from gindex_studio.core.flows.reading import read_generated_text


class LiveScores:
    """The scores of one run's tasks (by experiment task index) as they are answered."""

    def __init__(self, placeholder: Experiment, attempts: int, cancel=None):
        """Computes Ω of every task of ``placeholder`` (raises ``Cancelled`` once ``cancel`` is set)."""
        self.experiment = placeholder
        self.attempts = attempts
        self.base: GIndexResult = compute_gindex(placeholder, workers=1, cancel=cancel)
        self.results: dict[int, TaskResult] = {}
        self._index = {t.id: j for j, t in enumerate(placeholder.tasks)}

    def score(self, task_id: str, answered: dict[tuple[str, int], dict], cancel=None) -> TaskResult | None:
        """Task ``task_id`` scored on its answer records in ``answered`` ((task, attempt) → record),
        or None while an attempt has no record yet. A task scored again replaces its result. Each
        Δ is searched exactly (as ``gindex`` scores the written experiment), so a large answer can
        take long: it raises ``Cancelled`` once ``cancel`` is set, the task left unscored."""
        recs = [answered.get((task_id, i)) for i in range(self.attempts)]
        if any(r is None for r in recs):
            return None
        profile = self.experiment.options.profile
        attempts = []
        for r in recs:
            text = r.get("text") if r.get("error") is None else ""
            read = read_generated_text(text if isinstance(text, str) else "", profile)
            attempts.append(Attempt(read.flow, Source("text"), read.syntax, read.text))
        j = self._index[task_id]
        result = score_task_anew(self.base, self.experiment, j, attempts, cancel=cancel)
        self.results[j] = result
        return result

    @property
    def g_index(self) -> float | None:
        """The mean TC of the tasks scored so far, in task order (None before the first)."""
        if not self.results:
            return None
        return g_index_of([self.results[j].tc for j in sorted(self.results)])
