"""Start-up stays light: the studio's first window (the demo program open in it) loads no module
that only other windows or commands need. scipy (statistics, curation), pyqtgraph (plots,
heatmap), numpy (Flatland drawings and the other windows) and Dask load when the Analysis, Curate or cluster work is first used; importing them at
start-up cost 2-3 s of the 3 s window-shown target (issue 13)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: modules the first window must not load (each is a second or more of a cold start, or a cluster)
HEAVY = ("scipy", "pyqtgraph", "dask", "distributed", "numpy", "gindex_studio.core.benchmark.stats",
         "gindex_studio.core.benchmark.analysis", "gindex_studio.core.curation.engine",
         "gindex_studio.ui.analysis.window", "gindex_studio.ui.curation.window",
         "gindex_studio.ui.compare.window")

# the studio as `gindex-studio` starts it (ui.app.main), asked what it loaded once the demo shows
PROBE = r"""
import json, sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget
from gindex_studio.ui import app as studio
from gindex_studio.ui.application import studio_application

HEAVY = json.loads(sys.argv[1])
after_import = [m for m in HEAVY if m in sys.modules]
end = time.monotonic() + 60

def poll():
    win = studio.LAST_WINDOW
    if win is None or not win.editors() or not win.isVisible():
        if time.monotonic() < end:
            return QTimer.singleShot(50, poll)
    try:
        print(json.dumps({"after_import": after_import, "shown": bool(win and win.editors()),
                          "actions": sorted(a.objectName() for a in QWidget.actions(win)) if win else [],
                          "loaded": [m for m in HEAVY if m in sys.modules]}))
        sys.stdout.flush()
    finally:  # exit, not quit: quit() would close (and ask about) the windows
        QApplication.instance().exit(0)

studio_application()
QTimer.singleShot(0, poll)
studio.main([])
"""


def test_the_first_window_loads_no_scipy_pyqtgraph_or_dask(tmp_path):
    pytest.importorskip("PySide6", reason="the studio's window needs the [gui] extra (PySide6)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "GINDEX_"))}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), PYTHONPATH=str(REPO),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", PROBE, json.dumps(HEAVY)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["shown"], "the demo program did not open"
    # the File menu still offers what the heavy windows do (they load when chosen)
    assert {"file.compare", "file.open_experiment", "file.curate", "file.analysis"} <= set(out["actions"])
    assert out["after_import"] == []
    assert out["loaded"] == []


def test_file_analysis_opens_its_window_on_first_use(qtbot, monkeypatch, tmp_path):
    """The lazily loaded Analysis window still opens from the main window's File menu."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QFileDialog

    from gindex_studio.ui.app import MainWindow

    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat),
                     autosave_dir=str(tmp_path / "autosave"))
    qtbot.addWidget(win)
    study = REPO / "resources" / "demo" / "study" / "study.json"
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(study)], ""))
    from gindex_studio.ui.analysis import window as analysis_window

    before = list(analysis_window.WINDOWS)
    win.actions["file.analysis"].trigger()
    (opened,) = [w for w in analysis_window.WINDOWS if w not in before]
    qtbot.addWidget(opened)
    qtbot.waitUntil(lambda: len(opened.systems) == 3, timeout=60_000)
    assert [s.label for s in opened.systems] == ["gpt2-small", "gpt2-medium", "gpt2-large"]
    win.autosave.close()
