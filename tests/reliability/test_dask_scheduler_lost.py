"""A Dask scheduler killed mid-run is one line (issue 36, item 13): Dask's client logged a 31-line
traceback (its reconnection, cancelled by the close) before the run's line, and ``curate``
ended in a ``FuturesCancelledError`` traceback. A real scheduler process is started, a worker
joins it, and the scheduler is killed (SIGKILL) once the run's searches are on the worker."""
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio.core.flows.generate import perturb, random_flow

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]  # the tree under test (cwd: first on the path)
SEARCHES = ("_shard_nearest", "_matrix_rows", "_unit")


@pytest.fixture(scope="module")
def curriculum(tmp_path_factory):
    """40 programs of 60 nodes in two domains: a run of several seconds on one worker."""
    root = tmp_path_factory.mktemp("cur")
    rng = random.Random(1)
    templates = [random_flow(60, rng, f"d{d}x") for d in range(2)]
    for i in range(40):
        (root / "ab"[i % 2]).mkdir(exist_ok=True)
        (root / "ab"[i % 2] / f"p{i}.json").write_bytes(perturb(templates[i % 2], rng, 0.3, prefix=f"c{i}x").dumps())
    return root


def _start(*args):
    return subprocess.Popen([sys.executable, "-m", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture
def scheduler(tmp_path):
    """(address, scheduler process, worker process): a scheduler and one worker without nanny."""
    file = tmp_path / "scheduler.json"
    procs = [_start("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(file))]
    end = time.monotonic() + 60
    while not file.exists() or not file.read_text().strip():
        assert time.monotonic() < end, "the scheduler did not start"
        time.sleep(0.05)
    address = json.loads(file.read_text())["address"]
    procs.append(_start("distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"))
    try:
        yield address, procs[0], procs[1]
    finally:
        for p in procs:
            p.kill()
            p.wait()


def _kill_when_searching(address: str, scheduler: subprocess.Popen) -> float:
    """Wait until the worker runs one of the run's searches, then kill the scheduler; when."""
    from distributed import Client

    from gindex_studio.core.support.cluster import close

    watcher = Client(address, timeout="10s")
    try:
        end = time.monotonic() + 60
        while not any(str(k).startswith(SEARCHES) for keys in watcher.processing().values() for k in keys):
            assert time.monotonic() < end and scheduler.poll() is None, "no search started"
            time.sleep(0.02)
        scheduler.kill()
        return time.monotonic()
    finally:
        close(watcher)


@pytest.mark.slow
@pytest.mark.parametrize("command, what", [
    (["omega", "--curriculum", "{cur}", "--tasks", "{cur}"], "tasks"),
    (["matrix", *[f"{{cur}}/{'ab'[i % 2]}/p{i}.json" for i in range(24)]], "bands of rows"),
    (["curate", "{cur}", "--no-cache"], "units of work"),
], ids=["omega", "matrix", "curate"])
def test_a_scheduler_killed_mid_run_is_one_line(command, what, curriculum, scheduler):
    address, sched, _ = scheduler
    run = subprocess.Popen([sys.executable, "-m", "gindex_studio.cli",
                            *[a.format(cur=curriculum) for a in command], "--scheduler", address],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=ROOT)
    try:
        killed = _kill_when_searching(address, sched)
        out, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert time.monotonic() - killed < 8  # (the workers' check asks the lost scheduler for 5 s at most)
    assert run.returncode == 1 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"gindex-studio: lost the connection to the Dask scheduler at {address} mid-run "
                          "(was it stopped?): ")
    assert err.rstrip().endswith(f" {what} left undone")
