"""Running flows in the real Node-RED: what the sandbox costs, and how long probing takes.

Measured in one process, sandboxed and unsandboxed runs interleaved (this machine is noisy), the
median of N each:
- start: ``PrivateRuntime.start`` until its admin API answers, plus the ``/comms`` connection;
- warm run: deploy ``http-1`` on a started runtime and fire its inputs (what ``run`` does after
  the start);
- warm probe: the demo reference and its same-behaviour program on the reference's probes (what
  ``probe`` does after the start);
- the sandbox's cost per run: (start + warm run) sandboxed minus the same unsandboxed. Target ≤ 0.5 s.
Then ``gindex resources/demo/experiment.json --probes`` (16 tasks) as a whole command, sandboxed,
with its default four runtimes side by side (each reused across its tasks) and with one runtime
reused across all of them. Target ≤ 20 s.

Run:  python3 bench/bench_nodered.py [-n 5] [--skip-experiment | --only-experiment]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gindex_studio.core.nodered.behaviour import behaviour  # noqa: E402
from gindex_studio.core.nodered.deploy import Session  # noqa: E402
from gindex_studio.core.nodered.probe import default_probes, observe  # noqa: E402
from gindex_studio.core.nodered.runtime import PrivateRuntime  # noqa: E402

HTTP1 = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"
DEMO = ROOT / "resources" / "demo" / "runtime"
EXPERIMENT = ROOT / "resources" / "demo" / "experiment.json"


def _flow(path: Path):
    data = json.loads(path.read_text())
    return data["flow"] if isinstance(data, dict) and "flow" in data else data


def one_round(sandboxed: bool) -> dict[str, float]:
    """Start a runtime, one warm run, one warm probe; the seconds of each."""
    t = time.perf_counter()
    rt = PrivateRuntime.start(timeout=120, sandboxed=sandboxed)
    session = Session(rt)
    start = time.perf_counter() - t
    try:
        flow = _flow(HTTP1)
        t = time.perf_counter()
        result = session.deploy(flow)
        for probe in default_probes(flow):
            observe(session, probe, flow)
        problems = result.problems + session.problems()
        run = time.perf_counter() - t
        assert not problems, problems
        ref, gen = _flow(DEMO / "reference.json"), _flow(DEMO / "same-behaviour.json")
        t = time.perf_counter()
        b = behaviour(session, ref, gen)
        probe = time.perf_counter() - t
        assert b.agree == b.probes, b.summary()
    finally:
        session.close()
        rt.stop()
    return {"start": start, "run": run, "probe": probe}


def experiment_seconds(runtimes: int) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "gindex_studio.cli", "gindex", str(EXPERIMENT), "--probes", "--runtimes", str(runtimes)]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t
    if r.returncode not in (0, 1):
        raise SystemExit(f"gindex --probes failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    return wall, r.stdout


def sandbox_cost(n: int) -> None:
    """The interleaved rounds and their medians (see the module's docstring)."""
    rounds: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    one_round(True)  # warm the file cache and the install check once
    for _ in range(n):
        for sandboxed in (True, False):
            rounds[sandboxed].append(one_round(sandboxed))

    def med(sandboxed: bool, key: str) -> float:
        return statistics.median(r[key] for r in rounds[sandboxed])

    print(f"{'median of ' + str(n):<22}{'sandboxed':>12}{'unsandboxed':>14}{'difference':>13}")
    for key, label in (("start", "start"), ("run", "warm run"), ("probe", "warm probe")):
        a, b = med(True, key), med(False, key)
        print(f"{label:<22}{a:>11.2f}s{b:>13.2f}s{a - b:>+12.2f}s")
    cost = (statistics.median(r["start"] + r["run"] for r in rounds[True])
            - statistics.median(r["start"] + r["run"] for r in rounds[False]))
    print(f"sandbox cost per run (start + warm run): {cost:+.2f} s  (target <= 0.5 s: "
          f"{'met' if cost <= 0.5 else 'NOT met'})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=5, help="rounds of each kind (default 5)")
    ap.add_argument("--skip-experiment", action="store_true", help="leave out the 16-task experiment")
    ap.add_argument("--only-experiment", action="store_true", help="only the 16-task experiment")
    args = ap.parse_args()
    if not args.only_experiment:
        sandbox_cost(args.n)
    if not args.skip_experiment:
        for runtimes in (4, 1):
            wall, out = experiment_seconds(runtimes)
            rows = sum(1 for line in out.splitlines() if "/" in line)
            print(f"gindex --probes on the 16-task demo experiment, {runtimes} runtime{'s' if runtimes > 1 else ''}: "
                  f"{wall:.1f} s (target <= 20 s: {'met' if wall <= 20 else 'NOT met'}; {rows} lines with a verdict)")


if __name__ == "__main__":
    main()
