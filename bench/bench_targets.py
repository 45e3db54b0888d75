"""Benchmark: the performance targets of issue 15, each with a baseline measured in the same process.

    python3 bench/bench_targets.py --companion PATH   # PATH: a local copy of the companion repository
    python3 bench/bench_targets.py --rounds 9         # more repeats (default 7)
    python3 bench/bench_targets.py --only companion-pairs,paper,companion-search

Sections (``--only`` takes a comma-separated list of these names):

- ``companion-search``: Δ in the companion profile (prepare + exact search) on 30-node near and far
  pairs (``generate.random_flow`` / ``perturb``): median and p95 per pair, the share exact, and the
  paper profile on the same pairs as the in-process reference. With ``--companion`` also the
  companion's ``node_divergence`` on a few of the same pairs (a child process, 20 s a pair; its
  large product graphs need ``pip install cliquematch``, the companion's own dependency).
- ``companion-pairs`` (needs ``--companion``): the companion's own 32 domain programs, all 1024
  ordered pairs, Δ in the companion profile against the companion's ``node_divergence`` on the
  same pairs: with parsed input (both sides get the parsed JSON values; ours:
  ``divergence.delta_of_values``) and with file reading included (both sides read both files for
  every pair; ours: ``divergence.delta_of_files``); for information also both with ours building
  the full ``score`` (flows, their reduction, the result; "full score"), and the studio's matrix
  use (ours: every program prepared once per round, that time included; theirs as with parsed
  input), which are not the target's definition. The two run interleaved pair by pair,
  ``--rounds`` times; the ratio (theirs / ours, total over the 1024 pairs) is given as the median
  and the worst (p95 of the slow side) over the rounds, and the per-pair ratio's median. Every Δ
  is checked against the companion's. What the same loop reads for a call doing nothing in place
  of ours (median over the pairs, measured in the run: the clock's own cost, 0.6 µs or more with
  ``--cpu``, whose every read is a system call) is taken off both sides of every pair; the ratios
  as measured, without that, follow in brackets. Then the first two again "by rounds": each
  side's 1024 pairs timed as one loop, the sides alternating round by round (``by_rounds``), so
  each runs with the caches its own work leaves, as a matrix loop does; pair by pair, every call
  of ours starts right after a 200-300 µs call of theirs has replaced the caches' contents.
- ``paper``: paper profile on 30-node near pairs: ``prepare`` per flow, ``score_prepared`` (the
  search, the weights and the report), and ``score`` (both prepares included), median and p95;
  the in-process baseline is ``orjson.loads`` of the same flow's JSON (the floor of reading it).

Times are medians and p95 over all repeats of all pairs; this machine is shared, so rerun when a
figure looks off. The companion's code is imported from PATH at run time and is not part of this
repository.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson  # noqa: E402

from gindex_studio.core.scoring.divergence import (
    ScoreOptions,
    delta_of_files,
    delta_of_values,
    prepare,
    score,
    score_prepared,
)
from gindex_studio.core.flows.flow import flow_from_value, read_flow_file  # noqa: E402
from gindex_studio.core.flows.generate import perturb, random_flow  # noqa: E402
from gindex_studio.core.scoring.matching import native_search_available  # noqa: E402

PAPER = ScoreOptions()
clock = time.perf_counter  # --cpu: time.thread_time (CPU time of this thread: less sensitive to other jobs)
COMPANION = ScoreOptions(profile="companion")
LIMIT = 20.0  # seconds the companion gets per generated pair


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(p * len(xs)) - 1))]


def us(x: float) -> str:
    return f"{x * 1e6:8.1f}"


def ms(x: float) -> str:
    return f"{x * 1e3:8.2f}"


def pairs_for(n: int, kind: str, count: int, seed: int):
    out = []
    for k in range(count):
        rng = random.Random(seed * 1000 + k)
        a = random_flow(n, rng, "a")
        b = perturb(a, rng, 0.1) if kind == "near" else random_flow(n, random.Random(seed * 7777 + k), "b")
        out.append((a, b))
    return out


# ----- the companion's code, imported from a local copy -----------------------------------------


def companion_module(path: str):
    """The companion's ``node_utils`` module, imported from ``path``."""
    sys.path.insert(0, os.path.abspath(path))
    import node_utils  # noqa: F401  (the companion's module)

    return node_utils


