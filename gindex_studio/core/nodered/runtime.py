"""A Node-RED to deploy to: the studio's own (:class:`PrivateRuntime`) or one the user runs
(:class:`RemoteRuntime`).

The private runtime runs inside the OS sandbox of :mod:`core.nodered.sandbox` (unless the user
chose ``--no-sandbox``): no host network, no host files but the install (read-only), limits on
memory, CPU and processes. The studio reaches it through a unix socket it made and passed in
(:class:`~core.nodered.transport.UnixTransport`); a random admin token, a random credential secret
and the rest of its settings go in on stdin, never in argv or a file. It never outlives the
studio: the sandbox dies with its parent (even on ``kill -9``), Node.js exits when its stdin
closes, :meth:`PrivateRuntime.stop` (and an ``atexit`` hook) kill it, and the next start removes
what a killed studio left (:func:`remove_stale`).

A remote runtime is only ever given a new tab (``POST /flow``) that is removed afterwards
(``DELETE /flow/:id``); the user's own flows are never replaced.
"""
from __future__ import annotations

import atexit
import collections
import fcntl
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
import weakref
from pathlib import Path
from typing import Any

from gindex_studio.core.nodered import sandbox
from gindex_studio.core.nodered.install import Progress, ensure_installed, extras_dir, node_version
from gindex_studio.core.nodered.transport import Response, TcpTransport, Transport, UnixTransport

class NodeRedError(Exception):
    """The runtime cannot be started, reached or used; the message is one line for the user."""


class Runtime:
    """What deploying needs of a Node-RED: a transport to its HTTP server, a token and the admin
    HTTP API."""

    transport: Transport
    token: str | None = None
    private = False
    sandboxed = False

    @property
    def where(self) -> str:
        """The runtime as messages name it (a URL, or "the private Node-RED")."""
        return self.transport.where

    def http(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
             timeout: float = 10.0) -> Response:
        """One HTTP request to the runtime's server (admin API or a flow's endpoint), no token
        added. NodeRedError when the runtime cannot be reached."""
        try:
            return self.transport.http(method, path, body, headers, timeout)
        except OSError as e:
            raise NodeRedError(f"Node-RED at {self.where} does not answer ({e}){self.why_down()}") from None

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
        r = self.http(method, path, data, h, timeout)
        return r.status, _decode(r.body)

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
            raise NodeRedError(f"Node-RED at {self.where} did not list its nodes (HTTP {status})")
        return {t for s in sets if isinstance(s, dict) and s.get("enabled", True) for t in s.get("types", [])}

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
        try:
            self.transport = TcpTransport(url)
        except ValueError as e:
            raise NodeRedError(f"--node-red: {e}") from None
        self.url = self.transport.url
        self.token = token or None
        status, _ = self.request("GET", "/settings")
        if status == 401:
            raise NodeRedError(f"Node-RED at {self.url} refused the admin token (HTTP 401): give --token")
        if status != 200:
            raise NodeRedError(f"{self.url} does not look like Node-RED's admin API (GET /settings: HTTP {status})")


_LIVE: "weakref.WeakSet[PrivateRuntime]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    for rt in list(_LIVE):
        rt.stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def runs_dir() -> Path:
    """This user's folder of running private runtimes (their admin sockets and locks), mode 0700:
    ``<temp>/gindex-studio-<uid>``. NodeRedError when it exists but is not ours."""
    d = Path(tempfile.gettempdir()) / f"gindex-studio-{os.getuid()}"
    try:
        d.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(d)
    except OSError as e:
        raise NodeRedError(f"cannot make the runtime folder {d}: {e.strerror}") from None
    if not os.path.isdir(d) or os.path.islink(d) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise NodeRedError(f"{d} is not a private folder of this user (owner, mode or link): remove it")
    return d


def remove_stale(folder: Path | None = None) -> list[Path]:
    """Remove the runtime folders of studios that ended without stopping their runtime (their lock
    is free), and folders a start left half-made over a minute ago; the folders removed. A folder
    is named ``rt-*`` only once its lock is held (:func:`_locked_run_dir`)."""
    gone = []
    now = time.time()
    base = folder or runs_dir()
    for d in base.glob("new-*"):
        try:
            if now - d.stat().st_mtime > 60:
                shutil.rmtree(d, ignore_errors=True)
                gone.append(d)
        except OSError:
            pass
    for d in base.glob("rt-*"):
        try:
            with open(d / "lock", "a") as f:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live runtime
        except OSError:
            pass
        shutil.rmtree(d, ignore_errors=True)
        gone.append(d)
    return gone


