"""switch_interval_at_most: one count for every thread that lowers the interpreter's switch
interval (the pickling helper's and the GUI's search worker's used to keep one each, so either
could restore the default while the other still ran)."""
import sys
import threading

from gindex_studio.core.support.switching import switch_interval_at_most


def test_blocks_nest_and_the_least_wins_until_the_last_ends():
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        with switch_interval_at_most(0.001):
            assert sys.getswitchinterval() == 0.001
            with switch_interval_at_most(0.0005):
                assert sys.getswitchinterval() == 0.0005
            assert sys.getswitchinterval() == 0.001  # the outer block still asks for 1 ms
            with switch_interval_at_most(0.01):  # never raised above what is asked for
                assert sys.getswitchinterval() == 0.001
        assert sys.getswitchinterval() == 0.005
    finally:
        sys.setswitchinterval(before)


def test_overlapping_blocks_in_two_threads_restore_the_interval_once_both_end():
    before = sys.getswitchinterval()
    entered, leave = threading.Event(), threading.Event()
    seen = []

    def other():
        with switch_interval_at_most(0.0005):
            entered.set()
            leave.wait(5)
        seen.append(sys.getswitchinterval())

    try:
        sys.setswitchinterval(0.005)
        with switch_interval_at_most(0.001):
            t = threading.Thread(target=other)
            t.start()
            assert entered.wait(5)
        # this thread's block ended first: the other thread's still holds the interval down
        assert sys.getswitchinterval() == 0.0005
        leave.set()
        t.join(5)
        assert seen == [0.005] and sys.getswitchinterval() == 0.005
    finally:
        leave.set()
        sys.setswitchinterval(before)


def test_an_error_in_the_block_restores_the_interval():
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        try:
            with switch_interval_at_most(0.001):
                raise KeyError("x")
        except KeyError:
            pass
        assert sys.getswitchinterval() == 0.005
    finally:
        sys.setswitchinterval(before)
