"""Start-up of the command line (issue 24.5): the wall time of ``gindex-studio score A B`` on two
small demo flows against the bare interpreter start (``python3 -c pass``), measured in the same
run, interleaved, median of N.

Printed: the medians (and of ``python3 -c "import numpy"``, numpy's share), the command's cost above the bare start, and the ratio; also what the score
path imports that the target excludes (numpy, scipy, Qt), from ``sys.modules`` of one run.
Target: ≤ 80 ms wall for the command, set for a 20 ms interpreter start: the bench also prints the
command's cost above this machine's bare start against that 60 ms budget (a bare start here is
slower when site-packages holds start-up hooks: editable installs, certificate injectors).
Each tree measured is byte-compiled first (``compileall``, as ``pip install`` does), so that no run
pays for compiling the sources (``PYTHONDONTWRITEBYTECODE`` would otherwise make every run do it).

Run:  python3 bench/bench_startup.py [-n 21] [--before /work/main]
"""
from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
A = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"
B = ROOT / "resources" / "demo" / "programs" / "http" / "http-2.json"
HEAVY = ("numpy", "scipy", "PySide6", "pyqtgraph", "distributed", "dask")


CPU: dict[int, list[float]] = {}  # id of a sample list -> the CPU times of its runs


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _wall(cmd: list[str], env: dict, into: list[float] | None = None) -> float:
    """Wall time of one run; its CPU time (user + system) is kept beside ``into``."""
    c, t = _cpu(), time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    if into is not None:
        into.append(wall)
        CPU.setdefault(id(into), []).append(_cpu() - c)
    return wall


def _line(label: str, runs: list[float]) -> str:
    cpu = statistics.median(CPU[id(runs)])
    return (f"{label:<32}median {statistics.median(runs) * 1e3:7.1f} ms wall (min {min(runs) * 1e3:.1f}), "
            f"CPU {cpu * 1e3:.1f} ms")


def heavy_imports(env: dict) -> list[str]:
    """The excluded packages one ``score`` run imports."""
    code = ("import sys, io, contextlib, runpy\n"
            f"sys.argv = ['gindex-studio', 'score', {str(A)!r}, {str(B)!r}]\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try: runpy.run_module('gindex_studio.cli', run_name='__main__')\n"
            "    except SystemExit: pass\n"
            f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=21, help="runs of each (default 21)")
    ap.add_argument("--before", metavar="DIR", help="another checkout (e.g. /work/main) whose score is timed "
                                                    "in the same loop, for a before/after figure")
    opts = ap.parse_args()
    n = opts.n
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    bare_cmd = [sys.executable, "-c", "pass"]
    numpy_cmd = [sys.executable, "-c", "import numpy"]
    score_cmd = [sys.executable, "-m", "gindex_studio", "score", str(A), str(B)]
    for tree in filter(None, (str(ROOT), opts.before)):
        compileall.compile_dir(str(Path(tree) / "gindex_studio"), quiet=1)
    for cmd in (bare_cmd, numpy_cmd, score_cmd):  # warm the file cache
        _wall(cmd, env)
    before_env = dict(os.environ, PYTHONPATH=opts.before) if opts.before else None
    bare, numpy, score, before = [], [], [], []
    for _ in range(n):
        _wall(bare_cmd, env, bare)
        _wall(numpy_cmd, env, numpy)
        _wall(score_cmd, env, score)
        if before_env:
            _wall(score_cmd, before_env, before)
    mb, mn, ms = statistics.median(bare), statistics.median(numpy), statistics.median(score)
    print(f"n = {n} runs each, interleaved; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(_line("python3 -c pass", bare))
    print(_line("python3 -c 'import numpy'", numpy) + f": numpy's share {(mn - mb) * 1e3:.1f} ms wall")
    print(_line("gindex-studio score A B (-m)", score))
    if before:
        mo = statistics.median(before)
        print(_line(f"  the same from {opts.before}", before) + f": {(mo - ms) * 1e3:.1f} ms wall saved")
    print(f"above the bare start: {(ms - mb) * 1e3:.1f} ms (budget 60 ms: "
          f"{'within' if ms - mb <= 0.060 else 'over'}); ratio {ms / mb:.2f}×; target ≤ 80 ms wall: "
          f"{'met' if ms <= 0.080 else 'not met'}")
    heavy = heavy_imports(env)
    print(f"excluded packages imported by score: {', '.join(heavy) if heavy else 'none'}")


if __name__ == "__main__":
    main()
