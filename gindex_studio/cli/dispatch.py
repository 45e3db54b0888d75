"""``gindex-studio``: the command line. Thin: parse arguments, call the core, print.

Exit status: 0 on success, 1 with one line on stderr for bad input, 2 for usage errors. With no
subcommand (or only file arguments) the studio window opens.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import orjson

SUBCOMMANDS = ("score", "matrix", "omega", "gindex", "library", "compare", "gui")


class InputError(Exception):
    """Bad input from the user: reported as one line, exit status 1."""


def _options(args):
    from gindex_studio.core.scoring.divergence import ScoreOptions

    return ScoreOptions(
        profile=args.profile,
        ignore_types=frozenset(args.ignore_type or ()),
        port_aware=args.port_aware,
        fill_defaults=args.fill_defaults,
        deadline=args.deadline,
    )


def _add_scoring(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", choices=("paper", "companion", "flatland"), default="paper",
                   help="scoring profile (default: paper; companion reproduces the public companion code; "
                        "flatland reads Flatland programs: .fbp, .lisp, flat JSON)")
    p.add_argument("--ignore-type", action="append", metavar="TYPE", help="leave nodes of this type out (repeatable)")
    p.add_argument("--port-aware", action="store_true", help="edges correspond only on the same output port")
    p.add_argument("--fill-defaults", action="store_true", help="fill missing attributes with library defaults")
    p.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                   help="stop each search after this long and report the proven bound")
    p.add_argument("--progress", action="store_true",
                   help="show progress on stderr (the default when stderr is a terminal)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _add_cluster(p: argparse.ArgumentParser, shards: bool = False) -> None:
    g = p.add_argument_group("Dask cluster (optional: pip install 'gindex-studio[dask]')")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help="run the searches on this Dask scheduler (default: $GINDEX_SCHEDULER if set)")
    g.add_argument("--dask-workers", type=int, default=None, metavar="N",
                   help="start a local Dask cluster of N worker processes for this run")
    if shards:
        g.add_argument("--workers-read-files", action="store_true",
                       help="the workers read the curriculum files themselves (same paths on every worker) "
                            "instead of receiving the programs: for very large curricula")


def _workers_read_files(args, profile: str) -> bool:
    """``--workers-read-files``, checked: it needs a cluster and JSON programs."""
    if not getattr(args, "workers_read_files", False):
        return False
    if args.scheduler is None and args.dask_workers is None and not os.environ.get("GINDEX_SCHEDULER"):
        raise InputError("--workers-read-files needs a Dask cluster (--scheduler or --dask-workers)")
    if profile == "flatland":
        raise InputError("--workers-read-files reads JSON programs; Flatland curricula are sent to the workers")
    return True


@contextlib.contextmanager
def _cluster(args):
    """A Dask client when the user asked for one (else None: the local process pool is used and
    Dask is never imported)."""
    import os

    if args.scheduler is None and args.dask_workers is None and not os.environ.get("GINDEX_SCHEDULER"):
        yield None
        return
    if args.dask_workers is not None and args.dask_workers < 1:
        raise InputError("--dask-workers must be at least 1")
    from gindex_studio.core.runtime.distributed import ClusterError, close, connect

    try:
        client = connect(args.scheduler, args.dask_workers)
    except ClusterError as e:
        raise InputError(str(e)) from None
    try:
        yield client
    except ClusterError as e:  # e.g. a worker read a curriculum file differently
        raise InputError(str(e)) from None
    finally:
        close(client)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from gindex_studio.core.scoring.search_info import search_in_use

    try:
        v = version("gindex-studio")
    except PackageNotFoundError:
        v = "(not installed)"
    return f"gindex-studio {v}; {search_in_use()}"


class _VersionAction(argparse.Action):
    """``--version``: one unwrapped line, computed only when asked."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(_version())
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gindex-studio",
        description="Score flow programs with the divergence Δ, measure Ω and the g-index, or open the studio.",
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show the version and which exact search (C or pure Python) is in use")
    desk = parser.add_mutually_exclusive_group()
    desk.add_argument("--install-desktop", action="store_true",
                      help="add the launcher, its icon and the experiment file type to your desktop (Linux, per user)")
    desk.add_argument("--uninstall-desktop", action="store_true", help="remove what --install-desktop added")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("score", help="Δ of a generated program against its reference")
    p.add_argument("reference", help="reference flow file")
    p.add_argument("generated", help="generated flow file (read leniently: raw model output is fine)")
    _add_scoring(p)

    p = sub.add_parser("matrix", help="all-pairs Δ of flow files")
    p.add_argument("files", nargs="+", help="flow files (rows = reference, columns = generated)")
    _add_scoring(p)
    _add_cluster(p)

    p = sub.add_parser("omega", help="distance Ω of tasks from a curriculum")
    p.add_argument("--curriculum", required=True, help="folder of curriculum programs (one subfolder per domain, "
                                                      "or files directly: domain from each file's \"name\")")
    p.add_argument("--tasks", required=True, nargs="+", help="task reference files or folders")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    _add_scoring(p)
    _add_cluster(p, shards=True)

    p = sub.add_parser("gindex", help="the g-index of an experiment")
    p.add_argument("experiment", help="experiment file (gindex-studio format, or the companion's with --domains)")
    p.add_argument("--domains", help="the companion's domain folder (for its experiment files)")
    p.add_argument("--symmetrise-directory-order", action="store_true",
                   help="with --domains: reproduce the companion's cache_dd, which makes dd symmetric by "
                        "reusing dd(b, a) for dd(a, b) when b's folder comes first in directory order")
    p.add_argument("--workers", type=int, default=None, help="processes for Ω (default: all cores)")
    p.add_argument("--leak-threshold", type=_fraction_01, default=None, metavar="T",
                   help="flag a task as a leak when its reference lies within Ω <= T of a curriculum program "
                        "(default 0.05, as curate --leaks)")
    p.add_argument("--use-edited", action="store_true",
                   help="score the what-if edits saved by the compare window (tasks[j].edited) instead of the "
                        "model's own outputs (the default)")
    _add_scoring(p)
    _add_cluster(p, shards=True)

    p = sub.add_parser("library", help="list the node types of the library")
    p.add_argument("--library", action="append", metavar="DIR", help="extra library folder (repeatable)")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("compare", help="open the compare view on a reference and a generated program")
    p.add_argument("reference")
    p.add_argument("generated")

    p = sub.add_parser("gui", help="open the studio window")
    p.add_argument("files", nargs="*")

    from gindex_studio.cli import commands

    for mod in commands.load():
        mod.add_parsers(sub)
    return parser


