"""Test configuration shared by every test: Qt runs offscreen, so a bare `pytest` works headless."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def dask_client():
    """A real Dask cluster of 2 worker processes (started once for every test that asks)."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()
