"""``gindex-studio --install-desktop`` / ``--uninstall-desktop`` on a temporary ``XDG_DATA_HOME``,
and opening an experiment file the way a file manager does (``gindex-studio FILE``).

The MIME checks ask GIO (``gio``, from libglib2.0-bin) what a file manager would see; they are
skipped, with that reason, on machines without ``gio``.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from gindex_studio import cli
from gindex_studio import desktop
from gindex_studio.paths import APP_ICON, DEMO_DIR

pytestmark = pytest.mark.packaging

EXPERIMENT = DEMO_DIR / "experiment.json"
FLOW = DEMO_DIR / "programs" / "telegram-2-reply" / "telegram-2-reply-4.json"
INSTALLED = ("applications/gindex-studio.desktop", "mime/packages/gindex-studio.xml",
             "icons/hicolor/scalable/apps/gindex-studio.svg",
             "icons/hicolor/scalable/mimetypes/application-x-gindex-studio-experiment.svg")


@pytest.fixture
def data_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "share"
    # a user who already has another application and another MIME type of their own
    (home / "applications").mkdir(parents=True)
    (home / "applications" / "other.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Other\nExec=true %F\nMimeType=text/x-other-thing;\n")
    (home / "mime" / "packages").mkdir(parents=True)
    (home / "mime" / "packages" / "other.xml").write_text(
        '<?xml version="1.0"?>\n<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">'
        '<mime-type type="text/x-other-thing"><glob pattern="*.otherthing"/></mime-type></mime-info>\n')
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _desktop_entry(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if line)


def test_install_writes_launcher_type_and_icons_and_uninstall_restores_the_folder(data_home, capsys):
    before = _files(data_home)
    assert cli.main(["--install-desktop"]) == 0
    out = capsys.readouterr().out
    for rel in INSTALLED:
        assert (data_home / rel).is_file() and f"installed {data_home / rel}" in out
    assert (data_home / INSTALLED[2]).read_bytes() == APP_ICON.read_bytes()

    entry = _desktop_entry(data_home / INSTALLED[0])
    assert entry["Icon"] == "gindex-studio" and entry["Type"] == "Application"
    assert entry["MimeType"].split(";")[0] == desktop.EXPERIMENT_TYPE
    argv = shlex.split(entry["Exec"])
    assert argv[-1] == "%F" and argv[:-1] == desktop.launch_command() and os.access(argv[0], os.X_OK), entry["Exec"]
    run = subprocess.run(argv[:-1] + ["--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.startswith("usage: gindex-studio")

    mime = (data_home / INSTALLED[1]).read_text()
    assert f'type="{desktop.EXPERIMENT_TYPE}"' in mime and "gindex-studio.experiment/" in mime
    new = set(_files(data_home)) - set(before)
    # nothing else written: the four files and the databases the refresh tools generate from them
    assert all(k in INSTALLED or k.startswith("mime/") or k == "applications/mimeinfo.cache" for k in new), new

    assert cli.main(["--uninstall-desktop"]) == 0
    out = capsys.readouterr().out
    assert all(f"removed {data_home / rel}" in out for rel in INSTALLED)
    after = _files(data_home)
    # the user's own files are untouched; only databases the tools regenerate may differ
    assert {k: v for k, v in after.items() if "packages" in k or k.endswith("other.desktop")} == before
    assert not any(rel in after for rel in INSTALLED)
    assert not (data_home / "icons").exists()  # folders made only for the icons are gone

    assert cli.main(["--uninstall-desktop"]) == 0  # again: nothing to do, still fine
    assert "nothing to remove" in capsys.readouterr().out


def test_uninstall_on_an_empty_data_home_leaves_nothing_behind(tmp_path, monkeypatch):
    home = tmp_path / "fresh"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    assert cli.main(["--install-desktop"]) == 0
    assert cli.main(["--uninstall-desktop"]) == 0
    assert list(home.rglob("*")) == []  # generated databases and emptied folders removed too


def test_the_desktop_entry_is_valid(tmp_path):
    exe = shutil.which("desktop-file-validate")
    if exe is None:
        pytest.skip("desktop-file-validate (Debian package desktop-file-utils) is not installed")
    res = desktop.install(tmp_path)
    entry = next(f for f in res.files if f.suffix == ".desktop")
    p = subprocess.run([exe, str(entry)], capture_output=True, text=True)
    assert p.returncode == 0 and "error" not in p.stdout + p.stderr, p.stdout + p.stderr


@pytest.mark.parametrize("arg, quoted", [
    ("/opt/gindex studio/bin/gindex-studio", '"/opt/gindex studio/bin/gindex-studio"'),
    ("/usr/bin/gindex-studio", "/usr/bin/gindex-studio"),
    ('/a"b$c', '"/a\\"b\\$c"'),
    ("/x/100%", '"/x/100%%"'),
])
def test_exec_arguments_are_quoted_as_the_desktop_entry_spec_says(arg, quoted):
    assert desktop.desktop_entry([arg, "-m", "gindex_studio"]).splitlines()[6] == f"Exec={quoted} -m gindex_studio %F"


def _gio_type(path: Path, env) -> str:
    out = subprocess.run(["gio", "info", "-a", "standard::content-type", str(path)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()[-1].rsplit(": ", 1)[1]


def test_file_managers_see_experiment_files_as_the_studios_type(data_home, tmp_path):
    if shutil.which("gio") is None:
        pytest.skip("gio (Debian package libglib2.0-bin) is not installed: nothing here to ask for a file's type")
    env = {**os.environ, "XDG_DATA_HOME": str(data_home), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    files = tmp_path / "files"
    files.mkdir()
    named = {n: files / n for n in ("experiment.json", "run-3.experiment.json", "results.json", "flow.json")}
    for n in ("experiment.json", "run-3.experiment.json", "results.json"):
        shutil.copy(EXPERIMENT, named[n])
    shutil.copy(FLOW, named["flow.json"])
    assert _gio_type(named["experiment.json"], env) == "application/json"  # not installed yet

    desktop.install()
    for n in ("experiment.json", "run-3.experiment.json", "results.json"):  # by name, and by content
        assert _gio_type(named[n], env) == desktop.EXPERIMENT_TYPE, n
    assert _gio_type(named["flow.json"], env) == "application/json"  # a flow stays JSON

    desktop.uninstall()
    assert _gio_type(named["experiment.json"], env) == "application/json"
    assert _gio_type(named["results.json"], env) == "application/json"


def test_file_managers_open_experiment_files_with_the_studio(data_home, tmp_path):
    if shutil.which("gio") is None:
        pytest.skip("gio (Debian package libglib2.0-bin) is not installed: nothing here to ask for the default application")
    if shutil.which("update-desktop-database") is None:  # gio finds the default in the cache this tool writes
        pytest.skip("update-desktop-database (Debian package desktop-file-utils) is not installed: "
                    "the per-user application cache that names the default is not written")
    env = {**os.environ, "XDG_DATA_HOME": str(data_home), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    desktop.install()
    default = subprocess.run(["gio", "mime", desktop.EXPERIMENT_TYPE], env=env, capture_output=True, text=True).stdout
    assert f"Default application for “{desktop.EXPERIMENT_TYPE}”: gindex-studio.desktop" in default
    desktop.uninstall()
    default = subprocess.run(["gio", "mime", desktop.EXPERIMENT_TYPE], env=env, capture_output=True, text=True).stdout
    assert "gindex-studio.desktop" not in default


def test_looks_like_experiment_is_the_mime_content_rule(tmp_path):
    assert desktop.looks_like_experiment(EXPERIMENT)
    assert not desktop.looks_like_experiment(FLOW)
    assert not desktop.looks_like_experiment(tmp_path / "missing.json")
    late = tmp_path / "late.json"  # the marker beyond the bytes a sniffer reads does not count
    late.write_text('{"name": "' + "x" * 300 + '", "format": "gindex-studio.experiment/1"}')
    assert not desktop.looks_like_experiment(late)


def test_opening_an_experiment_file_shows_it_in_the_compare_view(monkeypatch, qtbot):
    """What the launcher's ``Exec=gindex-studio %F`` does when the file manager opens the demo."""
    from PySide6.QtWidgets import QApplication

    from gindex_studio.ui.compare import window as cw

    opened = []
    before = list(cw.WINDOWS)  # compare windows other tests left open (any order: random order found one)
    monkeypatch.setattr(QApplication, "exec", lambda self=None: opened.append([w for w in cw.WINDOWS
                                                                               if w not in before]) or 0)
    assert cli.main([str(EXPERIMENT)]) == 0
    (win,) = opened[0]
    assert win.isVisible() and win.windowTitle().endswith("— Compare — gindex-studio")
    c = win.controller
    qtbot.waitUntil(lambda: c.result is not None and not c.timer.isActive() and not c.runner.busy, timeout=20_000)
    assert len(c.experiment.tasks) == 16 and round(c.result.g_index, 3) == 7099.722
    assert win.tasks.model.rowCount() == 16
    assert not QApplication.windowIcon().isNull()  # the studio's icon on every window
    win.controller.runner.wait()
    win.view.runner.wait()
    win.close()


def test_without_update_desktop_database_the_mime_cache_lists_the_studio_and_keeps_the_rest(tmp_path):
    apps = tmp_path / "applications"
    apps.mkdir()
    cache = apps / "mimeinfo.cache"
    cache.write_text("[MIME Cache]\napplication/json=viewer.desktop;\ntext/plain=edit.desktop;\n")
    desktop.update_mime_cache(apps, add=True)
    assert cache.read_text() == ("[MIME Cache]\napplication/json=viewer.desktop;gindex-studio.desktop;\n"
                                 "text/plain=edit.desktop;\n"
                                 f"{desktop.EXPERIMENT_TYPE}=gindex-studio.desktop;\n")
    desktop.update_mime_cache(apps, add=True)  # again: listed once
    assert cache.read_text().count("gindex-studio.desktop") == 2
    desktop.update_mime_cache(apps, add=False)
    assert cache.read_text() == "[MIME Cache]\napplication/json=viewer.desktop;\ntext/plain=edit.desktop;\n"
    cache.write_text("[MIME Cache]\n")
    desktop.update_mime_cache(apps, add=True)
    desktop.update_mime_cache(apps, add=False)
    assert not cache.exists()  # nothing else was in it