# ----- helpers ----------------------------------------------------------------------------------


def _fraction_01(text: str):
    """A number in [0, 1] as an exact fraction (argparse type)."""
    from fractions import Fraction

    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {text}")
    return value


def _read_strict(path: str, profile: str = "paper"):
    """The reference, read strictly (core.reading; Flatland programs with ``profile="flatland"``)."""
    from gindex_studio.core.flows.flow import FlowError
    from gindex_studio.core.flows.reading import read_reference_file

    try:
        return read_reference_file(path, profile)
    except FlowError as e:
        raise InputError(str(e)) from None


def _read_generated(path: str, profile: str = "paper"):
    """The generated program, read leniently (core.reading; Flatland programs with ``profile="flatland"``)."""
    from gindex_studio.core.flows.flow import FlowError
    from gindex_studio.core.flows.reading import read_generated_file

    try:
        return read_generated_file(path, profile).lenient
    except FlowError as e:
        raise InputError(str(e)) from None


def _json_out(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_DATACLASS).decode() + "\n")


def _table(rows: Sequence[Sequence[Any]], header: Sequence[str], right: Sequence[bool] | None = None) -> str:
    """Plain aligned text table."""
    cells = [list(map(str, header))] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    right = right or [False] * len(header)
    lines = []
    for k, r in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if right[i] else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6f}"
    return "" if v is None else str(v)


