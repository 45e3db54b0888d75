"""Behaviour beside Δ: does a generated program run, and on how many probes does it behave like
the reference. Reported next to the structural numbers (the compare view, ``probe``, ``gindex
--probes``), never folded into Δ, θ or the g-index."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gindex_studio.core.nodered.deploy import RunProblem, Session, node_dicts
from gindex_studio.core.nodered.probe import Probe, ProbeOutcome, compare, default_probes, task_probes

#: problems after which a program is said not to run (missing node types, a refused deploy, a crash)
NOT_RUNNING = ("missing-type", "refused", "deploy-error", "runtime-crash")


@dataclass
class Behaviour:
    """The outcome of running both programs on the same probes."""

    runs: bool
    agree: int
    probes: int
    outcomes: list[ProbeOutcome] = field(default_factory=list)
    reference_problems: list[RunProblem] = field(default_factory=list)
    generated_problems: list[RunProblem] = field(default_factory=list)

    def summary(self) -> str:
        """``runs: yes · behaves like the reference on 3 of 4 probes``."""
        return (f"runs: {'yes' if self.runs else 'no'} · behaves like the reference on {self.agree} of "
                f"{self.probes} probe{'s' if self.probes != 1 else ''}")

    def cell(self) -> str:
        """A task table cell: ``3/4``, or ``no run`` when the generated program does not run."""
        return f"{self.agree}/{self.probes}" if self.runs else f"no run ({self.agree}/{self.probes})"

    def to_dict(self) -> dict:
        return {"runs": self.runs, "agree": self.agree, "probes": self.probes,
                "outcomes": [o.to_dict() for o in self.outcomes],
                "reference_problems": [p.to_dict() for p in self.reference_problems],
                "generated_problems": [p.to_dict() for p in self.generated_problems]}


def probes_for(reference: Any, timeout: float = 5.0) -> list[Probe]:
    """The reference task's written ``probes``, else its default probes. ValueError on bad probes."""
    wrapper = getattr(getattr(reference, "container", None), "wrapper", None)
    written = task_probes(wrapper if wrapper is not None else reference)
    return written if written is not None else default_probes(reference, timeout=timeout)


def behaviour(session: Session, reference: Any, generated: Any, probes: list[Probe] | None = None) -> Behaviour:
    """Run both programs on ``probes`` (default :func:`probes_for` the reference) in ``session``.
    NodeRedError when the runtime fails."""
    probes = probes if probes is not None else probes_for(reference)
    ref, gen = node_dicts(reference), node_dicts(generated)
    if not probes:
        return Behaviour(True, 0, 0)
    outcomes, ref_run, gen_run = compare(session, ref, gen, probes)
    runs = not any(p.kind in NOT_RUNNING for p in gen_run.problems)
    return Behaviour(runs, sum(o.agrees for o in outcomes), len(outcomes), outcomes, ref_run.problems,
                     gen_run.problems)
