"""``gindex-studio report STUDY_OR_EXPERIMENT… -o report.html``: one self-contained HTML file with
the comparison table, paired comparisons, the Analysis window's figures and the worst tasks;
``--json`` prints every number instead (intervals and tests included)."""
from __future__ import annotations

import argparse
import os
import sys

from gindex_studio.cli.common import SEED, InputError, int_range, json_out, needs_gui



def add_parsers(sub) -> None:
    p = sub.add_parser("report", help="an HTML report comparing the systems of studies / experiments",
                       description="Compare the systems of studies and experiments: g-index, pass@k and their "
                                   "bootstrap intervals, paired comparisons, figures and the worst tasks. Give "
                                   "-o FILE for the HTML report (needs the [gui] extra for its figures), "
                                   "--json for the numbers, or both. With --domains the inputs are the companion's "
                                   "experiment files (or folders of them), one system each, named by file: the "
                                   "comparison table is then the companion's table of results.")
    p.add_argument("inputs", nargs="+", metavar="STUDY_OR_EXPERIMENT",
                   help="study files and experiment files (with --domains: the companion's experiment files or folders)")
    p.add_argument("-o", "--output", metavar="FILE", help="HTML file to write")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.add_argument("-k", type=int_range(1, MAX_K), default=1, metavar="K", help=f"k of pass@k, 1 to {MAX_K:,} (default 1)")
    p.add_argument("--resamples", type=int_range(MIN_RESAMPLES, MAX_RESAMPLES), default=2000, metavar="N",
                   help=f"bootstrap resamples, {MIN_RESAMPLES:,} to {MAX_RESAMPLES:,} (default 2000)")
    p.add_argument("--seed", type=SEED, default=0, metavar="N",
                   help="seed of every resampling, 0 to 2**32 − 1 (default 0)")
    p.add_argument("--title", default=None, help="the report's title (default: the study's name)")
    from gindex_studio.cli.options import add_companion, add_workers

    add_companion(p)
    add_workers(p)


#: Bootstrap resamples: fewer gives intervals that move from run to run; more is an array of
#: resamples × tasks integers per statistic, which at 10⁵ already takes seconds.
MIN_RESAMPLES, MAX_RESAMPLES = 100, 100_000
#: pass@k beyond this many attempts per task is not a question anyone asks of a benchmark.
MAX_K = 10_000


def check_usage(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Usage errors argparse cannot see alone (exit 2 before any work)."""
    if not args.output and not args.json:
        parser.error("give -o FILE for the HTML report, or --json for the numbers")


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli.options import check_companion, refuse_experiment_too_big
    from gindex_studio.core.benchmark.analysis import analyse, companion_systems, score_systems
    from gindex_studio.core.benchmark.experiment import ExperimentError
    from gindex_studio.core.benchmark.study import open_inputs

    check_companion(args)
    if args.output:
        _check_qt()
        _check_output(args.output)
    try:
        if args.domains:
            name = "the companion's experiments"
            systems = companion_systems(args.inputs, args.domains, leave_self_out=args.leave_self_out,
                                        symmetrise_in_directory_order=args.symmetrise_directory_order)
        else:
            name, pairs = open_inputs(args.inputs)
            for label, exp in pairs:
                refuse_experiment_too_big(exp, exp.options, args, what=f"{label}: g-index")
            systems = score_systems(pairs, workers=args.workers, leave_self_out=args.leave_self_out)
        analysis = analyse(systems, k=args.k, resamples=args.resamples, seed=args.seed)
    except ExperimentError as e:
        raise InputError(str(e)) from None
    if args.output:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        try:
            from PySide6.QtWidgets import QApplication

            from gindex_studio.ui.analysis.report import write_report
        except ImportError as e:
            raise needs_gui("report -o (its figures are drawn with Qt; --json needs no Qt)", e) from None
        _app = QApplication.instance() or QApplication(sys.argv[:1])
        try:
            write_report(analysis, args.output, args.title or name)
        except OSError as e:
            raise InputError(f"{args.output}: cannot write ({e.strerror})") from None
        if not args.json:
            print(f"wrote {args.output}: {len(systems)} systems, {len(analysis.pairs)} paired comparisons")
    if args.json:
        json_out(analysis.to_dict())
    return 0


def _check_output(path: str) -> None:
    """Before any scoring: the report's name may not be a pipe, a device or a folder."""
    from gindex_studio.core.flows.files import UserFileError, check_output_name

    try:
        check_output_name(path)
    except UserFileError as e:
        raise InputError(str(e)) from None


def _check_qt() -> None:
    """Before any scoring: an HTML report needs PySide6 for its figures."""
    import importlib.util

    try:
        found = importlib.util.find_spec("PySide6") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise needs_gui("report -o (its figures are drawn with Qt; --json needs no Qt)",
                        ImportError("No module named 'PySide6'", name="PySide6"))