def companion_problem(path: str) -> str | None:
    """Why ``path`` cannot serve as the companion (one line), or None when its code imports."""
    root = Path(path)
    if not root.is_dir():
        return f"--companion {path}: no such folder"
    if not (root / "node_utils.py").is_file() or not (root / "domains").is_dir():
        return (f"--companion {path}: not a copy of the companion repository (github:mayahq/g-index-benchmark: "
                "node_utils.py and domains/)")
    try:
        companion_module(path)
    except Exception as e:  # noqa: BLE001 - its own imports (networkx, …) may be missing
        return f"--companion {path}: its node_utils cannot be imported: {type(e).__name__}: {e}"
    return None


def _companion_worker(path, conn):
    nu = companion_module(path)
    while True:
        item = conn.recv()
        if item is None:
            return
        a, b = item
        t = time.perf_counter()
        try:
            d = nu.node_divergence(a, b)
        except Exception as e:  # noqa: BLE001 - reported by the parent, never timed
            conn.send(Failed(f"{type(e).__name__}: {e}"))
            continue
        conn.send((time.perf_counter() - t, d))


class Failed(str):
    """The companion's code raised on a pair (its error, one line): not a time."""


def companion_timed(path: str, pairs, limit: float):
    """The companion's node_divergence per pair in a child process: (seconds, Δ) per pair, None
    for a pair over ``limit`` s (the child is killed), or Failed (its error) when it raised."""
    ctx = mp.get_context("fork")
    out = []
    parent = proc = None
    for a, b in pairs:
        if proc is None:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_companion_worker, args=(path, child), daemon=True)
            proc.start()
        parent.send((a, b))
        stop = time.perf_counter() + limit
        while not parent.poll(0.05) and proc.is_alive() and time.perf_counter() < stop:
            pass
        if parent.poll(0):
            out.append(parent.recv())
            continue
        code = proc.exitcode  # None while it still runs: over the limit
        proc.kill()
        proc.join()
        proc = None
        out.append(None if code is None else Failed(f"its process ended (exit status {code})"))
    if proc is not None:
        parent.send(None)
        proc.join(1)
    return out


# ----- sections ---------------------------------------------------------------------------------


def bench_companion_search(args):
    print("Companion profile, 30-node pairs: Δ per pair = prepare both + exact search + report "
          f"(native search: {native_search_available()}); times in ms")
    print(f"{'kind':<5} {'pairs':>5} {'median':>8} {'p95':>8} {'max':>8} {'exact':>6} "
          f"{'paper med':>9} {'ratio':>6} {'companion med':>13} {'×faster':>8}")
    notes: list[str] = []
    for kind in ("near", "far"):
        pairs = pairs_for(30, kind, args.pairs, seed=30 + (kind == "far"))
        times, ptimes, exact = [], [], 0
        for _round in range(args.rounds):
            for a, b in pairs:
                t = clock()
                r = score(a, b, COMPANION)
                t1 = clock()
                score(a, b, PAPER)
                t2 = clock()
                times.append(t1 - t)
                ptimes.append(t2 - t1)
                exact += r.exact
        comp = "-"
        faster = "-"
        if args.companion:
            few = pairs[: args.companion_pairs]
            res = companion_timed(args.companion, [(a.to_json_value(), b.to_json_value()) for a, b in few], LIMIT)
            ours = [statistics.median(times[k::len(pairs)]) for k in range(len(few))]
            # a pair over the limit counts as the limit (the figure is then a lower bound, '>');
            # a pair the companion failed on has no time and is left out, and said below
            timed = [(LIMIT if r is None else r[0], o) for r, o in zip(res, ours) if not isinstance(r, Failed)]
            errors = sorted({str(r) for r in res if isinstance(r, Failed)})
            capped = any(r is None for r in res)
            if timed:
                comp = f"{'>' if capped else ''}{ms(statistics.median(c for c, _ in timed)).strip()}"
                faster = f"{'>' if capped else ''}{statistics.median(c / o for c, o in timed):.0f}x"
            else:
                comp = faster = "failed"
            if errors:
                notes.append(f"  {kind}: the companion's node_divergence failed on {len(res) - len(timed)} of "
                             f"{len(res)} pairs (left out): {'; '.join(errors)}"
                             + (" (it needs `pip install cliquematch` for product graphs this large)"
                                if "cliquematch" in " ".join(errors) else ""))
        med, pmed = statistics.median(times), statistics.median(ptimes)
        print(f"{kind:<5} {len(pairs):>5} {ms(med)} {ms(pct(times, 0.95))} {ms(max(times))} "
              f"{exact / len(times):6.0%} {ms(pmed):>9} {med / pmed:5.1f}x {comp:>13} {faster:>8}", flush=True)
    for line in notes:
        print(line, flush=True)


