"""The operating-system sandbox around every run of a flow a model wrote.

The walls, from the outside in (docs/sandbox.md says why each one is there):

1. **bubblewrap** (``bwrap``, the sandbox Flatpak uses) with new user, mount, pid, network, IPC
   and UTS namespaces, no further user namespaces inside. The root file system is read-only and
   holds only the Node.js binary and the libraries it loads, the Node-RED install and its extra
   nodes, the settings and tripwires files, a size-limited ``/data`` (Node-RED's user folder) and
   ``/tmp`` (memory, gone with the sandbox: the only writable places),
   ``/dev`` (null, zero, random) and ``/proc`` of its own pid namespace. No ``$HOME``, no host
   ``/tmp``, no shell or ``/usr/bin``: an ``exec`` finds nothing to run. The network is the
   sandbox's own loopback: nothing on the host's 127.0.0.1 is reachable. The environment is
   emptied (``HOME``, ``TZ``, ``LANG`` set). ``--die-with-parent``: the sandbox ends with the
   process that started it, even on ``kill -9``.
2. **seccomp** (x86-64 and arm64): no new processes (fork, vfork, clone without
   ``CLONE_THREAD``, clone3), so nothing can be started even if a program were found; threads
   are allowed. Node 20's permission model stops Node-RED from starting, so this stands in for
   Node's "no child processes".
3. **limits** (``prlimit``, util-linux): writable memory (``RLIMIT_DATA``: the heap, Buffers
   and code, while the address space V8 and WebAssembly merely reserve stays free: Node 22's
   WebAssembly reservations fail under an address-space limit), CPU seconds, file size, open
   files; V8's heap (``--max-old-space-size``); two malloc arenas instead of one per thread.
4. On Node.js 22 or later, **Node's permission model** inside all that: files read only in the
   install, the settings and the scratch folders, written only in the scratch folders, no child
   process.
5. **tripwires** (``resources/nodered/tripwires.js``): not a wall but a witness: a flow's code
   that tries to run a program, send a signal, load native code or name a file or socket outside
   the sandbox's own folders is refused and reported on its node.

The studio talks to the runtime through a unix socket it creates and passes in (see
``resources/nodered/settings.js``); the sandbox has no writable host folder at all.
"""
from __future__ import annotations

import functools
import os
import platform
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gindex_studio.paths import RESOURCES

#: Node-RED's core node files left out of the private runtime (``nodesExcludes``), with the
#: node types each one provides and why it is refused. A flow's node of such a type is reported
#: "refused: <why>" on its node and not deployed.
REFUSED_FILES: dict[str, tuple[tuple[str, ...], str]] = {
    "90-exec.js": (("exec",), "runs programs on the host"),
    "10-file.js": (("file", "file in"), "reads or writes the host's files"),
    "23-watch.js": (("watch",), "watches the host's files"),
    "31-tcpin.js": (("tcp in", "tcp out", "tcp request"), "opens network connections"),
    "32-udp.js": (("udp in", "udp out"), "opens network connections"),
    "22-websocket.js": (("websocket in", "websocket out", "websocket-listener", "websocket-client"),
                        "opens network connections"),
}
REFUSED_TYPES: dict[str, str] = {t: why for types, why in REFUSED_FILES.values() for t in types}


def settings_file() -> Path:
    """The private runtime's settings (the same file with and without the sandbox); it loads
    ``tripwires.js`` from its own folder."""
    return RESOURCES / "nodered" / "settings.js"


class SandboxUnavailable(Exception):
    """The sandbox cannot be made on this machine; the message is one line saying how to enable it."""


@dataclass(frozen=True)
class Limits:
    """What one runtime may use. ``heap_mb``: V8's old space; ``memory_mb``: the writable memory of
    the process (``RLIMIT_DATA``: V8's heap, Buffers, code); ``cpu_s``: CPU seconds over the runtime's life; ``file_mb``:
    the largest file it may write; ``scratch_mb``: each of ``/data`` and ``/tmp``; ``stall_s``: how
    long the event loop may stop turning before the watchdog ends the runtime (an endless loop;
    keep it above the 5 s a function node's code may run, so that its own limit answers first)."""

    heap_mb: int = 768
    stall_s: float = 10.0
    memory_mb: int = 2048
    cpu_s: int = 3600
    file_mb: int = 64
    scratch_mb: int = 64
    open_files: int = 1024


#: where things are inside the sandbox
NODE, INSTALL, EXTRAS, SETTINGS, DATA = ("/opt/node/bin/node", "/opt/node-red", "/opt/extra-nodes",
                                         "/opt/gindex/settings.js", "/data")
#: the folders a flow's code may name in file calls (tripwires.js refuses and reports the rest:
#: Node-RED's own /data, the install, the settings, /proc, anything of the host's)
ROOTS = ("/tmp",)
#: environment Node.js runs with (in and out of the sandbox): two malloc arenas, not one per thread
NODE_ENV = {"MALLOC_ARENA_MAX": "2"}

