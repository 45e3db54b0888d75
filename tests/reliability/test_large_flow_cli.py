"""``score --deadline`` and Ctrl-C on long work (issue 24, item 2): the deadline counts from the
start of the command (reading and setup included) and a Ctrl-C ends the command with its one line
and exit 130, wherever it lands."""
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cpu_clock import process_cpu

ROOT = Path(__file__).resolve().parents[2]
#: the CLI as a shell in a terminal starts it: Ctrl-C not ignored (see test_interrupt.py)
AS_IN_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                    "from gindex_studio.cli import main; sys.exit(main(sys.argv[1:]))")


def hard_flow(path: Path, seed: int, n: int = 80) -> Path:
    """Random DAG of function and change nodes with few distinct values: the exact search of two
    such flows runs for a very long time (minutes and more)."""
    r = random.Random(seed)
    nodes = [{"id": f"{seed}-{i}", "type": ("function", "change")[i % 2], "name": f"v{r.randrange(3)}",
              "func": f"f{r.randrange(3)}", "wires": [[]]} for i in range(n)]
    for i in range(n):
        nodes[i]["wires"][0] += [f"{seed}-{j}" for j in range(i + 1, n) if r.random() < 0.08]
    path.write_text(json.dumps(nodes))
    return path


@pytest.fixture
def hard_pair(tmp_path):
    return hard_flow(tmp_path / "a.json", 1), hard_flow(tmp_path / "b.json", 2)


def test_deadline_bounds_the_whole_command(hard_pair):
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gindex_studio", "score", *map(str, hard_pair), "--deadline", "1"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr
    assert "not exact: true Δ in [" in p.stdout and "stopped at the 1 s deadline" in p.stdout
    assert wall < 10, f"{wall:.1f} s for --deadline 1"  # a generous bound: the exact search takes minutes


@pytest.mark.slow  # about 5 s: the search must be under way before the Ctrl-C
def test_ctrl_c_in_a_long_search_ends_score_with_one_line(hard_pair):
    children_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen([sys.executable, "-c", AS_IN_A_TERMINAL, "score", *map(str, hard_pair)], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        spent = 0.0
        while p.poll() is None and spent < 1.5:  # imports and reading take well under that: it is searching
            time.sleep(0.05)
            try:
                spent = process_cpu(p.pid)
            except OSError:
                break
        assert p.poll() is None, p.communicate()
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)  # a hang guard only
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stopping = (after.ru_utime - children_cpu.ru_utime) + (after.ru_stime - children_cpu.ru_stime) - spent
    assert (p.returncode, err, out) == (130, "gindex-studio: interrupted\n", "")
    assert stopping < 1.0, f"{stopping:.2f} s of CPU from the Ctrl-C to the exit"
