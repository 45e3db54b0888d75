"""How scoring a large flow grows with its size (issue 24, item 2).

    python3 bench/bench_large_flow.py [--sizes 16000,32000,64000,100000] [--against FLOW]

A chain of ``function`` nodes is scored against ``resources/demo/programs/http/http-1.json`` (no
``function`` node there: no same-type pair, Δ = 1 and S = 0 at once), as ``gindex-studio score``
does it, each size in a fresh process. The same-run baseline, also a fresh process per size, only
reads and parses the chain (``cli.common.read_strict``: the flow file read strictly into a Flow),
the least any command does with the file. Printed per size: wall and CPU seconds (user + system of
the child, steadier than wall on a shared machine) and peak RSS (``ru_maxrss``) of both, and the
ratios score / baseline: when they stay flat as the size grows, scoring grows as reading does
(linearly); quadratic work would show as a ratio that doubles with the size.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGAINST = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"

_BASELINE = "import sys; from gindex_studio.cli.common import read_strict; read_strict(sys.argv[1], 'paper')"


def write_chain(path: Path, n: int) -> None:
    """A chain of n ``function`` nodes, each wired to the next."""
    nodes = [{"id": f"n{i}", "type": "function", "z": "tab", "name": f"step {i}", "func": "return msg;",
              "outputs": 1, "x": 100 + i % 50 * 10, "y": 100 + i // 50 * 10,
              "wires": [[f"n{i + 1}"]] if i + 1 < n else [[]]} for i in range(n)]
    path.write_text(json.dumps(nodes))


def run(argv: list[str]) -> dict:
    """Run ``argv`` in a fresh process: wall s, CPU s (user + system) and peak RSS in MB."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {err.strip()}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="16000,32000,64000,100000")
    ap.add_argument("--against", default=str(AGAINST), help="the small flow scored against each chain")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"chain of function nodes vs {Path(args.against).name}; each run a fresh process")
    print(f"{'nodes':>8} | {'read: wall':>10} {'cpu':>6} {'MB':>6} | {'score: wall':>11} {'cpu':>6} {'MB':>6} | "
          f"{'cpu ×':>6} {'MB ×':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            chain = Path(tmp, f"chain-{n}.json")
            write_chain(chain, n)
            base = run([sys.executable, "-c", _BASELINE, str(chain)])
            got = run([sys.executable, "-m", "gindex_studio", "score", str(chain), args.against])
            print(f"{n:>8} | {base['wall']:>9.2f}s {base['cpu']:>5.2f}s {base['rss']:>6.0f} | "
                  f"{got['wall']:>10.2f}s {got['cpu']:>5.2f}s {got['rss']:>6.0f} | "
                  f"{got['cpu'] / base['cpu']:>6.2f} {got['rss'] / base['rss']:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
