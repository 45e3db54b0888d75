"""``gindex-studio report STUDY_OR_EXPERIMENT… -o report.html``: one self-contained HTML file with
the comparison table, paired comparisons, the Analysis window's figures and the worst tasks;
``--json`` prints every number instead (intervals and tests included)."""
from __future__ import annotations

import argparse
import os
import sys

NAMES = ("report",)


def add_parsers(sub) -> None:
    p = sub.add_parser("report", help="an HTML report comparing the systems of studies / experiments")
    p.add_argument("inputs", nargs="+", metavar="STUDY_OR_EXPERIMENT", help="study files and experiment files")
    p.add_argument("-o", "--output", help="HTML file to write")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.add_argument("-k", type=int, default=1, help="k of pass@k (default 1)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="seed of every resampling (default 0)")
    p.add_argument("--title", default=None, help="the report's title (default: the study's name)")
    p.add_argument("--workers", type=int, default=None, help="processes for Ω (default: all cores)")


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli.dispatch import InputError, _json_out
    from gindex_studio.core.benchmark.analysis import analyse, score_systems
    from gindex_studio.core.benchmark.experiment import ExperimentError
    from gindex_studio.core.benchmark.study import open_inputs

    if not args.output and not args.json:
        raise InputError("give -o report.html, or --json for the numbers")
    if args.resamples < 100:
        raise InputError(f"--resamples {args.resamples}: use at least 100 (2000 is the default)")
    try:
        name, pairs = open_inputs(args.inputs)
        systems = score_systems(pairs, workers=args.workers)
        analysis = analyse(systems, k=args.k, resamples=args.resamples, seed=args.seed)
    except ExperimentError as e:
        raise InputError(str(e)) from None
    if args.output:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        try:
            from PySide6.QtWidgets import QApplication

            from gindex_studio.ui.analysis.report import write_report
        except ImportError as e:
            raise InputError(f"the report's figures need Qt: {e}") from None
        _app = QApplication.instance() or QApplication(sys.argv[:1])
        try:
            write_report(analysis, args.output, args.title or name)
        except OSError as e:
            raise InputError(f"{args.output}: cannot write ({e.strerror})") from None
        if not args.json:
            print(f"wrote {args.output}: {len(systems)} systems, {len(analysis.pairs)} paired comparisons")
    if args.json:
        _json_out(analysis.to_dict())
    return 0