# ----- commands ---------------------------------------------------------------------------------


def _score_with_progress(ref, read, options, show: bool):
    """Score, refusing a pair that cannot fit in memory before any work. With ``show``: a quick
    anytime pass first (its proven interval), then the exact search with a live node count."""
    from dataclasses import replace

    from gindex_studio.cli import progress
    from gindex_studio.core.scoring.divergence import score
    from gindex_studio.core.runtime.limits import scoring_too_big

    too_big = scoring_too_big(ref, read.flow, options.ignore_types)
    if too_big:
        raise InputError(f"{too_big}; nothing was computed")
    if not show or (options.deadline is not None and options.deadline <= 1.0):
        return score(ref, read.flow, options, syntax=read.syntax)
    quick = score(ref, read.flow, replace(options, deadline=1.0), syntax=read.syntax)
    if quick.exact:
        return quick
    hint = "" if options.deadline else "; --deadline SECONDS gives the best mapping found by then"
    progress.say(f"after 1 s: Δ ≤ {quick.delta:.6f}, proven ≥ {quick.delta_lower:.6f}; searching for the exact "
                 f"value{hint}", final=True)
    ticker = progress.Ticker("exact search", hint)
    try:
        warm = [(p.reference, p.generated) for p in quick.mapping]
        rest = replace(options, deadline=options.deadline - 1.0) if options.deadline else options
        return score(ref, read.flow, rest, syntax=read.syntax, warm=warm, cancel=ticker)
    finally:
        ticker.done()


def _refuse_too_big(what: str, groups, args, options, at_once: int = 1) -> None:
    """Refuse work that cannot fit in the free memory before it starts: one line naming its largest
    search, with score's estimate (core.limits). ``groups``: the searches each process runs one
    after another, ``at_once`` processes side by side. Not checked when a Dask scheduler runs the
    searches on other machines."""
    import os

    from gindex_studio.core.runtime.limits import searches_too_big

    if getattr(args, "scheduler", None) or os.environ.get("GINDEX_SCHEDULER"):
        return
    if getattr(args, "dask_workers", None):
        at_once = args.dask_workers
    why = searches_too_big(groups, at_once=at_once, ignore_types=options.ignore_types, what=what)
    if why:
        raise InputError(f"{why}; nothing was computed")


def _at_once(workers: int | None, tasks: int) -> int:
    """How many pool processes search side by side (omega_many's rule)."""
    import os

    return max(1, min(workers or os.cpu_count() or 1, tasks))


def cmd_score(args) -> int:
    from gindex_studio.cli import progress

    ref = _read_strict(args.reference, args.profile)
    read = _read_generated(args.generated, args.profile)
    result = _score_with_progress(ref, read, _options(args), progress.wanted(args))
    if args.json:
        _json_out(result.to_dict())
        return 0
    exact = "exact" if result.exact else f"not exact: true Δ in [{result.delta_lower:.6f}, {result.delta:.6f}]"
    print(f"Δ = {result.delta:.6f}   θ = {result.theta:.6f}   ({result.profile} profile, {exact})")
    if result.n_reference and result.n_generated:
        print(f"S = {result.s_exact} over |V'| = {result.n_reference}, |V''| = {result.n_generated}:  "
              f"Δ = 1 − {result.s:.6g}² / ({result.n_reference}·{result.n_generated})")
    else:
        empty = "reference" if not result.n_reference else "generated program"
        print(f"Δ = 1 because the {empty} has no nodes (|V'| = {result.n_reference}, |V''| = {result.n_generated})")
    print(f"edge divergence Δ_E = {result.edge_delta:.6f}   "
          f"matched edges {len(result.matched_edges)}, missing {len(result.missing_edges)}, extra {len(result.extra_edges)}")
    if result.mapping:
        print()
        rows = [(p.reference, p.generated, p.w_exact, ", ".join(p.differing_keys)) for p in result.mapping]
        print(_table(rows, ("reference", "generated", "w", "differing keys")))
    if result.missing_nodes:
        print(f"\nmissing nodes (reference only): {', '.join(result.missing_nodes)}")
    if result.extra_nodes:
        print(f"extra nodes (generated only): {', '.join(result.extra_nodes)}")
    e = result.errors
    print(f"\nerrors: syntax {'yes' if e['syntax'] else 'no'}, function {len(e['function'])}, dataflow {len(e['dataflow'])}")
    if e["syntax"]:
        s = e["syntax"]
        print(f"syntax: line {s['line']}, column {s['column']}: {s['message']}")
    for w in result.warnings:
        print(f"warning: {w}")
    return 0


