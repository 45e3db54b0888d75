"""Cyclic garbage is collected on the GUI thread only (ui/gui_gc): a cycle dropped by a worker
thread that then allocates heavily is finalised on the GUI thread, at the collector's next tick."""
from __future__ import annotations

import gc
import threading

import pytest

from PySide6.QtCore import QObject

from gindex_studio.ui import gui_gc


class Cycle(QObject):
    """A Qt object in a reference cycle that records the thread its finaliser ran on."""

    finalised_on: list[int] = []

    def __init__(self):
        super().__init__()
        self.me = self

    def __del__(self):
        Cycle.finalised_on.append(threading.get_ident())


def test_the_automatic_collector_is_off_and_the_timer_runs(qapp):
    assert gui_gc.is_installed() and not gc.isenabled()
    assert gui_gc._timer.isActive() and gui_gc._timer.thread() is qapp.thread()


def test_a_cycle_dropped_by_a_worker_is_finalised_on_the_gui_thread(qapp, qtbot):
    from gindex_studio.core.support import gcpause

    # a computation still running from an earlier test keeps the heap frozen (gcpause), cycles
    # made meanwhile included: they are collected only after it
    qtbot.waitUntil(lambda: not gcpause.active(), timeout=60_000)
    Cycle.finalised_on.clear()
    gc.collect()

    kept = []

    def work():
        Cycle()  # unreachable at once, kept alive by its cycle
        for _ in range(50_000):  # far past generation 0's threshold, as a Δ search allocates
            kept.append([])

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert Cycle.finalised_on == []  # the worker did not collect it
    qtbot.waitUntil(lambda: Cycle.finalised_on != [], timeout=5_000)  # the timer did
    assert Cycle.finalised_on == [threading.main_thread().ident]


@pytest.mark.parametrize("counts, thresholds, generation", [
    ((700, 0, 0), (700, 10, 10), -1),  # generation 0 not past its threshold
    ((701, 0, 0), (700, 10, 10), 0),
    ((701, 10, 10), (700, 10, 10), 0),  # counts equal to the thresholds are not past them
    ((701, 11, 10), (700, 10, 10), 1),
    ((701, 11, 11), (700, 10, 10), 2),
    ((701, 0, 11), (700, 10, 10), 2),  # the oldest generation that is due wins
    ((5, 99, 99), (5, 1, 1), -1),  # nothing at all without generation 0
])
def test_the_due_generation_is_cpythons(counts, thresholds, generation):
    assert gui_gc.due_generation(counts, thresholds) == generation


def test_collecting_keeps_the_automatic_collector_off(qapp):
    gc.enable()  # as a library might
    gui_gc.collect_if_due()
    assert not gc.isenabled()
