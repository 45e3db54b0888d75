"""Benchmark: Δ per pair and Ω throughput, against a baseline run in the same process.

    python3 bench/bench_scoring.py            # full run (a few minutes)
    python3 bench/bench_scoring.py --quick    # fewer pairs

Per size (10, 30, 60, 120 nodes) and kind (near: a program and a copy with ~10% of nodes, wires
or attributes changed; far: unrelated programs) it prints the median and 95th percentile time per
Δ (prepare + search), the share answered exactly, and the ratio to the baseline: networkx's
max_weight_clique on the association graph (weights scaled to integers), run on the same pairs
in a child process with a time limit per pair (a pair that hits the limit counts with the limit,
so the ratio is then a lower bound, marked ">").

Then Ω: 50 tasks against a 5,000-program curriculum of 16 domains (each domain a template of its
own node types with varied attributes and wiring), on all cores, with the time of the same work
scored pair by pair without pruning estimated from a sample.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gindex_studio.core.benchmark.curriculum import Curriculum, omega_many, overall  # noqa: E402
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score_prepared  # noqa: E402
from gindex_studio.core.flows.generate import MIDDLE_TYPES, perturb, random_flow  # noqa: E402
from gindex_studio.core.scoring.matching import _weights  # noqa: E402
from gindex_studio.core.scoring.search_base import pair_ok as _pair_ok  # noqa: E402


def pairs_for(n: int, kind: str, count: int, seed: int):
    out = []
    for k in range(count):
        rng = random.Random(seed * 1000 + k)
        a = random_flow(n, rng, "a")
        b = perturb(a, rng, 0.1) if kind == "near" else random_flow(n, random.Random(seed * 7777 + k), "b")
        out.append((a, b))
    return out


def baseline_delta(a, b) -> float:
    """networkx max_weight_clique on the association graph of Eq. 11/12 (paper profile)."""
    import networkx as nx

    pa, pb = prepare(a), prepare(b)
    g1, g2 = pa.graph, pb.graph
    raw, w, scale = _weights(g1, g2, "paper", True)
    verts = list(w)
    g = nx.Graph()
    for i, k in enumerate(verts):
        g.add_node(i, weight=w[k])
    for i in range(len(verts)):
        u1, v1 = verts[i]
        for j in range(i + 1, len(verts)):
            u2, v2 = verts[j]
            if u1 != u2 and v1 != v2 and _pair_ok(g1, g2, u1, v1, u2, v2, "and"):
                g.add_edge(i, j)
    _c, weight = nx.max_weight_clique(g, weight="weight")
    s = Fraction(weight, scale)
    return float(1 - s * s / (g1.n * g2.n))


def _baseline_worker(conn):
    while True:
        item = conn.recv()
        if item is None:
            return
        a, b = item
        t = time.perf_counter()
        d = baseline_delta(a, b)
        conn.send((time.perf_counter() - t, d))


class Baseline:
    """A child process that runs the baseline with a per-pair time limit (restarted on timeout)."""

    def __init__(self):
        self.ctx = mp.get_context("fork")
        self._start()

    def _start(self):
        self.parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_baseline_worker, args=(child,), daemon=True)
        self.proc.start()

    def run(self, a, b, limit: float):
        self.parent.send((a, b))
        if self.parent.poll(limit):
            return self.parent.recv()
        self.proc.kill()
        self.proc.join()
        self._start()
        return None

    def close(self):
        try:
            self.parent.send(None)
        except OSError:
            pass
        self.proc.join(1)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(p * len(xs)) - 1))]


def bench_delta(quick: bool, baseline_limit: float):
    print("Δ per pair (paper profile). times in ms; ratio = baseline time / our time on the same pairs")
    print(f"{'size':>4} {'kind':<4} {'pairs':>5} {'median':>8} {'p95':>8} {'max':>8} {'exact':>6} "
          f"{'deadline':>8} {'base med':>9} {'ratio(med)':>10} {'agree':>6}")
    base = Baseline()
    cells = [(10, "near"), (10, "far"), (30, "near"), (30, "far"), (60, "near"), (60, "far"),
             (120, "near"), (120, "far")]
    try:
        for n, kind in cells:
            count = {10: 40, 30: 40, 60: 30, 120: 20}[n] // (4 if quick else 1)
            deadline = 0.2 if (n >= 60 and kind == "far") else None
            # near pairs are expected exact; far 30 exact too (a 10 s guard keeps the run bounded)
            opts = ScoreOptions(deadline=deadline if deadline else 10.0)
            times, exact, deltas = [], 0, []
            for a, b in pairs_for(n, kind, count, seed=n + (0 if kind == "near" else 1)):
                t = time.perf_counter()
                r = score_prepared(prepare(a, opts), prepare(b, opts), opts)
                times.append(time.perf_counter() - t)
                exact += r.exact
                deltas.append((r.delta, r.exact))
            # baseline on up to 8 pairs of the cell (it can take seconds per pair)
            btimes, agree, capped = [], 0, False
            if n <= 30:
                for k, (a, b) in enumerate(pairs_for(n, kind, min(count, 8), seed=n + (0 if kind == "near" else 1))):
                    res = base.run(a, b, baseline_limit)
                    if res is None:
                        btimes.append(baseline_limit)
                        capped = True
                    else:
                        btimes.append(res[0])
                        agree += abs(res[1] - deltas[k][0]) < 1e-12
            med = statistics.median(times)
            if btimes:
                bmed = statistics.median(btimes)
                ours = statistics.median(times[: len(btimes)])
                ratio = f"{'>' if capped else ''}{bmed / ours:.0f}x"
                bcol = f"{1000 * bmed:9.1f}"
                acol = f"{agree}/{len(btimes)}"
            else:
                ratio, bcol, acol = "-", "        -", "-"
            print(f"{n:>4} {kind:<4} {count:>5} {1000 * med:8.2f} {1000 * pct(times, 0.95):8.2f} "
                  f"{1000 * max(times):8.1f} {exact / count:6.0%} {('%.1fs' % deadline) if deadline else '-':>8} "
                  f"{bcol} {ratio:>10} {acol:>6}", flush=True)
    finally:
        base.close()


def curriculum_programs(total: int, seed: int = 11):
    rng = random.Random(seed)
    domains = []
    for d in range(16):
        palette = rng.sample(MIDDLE_TYPES, 3)
        template = random_flow(rng.randint(6, 30), rng, f"d{d}x", palette=palette)
        domains.append((f"domain-{d:02d}", template, palette))
    flows, names = [], []
    for i in range(total):
        name, template, _p = domains[i % 16]
        flows.append(perturb(template, rng, 0.15, prefix=f"c{i}x"))
        names.append(name)
    return domains, flows, names


def type_list_floor(tasks, cur) -> float:
    """Pairs per CPU-second of the least work a pair can cost: reading the program's node types
    against the task's (every pair, this process)."""
    types = [p.graph.columns()[0] for p in cur.programs]
    t0 = time.process_time()
    for task in tasks:
        have = set(task.graph.columns()[0])
        for ts in types:
            sum(1 for t in ts if t in have)
    return len(tasks) * len(types) / (time.process_time() - t0)


