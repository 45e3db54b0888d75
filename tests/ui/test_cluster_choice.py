"""The Dask cluster chosen in Preferences: typed into the dialog it survives a restart, a new
compare window computes its experiment's g-index on that cluster (the same numbers as on this
computer, the cluster seen doing the work), and a scheduler that does not answer gives one clear
message instead of a silent local run."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox

from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui import cluster, preferences
from gindex_studio.ui.preferences import Preferences

from .test_desktop_habits import activate, close_compare

EXPERIMENT = Path(DEMO_DIR, "experiment.json")


@pytest.fixture
def settings(tmp_path, monkeypatch):
    s = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    monkeypatch.setattr(preferences, "STUDIO_SETTINGS", [s])
    monkeypatch.delenv("GINDEX_SCHEDULER", raising=False)
    return s


def open_experiment_window(qtbot, library):
    from gindex_studio.ui.compare.window import open_compare

    cw = open_compare(None, library=library)
    errors = []
    cw.dialogs.error = lambda title, text: errors.append((title, text))
    assert cw.open_experiment(str(EXPERIMENT))
    return cw, errors


def test_the_scheduler_typed_in_preferences_survives_a_restart_and_reaches_compare_windows(
        qtbot, tmp_path, library, monkeypatch):
    from gindex_studio.ui.app import MainWindow

    from .conftest import ScriptedDialogs

    monkeypatch.delenv("GINDEX_SCHEDULER", raising=False)
    ini = str(tmp_path / "settings.ini")

    def start():
        win = MainWindow(settings=QSettings(ini, QSettings.IniFormat), autosave_dir=str(tmp_path / "autosave"),
                         library=library)
        win.dialogs = ScriptedDialogs()
        qtbot.addWidget(win)
        activate(qtbot, win)
        return win

    win = start()
    QTest.keyClick(win, Qt.Key_Comma, Qt.ControlModifier)
    dlg = win.preferences_dialog
    assert dlg.scheduler.text() == "" and dlg.scheduler.placeholderText() == "this computer"
    QTest.mouseClick(dlg.scheduler, Qt.LeftButton)
    QTest.keyClicks(dlg.scheduler, "  tcp://10.1.2.3:8786 ")
    QTest.mouseClick(dlg.buttons.button(QDialogButtonBox.Ok), Qt.LeftButton)
    assert win.prefs.scheduler == "tcp://10.1.2.3:8786"
    win.close()

    win2 = start()
    try:
        assert win2.prefs.scheduler == "tcp://10.1.2.3:8786"
        from gindex_studio.ui.compare.window import open_compare

        cw = open_compare(None, library=library)
        assert cw.controller.scheduler == "tcp://10.1.2.3:8786"
        close_compare(qtbot, cw)
    finally:
        win2.close()


def test_a_compare_window_computes_the_gindex_on_the_preferred_cluster(qtbot, settings, library, dask_client):
    Preferences(scheduler=dask_client.scheduler.address).save(settings)
    transitions = lambda: dask_client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_counter)
    before = transitions()
    want = compute_gindex(load_experiment(EXPERIMENT), workers=1)
    cw, errors = open_experiment_window(qtbot, library)
    try:
        assert cw.status.text() == f"computing the g-index on the Dask cluster at {dask_client.scheduler.address}…"
        qtbot.waitUntil(lambda: cw.controller.result is not None or bool(errors), timeout=120_000)
        assert errors == []
        got = cw.controller.result
        assert got.g_index == want.g_index
        assert [(t.delta, t.omega) for t in got.tasks] == [(t.delta, t.omega) for t in want.tasks]
        assert transitions() > before  # the cluster's scheduler ran the work
    finally:
        close_compare(qtbot, cw)
        cluster.disconnect(dask_client.scheduler.address)


def test_a_scheduler_that_does_not_answer_is_named_and_nothing_runs_here(qtbot, settings, library, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    Preferences(scheduler="tcp://127.0.0.1:1").save(settings)
    cw, errors = open_experiment_window(qtbot, library)
    try:
        qtbot.waitUntil(lambda: errors != [], timeout=30_000)
        (title, text), = errors
        assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in text
        assert cw.controller.result is None  # not computed on this computer behind the user's back
        assert cw.status.text() == ""
    finally:
        close_compare(qtbot, cw)


@pytest.fixture
def studio_on(qtbot, tmp_path, monkeypatch):
    """A studio window whose preferences name ``address`` as the Dask scheduler."""
    from gindex_studio.ui.app import MainWindow
    from gindex_studio.ui.curation import window as curation_window

    from .conftest import ScriptedDialogs
    from .curation_support import close_window

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("GINDEX_SCHEDULER", raising=False)
    made = []

    def make(address):
        ini = QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)
        Preferences(scheduler=address).save(ini)
        win = MainWindow(settings=ini, autosave_dir=str(tmp_path / "autosave"))
        win.dialogs = ScriptedDialogs()
        qtbot.addWidget(win)
        win.show()
        qtbot.waitExposed(win)
        made.append(win)
        return win

    before = list(curation_window.WINDOWS)
    yield make
    for w in [w for w in curation_window.WINDOWS if w not in before]:
        w.wait_for_report()
        close_window(w)


def curate_the_demo_experiment(qtbot, studio):
    from .test_curation_open import ScriptedChooser, click, open_curate_dialog

    dialog = open_curate_dialog(qtbot, studio)
    dialog.chooser = ScriptedChooser(experiment=str(EXPERIMENT))
    click(qtbot, dialog.radios["experiment"])
    click(qtbot, dialog.browse)
    click(qtbot, dialog.box.button(QDialogButtonBox.Ok))


@pytest.mark.slow
def test_file_curate_runs_on_the_preferred_cluster(qtbot, studio_on, dask_client):
    from gindex_studio.ui.curation import window as curation_window

    address = dask_client.scheduler.address
    studio = studio_on(address)
    before = len(curation_window.WINDOWS)
    curate_the_demo_experiment(qtbot, studio)
    qtbot.waitUntil(lambda: len(curation_window.WINDOWS) > before, timeout=30_000)
    win = curation_window.WINDOWS[-1]
    assert win.client is not None and win.client.scheduler.address == address
    win.wait_for_report()
    assert win.model.report is not None and studio.dialogs.errors == []
    cluster.disconnect(address)  # the report is done: the window needs the cluster no more


def test_file_curate_names_a_scheduler_that_does_not_answer_and_opens_nothing(qtbot, studio_on, monkeypatch):
    pytest.importorskip("distributed")
    from gindex_studio.ui.curation import window as curation_window

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    studio = studio_on("tcp://127.0.0.1:1")
    before = len(curation_window.WINDOWS)
    curate_the_demo_experiment(qtbot, studio)
    assert studio.statusBar().currentMessage() == "Connecting to the Dask cluster at tcp://127.0.0.1:1…"
    qtbot.waitUntil(lambda: studio.dialogs.errors != [], timeout=30_000)
    (title, text), = studio.dialogs.errors
    assert title == "Cannot curate on the cluster" and "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in text
    assert len(curation_window.WINDOWS) == before
