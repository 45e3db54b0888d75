"""A command's work in a child process its parent stops at the deadline (POSIX).

Reading a very large input is one uninterruptible call (``orjson.loads``, then building the
nodes: about 6 s for a 74 MB flow here, 20 s and more at the 256 MiB input limit): neither a
``--deadline`` nor Ctrl-C can stop it in the process doing it. :func:`run_bounded` forks; the
child does the work and writes its output to a pipe, the parent waits for it (until the stop
time of the command's Budget when there is a deadline) and relays it. When the child is not done
by then (it is still reading), the parent kills it and answers ``late()`` instead; a Ctrl-C in the
parent kills the child at once (the child ignores Ctrl-C: one line, the parent's). Output the
child has begun to write is waited for: it comes only once the work is done (a report is built
before any of it is written).

Every other command: :func:`take_over_if_large`, called by ``dispatch`` at the start of the
command, forks when one of the command's named inputs is that large, and the child does the whole
command. The decision is the command line's, made at its edge from the parsed arguments: no read
in the core forks the process.
"""
from __future__ import annotations

import os
import select
import signal
import sys
from typing import Callable

from gindex_studio.core.support.budget import clock

#: inputs at least this large (bytes, all files together) are read in a child: below it, reading
#: takes well under a second here (a 7.5 MB, 100,000-node flow: 0.6 s)
CHILD_FROM_BYTES = 16 << 20

#: True in a child process that does a command's work (``run_bounded``'s, or one that took the
#: command over: ``take_over_if_large``): it forks no further
_in_child = False


class ChildDone(BaseException):
    """Raised in the parent once the child that took its command over has ended (``status``: its
    exit status); ``dispatch`` returns it. A BaseException: no command's handler may catch it."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


def take_over_if_large(args) -> None:
    """For a command of the command line, at its start (``dispatch``), when one of its inputs is a
    file of ``files.LARGE_READ_BYTES`` or more (``large_input``): the process forks; the child does
    the command (its output relayed by the parent as it comes), the parent waits, so that a Ctrl-C
    or SIGTERM ends the command at once even while the child is inside a read nothing interrupts
    (about 4 s for a 170 MB flow). Once the child has ended the parent raises ``ChildDone``.
    Nothing forks when the platform cannot, in such a child, with other threads running, or in a
    process with a Qt application. The core's reads never fork: this is the command line's
    policy for its own inputs, decided here."""
    if large_input(args) is not None:
        _take_over()


#: ``large_input`` looks at no more than this many entries of the folders a command names
SCAN_ENTRIES = 20_000


def large_input(args) -> str | None:
    """The first input of ``args`` (a parsed command line: every value that names an existing
    file, or a regular file in a named folder, links to folders not followed, at most
    ``SCAN_ENTRIES`` entries looked at) of ``files.LARGE_READ_BYTES`` or more; None when there is
    none. Only ``stat`` is called: nothing is opened, a pipe or a device is never read. None when
    the command reads its standard input (``--token -``: a child has none)."""
    from gindex_studio.core.flows.files import LARGE_READ_BYTES

    if getattr(args, "token", None) == "-":
        return None
    left = [SCAN_ENTRIES]
    for value in vars(args).values():
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, (str, os.PathLike)):
                found = _large_under(os.fspath(v), LARGE_READ_BYTES, left)
                if found is not None:
                    return found
    return None


def _large_under(path: str, limit: int, left: list[int]) -> str | None:
    """``path`` when it is a file of ``limit`` bytes or more, else the first such regular file
    below it when it is a folder (``left[0]``: entries left to look at)."""
    import stat

    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(st.st_mode):
        return path if st.st_size >= limit else None
    if not stat.S_ISDIR(st.st_mode):
        return None
    for where, dirs, names in os.walk(path):  # links to folders are not followed
        for name in names:
            left[0] -= 1
            if left[0] < 0:
                return None
            try:
                st = os.stat(os.path.join(where, name))
            except (OSError, ValueError):
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size >= limit:
                return os.path.join(where, name)
        left[0] -= len(dirs)
        if left[0] < 0:
            return None
    return None


def finish_child(status: int) -> int:
    """``status``; in a child that took a command over, the end of that process with it."""
    if _in_child:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)
    return status


def _take_over() -> None:
    global _in_child
    import threading

    if _in_child or not hasattr(os, "fork") or threading.active_count() > 1 or _gui_running():
        return
    sys.stdout.flush()
    sys.stderr.flush()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid, mask = _fork()
    if pid == 0:  # the child: on with the command, in a process group of its own (its pools too)
        _in_child = True
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: one line, from it
        _release(mask)
        _onto_pipes((out_r, err_r), out_w, err_w)
        return
    try:
        _release(mask)  # a Ctrl-C or SIGTERM since the fork strikes here, where the child is ended
        try:
            os.setpgid(pid, pid)  # (either side may come first)
        except OSError:
            pass
        os.close(out_w)
        os.close(err_w)
        _relay({out_r: sys.stdout, err_r: sys.stderr})
        _, status = os.waitpid(pid, 0)
    except BaseException:  # Ctrl-C, SIGTERM (dispatch's), or our output closed: the child's group goes with us
        _kill(pid, group=True)
        raise
    finally:
        os.close(out_r)
        os.close(err_r)
    raise ChildDone(os.waitstatus_to_exitcode(status))


_STOPPING = {signal.SIGINT, signal.SIGTERM}


def _fork() -> tuple[int, object]:
    """``os.fork()`` with SIGINT and SIGTERM held back in both processes until ``_release(mask)``:
    a signal arriving between the fork and the parent's handler waits for that handler instead
    of leaving the child running alone."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING) if hasattr(signal, "pthread_sigmask") else None
    return os.fork(), mask


