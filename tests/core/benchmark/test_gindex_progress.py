"""Long g-index work reports as it goes and stops when cancelled: every task's Δ, then each
complete task (the same values as the final result), stages that count up, and ``Cancelled``
soon after the token is set, worker processes included."""
from __future__ import annotations

import multiprocessing as mp
import threading
import time

import pytest

from gindex_studio.core.benchmark.curriculum import Cancelled
from gindex_studio.core.benchmark.generate_experiment import write_experiment
from gindex_studio.core.benchmark.gindex import Listener, compute_gindex
from gindex_studio.core.scoring.matching import CancelToken


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return write_experiment(tmp_path_factory.mktemp("synthetic"), tasks=8, programs=160, domains=4, seed=3)


class Recorder(Listener):
    def __init__(self):
        self.events = []

    def stage(self, name, done, total):
        self.events.append(("stage", name, done, total))

    def delta(self, index, reports):
        self.events.append(("delta", index, [r.delta for r in reports]))

    def task(self, result):
        self.events.append(("task", result.index, result))


@pytest.mark.parametrize("workers", [1, 2])
def test_listener_hears_every_delta_then_every_complete_task(synthetic, workers):
    rec = Recorder()
    res = compute_gindex(synthetic, workers=workers, listener=rec)
    kinds = [e[0] for e in rec.events if e[0] != "stage"]
    n = len(synthetic.tasks)
    assert kinds == ["delta"] * n + ["task"] * n
    assert [e[1] for e in rec.events if e[0] == "delta"] == list(range(n))
    done = {e[1]: e[2] for e in rec.events if e[0] == "task"}
    assert sorted(done) == list(range(n))
    for t in res.tasks:  # a streamed task is the final one, component for component
        d = done[t.index]
        assert (d.delta, d.omega, d.nearest, d.tc, d.terms) == (t.delta, t.omega, t.nearest, t.tc, t.terms)
    for e in rec.events:
        if e[0] == "delta":
            assert e[2] == res.tasks[e[1]].attempt_deltas
    stages = [e[1:] for e in rec.events if e[0] == "stage"]
    assert [s[0] for s in stages] == sorted((s[0] for s in stages), key=["delta", "curriculum", "omega"].index)
    for name, total in (("delta", n), ("curriculum", 160), ("omega", n)):
        counts = [s[1] for s in stages if s[0] == name]
        assert counts == list(range(1, total + 1)) if workers == 1 or name != "omega" else sorted(counts) == counts
        assert counts[-1] == total and all(s[2] == total for s in stages if s[0] == name)


def _cancel_when(rec_stage: str, at: int, token: CancelToken, stamps: dict):
    class CancelAt(Listener):
        def stage(self, name, done, total):
            if name == rec_stage and done == at and not token.is_set():
                stamps["set"] = time.thread_time()
                token.set()

    return CancelAt()


@pytest.mark.parametrize("stage,at", [("delta", 2), ("curriculum", 50), ("omega", 1)])
def test_cancel_raises_soon_in_process(synthetic, stage, at):
    token, stamps = CancelToken(), {}
    with pytest.raises(Cancelled):
        compute_gindex(synthetic, workers=1, listener=_cancel_when(stage, at, token, stamps), cancel=token)
    assert time.thread_time() - stamps["set"] < 0.5  # CPU of this thread, where the work runs


@pytest.mark.slow
def test_cancel_terminates_worker_processes(tmp_path):
    exp = write_experiment(tmp_path, tasks=6, programs=600, domains=3, sizes=(20, 40), seed=5)
    token, stamps = CancelToken(), {}
    busy = threading.Thread(target=time.sleep, args=(5,), daemon=True)
    busy.start()  # another thread alive, as in the studio: the workers are spawned, not forked
    before = set(mp.active_children())

    class CancelOnFirst(Listener):
        def stage(self, name, done, total):
            if name == "omega" and not token.is_set():
                stamps["workers"] = [p for p in mp.active_children() if p not in before]
                stamps["set"] = time.thread_time()
                token.set()

    with pytest.raises(Cancelled):  # raised only once the cancel was seen: the Ω work did not end
        compute_gindex(exp, workers=2, listener=CancelOnFirst(), cancel=token)
    assert time.thread_time() - stamps["set"] < 0.5  # CPU of this thread: no wall-clock bound
    assert stamps["workers"], "the Ω work ran in no worker process"
    # terminated, not left to finish their searches (a hang guard of 30 s, not a time limit)
    for p in stamps["workers"]:
        p.join(30)
    assert not any(p.is_alive() for p in stamps["workers"])
