"""The hostile corpus (issue 31): flows a model could write to reach outside the studio's private
Node-RED, each run in the real sandboxed runtime as ``gindex-studio run`` runs it.

One runtime serves the module. It is started with canaries in the studio's own environment: a fake
``$HOME`` holding a fake private key, a fake secret in ``GINDEX_CANARY_SECRET``, and services on the
host's loopback (HTTP on 127.0.0.1 and ::1 serving a secret, a TCP and a UDP listener) that record
whatever reaches them. For every flow of ``hostile/`` (its "why" and what must be reported are in
``manifest.json``; README.md says how to add one) the test asserts: no canary in any output
(problems, debug messages, the log), nothing reached the host services, no file was written outside
the sandbox (the fake home, the test's folders, the host's /tmp, the install and extra-nodes folder
byte for byte), every escape attempt is a reported problem on its node, the run ended within its
limit, and no process is left but the runtime's own. A runtime the flow killed is restarted for the
next one.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import secrets
import shutil
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "hostile"
MANIFEST: dict[str, dict] = json.loads((HERE / "manifest.json").read_text())
TREE = str(HERE.parents[1])
#: the kinds that count as "reported": anything but clean
REPORTED = {"refused", "needs-network", "timeout", "runtime-error", "runtime-warning", "config-error",
            "status-error", "runtime-crash", "deploy-error"}
#: the name every file a flow tries to plant carries
PLANTED = "HOSTILE-PWNED"
DEFAULT_LIMIT = 30.0
#: the most the studio's own memory may grow while one flow runs (its peak resident size)
STUDIO_GROWTH_MB = 300
SLOW = {name for name, m in MANIFEST.items() if m.get("slow")}


# ----- the host's canaries -----------------------------------------------------------------------
class Recorder:
    """Everything that reached the host's services (any of them should stay empty)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.items: list[str] = []

    def add(self, what: str) -> None:
        with self.lock:
            self.items.append(what)

    def take(self) -> list[str]:
        with self.lock:
            out, self.items = self.items, []
        return out


