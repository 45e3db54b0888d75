"""Ctrl-C and SIGTERM outside a command's work: from the first line of the process to the start
of the work, and from its end to the exit.

``say_and_exit()`` (the process's entry calls it first, before anything heavy is imported) makes
SIGINT and SIGTERM print the one line and end the process at once (130 / 143; stdout flushed
first, so output already written is kept): while the command line is parsed and the command's
modules imported, and again once the work is done (during the interpreter's shutdown), there is
nothing to stop or clean up, and an exception would print a traceback. ``unwinding()`` (dispatch,
around the work) turns SIGINT back into KeyboardInterrupt, which the work's handlers stop pools
and children on. A signal the process ignores (SIG_IGN: started in the background) stays ignored.
Nothing is changed when this is not the main thread.
"""
from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager

LINES = {signal.SIGINT: (b"gindex-studio: interrupted\n", 130), signal.SIGTERM: (b"gindex-studio: terminated\n", 143)}


def _exit_now(signum, _frame) -> None:
    line, status = LINES[signum]
    try:
        sys.stdout.flush()
    except BaseException:  # (a flush the signal interrupted, or a closed pipe: nothing to keep)
        pass
    try:
        os.write(2, line)
    finally:
        os._exit(status)


def say_and_exit() -> None:
    """SIGINT (when it raises KeyboardInterrupt, Python's default) and SIGTERM (when it has the
    default action) end the process at once with their one line."""
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _exit_now)
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _exit_now)
    except ValueError:  # not the main thread
        pass


def answered_again() -> None:
    """Unblock SIGINT and SIGTERM in this (the main) thread: a process started by one that held
    them blocked (a blocked mask is inherited) would otherwise never see a Ctrl-C or a kill."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def held_at_exit() -> None:
    """Flush the output and block SIGINT and SIGTERM in this (the main) thread until the exit."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


def is_ours(handler) -> bool:
    """Whether ``handler`` is ``say_and_exit``'s (a default that may be taken over)."""
    return handler is _exit_now


@contextmanager
def unwinding():
    """In the block, SIGINT raises KeyboardInterrupt again where ``say_and_exit`` had taken it;
    after it, the handler before it is back."""
    try:
        taken = is_ours(signal.getsignal(signal.SIGINT))
        if taken:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:
        taken = False
    try:
        yield
    finally:
        if taken:
            signal.signal(signal.SIGINT, _exit_now)
