"""``core.support.budget.Budget``: one stop time on one clock, one cancel flag, children that
never outlive their parent, and the older ``deadline=`` / ``cancel=`` forms converted at the top."""
from __future__ import annotations

import threading

import pytest
from hypothesis import given, strategies as st

from gindex_studio.core.support.budget import Budget, CancelFlag, DeadlinePassed, clock
from gindex_studio.core.support.cancel import Cancelled

seconds = st.one_of(st.none(), st.floats(min_value=-10.0, max_value=1e6, allow_nan=False))


@given(parent=seconds, children=st.lists(seconds, max_size=5))
def test_a_child_never_outlives_its_parent(parent, children):
    """Whatever the seconds asked, every descendant stops no later than its parent, and a parent
    without a deadline gives a child exactly the one it asks for."""
    start = clock()
    b = Budget.after(parent, started=start)
    for s in children:
        c = b.child(s, started=start)
        if b.stop_at is None:
            assert c.stop_at == (None if s is None else start + s)
        else:
            assert c.stop_at is not None and c.stop_at <= b.stop_at
            if s is not None:
                assert c.stop_at <= start + s
        b = c


def test_a_cancel_reaches_parent_and_children_alike():
    parent = Budget.after(60)
    child, other = parent.child(1.0), parent.child(None)
    grandchild = child.child(0.5)
    assert not any(b.cancelled() for b in (parent, child, other, grandchild))
    grandchild.cancel()
    assert all(b.cancelled() and b.is_set() for b in (parent, child, other, grandchild))
    assert parent.flag[0] == 1  # the byte the C searches read


def test_left_expired_and_check():
    b = Budget.after(3600)
    assert 3599 < b.left() <= 3600 and not b.expired()
    b.check()
    past = Budget(clock() - 1)
    assert past.left() == 0.0 and past.expired()
    with pytest.raises(DeadlinePassed):
        past.check()
    past.cancel()
    with pytest.raises(Cancelled):  # a cancel is said first
        past.check()
    forever = Budget()
    assert forever.left() is None and not forever.expired()


def test_the_older_forms_are_converted_once():
    flag = CancelFlag()
    b = Budget.of(None, flag)
    assert b.cancel_flag is flag and b.stop_at is None and b.poll is None
    flag.set()
    assert b.cancelled()
    assert Budget.of(None, b) is b  # a Budget is passed on unchanged
    start = clock()
    assert Budget.of(5.0, None, started=start).stop_at == start + 5.0
    assert Budget.of(5.0, b, started=start).cancel_flag is flag  # a child of the given one
    event = threading.Event()
    polled = Budget.of(None, event)  # any object with is_set(): polled
    assert polled.poll is event and not polled.cancelled()
    event.set()
    assert polled.cancelled() and not polled.cancel_flag.is_set()


def test_a_child_polls_its_parents_canceller_and_its_own():
    a, b = threading.Event(), threading.Event()
    child = Budget(poll=a).child(None, poll=b)
    assert not child.cancelled()
    b.set()
    assert child.cancelled()
    b.clear()
    a.set()
    assert child.cancelled()


def test_wait_returns_once_cancelled_or_after_its_timeout():
    """A Budget waits as the threading.Event a cancel token used to be (the Analysis window's
    scoring waits on it): False after the timeout, True once cancelled, by its flag or its poll."""
    import threading

    b = Budget()
    assert b.wait(0.01) is False
    threading.Timer(0.05, b.cancel).start()
    assert b.wait(5.0) is True
    other = threading.Event()
    polled = Budget(poll=other)
    assert polled.wait(0.02) is False
    threading.Timer(0.05, other.set).start()
    assert polled.wait(5.0) is True
