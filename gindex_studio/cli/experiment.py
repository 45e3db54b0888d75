"""``gindex-studio experiment new``: build an experiment from a curriculum folder, reference task
files and model outputs in JSONL (core.experiment_build)."""
from __future__ import annotations

import argparse
from pathlib import Path

from gindex_studio.cli.common import FILES_OR_DIRS, InputError, number
from gindex_studio.cli.options import flow_json_profiles, profile_help
from gindex_studio.cli.skipped import add_strict
from gindex_studio.core.support import profiles



def _samples(values: list[str] | None) -> tuple[int | None, dict[str, int]]:
    """``--samples N`` (every domain) and ``--samples DOMAIN=N`` (one domain)."""
    from gindex_studio.core.benchmark.experiment_build import parse_samples

    try:
        return parse_samples(values or ())
    except ValueError as e:
        raise InputError(f"--samples {e}") from None


def add_parsers(sub) -> None:
    p = sub.add_parser("experiment", help="build experiment files",
                       description="Build experiment files: an experiment holds a system's curriculum (training "
                                   "programs per domain, samples and compute), its tasks' reference programs and "
                                   "the system's outputs for them.")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    n = verbs.add_parser("new", help="an experiment from a curriculum folder, reference files and JSONL outputs",
                         description="Build an experiment (outputs inline; format 2 when a task has several "
                                     "attempts) and check it with the ordinary reader.")
    n.add_argument("--curriculum", required=True, metavar="DIR", help="folder with one subfolder of .json programs per domain")
    n.add_argument("--tasks", required=True, nargs="+", metavar=FILES_OR_DIRS, help="reference program files or folders (id = file name)")
    n.add_argument("--outputs", required=True, metavar="JSONL", help='JSONL: {"task_id", "output"} or {"task_id", "outputs": [...]} per line')
    n.add_argument("--compute", required=True, type=number("a positive number", lambda v: v > 0), help="total training compute (log2 of it must exceed -priors)")
    n.add_argument("--samples", action="append", metavar="N|DOMAIN=N",
                   help="training samples of every domain, or of one (repeatable; default: its number of programs)")
    n.add_argument("--name", default="", help="experiment name")
    n.add_argument("--system", default="", help="the system's name")
    n.add_argument("--priors", type=number("a number >= 0", lambda v: v >= 0), default=1e-4, help="ρ (default 1e-4)")
    n.add_argument("--profile", choices=flow_json_profiles(), default=profiles.default().name,
                   help="recorded in the experiment: " + profile_help(flow_json_profiles()))
    n.add_argument("-o", "--output", required=True, metavar="FILE", help="experiment file to write")
    add_strict(n)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.core.benchmark.experiment import ExperimentError
    from gindex_studio.core.benchmark.experiment_build import BuildSpec, build_experiment

    default, per = _samples(args.samples)
    spec = BuildSpec(Path(args.curriculum), [Path(t) for t in args.tasks], Path(args.outputs), args.compute,
                     args.name, args.system, args.priors, args.profile, per or None, default)
    try:
        exp = build_experiment(spec, args.output)
    except ExperimentError as e:
        raise InputError(str(e)) from None
    attempts = sum(len(t.attempts) for t in exp.tasks)
    print(f"wrote {args.output}: {len(exp.tasks)} tasks, {attempts} attempts, {len(exp.curriculum)} curriculum domains "
          f"({sum(c.samples for c in exp.curriculum)} samples)")
    for w in exp.warnings:
        print(f"warning: {w}")
    return 0