ENABLE_HINT = ("install bubblewrap (`apt-get install bubblewrap`) and allow unprivileged user namespaces "
               "(`sysctl kernel.unprivileged_userns_clone=1`, on Ubuntu also "
               "`sysctl kernel.apparmor_restrict_unprivileged_userns=0`), or pass --no-sandbox to run "
               "flows with your own rights")


def tools() -> tuple[str, str]:
    """(bwrap, prlimit) paths; SandboxUnavailable when either is missing."""
    bwrap, prlimit = shutil.which("bwrap"), shutil.which("prlimit")
    if not bwrap:
        raise SandboxUnavailable(f"no sandbox for flows: bubblewrap is not installed; {ENABLE_HINT}")
    if not prlimit:
        raise SandboxUnavailable("no sandbox for flows: `prlimit` (util-linux) is missing: install util-linux, "
                                 "or pass --no-sandbox to run flows with your own rights")
    return bwrap, prlimit


@functools.lru_cache(maxsize=4)
def _probe(bwrap: str, node: str) -> str | None:
    """None when bubblewrap can make the namespaces here (tried once per process), else its words."""
    cmd = [bwrap, "--unshare-all", "--die-with-parent", "--proc", "/proc", "--dev", "/dev", *_binds_for(node),
           NODE, "-e", "0"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        return str(e)
    if r.returncode == 0:
        return None
    return (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1]


def check(node: str) -> None:
    """SandboxUnavailable (one line, how to enable it) unless a sandbox can run ``node`` here."""
    bwrap, _ = tools()
    why = _probe(bwrap, node)
    if why:
        raise SandboxUnavailable(f"no sandbox for flows: bubblewrap cannot create namespaces here ({why}); "
                                 f"{ENABLE_HINT}")


def _libraries(node: str) -> list[str]:
    """The shared libraries ``node`` loads (as ``ldd`` lists them), the loader included."""
    try:
        out = subprocess.run(["ldd", node], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    libs = []
    for line in out.splitlines():
        parts = line.split()
        path = parts[2] if len(parts) >= 3 and parts[1] == "=>" else parts[0] if parts else ""
        if path.startswith("/"):
            libs.append(path)
    return libs


@functools.lru_cache(maxsize=4)
def _binds_for(node: str) -> tuple[str, ...]:
    binds = ["--ro-bind", node, NODE]
    for lib in _libraries(node):
        binds += ["--ro-bind", os.path.realpath(lib), lib]
    return tuple(binds)


# ----- seccomp: no new processes ------------------------------------------------------------
_ARCH = {"x86_64": (0xC000003E, {"clone": 56, "fork": 57, "vfork": 58, "clone3": 435}),
         "aarch64": (0xC00000B7, {"clone": 220, "clone3": 435})}
_ALLOW, _ERRNO, EPERM, ENOSYS = 0x7FFF0000, 0x00050000, 1, 38
CLONE_THREAD = 0x00010000


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def seccomp_program(machine: str | None = None) -> bytes | None:
    """A classic BPF seccomp filter that refuses every new process and allows threads (None on a
    machine this file has no syscall numbers for). clone3 answers ENOSYS so that the C library
    falls back to clone, whose flags the filter can read."""
    arch = _ARCH.get(machine or platform.machine())
    if arch is None:
        return None
    audit, nr = arch
    ld_w, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    deny_enosys, deny_eperm, allow = _ERRNO | ENOSYS, _ERRNO | EPERM, _ALLOW
    # the jumps below are counted to these three returns at the end of the program
    body = [(ld_w, 0, 0, 4), ("arch",), (ld_w, 0, 0, 0), ("x32",), ("clone3",)]
    for name in ("fork", "vfork"):
        if name in nr:
            body.append((name,))
    body += [("clone",), (ld_w, 0, 0, 16), ("thread",)]
    n = len(body)
    at = {"enosys": n, "eperm": n + 1, "allow": n + 2}
    out = []
    for i, item in enumerate(body):
        def to(label: str) -> int:
            return at[label] - i - 1
        tag = item[0]
        if isinstance(tag, int):
            out.append(_insn(*item))
        elif tag == "arch":
            out.append(_insn(jeq, 0, to("eperm"), audit))
        elif tag == "x32":
            out.append(_insn(jge, to("eperm"), 0, 0x40000000))
        elif tag == "clone3":
            out.append(_insn(jeq, to("enosys"), 0, nr["clone3"]))
        elif tag in ("fork", "vfork"):
            out.append(_insn(jeq, to("eperm"), 0, nr[tag]))
        elif tag == "clone":  # not clone: allowed; clone: read its flags
            out.append(_insn(jeq, 0, to("allow"), nr["clone"]))
        elif tag == "thread":
            out.append(_insn(jset, to("allow"), to("eperm"), CLONE_THREAD))
    out += [_insn(ret, 0, 0, deny_enosys), _insn(ret, 0, 0, deny_eperm), _insn(ret, 0, 0, allow)]
    return b"".join(out)


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, 0)  # not close-on-exec: passed to bwrap by number
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@dataclass
class Command:
    """A command line, the file descriptors it inherits (``fds``) and those of them made here
    (``own``: :meth:`close` them once it started)."""

    argv: list[str]
    fds: list[int]
    own: list[int]

    def close(self) -> None:
        for fd in self.own:
            try:
                os.close(fd)
            except OSError:
                pass
        self.own = []


def limits_prefix(prlimit: str, limits: Limits) -> list[str]:
    mb = 1024 * 1024
    return [prlimit, f"--data={limits.memory_mb * mb}", f"--cpu={limits.cpu_s}", f"--fsize={limits.file_mb * mb}",
            f"--nofile={limits.open_files}", "--core=0", "--"]


def node_args(limits: Limits, version: tuple[int, ...], read: list[str], write: list[str]) -> list[str]:
    """Node.js's own options: V8's heap limit; on Node 22 or later its permission model too (files
    read only in ``read``, written only in ``write``, no child process, no addon; worker threads
    allowed for the watchdog, and the model holds in them). Node 20's experimental model stops
    Node-RED 4 from starting, so there the seccomp filter stands in for it."""
    args = [f"--max-old-space-size={limits.heap_mb}"]
    if version and version[0] >= 22:
        args += ["--permission", "--allow-worker", *(f"--allow-fs-read={d.rstrip('/')}/*" for d in read),
                 *(f"--allow-fs-write={d.rstrip('/')}/*" for d in write)]
    return args


def sandboxed(node: str, install: Path, extras: Path | None, settings: Path, red_args: list[str],
              limits: Limits, keep_fds: tuple[int, ...], version: tuple[int, ...] = ()) -> Command:
    """The command that runs ``node <install>/node_modules/node-red/red.js <red_args>`` inside the
    sandbox (see the module's docstring). ``keep_fds``: descriptors the runtime inherits (the
    admin socket, the watchdog's pipe). SandboxUnavailable when it cannot be made here."""
    check(node)
    bwrap, prlimit = tools()
    size = str(limits.scratch_mb * 1024 * 1024)
    argv = [*limits_prefix(prlimit, limits), bwrap, "--unshare-all", "--unshare-user", "--disable-userns",
            "--die-with-parent", "--new-session", "--clearenv", "--setenv", "HOME", DATA, "--setenv", "LANG", "C.UTF-8",
            "--setenv", "PATH", "/nonexistent"]
    for key, value in NODE_ENV.items():
        argv += ["--setenv", key, value]
    # the scratch file systems first: the binds below stay visible whatever their host paths are
    argv += ["--size", size, "--tmpfs", DATA, "--size", size, "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
             *_binds_for(node), "--ro-bind", str(install), INSTALL, "--ro-bind", str(settings), SETTINGS,
             "--ro-bind", str(settings.parent / "tripwires.js"), str(Path(SETTINGS).parent / "tripwires.js")]
    if os.environ.get("TZ"):
        argv += ["--setenv", "TZ", os.environ["TZ"]]
    if extras is not None and extras.is_dir():
        argv += ["--ro-bind", str(extras), EXTRAS]
    for zone in ("/usr/share/zoneinfo", "/etc/localtime"):
        if os.path.exists(zone):
            argv += ["--ro-bind", zone, zone]
    argv += ["--chdir", DATA]
    fds: list[int] = []
    program = seccomp_program()
    if program is not None:
        fd = _memfd("gindex-seccomp", program)
        fds.append(fd)
        argv += ["--seccomp", str(fd)]
    hosts = _memfd("gindex-hosts", b"127.0.0.1 localhost\n::1 localhost\n")
    fds.append(hosts)
    argv += ["--ro-bind-data", str(hosts), "/etc/hosts"]
    # the root (a tmpfs of bubblewrap's, in memory and not counted by any limit) and /dev read-only:
    # a flow writes only into the size-limited /data and /tmp
    argv += ["--remount-ro", "/dev", "--remount-ro", "/"]
    allowed = node_args(limits, version, [INSTALL, EXTRAS, os.path.dirname(SETTINGS), DATA, "/tmp"], [DATA, "/tmp"])
    argv += [NODE, *allowed, f"{INSTALL}/node_modules/node-red/red.js", "--settings", SETTINGS, *red_args]
    return Command(argv, fds + list(keep_fds), fds)


def unsandboxed(node: str, install: Path, extras: Path | None, settings: Path, user_dir: Path,
                red_args: list[str], limits: Limits, keep_fds: tuple[int, ...], version: tuple[int, ...] = ()
                ) -> Command:
    """The same runtime without the sandbox (``--no-sandbox``): the limits, and on Node 22 or
    later its permission model (files in the install, the extra nodes, the settings and the user
    folder only)."""
    prlimit = shutil.which("prlimit")
    prefix = limits_prefix(prlimit, limits) if prlimit else []
    read = [str(install), str(settings.parent), str(user_dir)] + ([str(extras)] if extras is not None else [])
    argv = [*prefix, node, *node_args(limits, version, read, [str(user_dir)]),
            str(install / "node_modules" / "node-red" / "red.js"), "--settings", str(settings), *red_args]
    return Command(argv, list(keep_fds), [])
