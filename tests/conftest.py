"""Test configuration shared by every test: Qt runs offscreen, so a bare `pytest` works headless."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# as the studio runs (ui/app.py): one OpenBLAS thread, whichever test imports numpy first
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


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


@pytest.fixture(scope="session")
def qapp(qapp_args, qapp_cls, pytestconfig):
    """pytest-qt's application, with Python's cyclic garbage collected on its thread only, as in
    the studio (ui/gui_gc): a collection run by a worker thread destroyed earlier tests' widgets
    there and deadlocked the suite."""
    from gindex_studio.ui.gui_gc import collect_on_gui_thread

    app = qapp_cls.instance()
    if app is None:
        app = qapp_cls(qapp_args)
        app.setApplicationName(pytestconfig.getini("qt_qapp_name"))
    collect_on_gui_thread(app)
    yield app


@pytest.fixture(autouse=True)
def _collect_cycles_between_tests():
    """Once Qt's collector timer is in place, tests that run no event loop still get their cycles
    collected (on the main thread, between tests)."""
    yield
    import sys

    gui_gc = sys.modules.get("gindex_studio.ui.gui_gc")
    if gui_gc is not None and gui_gc.is_installed():
        gui_gc.collect_if_due()


@pytest.fixture(scope="session")
def nodered():
    """One real private Node-RED for the whole test session (issue 25). Installed on first use, as
    the product does, into a stable cache folder so reruns are fast; skipped when Node.js is absent."""
    import shutil
    from pathlib import Path

    if not shutil.which("node"):
        pytest.skip("Node.js is not installed: the Node-RED tests need `node` (18-20) and npm")
    os.environ.setdefault("GINDEX_NODERED_HOME", str(Path.home() / ".cache" / "gindex-studio-test-nodered"))
    from gindex_studio.core.nodered.runtime import PrivateRuntime

    rt = PrivateRuntime.start(timeout=120)
    yield rt
    rt.stop()


@pytest.fixture
def nodered_session(nodered):
    """A deploy session on the session's Node-RED (its flows removed afterwards)."""
    from gindex_studio.core.nodered.deploy import Session

    s = Session(nodered)
    yield s
    s.close()
