"""Install the pinned Node-RED on first use: ``npm ci`` from the lock file in ``resources/nodered``.

The install lives in ``<home>/<version>-<lock digest>`` where ``home`` is ``$GINDEX_NODERED_HOME`` or
``<user data>/nodered``. It is built in a ``.partial`` folder and renamed when complete, under a file
lock, so a crash or a second process never sees half an install. Every failure is an
:class:`InstallError` whose message is one line saying what to do.

When ``npm ci`` completes, an exact record of the tree (:mod:`core.nodered.integrity`: every
entry's path, kind and mode, every file's size and SHA-256) is saved beside the install, outside
it (``<install>.manifest.json``, which no runtime sees), and :func:`ensure_installed` checks the
tree against it before every use: a file added, removed or changed is an InstallError naming it.
It is not repaired automatically: something wrote into the install (a runtime without the
sandbox, another program), which a quiet reinstall would hide; the message says to remove the
folder, and the next start installs it again. An install without a record (an older studio's) is
not trusted: it is installed again.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable

from gindex_studio.core.nodered import integrity
from gindex_studio.paths import RESOURCES, user_data_dir

LOCK_DIR = RESOURCES / "nodered"
MIN_NODE = 18  # Node-RED 4.x needs Node.js 18 or later
#: progress(fraction or None, text): fraction in [0, 1], None when unknown
Progress = Callable[[float | None, str], None]


class InstallError(Exception):
    """Node-RED cannot be installed or found; the message is one line for the user."""


def pinned_version() -> str:
    """The Node-RED version the lock file pins."""
    lock = json.loads((LOCK_DIR / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/node-red"]["version"]


def home() -> Path:
    """Where installs live: ``$GINDEX_NODERED_HOME`` when set, else ``<user data>/nodered``."""
    env = os.environ.get("GINDEX_NODERED_HOME", "").strip()
    return Path(env).expanduser() if env else user_data_dir() / "nodered"


def extras_dir(base: Path | None = None) -> Path:
    """The folder extra node modules are installed into (``core.nodered.modules``), which every
    private runtime loads: ``<home>/extra-nodes``."""
    return (base or home()) / "extra-nodes"


def node_version(node: str | None = None) -> tuple[str, tuple[int, ...]]:
    """(path, version) of Node.js; InstallError when it is missing or older than 18."""
    node = node or shutil.which("node") or shutil.which("nodejs")
    if not node:
        raise InstallError("Node.js is not installed (no `node` on PATH): install Node.js 18-20, "
                           "e.g. `apt-get install nodejs npm`")
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        raise InstallError(f"Node.js at {node} does not run: {e}") from None
    m = re.match(r"v?(\d+)\.(\d+)\.(\d+)", out)
    if not m:
        raise InstallError(f"Node.js at {node} reports no version ({out!r})")
    version = tuple(int(x) for x in m.groups())
    if version[0] < MIN_NODE:
        raise InstallError(f"Node.js {out} is too old: Node-RED {pinned_version()} needs Node.js "
                           f"{MIN_NODE} or later (18-20 tested)")
    return node, version


def npm_path() -> str:
    """The npm executable; InstallError when missing."""
    npm = shutil.which("npm")
    if not npm:
        raise InstallError("npm is not installed (no `npm` on PATH): install it, e.g. `apt-get install npm`")
    return npm


#: part of the install folder's name: installs made before their tree was recorded get a new folder
#: (and are never trusted), without touching a folder another studio may be running from
INSTALL_SCHEME = b"install with a manifest (integrity.FORMAT 1)"


def _digest() -> str:
    h = hashlib.sha256(INSTALL_SCHEME)
    for name in ("package.json", "package-lock.json"):
        h.update((LOCK_DIR / name).read_bytes())
    return h.hexdigest()[:12]


def install_dir(base: Path | None = None) -> Path:
    """The folder of the install that matches the committed lock file."""
    return (base or home()) / f"node-red-{pinned_version()}-{_digest()}"


def red_js(folder: Path) -> Path:
    return folder / "node_modules" / "node-red" / "red.js"


def nrlint_js(folder: Path) -> Path:
    return folder / "node_modules" / "nrlint" / "bin" / "nrlint.js"


def manifest_path(folder: Path) -> Path:
    """Where the record of the install ``folder`` is kept: beside it, outside the tree."""
    return folder.with_name(folder.name + ".manifest.json")


def is_installed(base: Path | None = None) -> bool:
    """The install is complete and has its record (it may still have been changed since: :func:`verify`)."""
    folder = install_dir(base)
    return red_js(folder).is_file() and (folder / ".complete").is_file() and manifest_path(folder).is_file()


def verify(folder: Path) -> None:
    """InstallError (one line naming the first entry) when the tree under ``folder`` differs from
    its record in any entry; an unreadable record counts as a difference."""
    path = manifest_path(folder)
    manifest = integrity.load(path)
    if manifest is None:
        raise InstallError(f"the record of the Node-RED install is missing or unreadable ({path}): remove "
                           f"{folder} and it is installed again at the next start")
    try:
        found, refreshed = integrity.changes(folder, manifest)
    except OSError as e:
        raise InstallError(f"the Node-RED install in {folder} cannot be checked ({e.strerror}: {e.filename}): "
                           "remove the folder and it is installed again at the next start") from None
    if found:
        rel, what = found[0]
        more = f" and {len(found) - 1} more" if len(found) > 1 else ""
        raise InstallError(f"the Node-RED install was changed since it was installed ({rel}: {what}{more}): "
                           f"remove {folder} and it is installed again at the next start")
    if refreshed:
        try:
            integrity.save(manifest, path)  # same content, new identities (e.g. the folder was copied)
        except OSError:
            pass


_NETWORK = re.compile(r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|ENETUNREACH|network|proxy", re.I)


def ensure_installed(progress: Progress | None = None, base: Path | None = None) -> Path:
    """The install folder, installing Node-RED there first when needed (``npm ci``, a minute at most
    on a fresh machine), checked unchanged since (:func:`verify`). Raises InstallError with one
    line when Node.js/npm is missing or too old, the registry cannot be reached, npm fails
    otherwise, or the install was changed."""
    report = progress or (lambda _f, _t: None)
    node_version()
    folder = install_dir(base)
    if is_installed(base):
        verify(folder)
        return folder
    npm = npm_path()
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits here, then finds the install done
        if is_installed(base):
            verify(folder)
            return folder
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(LOCK_DIR / name, partial / name)
        total = max(1, sum(1 for k in json.loads((LOCK_DIR / "package-lock.json").read_text())["packages"] if k))
        report(0.0, f"installing Node-RED {pinned_version()} (npm ci, {total} packages)")
        _npm_ci(npm, partial, total, report)
        (partial / ".complete").write_text(pinned_version() + "\n")
        integrity.save(integrity.record(partial), manifest_path(folder))  # relative paths: valid after the rename
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
        report(1.0, f"Node-RED {pinned_version()} installed in {folder}")
    return folder


def _npm_ci(npm: str, folder: Path, total: int, report: Progress) -> None:
    cmd = [npm, "ci", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=http"]
    env = dict(os.environ, npm_config_update_notifier="false")
    env.setdefault("npm_config_fetch_retries", "1")  # npm's own config (env or .npmrc) may say otherwise
    env.setdefault("npm_config_fetch_timeout", "60000")
    try:
        proc = subprocess.Popen(cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=env)
    except OSError as e:
        raise InstallError(f"npm does not run: {e}") from None
    tail: list[str] = []
    fetched = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        tail = (tail + [line.rstrip()])[-40:]
        if " http fetch " in line:
            fetched += 1
            report(min(0.95, fetched / total), f"downloading packages ({fetched}/{total})")
    code = proc.wait()
    if code != 0:
        text = "\n".join(tail)
        if _NETWORK.search(text):
            raise InstallError("cannot reach the npm registry to install Node-RED (npm: "
                               f"{_first_error(tail)}): check the network or npm's registry setting")
        raise InstallError(f"npm ci failed installing Node-RED: {_first_error(tail)} (log: {folder})")


def _first_error(lines: list[str]) -> str:
    for line in lines:
        if "npm error" in line or "npm ERR!" in line:
            msg = re.sub(r"^npm (error|ERR!)\s*", "", line).strip()
            if msg and not msg.startswith("A complete log"):
                return msg
    return lines[-1] if lines else "no output"
