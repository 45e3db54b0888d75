"""``pools.signals_held`` and ``pools.worker_signals``: a signal handled in Python never raises
inside a pool's locks, and the pool's workers do not inherit the held signals."""
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
import multiprocessing as mp

import pytest

from gindex_studio.core.support.pools import Finished, done_result, result_of, signals_held, stop_pool_now, worker_signals

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")


class Alarm(Exception):
    pass


def _raise(*_):
    raise Alarm()


@pytest.mark.parametrize("other_thread", [False, True], ids=["alone", "beside-a-thread"])
def test_a_handlers_exception_waits_for_the_end_of_the_block(other_thread):
    """Also when another thread, with no signal blocked, is the one the kernel gives it to (as a
    test runner's or Qt's threads are): Python still runs the handler in the main thread."""
    before = signal.signal(signal.SIGALRM, _raise)
    stop = threading.Event()
    side = threading.Thread(target=stop.wait, daemon=True)
    if other_thread:
        side.start()
    steps = []
    try:
        with pytest.raises(Alarm):
            with signals_held():
                if other_thread:
                    signal.pthread_kill(side.ident, signal.SIGALRM)
                else:
                    os.kill(os.getpid(), signal.SIGALRM)
                for _ in range(1000):  # many bytecodes: the handler would have run by now
                    steps.append(1)
                time.sleep(0.05)  # and a blocking call it could interrupt
                steps.append("end of the block")
        assert steps[-1] == "end of the block" and len(steps) == 1001
        assert signal.getsignal(signal.SIGALRM) is _raise  # the handler is back
    finally:
        stop.set()
        signal.signal(signal.SIGALRM, before)


def test_blocks_nest_and_the_signal_reaches_the_handler_once():
    seen = []
    before = signal.signal(signal.SIGUSR1, lambda *a: seen.append(a[0]))
    try:
        with signals_held():
            with signals_held():
                os.kill(os.getpid(), signal.SIGUSR1)
                time.sleep(0.01)
            assert seen == []  # the inner block handed it to the outer one
        assert seen == [signal.SIGUSR1]
    finally:
        signal.signal(signal.SIGUSR1, before)


def test_signals_handled_by_the_system_are_left_alone():
    with signals_held():
        assert signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler  # Python's own: held
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _mask_and_sigint(_):
    return sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, set())), signal.getsignal(signal.SIGINT)


def test_a_worker_started_while_signals_are_held_has_none_blocked():
    """The worker ignores Ctrl-C (the parent's) and can be terminated: SIGTERM is not blocked, nor
    anything a mask the parent had (inherited by a fork) blocked."""
    before = signal.signal(signal.SIGTERM, _raise)  # as the command line's handler is: held too
    try:
        pool = ProcessPoolExecutor(1, mp_context=mp.get_context("fork"), initializer=worker_signals)
        masked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGTERM})
        try:
            with signals_held():
                fut = pool.submit(_mask_and_sigint, 0)  # (the worker is forked here, with that mask)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, masked)
        mask, sigint = result_of(fut)
        assert mask == [] and sigint == signal.SIG_IGN
        sleeping = pool.submit(time.sleep, 30)
        time.sleep(0.2)
        t0 = time.monotonic()
        stop_pool_now(pool)
        assert time.monotonic() - t0 < 0.9  # terminated at once, not killed after waiting a second
        assert sleeping.cancelled() or sleeping.done()
    finally:
        signal.signal(signal.SIGTERM, before)


def test_finished_hands_out_each_future_once_and_done_result_reads_it():
    pool = ProcessPoolExecutor(2, mp_context=mp.get_context("fork"), initializer=worker_signals)
    try:
        futures = [pool.submit(pow, 2, k) for k in range(6)]
        finished = Finished(futures)
        got = []
        while finished.left:
            got.append(done_result(finished.next()))
        assert sorted(got) == [1, 2, 4, 8, 16, 32]
        assert finished.next(timeout=0.01) is None
    finally:
        pool.shutdown()
