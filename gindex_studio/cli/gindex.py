"""``gindex-studio gindex EXPERIMENT``: the g-index of an experiment (gindex-studio's format, or the
companion's with ``--domains``), with its curriculum terms, task table and leaks."""
from __future__ import annotations

import argparse

from gindex_studio.cli.cluster import add_cluster, cluster, workers_read_files
from gindex_studio.cli.common import InputError, fraction_01, json_out, table
from gindex_studio.cli.options import (add_scoring, add_workers, options, refuse_companion_too_big,
                                       refuse_experiment_too_big, scoring_given)
from gindex_studio.cli.skipped import add_strict



def add_parsers(sub) -> None:
    p = sub.add_parser("gindex", help="the g-index of an experiment",
                       description="The g-index of an experiment: how much skill a system shows on its tasks "
                                   "(θ = 1 − Δ of each attempt), weighted up for tasks far from its curriculum "
                                   "(Ω) and down for the priors and experience (samples, compute) it was given.")
    p.add_argument("experiment", metavar="EXPERIMENT",
                   help="experiment file (gindex-studio format, or the companion's with --domains)")
    p.add_argument("--domains", metavar="DIR", help="the companion's domain folder (for its experiment files)")
    p.add_argument("--symmetrise-directory-order", action="store_true",
                   help="with --domains: reproduce the companion's cache_dd, which makes dd symmetric by "
                        "reusing dd(b, a) for dd(a, b) when b's folder comes first in directory order")
    add_workers(p)
    p.add_argument("--leak-threshold", type=fraction_01, default=None, metavar="T",
                   help="flag a task as a leak when its reference lies within Ω <= T of a curriculum program "
                        "(default 0.05, as curate --leaks)")
    p.add_argument("--use-edited", action="store_true",
                   help="score the what-if edits saved by the compare window (tasks[j].edited) instead of the "
                        "model's own outputs (the default)")
    p.add_argument("--probes", action="store_true",
                   help="also run each task's reference and (first) generated program in Node-RED on the same "
                        "probes and report, per task, whether it runs and on how many probes it behaves like the "
                        "reference (a column beside θ; the g-index is unchanged)")
    p.add_argument("--node-red", metavar="URL", help="with --probes: this running Node-RED instead of the private one")
    p.add_argument("--token", metavar="T", help="admin API token of --node-red")
    p.add_argument("--timeout", type=float, default=5.0, metavar="S",
                   help="with --probes: seconds each probe may take (default 5)")
    add_scoring(p)
    add_strict(p)
    add_cluster(p, shards=True)


def check_usage(args, parser) -> None:
    if args.probes and args.domains:
        parser.error("--probes needs the programs of each task: the companion's experiments (--domains) hold none")
    if (args.node_red or args.token) and not args.probes:
        parser.error("--node-red and --token go with --probes")


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli import progress
    from gindex_studio.core.benchmark import experiment as ex
    from gindex_studio.core.benchmark import gindex as gi

    if args.symmetrise_directory_order and not args.domains:
        raise InputError("--symmetrise-directory-order applies to the companion's experiments: give --domains too")
    try:
        if args.domains:
            exp = ex.load_companion_experiment(args.experiment, args.domains)
            refuse_companion_too_big(exp, args)
            result = gi.compute_companion_gindex(exp, args.domains,
                                                 symmetrise_in_directory_order=args.symmetrise_directory_order)
        else:
            exp = ex.load_experiment(args.experiment)
            edited = [exp.tasks[j].id for j in ex.edited_tasks(exp)]
            if args.use_edited:
                exp = ex.with_edits(exp)
            opts = options(args) if scoring_given(args) else None
            read_by_workers = workers_read_files(args, opts.profile if opts else exp.profile)
            extra = {"leak_threshold": args.leak_threshold} if args.leak_threshold is not None else {}
            refuse_experiment_too_big(exp, opts or exp.options, args)
            listener = _Progress() if progress.wanted(args) else None
            with cluster(args) as client:
                result = gi.compute_gindex(exp, options=opts, workers=args.workers, client=client,
                                           workers_read_files=read_by_workers, listener=listener, **extra)
            if listener is not None:
                listener.done()
    except ex.ExperimentError as e:
        raise InputError(str(e)) from None
    if not args.domains:
        _warn_about_edits(result, edited, args.use_edited)
    behaviours = probe_tasks(exp, args) if args.probes else None
    if args.json:
        d = result.to_dict()
        if behaviours is not None:
            for t in d["tasks"]:
                t["behaviour"] = behaviours[t["id"]].to_dict()
        json_out(d)
        return 0
    print(format_gindex(result, behaviours))
    return 0


