"""``gindex-studio matrix --json`` memory and time (issue 24.3), each size against a same-run
baseline: the command as it was before rows were streamed (reproduced here: every label of the
n² pairs built for the memory check, a list of lists of floats, one JSON document at the end,
one process, one orientation per search).

    python3 bench/bench_matrix.py                      # 800 and 1,600 files both ways, 5,000 new only
    python3 bench/bench_matrix.py --sizes 200 400 --baseline-up-to 400

Each run is a fresh process (``python -m gindex_studio matrix --json FILES > file``, or the
baseline's script) started by a fresh wrapper that reports ``resource.getrusage(RUSAGE_CHILDREN)
.ru_maxrss``: the peak resident memory of the largest process of the run (the command or one of
its workers). Programs: ``core.flows.generate.random_flow`` of 3-12 nodes in 16 palettes. The
JSON of both is compared value for value where both ran.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gindex_studio.core.flows.flow import write_flow_file  # noqa: E402
from gindex_studio.core.flows.generate import random_flow  # noqa: E402

#: the command as it was (commit b38cde3): run by the wrapper as a script of its own
BASELINE = r'''
import sys
from fractions import Fraction
from pathlib import Path
from gindex_studio.cli.common import json_out, read_generated
from gindex_studio.core.support.limits import searches_too_big
from gindex_studio.core.scoring.divergence import ScoreOptions, delta_from_s, prepare
from gindex_studio.core.scoring.matching import max_common_subgraph

files = sys.argv[1:]
reads = [read_generated(f, "paper") for f in files]
flows, names = [r.flow for r in reads], [Path(f).name for f in files]
why = searches_too_big([[(a, b, f"{names[i]} × {names[j]}") for i, a in enumerate(flows)
                         for j, b in enumerate(flows)]], at_once=1, what="Δ matrix")
assert why is None, why
prepared = [prepare(f, ScoreOptions()) for f in flows]
n = len(prepared)
out = [[0.0] * n for _ in range(n)]
for i in range(n):
    for j in range(n):
        if j < i:
            out[i][j] = out[j][i]
            continue
        a, b = prepared[i], prepared[j]
        m = max_common_subgraph(a.graph, b.graph, "paper")
        out[i][j] = float(delta_from_s(Fraction(*m.weight), a.n, b.n))
syntax = [r.syntax.to_dict() if r.syntax else None for r in reads]
json_out({"files": list(files), "delta": out, "profile": "paper", "syntax": syntax})
'''

#: the wrapper: runs argv[1:] with stdout to a file, prints wall seconds and the children's peak RSS
WRAPPER = r'''
import resource, subprocess, sys, time
out = sys.argv[1]
t = time.perf_counter()
with open(out, "wb") as f:
    code = subprocess.call(sys.argv[2:], stdout=f)
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(code, wall, ru.ru_maxrss * 1024, ru.ru_utime + ru.ru_stime)
'''


def make_files(folder: Path, n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    palettes = [None] + [rng.sample(["function", "change", "switch", "template", "delay", "http request", "json",
                                     "split", "join", "rbe"], 3) for _ in range(15)]
    paths = []
    for k in range(n):
        p = folder / f"p{k:05d}.json"
        write_flow_file(random_flow(rng.randint(3, 12), rng, f"p{k}x", palette=palettes[k % 16]), p)
        paths.append(str(p))
    return paths


def measure(argv: list[str], out: Path) -> tuple[int, float, int, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    got = subprocess.run([sys.executable, "-c", WRAPPER, str(out), *argv], env=env, capture_output=True, text=True,
                         check=True)
    code, wall, rss, cpu = got.stdout.split()
    return int(code), float(wall), int(rss), float(cpu)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[800, 1600, 5000])
    ap.add_argument("--baseline-up-to", type=int, default=1600, help="largest size the baseline runs at")
    ap.add_argument("--workers", type=int, default=None, help="the new command's --workers (default: all cores)")
    a = ap.parse_args()
    print(f"matrix --json: peak RSS of the largest process, wall time and CPU time (the command and its workers), "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = make_files(tmp, max(a.sizes))
        for n in a.sizes:
            names = files[:n]
            new_out, old_out = tmp / "new.json", tmp / "old.json"
            extra = [] if a.workers is None else ["--workers", str(a.workers)]
            code, wall, rss, cpu = measure([sys.executable, "-m", "gindex_studio", "matrix", "--json", *extra, *names],
                                           new_out)
            assert code == 0
            cells = n * n
            line = (f"{n:>6} files ({cells:,} cells): streamed {rss / 1e6:7.1f} MB peak ({rss / cells:6.1f} B/cell), "
                    f"{wall:6.1f} s wall, {cpu:6.1f} s CPU")
            if n <= a.baseline_up_to:
                bcode, bwall, brss, bcpu = measure([sys.executable, "-c", BASELINE, *names], old_out)
                assert bcode == 0
                same = json.loads(new_out.read_bytes()) == json.loads(old_out.read_bytes())
                line += (f"; baseline {brss / 1e6:7.1f} MB ({brss / cells:6.1f} B/cell), {bwall:6.1f} s wall, "
                         f"{bcpu:6.1f} s CPU → memory ratio {brss / rss:.1f}x, wall ratio {bwall / wall:.1f}x, "
                         f"CPU ratio {bcpu / cpu:.1f}x; same JSON: {same}")
            print(line, flush=True)


if __name__ == "__main__":
    main()
