"""Measured inputs for docs/scaling.md: what one Dask worker does with one curriculum shard.

    python3 bench/bench_scaling.py --quick      # shards of 500 and 5,000, 5 tasks: about a minute
    python3 bench/bench_scaling.py [--shards 5000,50000] [--tasks 20] [--baseline-pairs 300]   # the doc's figures: 15-30 min

Progress goes to stderr (each phase as it starts, and the tasks at most every 5 s); the figures
to stdout.

On a cluster, Ω splits the curriculum into one shard per worker and every worker answers every
task against its own shard (``omega_many_dask``; pruning and best-so-far are per shard). So the
work of a 1,000,000-program curriculum on W workers is W copies of the work of one shard of
1,000,000 / W programs, and a shard of that size can be measured here, on one core:

- 10 machines × 2 workers → 20 shards of 50,000 programs;
- 100 machines × 2 workers → 200 shards of 5,000 programs.

For each shard size this prints: the time to build the shard (prepare + bound tables), the
per-task time against it with the pairs searched and skipped, the shard's pickled size (the data a
worker receives once) and a worker's resident memory holding it (measured in a fresh process that
loads the pickled shard and answers one task). The baseline, run in the same process, is a plain
exact ``score`` on sampled (task, program) pairs: the cost of a pair when nothing is pruned, so the
ratio says what pruning saves on this machine at this moment.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_dask import tasks_for  # noqa: E402
from bench_scoring import curriculum_programs  # noqa: E402
from gindex_studio.core.benchmark.curriculum import Curriculum  # noqa: E402
from gindex_studio.core.benchmark.on_cluster import CurriculumFiles  # noqa: E402
from gindex_studio.core.flows.flow import write_flow_file  # noqa: E402
from gindex_studio.core.scoring.divergence import score_prepared  # noqa: E402

_WORKER_PROBE = r"""
import pickle, sys, resource
sys.path.insert(0, sys.argv[3])
import numpy  # imports first: the baseline counts them, the shard does not
from gindex_studio.core.benchmark import curriculum
from gindex_studio.core.scoring import divergence, matching
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
before = rss()
with open(sys.argv[1], "rb") as f:
    shard = pickle.load(f)
with open(sys.argv[2], "rb") as f:
    task = pickle.load(f)
loaded = rss()
shard.nearest_by_domain(task)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(before, loaded, peak)
"""


class Progress:
    """Lines on stderr: each phase as it starts, counts at most every ``every`` seconds."""

    def __init__(self, every: float = 5.0):
        self.start, self.every, self.last = time.perf_counter(), every, 0.0

    def note(self, text: str) -> None:
        self.last = time.perf_counter()
        print(f"[{self.last - self.start:7.1f} s] {text}", file=sys.stderr, flush=True)

    def count(self, done: int, total: int, what: str) -> None:
        if done == total or time.perf_counter() - self.last >= self.every:
            self.note(f"  {what} {done}/{total}")


QUIET = Progress(every=float("inf"))


def worker_memory(shard: Curriculum, task) -> tuple[float, float, float]:
    """(MB after imports, MB holding the shard, peak MB after answering one task) in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        sp, tp = Path(tmp, "shard.pkl"), Path(tmp, "task.pkl")
        sp.write_bytes(pickle.dumps(shard))
        tp.write_bytes(pickle.dumps(task))
        out = subprocess.run([sys.executable, "-c", _WORKER_PROBE, str(sp), str(tp), str(ROOT)],
                             capture_output=True, text=True, check=True).stdout.split()
    base, loaded, peak = (int(x) / 1e6 for x in out)
    return base, loaded - base, peak - base


def baseline_pairs_per_s(shard: Curriculum, tasks, n_pairs: int, seed: int = 5) -> float:
    """Exact Δ of sampled (task, program) pairs with no pruning: pairs per second on one core."""
    rng = random.Random(seed)
    pairs = [(rng.choice(tasks), rng.choice(shard.programs)) for _ in range(n_pairs)]
    t = time.perf_counter()
    for task, prog in pairs:
        score_prepared(task, prog, shard.options)
    return n_pairs / (time.perf_counter() - t)


