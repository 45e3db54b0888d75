"""Analysis: the window on 3 systems × 500 tasks × 5 attempts, and the bootstrap, against targets.

The study is built from the demo study's scored systems: each system's 22 scored tasks are
replicated to 500 (fresh ids, reference programs and domains kept, per-attempt Δ drawn around the
system's own), so every number is computed from real results; the scoring itself (Δ, Ω) is not
timed, as the issue asks ("opens within 3 s after scoring"). Timed:

- window: ``AnalysisWindow.set_systems`` until every figure's tab has been painted once
  (analysis + table + sentences + 9 pyqtgraph figures). Target ≤ 3 s.
- bootstrap: ``bootstrap_mean`` with 2,000 stratified resamples over 500 tasks. Target ≤ 1 s.

Baselines in the same process: a plain numpy percentile bootstrap (2,000 × 500, unstratified,
no rescaling) for the bootstrap, and drawing one scatter of 1,500 points in a PlotWidget for the
window, so the ratios say what stratification and the other eight figures cost.

Wall and CPU time are both printed: on a shared machine the wall time includes waiting for a core.

Run:  QT_QPA_PLATFORM=offscreen PYTHONPATH=. python3 bench/bench_analysis.py [--tasks 500] [--attempts 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def synthetic_systems(tasks: int, attempts: int, seed: int = 0):
    import numpy as np

    from gindex_studio.core.benchmark.analysis import System
    from gindex_studio.core.benchmark.gindex import _finish, compute_gindex
    from gindex_studio.core.benchmark.study import open_inputs
    from gindex_studio.paths import DEMO_DIR

    rng = np.random.default_rng(seed)
    _name, pairs = open_inputs([DEMO_DIR / "study" / "study.json"])
    out = []
    for label, exp in pairs:
        res = compute_gindex(exp, workers=1)
        new_tasks, new_results = [], []
        for j in range(tasks):
            k = j % len(exp.tasks)
            t, r = exp.tasks[k], res.tasks[k]
            tid = f"{t.id}#{j}"
            deltas = np.clip(rng.normal(r.delta, 0.15, attempts), 0, 1)
            deltas[rng.random(attempts) < 1 - r.delta] = 0.0
            d = [float(x) for x in deltas]
            new_tasks.append(replace(t, id=tid, more_attempts=[t.attempts[0]] * (attempts - 1)))
            new_results.append(replace(r, index=j, id=tid, delta=sum(d) / attempts, theta=1 - sum(d) / attempts,
                                       attempt_deltas=d, attempt_exact=[True] * attempts))
        exp2 = replace(exp, tasks=new_tasks)
        res2 = _finish(replace(res, tasks=new_results))
        out.append(System(label, exp2, res2))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=500)
    ap.add_argument("--attempts", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)

    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from gindex_studio.core.benchmark import stats
    from gindex_studio.ui.analysis.window import AnalysisWindow

    # ----- bootstrap
    rng = np.random.default_rng(1)
    values = rng.random(args.tasks)
    strata = [f"d{i % 16}" for i in range(args.tasks)]
    boot, base = [], []
    for _ in range(args.repeats):
        t = time.perf_counter()
        stats.bootstrap_mean(values, strata, resamples=2000, seed=0)
        boot.append(time.perf_counter() - t)
        t = time.perf_counter()
        idx = np.random.default_rng(0).integers(0, args.tasks, size=(2000, args.tasks))
        np.quantile(values[idx].mean(axis=1), [0.025, 0.975])
        base.append(time.perf_counter() - t)
    b, bb = statistics.median(boot), statistics.median(base)
    print(f"bootstrap 2,000 × {args.tasks} tasks (16 strata): {b * 1000:.1f} ms  (target ≤ 1000 ms: "
          f"{'ok' if b <= 1 else 'MISSED'}); plain numpy bootstrap {bb * 1000:.1f} ms; ratio {b / bb:.2f}")

    # ----- window
    systems = synthetic_systems(args.tasks, args.attempts)
    n = sum(len(s.result.tasks) for s in systems)
    print(f"study: {len(systems)} systems × {args.tasks} tasks × {args.attempts} attempts (scored beforehand)")
    opened, opened_cpu, baseline = [], [], []
    for _ in range(args.repeats):
        win = AnalysisWindow()
        win.resize(1366, 768)
        win.show()
        app.processEvents()
        t, c = time.perf_counter(), time.process_time()
        win.set_systems(systems)
        win.wait_idle()  # the numbers come from a worker process, the figures a piece per loop turn
        for k in range(win.tabs.count()):  # every figure painted once
            win.tabs.setCurrentIndex(k)
            win.tabs.currentWidget().repaint()
            app.processEvents()
        opened.append(time.perf_counter() - t)
        opened_cpu.append(time.process_time() - c)
        win.close()
        win.deleteLater()
        app.processEvents()

        w = pg.PlotWidget()
        w.resize(600, 400)
        w.show()
        app.processEvents()
        t = time.perf_counter()
        w.addItem(pg.ScatterPlotItem(x=rng.random(n), y=rng.random(n), data=list(range(n)), hoverable=True))
        w.repaint()
        app.processEvents()
        baseline.append(time.perf_counter() - t)
        w.close()
        w.deleteLater()
    o, ob = statistics.median(opened), statistics.median(baseline)
    oc = statistics.median(opened_cpu)
    print(f"Analysis window, all plots painted: {o:.2f} s wall, {oc:.2f} s CPU of this process  (target ≤ 3 s: "
          f"{'ok' if o <= 3 else 'MISSED'}); one {n}-point scatter {ob * 1000:.0f} ms; ratio {o / ob:.1f}")
    print(f"load average while running: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
