"""Stale searches are cancelled: a burst of edits on a 120-node pair whose exact search takes
about a second and a half ends with the newest exact result, and the worker never finishes a
search for a program that was edited meanwhile."""
from __future__ import annotations

import random
import threading
import time

import pytest

from gindex_studio.core import matching as M
from gindex_studio.core.divergence import score
from gindex_studio.core.generate import perturb, random_flow
from gindex_studio.ui.model.commands import SetAttribute

pytestmark = pytest.mark.skipif(not M.native_search_available(),
                                reason="the exact search of a 120-node pair takes minutes without the native search")



def test_a_burst_of_edits_ends_with_the_newest_exact_result(cview, qtbot, monkeypatch):
    from gindex_studio.ui.compare import scoring

    calls = []  # (started, returned, token, exact) of every search the worker ran
    lock = threading.Lock()
    real_score = scoring.score

    def recording_score(*args, **kw):
        t0 = time.perf_counter()
        r = real_score(*args, **kw)
        with lock:
            calls.append((t0, time.perf_counter(), kw.get("cancel"), r.exact))
        return r

    monkeypatch.setattr(scoring, "score", recording_score)
    rng = random.Random(4)
    ref = random_flow(120, rng, "a")
    gen = perturb(ref, rng, 0.2)  # exact in ~1.5 s (native), whatever the edits below
    cview.set_pair(ref, gen, ref_name="ref", gen_name="gen")
    functions = [n.id for n in cview.gen.doc.flow.nodes if n.type == "function"]
    qtbot.wait(300)  # the first full search is under way
    edits_at = []
    for k in range(5):
        doc = cview.gen.doc
        cview.gen.push(SetAttribute(doc, functions[k], "func", f"return msg; // edit {k}", f"Edit func {k}"))
        edits_at.append(time.perf_counter())
        qtbot.wait(120)  # past the debounce: every edit submits, and cancels, a search
    last_edit = edits_at[-1]
    qtbot.waitUntil(lambda: not cview.timer.isActive() and not cview.runner.busy and cview.result is not None,
                    timeout=20_000)
    shown_at = time.perf_counter()
    cview.runner.wait(5000)

    # the newest exact result, the one the core gives for the programs as they are now
    r = cview.result
    core = score(cview.ref.doc.flow, cview.gen.doc.flow, cview.options)
    assert r.exact and core.exact
    assert (r.s_exact, r.delta) == (core.s_exact, core.delta)

    with lock:
        done = list(calls)
    newest = [c for c in done if c[0] >= last_edit]
    stale = [c for c in done if c[0] < last_edit]
    # no search for an edited program ran to its end: each one stopped when its token was set
    # (margins of 1 s for a loaded CI machine; the exact search of this pair takes ~1.5 s)
    cancelled = [c for c in stale if c[2] is not None and c[2].is_set() and not c[3]]
    assert cancelled, "the burst cancelled no search"
    for t0, t1, token, exact in stale:
        if exact:  # only the quick pass of a small state may finish, in a blink
            assert t1 - t0 < 1.0
        elif token is not None and token.set_at is not None and token.set_at < t1:
            assert t1 - token.set_at < 1.0, f"a stale search ran {t1 - token.set_at:.2f} s after its cancel"
    # the newest request started at once (debounce, not a stale search's remaining second)
    assert newest and newest[0][0] - last_edit < 1.0
    full = max(c[1] - c[0] for c in newest)
    assert shown_at - last_edit < full + 1.0