def _http_service(recorder: Recorder, secret: str, host: str, port: int, family: int):
    class Handler(BaseHTTPRequestHandler):
        def _any(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(min(length, 65536)) if length else b""
            recorder.add(f"HTTP {self.command} {self.path} {body[:200]!r}")
            data = secret.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _any

        def log_message(self, *args):
            pass

    class Server(ThreadingHTTPServer):
        address_family = family
        daemon_threads = True

    server = Server((host, port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _TcpHandler(socketserver.BaseRequestHandler):
    def handle(self):
        self.server.recorder.add(f"TCP connection from {self.client_address}")
        self.request.settimeout(2)
        try:
            data = self.request.recv(4096)
            self.server.recorder.add(f"TCP data {data[:200]!r}")
        except OSError:
            pass


class _UdpHandler(socketserver.BaseRequestHandler):
    def handle(self):
        self.server.recorder.add(f"UDP datagram {self.request[0][:200]!r}")


@dataclass
class Services:
    recorder: Recorder
    http_port: int
    tcp_port: int
    udp_port: int
    servers: list = field(default_factory=list)

    def close(self):
        for s in self.servers:
            s.shutdown()
            s.server_close()


def _services(secret: str) -> Services:
    rec = Recorder()
    http4 = _http_service(rec, secret, "127.0.0.1", 0, socket.AF_INET)
    port = http4.server_address[1]
    servers = [http4]
    try:  # the same port on the IPv6 loopback, for http://[::1]:port
        servers.append(_http_service(rec, secret, "::1", port, socket.AF_INET6))
    except OSError:
        pass
    tcp = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _TcpHandler)
    udp = socketserver.ThreadingUDPServer(("127.0.0.1", 0), _UdpHandler)
    for s in (tcp, udp):
        s.daemon_threads = True
        s.recorder = rec
        threading.Thread(target=s.serve_forever, daemon=True).start()
    servers += [tcp, udp]
    return Services(rec, port, tcp.server_address[1], udp.server_address[1], servers)


def tree_digest(folder: Path) -> str:
    """Every file, link and folder under ``folder``: names, modes, link targets and contents."""
    h = hashlib.sha256()
    if not folder.exists():
        return "absent"
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            p = os.path.join(root, name)
            st = os.lstat(p)
            h.update(f"{os.path.relpath(p, folder)}\0{st.st_mode:o}\0".encode())
            if os.path.islink(p):
                h.update(os.readlink(p).encode())
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
    return h.hexdigest()


def tree_identity(folder: Path) -> dict:
    """Every entry under ``folder`` with its inode, mode, size and change times: what a write, a
    rename, a new file or a link would move (the ctime of an entry cannot be set back). Cheap
    enough to take after each flow; :func:`tree_digest` (contents) is taken around the corpus."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            st = os.lstat(os.path.join(root, name))
            out[os.path.join(root, name)] = (st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return out


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    return kids


def descendants(pid: int) -> dict[int, str]:
    """The processes under ``pid`` (not itself): pid → command name."""
    kids, out, todo = _children(), {}, [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            try:
                out[c] = Path(f"/proc/{c}/comm").read_text().strip()
            except OSError:
                continue
            todo.append(c)
    return out


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peak_rss() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


# ----- the harness -------------------------------------------------------------------------------
@dataclass
class Outcome:
    problems: list
    observations: list
    elapsed: float
    events: int


class Harness:
    """The module's runtime, canaries and snapshots (see the module's docstring)."""

    def __init__(self, root: Path):
        self.canary_key = "CANARY-KEY-" + secrets.token_hex(12)
        self.canary_env = "CANARY-ENV-" + secrets.token_hex(12)
        self.canary_http = "CANARY-HTTP-" + secrets.token_hex(12)
        self.home = root / "home"
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{self.canary_key}\n")
        (self.home / ".ssh" / "id_rsa").chmod(0o600)
        self.scratch = root / "host-tmp"  # a host folder flows name as a target
        self.scratch.mkdir()
        self.extras = root / "extra-nodes"
        (self.extras / "node_modules").mkdir(parents=True)
        (self.extras / "README").write_text("extra nodes of the hostile corpus\n")
        self.services = _services(self.canary_http)
        from gindex_studio.core.nodered.install import install_dir
        from gindex_studio.core.nodered.sandbox import settings_file

        self.install = install_dir()
        self.settings = settings_file()
        self.rt = None
        self.session = None
        self.restarts = 0
        self.flooded = False

    # the runtime
    def start(self):
        from gindex_studio.core.nodered.deploy import Session
        from gindex_studio.core.nodered.runtime import PrivateRuntime

        from gindex_studio.core.nodered.sandbox import Limits

        # the watchdog at 6 s, not 10: the corpus's endless loops end sooner (above the 5 s a
        # function's code may run, so that its own time limit still answers first; the default is
        # tested in tests/cli/test_nodered_cli_limits.py)
        self.rt = PrivateRuntime.start(timeout=120, extra_nodes=self.extras, limits=Limits(stall_s=6))
        self.session = Session(self.rt)

    def ensure_running(self):
        """Restart the runtime when a flow ended it (the watchdog, a limit, a crash)."""
        if self.rt is not None and self.rt.running() and self.rt.alive():
            return
        self.stop()
        self.restarts += 1
        self.start()

    def stop(self):
        """Stop the runtime (the next :meth:`ensure_running` starts a fresh one)."""
        if self.session is not None:
            try:
                self.session.comms.close()
            except Exception:
                pass
        if self.rt is not None:
            self.rt.stop()
        self.session = None

    # a flow
    def substitute(self, text: str) -> str:
        for key, value in {"@HTTP_PORT@": self.services.http_port, "@TCP_PORT@": self.services.tcp_port,
                           "@UDP_PORT@": self.services.udp_port, "@HOME@": self.home, "@TMP@": self.scratch,
                           "@INSTALL@": self.install, "@EXTRAS@": self.extras, "@SETTINGS@": self.settings}.items():
            text = text.replace(key, str(value))
        return text

    def nodes(self, name: str) -> list[dict]:
        nodes = json.loads(self.substitute((CORPUS / name).read_text()))
        repeat = MANIFEST[name].get("repeat")
        if repeat:  # a huge flow kept small in the corpus: copies of one node
            model = next(n for n in nodes if n["id"] == repeat["node"])
            nodes += [dict(model, id=f"{model['id']}-{k}") for k in range(1, repeat["times"])]
        return nodes

    def run(self, nodes: list[dict], limit: float) -> Outcome:
        """Deploy, fire every inject, request every endpoint (as ``gindex-studio run`` does),
        with probes stopped at ``limit``; then take the flow away."""
        from gindex_studio.core.nodered.deploy import RunProblem
        from gindex_studio.core.nodered.probe import default_probes, observe
        from gindex_studio.core.nodered.runtime import NodeRedError

        s = self.session
        start = s.comms.position
        t0 = time.monotonic()
        problems, observations = [], []
        try:
            problems = list(s.deploy(nodes).problems)
            if not any(p.kind in ("deploy-error", "runtime-crash") for p in problems):
                for probe in default_probes(nodes, timeout=3.0):
                    if time.monotonic() - t0 > limit - 5:
                        break
                    observations.append(observe(s, probe, nodes, settle=0.5))  # self.settle waits on
        except NodeRedError as e:
            problems.append(RunProblem("runtime-crash", str(e)))
        # a flow's late output belongs to it, not to the next flow; a last probe that ended quiet
        # (no event, no timer, nothing coming in, the runtime answering) was one calm round already
        self.settle(t0 + limit - 2, calm=int(bool(observations) and observations[-1].ended == "quiet"))
        problems += [p for p in s.problems(start) if p not in problems]
        elapsed = time.monotonic() - t0
        events = s.comms.position - start
        try:
            s.remove()
        except NodeRedError:
            pass
        return Outcome(problems, observations, elapsed, events)

    def settle(self, until: float, calm: int = 0) -> None:
        """Wait (until ``until`` at most) for a runtime that is quiet and answers promptly twice in
        a row (``calm``: the rounds already seen): a flow building a huge message keeps Node.js busy
        for seconds without an event, and the message then takes seconds more to come in over the
        websocket (under load its report came after this wait and the flow was called clean)."""
        while calm < 2 and time.monotonic() < until and self.rt.running():
            comms = self.session.comms
            comms.wait_quiet(comms.position, 0.5, max(0.1, until - time.monotonic()), busy=lambda: comms.receiving)
            t = time.monotonic()
            prompt = self.rt.alive() and time.monotonic() - t < 0.3 and not comms.receiving
            calm = calm + 1 if prompt else 0

    def outputs(self, since: int, outcome: Outcome):
        """Every text the run produced, piece by piece."""
        for p in outcome.problems:
            yield p.line()
        for o in outcome.observations:
            yield json.dumps(o.to_dict())
        for ev in self.session.comms.events_since(since):
            yield json.dumps(ev.data)
        yield from list(self.rt.log)
        try:
            yield self.rt.log_path.read_text(errors="replace")
        except OSError:
            pass

    def host_state(self) -> dict:
        """What must not change while a flow runs."""
        return {"home": tree_digest(self.home), "scratch": tree_digest(self.scratch),
                "extras": tree_digest(self.extras), "install": tree_identity(self.install),
                "settings": hashlib.sha256(self.settings.read_bytes()).hexdigest()}


def planted_files(*folders: Path) -> list[str]:
    """Files named after the corpus's marker in the host's /tmp (two levels) and in ``folders``."""
    found = glob.glob(f"/tmp/*{PLANTED}*") + glob.glob(f"/tmp/*/*{PLANTED}*")
    for folder in folders:
        found += [str(p) for p in folder.rglob(f"*{PLANTED}*")]
    return found


@pytest.fixture(scope="module")
def hostile():
    """The harness. Its folders (the fake home among them) are made in /var/tmp: a path under
    /tmp names the sandbox's own /tmp inside it, so a flow naming it reaches nothing of the host's."""
    if not shutil.which("node"):
        pytest.skip("Node.js is not installed: the Node-RED tests need `node` and npm")
    root = Path(tempfile.mkdtemp(prefix="gindex-hostile-", dir="/var/tmp" if os.path.isdir("/var/tmp") else None))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GINDEX_NODERED_HOME", os.environ.get("GINDEX_NODERED_HOME")
                  or str(Path.home() / ".cache" / "gindex-studio-test-nodered"))
        h = Harness(root)
        mp.setenv("HOME", str(h.home))  # the runtime starts from the studio's environment: canaries in it
        mp.setenv("GINDEX_CANARY_SECRET", h.canary_env)
        mp.setenv("AWS_SECRET_ACCESS_KEY", h.canary_env)
        h.install_digest = tree_digest(h.install)
        h.others = _tools(descendants(os.getpid()))  # runtimes of the suite's session fixtures
        h.start()
        h.before = h.host_state()
        yield h
        h.stop()
        h.services.close()
    shutil.rmtree(root, ignore_errors=True)


# ----- the corpus --------------------------------------------------------------------------------
def _params():
    return [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else [], id=name[:-5])
            for name in sorted(MANIFEST)]


def test_the_corpus_is_complete():
    files = {p.name for p in CORPUS.glob("*.json")}
    assert files == set(MANIFEST), "every flow has a manifest entry and every entry a flow"
    assert len(files) >= 40
    for name, m in MANIFEST.items():
        assert m["why"].strip(), name
        flow = json.loads((CORPUS / name).read_text())
        ids = {n["id"] for n in flow}
        assert set(m["expect"]) <= ids, f"{name}: expects problems on nodes it does not have"
        assert m["expect"] or m.get("anywhere") or m.get("bounded_only"), f"{name}: expects nothing"


@pytest.mark.parametrize("name", _params())
@pytest.mark.slow
def test_hostile_flow(hostile, name):
    m = MANIFEST[name]
    limit = float(m.get("limit", DEFAULT_LIMIT))
    if hostile.flooded:  # a flood's tail would land in this flow: a fresh runtime
        hostile.stop()
    hostile.flooded = bool(m.get("memory"))
    hostile.ensure_running()
    nodes = hostile.nodes(name)
    others = _tools(descendants(os.getpid()))  # the suite's other runtimes (session fixtures) are not this flow's
    since = hostile.session.comms.position
    hostile.services.recorder.take()
    reset_peak_rss()
    rss0 = peak_rss_mb()
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(out=hostile.run(nodes, limit)), daemon=True)
    worker.start()
    worker.join(limit + 15)
    if worker.is_alive():
        hostile.stop()  # unblocks the run; the next flow starts a fresh runtime
        pytest.fail(f"{name}: the run did not end within {limit + 15:g} s")
    outcome: Outcome = box["out"]
    growth = peak_rss_mb() - rss0
    print(f"{name}: {outcome.elapsed:.1f} s, {outcome.events} events, studio peak +{growth:.0f} MB, "
          f"{len(outcome.problems)} problems: " + "; ".join(p.line()[:160] for p in outcome.problems[:6]))

    # no canary anywhere
    canaries = (hostile.canary_key, hostile.canary_env, hostile.canary_http)
    for text in hostile.outputs(since, outcome):
        for c in canaries:
            assert c not in text, f"{name}: a canary came out: {text[:300]}"
    # nothing reached the host
    assert hostile.services.recorder.take() == [], f"{name}: the host's services were reached"
    assert hostile.host_state() == hostile.before, f"{name}: a host file or the install changed"
    assert planted_files(hostile.home, hostile.scratch, hostile.extras, hostile.install) == []
    # reported on its node
    by_node: dict = {}
    for p in outcome.problems:
        by_node.setdefault(p.node_id, set()).add(p.kind)
    lines = "\n".join(p.line() for p in outcome.problems)
    for node, kinds in m["expect"].items():
        wanted = set(kinds) or REPORTED
        assert by_node.get(node, set()) & wanted, f"{name}: no {sorted(wanted)} on {node}; problems:\n{lines}"
    if m.get("anywhere"):
        assert outcome.problems, f"{name}: came back clean"
    # bounded
    assert outcome.elapsed <= limit, f"{name}: took {outcome.elapsed:.1f} s (limit {limit:g} s)"
    if m.get("memory"):
        assert growth < STUDIO_GROWTH_MB, f"{name}: the studio grew by {growth:.0f} MB ({outcome.events} events)"
    # no process but the runtime's: bubblewrap (2) and one node
    ours = descendants(os.getpid())
    rt = hostile.rt
    runtime = descendants(rt.pid) | {rt.pid: "bwrap"} if rt is not None and rt.running() else {}
    strays = {pid: comm for pid, comm in _tools(ours).items() if pid not in runtime and pid not in others}
    assert strays == {}, f"{name}: processes left: {strays}"
    assert sorted(runtime.values()).count("node") <= 1 and len(runtime) <= 3, f"{name}: {runtime}"


def _tools(procs: dict) -> dict:
    """The processes of ``procs`` that a runtime is made of."""
    return {pid: comm for pid, comm in procs.items() if comm in ("node", "bwrap", "prlimit")}


@pytest.mark.slow
def test_no_process_or_folder_is_left(hostile):
    """After the corpus: the install is byte for byte what it was before it; stopping the runtime
    leaves no process and no runtime folder."""
    assert tree_digest(hostile.install) == hostile.install_digest
    hostile.ensure_running()
    rt = hostile.rt
    inside = set(descendants(rt.pid))
    hostile.stop()
    assert not rt.run_dir.exists()
    deadline = time.monotonic() + 5  # the sandbox's inner processes end with its pid namespace
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in inside):
        time.sleep(0.05)
    assert {pid for pid in inside if Path(f"/proc/{pid}").exists()} == set()
    assert set(_tools(descendants(os.getpid()))) <= set(hostile.others)  # the suite's own runtimes only
    hostile.start()


# ----- end to end: the commands -----------------------------------------------------------------
def _cli(hostile, tmp_path, *args):
    """``python -m gindex_studio.cli ARGS`` with the canaries in its environment and its own
    temporary folder (where its runtime folder goes); (code, stdout, stderr, elapsed)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": TREE, "HOME": str(hostile.home),
           "GINDEX_CANARY_SECRET": hostile.canary_env, "TMPDIR": str(tmp_path),
           "GINDEX_NODERED_HOME": os.environ["GINDEX_NODERED_HOME"], "QT_QPA_PLATFORM": "offscreen"}
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", *map(str, args)], capture_output=True, text=True,
                       timeout=180, env=env, cwd=tmp_path)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def _nothing_left(hostile, tmp_path, out, err):
    for c in (hostile.canary_key, hostile.canary_env, hostile.canary_http):
        assert c not in out and c not in err
    assert hostile.services.recorder.take() == []
    assert list(tmp_path.glob(f"gindex-studio-{os.getuid()}/rt-*")) == [], "a runtime folder was left"
    for d in os.listdir("/proc"):  # no process still works in the command's folders
        try:
            cwd = os.readlink(f"/proc/{d}/cwd")
        except OSError:
            continue
        assert not cwd.startswith(str(tmp_path)), f"process {d} left in {cwd}"
    assert hostile.host_state() == hostile.before
    assert planted_files(hostile.home, hostile.scratch, hostile.extras, hostile.install) == []