def _nothing(i, j):
    return None


def bench_companion_pairs(args):
    if not args.companion:
        print("companion-pairs: skipped (give --companion PATH, a local copy of the companion repository)")
        return
    nu = companion_module(args.companion)
    files = sorted(glob.glob(os.path.join(args.companion, "domains", "*", "*.json")))
    values = [json.load(open(f)) for f in files]
    n = len(files)
    print(f"\nThe companion's {n} domain programs, {n * n} ordered pairs, companion profile, "
          f"{args.rounds} rounds interleaved pair by pair")

    def ours_parsed(i, j):
        return delta_of_values(values[i], values[j], COMPANION)

    def ours_parsed_report(i, j):
        return score(flow_from_value(values[i]), flow_from_value(values[j]), COMPANION).delta

    def theirs_parsed(i, j):
        return nu.node_divergence(values[i]["flow"], values[j]["flow"])

    def ours_files(i, j):
        return delta_of_files(files[i], files[j], COMPANION)

    def ours_files_report(i, j):
        return score(read_flow_file(files[i]), read_flow_file(files[j]), COMPANION).delta

    def theirs_files(i, j):
        with open(files[i]) as f1, open(files[j]) as f2:
            return nu.node_divergence(json.load(f1)["flow"], json.load(f2)["flow"])

    prepared: list = []

    def ours_prepared(i, j):
        if not prepared:  # the studio's matrix use: each program prepared once (timed in the first pair)
            prepared.extend(prepare(flow_from_value(v), COMPANION) for v in values)
        return score_prepared(prepared[i], prepared[j], COMPANION).delta

    # what the loop below reads for a call that does nothing in place of ours, right after the
    # companion's as ours is (the clock's own cost there: ~0.6 µs or more with --cpu, whose every
    # read is a system call)
    empties = []
    for i in range(n):
        for j in range(n):
            t0 = clock()
            _nothing(i, j)
            t1 = clock()
            theirs_parsed(i, j)
            empties.append(t1 - t0)
    empty = statistics.median(empties)
    print(f"  an empty call timed in place of ours reads {empty * 1e6:.2f} µs (median of the pairs): taken off "
          f"both sides' time of every pair (the ratio as measured in brackets)")

    worst = 0.0
    for label, ours, theirs in (("parsed input", ours_parsed, theirs_parsed),
                                ("file reading included", ours_files, theirs_files),
                                ("parsed, full score", ours_parsed_report, theirs_parsed),
                                ("files, full score", ours_files_report, theirs_files),
                                ("ours prepared once", ours_prepared, theirs_parsed)):
        totals_o, totals_t, raw_ratios = [], [], []
        per_pair: dict[tuple[int, int], list[tuple[float, float]]] = {}
        for _round in range(args.rounds):
            prepared.clear()
            so = st = 0.0
            for i in range(n):
                for j in range(n):
                    t0 = clock()
                    d_o = ours(i, j)
                    t1 = clock()
                    d_t = theirs(i, j)
                    t2 = clock()
                    so += t1 - t0
                    st += t2 - t1
                    per_pair.setdefault((i, j), []).append((max(t1 - t0 - empty, 1e-9), max(t2 - t1 - empty, 1e-9)))
                    worst = max(worst, abs(d_o - d_t))
            raw_ratios.append(st / so)
            totals_o.append(so - n * n * empty)
            totals_t.append(st - n * n * empty)
        ratios = [t / o for o, t in zip(totals_o, totals_t)]
        pair_ratio = [statistics.median(t for _o, t in v) / statistics.median(o for o, _t in v)
                      for v in per_pair.values()]
        slower = sum(r < 1 for r in pair_ratio)
        print(f"  {label:<22} ours {1e6 * statistics.median(totals_o) / (n * n):7.1f} µs/pair, "
              f"companion {1e6 * statistics.median(totals_t) / (n * n):7.1f} µs/pair → "
              f"{statistics.median(ratios):5.1f}x faster [{statistics.median(raw_ratios):.1f}x] (median of rounds; "
              f"worst round {min(ratios):.1f}x [{min(raw_ratios):.1f}x]); "
              f"per-pair ratio median {statistics.median(pair_ratio):.1f}x, p5 {pct(pair_ratio, 0.05):.1f}x, "
              f"{slower} pairs slower", flush=True)
    print(f"  largest |Δ ours − Δ companion| over all pairs: {worst:.3g}")
    by_rounds("parsed input", ours_parsed, theirs_parsed, n, args.rounds)
    by_rounds("file reading included", ours_files, theirs_files, n, args.rounds)


