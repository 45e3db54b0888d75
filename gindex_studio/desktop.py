"""Desktop integration on Linux (freedesktop.org), per user: a launcher with an icon and a MIME type
for experiment files, so the file manager opens them in the studio.

``install()`` writes four files under ``$XDG_DATA_HOME`` (``~/.local/share`` when unset)::

    applications/gindex-studio.desktop                          the launcher (Exec = this install)
    mime/packages/gindex-studio.xml                             the MIME type EXPERIMENT_TYPE
    icons/hicolor/scalable/apps/gindex-studio.svg               the application icon
    icons/hicolor/scalable/mimetypes/<EXPERIMENT_TYPE icon>.svg the experiment files' icon

and refreshes the user's MIME and desktop databases with ``update-mime-database`` and
``update-desktop-database`` when those tools are installed (without the second, the studio's
entries in ``applications/mimeinfo.cache`` are written directly). ``uninstall()`` removes exactly those
files, refreshes the databases again (or removes them when nothing else is in them) and removes
the folders it leaves empty. Nothing outside
``$XDG_DATA_HOME`` is touched (no ``mimeapps.list`` edits: the studio is the default for its own
type because it is the only application that declares it).

Experiment files are JSON files; the type is given by name (``experiment.json``,
``*.experiment.json``) and by content: the ``"format": "gindex-studio.experiment/…"`` marker in the
first 256 bytes, as a sub-type of ``application/json`` (GIO 2.74 picks it for any ``.json`` file that
carries the marker; :func:`looks_like_experiment` applies the same content rule when the studio is
asked to open files). Nothing here imports Qt.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gindex_studio.paths import APP_ICON, APP_NAME, xdg_data_home

EXPERIMENT_TYPE = "application/x-gindex-studio-experiment"
EXPERIMENT_GLOBS = ("experiment.json", "*.experiment.json")
EXPERIMENT_MAGIC = b"gindex-studio.experiment/"
MAGIC_RANGE = 256  # bytes from the start in which the marker is looked for
DESKTOP_ID = f"{APP_NAME}.desktop"


@dataclass
class Result:
    """What ``install`` / ``uninstall`` did: files written or removed, and database refreshes."""

    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one line per refresh tool: ran / failed / absent


def looks_like_experiment(path: str | os.PathLike) -> bool:
    """True when the file's first ``MAGIC_RANGE`` bytes hold the experiment format marker (the
    MIME type's content rule). Unreadable files are not experiments."""
    try:
        with open(path, "rb") as f:
            return EXPERIMENT_MAGIC in f.read(MAGIC_RANGE)
    except OSError:
        return False


def launch_command() -> list[str]:
    """The command that starts this installation of the studio: the frozen app itself, else the
    ``gindex-studio`` script that is running (or the one beside this interpreter), else
    ``python -m gindex_studio`` with this interpreter."""
    if getattr(sys, "frozen", False):
        return [os.path.abspath(sys.executable)]
    here = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if here is not None and here.name == APP_NAME and here.is_file():
        return [str(here.resolve())]
    beside = Path(sys.executable).with_name(APP_NAME)
    if beside.is_file():
        return [str(beside)]
    return [os.path.abspath(sys.executable), "-m", "gindex_studio"]


def _exec_quote(arg: str) -> str:
    """An argument of a desktop entry's Exec key (Desktop Entry Specification, "The Exec key")."""
    if arg and not any(c in arg for c in ' \t\n"\'\\><~|&;$*?#()`%='):
        return arg
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg).replace("%", "%%")
    return f'"{escaped}"'


def desktop_entry(command: list[str]) -> str:
    """The text of the launcher for ``command``."""
    exec_line = " ".join(_exec_quote(a) for a in command) + " %F"
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.4",
        f"Name={APP_NAME}",
        "GenericName=g-index studio",
        "Comment=Author flow programs, score them with the divergence Δ, measure the g-index",
        f"Exec={exec_line}",
        f"TryExec={command[0]}",
        f"Icon={APP_NAME}",
        "Terminal=false",
        "Categories=Science;DataVisualization;",
        f"MimeType={EXPERIMENT_TYPE};application/json;",
        f"StartupWMClass={APP_NAME}",
        "",
    ])


def mime_package() -> str:
    """The shared-mime-info package that declares ``EXPERIMENT_TYPE``."""
    globs = "\n".join(f'    <glob pattern="{g}" weight="60"/>' for g in EXPERIMENT_GLOBS)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="{EXPERIMENT_TYPE}">
    <comment>g-index experiment</comment>
    <sub-class-of type="application/json"/>
{globs}
    <magic priority="80">
      <match type="string" value="{EXPERIMENT_MAGIC.decode()}" offset="0:{MAGIC_RANGE - len(EXPERIMENT_MAGIC)}"/>
    </magic>
  </mime-type>
