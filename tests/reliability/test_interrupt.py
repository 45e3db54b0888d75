"""One Ctrl-C stops a multi-task ``omega`` at once: exit 130, one line (issue 14, item 14).

The terminal sends SIGINT to the whole process group, pool workers included; the test does the
same with ``killpg`` once both worker processes are searching."""
import os
import random
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio.core.flows.flow import write_flow_file
from gindex_studio.core.flows.generate import random_flow

from cpu_clock import process_cpu

ROOT = Path(__file__).resolve().parents[2]


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


#: the CLI as a shell in a terminal starts it: Ctrl-C not ignored. A test run started in the
#: background (``cmd &`` in a script, nohup) ignores SIGINT, and every child inherits that: the
#: command then rightly ignored the Ctrl-C (seen: SigIgn 0x1001007 = SIGHUP, SIGINT, SIGQUIT).
AS_IN_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                    "from gindex_studio.cli import main; sys.exit(main(sys.argv[1:]))")


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see the pool's workers")
def test_one_ctrl_c_stops_every_worker_and_exits_130_within_a_second(tmp_path):
    """The second is CPU time, all processes together, from the Ctrl-C to the exit: the work of
    stopping, which the machine's load does not stretch (the elapsed time it does, without
    limit). Searches that went on would spend minutes."""
    # far 120-node pairs with no deadline: each task's exact search runs for minutes
    for i in range(4):
        (tmp_path / "cur" / "d").mkdir(parents=True, exist_ok=True)
        write_flow_file(random_flow(120, random.Random(i), "c"), tmp_path / "cur" / "d" / f"c{i}.json")
        write_flow_file(random_flow(120, random.Random(1000 + i), "t"), tmp_path / f"t{i}.json")
    tasks = [str(tmp_path / f"t{i}.json") for i in range(4)]
    children_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen([sys.executable, "-c", AS_IN_A_TERMINAL, "omega", "--curriculum", str(tmp_path / "cur"),
                          "--tasks", *tasks, "--workers", "2"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        workers: list[int] = []

        def searching() -> bool:  # both workers have done some searching: they are inside it
            nonlocal workers
            workers = _children(p.pid)
            return len(workers) >= 2 and all(process_cpu(w) >= 0.2 for w in workers[:2])

        while p.poll() is None and not _try(searching):
            time.sleep(0.02)
        assert p.poll() is None and len(workers) >= 2, "the pool did not start"
        spent = sum(_try(lambda pid=pid: process_cpu(pid)) or 0.0 for pid in [p.pid, *_descendants(p.pid)])
        os.killpg(p.pid, signal.SIGINT)
        try:
            out, err = p.communicate(timeout=60)  # a hang guard only
        except subprocess.TimeoutExpired:
            pytest.fail(f"no exit 60 s after Ctrl-C; the command's signal state: {_signal_state(p.pid)}")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime - children_cpu.ru_utime) + (after.ru_stime - children_cpu.ru_stime)
    stopping = total - spent
    assert p.returncode == 130, (p.returncode, err[-2000:])
    assert stopping < 1.0, f"{stopping:.2f} s of CPU from the Ctrl-C to the exit"
    assert err == "gindex-studio: interrupted\n" and out == ""
    assert not [w for w in workers if _running(w)], "a worker outlived the command"


def _signal_state(pid: int) -> dict:
    """What the process does with signals (blocked, ignored, caught: /proc masks) and its threads."""
    try:
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if ":\t" in line)
    except OSError as e:
        return {"error": str(e)}
    return {k: status[k].strip() for k in ("SigBlk", "SigIgn", "SigCgt", "Threads") if k in status}


def _try(f):
    """``f()``, or None when the process it reads has just gone."""
    try:
        return f()
    except OSError:
        return None


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        out += kids
        todo += kids
    return out


# Ctrl-C while the pool starts: the interrupt lands just before the pool's manager thread starts
# (the moment a loaded machine hit: ProcessPoolExecutor.shutdown then raised "cannot join thread
# before it is started", exit 1 with a traceback; or a worker it had not registered searched on).
INTERRUPTED_START = r"""
import json, multiprocessing as mp, os, random, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (see AS_IN_A_TERMINAL)
import concurrent.futures.process as cfp
from gindex_studio.core.benchmark.curriculum import Curriculum, omega_many
from gindex_studio.core.scoring.divergence import prepare
from gindex_studio.core.flows.generate import random_flow

real_start = cfp._ExecutorManagerThread.start

def start(self):
    os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, at this very moment
    real_start(self)

cfp._ExecutorManagerThread.start = start
cur = Curriculum.from_flows([random_flow(12, random.Random(i), "c") for i in range(4)], ["d"] * 4)
tasks = [prepare(random_flow(12, random.Random(100 + i), "t")) for i in range(4)]
try:
    omega_many(tasks, cur, workers=2)
    outcome = "finished"
except KeyboardInterrupt:
    outcome = "interrupted"
except BaseException as e:
    outcome = f"{type(e).__name__}: {e}"
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
print(json.dumps({"outcome": outcome, "alive": [p.pid for p in mp.active_children()]}))
print(json.dumps({"sigint handler": str(signal.getsignal(signal.SIGINT)), "blocked": status["SigBlk"].strip(),
                  "ignored": status["SigIgn"].strip(), "threads": status["Threads"].strip(),
                  "env": {k: v for k, v in os.environ.items() if k.startswith(("GINDEX", "PYTHON", "OMP", "OPENBLAS", "QT"))}}))
"""


def test_ctrl_c_while_the_pool_starts_stops_it_cleanly():
    import json

    p = subprocess.run([sys.executable, "-c", INTERRUPTED_START], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    result, state = p.stdout.splitlines()
    assert json.loads(result) == {"outcome": "interrupted", "alive": []}, (state, p.stderr[-2000:])
