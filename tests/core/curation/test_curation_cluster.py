"""Curation on a real Dask cluster (2 worker processes): the same report as the local engine, the
values found on workers reach the disk cache, a killed worker costs only time, cancel stops the
cluster's work."""
import os
import random
import signal
import threading
import time
from fractions import Fraction

import pytest

pytest.importorskip("distributed")

from gindex_studio.core.curation.cache import DeltaCache, content_digest, options_key  # noqa: E402
from gindex_studio.core.curation.cluster import ClusterPairEngine  # noqa: E402
from gindex_studio.core.curation.engine import Cancelled, PairEngine  # noqa: E402
from gindex_studio.core.curation.report import analyse  # noqa: E402
from gindex_studio.core.curation.workspace import Item, Workspace, load_workspace  # noqa: E402
from gindex_studio.core.scoring.divergence import ScoreOptions  # noqa: E402
from gindex_studio.core.flows.generate import perturb, random_flow  # noqa: E402
from gindex_studio.paths import DEMO_DIR  # noqa: E402


def _generated_workspace(n, seed=4):
    """``n`` programs in 5 domains (perturbed templates, some exact copies), every 4th a test."""
    rng = random.Random(seed)
    templates = [random_flow(rng.randint(5, 11), rng, f"d{d}x") for d in range(5)]
    items = []
    for i in range(n):
        flow = templates[i % 5].copy() if i % 17 == 0 else perturb(templates[i % 5], rng, 0.25, prefix=f"p{i}x")
        items.append(Item(f"p{i}", None, flow, f"dom{i % 5}", "test" if i % 4 == 3 else "curriculum"))
    return Workspace(items, ScoreOptions())


def _demo_workspace(profile):
    ws = load_workspace(DEMO_DIR / "programs")
    ws.options = ScoreOptions(profile=profile)
    for i in range(0, len(ws), 6):
        ws.set_role(i, "test")
    return ws



def _engines(ws, client, cache=None):
    flows = [it.flow for it in ws.items]
    return PairEngine(flows, ws.options), ClusterPairEngine(flows, ws.options, cache, client=client)


@pytest.mark.slow
def test_the_report_on_the_cluster_equals_the_local_report_on_the_demo(dask_client):
    for profile in ("paper", "companion"):
        ws = _demo_workspace(profile)
        local, remote = _engines(ws, dask_client)
        assert analyse(ws, remote).findings() == analyse(ws, local).findings(), profile


def test_the_report_on_the_cluster_equals_local_on_a_generated_workspace_with_progress(dask_client):
    ws = _generated_workspace(100)
    local, remote = _engines(ws, dask_client)
    seen = []
    remote.progress = lambda done, total: seen.append((done, total))
    rep_remote = analyse(ws, remote, Fraction(1, 5))
    rep_local = analyse(ws, local, Fraction(1, 5))
    assert rep_remote.findings() == rep_local.findings()
    assert rep_remote.duplicates.groups and rep_remote.leaks  # the generated set has both
    assert seen and all(0 < d <= t for d, t in seen) and (seen[-1][0] == seen[-1][1])


def test_values_found_on_workers_reach_the_disk_cache(dask_client, tmp_path):
    ws = _generated_workspace(60, seed=9)
    flows = [it.flow for it in ws.items]
    cache = DeltaCache(tmp_path / "cache.sqlite")
    rep = analyse(ws, ClusterPairEngine(flows, ws.options, cache, client=dask_client))
    stored = cache.get_many(options_key(ws.options), [content_digest(f) for f in flows])
    assert rep.searched > 0 and len(stored) > 0
    index = {content_digest(f): i for i, f in enumerate(flows)}
    check = PairEngine(flows, ws.options)
    for (a, b), value in list(stored.items())[::7]:
        assert check.delta(index[a], index[b]) == value
    again = analyse(ws, ClusterPairEngine(flows, ws.options, cache, client=dask_client))
    assert again.searched < rep.searched  # workers start from the cached values
    assert again.findings() == rep.findings()
    cache.close()


@pytest.mark.slow
def test_a_worker_killed_mid_report_costs_only_time(dask_client):
    ws = _generated_workspace(120, seed=6)
    want = analyse(ws, PairEngine([it.flow for it in ws.items], ws.options))
    remote = ClusterPairEngine([it.flow for it in ws.items], ws.options, client=dask_client, units_per_worker=8)
    pids = list(dask_client.run(os.getpid).values())
    killed = []

    def kill_one(done, total):
        if not killed and done >= 2:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(done)

    remote.progress = kill_one
    assert analyse(ws, remote).findings() == want.findings()
    assert killed
    dask_client.wait_for_workers(2, timeout=60)


def test_cancel_stops_the_cluster_work(dask_client):
    ws = _generated_workspace(160, seed=2)
    token = threading.Event()
    remote = ClusterPairEngine([it.flow for it in ws.items], ws.options, cancel=token, client=dask_client,
                               units_per_worker=16)
    remote.progress = lambda done, total: token.set()
    t0 = time.perf_counter()
    with pytest.raises(Cancelled):
        analyse(ws, remote)
    assert time.perf_counter() - t0 < 30
    deadline = time.time() + 10
    while any(dask_client.processing().values()) and time.time() < deadline:
        time.sleep(0.1)
    assert not any(dask_client.processing().values()), "cancelled work is still running on the cluster"
