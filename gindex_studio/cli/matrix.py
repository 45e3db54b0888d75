"""``gindex-studio matrix FILE…``: the all-pairs Δ of flow files (rows = reference, columns =
generated), locally or on a Dask cluster."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gindex_studio.cli.cluster import add_cluster, cluster
from gindex_studio.cli.common import json_out_rows, one_line, read_generated, table
from gindex_studio.cli.options import add_scoring, add_workers, options, refuse_too_big



def add_parsers(sub) -> None:
    p = sub.add_parser("matrix", help="all-pairs Δ of flow files",
                       description="Δ of every pair of the given flow files: row = reference, column = "
                                   "generated (each file read leniently).")
    p.add_argument("files", nargs="+", metavar="FILE", help="flow files (rows = reference, columns = generated)")
    add_scoring(p)
    add_workers(p, "the searches")
    add_cluster(p)


def run(args: argparse.Namespace) -> int:
    """The matrix is computed and written row by row (``--json``: each row as soon as it and the
    rows above it are done); memory holds the programs and 8 bytes a cell."""
    from gindex_studio.cli import progress
    from gindex_studio.core.benchmark.matrix import delta_rows, plan_units
    from gindex_studio.core.support.limits import largest_matrix_pair
    from gindex_studio.core.scoring.divergence import prepare

    reads = [read_generated(f, args.profile) for f in args.files]
    flows, names = [r.flow for r in reads], [Path(f).name for f in args.files]
    opts = options(args)
    symmetric = opts.profile.symmetric
    workers = max(1, min(args.workers or os.cpu_count() or 1, len(plan_units(len(flows), symmetric))))
    largest = largest_matrix_pair(flows, opts.ignore_types)
    if largest is not None:
        _pairs, i, j = largest
        refuse_too_big("Δ matrix", [[(flows[i], flows[j], f"{names[i]} × {names[j]}")]] * workers, args, opts)
    syntax = [r.syntax.to_dict() if r.syntax else None for r in reads]
    with cluster(args) as client:
        if client is None:
            show = progress.counter("Δ matrix", len(flows) ** 2 if not symmetric
                                    else len(flows) * (len(flows) + 1) // 2, "searches") if progress.wanted(args) else None
            prepared = [prepare(f, opts) for f in flows]
            del reads, flows  # the prepared programs are all the rows need
            rows = (row for _i, row in delta_rows(prepared, opts.profile, deadline=args.deadline, workers=workers,
                                                 progress=show))
        else:
            from gindex_studio.core.benchmark.on_cluster import delta_matrix_dask

            show = progress.counter("Δ matrix", -(-len(flows) // 4), "bands of rows") if progress.wanted(args) else None
            rows = iter(delta_matrix_dask(flows, client, opts, deadline=args.deadline, progress=show))
        if args.json:
            json_out_rows({"files": list(args.files), "delta": None, "profile": args.profile, "syntax": syntax},
                          "delta", rows)
            return 0
        m = [row.tolist() if hasattr(row, "tolist") else row for row in rows]
    for f, s in zip(args.files, syntax):
        if s:
            print(one_line(f"warning: {f}: line {s['line']}, column {s['column']}: {s['message']}"), file=sys.stderr)
    table_rows = [[names[i]] + m[i] for i in range(len(m))]
    print(table(table_rows, ["reference \\ generated"] + names, [False] + [True] * len(names)))
    return 0
