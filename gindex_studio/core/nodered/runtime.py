"""A Node-RED to deploy to: the studio's own (:class:`PrivateRuntime`) or one the user runs
(:class:`RemoteRuntime`).

The private runtime listens on 127.0.0.1 on a free port, with a private user folder, a settings
file written here, a random admin token (every admin request and the ``/comms`` websocket need it)
and its log in ``<user folder>/node-red.log``. It never outlives the studio: it runs in its own
process group, which :meth:`PrivateRuntime.stop` (and an ``atexit`` hook) kills, and the settings
file makes Node.js exit by itself when its stdin (a pipe from this process) closes or this process
is gone — so it also ends when Python is killed outright.

A remote runtime is only ever given a new tab (``POST /flow``) that is removed afterwards
(``DELETE /flow/:id``); the user's own flows are never replaced.
"""
from __future__ import annotations

import atexit
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import weakref
from pathlib import Path
from typing import Any

from gindex_studio.core.nodered.install import Progress, ensure_installed, extras_dir, node_version, red_js


class NodeRedError(Exception):
    """The runtime cannot be started, reached or used; the message is one line for the user."""


class Runtime:
    """What deploying needs of a Node-RED: its URL, a token and the admin HTTP API."""

    url: str = ""
    token: str | None = None
    private = False

    def request(self, method: str, path: str, body: Any = None, headers: dict | None = None,
                timeout: float = 10.0) -> tuple[int, Any]:
        """One admin API request; returns (status, decoded JSON body or text). NodeRedError when the
        runtime cannot be reached."""
        data = json.dumps(body).encode() if body is not None else None
        h = {"Accept": "application/json"}
        if data is not None:
            h["Content-Type"] = "application/json"
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        h.update(headers or {})
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, _decode(r.read())
        except urllib.error.HTTPError as e:
            return e.code, _decode(e.read())
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise NodeRedError(f"Node-RED at {self.url} does not answer ({reason}){self.why_down()}") from None

    def why_down(self) -> str:
        """Extra words for a failed request (the private runtime says when its process died)."""
        return ""

    def alive(self) -> bool:
        try:
            return self.request("GET", "/settings", timeout=3)[0] == 200
        except NodeRedError:
            return False

    def node_types(self) -> set[str]:
        """Every node type the runtime has installed and enabled."""
        status, sets = self.request("GET", "/nodes")
        if status != 200 or not isinstance(sets, list):
            raise NodeRedError(f"Node-RED at {self.url} did not list its nodes (HTTP {status})")
        return {t for s in sets if s.get("enabled", True) for t in s.get("types", [])}

    def stop(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _decode(raw: bytes) -> Any:
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


class RemoteRuntime(Runtime):
    """A Node-RED the user already runs, at ``url`` (admin root), with an optional admin token."""

    def __init__(self, url: str, token: str | None = None):
        self.url = url.rstrip("/")
        self.token = token or None
        status, _ = self.request("GET", "/settings")
        if status == 401:
            raise NodeRedError(f"Node-RED at {self.url} refused the admin token (HTTP 401): give --token")
        if status != 200:
            raise NodeRedError(f"{self.url} does not look like Node-RED's admin API (GET /settings: HTTP {status})")

    @property
    def http_root(self) -> str:
        return self.url


_LIVE: "weakref.WeakSet[PrivateRuntime]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    for rt in list(_LIVE):
        rt.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_taken(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


SETTINGS_JS = """// Written by gindex-studio for its private Node-RED; regenerated at every start.
// Exit when the studio is gone: stdin is a pipe from it (closed when it exits or is killed),
// and its pid is polled in case the pipe is inherited elsewhere.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
const parentPid = %(parent)d;
setInterval(() => { try { process.kill(parentPid, 0); } catch (e) { process.exit(0); } }, 1000).unref();
const token = %(token)s;
module.exports = {
    uiHost: "127.0.0.1",
    uiPort: %(port)d,
    userDir: %(user_dir)s,
    nodesDir: %(nodes_dir)s,
    flowFile: "flows.json",
    credentialSecret: "gindex-studio-private-runtime",
    flowFilePretty: true,
    adminAuth: {
        type: "credentials",
        users: [],
        tokens: function (t) {
            return Promise.resolve(t === token ? { username: "gindex-studio", permissions: "*" } : null);
        },
    },
    debugMaxLength: 100000,
    debugUseColors: false,
    functionExternalModules: false,
    externalModules: { autoInstall: false, palette: { allowInstall: false } },
    diagnostics: { enabled: false },
    telemetry: { enabled: false },
    runtimeState: { enabled: true, ui: false },
    editorTheme: { tours: false, projects: { enabled: false } },
    logging: { console: { level: "info", metrics: false, audit: false } },
};
"""


class PrivateRuntime(Runtime):
    """The studio's own Node-RED (see the module's docstring). Use :meth:`start`."""

    private = True

    def __init__(self, folder: Path, user_dir: Path, port: int, token: str, proc: subprocess.Popen, own_dir: bool):
        self.folder, self.user_dir, self.port, self.token = folder, user_dir, port, token
        self.url = f"http://127.0.0.1:{port}"
        self.proc = proc
        self._own_dir = own_dir
        self._lock = threading.Lock()
        _LIVE.add(self)

    @property
    def http_root(self) -> str:
        return self.url

    @property
    def log_path(self) -> Path:
        return self.user_dir / "node-red.log"

    @property
    def pid(self) -> int:
        return self.proc.pid

    @classmethod
    def start(cls, port: int | None = None, user_dir: str | Path | None = None, progress: Progress | None = None,
              timeout: float = 60.0, base: Path | None = None, extra_nodes: Path | None = None) -> "PrivateRuntime":
        """Install when needed, start, and wait until the admin API answers. ``port`` None: a free
        one. ``extra_nodes``: the folder of extra node modules it loads (default
        ``install.extras_dir()``). NodeRedError (one line) when the port is taken, Node-RED exits, or it is not ready in
        ``timeout`` seconds; InstallError when Node.js/npm/the registry fail."""
        folder = ensure_installed(progress, base)
        node, _ = node_version()
        if port is not None and port_taken(port):
            raise NodeRedError(f"port {port} on 127.0.0.1 is taken: stop what listens there or choose another port")
        extra = Path(extra_nodes) if extra_nodes is not None else extras_dir(base)
        own = user_dir is None
        udir = Path(tempfile.mkdtemp(prefix="gindex-nodered-")) if own else Path(user_dir)
        udir.mkdir(parents=True, exist_ok=True)
        if progress:
            progress(None, "starting Node-RED")
        last: NodeRedError | None = None
        for _attempt in range(3 if port is None else 1):
            p = port if port is not None else free_port()
            token = secrets.token_urlsafe(24)
            (udir / "settings.js").write_text(SETTINGS_JS % {
                "parent": os.getpid(), "token": json.dumps(token), "port": p, "user_dir": json.dumps(str(udir)),
                "nodes_dir": json.dumps([str(extra)] if extra.is_dir() else [])})
            log = open(udir / "node-red.log", "ab")
            try:
                proc = subprocess.Popen([node, str(red_js(folder)), "--settings", str(udir / "settings.js"),
                                         "--userDir", str(udir)], stdin=subprocess.PIPE, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True, cwd=udir)
            finally:
                log.close()
            rt = cls(folder, udir, p, token, proc, own)
            try:
                rt._wait_ready(timeout)
                return rt
            except NodeRedError as e:
                rt.stop(remove=False)
                last = e
                if "in use" not in str(e):
                    break
        if own:
            shutil.rmtree(udir, ignore_errors=True)
        raise last or NodeRedError("Node-RED did not start")

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise NodeRedError(f"Node-RED exited while starting (code {self.proc.returncode}): {self._log_reason()}")
            if self.alive():
                return
            time.sleep(0.2)
        raise NodeRedError(f"Node-RED did not answer within {timeout:.0f} s (log: {self.log_path})")

    def _log_reason(self) -> str:
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return "no log"
        for line in reversed(lines):
            if "port in use" in line or "EADDRINUSE" in line:
                return f"port {self.port} is in use"
        errors = [ln for ln in lines if "[error]" in ln or "Error" in ln]
        return (errors[-1] if errors else (lines[-1] if lines else "no output")).strip()[:300]

    def running(self) -> bool:
        return self.proc.poll() is None

    def why_down(self) -> str:
        if self.proc.poll() is not None:
            return f": its process exited (code {self.proc.returncode}; {self._log_reason()})"
        return ""

    def stop(self, remove: bool = True) -> None:
        """Stop Node.js (SIGTERM to its process group, SIGKILL after 5 s) and remove the private user
        folder the runtime made. Safe to call twice."""
        with self._lock:
            if self.proc.poll() is None:
                for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
                    try:
                        os.killpg(self.proc.pid, sig)
                    except ProcessLookupError:
                        break
                    try:
                        self.proc.wait(wait)
                        break
                    except subprocess.TimeoutExpired:
                        continue
            if self.proc.stdin:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # anything the flow started (exec nodes)
            except (ProcessLookupError, PermissionError):
                pass
            if remove and self._own_dir:
                shutil.rmtree(self.user_dir, ignore_errors=True)
            _LIVE.discard(self)

    def restart(self, timeout: float = 60.0, progress: Progress | None = None) -> "PrivateRuntime":
        """A fresh runtime (new port and token) in place of this one, e.g. after it stopped answering
        or to load node modules installed since it started."""
        self.stop()
        return PrivateRuntime.start(timeout=timeout, progress=progress)


def connect(url: str | None = None, token: str | None = None, progress: Progress | None = None) -> Runtime:
    """The user's Node-RED at ``url`` (with its admin token), else a new private runtime."""
    if url:
        return RemoteRuntime(url, token)
    return PrivateRuntime.start(progress=progress)
