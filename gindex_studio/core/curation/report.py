"""One curation pass over a workspace: everything ``curate`` prints and the window's views show."""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from gindex_studio.core.benchmark.curriculum import LEAK_THRESHOLD
from gindex_studio.core.curation import analysis as an
from gindex_studio.core.curation.engine import PairEngine
from gindex_studio.core.curation.workspace import Workspace

DEFAULT_DUPLICATES = Fraction(5, 100)
DEFAULT_LEAKS = LEAK_THRESHOLD  # the g-index's leak flag uses the same threshold
DEFAULT_OUTLIERS = Fraction(1, 2)


def engine_for(ws: Workspace, cache=None, cancel=None, digests=None, client=None) -> PairEngine:
    """A ``PairEngine`` over every program of the workspace (indices = item positions);
    ``digests``: the programs' content digests when another engine already has them; with a
    Dask ``client``, one whose batch queries run on that cluster (same values)."""
    flows = [it.flow for it in ws.items]
    if client is not None:
        from gindex_studio.core.curation.cluster import ClusterPairEngine

        return ClusterPairEngine(flows, ws.options, cache, cancel=cancel, digests=digests, client=client)
    return PairEngine(flows, ws.options, cache, cancel=cancel, digests=digests)


@dataclass
class CurationReport:
    duplicates: an.DuplicateReport
    omegas: dict[int, an.Nearest]  # test index -> nearest curriculum program
    leaks: list[an.Leak]
    neighbours: dict[int, an.Neighbours]  # curriculum and test programs
    mislabels: list[an.Neighbours]
    outliers: list[an.Neighbours]
    coverage: list[an.DomainCoverage]
    searched: int  # pairs searched in this pass (the rest: bounds or cache)

    def findings(self) -> "CurationReport":
        """The report without its work counts (``searched``, the duplicates' ``pairs_searched``):
        what two engines must agree on, since how many pairs each searched depends on what it
        knew before (a cluster's workers reuse only the values they found themselves)."""
        return replace(self, searched=None, duplicates=replace(self.duplicates, pairs_searched=None))


def analyse(ws: Workspace, engine: PairEngine, duplicates: Fraction = DEFAULT_DUPLICATES,
            leak_threshold: Fraction = DEFAULT_LEAKS, outlier_threshold: Fraction = DEFAULT_OUTLIERS) -> CurationReport:
    """Duplicate groups among curriculum and test programs, Ω and leaks of the test programs,
    neighbours, likely mislabels, outliers and coverage. Excluded programs take no part."""
    before = engine.stats.searched
    cur, tst = ws.indices("curriculum"), ws.indices("test")
    active = sorted(cur + tst)
    dups = an.duplicate_groups(engine, active, duplicates)
    omegas = an.omega(engine, tst, cur)
    leaks = an.leaks(engine, tst, cur, leak_threshold, omegas)
    nb = an.neighbours(engine, active, ws.domains)
    cov = an.coverage(engine, ws.domains, cur, tst, omegas)
    engine.flush()
    return CurationReport(dups, omegas, leaks, nb, an.mislabels(nb), an.outliers(nb, outlier_threshold), cov,
                          engine.stats.searched - before)


def report_value(ws: Workspace, rep: CurationReport) -> dict:
    """The report as plain JSON-ready data (labels for indices, Δ as floats): what
    ``gindex-studio curate --json`` prints and ``CurationResult.to_dict`` returns."""
    label = lambda i: ws.items[i].label if i is not None else None  # noqa: E731
    f = lambda v: float(v) if v is not None else None  # noqa: E731

    def nb(n):
        return {"program": label(n.index), "domain": ws.items[n.index].domain,
                "same_domain": {"nearest": label(n.same.index), "delta": f(n.same.delta)},
                "other_domain": {"nearest": label(n.other.index), "domain": ws.items[n.other.index].domain
                                 if n.other.index is not None else None, "delta": f(n.other.delta)}}

    dup = rep.duplicates
    return {
        "programs": [{"label": it.label, "domain": it.domain, "role": it.role} for it in ws.items],
        "profile": ws.options.profile.name,
        "duplicates": {
            "threshold": float(dup.threshold), "pairs_total": dup.pairs_total, "pairs_searched": dup.pairs_searched,
            "groups": [{"members": [label(m) for m in g.members], "exact": [label(m) for m in g.exact],
                        "pairs": [{"a": label(a), "b": label(b), "delta": float(v)} for a, b, v in g.pairs]}
                       for g in dup.groups]},
        "leaks": [{"task": label(x.task), "nearest": label(x.nearest), "delta": float(x.delta)} for x in rep.leaks],
        "omega": [{"task": label(t), "omega": f(n.delta), "nearest": label(n.index)} for t, n in rep.omegas.items()],
        "coverage": [c.__dict__ for c in rep.coverage],
        "mislabels": [nb(n) for n in rep.mislabels],
        "outliers": [nb(n) for n in rep.outliers],
        "pairs_searched": rep.searched,
    }
