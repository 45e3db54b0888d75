"""Test configuration shared by every test: Qt runs offscreen, so a bare `pytest` works headless."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# pytest-qt's binding (an env var, not an ini key: the core's tests also run where pytest-qt is absent)
os.environ.setdefault("PYTEST_QT_API", "pyside6")
# Preferences keep the Node-RED token in the desktop keyring: never the developer's real one in tests
# (the tests that need a keyring set a fake backend in code)
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


def _laptop_screen() -> None:
    """The offscreen platform gets one 1366×768 screen (the most common laptop screen; its default
    is 800×800), so that windows open as they do on a laptop. Subprocesses inherit it."""
    if os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        return
    import json
    import tempfile

    path = os.path.join(tempfile.gettempdir(), f"gindex-offscreen-1366x768-{os.getuid()}.json")
    screen = {"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96,
              "logicalBaseDpi": 96, "dpr": 1}
    with open(path, "w") as f:
        json.dump({"screens": [screen]}, f)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={path}"


_laptop_screen()


def _compiled_once() -> None:
    """Where ``PYTHONDONTWRITEBYTECODE`` is set (this project's machines set it), nothing compiled
    was kept: each xdist worker rewrote every test module's asserts (7 of its 10 s of collection)
    and every studio or command-line subprocess compiled the modules it imported anew. The suite
    keeps them, in ``__pycache__`` folders as Python does by default (git ignores them). With
    ``PYTHONPYCACHEPREFIX`` instead every installed package was compiled anew into it: a fresh
    clone's ``.ci/run``, idle, took 8 min 2 s in pytest so and 7 min 46 s this way (once each)."""
    import sys

    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_compiled_once()
# as the studio runs (ui/app.py): one OpenBLAS thread, whichever test imports numpy first
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


import importlib.util  # noqa: E402

import pytest  # noqa: E402

HAVE_QT = importlib.util.find_spec("PySide6") is not None


def _skip_qt_without_gui(config, items):
    """Without the [gui] extra (a core-only install), tests that drive Qt skip, saying why."""
    if HAVE_QT:
        return
    skip = pytest.mark.skip(reason="needs the [gui] extra (PySide6): a core-only install")
    for item in items:
        if {"qtbot", "qapp"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(skip)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Modules with the most slow tests run first (otherwise in their order): xdist hands out whole
    modules (``--dist loadscope``) in the order they come, and the hostile corpus (about 260 s on
    one worker, its runtime started once) came near the end, so the run waited for it alone. Then
    tests that drive Qt skip without the [gui] extra."""
    slow: dict[str, int] = {}
    for item in items:
        if item.get_closest_marker("slow") is not None:
            slow[item.nodeid.split("::")[0]] = slow.get(item.nodeid.split("::")[0], 0) + 1
    items.sort(key=lambda item: -slow.get(item.nodeid.split("::")[0], 0))  # stable
    _skip_qt_without_gui(config, items)


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
    """One real private Node-RED, in its sandbox, for the whole test session (issue 25). Installed on first use, as
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


@pytest.fixture(scope="session")
def user_nodered(nodered):
    """A Node-RED standing for one the user runs: no sandbox, on a TCP port of the host, with an
    admin token (tests reach it with ``RemoteRuntime(user_nodered.url, user_nodered.token)``)."""
    from gindex_studio.core.nodered.runtime import PrivateRuntime

    rt = PrivateRuntime.start(timeout=120, sandboxed=False)
    yield rt
    rt.stop()


@pytest.fixture
def nodered_session(nodered):
    """A deploy session on the session's Node-RED (its flows removed afterwards)."""
    from gindex_studio.core.nodered.deploy import Session

    s = Session(nodered)
    yield s
    s.close()


_SIGNALS_KEPT = ("SIGINT", "SIGTERM")


def _signal_state():
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    return ({n: signal.getsignal(getattr(signal, n)) for n in _SIGNALS_KEPT},
            {signal.Signals(s).name for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])} & set(_SIGNALS_KEPT))


@pytest.fixture(autouse=True)
def _signals_left_as_found():
    """A test leaves SIGINT's and SIGTERM's handlers and the thread's signal mask as it found them.
    Every process a test starts inherits an ignored disposition and a blocked mask, so one test that
    leaked either made later tests' Ctrl-C and kill cases fail in the full suite only."""
    before = _signal_state()
    yield
    after = _signal_state()
    if before is not None and after != before:
        import signal

        for name, handler in before[0].items():
            signal.signal(getattr(signal, name), handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, [getattr(signal, n) for n in before[1]])
        pytest.fail(f"the test changed the signal state: before {before}, after {after}")
