"""A score's report is built on first access (``ScoreResult.__getattr__``). Two threads may ask
at once (the compare window's GUI thread reads a task's reports while its worker does): seen in
a full run as ``KeyError: '_report_src'`` from the studio's experiment table, on a real X server."""
import random

from gindex_studio.core.scoring import divergence
from gindex_studio.core.scoring.divergence import score
from gindex_studio.core.flows.generate import perturb, random_flow


def test_a_report_built_twice_at_once_is_built(monkeypatch):
    rng = random.Random(2)
    a = random_flow(12, rng, "a")
    r = score(a, perturb(a, rng, 0.3))
    assert "_report_src" in r.__dict__  # not built yet
    real = divergence._report
    nested = []

    def report_while_another_builds_it(*src):
        if not nested:  # the other thread asks too, and finishes first, while this one builds
            nested.append("asked")
            nested.append(getattr(r, "mapping"))
        return real(*src)

    monkeypatch.setattr(divergence, "_report", report_while_another_builds_it)
    errors = r.errors
    assert len(nested) == 2 and isinstance(errors, dict) and "_report_src" not in r.__dict__
