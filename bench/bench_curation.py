"""Curation speed (issue 9), each figure with a baseline run in the same process.

    python3 bench/bench_curation.py                 # the issue's sizes (several minutes)
    python3 bench/bench_curation.py --quick         # smaller sizes, same measurements
    python3 bench/bench_curation.py --only core     # duplicates and leaks only
    python3 bench/bench_curation.py --only summary  # the domain × domain summary (exact least Δ)
    python3 bench/bench_curation.py --only window   # matrix, pan/zoom, reopening only

Sections:
- near-duplicate groups at Δ ≤ 0.05 over --programs programs (16 generated domains, with planted
  identical copies and one-attribute edits): wall time, pairs searched out of all pairs, and the
  time of the same question answered pair by pair without bounds, estimated from a random
  sample of pairs timed here (the ratio); the sample also checks exactness: every sampled pair
  with Δ ≤ 0.05 must be in the groups;
- leaks at Ω ≤ 0.05 (and the full Ω the window's histogram needs) of --tasks tasks against the
  same curriculum, with planted leaks, against the same unpruned estimate;
- the domain × domain summary the window shows above 1,000 programs, over the --programs
  programs: the sampled mean and the exact least Δ of every block, wall time and pairs searched;
  the exact least Δ's wall time on a PairPool against the same in one process (same run), and
  against every pair of the curriculum scored without bounds (the unpruned per-pair rate);
- the full matrix of --matrix programs in the real curation window's heatmap (offscreen Qt): time
  until the first complete row band is on screen (painted), full matrix time (its searches on a
  PairPool after the first band), cells left inexact, against the same window's job with the
  pool switched off (one worker process, the same run) and the per-pair rate of the unpruned
  matrix baseline;
- heatmap pan/zoom: mean and worst time of one repaint of the heatmap after a pan or a zoom step,
  on the full matrix (the 16 ms frame budget), against a repaint with no change;
- reopening from the cache: a new window on the same programs with the disk cache the first run
  filled: until every cell is painted, and until the clustering order and the map are applied
  (and painted), against computing them (the first run).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scoring import curriculum_programs  # noqa: E402
from gindex_studio.core.curation import analysis as an  # noqa: E402
from gindex_studio.core.curation.engine import PairEngine  # noqa: E402
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score_prepared  # noqa: E402
from gindex_studio.core.flows.flow import flow_from_nodes  # noqa: E402
from gindex_studio.core.flows.generate import perturb  # noqa: E402

THRESHOLD = Fraction(5, 100)


def fresh_copy(flow, prefix: str, change_one: bool = False):
    """The same program with new ids and moved nodes (Δ = 0), or with one attribute edited."""
    nodes = [dict(n.data) for n in flow.copy().nodes]
    remap = {n["id"]: f"{prefix}{k}" for k, n in enumerate(nodes)}
    for n in nodes:
        n["id"] = remap[n["id"]]
        n["wires"] = [[remap.get(t, t) for t in port] for port in n.get("wires", [])]
        n["x"] = n.get("x", 0) + 17
    if change_one:
        for n in sorted(nodes, key=lambda n: -len(n)):
            keys = [k for k in n if k not in ("id", "type", "wires", "x", "y", "z", "name")]
            if keys:
                n[keys[0]] = "planted-change"
                break
    return flow_from_nodes(nodes)


def curriculum(total: int, planted: int, seed: int = 11):
    """``total`` programs: generated ones, the last ``planted`` of them copies (half identical,
    half one attribute changed) of earlier ones in the same domain; ``copies``: (source, copy,
    one attribute changed)."""
    domains, flows, names = curriculum_programs(total - planted, seed)
    rng = random.Random(seed + 1)
    copies = []
    for k in range(planted):
        src = rng.randrange(len(flows))
        copies.append((src, len(flows), bool(k % 2)))
        flows.append(fresh_copy(flows[src], f"p{k}x", change_one=bool(k % 2)))
        names.append(names[src])
    return domains, flows, names, copies


def unpruned_per_pair(flows, pairs) -> tuple[float, list[Fraction]]:
    """Seconds per pair of plain exact Δ (prepare each side once, search every pair) and the values."""
    prepared = {}
    t0 = time.perf_counter()
    out = []
    for i, j in pairs:
        for k in (i, j):
            if k not in prepared:
                prepared[k] = prepare(flows[k])
        out.append(score_prepared(prepared[i], prepared[j]).delta)
    return (time.perf_counter() - t0) / len(pairs), out


def bench_duplicates(n: int, sample: int) -> None:
    print(f"\nNear-duplicate groups at Δ ≤ {float(THRESHOLD)} over {n} programs (16 domains, {n // 50} planted copies), "
          f"{os.cpu_count()} cores")
    _d, flows, _names, copies = curriculum(n, n // 50)
    engine = PairEngine(flows, ScoreOptions())
    t0 = time.perf_counter()
    engine.prepared
    t1 = time.perf_counter()
    rep = an.duplicate_groups(engine, range(n), THRESHOLD)
    t2 = time.perf_counter()
    in_groups = {m: k for k, g in enumerate(rep.groups) for m in g.members}
    rng = random.Random(3)
    pairs = [tuple(sorted(rng.sample(range(n), 2))) for _ in range(sample)]
    planted = [(a, b) for a, b, _c in copies]
    per_pair, values = unpruned_per_pair(flows, pairs + planted)
    identical_grouped = all(in_groups.get(a, -1) == in_groups.get(b, -2) for a, b, c in copies if not c)
    missed = [p for p, v in zip(pairs + planted, values) if v <= THRESHOLD
              and not (p[0] in in_groups and in_groups[p[0]] == in_groups.get(p[1]))]
    total = n * (n - 1) // 2
    est = per_pair * total
    print(f"prepare {t1 - t0:.1f} s; groups {t2 - t1:.1f} s ({len(rep.groups)} groups, {sum(len(g.members) for g in rep.groups)} "
          f"programs, {sum(len(g.exact) > 0 for g in rep.groups)} with identical members)")
    print(f"pairs {total}, searched {rep.pairs_searched} ({rep.pairs_searched / total:.4%}), the rest ruled out by bounds")
    print(f"check: {len(pairs)} random pairs + {len(planted)} planted pairs scored without bounds, "
          f"{len(missed)} with Δ ≤ {float(THRESHOLD)} missing from the groups; every identical copy grouped "
          f"with its source: {identical_grouped}")
    print(f"baseline: unpruned pair by pair {per_pair * 1e3:.2f} ms/pair → {est:.0f} s for all pairs "
          f"→ ratio {est / (t2 - t1):.0f}x")


def bench_leaks(n: int, n_tasks: int, sample: int) -> None:
    print(f"\nLeaks at Ω ≤ {float(THRESHOLD)}: {n_tasks} tasks against a {n}-program curriculum")
    domains, flows, _names, _copies = curriculum(n, n // 50)
    rng = random.Random(8)
    tasks = []
    for k in range(n_tasks):
        if k % 20 == 0:  # a planted leak: a curriculum program with new ids
            tasks.append(fresh_copy(flows[rng.randrange(n)], f"leak{k}x", change_one=bool(k % 40)))
        else:
            tasks.append(perturb(domains[k % 16][1], rng, 0.25, prefix=f"t{k}x"))
    engine = PairEngine(flows + tasks, ScoreOptions())
    cur, tst = list(range(n)), list(range(n, n + n_tasks))
    t0 = time.perf_counter()
    engine.prepared
    t1 = time.perf_counter()
    leaks = an.leaks(engine, tst, cur, THRESHOLD)
    t2 = time.perf_counter()
    searched_leaks = engine.stats.searched
    omegas = an.omega(engine, tst, cur)
    t3 = time.perf_counter()
    same = sorted((x.task, x.delta) for x in leaks) == sorted(
        (t, v.delta) for t, v in omegas.items() if v.delta <= THRESHOLD)
    pairs = [(rng.choice(tst), rng.choice(cur)) for _ in range(sample)]
    per_pair, values = unpruned_per_pair(flows + tasks, pairs)
    below = sum(v < omegas[t].delta for (t, _c), v in zip(pairs, values))
    total = n * n_tasks
    est = per_pair * total
    print(f"prepare {t1 - t0:.1f} s; leaks {t2 - t1:.1f} s ({len(leaks)} leaks, {len(range(0, n_tasks, 20))} planted; "
          f"{searched_leaks} of {total} pairs searched)")
    print(f"full Ω of every task (the histogram) {t3 - t2:.1f} s more ({engine.stats.searched - searched_leaks} pairs "
          f"searched); leaks from it equal: {same}")
    print(f"check: {len(pairs)} random (task, program) pairs without bounds, {below} below the task's Ω")
    print(f"baseline: unpruned {per_pair * 1e3:.2f} ms/pair → {est:.0f} s → ratio {est / (t2 - t1):.0f}x (leaks), "
          f"{est / (t3 - t1):.0f}x (leaks + full Ω)")


def bench_summary(n: int, sample: int) -> None:
    import numpy as np

    print(f"\nDomain × domain summary over {n} programs (16 domains; sampled mean of 10 programs a domain, "
          f"exact least Δ of every block)")
    _d, flows, names, _copies = curriculum(n, n // 50)
    doms = sorted(set(names))
    blocks = [[i for i, d in enumerate(names) if d == x] for x in doms]

    def summary(workers):
        """(rows with the exact least Δ, prepare s, sampled rows s, exact least s (wall), engine)."""
        engine = PairEngine(flows, ScoreOptions())
        t0 = time.perf_counter()
        engine.prepared
        t1 = time.perf_counter()
        gen = an.domain_summary(engine, blocks, 10, 0.05, workers=workers)
        sampled = [next(gen) for _ in doms]
        t2 = time.perf_counter()
        exact = list(gen)
        t3 = time.perf_counter()
        del sampled
        return exact, t1 - t0, t2 - t1, t3 - t2, engine

    rows, prep_s, sample_s, least_s, engine = summary(None)
    base_rows, _p, _s, base_least_s, _e = summary(1)
    same = all(np.array_equal(a.least, b.least, equal_nan=True) for a, b in zip(rows, base_rows))
    print(f"exact least Δ of every block: {least_s:.1f} s wall on a PairPool of {os.cpu_count()} processes against "
          f"{base_least_s:.1f} s in one process (the same run) → {base_least_s / least_s:.2f}x; same values: {same} "
          f"(load average {os.getloadavg()[0]:.1f})")
    t1, t2 = 0.0, prep_s + sample_s + least_s
    rng = random.Random(5)
    pairs = [tuple(rng.sample(range(n), 2)) for _ in range(sample)]
    per_pair, values = unpruned_per_pair(flows, pairs)
    pos = {i: k for k, b in enumerate(blocks) for i in b}
    below = sum(float(v) < rows[pos[i]].least[pos[j]] for (i, j), v in zip(pairs, values))
    total = n * (n - 1)
    est = per_pair * total / 2
    print(f"prepare {prep_s:.1f} s; summary {sample_s + least_s:.1f} s ({sample_s:.1f} s sampled, {least_s:.1f} s exact "
          f"least; {len(doms)}×{len(doms)} blocks; {engine.stats.searched} pair searches here for {total} ordered pairs)")
    print(f"check: {len(pairs)} random pairs scored without bounds, {below} below their block's least Δ")
    print(f"baseline: every unordered pair scored, {per_pair * 1e3:.2f} ms/pair → {est:.0f} s → ratio {est / (sample_s + least_s):.0f}x")


def bench_window(m: int, frames: int, window_baseline: bool = True) -> None:
    """The real curation window (offscreen) on ``m`` generated programs: first band, full matrix,
    pan/zoom repaint, then a second window on the cache the first one filled."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QPointF
    from PySide6.QtWidgets import QApplication

    from gindex_studio.core.curation.cache import DeltaCache
    from gindex_studio.core.curation.workspace import Item, Workspace
    from gindex_studio.ui.curation.window import CurationWindow

    app = QApplication.instance() or QApplication([])
    _d, flows, names, _c = curriculum(m, m // 50)
    print(f"\nThe curation window on {m} programs (16 domains; Qt offscreen; the window's per-pair deadline)")

    def workspace():
        return Workspace([Item(f"{d}/p{i:05d}.json", None, f, d, "curriculum") for i, (f, d) in enumerate(zip(flows, names))])

    def open_until_done(cache_path) -> tuple[CurationWindow, float, float, float, float]:
        """(window, first complete band painted, every cell painted, arranged: clustering order
        and map applied and painted), seconds after the window was asked for, and the CPU
        seconds this process spent until then (all threads: what a busy machine cannot inflate)."""
        t0, c0 = time.perf_counter(), time.process_time()
        win = CurationWindow(workspace(), DeltaCache(cache_path))
        win.resize(1366, 768)
        win.show()
        hm, first, cells = win.heatmap, None, None
        win.job_cpu = None
        win.report_seconds, win.opened_at = None, t0
        while True:
            app.processEvents()
            job = win._matrix_job
            if job is not None and getattr(job, "cpu_seconds", None) is not None:
                win.job_cpu = job.cpu_seconds  # the matrix job's process and its pool's
            if first is None and hm.lower.size and not np.isnan(hm.lower[0]).any():
                hm.plot.viewport().repaint()  # the band painted
                first = time.perf_counter() - t0
                win.first_band_cpu = time.process_time() - c0
            # the last row first (one row's check, not a million cells' every 2 ms: this loop
            # would otherwise take a fifth of a core from the job it measures)
            if (cells is None and hm.lower.size and not np.isnan(hm.lower[-1]).any()
                    and not np.isnan(hm.lower).any()):
                hm.plot.viewport().repaint()
                cells = time.perf_counter() - t0
            if win.report_seconds is None and win.model.report is not None:
                win.report_seconds = time.perf_counter() - t0
            if win.matrix_seconds is not None:
                hm.plot.viewport().repaint()
                return win, first, cells, time.perf_counter() - t0, time.process_time() - c0
            time.sleep(0.002)

    def report_shown(win) -> float:
        """Seconds from the window's opening until its first report was shown (waits for it)."""
        if win.report_seconds is None:
            win.wait_for_report()
            win.report_seconds = time.perf_counter() - win.opened_at
        return win.report_seconds

    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        cache_path = Path(tmp) / "cache.sqlite"
        win, first, _cells, full, cpu = open_until_done(cache_path)
        hm = win.heatmap
        print(f"first complete row band on screen {first:.2f} s after the window opened ({win.first_band_cpu:.2f} s of "
              f"this process's CPU, all threads); full matrix {full:.1f} s "
              f"({win.matrix_seconds:.1f} s in the matrix job; {int((~hm.exact).sum())} of {m * m} cells cut by the deadline); "
              f"CPU until then {cpu:.1f} s in this process, {win.job_cpu or 0:.1f} s in the matrix job's process and its pool "
              f"(load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores); the report (near-duplicates, "
              f"leaks, outliers) shown {report_shown(win):.1f} s after the window opened")
        if window_baseline:  # the same window's job with its searches in its one process (no PairPool)
            from gindex_studio.core.jobs import curation as curation_jobs

            keep, curation_jobs.POOL_MIN_PAIRS = curation_jobs.POOL_MIN_PAIRS, 10**12
            try:
                base, _f, _c, base_full, _cpu = open_until_done(Path(tmp) / "baseline.sqlite")
                same = np.array_equal(base.heatmap.matrix(), hm.matrix())
                print(f"baseline: the same job without its PairPool (one worker process) {base.matrix_seconds:.1f} s in "
                      f"the matrix job, {base_full:.1f} s until done ({base.job_cpu or 0:.1f} s of its CPU) → the pool "
                      f"{base.matrix_seconds / win.matrix_seconds:.2f}x; same values: {same} "
                      f"(load average {os.getloadavg()[0]:.1f})")
                base.close()
            finally:
                curation_jobs.POOL_MIN_PAIRS = keep
        rng = random.Random(4)
        sample = [(rng.randrange(m), rng.randrange(m)) for _ in range(300)]
        per_pair, _v = unpruned_per_pair(flows, sample)
        print(f"baseline: every ordered pair scored one by one, {per_pair * 1e3:.2f} ms/pair → {per_pair * m * m:.0f} s "
              f"→ ratio {per_pair * m * m / win.matrix_seconds:.1f}x")
        vb, view = hm.plot.getViewBox(), hm.plot.viewport()

        def frame_times(step) -> tuple[list[float], list[float]]:
            """Wall and GUI-thread CPU seconds of each repaint after ``step``."""
            wall, cpu = [], []
            for k in range(frames):
                step(k)
                t, c = time.perf_counter(), time.thread_time()
                view.repaint()
                wall.append(time.perf_counter() - t)
                cpu.append(time.thread_time() - c)
            return wall, cpu

        still = frame_times(lambda k: None)
        pan = frame_times(lambda k: vb.translateBy(QPointF(m / 50 * (1 if k % 2 else -1), m / 70)))
        zoom = frame_times(lambda k: vb.scaleBy((0.8, 0.8) if k % 2 else (1.25, 1.25)))

        def ms(xs) -> str:
            wall, cpu = xs
            return (f"mean {1e3 * sum(wall) / len(wall):.1f} ms, worst {1e3 * max(wall):.1f} ms "
                    f"(CPU mean {1e3 * sum(cpu) / len(cpu):.1f} ms, worst {1e3 * max(cpu):.1f} ms)")

        print(f"heatmap repaint ({view.width()}×{view.height()} px, {frames} frames each): pan {ms(pan)}; zoom {ms(zoom)}; "
              f"baseline repaint with nothing changed {ms(still)}")
        first_values, hm_order = hm.matrix(), list(hm.order)
        win.close()
        win.deleteLater()
        app.processEvents()
        win2, first2, cells2, full2, cpu2 = open_until_done(cache_path)
        same = np.array_equal(win2.heatmap.matrix(), first_values)
        same_order = win2.heatmap.order == hm_order
        print(f"reopening from the cache: every cell on screen {cells2:.2f} s after the window was asked for (first "
              f"band {first2:.2f} s), in the clustering order with the map {full2:.2f} s ({cpu2:.2f} s of this process's "
              f"CPU, all threads), against {full:.1f} s computing them → ratio {full / full2:.0f}x; same values: {same}; same order: {same_order}")
        win2.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="1,000 programs, 50 tasks, a 300-program matrix")
    ap.add_argument("--programs", type=int)
    ap.add_argument("--tasks", type=int)
    ap.add_argument("--matrix", type=int)
    ap.add_argument("--sample", type=int, default=1500, help="pairs timed for the unpruned baseline")
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--only", choices=("core", "summary", "window"))
    ap.add_argument("--no-window-baseline", action="store_true", help="skip the window job's one-process run")
    a = ap.parse_args()
    n = a.programs or (1000 if a.quick else 5000)
    tasks = a.tasks or (50 if a.quick else 200)
    m = a.matrix or (300 if a.quick else 1000)
    if a.only in (None, "core"):
        bench_duplicates(n, a.sample)
        bench_leaks(n, tasks, a.sample)
    if a.only in (None, "summary"):
        bench_summary(n, a.sample)
    if a.only in (None, "window"):
        bench_window(m, a.frames, not a.no_window_baseline)


if __name__ == "__main__":
    main()
