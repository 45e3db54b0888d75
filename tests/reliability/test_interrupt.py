"""One Ctrl-C stops a multi-task ``omega`` at once: exit 130, one line (issue 14, item 14).

The terminal sends SIGINT to the whole process group, pool workers included; the test does the
same with ``killpg`` once both worker processes are searching."""
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio.core.flow import write_flow_file
from gindex_studio.core.generate import random_flow

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


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see the pool's workers")
def test_one_ctrl_c_stops_every_worker_and_exits_130_within_a_second(tmp_path):
    # far 120-node pairs with no deadline: each task's exact search runs for minutes
    for i in range(4):
        (tmp_path / "cur" / "d").mkdir(parents=True, exist_ok=True)
        write_flow_file(random_flow(120, random.Random(i), "c"), tmp_path / "cur" / "d" / f"c{i}.json")
        write_flow_file(random_flow(120, random.Random(1000 + i), "t"), tmp_path / f"t{i}.json")
    tasks = [str(tmp_path / f"t{i}.json") for i in range(4)]
    p = subprocess.Popen([sys.executable, "-m", "gindex_studio.cli", "omega", "--curriculum", str(tmp_path / "cur"),
                          "--tasks", *tasks, "--workers", "2"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        t_end = time.monotonic() + 30
        while len(_children(p.pid)) < 2 and time.monotonic() < t_end and p.poll() is None:
            time.sleep(0.05)
        workers = _children(p.pid)
        assert len(workers) >= 2 and p.poll() is None, "the pool did not start"
        time.sleep(0.3)  # the workers are inside their searches
        t = time.monotonic()
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=10)
        took = time.monotonic() - t
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    assert p.returncode == 130 and took < 1.0, (p.returncode, took, err[-2000:])
    assert err == "gindex-studio: interrupted\n" and out == ""
    time.sleep(0.2)
    assert not [w for w in workers if Path(f"/proc/{w}").exists() and "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]]
