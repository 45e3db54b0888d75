"""The scoring options that ``score``, ``matrix``, ``omega`` and ``gindex`` share, and the check
that refuses work too big for the free memory before it starts (theirs, and that of ``curate``,
``report`` and ``gindex --domains``: every command that searches)."""
from __future__ import annotations

import argparse
import os

from gindex_studio.cli.common import SECONDS, InputError, add_json
from gindex_studio.core.support import profiles


def add_scoring(p: argparse.ArgumentParser) -> None:
    """``--profile``, ``--ignore-type``, ``--port-aware``, ``--fill-defaults``, ``--deadline``,
    ``--progress`` and ``--json``."""
    p.add_argument("--profile", choices=profiles.names(), default=profiles.default().name,
                   help=profile_help(profiles.names()))
    p.add_argument("--ignore-type", action="append", metavar="TYPE", help="leave nodes of this type out (repeatable)")
    p.add_argument("--port-aware", action="store_true", help="edges correspond only on the same output port")
    p.add_argument("--fill-defaults", action="store_true", help="fill missing attributes with library defaults")
    p.add_argument("--deadline", type=SECONDS, default=None, metavar="SECONDS",
                   help="stop each search after this long and report the proven bound")
    p.add_argument("--progress", action="store_true",
                   help="show progress on stderr (the default when stderr is a terminal)")
    add_json(p)


def add_workers(p: argparse.ArgumentParser, what: str = "Ω") -> None:
    """``--workers N``: local processes, 1 to MAX_PROCESSES (else a usage error)."""
    from gindex_studio.cli.common import MAX_PROCESSES, int_range

    p.add_argument("--workers", type=int_range(1, MAX_PROCESSES), default=None, metavar="N",
                   help=f"processes for {what} (default: all cores; at most {MAX_PROCESSES})")


def add_companion(p: argparse.ArgumentParser) -> None:
    """``--domains DIR`` (the inputs are the companion's experiment files), with
    ``--symmetrise-directory-order`` and ``--leave-self-out``."""
    p.add_argument("--domains", metavar="DIR",
                   help="the companion's domain folder (one subfolder of programs per domain): read the "
                        "companion's experiment files, scored per domain (its aggregate mode)")
    p.add_argument("--symmetrise-directory-order", action="store_true",
                   help="with --domains: reproduce the companion's cache_dd, which makes dd symmetric by "
                        "reusing dd(b, a) for dd(a, b) when b's folder comes first in directory order "
                        "(use it to get the companion's code's numbers)")
    p.add_argument("--leave-self-out", action="store_true",
                   help="measure each task's Ω without its own reference program: a curriculum program read "
                        "from the task's reference file (with --domains: each program of a test domain against "
                        "the others of its curriculum domain) is left out; copies under other names stay")


def check_companion(args) -> None:
    """InputError (exit 1) for ``--symmetrise-directory-order`` without ``--domains``."""
    if args.symmetrise_directory_order and not args.domains:
        raise InputError("--symmetrise-directory-order applies to the companion's experiments: give --domains too")


def options(args):
    """The ScoreOptions the scoring options ask for."""
    from gindex_studio.core.scoring.divergence import ScoreOptions

    return ScoreOptions(
        profile=args.profile,
        ignore_types=frozenset(args.ignore_type or ()),
        port_aware=args.port_aware,
        fill_defaults=args.fill_defaults,
        deadline=args.deadline,
    )


def scoring_given(args) -> bool:
    """Whether any scoring option differs from its default (else an experiment's own options hold)."""
    other_profile = profiles.get(args.profile) is not profiles.default()
    return other_profile or bool(args.ignore_type) or args.port_aware or args.fill_defaults or args.deadline is not None


def refuse_too_big(what: str, groups, args, options, at_once: int = 1) -> None:
    """Refuse work that cannot fit in the free memory before it starts: one line naming its largest
    search, with score's estimate (core.limits). ``groups``: the searches each process runs one
    after another, ``at_once`` processes side by side. Not checked when a Dask scheduler runs the
    searches on other machines."""
    from gindex_studio.core.support.limits import searches_too_big

    if getattr(args, "scheduler", None) or os.environ.get("GINDEX_SCHEDULER"):
        return
    if getattr(args, "dask_workers", None):
        at_once = args.dask_workers
    why = searches_too_big(groups, at_once=at_once, ignore_types=options.ignore_types, what=what)
    if why:
        raise InputError(f"{why}; nothing was computed")


def refuse_experiment_too_big(exp, opts, args, what: str = "g-index") -> None:
    """An experiment's g-index searches, refused before they start when they cannot fit: Δ of
    every attempt (one after another), then Ω of every task against the curriculum (pool
    processes side by side)."""
    tasks = exp.tasks
    refuse_too_big(f"{what}, Δ", [[(t.reference, a.generated, f"task {t.id} attempt {k + 1}")
                                   for t in tasks for k, a in enumerate(t.attempts)]], args, opts)
    programs = [(p.flow, p.label) for c in exp.curriculum for p in c.programs]
    refuse_too_big(f"{what}, Ω", [[(t.reference, flow, f"task {t.id} × {label}") for flow, label in programs]
                                  for t in tasks], args, opts, at_once(args.workers, len(tasks)))


def refuse_companion_too_big(cexp, args) -> None:
    """``gindex --domains``: dd of every task domain × curriculum domain searches each program of
    the one against each of the other (companion profile), one after another in this process."""
    from gindex_studio.core.scoring.divergence import ScoreOptions

    progs = cexp.programs
    pairs = [(p.flow, q.flow, f"{p.label} × {q.label}") for t in cexp.tasks for c in cexp.curriculum
             for p in progs.get(t.name, ()) for q in progs.get(c.name, ())]
    refuse_too_big("g-index, domain distances", [pairs], args, ScoreOptions(profile=profiles.companion_default()))


def refuse_distinct_pairs_too_big(what: str, flows, labels, args, opts) -> None:
    """Work that may search any two different programs of ``flows`` (``curate``), one search at a
    time: refused when its largest pair cannot fit."""
    from gindex_studio.core.support.limits import largest_matrix_pair

    largest = largest_matrix_pair(flows, opts.ignore_types, distinct=True)
    if largest is not None:
        _pairs, i, j = largest
        refuse_too_big(what, [[(flows[i], flows[j], f"{labels[i]} × {labels[j]}")]], args, opts)


def at_once(workers: int | None, tasks: int) -> int:
    """How many pool processes search side by side (omega_many's rule)."""
    return max(1, min(workers or os.cpu_count() or 1, tasks))


def profile_help(names, default=None) -> str:
    """``--profile``'s help: the profiles ``names`` with their descriptions, and the default
    (``default``: its wording; None: the default profile's name)."""
    listed = "; ".join(f"{n}: {profiles.get(n).description}" for n in names)
    return f"scoring profile (default: {default or profiles.default().name}; {listed})"


def flow_json_profiles() -> tuple[str, ...]:
    """The profiles that score Node-RED flow JSON (curation and experiment building read only those)."""
    return tuple(n for n in profiles.names() if profiles.get(n).reads_flow_json)