def measure(n: int, tasks, baseline_pairs: int, progress: Progress = QUIET) -> dict:
    progress.note(f"shard of {n:,}: generating the programs")
    t = time.perf_counter()
    _domains, flows, names = curriculum_programs(n)
    gen = time.perf_counter() - t
    progress.note(f"shard of {n:,}: building it (prepare + bound tables)")
    t = time.perf_counter()
    shard = Curriculum.from_flows(flows, names)
    build = time.perf_counter() - t
    progress.note(f"shard of {n:,}: writing the programs to files and digesting them (--workers-read-files)")
    with tempfile.TemporaryDirectory() as folder:  # --workers-read-files: the task carries paths and digests
        paths = [Path(folder) / f"program-{i:07d}.json" for i in range(n)]
        for f, p in zip(flows, paths):
            write_flow_file(f, p)
        t = time.perf_counter()
        listed = CurriculumFiles(paths, shard.domains, shard.labels)
        digest_s = time.perf_counter() - t
        files_task = pickle.dumps((listed.paths, listed.digests, listed.domains, listed.labels, shard.options))
    del flows
    progress.note(f"shard of {n:,}: {len(tasks)} tasks against it")
    per_task, searched, skipped, bound = [], [], [], []
    for task in tasks:
        t = time.perf_counter()
        shard.lower_bounds(task)
        bound.append(time.perf_counter() - t)
        t = time.perf_counter()
        res = shard.nearest_by_domain(task)
        per_task.append(time.perf_counter() - t)
        searched.append(sum(r.searched for r in res.values()))
        skipped.append(sum(r.skipped for r in res.values()))
        progress.count(len(per_task), len(tasks), "tasks")
    progress.note(f"shard of {n:,}: baseline, exact score of {baseline_pairs} sampled pairs")
    base_rate = baseline_pairs_per_s(shard, tasks, baseline_pairs)
    progress.note(f"shard of {n:,}: worker memory (a fresh process loads the pickled shard)")
    mem_base, mem_shard, mem_peak = worker_memory(shard, tasks[0])
    pruned_rate = n / statistics.mean(per_task)  # (task, program) pairs answered per second
    return {
        "programs": n,
        "generate_s": gen,
        "build_s": build,
        "build_us_per_program": 1e6 * build / n,
        "task_s_mean": statistics.mean(per_task),
        "task_s_median": statistics.median(per_task),
        "task_s_max": max(per_task),
        "bound_s_mean": statistics.mean(bound),
        "searched_mean": statistics.mean(searched),
        "searched_max": max(searched),
        "skipped_mean": statistics.mean(skipped),
        "pruned": 1 - statistics.mean(searched) / n,
        "pairs_per_s": pruned_rate,
        "baseline_pairs_per_s": base_rate,
        "speedup_vs_baseline": pruned_rate / base_rate,
        "shard_pickled_mb": len(pickle.dumps(shard)) / 1e6,
        "task_pickled_kb": statistics.mean(len(pickle.dumps(t)) for t in tasks) / 1e3,
        "files_task_pickled_mb": len(files_task) / 1e6,
        "digest_us_per_program": 1e6 * digest_s / n,
        "worker_rss_imports_mb": mem_base,
        "worker_rss_shard_mb": mem_shard,
        "worker_rss_peak_mb": mem_peak,
    }


#: --quick: the same measurements on smaller shards and fewer tasks (about a minute)
QUICK = {"shards": "500,5000", "tasks": 5, "baseline_pairs": 100}
FULL = {"shards": "5000,50000", "tasks": 20, "baseline_pairs": 300}


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help=f"shards {QUICK['shards']}, {QUICK['tasks']} tasks, {QUICK['baseline_pairs']} baseline pairs "
                         "(options given as well win)")
    ap.add_argument("--shards", help=f"shard sizes to measure (programs; default {FULL['shards']})")
    ap.add_argument("--tasks", type=int, help=f"default {FULL['tasks']}")
    ap.add_argument("--baseline-pairs", type=int, help=f"default {FULL['baseline_pairs']}")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    for key, value in (QUICK if args.quick else FULL).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    try:
        args.sizes = [int(x) for x in args.shards.split(",")]
    except ValueError:
        ap.error(f"--shards {args.shards}: give sizes separated by commas, e.g. 5000,50000")
    if any(n < 1 for n in args.sizes) or args.tasks < 1 or args.baseline_pairs < 1:
        ap.error("--shards, --tasks and --baseline-pairs must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    progress = Progress()
    progress.note(f"bench_scaling: shards of {', '.join(f'{n:,}' for n in args.sizes)} programs, {args.tasks} tasks"
                  + ("" if args.quick else " (the doc's full run: 15-30 min here; --quick: about a minute)"))
    domains, _f, _n = curriculum_programs(16)
    tasks = tasks_for(domains, args.tasks)
    print(f"one worker, one core ({os.cpu_count()} cores on this machine, load {os.getloadavg()[0]:.1f}); "
          f"{len(tasks)} tasks (4 in 5 near a domain, 1 in 5 random)")
    rows = []
    for n in args.sizes:
        r = measure(n, tasks, args.baseline_pairs, progress)
        rows.append(r)
        print(f"\nshard of {n:,} programs")
        print(f"  build {r['build_s']:.1f} s ({r['build_us_per_program']:.0f} µs a program; generating them took "
              f"{r['generate_s']:.1f} s, not counted)")
        print(f"  a task: mean {r['task_s_mean'] * 1e3:.0f} ms, median {r['task_s_median'] * 1e3:.0f} ms, "
              f"max {r['task_s_max'] * 1e3:.0f} ms; searched {r['searched_mean']:.0f} pairs on average "
              f"(max {r['searched_max']}), pruned {r['pruned']:.2%}; the bound for every program alone "
              f"{r['bound_s_mean'] * 1e3:.0f} ms")
        print(f"  {r['pairs_per_s']:,.0f} pairs/s with pruning vs {r['baseline_pairs_per_s']:,.0f} pairs/s "
              f"exact score of every pair (same process): ×{r['speedup_vs_baseline']:.1f}")
        print(f"  data: shard {r['shard_pickled_mb']:.1f} MB pickled, a task {r['task_pickled_kb']:.2f} kB; "
              f"with --workers-read-files the shard task is {r['files_task_pickled_mb']:.2f} MB "
              f"(paths + digests; {r['digest_us_per_program']:.0f} µs a program for the client to read and digest its file)")
        print(f"  worker memory: {r['worker_rss_imports_mb']:.0f} MB imports + {r['worker_rss_shard_mb']:.0f} MB "
              f"shard; peak while answering a task +{r['worker_rss_peak_mb']:.0f} MB")
        sys.stdout.flush()
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    progress.note("done")


if __name__ == "__main__":
    main()
