"""Behaviour beside Δ: does a generated program run, and on how many probes does it behave like
the reference. Reported next to the structural numbers (the compare view, ``probe``, ``gindex
--probes``), never folded into Δ, θ or the g-index."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gindex_studio.core.nodered.deploy import RunProblem, Session, node_dicts
from gindex_studio.core.nodered.probe import (RUN_TIMEOUT_S, SETTLE_S, Probe, ProbeOutcome, compare,
                                               default_probes, task_probes)

#: problems after which a program is said not to run (missing node types, a refused deploy, a crash)
NOT_RUNNING = ("missing-type", "refused", "deploy-error", "runtime-crash")


@dataclass
class Behaviour:
    """The outcome of running both programs on the same probes. ``verdict`` / ``reference_verdict``:
    each program's :meth:`core.nodered.probe.RunReport.verdict` ("ran", "does not run",
    "crashed", "timed out")."""

    runs: bool
    agree: int
    probes: int
    outcomes: list[ProbeOutcome] = field(default_factory=list)
    reference_problems: list[RunProblem] = field(default_factory=list)
    generated_problems: list[RunProblem] = field(default_factory=list)
    verdict: str = "ran"
    reference_verdict: str = "ran"

    @property
    def same(self) -> bool:
        """The generated program ran and behaved like the reference on every probe."""
        return self.runs and self.verdict == "ran" and self.agree == self.probes

    @property
    def reference_ran(self) -> bool:
        return self.reference_verdict == "ran"

    def _runs_word(self) -> str:
        return {"ran": "yes", "does not run": "no"}.get(self.verdict, self.verdict)

    def summary(self) -> str:
        """``runs: yes · behaves like the reference on 3 of 4 probes`` (``runs: crashed`` /
        ``timed out`` / ``no``; the reference's own failure said after)."""
        text = (f"runs: {self._runs_word()} · behaves like the reference on {self.agree} of "
                f"{self.probes} probe{'s' if self.probes != 1 else ''}")
        if not self.reference_ran:
            text += f" · the reference {self.reference_verdict.replace('does not run', 'does not run either')}"
        return text

    def cell(self) -> str:
        """A task table cell: ``3/4``; ``no run (1/2)``, ``crashed (0/2)``, ``timed out (1/2)`` for
        a generated program that did not run to its end."""
        counts = f"{self.agree}/{self.probes}"
        if not self.reference_ran:
            return f"reference {self.reference_verdict}"
        return counts if self.verdict == "ran" else f"{'no run' if self.verdict == 'does not run' else self.verdict} " \
                                                     f"({counts})"

    def to_dict(self) -> dict:
        return {"runs": self.runs, "verdict": self.verdict, "reference_verdict": self.reference_verdict,
                "agree": self.agree, "probes": self.probes,
                "outcomes": [o.to_dict() for o in self.outcomes],
                "reference_problems": [p.to_dict() for p in self.reference_problems],
                "generated_problems": [p.to_dict() for p in self.generated_problems]}


def probes_for(reference: Any, timeout: float | None = None) -> list[Probe]:
    """The reference task's written ``probes``, else its default probes. ValueError on bad probes."""
    wrapper = getattr(getattr(reference, "container", None), "wrapper", None)
    written = task_probes(wrapper if wrapper is not None else reference)
    return written if written is not None else default_probes(reference, timeout=timeout)


def behaviour(session: Session, reference: Any, generated: Any, probes: list[Probe] | None = None,
              settle: float = SETTLE_S, timeout: float = RUN_TIMEOUT_S) -> Behaviour:
    """Run both programs on ``probes`` (default :func:`probes_for` the reference) in ``session``,
    each within ``timeout`` seconds (a program that crashes or hangs gets that verdict; the
    runtime is started afresh after it). NodeRedError when the runtime cannot be used at all."""
    probes = probes if probes is not None else probes_for(reference)
    ref, gen = node_dicts(reference), node_dicts(generated)
    if not probes:
        return Behaviour(True, 0, 0)
    outcomes, ref_run, gen_run = compare(session, ref, gen, probes, settle, timeout)
    verdict = gen_run.verdict()
    runs = verdict in ("ran", "timed out") and not any(p.kind in NOT_RUNNING for p in gen_run.problems)
    return Behaviour(runs, sum(o.agrees for o in outcomes), len(outcomes), outcomes, ref_run.problems,
                     gen_run.problems, verdict, ref_run.verdict())
