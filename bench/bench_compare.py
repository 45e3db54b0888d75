"""Compare view: edit-to-updated-panel latency with the real widgets (offscreen).

For programs of 10, 40 and 120 nodes (``random_flow`` and a ``perturb``-ed copy as the generated
program) the benchmark opens the pair in a ``CompareView``, then repeatedly deletes one wire on the
generated canvas through the editor (the user's path: select, Delete) and measures until the score
panel shows the new Δ and the canvases are repainted:

- first update: the first result on screen (the exact one, or for big programs the anytime one);
- exact: the proven-exact result on screen.

The baseline, measured in the same process on the same edited programs, is the bare core call
``score(reference, generated)`` (no warm start), so the ratio shows what debounce, snapshot,
thread hand-off, overlay and panel cost on top of the search.

Run:  QT_QPA_PLATFORM=offscreen python3 bench/bench_compare.py [--repeats 15]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

import qtloop  # bench/qtloop.py (this folder is on sys.path when a bench runs)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--sizes", type=int, nargs="*", default=[10, 40, 120])
    args = ap.parse_args(argv)

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from gindex_studio.core.scoring.divergence import score
    from gindex_studio.core.flows.generate import perturb, random_flow
    from gindex_studio.ui.compare.model import CompareModel
    from gindex_studio.ui.compare.view import CompareView

    def pump_until(cond, timeout=60.0):
        qtloop.pump_until(cond, timeout, "no result")

    print(f"compare view, edit → updated panel (median of {args.repeats} wire deletions), offscreen, "
          f"debounce {CompareModel.DEBOUNCE_MS} ms")
    print(f"{'nodes':>5} {'first update':>13} {'exact':>9} {'p90 exact':>10} {'bare score':>11} {'ratio':>6}  notes")
    for n in args.sizes:
        rng = random.Random(20240 + n)
        ref = random_flow(n, rng)
        gen = perturb(ref, rng, 0.1)
        view = CompareView()
        view.resize(1600, 900)
        view.show()
        app.processEvents()
        stamps: dict[str, float] = {}
        def on_partial(_r):
            stamps.setdefault("first", time.perf_counter())
            stamps["partial"] = 1.0

        def on_exact(_r):
            now = time.perf_counter()
            stamps.setdefault("first", now)
            stamps["exact"] = now

        view.runner.partial.connect(on_partial)
        view.scored.connect(on_exact)
        view.set_pair(ref.copy(), gen.copy(), ref_name="ref", gen_name="gen")
        pump_until(lambda: "exact" in stamps)
        firsts, exacts, bares, partials = [], [], [], 0
        wires = sorted(view.gen.scene.wires)
        for k in range(args.repeats):
            key = wires[k % len(wires)]
            stamps.clear()
            t0 = time.perf_counter()
            view.gen.scene.select_wire(key)
            view.gen.delete_selection()
            pump_until(lambda: "exact" in stamps)
            app.processEvents()  # the repaint of panel and canvases
            t_end = time.perf_counter()
            firsts.append(stamps["first"] - t0 + (t_end - stamps["exact"] if stamps["first"] == stamps["exact"] else 0))
            exacts.append(t_end - t0)
            partials += "partial" in stamps
            edited = view.gen.doc.flow.copy()
            b0 = time.perf_counter()
            score(view.ref.doc.flow, edited)
            bares.append(time.perf_counter() - b0)
            view.gen.undo_stack.undo()
            stamps.clear()
            pump_until(lambda: "exact" in stamps)
        med = lambda xs: statistics.median(xs) * 1000  # noqa: E731
        p90 = sorted(exacts)[int(0.9 * (len(exacts) - 1))] * 1000
        note = f"anytime result first in {partials}/{args.repeats}" if partials else "exact at once"
        print(f"{n:>5} {med(firsts):>10.1f} ms {med(exacts):>6.1f} ms {p90:>7.1f} ms {med(bares):>8.1f} ms "
              f"{med(exacts) / med(bares):>5.1f}x  {note}")
        view.runner.wait()
        view.close()
        view.deleteLater()
        app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
