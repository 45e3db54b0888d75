"""Ω on a Dask cluster against the local process pool, in one run (ratios, not absolute times).

    python3 bench/bench_dask.py [--programs 5000] [--tasks 50] [--workers 2] [--growth 10]

Prints, for the same Ω job (tasks × curriculum, exact, per domain):
- the local process pool (`omega_many`, N processes) and a local Dask cluster of N worker
  processes (`omega_many_dask`): wall time of each and the overhead of Dask in percent (cluster
  start-up is timed separately and not counted: a lab's cluster is already running);
- per-pair throughput as the curriculum grows by --growth× (pairs/s over all pairs, and over the
  pairs actually searched), with the pruning rate: the figures docs/scaling.md builds on;
- the data the run moves to the cluster (pickled shard and task sizes).
"""
from __future__ import annotations

import argparse
import os
import pickle
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scoring import curriculum_programs  # noqa: E402
from gindex_studio.core.benchmark.curriculum import Curriculum, omega_many  # noqa: E402
from gindex_studio.core.support.cluster import close, connect  # noqa: E402
from gindex_studio.core.benchmark.on_cluster import omega_many_dask, plan_shards  # noqa: E402
from gindex_studio.core.scoring.divergence import prepare  # noqa: E402
from gindex_studio.core.flows.generate import MIDDLE_TYPES, perturb, random_flow  # noqa: E402


def tasks_for(domains, n_tasks, seed=99):
    rng = random.Random(seed)
    out = []
    for k in range(n_tasks):
        if k % 5 == 4:
            out.append(random_flow(rng.randint(8, 25), rng, f"t{k}x", palette=rng.sample(MIDDLE_TYPES, 3)))
        else:
            _name, template, _p = domains[k % 16]
            out.append(perturb(template, rng, 0.2, prefix=f"t{k}x"))
    return [prepare(t) for t in out]


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 1e6


def searched(results):
    return sum(n.searched for r in results for n in r.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", type=int, default=5000)
    ap.add_argument("--tasks", type=int, default=50)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--growth", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2, help="alternate local / Dask runs this many times")
    args = ap.parse_args()

    domains, flows, names = curriculum_programs(args.programs)
    cur = Curriculum.from_flows(flows, names)
    tasks = tasks_for(domains, args.tasks)
    pairs = len(tasks) * len(cur)
    print(f"Ω: {len(tasks)} tasks × {len(cur)} programs (16 domains), {args.workers} workers, {os.cpu_count()} cores")

    t0 = time.perf_counter()
    client = connect(workers=args.workers)
    print(f"local Dask cluster start-up: {time.perf_counter() - t0:.1f} s (not counted below)")
    try:
        omega_many_dask(tasks[:2], cur, client)  # warm the workers' imports
        local_t, dask_t = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            local = omega_many(tasks, cur, workers=args.workers)
            local_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            run = omega_many_dask(tasks, cur, client)
            dask_t.append(time.perf_counter() - t)
        assert not run.missing
        same = all(
            {d: n.omega for d, n in a.items()} == {d: n.omega for d, n in b.items()} for a, b in zip(local, run.results)
        )
        lo, da = min(local_t), min(dask_t)
        print(f"local pool   {lo:7.2f} s   ({', '.join(f'{x:.2f}' for x in local_t)})")
        print(f"Dask cluster {da:7.2f} s   ({', '.join(f'{x:.2f}' for x in dask_t)})")
        print(f"Dask overhead {100 * (da / lo - 1):+.1f} %  (target < 25 %); same Ω for every task and domain: {same}")
        print(f"pairs {pairs}, searched {searched(local)} local / {searched(run.results)} on Dask "
              f"(per-shard pruning: each shard keeps its own best so far)")

        shards = plan_shards(len(cur), args.workers)
        shard_bytes = [len(pickle.dumps([cur.programs[i] for i in r])) for r in shards]
        task_bytes = len(pickle.dumps(tasks))
        print(f"data moved: {len(shards)} shards, {sum(shard_bytes) / 1e6:.1f} MB once "
              f"({sum(shard_bytes) / len(cur) / 1e3:.2f} kB a program); tasks {task_bytes / 1e3:.0f} kB "
              f"× {len(shards)} shards ({task_bytes / len(tasks) / 1e3:.2f} kB a task)")

        print(f"\nthroughput as the curriculum grows {args.growth}× (Dask, {args.workers} workers)")
        print(f"{'programs':>9} {'pairs':>9} {'searched':>9} {'pruned':>7} {'seconds':>8} {'pairs/s':>9} "
              f"{'searched/s':>10} {'MB/shard':>9}")
        for n in (args.programs // args.growth, args.programs):
            d2, f2, n2 = curriculum_programs(n)
            c2 = Curriculum.from_flows(f2, n2)
            t = time.perf_counter()
            r2 = omega_many_dask(tasks, c2, client)
            sec = time.perf_counter() - t
            s2 = searched(r2.results)
            p2 = len(tasks) * n
            mb = max(len(pickle.dumps([c2.programs[i] for i in r])) for r in plan_shards(n, args.workers)) / 1e6
            rss = max(client.run(_rss_mb).values())
            print(f"{n:>9} {p2:>9} {s2:>9} {1 - s2 / p2:>7.1%} {sec:>8.2f} {p2 / sec:>9.0f} {s2 / sec:>10.0f} {mb:>9.2f}"
                  f"   worker RSS {rss:.0f} MB")
    finally:
        close(client)


if __name__ == "__main__":
    main()
