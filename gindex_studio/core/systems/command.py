"""A local command as a system: the prompt on its stdin (UTF-8), the answer its stdout.

Contracts: the command is an argv list run without a shell, in its own process group; the sampling
parameters are in its environment (``GINDEX_ATTEMPT``, ``GINDEX_TEMPERATURE``, ``GINDEX_SEED``,
``GINDEX_MAX_TOKENS``, set when given). Past ``timeout`` seconds, or past ``max_bytes`` of output,
the process group is killed and the answer is an error; so is a non-zero exit (with the last line
of its stderr). Output is read for at most ``AFTER_EXIT_S`` after the command exited, so a process
it left behind holding its stdout cannot hold the run. The command runs with the user's rights, not
in the flow sandbox: it is the user's own program; its answer is treated as hostile text.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

from gindex_studio.core.systems.base import Answer, Params, Prompt

_ENV = {"attempt": "GINDEX_ATTEMPT", "temperature": "GINDEX_TEMPERATURE", "seed": "GINDEX_SEED",
        "max_tokens": "GINDEX_MAX_TOKENS"}


class Command:
    """``argv`` (a list, never a shell line) answering one prompt per run."""

    def __init__(self, argv: list[str], timeout: float = 600.0, max_bytes: int = 64 * 2**20):
        if not argv:
            raise ValueError("the command is empty")
        self.argv = list(argv)
        self.name = os.path.basename(argv[0])
        self.timeout = timeout
        self.max_bytes = max_bytes
        self._running: set[int] = set()  # process group ids, for close()
        self._lock = threading.Lock()

    def close(self) -> None:
        """Kill every command still running (a run interrupted mid-answer)."""
        with self._lock:
            for pgid in self._running:
                _killpg(pgid)

    def _env(self, params: Params) -> dict[str, str]:
        env = dict(os.environ)
        for field, var in _ENV.items():
            value = getattr(params, field)
            if value is not None:
                env[var] = str(value)
        return env

    def answer(self, prompt: Prompt, params: Params) -> Answer:
        start = time.monotonic()
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=self._env(params), start_new_session=True)
        except OSError as e:
            return Answer("", seconds=0.0, error=f"cannot run {self.argv[0]!r}: {e.strerror}")
        with self._lock:
            self._running.add(proc.pid)
        try:
            out, err, why = _exchange(proc, prompt.text.encode(), start + self.timeout, self.max_bytes)
            if why:
                _killpg(proc.pid)
            proc.wait()
        finally:
            with self._lock:
                self._running.discard(proc.pid)
        seconds = time.monotonic() - start
        if why == "timeout":
            return Answer("", seconds=seconds, error=f"no answer within {self.timeout:g} s")
        if why == "size":
            return Answer("", seconds=seconds, error=f"more than {self.max_bytes:,} bytes of output")
        if proc.returncode != 0:
            tail = err.decode("utf-8", "replace").strip().splitlines()
            return Answer("", seconds=seconds, error=f"exit status {proc.returncode}" + (f": {tail[-1][:200]}" if tail else ""))
        return Answer(out.decode("utf-8", "replace"), seconds=seconds)


#: how long output is still read after the command itself has exited: a process it left behind
#: (a daemon in a session of its own, out of reach of the process-group kill) may hold its stdout
#: open for ever, and the answer is what the command wrote, not what outlives it
AFTER_EXIT_S = 2.0


def _exchange(proc: subprocess.Popen, data: bytes, deadline: float, max_bytes: int) -> tuple[bytes, bytes, str]:
    """Write ``data`` to the command's stdin and read its stdout and stderr, in this thread, never
    past ``deadline`` (time.monotonic) nor ``AFTER_EXIT_S`` after the command exited: (stdout, the
    last 2,000 bytes of stderr, "" or why it must be killed: "timeout" or "size"). Closes the pipes."""
    import selectors

    sel = selectors.DefaultSelector()
    for f in (proc.stdin, proc.stdout, proc.stderr):
        os.set_blocking(f.fileno(), False)
    if data:
        sel.register(proc.stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    sel.register(proc.stdout, selectors.EVENT_READ)
    sel.register(proc.stderr, selectors.EVENT_READ)
    out, err, size, sent, why, exited = [], b"", 0, 0, "", None
    try:
        while sel.get_map():
            now = time.monotonic()
            if exited is None and proc.poll() is not None:
                exited = now
            if now >= deadline:
                why = "timeout"
                break
            if exited is not None and now - exited >= AFTER_EXIT_S:
                break
            for key, _ in sel.select(min(deadline - now, 0.1)):
                f = key.fileobj
                if f is proc.stdin:
                    try:
                        sent += os.write(f.fileno(), data[sent:sent + (1 << 16)])
                    except BlockingIOError:  # the pipe filled between select and write: later
                        continue
                    except OSError:  # the command closed its stdin (or exited) without reading it all
                        sent = len(data)
                    if sent >= len(data):
                        sel.unregister(f)
                        f.close()
                    continue
                chunk = os.read(f.fileno(), 1 << 16)
                if not chunk:
                    sel.unregister(f)
                elif f is proc.stdout:
                    size += len(chunk)
                    if size > max_bytes:
                        why = "size"
                        break
                    out.append(chunk)
                else:
                    err = (err + chunk)[-2000:]
            if why:
                break
    finally:
        sel.close()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            try:
                f.close()
            except OSError:
                pass
    return b"".join(out), err, why


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
