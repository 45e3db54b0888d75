"""Ω, the Δ matrix and the g-index on a real Dask cluster (2 worker processes) equal the local
computation; a worker killed mid-run costs nothing but time."""
import io
import os
import pickle
import random
import signal
import threading
import time

import pytest

distributed = pytest.importorskip("distributed")

from gindex_studio.core.benchmark.curriculum import Curriculum, delta_matrix, omega_many, overall  # noqa: E402
from gindex_studio.core.benchmark.curriculum_files import read_curriculum_folder  # noqa: E402
from gindex_studio.core.support.cluster import Cancelled, put_snapshot
from gindex_studio.core.benchmark.on_cluster import CurriculumFiles, delta_matrix_dask, merge_nearest, omega_many_dask, _shard_nearest, _submit_shard, plan_shards
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare  # noqa: E402
from gindex_studio.core.benchmark.curriculum import Nearest  # noqa: E402
from gindex_studio.core.benchmark.experiment import load_experiment  # noqa: E402
from gindex_studio.core.flows.generate import perturb, random_flow  # noqa: E402
from gindex_studio.core.benchmark.gindex import compute_gindex  # noqa: E402
from gindex_studio.paths import DEMO_DIR  # noqa: E402


@pytest.fixture
def client(dask_client):
    return dask_client


def _generated(n_programs, n_tasks, seed=3):
    rng = random.Random(seed)
    templates = [random_flow(rng.randint(5, 12), rng, f"d{d}x") for d in range(6)]
    flows = [perturb(templates[i % 6], rng, 0.2, prefix=f"c{i}x") for i in range(n_programs)]
    domains = [f"dom{i % 6}" for i in range(n_programs)]
    tasks = [perturb(templates[k % 6], rng, 0.3, prefix=f"t{k}x") if k % 4 else random_flow(8, rng, f"u{k}x")
             for k in range(n_tasks)]
    return Curriculum.from_flows(flows, domains, [f"p{i}" for i in range(n_programs)]), [prepare(t) for t in tasks]


def _same(local, remote, cur, task):
    """Equal Ω per domain; the nearest program named may differ only between programs at the same Δ."""
    assert set(local) == set(remote)
    for d in local:
        assert remote[d].omega == local[d].omega, d
        assert remote[d].exact == local[d].exact
        if remote[d].index != local[d].index:
            alone = Curriculum([cur.programs[remote[d].index]], [d], ["x"], cur.options)
            assert alone.nearest(task).omega == local[d].omega


def test_plan_shards_cover_every_program_once():
    for n in (0, 1, 5, 64, 1001):
        for w in (1, 2, 7):
            shards = plan_shards(n, w, 2)
            assert [i for r in shards for i in r] == list(range(n))
            assert all(len(r) > 0 for r in shards)


def test_merge_takes_the_minimum_and_keeps_a_cut_search_honest():
    a = {"x": Nearest(0.5, 1, True, 3, 1, 0.5)}
    b = {"x": Nearest(0.25, 0, True, 2, 0, 0.25), "y": Nearest(1.0, 0, True, 1, 0, 1.0)}
    m = merge_nearest([(0, a), (10, b)])
    assert (m["x"].omega, m["x"].index, m["x"].searched, m["x"].skipped) == (0.25, 10, 5, 1)
    assert m["y"].index == 10
    cut = {"x": Nearest(0.5, 2, False, 1, 0, 0.1)}  # a deadline-cut search could still go to 0.1
    assert not merge_nearest([(0, b), (5, cut)])["x"].exact
    assert merge_nearest([(0, b), (5, {"x": Nearest(0.5, 2, False, 1, 0, 0.3)})])["x"].exact


@pytest.mark.slow
def test_omega_on_the_cluster_equals_the_local_pool_on_a_generated_curriculum(client):
    cur, tasks = _generated(240, 12)
    local = omega_many(tasks, cur, workers=1)
    seen = []
    run = omega_many_dask(tasks, cur, client, batch=5, shards_per_worker=2, progress=lambda d, t: seen.append((d, t)))
    assert run.missing == []
    for t, lo, re in zip(tasks, local, run.results):
        _same(lo, re, cur, t)
        assert overall(re).omega == overall(lo).omega
    assert seen[-1] == (12, 12) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_omega_on_the_cluster_equals_local_on_the_demo_curriculum(client):
    flows, domains, labels = read_curriculum_folder(DEMO_DIR / "programs")
    for profile in ("paper", "companion"):
        opts = ScoreOptions(profile=profile)
        cur = Curriculum.from_flows(flows, domains, labels, opts)
        tasks = [prepare(f, opts) for f in flows[::7]]
        local = omega_many(tasks, cur, workers=1)
        run = omega_many_dask(tasks, cur, client)
        for t, lo, re in zip(tasks, local, run.results):
            _same(lo, re, cur, t)


