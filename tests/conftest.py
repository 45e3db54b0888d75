"""Test configuration shared by every test: Qt runs offscreen, so a bare `pytest` works headless."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# pytest-qt's binding (an env var, not an ini key: the core's tests also run where pytest-qt is absent)
os.environ.setdefault("PYTEST_QT_API", "pyside6")
# as the studio runs (ui/app.py): one OpenBLAS thread, whichever test imports numpy first
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


import importlib.util  # noqa: E402

import pytest  # noqa: E402

HAVE_QT = importlib.util.find_spec("PySide6") is not None


def pytest_collection_modifyitems(config, items):
    """Without the [gui] extra (a core-only install), tests that drive Qt skip, saying why."""
    if HAVE_QT:
        return
    skip = pytest.mark.skip(reason="needs the [gui] extra (PySide6): a core-only install")
    for item in items:
        if {"qtbot", "qapp"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(skip)


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
