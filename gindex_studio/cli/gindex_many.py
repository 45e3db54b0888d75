"""``gindex-studio gindex EXPERIMENT EXPERIMENT…`` (or a folder, or a study): one table of systems,
sorted by g-index, as the companion's CLI prints for its ``experiments/`` folder; ``--json`` gives
the list of the single-experiment results. Every file is read (and refused when it cannot be
scored) before any search starts; a curriculum the experiments share is prepared and searched
once (``SharedOmega``; the companion's dd once for all its experiments)."""
from __future__ import annotations

from gindex_studio.cli.common import InputError, json_out, table


def run_many(args) -> int:
    from gindex_studio.cli.cluster import cluster
    from gindex_studio.cli.gindex_scoring import ready, scored, warn_about_edits
    from gindex_studio.cli.options import refuse_companion_too_big
    from gindex_studio.core.benchmark.analysis import open_companion, score_companion
    from gindex_studio.core.benchmark.experiment import ExperimentError
    from gindex_studio.core.benchmark.gindex import SharedOmega
    from gindex_studio.core.benchmark.study import open_inputs

    if args.probes:
        raise InputError("--probes runs one experiment's programs: give one experiment file")
    try:
        if args.domains:
            pairs = open_companion(args.experiments, args.domains)
            _refuse_empty(pairs, args)
            for _label, cexp in pairs:
                refuse_companion_too_big(cexp, args)
            systems = score_companion(pairs, symmetrise_in_directory_order=args.symmetrise_directory_order,
                                      leave_self_out=args.leave_self_out)
            rows = [(s.label, cexp.path, s.result) for s, (_l, cexp) in zip(systems, pairs)]
        else:
            _name, pairs = open_inputs(args.experiments)
            _refuse_empty(pairs, args)
            opened = [(label, *ready(exp, args)) for label, exp in pairs]
            shared = SharedOmega()
            rows = []
            with cluster(args) as client:
                for k, (label, exp, edited, opts) in enumerate(opened):
                    _say_which(args, k, len(opened), label)
                    result = scored(exp, opts, args, client, shared)
                    warn_about_edits(result, edited, args.use_edited)
                    rows.append((label, exp.path, result))
    except ExperimentError as e:
        raise InputError(str(e)) from None
    rows.sort(key=lambda r: -r[2].g_index)
    if args.json:
        json_out([{"label": label, "file": str(path), "samples": samples(r), "compute": compute(r), **r.to_dict()}
                  for label, path, r in rows])
        return 0
    print(format_systems(rows))
    return 0


def _refuse_empty(pairs, args) -> None:
    if not pairs:
        raise InputError(f"{', '.join(args.experiments)}: no experiment file (*.json) found")


def _say_which(args, k: int, n: int, label: str) -> None:
    from gindex_studio.cli import progress

    if progress.wanted(args):
        progress.say(f"experiment {k + 1} of {n}: {label}")


def samples(result) -> int:
    """Training samples of all curriculum domains (the companion's "Total Curricula Samples")."""
    return sum(d.samples for d in result.domains)


def compute(result) -> float | None:
    """The compute every curriculum domain was trained with; None when the domains differ."""
    values = {d.compute for d in result.domains}
    return values.pop() if len(values) == 1 else None


def format_systems(rows) -> str:
    """The table of systems (label, file, GIndexResult), in the given order, and the warnings
    under it, each naming its systems."""
    from gindex_studio.cli.gindex_scoring import COMPANION_LEAK_NOTE

    companion = any(r.mode != "tasks" for _l, _p, r in rows)
    body = table(
        [(label, str(path), samples(r), "varies" if compute(r) is None else compute(r), f"{r.rho:g}", len(r.tasks),
          r.theta_mean, r.g_index, f"{r.g_index_rounded:.3f}", r.profile,
          "?" if r.mode != "tasks" else len(r.leaks), "yes" if r.exact else "no")
         for label, path, r in rows],
        ("system", "experiment", "samples", "compute", "ρ", "tasks", "mean θ", "g-index", "rounded", "profile",
         "leaks", "exact"),
        [False, False, True, True, True, True, True, True, True, False, True, False])
    lines = [f"{len(rows)} systems, sorted by g-index", "", body]
    if companion:
        lines += ["", COMPANION_LEAK_NOTE]
    return "\n".join(lines + warnings(rows))


def warnings(rows) -> list[str]:
    """Each distinct warning once, with the systems it is about ("all N systems" when every one)."""
    about: dict[str, list[str]] = {}
    for label, _p, r in rows:
        for w in r.warnings:
            about.setdefault(w, []).append(label)
    return [f"warning: {w} ({'all ' + str(len(rows)) + ' systems' if len(who) == len(rows) > 1 else ', '.join(who)})"
            for w, who in about.items()]