def cmd_matrix(args) -> int:
    from gindex_studio.core.benchmark.curriculum import delta_matrix

    from gindex_studio.cli import progress

    reads = [_read_generated(f, args.profile) for f in args.files]
    flows, names = [r.flow for r in reads], [Path(f).name for f in args.files]
    _refuse_too_big("Δ matrix", [[(a, b, f"{names[i]} × {names[j]}") for i, a in enumerate(flows)
                                  for j, b in enumerate(flows)]], args, _options(args))
    with _cluster(args) as client:
        if client is None:
            show = progress.counter("Δ matrix", len(flows) ** 2 if args.profile != "paper"
                                    else len(flows) * (len(flows) + 1) // 2, "searches") if progress.wanted(args) else None
            m = delta_matrix(flows, _options(args), deadline=args.deadline, progress=show)
        else:
            from gindex_studio.core.runtime.distributed import delta_matrix_dask

            show = progress.counter("Δ matrix", -(-len(flows) // 4), "bands of rows") if progress.wanted(args) else None
            m = delta_matrix_dask(flows, client, _options(args), deadline=args.deadline, progress=show)
    syntax = [r.syntax.to_dict() if r.syntax else None for r in reads]
    if args.json:
        _json_out({"files": list(args.files), "delta": m, "profile": args.profile, "syntax": syntax})
        return 0
    for f, s in zip(args.files, syntax):
        if s:
            print(f"warning: {f}: line {s['line']}, column {s['column']}: {s['message']}", file=sys.stderr)
    rows = [[names[i]] + m[i] for i in range(len(m))]
    print(_table(rows, ["reference \\ generated"] + names, [False] + [True] * len(names)))
    return 0


def _flow_files(path: Path) -> list[Path]:
    from gindex_studio.core.benchmark.curriculum_files import flow_files
    from gindex_studio.core.flows.flow import FlowError

    try:
        return flow_files(path)
    except FlowError as e:
        raise InputError(str(e)) from None


def _flatland_omega_inputs(root: Path, tasks):
    """Flatland curriculum programs (as flows, domains, labels) and task files."""
    from gindex_studio.core.flatland.errors import FlatlandError
    from gindex_studio.core.flatland.files import program_files, read_folder

    try:
        programs, domains, labels = read_folder(root)
        task_files = [f for t in tasks for f in program_files(Path(t))]
    except FlatlandError as e:
        raise InputError(str(e)) from None
    return [p.to_flow() for p in programs], domains, labels, task_files


def cmd_omega(args) -> int:
    from gindex_studio.core.benchmark.curriculum import Curriculum, omega_many, overall
    from gindex_studio.core.benchmark.curriculum_files import list_curriculum_folder, read_curriculum_folder
    from gindex_studio.core.scoring.divergence import prepare
    from gindex_studio.core.flows.flow import FlowError

    opts = _options(args)
    root = Path(args.curriculum)
    read_by_workers = _workers_read_files(args, opts.profile)
    try:
        if opts.profile == "flatland":
            flows, domains, labels, task_files = _flatland_omega_inputs(root, args.tasks)
        else:
            if read_by_workers:  # the client lists the files; the workers read and prepare them
                paths, domains, labels = list_curriculum_folder(root)
            else:
                flows, domains, labels = read_curriculum_folder(root)
            task_files = [f for t in args.tasks for f in _flow_files(Path(t))]
    except FlowError as e:
        raise InputError(str(e)) from None
    if not task_files:
        raise InputError("no task program given")
    task_flows = [_read_strict(str(f), opts.profile) for f in task_files]
    if read_by_workers:  # this process never reads the curriculum: nothing here to estimate
        from gindex_studio.core.runtime.distributed import CurriculumFiles

        try:
            cur = CurriculumFiles([p.resolve() for p in paths], domains, labels, opts)
        except FlowError as e:
            raise InputError(str(e)) from None
    else:
        _refuse_too_big("Ω", [[(t, c, f"{Path(f).name} × {label}") for c, label in zip(flows, labels)]
                              for f, t in zip(task_files, task_flows)], args, opts,
                        _at_once(args.workers, len(task_flows)))
        cur = Curriculum.from_flows(flows, domains, labels, opts)
    tasks = [prepare(t, opts) for t in task_flows]
    from gindex_studio.cli import progress as shown

    progress = shown.counter("Ω", len(tasks), "tasks") if shown.wanted(args) else None
    with _cluster(args) as client:
        if client is None:
            results = omega_many(tasks, cur, workers=args.workers, deadline=args.deadline, progress=progress)
        else:
            from gindex_studio.core.runtime.distributed import omega_many_dask

            run = omega_many_dask(tasks, cur, client, deadline=args.deadline, progress=progress)
            if run.missing:
                raise InputError("the cluster could not compute Ω for: "
                                 + ", ".join(str(task_files[i]) for i in run.missing))
            results = run.results
    out = []
    for f, per in zip(task_files, results):
        best = overall(per)
        out.append({
            "task": str(f),
            "omega": best.omega,
            "nearest": labels[best.index] if best.index is not None else None,
            "exact": best.exact,
            "domains": {d: {"omega": n.omega, "nearest": labels[n.index] if n.index is not None else None}
                        for d, n in per.items()},
            "searched": best.searched,
            "skipped": best.skipped,
        })
    if args.json:
        _json_out({"curriculum": str(root), "programs": len(labels), "tasks": out, "profile": opts.profile})
        return 0
    rows = [(Path(o["task"]).name, o["omega"], o["nearest"], "yes" if o["exact"] else "no", o["searched"], o["skipped"])
            for o in out]
    print(_table(rows, ("task", "Ω", "nearest program", "exact", "searched", "skipped"),
                 [False, True, False, False, True, True]))
    return 0


def cmd_gindex(args) -> int:
    from gindex_studio.cli import progress
    from gindex_studio.core.benchmark import experiment as ex
    from gindex_studio.core.benchmark import gindex as gi

    if args.symmetrise_directory_order and not args.domains:
        raise InputError("--symmetrise-directory-order applies to the companion's experiments: give --domains too")
    try:
        if args.domains:
            exp = ex.load_companion_experiment(args.experiment, args.domains)
            result = gi.compute_companion_gindex(exp, args.domains,
                                                 symmetrise_in_directory_order=args.symmetrise_directory_order)
        else:
            exp = ex.load_experiment(args.experiment)
            edited = [exp.tasks[j].id for j in ex.edited_tasks(exp)]
            if args.use_edited:
                exp = ex.with_edits(exp)
            options = _options(args) if _scoring_given(args) else None
            read_by_workers = _workers_read_files(args, options.profile if options else exp.profile)
            extra = {"leak_threshold": args.leak_threshold} if args.leak_threshold is not None else {}
            _refuse_gindex_too_big(exp, options or exp.options, args)
            listener = _GIndexProgress() if progress.wanted(args) else None
            with _cluster(args) as client:
                result = gi.compute_gindex(exp, options=options, workers=args.workers, client=client,
                                           workers_read_files=read_by_workers, listener=listener, **extra)
            if listener is not None:
                listener.done()
    except ex.ExperimentError as e:
        raise InputError(str(e)) from None
    if not args.domains and (edited or args.use_edited):
        names = ", ".join(edited[:5]) + (", …" if len(edited) > 5 else "")
        result.warnings.append(
            f"scored on the what-if edits of {len(edited)} tasks ({names}), not the model's own outputs"
            if args.use_edited and edited else
            "--use-edited: no task holds a what-if edit; this is the g-index of the model's own outputs"
            if args.use_edited else
            f"{len(edited)} tasks hold what-if edits ({names}): this is the g-index of the model's own outputs; "
            "--use-edited scores the edits")
    if args.json:
        _json_out(result.to_dict())
        return 0
    print(_format_gindex(result))
    return 0


class _GIndexProgress:
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


def _refuse_gindex_too_big(exp, options, args) -> None:
    """The g-index's searches, refused before they start when they cannot fit: Δ of every attempt
    (one after another), then Ω of every task against the curriculum (pool processes)."""
    tasks = exp.tasks
    _refuse_too_big("g-index, Δ", [[(t.reference, a.generated, f"task {t.id} attempt {k + 1}")
                                    for t in tasks for k, a in enumerate(t.attempts)]], args, options)
    programs = [(p.flow, p.label) for c in exp.curriculum for p in c.programs]
    _refuse_too_big("g-index, Ω", [[(t.reference, flow, f"task {t.id} × {label}") for flow, label in programs]
                                   for t in tasks], args, options, _at_once(args.workers, len(tasks)))


def _format_gindex(result) -> str:
    """People's view of a GIndexResult: the index, the curriculum terms and a task table."""
    exact = "exact" if result.exact else "NOT exact (a deadline cut a search)"
    lines = [
        f"g-index = {result.g_index:.6f}   ({result.g_index_rounded:.3f} rounded)   "
        f"{result.system or result.name}, {result.profile} profile, {exact}",
        f"mean θ = {result.theta_mean:.6f}   ρ = {result.rho:g}   tasks {len(result.tasks)}",
        "",
        _table([(d.domain, d.samples, d.w, d.compute, d.e, "" if d.included else "left out")
                for d in result.domains], ("curriculum domain", "samples", "W", "compute", "E", ""),
               [False, True, True, True, True, False]),
        "",
        _table([(t.id, t.domain, t.delta, t.theta, t.omega, t.nearest or "", _LEAK_WORD[t.leak], t.tc,
                 ("yes" if t.exact and t.omega_exact else "no") + (" (syntax)" if t.syntax else ""))
                for t in result.tasks],
               ("task", "domain", "Δ", "θ", "Ω", "nearest program", "leak", "TC", "exact"),
               [False, False, True, True, True, False, False, True, False]),
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


def _scoring_given(args) -> bool:
    return (args.profile != "paper" or bool(args.ignore_type) or args.port_aware or args.fill_defaults
            or args.deadline is not None)


def cmd_library(args) -> int:
    from gindex_studio.core.flows.library import LibraryError, NodeLibrary

    try:
        lib = NodeLibrary.load(args.library or ()) if args.library else NodeLibrary.bundled()
    except LibraryError as e:
        raise InputError(str(e)) from None
    if not args.library:
        for problem in NodeLibrary.user_errors:  # a broken user folder is left out, and said so
            print(f"gindex-studio: warning: a user library folder was left out: {problem}", file=sys.stderr)
    if args.json:
        _json_out({
            "categories": [c.__dict__ for c in lib.categories],
            "types": [{"type": t.type, "label": t.label, "category": t.category, "color": t.color,
                       "inputs": t.inputs, "outputs": t.outputs, "config": t.config, "description": t.description,
                       "attributes": [{"key": a.key, "kind": a.kind, "default": a.default,
                                       "choices": list(a.choices)} for a in t.attributes]}
                      for t in lib.types],
        })
        return 0
    rows = [(t.type, t.category, f"{t.inputs}/{t.outputs}", len(t.attributes), t.description) for t in lib.types]
    print(_table(rows, ("type", "category", "in/out", "attrs", "description")))
    print(f"\n{len(lib.types)} node types in {len(lib.categories)} categories")
    return 0


def cmd_gui(files: list[str], compare: tuple[str, str] | None = None) -> int:
    import os

    if sys.platform.startswith("linux") and not any(
        os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    ):
        raise InputError("no display to open the studio window on (DISPLAY and WAYLAND_DISPLAY are not set); "
                         "the command-line tools work without one: gindex-studio --help")
    try:
        from gindex_studio.ui import app
        from gindex_studio.ui.application import studio_application
    except ImportError as e:  # Qt missing or broken on this machine
        hint = " (install the studio's window with: pip install 'gindex-studio[gui]')" if "PySide6" in str(e) else ""
        raise InputError(f"the studio window cannot start: {e}{hint}") from None
    studio_application()
    if compare is not None and hasattr(app, "main_compare"):
        return app.main_compare(*compare)
    from gindex_studio.desktop import looks_like_experiment

    if files and all(looks_like_experiment(f) for f in files):  # e.g. opened from the file manager
        return app.main_experiments(files)
    return app.main(files)


def cmd_desktop(install: bool) -> int:
    from gindex_studio import desktop

    try:
        res = desktop.install() if install else desktop.uninstall()
    except OSError as e:
        raise InputError(f"desktop integration: {e.filename or ''}: {e.strerror or e}") from None
    verb = "installed" if install else "removed"
    for f in res.files:
        print(f"{verb} {f}")
    if not res.files:
        print("nothing to remove: the desktop integration is not installed")
    for note in res.notes:
        print(note)
    return 0


COMMANDS: dict[str, Callable[[Any], int]] = {
    "score": cmd_score,
    "matrix": cmd_matrix,
    "omega": cmd_omega,
    "gindex": cmd_gindex,
    "library": cmd_library,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from gindex_studio.cli import commands

    if not argv or (argv[0] not in SUBCOMMANDS + commands.names() and not argv[0].startswith("-")):
        try:
            return cmd_gui(argv)
        except InputError as e:
            print(f"gindex-studio: {e}", file=sys.stderr)
            return 1
    parser = build_parser()
    args = parser.parse_args(argv)  # exits 2 on usage errors
    try:
        from gindex_studio.cli.numbers import impossible_number

        bad = impossible_number(args)
        if bad:
            raise InputError(bad)
        if args.command == "gui":
            return cmd_gui(args.files)
        if args.command == "compare":
            from gindex_studio.core.flows.files import UserFileError, check_user_file

            for f in (args.reference, args.generated):
                try:
                    check_user_file(f, "a program file")
                except UserFileError as e:
                    raise InputError(str(e)) from None
            return cmd_gui([args.reference, args.generated], compare=(args.reference, args.generated))
        if args.install_desktop or args.uninstall_desktop:
            return cmd_desktop(args.install_desktop)
        if args.command is None:
            parser.print_help()
            return 2
        if args.command in COMMANDS:
            return COMMANDS[args.command](args)
        return next(m for m in commands.load() if args.command in m.NAMES).run(args)
    except InputError as e:
        print(f"gindex-studio: {e}", file=sys.stderr)
        return 1
    except ValueError as e:  # e.g. impossible option values
        print(f"gindex-studio: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("gindex-studio: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    # run the package's module, not this __main__ copy: command modules raise gindex_studio.cli.dispatch.InputError
    from gindex_studio.cli.dispatch import main as _main

    sys.exit(_main())
