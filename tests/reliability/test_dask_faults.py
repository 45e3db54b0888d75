"""A scheduler address is checked before Dask sees it, and a service that accepts but never
answers, or answers in another protocol, is one line within the timeout (issue 26, item 8)."""
import socket
import threading
import time

import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.core.benchmark import on_cluster
from gindex_studio.core.support import cluster as dist
from gindex_studio.paths import DEMO_DIR

pytest.importorskip("distributed")
REF = f"{DEMO_DIR}/programs/http/http-1.json"


class FakeServer:
    """A TCP server on localhost that accepts connections and then sends ``reply`` (None: nothing)."""

    def __init__(self, reply: bytes | None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.reply, self.conns = reply, []
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.reply is not None:
                conn.sendall(self.reply)

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.mark.parametrize("address, words", [
    ("ucx://127.0.0.1:8786", "the scheme ucx:// is not supported"),
    ("tcp://HOST:PORT", "the port 'PORT' is not a number"),
    ("tcp://:8786", "no host"),
    ("tcp://127.0.0.1:99999", "the port 99999 is not a number from 1 to 65535"),
    ("tcp://127.0.0.1:8786/x", "give only a host and a port"),
])
def test_a_malformed_address_is_one_line_naming_the_option(address, words, capsys):
    assert main(["matrix", REF, REF, "--scheduler", address]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"gindex-studio: --scheduler {address}: {words}" + err.split(words, 1)[1]
    assert "\n" not in err


def test_a_service_that_accepts_and_never_answers_fails_within_the_timeout():
    server = FakeServer(None)
    try:
        start = time.monotonic()
        with pytest.raises(dist.ClusterError, match="sent nothing within 1 s"):
            dist.connect(server.address, timeout=1.0)
        assert time.monotonic() - start < 3
    finally:
        server.close()


def test_a_service_that_is_not_dask_is_one_line_not_an_exabyte_allocation(capsys):
    server = FakeServer(b"SSH-2.0-OpenSSH_9.6\r\n")  # its first 8 bytes read as a length: 3.07 EiB
    try:
        start = time.monotonic()
        assert main(["matrix", REF, REF, "--scheduler", server.address]) == 1
        err = capsys.readouterr().err.strip()
        assert err == f"gindex-studio: --scheduler {server.address}: the service there does not speak Dask's " \
                      "protocol (not a Dask scheduler)"
        assert time.monotonic() - start < 5
    finally:
        server.close()


def test_a_real_scheduler_passes_the_check():
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        dist.probe_scheduler(cluster.scheduler_address, 5.0, "--scheduler")
        client = dist.connect(cluster.scheduler_address, timeout=5.0)
        dist.close(client)


class Workers:
    """``n`` Dask worker processes without a nanny (nothing restarts them), joined to ``address``."""

    def __init__(self, address: str, n: int, scheduler):
        import subprocess
        import sys

        self.procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                        "--no-nanny", "--no-dashboard"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(n)]
        end = time.monotonic() + 60
        while len(scheduler.workers) < n:
            assert time.monotonic() < end, "the workers did not join"
            time.sleep(0.05)

    def kill(self):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def _kill_when_searching(scheduler, workers: Workers, killed: list):
    """Kill every worker as soon as the scheduler runs a search unit (a thread)."""
    def watch():
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if any(ts.state == "processing" and str(ts.key).startswith(("_shard_nearest", "_matrix_rows"))
                   for ts in list(scheduler.tasks.values())):
                workers.kill()
                killed.append(time.monotonic())
                return
            time.sleep(0.005)
    threading.Thread(target=watch, daemon=True).start()


@pytest.fixture
def scheduler_only():
    """A scheduler (in this process) with no workers of its own."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield cluster


@pytest.mark.slow
def test_every_worker_lost_mid_run_ends_the_run_with_one_line(scheduler_only, monkeypatch, capsys):
    """Dask waits forever for workers that never come back; the run ends within the limit."""
    monkeypatch.setenv(dist.NO_WORKERS_ENV, "1.5")
    workers = Workers(scheduler_only.scheduler_address, 2, scheduler_only.scheduler)
    killed = []
    try:
        _kill_when_searching(scheduler_only.scheduler, workers, killed)
        programs = f"{DEMO_DIR}/programs"
        assert main(["omega", "--curriculum", programs, "--tasks", programs, "--scheduler", scheduler_only.scheduler_address]) == 1
    finally:
        workers.kill()
    assert killed, "the run ended before its workers were killed"
    assert time.monotonic() - killed[0] < 10
    err = capsys.readouterr().err.strip()
    assert err.startswith("gindex-studio: the Dask cluster has had no workers for 1.5 s (were they stopped?): ")
    assert err.endswith(" of 64 tasks left undone") and "\n" not in err


@pytest.mark.slow
def test_a_matrix_whose_workers_are_all_lost_is_a_cluster_error(scheduler_only):
    from gindex_studio.core.benchmark.curriculum_files import read_curriculum_folder

    flows, _, _ = read_curriculum_folder(DEMO_DIR / "programs")
    workers = Workers(scheduler_only.scheduler_address, 1, scheduler_only.scheduler)
    killed = []
    from distributed import Client

    client = Client(scheduler_only.scheduler_address)
    try:
        _kill_when_searching(scheduler_only.scheduler, workers, killed)
        with pytest.raises(dist.ClusterError, match=r"no workers for 1 s .*: \d+ of 16 bands of rows left undone"):
            on_cluster.delta_matrix_dask(flows, client, rows_per_unit=4, watchdog=dist.Watchdog(client, "bands of rows", 1.0))
    finally:
        workers.kill()
        client.close()
    assert killed


@pytest.mark.slow
def test_a_cluster_that_never_had_workers_is_one_line(scheduler_only, monkeypatch, capsys):
    monkeypatch.setenv(dist.NO_WORKERS_ENV, "1")
    start = time.monotonic()
    assert main(["omega", "--curriculum", f"{DEMO_DIR}/programs", "--tasks", REF, "--scheduler", scheduler_only.scheduler_address]) == 1
    assert time.monotonic() - start < 8
    assert capsys.readouterr().err.strip() == ("gindex-studio: the Dask cluster has had no workers for 1 s "
                                               "(were they stopped?): 1 of 1 tasks left undone")


@pytest.mark.parametrize("value", ["soon", "0", "-3", "inf"])
@pytest.mark.slow
def test_a_bad_no_workers_limit_names_the_variable(value, monkeypatch, capsys):
    monkeypatch.setenv(dist.NO_WORKERS_ENV, value)
    assert main(["matrix", REF, REF, "--dask-workers", "1"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"gindex-studio: ${dist.NO_WORKERS_ENV} {value!r} is not a") and "\n" not in err


@pytest.mark.slow
def test_a_large_run_sends_no_large_graph(dask_client, monkeypatch, caplog):
    """Every large run printed Dask's 'Sending large graph' warning (once per shard, 6 lines each):
    the curriculum went to the scheduler as one task per shard. Here the warning's threshold is
    lowered to 100 kB (and the parts to 40 kB) so that a 600-program curriculum (about 1 MB, two
    shards) is a large run."""
    import warnings

    import dask

    import random

    from gindex_studio.core.benchmark.curriculum import Curriculum, omega_many
    from gindex_studio.core.flows.generate import perturb, random_flow
    from gindex_studio.core.scoring.divergence import prepare

    rng = random.Random(4)
    templates = [random_flow(rng.randint(5, 12), rng, f"d{d}x") for d in range(6)]
    flows = [perturb(templates[i % 6], rng, 0.2, prefix=f"c{i}x") for i in range(600)]
    cur = Curriculum.from_flows(flows, [f"dom{i % 6}" for i in range(600)], [f"p{i}" for i in range(600)])
    tasks = [prepare(perturb(templates[k % 6], rng, 0.3, prefix=f"t{k}x")) for k in range(40)]
    import pickle

    assert len(pickle.dumps(cur.programs)) > 2 * 100_000  # each of the two shards is above the threshold
    monkeypatch.setattr(dist, "PART_BYTES", 40_000)
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "100kB"}), \
            warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        run = on_cluster.omega_many_dask(tasks, cur, dask_client, batch=20)
    texts = [str(w.message) for w in seen] + [r.getMessage() for r in caplog.records]
    assert not [t for t in texts if "large graph" in t]
    assert run.missing == []
    assert [{d: n.omega for d, n in r.items()} for r in run.results] == \
           [{d: n.omega for d, n in r.items()} for r in omega_many(tasks, cur, workers=1)]


def test_a_finished_unit_whose_result_was_lost_with_its_worker_is_watched_too():
    """``as_completed`` gave the unit as finished, then its worker (holding the result) died: Dask
    computes it again, and with no worker left ``result()`` would wait for ever. The wait asks the
    watchdog, which ends it with its one line. (Seen once in a CI run: a hang in
    ``test_a_matrix_whose_workers_are_all_lost_is_a_cluster_error``.)"""
    asked = []

    class LostResult:
        def result(self, timeout=None):
            assert timeout is not None  # never a wait without an end
            time.sleep(min(timeout, 0.01))
            raise TimeoutError()

    def check():
        asked.append(1)
        if len(asked) == 3:
            raise dist.ClusterError("the Dask cluster has had no workers for 1 s (were they stopped?): 1 of 4 left undone")

    with pytest.raises(dist.ClusterError, match="no workers"):
        dist.watched_result(LostResult(), check, poll=0.01)
    assert len(asked) == 3

    class Ready:
        def result(self, timeout=None):
            return "rows"

    assert dist.watched_result(Ready(), lambda: pytest.fail("no wait, no check")) == "rows"
