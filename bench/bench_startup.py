"""Start-up of the command line (issue 24.5): the wall time of ``gindex-studio score A B`` on two
small demo flows against the bare interpreter start (``python3 -c pass``), measured in the same
run, interleaved, median of N.

Printed: the medians (and of ``python3 -c "import numpy"``, numpy's share), the command's cost above the bare start, and the ratio; also what the score
path imports that the target excludes (numpy, scipy, Qt), from ``sys.modules`` of one run.
Target: ≤ 80 ms wall for the command.

Run:  python3 bench/bench_startup.py [-n 21] [--before /work/main]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
A = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"
B = ROOT / "resources" / "demo" / "programs" / "http" / "http-2.json"
HEAVY = ("numpy", "scipy", "PySide6", "pyqtgraph", "distributed", "dask")


def _wall(cmd: list[str], env: dict) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


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
    for cmd in (bare_cmd, numpy_cmd, score_cmd):  # warm the file cache
        _wall(cmd, env)
    before_env = dict(os.environ, PYTHONPATH=opts.before) if opts.before else None
    bare, numpy, score, before = [], [], [], []
    for _ in range(n):
        bare.append(_wall(bare_cmd, env))
        numpy.append(_wall(numpy_cmd, env))
        score.append(_wall(score_cmd, env))
        if before_env:
            before.append(_wall(score_cmd, before_env))
    mb, mn, ms = statistics.median(bare), statistics.median(numpy), statistics.median(score)
    print(f"python3 -c pass                 median {mb * 1e3:7.1f} ms   (min {min(bare) * 1e3:.1f}, n = {n})")
    print(f"python3 -c 'import numpy'       median {mn * 1e3:7.1f} ms   (min {min(numpy) * 1e3:.1f}): "
          f"numpy alone costs {(mn - mb) * 1e3:.1f} ms")
    print(f"gindex-studio score A B (-m)    median {ms * 1e3:7.1f} ms   (min {min(score) * 1e3:.1f}, n = {n})")
    if before:
        mo = statistics.median(before)
        print(f"  the same from {opts.before:<14} median {mo * 1e3:7.1f} ms   (min {min(before) * 1e3:.1f}): "
              f"{(mo - ms) * 1e3:.1f} ms saved")
    print(f"above the bare start: {(ms - mb) * 1e3:.1f} ms; ratio {ms / mb:.2f}×; target ≤ 80 ms wall: "
          f"{'met' if ms <= 0.080 else 'not met'}")
    heavy = heavy_imports(env)
    print(f"excluded packages imported by score: {', '.join(heavy) if heavy else 'none'}")


if __name__ == "__main__":
    main()
