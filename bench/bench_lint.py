"""nrlint's cost (issue 25, item 5): linting the 64 demo programs through Node.js, measured in the
same run as its baseline, ``node -e 0`` (a bare Node.js start):

- one flow per Node.js process (what a naive caller pays per flow),
- every flow in one process (what ``lint_flows`` does),
- again from the cache (files only: the in-memory cache emptied), and from memory.

Printed: median wall times and the ratios to the bare Node.js start. Needs Node.js and the
private Node-RED's install (``GINDEX_NODERED_HOME`` picks the install; the cache goes to a temporary
folder).

Run:  python3 bench/bench_lint.py [-n 5]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gindex_studio.core.nodered import lint as L  # noqa: E402


def _median(fn, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5)
    args = ap.parse_args()
    flows = [json.loads(p.read_text())["flow"] for p in sorted((ROOT / "resources/demo/programs").glob("*/*.json"))]
    node = shutil.which("node")
    tmp = Path(tempfile.mkdtemp(prefix="bench-lint-"))
    L.cache_dir = lambda: tmp  # type: ignore[assignment]
    rules = frozenset(L.RULES)
    bare = _median(lambda: subprocess.run([node, "-e", "0"], check=True), args.n)
    per_flow = _median(lambda: [L.lint(f, rules, use_cache=False) for f in flows[:8]], max(1, args.n // 2)) / 8
    batch = _median(lambda: L.lint_flows(flows, rules, use_cache=False), args.n)

    def from_files():
        L._MEMORY.clear()
        L.lint_flows(flows, rules)
    L.lint_flows(flows, rules)  # fill the cache
    files = _median(from_files, args.n)
    memory = _median(lambda: L.lint_flows(flows, rules), args.n)
    shutil.rmtree(tmp, ignore_errors=True)
    k = len(flows)
    print(f"{k} demo flows, every nrlint rule, median of {args.n}")
    print(f"bare Node.js start (node -e 0):        {bare * 1000:8.1f} ms")
    print(f"one process per flow:                  {per_flow * 1000:8.1f} ms per flow ({per_flow / bare:.1f}× a bare start)")
    print(f"all {k} flows in one process:           {batch * 1000:8.1f} ms ({batch / k * 1000:.1f} ms per flow; "
          f"{per_flow * k / batch:.1f}× faster than one process each)")
    print(f"all {k} from the cache files:           {files * 1000:8.1f} ms ({files / bare:.2f}× a bare start)")
    print(f"all {k} from memory:                    {memory * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
