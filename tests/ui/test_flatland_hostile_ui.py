"""The studio on hostile Flatland programs (issue 26 items 1-3): opening, drawing and comparing
them answers at once with a message naming the node; a broken user library folder is left out and
the window still starts."""
from __future__ import annotations

import time
import warnings

from PySide6.QtCore import QSettings

from gindex_studio.core.flatland.resolve import LIBRARY_DIR

FACTORIAL = "main(start) -> a(move 10 0)\na -> b(move (factorial 100000000) 0)\nb -> main(end)\n{} -> main()\n"


def test_opening_a_hostile_program_reports_the_node_at_once(window, qtbot, tmp_path):
    path = tmp_path / "hostile.fbp"
    path.write_text(FACTORIAL)
    t = time.perf_counter()
    window.open_files([str(path)])
    qtbot.waitUntil(lambda: bool(window.dialogs.errors), timeout=5000)
    assert time.perf_counter() - t < 5
    (_title, text), = window.dialogs.errors
    assert "hostile.fbp:2:13: node 'b' (move dist): (factorial 100000000)" in text and "exceed the limit" in text


def test_the_drawing_dock_refuses_a_huge_distance_without_numpy_warnings(window, qtbot, tmp_path):
    path = tmp_path / "ok.fbp"
    path.write_text("main(start) -> a(move 10 0)\na -> main(end)\n{} -> main()\n")
    window.open_files([str(path)])
    qtbot.waitUntil(lambda: len(window.editors()) == 1, timeout=5000)
    panel = window.features["flatland"].panel
    panel.refresh()
    assert panel.trace is not None and len(panel.trace.segments) == 1
    doc = window.editor.doc
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc.set_attribute("a", "dist", 1e300)
        panel.refresh()
    assert panel.trace is None and "node 'a' (move): parameter 'dist' 1e+300 is out of range" in panel.info.text()


def test_compare_with_a_hostile_generated_program_does_not_hang(qtbot, tmp_path):
    from gindex_studio.ui.flatland.actions import open_compare

    gen = tmp_path / "gen.fbp"
    gen.write_text('#include "/etc/passwd"\n' + FACTORIAL.replace("main(start)", "main(start)"))
    t = time.perf_counter()
    w = open_compare(str(LIBRARY_DIR / "square.fbp"), str(gen))
    qtbot.addWidget(w)
    qtbot.waitExposed(w)
    assert time.perf_counter() - t < 10
    summary = w.summary.text()
    assert 0 < w.result.delta < 1 and "#include '/etc/passwd': only a file name" in summary and "root:" not in summary


def test_the_studio_starts_with_a_deeply_nested_user_library_file(qtbot, tmp_path, monkeypatch):
    from gindex_studio.core.flows.library import NodeLibrary
    from gindex_studio.ui.app import MainWindow, report_user_library_errors

    lib = tmp_path / "mylib"
    lib.mkdir()
    (lib / "deep.json").write_text('{"types": ' + "[" * 100000 + "]" * 100000 + "}")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("GINDEX_LIBRARY_PATH", str(lib))
    monkeypatch.setattr(NodeLibrary, "_bundled", None)
    monkeypatch.setattr(NodeLibrary, "user_errors", [])
    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat),
                     autosave_dir=str(tmp_path / "autosave"))
    qtbot.addWidget(win)
    win.show()
    report_user_library_errors(win)
    assert win.library.get("inject") is not None
    assert "deep.json: JSON nested deeper than 100 levels" in win.statusBar().currentMessage()
    win.autosave.close()
    monkeypatch.setattr(NodeLibrary, "_bundled", None)
