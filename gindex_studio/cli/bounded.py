"""A command's work in a child process its parent stops at the deadline (POSIX).

Reading a very large input is one uninterruptible call (``orjson.loads``, then building the
nodes: about 6 s for a 74 MB flow here, 20 s and more at the 256 MiB input limit): neither a
``--deadline`` nor Ctrl-C can stop it in the process doing it. :func:`run_bounded` forks; the
child does the work and writes its output to a pipe, the parent waits for it (until ``stop_at``
when there is a deadline) and relays it. When the child is not done by then (it is still
reading), the parent kills it and answers ``late()`` instead; a Ctrl-C in the parent kills the
child at once (the child ignores Ctrl-C: one line, the parent's). Output the child has begun to
write is waited for: it comes only once the work is done (a report is built before any of it is
written).
"""
from __future__ import annotations

import os
import select
import signal
import sys
import time
from typing import Callable

#: inputs at least this large (bytes, all files together) are read in a child: below it, reading
#: takes well under a second here (a 7.5 MB, 100,000-node flow: 0.6 s)
CHILD_FROM_BYTES = 16 << 20


def wanted(paths: list[str]) -> bool:
    """True when the platform can fork and the inputs are large enough that reading them could
    outlast a deadline, or keep a Ctrl-C waiting, by a second or more."""
    if not hasattr(os, "fork"):
        return False
    total = 0
    for p in paths:
        try:
            total += os.stat(p).st_size
        except OSError:
            return False  # the command's own reading says what is wrong with it
    return total >= CHILD_FROM_BYTES


def run_bounded(work: Callable[[], int], stop_at: float | None, late: Callable[[], int]) -> int:
    """``work()`` (an exit status; it prints to stdout) in a forked child; its output relayed and
    its status returned, or ``late()`` when the child has written nothing by ``stop_at``
    (``time.perf_counter()``; None: no limit) and is killed."""
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            os.close(r)
            os.dup2(w, 1)
            os.close(w)
            code = work()
        except BaseException as e:  # the parent reports nothing for us: one line here
            print(f"gindex-studio: {e}", file=sys.stderr)
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    os.close(w)
    chunks: list[bytes] = []
    try:
        while True:
            wait = None if chunks or stop_at is None else stop_at - time.perf_counter()
            if wait is not None and wait <= 0:
                _kill(pid)
                return late()
            ready, _, _ = select.select([r], [], [], wait)
            if ready:
                data = os.read(r, 1 << 16)
                if not data:
                    break
                chunks.append(data)
        _, status = os.waitpid(pid, 0)
    except BaseException:  # Ctrl-C: the child goes with us
        _kill(pid)
        raise
    finally:
        os.close(r)
    sys.stdout.buffer.write(b"".join(chunks))
    sys.stdout.flush()
    return os.waitstatus_to_exitcode(status)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
