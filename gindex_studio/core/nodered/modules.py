"""Extra node modules for the private runtime: the npm modules that provide node types Node-RED
lacks, installed (``npm install``) into ``<Node-RED home>/extra-nodes``, which every private
runtime loads (its ``nodesDir``); a runtime started before an install loads them on its next start.

A module's name comes from a flow a model wrote, so it is hostile input. Only a plain npm package
name is accepted (``name`` or ``@scope/name`` by npm's naming rules: no version spec, path, URL,
git spec, tarball, ``file:``/``link:``), and only one the npm registry knows (asked first, one
line when it has no such module or cannot be reached). It is installed with ``--ignore-scripts``
(no install script of it or of its dependencies runs on this computer) into the extra-nodes
folder, never into the Node-RED install; a runtime only ever sees that folder read-only, inside
its sandbox. Every failure is a :class:`ModuleError` with one line.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from gindex_studio.core.nodered.deploy import WORKSPACES, node_dicts
from gindex_studio.core.nodered.install import (_NETWORK, InstallError, Progress, _first_error, node_version,
                                                npm_path)
from gindex_studio.core.nodered.install import extras_dir as _extras_dir
from gindex_studio.core.nodered.nodes import network_reason, npm_module

TIMEOUT_S = 600.0
LOOKUP_TIMEOUT_S = 20.0
DEFAULT_REGISTRY = "https://registry.npmjs.org/"
#: npm's rules for a new package's name, stricter where they allow more: lowercase letters, digits,
#: ".", "_", "-"; no leading ".", "_" or "-" (npm would read "-x" as an option); an optional scope;
#: never ending as a tarball does (npm would install the file of that name)
_NAME = re.compile(r"(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*")
_RESERVED = {"node_modules", "favicon.ico"}


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


def name_problem(name: Any) -> str | None:
    """Why ``name`` is not a plain npm package name (one phrase), or None when it is one."""
    if not isinstance(name, str) or not name:
        return "no module name"
    if len(name) > 214:
        return "longer than npm's 214 characters"
    if name.lower() != name and _NAME.fullmatch(name.lower()):
        return "npm names are lowercase"
    if not _NAME.fullmatch(name) or name in _RESERVED or name.endswith((".tgz", ".tar", ".tar.gz")):
        return ("only a plain npm package name is installed (name or @scope/name: no version, path, URL, "
                "git spec or tarball)")
    if ".." in name:
        return "it contains \"..\""
    return None


def check_names(modules: list[str]) -> None:
    """ModuleError (one line) on the first module that is not a plain npm package name."""
    for m in modules:
        why = name_problem(m)
        if why:
            raise ModuleError(f"{str(m)[:200]!r} is not installed: {why}")


def _npm_env() -> dict[str, str]:
    env = dict(os.environ, npm_config_update_notifier="false", npm_config_ignore_scripts="true")
    env.setdefault("npm_config_fetch_retries", "1")
    env.setdefault("npm_config_fetch_timeout", "60000")
    return env


def registry_url(npm: str) -> str:
    """The registry npm installs from (its own setting: environment, ``.npmrc``), ending in "/"."""
    try:
        out = subprocess.run([npm, "config", "get", "registry"], capture_output=True, text=True, env=_npm_env(),
                             timeout=LOOKUP_TIMEOUT_S).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    url = out if out.startswith(("http://", "https://")) else DEFAULT_REGISTRY
    return url if url.endswith("/") else url + "/"


def check_registered(modules: list[str], registry: str) -> None:
    """ModuleError (one line) unless the registry knows every module (``GET <registry>/<name>``)."""
    for m in modules:
        url = registry + urllib.parse.quote(m, safe="@")
        req = urllib.request.Request(url, headers={"Accept": "application/vnd.npm.install-v1+json"})
        try:
            with urllib.request.urlopen(req, timeout=LOOKUP_TIMEOUT_S) as r:
                status = r.status
        except urllib.error.HTTPError as e:
            status = e.code
        except (urllib.error.URLError, OSError, ValueError) as e:
            why = getattr(e, "reason", None) or e
            raise ModuleError(f"cannot reach the npm registry {registry} to look up {m} ({why}): this computer "
                              "looks offline, or npm's registry setting is wrong") from None
        if status == 404:
            raise ModuleError(f"the npm registry {registry} has no module {m}")
        if status != 200:
            raise ModuleError(f"the npm registry {registry} did not answer for {m} (HTTP {status})")


def install_modules(modules: list[str], progress: Progress | None = None, folder: Path | None = None) -> Path:
    """``npm install --ignore-scripts`` the modules into ``folder`` (default :func:`extras_dir`);
    returns the folder. ModuleError (one line) on a name that is not a plain npm package name, a
    module the registry does not know, a missing npm, an unreachable registry or an npm failure."""
    report = progress or (lambda _f, _t: None)
    if not modules:
        return folder or extras_dir()
    check_names(modules)
    try:
        node_version()
        npm = npm_path()
    except InstallError as e:
        raise ModuleError(str(e)) from None
    report(None, f"looking up {', '.join(modules)} in the npm registry")
    check_registered(modules, registry_url(npm))
    folder = folder or extras_dir()
    folder.mkdir(parents=True, exist_ok=True)
    pkg = folder / "package.json"
    if not pkg.is_file():
        pkg.write_text(json.dumps({"name": "gindex-studio-extra-nodes", "version": "1.0.0", "private": True,
                                   "description": "Node modules gindex-studio installed for its private Node-RED",
                                   "dependencies": {}}, indent=2) + "\n")
    names = ", ".join(modules)
    report(None, f"installing {names} (npm install)")
    cmd = [npm, "install", "--save", "--ignore-scripts", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=warn",
           *modules]
    try:
        proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=_npm_env(), timeout=TIMEOUT_S)
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