</mime-info>
"""


def _targets(data_home: Path) -> dict[str, Path]:
    icons = data_home / "icons" / "hicolor" / "scalable"
    return {
        "desktop": data_home / "applications" / DESKTOP_ID,
        "mime": data_home / "mime" / "packages" / f"{APP_NAME}.xml",
        "icon": icons / "apps" / f"{APP_NAME}.svg",
        "type_icon": icons / "mimetypes" / f"{EXPERIMENT_TYPE.replace('/', '-')}.svg",
    }


def install(data_home: Path | None = None, command: list[str] | None = None) -> Result:
    """Install the launcher, the MIME type and the icons for this user (see the module docstring).
    Raises ``OSError`` when a file cannot be written; running it again replaces the files."""
    home = data_home or xdg_data_home()
    t = _targets(home)
    res = Result()
    icon = APP_ICON.read_bytes()
    contents = {
        "desktop": desktop_entry(command or launch_command()).encode(),
        "mime": mime_package().encode(),
        "icon": icon,
        "type_icon": icon,
    }
    for key, data in contents.items():
        t[key].parent.mkdir(parents=True, exist_ok=True)
        t[key].write_bytes(data)
        res.files.append(t[key])
    _refresh(home, res, installed=True)
    return res


def uninstall(data_home: Path | None = None) -> Result:
    """Remove what :func:`install` wrote (files that are absent are skipped) and the folders that
    are left empty."""
    home = data_home or xdg_data_home()
    res = Result()
    for path in _targets(home).values():
        if path.is_file():
            path.unlink()
            res.files.append(path)
            _prune(path.parent, home)
    # databases generated only for what was removed go too: a mime/ folder without packages, an
    # applications/ folder whose only file is update-desktop-database's cache
    mime, apps = home / "mime", home / "applications"
    if mime.is_dir() and not (mime / "packages").exists():
        shutil.rmtree(mime)
    if apps.is_dir() and not any(apps.rglob("*.desktop")):
        (apps / "mimeinfo.cache").unlink(missing_ok=True)
        _prune(apps, home)
    _refresh(home, res, installed=False)
    return res


def _prune(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _refresh(home: Path, res: Result, installed: bool) -> None:
    for tool, folder in (("update-mime-database", home / "mime"), ("update-desktop-database", home / "applications")):
        exe = shutil.which(tool)
        if exe is None and tool == "update-desktop-database":
            if folder.is_dir():
                update_mime_cache(folder, installed)
                res.notes.append(f"{tool} is not installed; {folder / 'mimeinfo.cache'} updated for the studio's types")
            continue
        if exe is None:
            res.notes.append(f"{tool} is not installed; the desktop picks the change up at its next scan")
            continue
        if not folder.is_dir():
            continue
        p = subprocess.run([exe, str(folder)], capture_output=True, text=True)
        res.notes.append(f"{tool} {folder}" if p.returncode == 0 else
                         f"{tool} failed ({p.returncode}): {(p.stderr or p.stdout).strip().splitlines()[-1:]}")


def update_mime_cache(apps: Path, add: bool) -> None:
    """Do for the studio's launcher what ``update-desktop-database`` does, when it is missing:
    list (``add``) or unlist it for its MIME types in ``apps/mimeinfo.cache``, keeping every other
    application's entries. It comes first for the experiment type and last for plain JSON (the
    studio must not become the default JSON viewer). An empty cache is removed."""
    from gindex_studio.core.flows.files import atomic_write_bytes

    cache = apps / "mimeinfo.cache"
    entries: dict[str, list[str]] = {}
    if cache.is_file():
        for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
            key, sep, value = line.partition("=")
            if sep and not line.startswith("["):
                entries[key.strip()] = [d for d in value.strip().split(";") if d]
    for mime in (EXPERIMENT_TYPE, "application/json"):
        ids = [d for d in entries.get(mime, []) if d != DESKTOP_ID]
        if add:
            ids = [DESKTOP_ID] + ids if mime == EXPERIMENT_TYPE else ids + [DESKTOP_ID]
        entries[mime] = ids
    lines = [f"{mime}={';'.join(ids)};" for mime, ids in entries.items() if ids]
    if lines:
        atomic_write_bytes(cache, ("[MIME Cache]\n" + "\n".join(lines) + "\n").encode())
    else:
        cache.unlink(missing_ok=True)
