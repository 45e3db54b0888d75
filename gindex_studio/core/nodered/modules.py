"""Extra node modules for the private runtime: the npm modules that provide node types Node-RED
lacks, installed (``npm install``) into ``<Node-RED home>/extra-nodes``, which every private
runtime loads (its ``nodesDir``); a runtime started before an install loads them on its next start.

A module is a registry name (``node-red-node-random``, ``name@version``) or a local package file
or folder. Every failure is a :class:`ModuleError` with one line; an unreachable registry says so
("cannot reach the npm registry …"), so offline use gets a clear message.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

from gindex_studio.core.nodered.deploy import WORKSPACES, node_dicts
from gindex_studio.core.nodered.install import (_NETWORK, InstallError, Progress, _first_error, node_version,
                                                npm_path)
from gindex_studio.core.nodered.install import extras_dir as _extras_dir
from gindex_studio.core.nodered.nodes import network_reason, npm_module

TIMEOUT_S = 600.0
_NAME = re.compile(r"^(@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*(@[\w.^~<>=*-]+)?$", re.I)


class ModuleError(Exception):
    """A module cannot be installed; the message is one line for the user."""


def extras_dir(base: Path | None = None) -> Path:
    """The folder extra node modules are installed into (an npm project of its own)."""
    return _extras_dir(base)


def installed_modules(folder: Path | None = None) -> set[str]:
    """Names of the modules installed in ``folder`` (default :func:`extras_dir`)."""
    try:
        deps = json.loads(((folder or extras_dir()) / "package.json").read_text(encoding="utf-8"))["dependencies"]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return set(deps) if isinstance(deps, dict) else set()


def missing_modules(source: Any, known_types: set[str] | None = None, folder: Path | None = None) -> list[str]:
    """The npm modules that would provide this flow's node types the runtime lacks: nodes whose
    module is known (the flow's ``module`` key or the studio's table), not Node-RED's own, not
    installed yet, and not among the nodes that need the network (installing would not let them
    run offline). ``known_types``: the runtime's types, when known."""
    nodes = node_dicts(source)
    by_id = {n["id"]: n for n in nodes}
    have = installed_modules(folder)
    out: list[str] = []
    for n in nodes:
        if n["type"] in WORKSPACES or n["type"].startswith("subflow:"):
            continue
        if known_types is not None and n["type"] in known_types:
            continue
        mod = npm_module(n)
        if mod and mod not in have and mod not in out and not network_reason(n, by_id):
            out.append(mod)
    return out


def install_modules(modules: list[str], progress: Progress | None = None, folder: Path | None = None) -> Path:
    """``npm install`` the modules into ``folder`` (default :func:`extras_dir`); returns the folder.
    ModuleError (one line) on a bad name, a missing npm, an unreachable registry or an npm failure."""
    report = progress or (lambda _f, _t: None)
    if not modules:
        return folder or extras_dir()
    for m in modules:
        if not (_NAME.match(m) or os.path.exists(m)):
            raise ModuleError(f"{m!r} is neither an npm module name nor a package file")
    try:
        node_version()
        npm = npm_path()
    except InstallError as e:
        raise ModuleError(str(e)) from None
    folder = folder or extras_dir()
    folder.mkdir(parents=True, exist_ok=True)
    pkg = folder / "package.json"
    if not pkg.is_file():
        pkg.write_text(json.dumps({"name": "gindex-studio-extra-nodes", "version": "1.0.0", "private": True,
                                   "description": "Node modules gindex-studio installed for its private Node-RED",
                                   "dependencies": {}}, indent=2) + "\n")
    names = ", ".join(modules)
    report(None, f"installing {names} (npm install)")
    env = dict(os.environ, npm_config_update_notifier="false")
    env.setdefault("npm_config_fetch_retries", "1")
    env.setdefault("npm_config_fetch_timeout", "60000")
    cmd = [npm, "install", "--save", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=warn",
           *[str(Path(m).resolve()) if os.path.exists(m) else m for m in modules]]
    try:
        proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=env, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ModuleError(f"npm did not install {names} within {TIMEOUT_S:.0f} s") from None
    except OSError as e:
        raise ModuleError(f"npm does not run: {e}") from None
    if proc.returncode != 0:
        lines = (proc.stdout + "\n" + proc.stderr).splitlines()
        text = "\n".join(lines)
        if _NETWORK.search(text):
            raise ModuleError(f"cannot reach the npm registry to install {names} (npm: {_first_error(lines)}): "
                              "this computer looks offline, or npm's registry setting is wrong")
        if "E404" in text or "404 Not Found" in text:
            raise ModuleError(f"the npm registry has no module {names} ({_first_error(lines)})")
        raise ModuleError(f"npm install {names} failed: {_first_error(lines)}")
    report(1.0, f"installed {names}: the private Node-RED loads them when it starts")
    return folder
