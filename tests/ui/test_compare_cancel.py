"""Stale searches are cancelled: a burst of edits on a 120-node pair whose exact search takes
about a second and a half of CPU ends with the newest exact result, and the worker never finishes
a search for a program that was edited meanwhile."""
from __future__ import annotations

import random
import threading
import time

import pytest

from gindex_studio.core.scoring import matching as M
from gindex_studio.core.scoring.divergence import score
from gindex_studio.core.flows.generate import perturb, random_flow
from gindex_studio.ui.model.commands import SetAttribute

from cpu_clock import cpu_seconds, thread_clock

pytestmark = pytest.mark.skipif(not M.native_search_available(),
                                reason="the exact search of a 120-node pair takes minutes without the native search")



@pytest.mark.slow
def test_a_burst_of_edits_ends_with_the_newest_exact_result(cview, qtbot, monkeypatch):
    """Each of 5 edits lands while the full search of the program before it runs; every one of
    those searches stops when its token is set (within 1 s of the worker's CPU: no wall-clock
    bound, which a loaded machine stretches), and the worker then runs one full search, for
    the program as it is now."""
    from gindex_studio.core.scoring import anytime
    from gindex_studio.ui.latest_runner import StaleToken

    calls = []  # every search the worker ran: edit generation, deadline, token, CPU readings, result
    lock = threading.Lock()
    generation = [0]
    real_score, real_set = anytime.score, StaleToken.set

    def recording_score(*args, **kw):
        options = args[2] if len(args) > 2 else kw["options"]
        call = {"gen": generation[0], "quick": options.deadline is not None, "token": kw.get("cancel"),
                "clock": thread_clock(), "cpu0": time.thread_time(), "running": True}
        with lock:
            calls.append(call)
        r = real_score(*args, **kw)
        call.update(cpu1=time.thread_time(), exact=r.exact, running=False)
        return r

    def recording_set(token):
        with lock:
            for c in calls:
                if c["token"] is token and c["running"] and "cpu_at_set" not in c:
                    c["cpu_at_set"] = cpu_seconds(c["clock"])
        real_set(token)

    def full_search_under_way(gen: int) -> bool:
        with lock:
            return any(c["gen"] == gen and not c["quick"] and c["running"]
                       and (cpu_seconds(c["clock"]) or 0.0) - c["cpu0"] > 0.1 for c in calls)

    monkeypatch.setattr(anytime, "score", recording_score)
    monkeypatch.setattr(StaleToken, "set", recording_set)
    rng = random.Random(4)
    ref = random_flow(120, rng, "a")
    gen = perturb(ref, rng, 0.2)  # exact in ~1.5 s of CPU (native), whatever the edits below
    cview.set_pair(ref, gen, ref_name="ref", gen_name="gen")
    functions = [n.id for n in cview.gen.doc.flow.nodes if n.type == "function"]
    for k in range(5):
        qtbot.waitUntil(lambda: full_search_under_way(k), timeout=120_000)
        doc = cview.gen.doc
        generation[0] = k + 1
        cview.gen.push(SetAttribute(doc, functions[k], "func", f"return msg; // edit {k}", f"Edit func {k}"))
    qtbot.waitUntil(lambda: not cview.timer.isActive() and not cview.runner.busy and cview.result is not None,
                    timeout=120_000)
    cview.runner.wait(60_000)

    # the newest exact result, the one the core gives for the programs as they are now
    r = cview.result
    core = score(cview.ref.doc.flow, cview.gen.doc.flow, cview.options)
    assert r.exact and core.exact
    assert (r.s_exact, r.delta) == (core.s_exact, core.delta)

    with lock:
        done = list(calls)
    assert not any(c["running"] for c in done)
    # the full search of each edited program was cancelled by the next edit, and stopped at once
    for k in range(5):
        full = [c for c in done if c["gen"] == k and not c["quick"]]
        assert full, f"no full search ran for the program before edit {k + 1}"
        for c in full:
            assert not c["exact"] and c["token"].is_set(), "a search for an edited program ran to its end"
            if c.get("cpu_at_set") is not None:
                assert c["cpu1"] - c["cpu_at_set"] < 1.0, "a stale search searched on after its cancel"
    # and for the program as it is now, exactly one full search ran, to the end
    newest = [c for c in done if c["gen"] == 5 and not c["quick"]]
    assert len(newest) == 1 and newest[0]["exact"]
    assert not any(c["gen"] == 5 and c["token"].is_set() for c in done)
