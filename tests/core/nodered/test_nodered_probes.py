"""Probes that wait for the answer (issue 31, item 6): a delayed answer, a late error, pending
timers, the held-back behaviour flows, and programs that crash or hang — each gets its verdict
and the runtime starts afresh for what follows. A real Node-RED in its sandbox."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gindex_studio.core.nodered.behaviour import behaviour
from gindex_studio.core.nodered.probe import Probe, compare, observe, run_probes

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "resources" / "demo" / "runtime"


def _tab(*nodes):
    return [{"id": "t1", "type": "tab", "label": "t"}] + [dict(n, z="t1") for n in nodes]


def _delayed(answer: str, seconds: float = 1.0):
    """inject → delay ``seconds`` → payload = ``answer`` → debug."""
    return _tab(
        {"id": "in", "type": "inject", "name": "go", "payload": "1", "payloadType": "num", "wires": [["dl"]]},
        {"id": "dl", "type": "delay", "pauseType": "delay", "timeout": str(seconds), "timeoutUnits": "seconds",
         "wires": [["ch"]]},
        {"id": "ch", "type": "change", "rules": [{"t": "set", "p": "payload", "pt": "msg", "to": answer, "tot": "str"}],
         "wires": [["out"]]},
        {"id": "out", "type": "debug", "active": True, "tosidebar": True, "complete": "false", "wires": []})


def _function(code: str):
    return _tab(
        {"id": "in", "type": "inject", "name": "go", "payload": "1", "payloadType": "num", "wires": [["fn"]]},
        {"id": "fn", "type": "function", "name": "f1", "func": code, "outputs": 1, "wires": [["out"]]},
        {"id": "out", "type": "debug", "active": True, "tosidebar": True, "complete": "false", "wires": []})


@pytest.mark.slow
def test_answers_after_a_delay_are_compared(nodered_session):
    """A probe ended 0.3 s after the last event: two programs answering differently after 1 s agreed."""
    t0 = time.monotonic()
    outcomes, ref, gen = compare(nodered_session, _delayed("A"), _delayed("B"))
    assert time.monotonic() - t0 >= 2 * (1 + 2)  # each program: the 1 s delay, then 2 s of quiet
    (o,) = outcomes
    assert (o.reference.debug, o.generated.debug) == (['"A"'], ['"B"']) and not o.agrees
    assert ref.verdict() == gen.verdict() == "ran"
    outcomes, _, _ = compare(nodered_session, _delayed("A"), _delayed("A"), settle=0.5)
    assert outcomes[0].agrees and outcomes[0].generated.ended == "quiet"


@pytest.mark.slow
def test_a_pending_timer_is_waited_for_beyond_the_settle_time(nodered_session):
    flow = _delayed("late", seconds=3)
    nodered_session.deploy(flow, quiet_injects=True)
    t0 = time.monotonic()
    obs = observe(nodered_session, Probe("go", inject="in"), flow, settle=0.5)
    took = time.monotonic() - t0
    assert obs.debug == ['"late"'] and obs.ended == "quiet" and obs.note == ""
    assert 3 <= took < 5
    # the probe's own limit still ends it, and says so
    nodered_session.redeploy()
    obs = observe(nodered_session, Probe("go", inject="in", timeout=1), flow, settle=0.5)
    assert obs.debug == [] and obs.ended == "busy" and obs.note == "still busy after 1 s"


@pytest.mark.slow
def test_an_error_thrown_late_is_reported(nodered_session):
    ok = _function("return msg;")
    late = _function("setTimeout(() => { throw new Error('late boom'); }, 1000); return null;")
    outcomes, _, gen = compare(nodered_session, ok, late)
    assert not outcomes[0].agrees
    assert outcomes[0].generated.errors == ["late boom"] and outcomes[0].generated.debug == []
    assert [(p.kind, p.node_id, p.message) for p in gen.problems] == [("runtime-error", "fn", "late boom")]


@pytest.mark.slow
def test_the_held_back_behaviour_flows_keep_their_verdicts(nodered_session):
    ref = json.loads((DEMO / "reference.json").read_text())
    same = json.loads((DEMO / "same-behaviour.json").read_text())
    const = json.loads((DEMO / "one-constant.json").read_text())
    b = behaviour(nodered_session, ref, same, settle=1.0)
    assert b.same and (b.agree, b.probes, b.verdict) == (2, 2, "ran")
    b = behaviour(nodered_session, ref, const, settle=1.0)
    assert not b.same and (b.agree, b.verdict) == (1, "ran")
    # an unknown type and a function that throws where the reference converts: both named
    broken = json.loads(json.dumps(ref))
    nodes = broken["flow"]
    z = next(n["z"] for n in nodes if n.get("z"))
    for n in nodes:
        if n["id"] == "m1":
            n.update(type="function", name="convert", func="throw new Error('cannot convert ' + msg.payload);",
                     outputs=1)
    nodes.append({"id": "ghost", "type": "frobnicate", "z": z, "wires": []})
    b = behaviour(nodered_session, ref, broken, settle=1.0)
    assert b.verdict == "does not run" and not b.same and b.cell() == "no run (1/2)"
    assert {(p.kind, p.node_id) for p in b.generated_problems} == {("missing-type", "ghost"),
                                                                   ("runtime-error", "m1")}
    assert next(o for o in b.outcomes if o.probe.name == "inject 20 °C").generated.errors == ["cannot convert 20"]


@pytest.mark.slow
def test_a_program_that_crashes_or_hangs_gets_its_verdict_and_the_next_one_runs():
    """Own runtime: the programs here end it (an unhandled rejection; an endless loop in a timer,
    which the vm's time limit does not cover and the watchdog ends after 10 s)."""
    from gindex_studio.core.nodered.deploy import Session
    from gindex_studio.core.nodered.runtime import PrivateRuntime

    ok = _function("return msg;")
    s = Session(PrivateRuntime.start(timeout=120))
    try:
        first = s.runtime
        b = behaviour(s, ok, _function("Promise.reject(new Error('unhandled')); return msg;"), settle=1.0)
        assert b.verdict == "crashed" and b.cell() == "crashed (0/1)" and b.reference_ran
        assert [p.kind for p in b.generated_problems] == ["runtime-crash"]
        assert "Error: unhandled" in b.generated_problems[0].message
        assert s.runtime is not first and s.runtime.running()  # started afresh
        t0 = time.monotonic()
        b = behaviour(s, ok, _function("setTimeout(() => { while (true) {} }, 10); return msg;"), settle=1.0)
        assert time.monotonic() - t0 < 40
        assert b.verdict == "timed out" and b.cell() == "timed out (0/1)"
        (p,) = [p for p in b.generated_problems if p.kind == "timeout"]
        assert p.node_id == "fn" and p.message.startswith("timeout in function f1")
        b = behaviour(s, ok, ok, settle=1.0)  # and the next program runs as usual
        assert b.same
    finally:
        s.close()
        s.runtime.stop()


@pytest.mark.slow
def test_a_runs_limit_cuts_the_remaining_probes(nodered_session):
    flow = _delayed("A", seconds=2)
    t0 = time.monotonic()
    report = run_probes(nodered_session, flow, [Probe("go", inject="in"), Probe("again", inject="in")],
                        settle=0.5, timeout=1.5)
    assert time.monotonic() - t0 < 6
    assert report.verdict() == "timed out"
    assert [o.ended for o in report.observations] == ["busy", "busy"]
    assert report.observations[1].note == "not run: the run's limit of 1.5 s was reached"
    assert any(p.kind == "timeout" and "1 of 2 probes not run" in p.message for p in report.problems)