def test_programs_left_out_on_the_cluster_are_those_left_out_locally(client):
    """Tasks that are curriculum programs, each measured without itself (``leave_self_out``), the
    left-out programs falling in different shards: the cluster's Ω equals the local one, and
    differs from Ω with every program in."""
    cur, _ = _generated(120, 0)
    picked = list(range(0, 120, 13))
    tasks = [cur.programs[k] for k in picked]
    exclude = [[k] for k in picked]
    local = omega_many(tasks, cur, workers=1, exclude=exclude)
    run = omega_many_dask(tasks, cur, client, batch=3, shards_per_worker=3, exclude=exclude)
    assert run.missing == []
    for t, lo, re in zip(tasks, local, run.results):
        _same(lo, re, cur, t)
    assert all(overall(r).omega == 0 for r in omega_many(tasks, cur, workers=1))
    assert any(overall(r).omega > 0 for r in run.results)


def test_matrix_on_the_cluster_equals_local(client):
    flows, _, _ = read_curriculum_folder(DEMO_DIR / "programs")
    sample = flows[::5]
    for profile in ("paper", "companion"):
        opts = ScoreOptions(profile=profile)
        assert delta_matrix_dask(sample, client, opts, rows_per_unit=3) == delta_matrix(sample, opts)


def test_gindex_on_the_cluster_equals_local(client):
    exp = load_experiment(DEMO_DIR / "experiment.json")
    local = compute_gindex(exp, workers=1)
    for read_by_workers in (False, True):
        remote = compute_gindex(exp, client=client, workers_read_files=read_by_workers)
        assert remote.g_index == local.g_index
        assert [t.omega for t in remote.tasks] == [t.omega for t in local.tasks]


def test_gindex_on_the_cluster_tells_each_task_as_it_completes_and_can_be_cancelled(client):
    from gindex_studio.core.benchmark.curriculum import Cancelled as CoreCancelled
    from gindex_studio.core.benchmark.gindex import Listener

    exp = load_experiment(DEMO_DIR / "experiment.json")

    class Heard(Listener):
        def __init__(self):
            self.tasks = []

        def task(self, result):
            self.tasks.append((result.index, result.omega, result.tc))

    heard = Heard()
    res = compute_gindex(exp, client=client, listener=heard)
    assert sorted(heard.tasks) == sorted((t.index, t.omega, t.tc) for t in res.tasks)
    token = threading.Event()

    class StopAtFirst(Listener):
        def task(self, result):
            token.set()

    with pytest.raises(CoreCancelled):  # the studio catches the core's Cancelled
        compute_gindex(exp, client=client, listener=StopAtFirst(), cancel=token)


@pytest.mark.slow
def test_a_worker_killed_mid_run_costs_only_time(client):
    cur, tasks = _generated(600, 24, seed=8)
    local = omega_many(tasks, cur, workers=1)
    pids = list(client.run(os.getpid).values())
    killed = []

    def kill_one(done, total):
        if not killed and done >= 4:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(done)

    run = omega_many_dask(tasks, cur, client, batch=4, shards_per_worker=2, progress=kill_one)
    assert killed, "the run finished before a worker could be killed"
    assert run.missing == []
    for t, lo, re in zip(tasks, local, run.results):
        _same(lo, re, cur, t)
    client.wait_for_workers(2, timeout=60)


def test_cancel_stops_the_cluster_work(client):
    cur, tasks = _generated(300, 40, seed=5)

    class Token:
        def __init__(self):
            self.flag = threading.Event()

        def is_set(self):
            return self.flag.is_set()

    token = Token()

    def stop_early(done, total):
        token.flag.set()

    t0 = time.perf_counter()
    with pytest.raises(Cancelled):
        omega_many_dask(tasks, cur, client, batch=1, progress=stop_early, cancel=token)
    assert time.perf_counter() - t0 < 30
    deadline = time.time() + 10
    while client.processing() and any(client.processing().values()) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(client.processing().values()), "cancelled work is still running on the cluster"


def _files_curriculum(tmp_path, n, seed, domains=4):
    from gindex_studio.core.flows.flow import write_flow_file

    rng = random.Random(seed)
    flows = [perturb(random_flow(rng.randint(5, 12), rng, f"f{i}x"), rng, 0.2, prefix=f"g{i}x") for i in range(n)]
    paths = []
    for i, f in enumerate(flows):
        paths.append(tmp_path / f"p{i}.json")
        write_flow_file(f, paths[-1])
    doms, labels = [f"dom{i % domains}" for i in range(n)], [f"p{i}" for i in range(n)]
    return Curriculum.from_flows(flows, doms, labels), CurriculumFiles(paths, doms, labels), flows


def test_workers_reading_the_curriculum_files_give_the_same_omega(client, tmp_path):
    cur, files, _ = _files_curriculum(tmp_path, 60, 11)
    _, tasks = _generated(12, 6, seed=11)
    local = omega_many(tasks, cur, workers=1)
    run = omega_many_dask(tasks, files, client, batch=4, shards_per_worker=2)
    assert run.missing == []
    for t, lo, re in zip(tasks, local, run.results):
        _same(lo, re, cur, t)


