"""The GUI thread's longest wait while a window computes (issue 24, item 1): a 10 ms QTimer on the
GUI thread records its ticks; the gaps between ticks are what a click or a repaint may wait.

Cases (each printed as the longest gap and the 99th percentile, window against a same-run
baseline: the same core work in a thread of this process, as the studio ran it before, the Qt
loop idle meanwhile; and the most CPU the GUI thread itself used between two ticks, which a
loaded machine does not inflate: a gap longer than that is time the thread waited for a core):

- compare: File → Open Experiment on a 40-task, 1,200-program experiment (``write_experiment``),
  until the g-index is on screen and its worst task opened. The opening itself (reading the
  file, on the GUI thread, as a menu action does) is timed apart; the gaps are those of the
  computation that follows.
  Baseline: ``compute_gindex`` in a thread.
- curation: the curation window on 1,000 generated programs (16 domains, fresh disk cache), for
  ``--seconds`` of its matrix and report work (the full matrix takes minutes). Baseline: the same
  matrix rows (``analysis.matrix_rows``) in a thread for as long.
- analysis: ``AnalysisWindow.set_systems`` on 3 systems × 500 tasks × 5 attempts
  (bench_analysis's study) until the analysis is shown. Baseline: ``analysis.analyse`` in a thread.

The numbers are checked against the core's (compare: the g-index; curation: the rows shown).

Run:  QT_QPA_PLATFORM=offscreen PYTHONPATH=. python3 bench/bench_gui_gaps.py [--only compare,curation,analysis]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
#: the tree measured (GINDEX_STUDIO_ROOT: another checkout, e.g. main for a before/after figure)
ROOT = Path(os.environ.get("GINDEX_STUDIO_ROOT") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import qtloop  # noqa: E402


class Ticker:
    """A 10 ms timer on the GUI thread; ``gaps(t0, t1)``: sorted gaps between ticks in [t0, t1];
    ``busy(t0, t1)``: sorted CPU seconds the GUI thread itself used in each of those gaps (on a
    loaded machine a gap is also time the thread waited for a core: this part is its own work)."""

    def __init__(self):
        from PySide6.QtCore import QTimer

        self.ticks: list[tuple[float, float]] = []  # (wall, GUI thread CPU) at each tick
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(lambda: self.ticks.append((time.perf_counter(), time.thread_time())))
        self.timer.start()

    def _between(self, t0: float, t1: float) -> list[tuple[float, float]]:
        return [(t, c) for t, c in self.ticks if t0 <= t <= t1]

    def gaps(self, t0: float, t1: float) -> list[float]:
        ts = [t0] + [t for t, _c in self._between(t0, t1)] + [t1]
        return sorted(b - a for a, b in zip(ts, ts[1:]))

    def busy(self, t0: float, t1: float) -> list[float]:
        cs = [c for _t, c in self._between(t0, t1)]
        return sorted(b - a for a, b in zip(cs, cs[1:]))


def fmt(gaps: list[float], busy: list[float] | None = None) -> str:
    if not gaps:
        return "no ticks"
    out = f"longest {gaps[-1] * 1000:6.0f} ms, p99 {gaps[int(0.99 * (len(gaps) - 1))] * 1000:5.0f} ms ({len(gaps)} ticks)"
    if busy:
        out += f"; GUI thread's own CPU between ticks: longest {busy[-1] * 1000:.0f} ms"
    return out


def in_thread(fn, timeout: float = 900.0):
    """Run ``fn()`` in a thread of this process while the Qt loop runs; its value and the gaps."""
    out, ticker = {}, Ticker()
    t0 = time.perf_counter()
    th = threading.Thread(target=lambda: out.setdefault("value", fn()), daemon=True)
    th.start()
    qtloop.pump_until(lambda: not th.is_alive(), timeout, "the baseline did not finish")
    t1 = time.perf_counter()
    ticker.timer.stop()
    return out.get("value"), (ticker.gaps(t0, t1), ticker.busy(t0, t1)), t1 - t0


def case_compare(args, app) -> None:
    from gindex_studio.core.benchmark.experiment import load_experiment
    from gindex_studio.core.benchmark.generate_experiment import write_experiment
    from gindex_studio.core.benchmark.gindex import compute_gindex
    from gindex_studio.ui.compare.window import CompareWindow

    folder = Path(args.folder or args.tmp) / "compare"
    path = folder / "experiment.json"
    if not path.exists():
        write_experiment(folder, tasks=40, programs=1200)
    win = CompareWindow()
    win.dialogs.ask_save = lambda _name: "discard"
    win.resize(1366, 768)
    win.show()
    app.processEvents()
    ticker = Ticker()
    t0 = time.perf_counter()
    assert win.open_experiment(str(path))
    t_open = time.perf_counter()
    # until the g-index is on screen and its worst task opened (the window opens it a frame later)
    qtloop.pump_until(lambda: win.controller.result is not None and win.current_task is not None, 900, "no g-index")
    t1 = time.perf_counter()
    ticker.timer.stop()
    g = win.controller.result.g_index
    win.close()
    exp = load_experiment(path)
    bare, base_gaps, base_s = in_thread(lambda: compute_gindex(exp, workers=1))
    assert bare.g_index == g, (bare.g_index, g)
    print(f"compare 40 × 1,200 (g-index {g:,.6f} in both):")
    print(f"  opening (reading the file, GUI thread) {(t_open - t0) * 1000:.0f} ms")
    print(f"  window, computing   {fmt(ticker.gaps(t_open, t1), ticker.busy(t_open, t1))}   {t1 - t_open:5.1f} s")
    print(f"  baseline, thread    {fmt(*base_gaps)}   {base_s:5.1f} s")


def curation_workspace(total: int):
    from bench_scoring import curriculum_programs
    from gindex_studio.core.curation.workspace import Item, Workspace

    _domains, flows, names = curriculum_programs(total, 11)
    items = [Item(f"{d}/p{k:04d}.json", None, f, d, "curriculum") for k, (f, d) in enumerate(zip(flows, names))]
    return Workspace(items)


def case_curation(args, app) -> None:
    import numpy as np

    from gindex_studio.core.curation.cache import DeltaCache
    from gindex_studio.core.curation import analysis as an
    from gindex_studio.core.curation.engine import PairEngine
    from gindex_studio.ui.curation.window import CurationWindow

    ws = curation_workspace(args.programs)
    tmp = Path(args.tmp)
    win = CurationWindow(ws, DeltaCache(tmp / "window.sqlite"), deadline=None)
    win.resize(1366, 768)
    ticker = Ticker()
    ts = time.perf_counter()
    win.show()
    app.processEvents()
    t0 = time.perf_counter()  # shown: the jobs run from here
    qtloop.pump_until(lambda: time.perf_counter() - t0 >= args.seconds, args.seconds + 60)
    t1 = time.perf_counter()
    ticker.timer.stop()
    hm = win.heatmap
    done = np.flatnonzero(~np.isnan(hm.lower).any(axis=1))
    rows = win.progress.value()
    report = "the report on screen" if win.model.report is not None else "no report yet"
    win.close()
    # the rows shown are the core's values (a few of them checked)
    engine = PairEngine([it.flow for it in ws.items], ws.options)
    for r in done[:2]:
        for c in range(0, len(ws), 97):
            assert hm.values[r, c] == float(engine.delta(hm.order[r], hm.order[c]))

    stop = threading.Event()

    def baseline():  # the matrix rows, as the window's job computes them, until the time is up
        engine = PairEngine([it.flow for it in ws.items], ws.options)
        for _row in an.matrix_rows(engine, list(range(len(ws))), None):
            if stop.is_set():
                break

    threading.Timer(args.seconds, stop.set).start()
    _v, base_gaps, base_s = in_thread(baseline)
    print(f"curation {len(ws):,} programs, first {args.seconds:g} s of the matrix ({rows} rows shown, checked; "
          f"{report}):")
    print(f"  opening (building and showing the window, GUI thread) {(t0 - ts) * 1000:.0f} ms")
    print(f"  window, computing   {fmt(ticker.gaps(t0, t1), ticker.busy(t0, t1))}")
    print(f"  baseline, thread    {fmt(*base_gaps)}   ({base_s:.1f} s)")


def case_analysis(args, app) -> None:
    from bench_analysis import synthetic_systems
    from gindex_studio.core.benchmark.analysis import analyse
    from gindex_studio.ui.analysis.window import AnalysisWindow

    systems = synthetic_systems(500, 5)
    win = AnalysisWindow()
    win.resize(1366, 768)
    win.show()
    app.processEvents()
    ticker = Ticker()
    t0 = time.perf_counter()
    win.set_systems(systems)
    qtloop.pump_until(lambda: win.analysis is not None and getattr(win, "busy", False) is False, 120)
    t1 = time.perf_counter()
    ticker.timer.stop()
    shown = win.analysis
    win.close()
    bare, base_gaps, base_s = in_thread(lambda: analyse(systems, k=1))
    bare.systems = shown.systems
    assert bare.to_dict() == shown.to_dict()  # every number, intervals included
    print("analysis 3 systems × 500 tasks × 5 attempts (same numbers):")
    print(f"  window              {fmt(ticker.gaps(t0, t1), ticker.busy(t0, t1))}   {t1 - t0:5.1f} s")
    print(f"  baseline, thread    {fmt(*base_gaps)}   {base_s:5.1f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="compare,curation,analysis")
    ap.add_argument("--folder", help="write (or reuse) the compare experiment here")
    ap.add_argument("--programs", type=int, default=1000, help="curation programs")
    ap.add_argument("--seconds", type=float, default=30.0, help="curation: seconds of matrix work watched")
    args = ap.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} (at the start; {args.only})")
    with tempfile.TemporaryDirectory(prefix="gindex-gaps-") as tmp:  # removed at the end, whatever happens
        args.tmp = tmp
        for name in args.only.split(","):
            {"compare": case_compare, "curation": case_curation, "analysis": case_analysis}[name](args, app)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
