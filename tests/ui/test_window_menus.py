"""Desktop habits shared by the windows: the curation window's File → Close (Ctrl+W) and Quit
(Ctrl+Q) and Redo on Ctrl+Y, File → Curate… above Quit in the studio, and one message (not a
stack of boxes) when several dropped files cannot be opened."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from .curation_support import open_window
from .test_desktop_habits import drop_on


def test_curation_window_closes_on_ctrl_w_and_redoes_on_ctrl_y(qtbot, tmp_path):
    from gindex_studio.core.curation.workspace import load_workspace
    from gindex_studio.paths import DEMO_DIR

    win = open_window(qtbot, load_workspace(DEMO_DIR / "experiment.json"), tmp_path, wait=False)
    texts = [a.text().replace("&", "") for a in win.menuBar().actions()[0].menu().actions() if not a.isSeparator()]
    assert texts[-2:] == ["Close", "Quit"]
    assert win.registry["edit.redo"].shortcut().toString() == "Ctrl+Y"
    assert win.registry["file.quit"].shortcut().toString() == "Ctrl+Q"  # the studio's Quit (test_one_workspace)
    # an undoable edit, undone and redone from the keyboard
    first = win.model.ws.items[0]
    win.model.set_domain([0], "elsewhere")
    assert first.domain == "elsewhere"
    with qtbot.waitActive(win):
        win.activateWindow()
    QTest.keyClick(win, Qt.Key_Z, Qt.ControlModifier)
    assert first.domain != "elsewhere"
    QTest.keyClick(win, Qt.Key_Y, Qt.ControlModifier)
    assert first.domain == "elsewhere"
    QTest.keyClick(win, Qt.Key_W, Qt.ControlModifier)
    qtbot.waitUntil(lambda: not win.isVisible(), timeout=15_000)


def test_curate_sits_above_quit_in_the_studios_file_menu(window):
    file_menu = window.menuBar().actions()[0].menu()
    names = [a.objectName() for a in file_menu.actions()]
    assert names.index("file.curate") < names.index("file.quit")
    assert names[-1] == "file.quit"


def test_dropping_two_bad_files_gives_one_message_naming_both(window, qtbot, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("{not json")
    b.write_text("[1, 2")
    assert drop_on(window.tabs, [a, b])  # where a user lets go: over the canvas area
    qtbot.waitUntil(lambda: window.pending_loads() == 0 and bool(window.dialogs.errors), timeout=10_000)
    qtbot.wait(50)
    assert len(window.dialogs.errors) == 1
    title, text = window.dialogs.errors[0]
    assert "a.json" in text and "b.json" in text and "2 files" in text


def test_compare_with_pasted_output_types_into_the_text_box_and_ok_compares_the_paste(qtbot, tmp_path):
    from PySide6.QtWidgets import QDialog, QDialogButtonBox

    from gindex_studio.ui.compare.window import PairDialog

    ref = tmp_path / "ref.json"
    ref.write_text('[{"id": "a", "type": "inject", "wires": [["b"]]}, {"id": "b", "type": "debug", "wires": []}]')
    d = PairDialog(None, str(ref), paste=True)
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    with qtbot.waitActive(d):
        d.activateWindow()
    assert d.text.isEnabled() and d.text.hasFocus()
    QTest.keyClicks(QApplication.focusWidget(), '[{"id": "x", "type": "inject"}]')
    assert d.ref.text() == str(ref)
    ok = d.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok)
    QTest.mouseClick(ok, Qt.LeftButton, pos=ok.rect().center())
    assert d.result() == QDialog.Accepted
    assert d.answer() == (str(ref), None, '[{"id": "x", "type": "inject"}]')
