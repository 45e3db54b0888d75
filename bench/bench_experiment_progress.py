"""A long experiment in the compare window: time to the first row, to the first complete row and
to the g-index, and how fast Cancel stops the work (issue 7, defect 7).

The experiment is generated (``write_experiment``: 40 tasks, 1,200 curriculum programs in 12
domains by default) and opened in a ``CompareWindow`` offscreen, as File → Open Experiment does:

- first row: from the call to the first task's row in the table (reading the experiment included);
- first complete row: the first row with its Ω and TC;
- g-index: the final result on screen;
- cancel: a second opening is cancelled (a click on the Cancel button) when a third of the tasks are
  complete; latency until the worker thread is idle and every worker process has exited;
- responsiveness: the longest gap between two ticks of a 10 ms timer in the GUI thread while the
  g-index is computed (what a click or a repaint may wait), and the 99th percentile.

The baseline, in the same process, is the bare core call ``compute_gindex`` with the same workers
(no window): the ratio says what streaming the rows to the table costs. ``--cli`` also times
``gindex-studio gindex EXP`` in a subprocess for each profile (with ``--timeout``).

Run:  QT_QPA_PLATFORM=offscreen python3 bench/bench_experiment_progress.py [--profile companion] [--cli]
"""
from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time

import qtloop  # bench/qtloop.py (this folder is on sys.path when a bench runs)
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=40)
    ap.add_argument("--programs", type=int, default=1200)
    ap.add_argument("--folder", help="write (or reuse) the experiment here instead of a temporary folder")
    ap.add_argument("--profile", default="paper", choices=["paper", "companion"])
    ap.add_argument("--workers", type=int, default=None, help="Ω processes (default: as the studio chooses)")
    ap.add_argument("--cli", action="store_true", help="also time the command line on both profiles")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds for each command-line run")
    args = ap.parse_args(argv)

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from gindex_studio.core.scoring.divergence import ScoreOptions
    from gindex_studio.core.benchmark.experiment import load_experiment
    from gindex_studio.core.benchmark.generate_experiment import write_experiment
    from gindex_studio.core.benchmark.gindex import compute_gindex
    from gindex_studio.core.scoring.search_info import search_in_use
    from gindex_studio.ui.compare.window import CompareWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    with contextlib.ExitStack() as stack:  # a temporary folder is removed however the run ends
        folder = Path(args.folder or stack.enter_context(tempfile.TemporaryDirectory(prefix="gindex-progress-")))
        path = folder / "experiment.json"
        if not path.exists():
            t0 = time.perf_counter()
            write_experiment(folder, tasks=args.tasks, programs=args.programs, profile=args.profile)
            print(f"wrote {path} in {time.perf_counter() - t0:.1f} s")
        exp = load_experiment(path)
        n_prog = sum(len(c.programs) for c in exp.curriculum)
        opts = ScoreOptions(profile=args.profile)

        def pump_until(cond, timeout=600.0):
            qtloop.pump_until(cond, timeout, "timed out")

        def open_window():
            win = CompareWindow()
            win.dialogs.ask_save = lambda _name: "discard"
            win.resize(1366, 768)
            win.show()
            app.processEvents()
            if args.workers is not None:
                win.controller.workers = args.workers
            return win

        def opened(win):
            """Open the experiment in ``win`` (in the profile asked for) and return the time stamps."""
            stamps: dict[str, float] = {}
            panel = win.tasks
            panel.model.rowsInserted.connect(lambda *_a: stamps.setdefault("first row", time.perf_counter()))
            win.controller.task_done.connect(lambda _t: stamps.setdefault("first complete row", time.perf_counter()))
            win.controller.result_changed.connect(lambda _r: stamps.setdefault("g-index", time.perf_counter()))
            stamps["start"] = time.perf_counter()
            if args.profile == "paper":
                assert win.open_experiment(str(path))
            else:  # our experiment, switched to the profile, as a user does in the scoring options
                assert win.open_experiment(str(path))
                win.controller.cancel()
                stamps.clear()
                stamps["start"] = time.perf_counter()
                win.view.panel.profile.setCurrentText(args.profile)
            return stamps

        print(f"{len(exp.tasks)} tasks × {n_prog:,} curriculum programs, {args.profile} profile, "
              f"{os.cpu_count()} cores, {search_in_use()}")
        win = open_window()
        workers = win.controller._workers(exp)
        ticks: list[float] = []
        ticker = QTimer()
        ticker.setInterval(10)
        ticker.timeout.connect(lambda: ticks.append(time.perf_counter()))
        ticker.start()
        stamps = opened(win)
        pump_until(lambda: "g-index" in stamps)
        ticker.stop()
        full = stamps["g-index"] - stamps["start"]
        gaps = sorted(b - a for a, b in zip(ticks, ticks[1:]) if a >= stamps["start"])
        res = win.controller.result
        win.close()
        t0 = time.perf_counter()
        bare = compute_gindex(load_experiment(path), opts, workers=workers)
        bare_s = time.perf_counter() - t0
        assert bare.g_index == res.g_index, (bare.g_index, res.g_index)
        for key in ("first row", "first complete row", "g-index"):
            print(f"  {key:<20} {stamps[key] - stamps['start']:7.2f} s")
        if gaps:
            print(f"  GUI thread: longest gap between 10 ms timer ticks {gaps[-1] * 1000:.0f} ms, "
                  f"p99 {gaps[int(0.99 * (len(gaps) - 1))] * 1000:.0f} ms ({len(gaps)} ticks)")
        print(f"  bare compute_gindex {bare_s:7.2f} s (reading the file included)   window / bare = {full / bare_s:.2f}"
              f"   (Ω on {workers} process{'es' if workers > 1 else ''}; same g-index {res.g_index:,.6f})")

        # cancel when a third of the tasks are complete
        win = open_window()
        before = set(mp.active_children())
        stamps = opened(win)
        panel = win.tasks
        pump_until(lambda: panel.model.completed >= max(1, len(exp.tasks) // 3))
        children = [p for p in mp.active_children() if p not in before]
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        t0 = time.perf_counter()
        QTest.mouseClick(panel.stop_button, Qt.LeftButton, Qt.NoModifier, panel.stop_button.rect().center())
        pump_until(lambda: win.controller.runner.pool.activeThreadCount() == 0
                   and not any(p.is_alive() for p in children), timeout=30)
        latency = time.perf_counter() - t0
        print(f"  cancel              {latency * 1000:7.1f} ms after the click, with {panel.model.completed} of "
              f"{len(exp.tasks)} tasks complete ({len(children)} worker process{'es' if len(children) != 1 else ''} stopped)")
        win.close()

        if args.cli:
            print(f"command line: gindex-studio gindex EXP --profile P (timeout {args.timeout:g} s)")
            for profile in ("paper", "companion"):
                t0 = time.perf_counter()
                try:
                    subprocess.run([sys.executable, "-m", "gindex_studio.cli", "gindex", str(path), "--profile", profile],
                                   cwd=ROOT, check=True, capture_output=True, timeout=args.timeout)
                    took = f"{time.perf_counter() - t0:.1f} s"
                except subprocess.TimeoutExpired:
                    took = f"did not finish in {args.timeout:g} s"
                print(f"  {profile:<10} {took}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
