"""A local command as a system: the prompt on its stdin (UTF-8), the answer its stdout.

Contracts: the command is an argv list run without a shell, in its own process group; the sampling
parameters are in its environment (``GINDEX_ATTEMPT``, ``GINDEX_TEMPERATURE``, ``GINDEX_SEED``,
``GINDEX_MAX_TOKENS``, set when given). Past ``timeout`` seconds, or past ``max_bytes`` of output,
the process group is killed and the answer is an error; so is a non-zero exit (with the last line
of its stderr).
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
        killed: list[str] = []

        def kill(why: str) -> None:
            if not killed:
                killed.append(why)
            _killpg(proc.pid)

        timer = threading.Timer(self.timeout, kill, (f"no answer within {self.timeout:g} s",))
        timer.start()
        err: list[bytes] = []
        threads = [threading.Thread(target=_feed, args=(proc.stdin, prompt.text.encode()), daemon=True),
                   threading.Thread(target=lambda: err.append(proc.stderr.read()[-2000:]), daemon=True)]
        for t in threads:
            t.start()
        out, size = [], 0
        try:
            while chunk := proc.stdout.read1(1 << 16):
                size += len(chunk)
                if size > self.max_bytes:
                    kill(f"more than {self.max_bytes:,} bytes of output")
                    break
                out.append(chunk)
            proc.wait()
        finally:
            timer.cancel()
            for t in threads:
                t.join(5)
            proc.stdout.close()
            proc.stderr.close()
            with self._lock:
                self._running.discard(proc.pid)
        seconds = time.monotonic() - start
        if killed:
            return Answer("", seconds=seconds, error=killed[0])
        if proc.returncode != 0:
            tail = (err[0] if err else b"").decode("utf-8", "replace").strip().splitlines()
            return Answer("", seconds=seconds, error=f"exit status {proc.returncode}" + (f": {tail[-1][:200]}" if tail else ""))
        return Answer(b"".join(out).decode("utf-8", "replace"), seconds=seconds)


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _feed(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:  # the command exited without reading all of it
        pass
