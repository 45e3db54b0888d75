"""Heavy work runs in worker processes (issue 24, item 1): the curation window's Δ matrix is
computed in another process than the studio's, a click on Cancel kills that process at once with
the rows read so far kept, and the core's ``Worker`` streams events, reports failures in one line
and dies on ``stop``. (The compare window's g-index: tests/ui/test_compare_progress.py.)"""
from __future__ import annotations

import os
import time

import numpy as np
import pytest
from PySide6.QtCore import Qt

from gindex_studio.core.support.workers import Worker, run

from .curation_support import open_window
from .test_curation_views import slow_workspace


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
@pytest.mark.slow
def test_the_curation_matrix_runs_in_another_process_and_cancel_kills_it(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    win = open_window(qtbot, slow_workspace(), tmp_path, wait=False, deadline=0.02)
    hm = win.heatmap
    qtbot.waitUntil(lambda: not np.isnan(hm.matrix.lower[0]).any(), timeout=30_000)  # a first band arrived
    job = win._matrix_job
    pid = job.pid
    assert pid is not None and pid != os.getpid() and _alive(pid)
    qtbot.mouseClick(win.cancel_button, Qt.LeftButton)
    t0 = time.perf_counter()
    qtbot.waitUntil(lambda: not _alive(pid), timeout=2_000)
    assert time.perf_counter() - t0 < 1.0 and not job.isRunning()
    shown = win.progress.value()
    qtbot.wait(200)
    assert win.progress.value() == shown < len(win.model.ws)  # nothing arrives after the cancel
    assert (~np.isnan(hm.matrix.lower).any(axis=1)).sum() == shown >= 1  # the rows done stay
    win.close()


def _events(emit, n):
    for k in range(n):
        emit("step", (k, os.getpid()))
    return "finished"


def _fails(emit):
    raise ValueError("no such program")


def _sleeps(emit):
    emit("pid", os.getpid())
    time.sleep(60)


def test_a_worker_streams_its_events_from_another_process():
    gen = run(_events, 3, timeout=60)
    events = []
    try:
        while True:
            events.append(next(gen))
    except StopIteration as stop:
        value = stop.value
    assert [e[1][0] for e in events] == [0, 1, 2] and value == "finished"
    assert {e[1][1] for e in events} != {os.getpid()}


def test_a_failure_in_the_worker_arrives_as_one_line():
    with pytest.raises(RuntimeError, match="^ValueError: no such program$"):
        list(run(_fails, timeout=60))


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
def test_stop_kills_the_worker_at_once():
    w = Worker(_sleeps).start()
    events = w.read(0.1, wait=30)
    assert events and events[0][0] == "pid" and events[0][1] == w.pid != os.getpid()
    t0 = time.perf_counter()
    w.stop()
    assert not _alive(w.pid) and time.perf_counter() - t0 < 1.0


def test_the_reader_never_waits_for_a_message_still_being_written():
    """A large event comes through the pipe in pieces, from a process of lower priority: the
    reader (the GUI thread) takes what is there and returns, and has the message once it is all in."""
    import pickle
    import struct

    from gindex_studio.core.support.workers import _Frames

    r, w = os.pipe()
    try:
        frames = _Frames(r)
        blob = pickle.dumps(("done", list(range(5_000))))  # within the pipe's buffer: nothing reads it here
        os.write(w, struct.pack("!i", len(blob)) + blob[:1000])
        t0 = time.perf_counter()
        assert frames.next() is None and time.perf_counter() - t0 < 0.5  # half a message: no wait
        os.write(w, blob[1000:])
        assert frames.next() == blob
        # the long header (-1, then 8 bytes), and an empty message, as multiprocessing writes them
        os.write(w, struct.pack("!i", -1) + struct.pack("!Q", 3) + b"abc" + struct.pack("!i", 0))
        assert frames.next() == b"abc" and frames.next() == b"" and frames.next() is None
        os.close(w)
        w = None
        with pytest.raises(EOFError):
            frames.next()
    finally:
        os.close(r)
        if w is not None:
            os.close(w)


def _large(emit, n):
    emit("big", bytes(n))
    return n


def test_a_large_event_arrives_whole():
    w = Worker(_large, 8_000_000).start()
    got, end = [], time.monotonic() + 60
    while not w.ended and time.monotonic() < end:
        got += w.read(0.05, wait=0.05)
    assert [k for k, _v in got] == ["big", "done"] and got[0][1] == bytes(8_000_000) and got[1][1] == 8_000_000


def _children(pid: int) -> list[int]:
    """Live processes whose parent is ``pid``."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(name))
    return out


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
@pytest.mark.parametrize("how", ["cancel", "close"])
@pytest.mark.slow
def test_the_matrix_pool_ends_with_its_job(qtbot, tmp_path, monkeypatch, how):
    """After the first band the matrix job searches on a process per core (PairPool, children of
    the job's process); Cancel, or closing the window, leaves none of them alive."""
    from gindex_studio.core.jobs import curation as curation_jobs

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(curation_jobs, "POOL_MIN_PAIRS", 0)
    win = open_window(qtbot, slow_workspace(), tmp_path, wait=False, deadline=0.02)
    hm = win.heatmap
    qtbot.waitUntil(lambda: not np.isnan(hm.matrix.lower[0]).any(), timeout=30_000)
    job = win._matrix_job
    pid = job.pid
    qtbot.waitUntil(lambda: len(_children(pid)) >= 2, timeout=10_000)  # the pool's workers
    kids = _children(pid)
    if how == "cancel":
        qtbot.mouseClick(win.cancel_button, Qt.LeftButton)
    else:
        win.close()
    qtbot.waitUntil(lambda: not _alive(pid) and not any(_alive(k) for k in kids), timeout=3_000)
    if how == "cancel":
        win.close()
