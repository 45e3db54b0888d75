"""Preferences never keep the Node-RED admin token in the settings file (issue 31, item 2): the
desktop keyring where there is one, else a 0600 file beside the settings; the dialog says which;
a plain token an older studio left in the settings file is moved and removed from it."""
from __future__ import annotations

import os
import stat

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox

fake_keyring = pytest.importorskip("fake_keyring")  # needs ``keyring`` (the "gui" extra's)

TOKEN = "tok-9f8e7d6c5b4a"


@pytest.fixture(params=["keyring", "file"])
def where(request):
    """Each test runs with a desktop keyring (in memory) and without one (the 0600 file)."""
    if request.param == "file":
        yield None
    else:
        with fake_keyring.using(fake_keyring.MemoryKeyring()) as kr:
            yield kr


def _settings_text(window_or_settings) -> str:
    settings = getattr(window_or_settings, "settings", window_or_settings)
    settings.sync()
    with open(settings.fileName(), encoding="utf-8") as f:
        return f.read()


def test_the_token_typed_in_preferences_is_kept_out_of_the_settings_file(window, qtbot, where, tmp_path):
    from gindex_studio.ui.preferences import preferred_remote

    dlg = window.open_preferences()
    qtbot.waitExposed(dlg)
    said = dlg.token_where.text()
    token_file = tmp_path / "node-red-token"  # beside the window's settings.ini
    if where is not None:
        assert said == "Kept in the desktop keyring (MemoryKeyring)"
    else:
        assert said == f"Kept in {token_file}, a file only you can read (mode 0600): there is no desktop keyring here"
    QTest.keyClicks(dlg.node_red, "http://127.0.0.1:1880")
    QTest.keyClicks(dlg.node_red_token, TOKEN)
    QTest.mouseClick(dlg.buttons.button(QDialogButtonBox.Ok), Qt.LeftButton)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=3000)
    text = _settings_text(window)
    assert "http://127.0.0.1:1880" in text and TOKEN not in text
    assert preferred_remote() == ("http://127.0.0.1:1880", TOKEN)
    if where is not None:
        assert where.items == {("gindex-studio", "node-red-admin-token"): TOKEN} and not token_file.exists()
    else:
        assert token_file.read_text() == TOKEN + "\n"
        assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
    # cleared in the dialog: forgotten everywhere
    dlg = window.open_preferences()
    qtbot.waitExposed(dlg)
    assert dlg.node_red_token.text() == TOKEN
    dlg.node_red_token.selectAll()
    QTest.keyClick(dlg.node_red_token, Qt.Key_Delete)
    QTest.mouseClick(dlg.buttons.button(QDialogButtonBox.Ok), Qt.LeftButton)
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=3000)
    assert preferred_remote() == ("http://127.0.0.1:1880", None)
    assert not token_file.exists() and (where is None or where.items == {})


def test_a_plain_token_of_an_older_studio_is_moved_out_of_the_settings_file(where, tmp_path):
    from gindex_studio.ui.preferences import Preferences, token_store

    path = tmp_path / "studio.ini"
    old = QSettings(str(path), QSettings.IniFormat)
    old.setValue("prefs/node_red_url", "http://127.0.0.1:1880")
    old.setValue("prefs/node_red_token", TOKEN)
    old.sync()
    assert TOKEN in path.read_text()
    settings = QSettings(str(path), QSettings.IniFormat)
    prefs = Preferences.load(settings)
    assert (prefs.node_red_url, prefs.node_red_token) == ("http://127.0.0.1:1880", TOKEN)
    assert TOKEN not in path.read_text() and "node_red_url" in path.read_text()
    assert token_store(settings).get() == TOKEN
    if where is not None:
        assert where.items == {("gindex-studio", "node-red-admin-token"): TOKEN}
    prefs.save(settings)
    assert TOKEN not in path.read_text()
    assert Preferences.load(QSettings(str(path), QSettings.IniFormat)) == prefs