#: the longest path a unix socket can be bound to (``sun_path`` holds 108 bytes with its NUL)
SUN_PATH_MAX = 107


def _socket_path(run_dir: Path) -> tuple[str, int | None]:
    """Where the admin socket is bound and reached: ``run_dir/admin.sock``, or, when that path is
    too long for a unix socket (a deep ``TMPDIR``), the same file named through an open descriptor
    of its folder (``/proc/self/fd/N/admin.sock``); that descriptor (to close with the runtime)
    or None."""
    path = str(run_dir / "admin.sock")
    if len(os.fsencode(path)) <= SUN_PATH_MAX:
        return path, None
    fd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    return f"/proc/self/fd/{fd}/admin.sock", fd


def _locked_run_dir(base: Path):
    """A new runtime folder ``rt-*`` in ``base`` and its lock file, held: made as ``new-*``, locked,
    then renamed, so that :func:`remove_stale` in another process never sees it unlocked."""
    d = Path(tempfile.mkdtemp(prefix="new-", dir=base))
    lock = open(d / "lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    final = d.with_name("rt-" + d.name[len("new-"):])
    d.rename(final)
    return final, lock


#: seconds the event loop may stop turning before the watchdog ends the runtime (by default)
STALL_S = sandbox.Limits.stall_s
LOG_LINES = 400


class PrivateRuntime(Runtime):
    """The studio's own Node-RED (see the module's docstring). Use :meth:`start`."""

    private = True

    def __init__(self, folder: Path, run_dir: Path, token: str, proc: subprocess.Popen, sandboxed: bool,
                 limits: sandbox.Limits, user_dir: Path | None, lock, socket_path: str, dir_fd: int | None):
        self.folder, self.run_dir, self.token, self.proc = folder, run_dir, token, proc
        self.sandboxed, self.limits = sandboxed, limits
        self.transport = UnixTransport(socket_path)
        self._dir_fd = dir_fd
        self.user_dir = user_dir  # the host folder of an unsandboxed runtime (None: a tmpfs in the sandbox)
        self.port: int | None = None  # the host TCP port of an unsandboxed runtime (None: no host network)
        self._lock_file = lock
        self._lock = threading.Lock()
        self.log: collections.deque[str] = collections.deque(maxlen=LOG_LINES)
        self.stall: dict | None = None
        #: the function node that last received a message ({"id", "type", "name"}), or None
        self.last_node: dict | None = None
        _LIVE.add(self)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def log_path(self) -> Path:
        return self.run_dir / "node-red.log"

    @property
    def url(self) -> str | None:
        """The host URL of an unsandboxed runtime (None: a sandboxed one has no host network)."""
        return f"http://127.0.0.1:{self.port}" if self.port else None

    @classmethod
    def start(cls, progress: Progress | None = None, timeout: float = 60.0, base: Path | None = None,
              extra_nodes: Path | None = None, sandboxed: bool = True,
              limits: sandbox.Limits | None = None) -> "PrivateRuntime":
        """Install when needed, start inside the sandbox (``sandboxed=False``: the limits only),
        and wait until the admin API answers. ``extra_nodes``: the folder of extra node modules
        it loads (default ``install.extras_dir()``). NodeRedError (one line) when Node-RED exits
        or is not ready in ``timeout`` seconds; SandboxUnavailable when no sandbox can be made
        here; InstallError when Node.js/npm/the registry fail."""
        limits = limits or sandbox.Limits()
        folder = ensure_installed(progress, base)
        node, version = node_version()
        node = os.path.realpath(node)
        if sandboxed:
            sandbox.check(node)
        extra = Path(extra_nodes) if extra_nodes is not None else extras_dir(base)
        runs = runs_dir()
        remove_stale(runs)
        run_dir, lock = _locked_run_dir(runs)
        if progress:
            progress(None, "starting Node-RED" + (" in its sandbox" if sandboxed else " (no sandbox)"))
        try:
            rt = cls._launch(folder, run_dir, node, version, extra, sandboxed, limits, lock)
        except BaseException:
            lock.close()
            shutil.rmtree(run_dir, ignore_errors=True)
            raise
        try:
            rt._wait_ready(timeout)
        except BaseException:
            rt.stop()
            raise
        return rt

    @classmethod
    def _launch(cls, folder: Path, run_dir: Path, node: str, version: tuple[int, ...], extra: Path,
                sandboxed: bool, limits: sandbox.Limits, lock) -> "PrivateRuntime":
        socket_path, dir_fd = _socket_path(run_dir)
        try:
            return cls._launch_at(socket_path, dir_fd, folder, run_dir, node, version, extra, sandboxed, limits, lock)
        except BaseException:
            if dir_fd is not None:
                os.close(dir_fd)
            raise

    @classmethod
    def _launch_at(cls, socket_path: str, dir_fd: int | None, folder: Path, run_dir: Path, node: str,
                   version: tuple[int, ...], extra: Path, sandboxed: bool, limits: sandbox.Limits, lock
                   ) -> "PrivateRuntime":
        admin = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        admin.bind(socket_path)
        admin.listen(64)
        report_r, report_w = os.pipe()
        settings = sandbox.settings_file()
        token = secrets.token_urlsafe(24)
        keep = (admin.fileno(), report_w)
        user_dir = None
        if sandboxed:
            cmd = sandbox.sandboxed(node, folder, extra, settings, ["--userDir", sandbox.DATA], limits, keep, version)
            cfg = {"port": 1880, "userDir": sandbox.DATA, "parentPid": 0,
                   "nodesDir": [sandbox.EXTRAS] if extra.is_dir() else [], "roots": list(sandbox.ROOTS)}
        else:
            user_dir = run_dir / "user"
            user_dir.mkdir()
            cmd = sandbox.unsandboxed(node, folder, extra if extra.is_dir() else None, settings, user_dir,
                                      ["--userDir", str(user_dir)], limits, keep, version)
            cfg = {"port": free_port(), "userDir": str(user_dir), "parentPid": os.getpid(),
                   "nodesDir": [str(extra)] if extra.is_dir() else [],
                   "roots": [str(user_dir)]}
        cfg.update(token=token, credentialSecret=secrets.token_hex(32), adminFd=admin.fileno(), reportFd=report_w,
                   stallMs=int(limits.stall_s * 1000), nodesExcludes=sorted(sandbox.REFUSED_FILES))
        try:
            proc = subprocess.Popen(cmd.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, pass_fds=cmd.fds, start_new_session=True,
                                    cwd=run_dir, env=_scrubbed_env())
        except OSError as e:
            raise NodeRedError(f"cannot start Node-RED: {e}") from None
        finally:
            cmd.close()
            admin.close()
            os.close(report_w)
        rt = cls(folder, run_dir, token, proc, sandboxed, limits, user_dir, lock, socket_path, dir_fd)
        rt.port = None if sandboxed else cfg["port"]
        try:
            assert proc.stdin is not None
            proc.stdin.write((json.dumps(cfg) + "\n").encode())
            proc.stdin.flush()
        except OSError:
            pass  # it died already: _wait_ready says why
        threading.Thread(target=rt._read_log, name="nodered-log", daemon=True).start()
        threading.Thread(target=rt._read_report, args=(report_r,), name="nodered-watchdog", daemon=True).start()
        return rt

    def _read_log(self) -> None:
        """Keep the last lines Node.js printed (each cut at 1,000 characters) and copy at most
        16 MiB of them to :attr:`log_path`."""
        assert self.proc.stdout is not None
        written = 0
        try:
            with open(self.log_path, "ab") as out:
                for raw in iter(lambda: self.proc.stdout.readline(65536), b""):
                    self.log.append(raw.decode("utf-8", "replace").rstrip()[:1000])
                    if written < 16 * 1024 * 1024:
                        out.write(raw)
                        out.flush()
                        written += len(raw)
        except (OSError, ValueError):
            pass

    def _read_report(self, fd: int) -> None:
        """The watchdog's lines: the function node running (:attr:`last_node`) and, when it ended
        the runtime, why (:attr:`stall`)."""
        with os.fdopen(fd, "rb") as f:
            for line in iter(lambda: f.readline(65536), b""):
                try:
                    report = json.loads(line)
                except ValueError:
                    continue
                if isinstance(report, dict) and isinstance(report.get("running"), dict):
                    self.last_node = report["running"]
                elif isinstance(report, dict) and "stalled" in report:
                    self.stall = report

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                time.sleep(0.05)  # the log reader's last lines
                raise NodeRedError(f"Node-RED exited while starting ({self._exit_words()}): {self._log_reason()}")
            if self.alive():
                return
            time.sleep(0.1)
        raise NodeRedError(f"Node-RED did not answer within {timeout:.0f} s (log: {self.log_path})")

    def _log_reason(self) -> str:
        lines = [ln for ln in self.log if ln.strip()]
        for line in reversed(lines):
            if "heap out of memory" in line or "Reached heap limit" in line:
                return f"out of memory (its heap limit is {self.limits.heap_mb} MB)"
        errors = [ln for ln in lines if "[error]" in ln or "Error" in ln]
        return (errors[-1] if errors else (lines[-1] if lines else "no output")).strip()[:300]

    def _exit_words(self) -> str:
        code = self.proc.returncode
        if code is not None and code < 0:
            sig = -code
            if sig == signal.SIGXCPU:
                return f"its CPU limit of {self.limits.cpu_s} s was reached"
            if sig == signal.SIGXFSZ:
                return f"it wrote a file over its limit of {self.limits.file_mb} MB"
            return f"killed by {signal.Signals(sig).name}" if sig in signal.Signals._value2member_map_ else f"signal {sig}"
        return f"code {code}"

    def stall_words(self) -> str | None:
        """What the watchdog said when it ended the runtime (an endless loop), or None."""
        if not self.stall:
            return None
        node = self.stall.get("node") if isinstance(self.stall.get("node"), dict) else None
        secs = float(self.stall.get("stalled", 0) or 0) / 1000
        if node:
            label = f"{node.get('type') or 'node'} {node.get('name') or node.get('id')}"
            return f"timeout in {label}: the runtime did nothing else for {secs:.0f} s after this node last " \
                   f"received a message (an endless loop?) and was stopped"
        return f"timeout: the runtime did nothing else for {secs:.0f} s (an endless loop?) and was stopped"

    def running(self) -> bool:
        return self.proc.poll() is None

    def why_down(self) -> str:
        if self.proc.poll() is not None:
            time.sleep(0.05)
            stall = self.stall_words()
            if stall:
                return f": {stall}"
            return f": its process exited ({self._exit_words()}; {self._log_reason()})"
        return ""

    def stop(self, remove: bool = True) -> None:
        """Stop Node.js (SIGTERM to its process group, SIGKILL after 5 s) and remove its runtime
        folder. Safe to call twice."""
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
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    if stream:
                        stream.close()
                except OSError:
                    pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # anything left in its group
            except (ProcessLookupError, PermissionError):
                pass
            if remove:
                shutil.rmtree(self.run_dir, ignore_errors=True)
                if self._dir_fd is not None:
                    os.close(self._dir_fd)
                    self._dir_fd = None
                try:
                    self._lock_file.close()
                except OSError:
                    pass
            _LIVE.discard(self)

    def restart(self, timeout: float = 60.0, progress: Progress | None = None) -> "PrivateRuntime":
        """A fresh runtime (new token, empty user folder) in place of this one, e.g. after it
        stopped answering or to load node modules installed since it started."""
        self.stop()
        return PrivateRuntime.start(timeout=timeout, progress=progress, sandboxed=self.sandboxed, limits=self.limits)


def _scrubbed_env() -> dict[str, str]:
    """The environment bubblewrap and prlimit start with (the sandbox empties it again; without
    the sandbox this is all Node.js sees): no secrets of the user's environment."""
    keep = ("PATH", "LANG", "LC_ALL", "TZ")
    return {**{k: os.environ[k] for k in keep if k in os.environ}, **sandbox.NODE_ENV}


def connect(url: str | None = None, token: str | None = None, progress: Progress | None = None,
            sandboxed: bool = True) -> Runtime:
    """The user's Node-RED at ``url`` (with its admin token), else a new private runtime
    (sandboxed unless ``sandboxed`` is False)."""
    if url:
        return RemoteRuntime(url, token)
    return PrivateRuntime.start(progress=progress, sandboxed=sandboxed)