def probe_tasks(exp, args) -> dict:
    """Each task's behaviour (core.nodered.behaviour): its reference and first generated program
    run on the reference's probes in one Node-RED. InputError (one line) when the runtime fails."""
    from gindex_studio.cli.run import open_session
    from gindex_studio.core.nodered.behaviour import behaviour, probes_for
    from gindex_studio.core.nodered.runtime import NodeRedError

    rt, session = open_session(args)
    out = {}
    try:
        for k, task in enumerate(exp.tasks):
            try:
                probes = probes_for(task.reference, timeout=args.timeout)
            except ValueError as e:
                raise InputError(f"task {task.id}: {e}") from None
            out[task.id] = behaviour(session, task.reference, task.generated, probes)
            from gindex_studio.cli import progress

            if progress.wanted(args):
                progress.say(f"probes: {k + 1:,} of {len(exp.tasks):,} tasks")
    except NodeRedError as e:
        raise InputError(str(e)) from None
    finally:
        session.close()
        rt.stop()
    return out


class _Progress:
    """``gindex`` progress on stderr: the stage and its count, at most every 0.2 s."""

    WORDS = {"delta": "Δ of the tasks", "curriculum": "preparing the curriculum", "omega": "Ω of the tasks"}

    def __init__(self):
        self.last, self.shown = 0.0, False

    def stage(self, name, done, total):
        import time

        now = time.monotonic()
        if done == total or now - self.last >= 0.2:
            self.last, self.shown = now, True
            from gindex_studio.cli import progress

            progress.say(f"{self.WORDS.get(name, name)}: {done:,} of {total:,}")

    def delta(self, index, reports):
        pass

    def task(self, result):
        pass

    def done(self):
        from gindex_studio.cli import progress

        if self.shown:
            progress.say("")


def format_gindex(result, behaviours: dict | None = None) -> str:
    """People's view of a GIndexResult: the index, the curriculum terms and a task table (with a
    "behaves" column beside θ when ``behaviours`` maps task ids to their Behaviour)."""
    b = behaviours
    exact = "exact" if result.exact else "NOT exact (a deadline cut a search)"
    lines = [
        f"g-index = {result.g_index:.6f}   ({result.g_index_rounded:.3f} rounded)   "
        f"{result.system or result.name}, {result.profile} profile, {exact}",
        f"mean θ = {result.theta_mean:.6f}   ρ = {result.rho:g}   tasks {len(result.tasks)}",
        "",
        table([(d.domain, d.samples, d.w, d.compute, d.e, "" if d.included else "left out")
               for d in result.domains], ("curriculum domain", "samples", "W", "compute", "E", ""),
              [False, True, True, True, True, False]),
        "",
        table([(t.id, t.domain, t.delta, t.theta) + ((b[t.id].cell(),) if b else ())
               + (t.omega, t.nearest or "", _LEAK_WORD[t.leak], t.tc,
                  ("yes" if t.exact and t.omega_exact else "no") + (" (syntax)" if t.syntax else ""))
               for t in result.tasks],
              ("task", "domain", "Δ", "θ") + (("behaves",) if b else ())
              + ("Ω", "nearest program", "leak", "TC", "exact"),
              [False, False, True, True] + ([True] if b else []) + [True, False, False, True, False]),
    ]
    if result.mode == "tasks":
        leaks = result.leaks
        lines.append("")
        lines.append(f"leaks (Ω ≤ {float(result.leak_threshold):g} to a curriculum program): {len(leaks)}"
                     + "".join(f"\n  {t.id}: Ω = {t.omega:.6f} to {t.nearest}" for t in leaks))
        undecided = [t.id for t in result.tasks if t.leak is None]
        if undecided:
            lines.append(f"leak undecided (a deadline cut the Ω search): {', '.join(undecided)}")
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


_LEAK_WORD = {True: "leak", False: "", None: "?"}


def _warn_about_edits(result, edited: list[str], use_edited: bool) -> None:
    """Say which outputs the g-index was computed from when what-if edits are present (or asked for)."""
    if not (edited or use_edited):
        return
    names = ", ".join(edited[:5]) + (", …" if len(edited) > 5 else "")
    if use_edited and edited:
        line = f"scored on the what-if edits of {len(edited)} tasks ({names}), not the model's own outputs"
    elif use_edited:
        line = "--use-edited: no task holds a what-if edit; this is the g-index of the model's own outputs"
    else:
        line = (f"{len(edited)} tasks hold what-if edits ({names}): this is the g-index of the model's own "
                "outputs; --use-edited scores the edits")
    result.warnings.append(line)
