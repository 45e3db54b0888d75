"""``gindex-studio omega --curriculum DIR --tasks FILE_OR_DIR…``: the distance Ω of each task from
a curriculum (the least Δ to any of its programs, overall and per domain)."""
from __future__ import annotations

import argparse
from pathlib import Path

from gindex_studio.cli.cluster import add_cluster, cluster, workers_read_files
from gindex_studio.cli.common import FILES_OR_DIRS, InputError, json_out, read_strict, table
from gindex_studio.cli.options import add_scoring, add_workers, at_once, options, refuse_too_big
from gindex_studio.cli.skipped import add_strict


def add_parsers(sub) -> None:
    p = sub.add_parser("omega", help="distance Ω of tasks from a curriculum",
                       description="Ω of a task = the least Δ between its reference and any curriculum "
                                   "program: how far the task lies from what the system was trained on "
                                   "(per curriculum domain and overall).")
    p.add_argument("--curriculum", required=True, metavar="DIR",
                   help="folder of curriculum programs (one subfolder per domain, "
                        "or files directly: domain from each file's \"name\")")
    p.add_argument("--tasks", required=True, nargs="+", metavar=FILES_OR_DIRS, help="task reference files or folders")
    add_workers(p)
    add_scoring(p)
    add_strict(p)
    add_cluster(p, shards=True)


def run(args: argparse.Namespace) -> int:
    from gindex_studio.cli import progress as shown
    from gindex_studio.core.benchmark.curriculum import Curriculum, omega_many, overall
    from gindex_studio.core.benchmark.curriculum_files import list_curriculum_folder, programs_below, read_programs_folder
    from gindex_studio.core.flows.flow import FlowError
    from gindex_studio.core.scoring.divergence import prepare

    opts = options(args)
    root = Path(args.curriculum)
    read_by_workers = workers_read_files(args, opts.profile)
    try:
        if read_by_workers:  # the client lists the files; the workers read and prepare them
            paths, domains, labels = list_curriculum_folder(root)
        else:
            flows, domains, labels = read_programs_folder(root, opts.profile)
        task_files = [f for t in args.tasks for f in programs_below(Path(t), opts.profile)]
    except FlowError as e:
        raise InputError(str(e)) from None
    if not task_files:
        raise InputError("no task program given")
    task_flows = [read_strict(str(f), opts.profile) for f in task_files]
    if read_by_workers:  # this process never reads the curriculum: nothing here to estimate
        from gindex_studio.core.benchmark.on_cluster import CurriculumFiles

        try:
            cur = CurriculumFiles([p.resolve() for p in paths], domains, labels, opts)
        except FlowError as e:
            raise InputError(str(e)) from None
    else:
        refuse_too_big("Ω", [[(t, c, f"{Path(f).name} × {label}") for c, label in zip(flows, labels)]
                             for f, t in zip(task_files, task_flows)], args, opts,
                       at_once(args.workers, len(task_flows)))
        cur = Curriculum.from_flows(flows, domains, labels, opts)
    tasks = [prepare(t, opts) for t in task_flows]
    progress = shown.counter("Ω", len(tasks), "tasks") if shown.wanted(args) else None
    with cluster(args) as client:
        if client is None:
            results = omega_many(tasks, cur, workers=args.workers, deadline=args.deadline, progress=progress)
        else:
            from gindex_studio.core.benchmark.on_cluster import omega_many_dask

            done = omega_many_dask(tasks, cur, client, deadline=args.deadline, progress=progress)
            if done.missing:
                raise InputError("the cluster could not compute Ω for: "
                                 + ", ".join(str(task_files[i]) for i in done.missing))
            results = done.results
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
        json_out({"curriculum": str(root), "programs": len(labels), "tasks": out, "profile": opts.profile.name})
        return 0
    rows = [(Path(o["task"]).name, o["omega"], o["nearest"], "yes" if o["exact"] else "no", o["searched"], o["skipped"])
            for o in out]
    print(table(rows, ("task", "Ω", "nearest program", "exact", "searched", "skipped"),
                [False, True, False, False, True, True]))
    return 0
