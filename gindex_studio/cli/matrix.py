"""``gindex-studio matrix FILE…``: the all-pairs Δ of flow files (rows = reference, columns =
generated), locally or on a Dask cluster."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gindex_studio.cli.cluster import add_cluster, cluster
from gindex_studio.cli.common import json_out, read_generated, table
from gindex_studio.cli.options import add_scoring, options, refuse_too_big
from gindex_studio.core.scoring import profiles

NAMES = ("matrix",)


def add_parsers(sub) -> None:
    p = sub.add_parser("matrix", help="all-pairs Δ of flow files",
                       description="Δ of every pair of the given flow files: row = reference, column = "
                                   "generated (each file read leniently).")
    p.add_argument("files", nargs="+", metavar="FILE", help="flow files (rows = reference, columns = generated)")
    add_scoring(p)
    add_cluster(p)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli import progress
    from gindex_studio.core.benchmark.curriculum import delta_matrix

    reads = [read_generated(f, args.profile) for f in args.files]
    flows, names = [r.flow for r in reads], [Path(f).name for f in args.files]
    refuse_too_big("Δ matrix", [[(a, b, f"{names[i]} × {names[j]}") for i, a in enumerate(flows)
                                 for j, b in enumerate(flows)]], args, options(args))
    with cluster(args) as client:
        if client is None:
            show = progress.counter("Δ matrix", len(flows) ** 2 if not profiles.get(args.profile).symmetric
                                    else len(flows) * (len(flows) + 1) // 2, "searches") if progress.wanted(args) else None
            m = delta_matrix(flows, options(args), deadline=args.deadline, progress=show)
        else:
            from gindex_studio.core.runtime.distributed import delta_matrix_dask

            show = progress.counter("Δ matrix", -(-len(flows) // 4), "bands of rows") if progress.wanted(args) else None
            m = delta_matrix_dask(flows, client, options(args), deadline=args.deadline, progress=show)
    syntax = [r.syntax.to_dict() if r.syntax else None for r in reads]
    if args.json:
        json_out({"files": list(args.files), "delta": m, "profile": args.profile, "syntax": syntax})
        return 0
    for f, s in zip(args.files, syntax):
        if s:
            print(f"warning: {f}: line {s['line']}, column {s['column']}: {s['message']}", file=sys.stderr)
    rows = [[names[i]] + m[i] for i in range(len(m))]
    print(table(rows, ["reference \\ generated"] + names, [False] + [True] * len(names)))
    return 0