def _release(mask) -> None:
    """The signal mask as it was before ``_fork``."""
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _gui_running() -> bool:
    """True once a command has opened a window (``curate --window``, ``report -o``): a process
    with a Qt application is never forked (its files are read where they are opened)."""
    qt = sys.modules.get("PySide6.QtCore")
    return qt is not None and qt.QCoreApplication.instance() is not None


def _onto_pipes(parents: tuple[int, int], out_w: int, err_w: int) -> None:
    """The child's standard output and error (its own writes and its subprocesses') go to the
    pipes; its standard input is nothing."""
    import io

    for fd in parents:
        os.close(fd)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd in (out_w, err_w, null):
        os.close(fd)
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8")
    sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), encoding="utf-8", line_buffering=True)


def _relay(streams: dict) -> None:
    """Copy each pipe (fd → text stream) to its stream as data comes, until every pipe is closed
    (UTF-8 decoded incrementally: a character split between two reads stays whole)."""
    import codecs

    decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in streams}
    open_fds = list(streams)
    while open_fds:
        ready, _, _ = select.select(open_fds, [], [])
        for fd in ready:
            data = os.read(fd, 1 << 16)
            if not data:
                open_fds.remove(fd)
            out = streams[fd]
            out.write(decoders[fd].decode(data, final=not data))
            out.flush()


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


def run_bounded(work: Callable[[], int], budget, late: Callable[[], int], grace: float = 0.0) -> int:
    """``work()`` (an exit status; it prints to stdout and stderr) in a forked child; its output
    relayed (stderr as it comes, stdout once the child is done) and its status returned, or
    ``late()`` when the child has written nothing to stdout ``grace`` seconds after the stop time
    of ``budget`` (a ``core.support.budget.Budget``, the one the child works under; no stop time:
    no limit) and is killed."""
    stop_at = None if budget.stop_at is None else budget.stop_at + grace
    sys.stdout.flush()
    sys.stderr.flush()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        _child(work, (out_r, err_r), out_w, err_w)
    os.close(out_w)
    os.close(err_w)
    chunks: list[bytes] = []
    open_fds = [out_r, err_r]
    try:
        while open_fds:
            wait = None if chunks or stop_at is None else stop_at - clock()
            if wait is not None and wait <= 0:
                _kill(pid)
                return late()
            ready, _, _ = select.select(open_fds, [], [], wait)
            for fd in ready:
                data = os.read(fd, 1 << 16)
                if not data:
                    open_fds.remove(fd)
                elif fd == out_r:
                    chunks.append(data)
                else:  # progress lines and errors: at once
                    sys.stderr.write(data.decode("utf-8", "replace"))
                    sys.stderr.flush()
        _, status = os.waitpid(pid, 0)
    except BaseException:  # Ctrl-C: the child goes with us
        _kill(pid)
        raise
    finally:
        os.close(out_r)
        os.close(err_r)
    sys.stdout.write(b"".join(chunks).decode("utf-8", "replace"))
    sys.stdout.flush()
    return os.waitstatus_to_exitcode(status)


def _child(work: Callable[[], int], parents: tuple[int, int], out_w: int, err_w: int) -> None:
    """The child: ``work()`` with stdout and stderr on the pipes (whatever the parent's
    ``sys.stdout`` was: a terminal, or a test's capture), then exit with its status."""
    import io

    global _in_child
    code = 1
    _in_child = True
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for fd in parents:
            os.close(fd)
        sys.stdout = io.TextIOWrapper(os.fdopen(out_w, "wb"), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(os.fdopen(err_w, "wb"), encoding="utf-8", line_buffering=True)
        code = work()
    except BaseException as e:  # what the parent's guard would say: one line
        from gindex_studio.cli.common import say

        say(str(e))
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _kill(pid: int, group: bool = False) -> None:
    """Kill the child ``pid`` (with ``group``: its process group, its pools too) and reap it."""
    try:
        if group:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                os.kill(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