@pytest.mark.parametrize("name, node", [("exec-id-to-file", "ex1"), ("fn-constructor-ssh-key", "f1"),
                                        ("fn-env-secret", "f1"), ("http-literal", "h1"),
                                        ("file-in-home-key", "fr2")])
@pytest.mark.slow
def test_run_command_reports_every_attempt(hostile, tmp_path, name, node):
    flow = tmp_path / f"{name}.json"
    flow.write_text(hostile.substitute((CORPUS / flow.name).read_text()))
    hostile.services.recorder.take()
    code, out, err, elapsed = _cli(hostile, tmp_path, "run", flow, "--json")
    assert code == 1, err
    report = json.loads(out)
    assert report["clean"] is False
    assert any(p["node"] == node for p in report["problems"]), report["problems"]
    assert elapsed < 60
    _nothing_left(hostile, tmp_path, out, err)


@pytest.mark.slow
def test_probe_command_reports_the_generated_programs_attempts(hostile, tmp_path):
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps([{"id": "t1", "type": "tab"},
                               {"id": "i1", "type": "inject", "z": "t1", "payload": "", "payloadType": "date",
                                "wires": [["f1"]]},
                               {"id": "f1", "type": "function", "z": "t1", "func": "msg.payload = 1; return msg;",
                                "outputs": 1, "wires": [["d1"]]},
                               {"id": "d1", "type": "debug", "z": "t1", "active": True, "complete": "true",
                                "wires": []}]))
    gen = tmp_path / "gen.json"
    gen.write_text(hostile.substitute((CORPUS / "fn-constructor-ssh-key.json").read_text()))
    hostile.services.recorder.take()
    code, out, err, elapsed = _cli(hostile, tmp_path, "probe", ref, gen, "--json")
    assert code in (0, 1), err
    report = json.loads(out)
    assert any(p["node"] == "f1" and "refused" in p["message"] for p in report["generated_problems"])
    assert report["reference_problems"] == []
    assert elapsed < 90
    _nothing_left(hostile, tmp_path, out, err)