def bench_omega(quick: bool, pair_deadline: float | None):
    n_cur = 1000 if quick else 5000
    n_tasks = 10 if quick else 50
    print(f"\nΩ: {n_tasks} tasks against a {n_cur}-program curriculum (16 domains), {os.cpu_count()} cores")
    t0 = time.perf_counter()
    domains, flows, names = curriculum_programs(n_cur)
    t1 = time.perf_counter()
    cur = Curriculum.from_flows(flows, names)
    t2 = time.perf_counter()
    rng = random.Random(99)
    tasks = []
    for k in range(n_tasks):
        if k % 5 == 4:  # a task from a domain the curriculum has never seen
            tasks.append(random_flow(rng.randint(8, 25), rng, f"t{k}x", palette=rng.sample(MIDDLE_TYPES, 3)))
        else:
            _name, template, _p = domains[k % 16]
            tasks.append(perturb(template, rng, 0.2, prefix=f"t{k}x"))
    prepared = [prepare(t) for t in tasks]
    import resource

    cpu0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t3 = time.perf_counter()
    results = omega_many(prepared, cur, deadline=pair_deadline)
    t4 = time.perf_counter()
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool's workers, reaped when it shut down
    cpu = (resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime
           - cpu0 + kids1.ru_utime + kids1.ru_stime - kids0.ru_utime - kids0.ru_stime)
    searched = sum(sum(n.searched for n in r.values()) for r in results)
    cells = [n for r in results for n in r.values()]
    exact_overall = sum(overall(r).exact for r in results)
    pairs = n_tasks * n_cur
    # baseline in the same process: unpruned pair-by-pair scoring, timed on a sample of pairs
    sample = random.Random(5).sample(range(n_cur), 200)
    t5 = time.perf_counter()
    for i in sample:
        score_prepared(prepared[0], cur.programs[i])
    per_pair = (time.perf_counter() - t5) / len(sample)
    est = per_pair * pairs
    print(f"generate {t1 - t0:.1f} s, prepare curriculum {t2 - t1:.1f} s, Ω (per domain, exact) {t4 - t3:.1f} s")
    print(f"pairs {pairs}, searched {searched} ({searched / pairs:.1%}), the rest skipped by bounds; "
          f"{pairs / (t4 - t3):,.0f} pairs/s (Ω run only)")
    cores = os.cpu_count() or 1
    print(f"CPU time of the Ω run (this process and its workers) {cpu:.1f} s: {pairs / cpu:,.0f} pairs per CPU-second, "
          f"{cores * pairs / cpu:,.0f} pairs/s on {cores} otherwise idle cores (a figure for a loaded machine, where "
          f"wall time measures the other jobs)")
    if pair_deadline is not None:
        print(f"per-pair deadline {pair_deadline:g} s: Ω(T', C) proven exact for {exact_overall}/{n_tasks} tasks, "
              f"Ω(T', C_i) for {sum(n.exact for n in cells)}/{len(cells)} (task, domain) cells")
    floor = type_list_floor(prepared, cur)
    print(f"same-run floor: reading both programs' type lists for every pair (one process) {floor:,.0f} pairs per "
          f"CPU-second; Ω per core / floor = {pairs / cpu / floor:.2f} (target: Ω ≥ 90,000 pairs per CPU-second)")
    print(f"total Ω run (prepare + search) {t4 - t1:.1f} s; unpruned single-process estimate {est:.0f} s "
          f"→ ratio {est / (t4 - t3):.0f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--baseline-limit", type=float, default=20.0)
    ap.add_argument("--only", choices=("delta", "omega"))
    ap.add_argument("--pair-deadline", type=float, default=None,
                    help="Ω: seconds per searched pair (default: none, fully exact)")
    args = ap.parse_args()
    if args.only != "omega":
        bench_delta(args.quick, args.baseline_limit)
    if args.only != "delta":
        bench_omega(args.quick, args.pair_deadline)


if __name__ == "__main__":
    main()