def test_a_curriculum_file_changed_or_gone_stops_the_run_with_its_name(client, tmp_path):
    from gindex_studio.core.support.cluster import ClusterError
    from gindex_studio.core.flows.flow import write_flow_file

    _, files, flows = _files_curriculum(tmp_path, 8, 5, domains=1)
    tasks = [prepare(flows[0])]
    write_flow_file(flows[4], tmp_path / "p3.json")  # changed after the client digested it
    with pytest.raises(ClusterError, match=r"p3\.json changed since the run started"):
        omega_many_dask(tasks, files, client)
    files.digests[3] = CurriculumFiles([tmp_path / "p3.json"], ["d"], ["x"]).digests[0]
    (tmp_path / "p5.json").unlink()
    with pytest.raises(ClusterError, match=r"cannot read the curriculum file .*p5\.json"):
        omega_many_dask(tasks, files, client)
    with pytest.raises(ValueError, match="differ in length"):
        CurriculumFiles(files.paths[:7], files.domains, files.labels)


def test_each_task_is_handed_over_as_soon_as_every_shard_answered(client):
    cur, tasks = _generated(120, 9)
    events = []
    run = omega_many_dask(tasks, cur, client, batch=2, shards_per_worker=2,
                          on_result=lambda i, per: events.append(("task", i, per)),
                          progress=lambda d, t: events.append(("progress", d)))
    handed = [(e[1], e[2]) for e in events if e[0] == "task"]
    assert sorted(i for i, _ in handed) == list(range(9))
    for i, per in handed:
        assert {d: n.omega for d, n in per.items()} == {d: n.omega for d, n in run.results[i].items()}
    # a batch's tasks come before the progress call that counts them
    for k, e in enumerate(events):
        if e[0] == "progress":
            assert sum(1 for x in events[:k] if x[0] == "task") == e[1]


def test_a_cancel_is_seen_while_a_long_unit_still_runs(client):
    from gindex_studio.core.flows.flow import flow_from_nodes

    def dense(seed, prefix, n=40):  # unrelated dense cyclic programs: hard for the companion search
        rng = random.Random(seed)
        return flow_from_nodes([{"id": f"{prefix}{i}", "type": "function",
                                 "wires": [[f"{prefix}{j}" for j in range(n) if j != i and rng.random() < 0.5]]}
                                for i in range(n)])

    opts = ScoreOptions(profile="companion")
    cur = Curriculum.from_flows([dense(k, f"c{k}x") for k in range(2)], ["d", "d"], ["p0", "p1"], opts)
    tasks = [prepare(dense(10 + k, f"t{k}x"), opts) for k in range(2)]
    token = threading.Event()
    threading.Timer(0.5, token.set).start()
    seen = []
    t0 = time.perf_counter()
    with pytest.raises(Cancelled):  # each unit: 2 searches of up to 3 s each (the deadline)
        omega_many_dask(tasks, cur, client, batch=2, deadline=3.0, cancel=token,
                        progress=lambda d, t: seen.append(d))
    assert seen == []  # no unit had finished: the cancel did not wait for one
    assert time.perf_counter() - t0 < 3.0
    end = time.time() + 30  # the workers finish the searches they had begun (Dask cannot stop them)
    while any(client.processing().values()) and time.time() < end:
        time.sleep(0.1)


class _Inline:
    """A client that runs each submitted function at once (a future is its value)."""

    def submit(self, fn, *args, **_kw):
        return fn(*args)


class _SearchWhilePickling(pickle.Pickler):
    """Pickles as Dask does when it copies a value to another worker, while this worker's thread
    searches on the same value: ``search`` runs at the second object (not a class) the pickler
    meets, the first one inside the value, so any table it adds appears in the middle of the pickling."""

    def __init__(self, file, search):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.search, self.met = search, 0

    def reducer_override(self, obj):
        if isinstance(obj, type):
            return NotImplemented
        self.met += 1
        if self.met == 2:
            self.search()
        return NotImplemented


def test_a_shard_pickled_while_a_search_runs_on_its_worker_is_unchanged():
    """What the cluster holds for a shard and a batch does not change when the worker searches: a
    search in the middle of pickling it (as when Dask moves it to another worker) neither fails
    ("dictionary changed size during iteration") nor changes its bytes; the search's Ω is the local one."""
    cur, tasks = _generated(30, 4)
    shard = _submit_shard(_Inline(), cur, range(len(cur)))
    batch = put_snapshot(_Inline(), tasks)
    before = pickle.dumps(shard, protocol=pickle.HIGHEST_PROTOCOL)
    found = []
    out = io.BytesIO()
    _SearchWhilePickling(out, lambda: found.append(_shard_nearest(shard, batch, None))).dump(shard)
    found.append(_shard_nearest(shard, batch, None))  # and once more after: the worker's tables are filled
    assert out.getvalue() == before == pickle.dumps(shard, protocol=pickle.HIGHEST_PROTOCOL)
    for per_task in found:
        assert [{d: n.omega for d, n in r.items()} for r in per_task] == \
               [{d: n.omega for d, n in cur.nearest_by_domain(t).items()} for t in tasks]