def by_rounds(label: str, ours, theirs, n: int, rounds: int) -> None:
    """The ratio with each side's n × n pairs timed as one loop, the sides alternating round by
    round (who goes first alternates too): each side runs as its own matrix loop does, with the
    caches its own work leaves, where pair by pair each call comes right after the other side's.
    The same loop calling a function that does nothing is timed alike and taken off both sides."""
    def loop(f) -> float:
        t0 = clock()
        for i in range(n):
            for j in range(n):
                f(i, j)
        return clock() - t0

    empty = min(loop(_nothing) for _ in range(3))
    ratios, so, st = [], [], []
    for r in range(rounds):
        if r % 2:
            t, o = loop(theirs), loop(ours)
        else:
            o, t = loop(ours), loop(theirs)
        so.append(o - empty)
        st.append(t - empty)
        ratios.append(st[-1] / so[-1])
    print(f"  {label + ', by rounds':<22} ours {1e6 * statistics.median(so) / (n * n):7.1f} µs/pair, "
          f"companion {1e6 * statistics.median(st) / (n * n):7.1f} µs/pair → {statistics.median(ratios):5.1f}x faster "
          f"(median of rounds; worst round {min(ratios):.1f}x; an empty call's loop, "
          f"{1e6 * empty / (n * n):.2f} µs/pair, taken off both)", flush=True)


def bench_paper(args):
    pairs = pairs_for(30, "near", args.pairs, seed=30)
    texts = [(a.dumps(indent=False), b.dumps(indent=False)) for a, b in pairs]
    t_prep, t_sp, t_sc, t_floor = [], [], [], []
    for _round in range(args.rounds):
        for (a, b), (ta, tb) in zip(pairs, texts):
            t0 = clock()
            orjson.loads(ta)
            t1 = clock()
            pa = prepare(a)
            t2 = clock()
            pb = prepare(b)
            t3 = clock()
            score_prepared(pa, pb)
            t4 = clock()
            score(a, b)
            t5 = clock()
            t_floor.append(t1 - t0)
            t_prep += [t2 - t1, t3 - t2]
            t_sp.append(t4 - t3)
            t_sc.append(t5 - t4)
    floor = statistics.median(t_floor)
    print(f"\nPaper profile, 30-node near pairs ({len(pairs)} pairs × {args.rounds} rounds); times in µs")
    print(f"{'what':<36} {'median':>8} {'p95':>8}  {'× orjson.loads of one flow (same process)':>10}")
    for label, xs in (("orjson.loads of one flow (baseline)", t_floor), ("prepare (one flow)", t_prep),
                      ("score_prepared (search + report)", t_sp), ("score (both prepares + above)", t_sc)):
        print(f"{label:<36} {us(statistics.median(xs))} {us(pct(xs, 0.95))}  {statistics.median(xs) / floor:8.1f}x")


SECTIONS = {"companion-search": bench_companion_search, "companion-pairs": bench_companion_pairs,
            "paper": bench_paper}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--companion", metavar="PATH", help="a local copy of the companion repository")
    ap.add_argument("--rounds", type=int, default=7, help="repeats of every measurement (default 7)")
    ap.add_argument("--pairs", type=int, default=20, help="generated pairs per kind (default 20)")
    ap.add_argument("--companion-pairs", type=int, default=4,
                    help="generated pairs the companion's own code is timed on (default 4)")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS))
    ap.add_argument("--cpu", action="store_true", help="time with the thread's CPU time instead of wall time")
    args = ap.parse_args(argv)
    global clock
    if args.cpu:
        clock = time.thread_time
    if args.companion:
        why = companion_problem(args.companion)
        if why:
            print(f"bench_targets: {why}", file=sys.stderr)
            return 1
    names = [n.strip() for n in args.only.split(",")]
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        ap.error(f"--only: no section {', '.join(unknown)} (sections: {', '.join(SECTIONS)})")
    print(f"clock: {'CPU time of this thread' if args.cpu else 'wall time'}")
    for name in names:
        SECTIONS[name](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
