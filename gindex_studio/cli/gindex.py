"""``gindex-studio gindex EXPERIMENT``: the g-index of an experiment (gindex-studio's format, or the
companion's with ``--domains``), with its curriculum terms, task table and leaks."""
from __future__ import annotations

import argparse
from pathlib import Path

from gindex_studio.cli.cluster import add_cluster, cluster
from gindex_studio.cli.common import InputError, fraction_01, json_out, table
from gindex_studio.cli.gindex_scoring import COMPANION_LEAK_NOTE, ready, scored, warn_about_edits
from gindex_studio.cli.options import add_companion, add_scoring, add_workers, check_companion, refuse_companion_too_big
from gindex_studio.cli.skipped import add_strict



def add_parsers(sub) -> None:
    p = sub.add_parser("gindex", help="the g-index of an experiment",
                       description="The g-index of an experiment: how much skill a system shows on its tasks "
                                   "(θ = 1 − Δ of each attempt), weighted up for tasks far from its curriculum "
                                   "(Ω) and down for the priors and experience (samples, compute) it was given.")
    p.add_argument("experiments", nargs="+", metavar="EXPERIMENT",
                   help="experiment file (gindex-studio format, or the companion's with --domains); several, a "
                        "folder of them (its *.json files) or a study file give one table of systems, sorted by "
                        "g-index, a curriculum they share prepared and searched once")
    add_companion(p)
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
    from gindex_studio.cli.run import add_runtime_options

    add_runtime_options(p)
    p.add_argument("--runtimes", type=int, default=4, metavar="N",
                   help="with --probes: private Node-REDs probing tasks side by side, each reused across its "
                        "tasks (default 4; 1 with --node-red)")
    add_scoring(p)
    add_strict(p)
    add_cluster(p, shards=True)


def check_usage(args, parser) -> None:
    if args.probes and len(args.experiments) > 1:
        parser.error("--probes runs one experiment's programs: give one experiment file")
    if args.probes and args.domains:
        parser.error("--probes needs the programs of each task: the companion's experiments (--domains) hold none")
    if (args.node_red or args.token or args.token_file or args.trust_flows or args.no_sandbox) and not args.probes:
        parser.error("--node-red, --token, --token-file, --trust-flows and --no-sandbox go with --probes")
    if not 1 <= args.runtimes <= 16:
        parser.error(f"--runtimes {args.runtimes}: give 1 to 16 runtimes")
    from gindex_studio.cli.run import check_runtime_usage

    check_runtime_usage(args, parser)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.core.benchmark import experiment as ex
    from gindex_studio.core.benchmark import gindex as gi

    from gindex_studio.cli.gindex_many import run_many

    check_companion(args)
    path = args.experiments[0]
    if len(args.experiments) > 1 or Path(path).is_dir():
        return run_many(args)
    try:
        if args.domains:
            exp = ex.load_companion_experiment(path, args.domains)
            refuse_companion_too_big(exp, args)
            result = gi.compute_companion_gindex(exp, args.domains,
                                                 symmetrise_in_directory_order=args.symmetrise_directory_order,
                                                 leave_self_out=args.leave_self_out)
        else:
            try:
                loaded = ex.load_experiment(path)
            except ex.ExperimentError:
                if not is_study(path):
                    raise
                return run_many(args)
            exp, edited, opts = ready(loaded, args)
            with cluster(args) as client:
                result = scored(exp, opts, args, client)
    except ex.ExperimentError as e:
        raise InputError(str(e)) from None
    if not args.domains:
        warn_about_edits(result, edited, args.use_edited)
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


def is_study(path: str) -> bool:
    """Whether ``path`` is a study file (its experiments then give a table of systems)."""
    from gindex_studio.core.benchmark.experiment import ExperimentError
    from gindex_studio.core.benchmark.study import is_study_value
    from gindex_studio.core.benchmark.validate import read_json

    try:
        return is_study_value(read_json(Path(path)))
    except ExperimentError:
        return False


def probe_tasks(exp, args) -> dict:
    """Each task's behaviour (core.nodered.behaviour): its reference and first generated program
    run on the reference's probes. The tasks with probes are shared among ``--runtimes`` private
    runtimes, each started once and reused for its tasks (a probe mostly waits for the flow to
    settle, so they overlap well; the user's Node-RED gets one task at a time). A task whose
    programs cannot be run gets a :class:`_NotRun` in its row (its runtime is started afresh)
    and the table goes on; InputError (one line) when no runtime can be had at all."""
    import queue
    import threading

    from gindex_studio.cli import progress
    from gindex_studio.cli.run import session_maker
    from gindex_studio.core.nodered.behaviour import Behaviour, probes_for

    work = []
    out: dict = {}
    for task in exp.tasks:
        try:
            probes = probes_for(task.reference)
        except ValueError as e:
            raise InputError(f"task {task.id}: {e}") from None
        if probes:
            work.append((task, probes))
        else:
            out[task.id] = Behaviour(True, 0, 0)
    if not work:
        return out
    make = session_maker(args)
    todo: queue.Queue = queue.Queue()
    for item in work:
        todo.put(item)
    failed: list[InputError] = []
    lock = threading.Lock()

    def worker() -> None:
        # the runtime is started and stopped on this thread: the sandbox dies with the thread that
        # started it (--die-with-parent)
        session = None
        try:
            while not failed:
                try:
                    task, probes = todo.get_nowait()
                except queue.Empty:
                    return
                if session is None:
                    session = make()[1]
                result = _probe_one(session, task, probes, args)
                with lock:
                    out[task.id] = result
                    if progress.wanted(args):
                        progress.say(f"probes: {len(out):,} of {len(exp.tasks):,} tasks")
        except InputError as e:
            failed.append(e)
        finally:
            if session is not None:
                session.close()
                session.runtime.stop()

    n = 1 if args.node_red else max(1, min(args.runtimes, len(work)))
    threads = [threading.Thread(target=worker, name=f"probes-{k}", daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise failed[0]
    return out


def _probe_one(session, task, probes, args):
    """One task's behaviour, or a :class:`_NotRun` (the session's runtime started afresh)."""
    from gindex_studio.core.nodered.behaviour import behaviour
    from gindex_studio.core.nodered.runtime import NodeRedError

    try:
        return behaviour(session, task.reference, task.generated, probes, args.settle, args.timeout)
    except NodeRedError as e:
        try:
            session.revive()
        except NodeRedError as again:
            raise InputError(f"task {task.id}: {again}") from None
        return _NotRun(str(e))


class _NotRun:
    """A task whose programs could not be run (the runtime failed): its cell says so."""

    def __init__(self, why: str):
        self.why = why

    def cell(self) -> str:
        return "could not run"

    def to_dict(self) -> dict:
        return {"verdict": "could not run", "message": self.why}


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
    else:
        lines += ["", COMPANION_LEAK_NOTE]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


_LEAK_WORD = {True: "leak", False: "", None: "?"}
