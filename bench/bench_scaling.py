"""Measured inputs for docs/scaling.md: what one Dask worker does with one curriculum shard.

    python3 bench/bench_scaling.py [--shards 5000,50000] [--tasks 20] [--baseline-pairs 300]

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
from gindex_studio.core.runtime.distributed import CurriculumFiles  # noqa: E402
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


def measure(n: int, tasks, baseline_pairs: int) -> dict:
    t = time.perf_counter()
    _domains, flows, names = curriculum_programs(n)
    gen = time.perf_counter() - t
    t = time.perf_counter()
    shard = Curriculum.from_flows(flows, names)
    build = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as folder:  # --workers-read-files: the task carries paths and digests
        paths = [Path(folder) / f"program-{i:07d}.json" for i in range(n)]
        for f, p in zip(flows, paths):
            write_flow_file(f, p)
        t = time.perf_counter()
        listed = CurriculumFiles(paths, shard.domains, shard.labels)
        digest_s = time.perf_counter() - t
        files_task = pickle.dumps((listed.paths, listed.digests, listed.domains, listed.labels, shard.options))
    del flows
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
    base_rate = baseline_pairs_per_s(shard, tasks, baseline_pairs)
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shards", default="5000,50000", help="shard sizes to measure (programs)")
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--baseline-pairs", type=int, default=300)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()

    domains, _f, _n = curriculum_programs(16)
    tasks = tasks_for(domains, args.tasks)
    print(f"one worker, one core ({os.cpu_count()} cores on this machine, load {os.getloadavg()[0]:.1f}); "
          f"{len(tasks)} tasks (4 in 5 near a domain, 1 in 5 random)")
    rows = []
    for n in (int(x) for x in args.shards.split(",")):
        r = measure(n, tasks, args.baseline_pairs)
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
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
