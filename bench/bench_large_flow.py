"""How scoring a large flow grows with its size (issue 24, item 2).

    python3 bench/bench_large_flow.py [--sizes 16000,32000,64000,100000]

A chain of ``function`` nodes is scored as ``gindex-studio score CHAIN OTHER`` does it, each size
and command in a fresh process, against two small flows:

- ``resources/demo/programs/http/http-1.json`` (no ``function`` node: no same-type pair, Δ = 1 and
  S = 0 at once): reading, the reduction and the report;
- ``resources/demo/programs/google-search/google-search-1.json`` (one ``function`` node): every
  chain node has a partner, so the native search's setup holds all of them (its adjacency and
  partner sets as lists, not n² bits).

And ``gindex-studio curate FOLDER --no-cache`` of a folder of the chain and the four
``resources/demo/programs/http`` programs (issue 36's hostile 20,000-node flow in a curriculum):
the bounds of every pair and the neighbour searches between the chain and each program.

Same-run baselines, a fresh process per size: ``orjson.loads`` of the file (linear reading, the
least anything can do with it) and ``read_strict`` (the file read strictly into a Flow, the least
any command does). Printed per size: wall and CPU seconds (user + system of the child, steadier
than wall on a shared machine) and peak RSS (``ru_maxrss``), and each score's CPU and peak memory
as a ratio to ``orjson.loads``: when the ratios stay flat as the size grows, scoring grows as
reading does (linearly); quadratic work shows as a ratio that doubles with the size.
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
DEMO = ROOT / "resources" / "demo" / "programs"
AGAINST = {"no pair": DEMO / "http" / "http-1.json", "all pairs": DEMO / "google-search" / "google-search-1.json"}

_ORJSON = "import sys, orjson; orjson.loads(open(sys.argv[1], 'rb').read())"
_READ = "import sys; from gindex_studio.cli.common import read_strict; read_strict(sys.argv[1], 'paper')"


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
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"chain of function nodes; each run a fresh process; load average {os.getloadavg()[0]:.2f}")
    print("ratios: CPU and peak MB of each command over those of orjson.loads of the same file (same run)")
    head = f"{'nodes':>7} | {'orjson.loads':>18} | {'read_strict':>18}"
    for name in [*(f"score, {a}" for a in AGAINST), "curate, http"]:
        head += f" | {name:>22} {'cpu×':>5} {'MB×':>5}"
    print(head)
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            chain = Path(tmp, f"chain-{n}.json")
            write_chain(chain, n)
            base = run([sys.executable, "-c", _ORJSON, str(chain)])
            line = f"{n:>7} | {_cell(base):>18} | {_cell(run([sys.executable, '-c', _READ, str(chain)])):>18}"
            folder = Path(tmp, f"cur-{n}")
            (folder / "http").mkdir(parents=True)
            for f in [*sorted((DEMO / "http").glob("*.json")), chain]:
                (folder / "http" / f.name).write_bytes(f.read_bytes())
            commands = [["score", str(chain), str(other)] for other in AGAINST.values()]
            for cmd in [*commands, ["curate", str(folder), "--no-cache"]]:
                got = run([sys.executable, "-m", "gindex_studio", *cmd])
                line += f" | {_cell(got):>22} {got['cpu'] / base['cpu']:>5.2f} {got['rss'] / base['rss']:>5.2f}"
            print(line, flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


def _cell(r: dict) -> str:
    return f"{r['wall']:.2f}s {r['cpu']:.2f}s {r['rss']:.0f}MB"


if __name__ == "__main__":
    main()
