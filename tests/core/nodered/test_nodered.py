"""The bridge to the real Node-RED (issue 25): deploy problems per node, probes, runtime lifetime.

One private Node-RED serves the session (``nodered`` fixture in tests/conftest.py); the tests that
must kill a runtime start their own."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio.core.nodered.probe import Probe, compare, default_probes, normalise, observe

ROOT = Path(__file__).resolve().parents[3]
HTTP1 = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"
DEMO = ROOT / "resources" / "demo" / "runtime"


def _tab(*nodes):
    return [{"id": "t1", "type": "tab", "label": "t"}] + [dict(n, z="t1") for n in nodes]


def _inject(id_, to, payload="1", ptype="num", name=""):
    return {"id": id_, "type": "inject", "name": name, "payload": payload, "payloadType": ptype, "topic": "",
            "repeat": "", "once": False, "wires": [[to]]}


def _debug(id_):
    return {"id": id_, "type": "debug", "active": True, "tosidebar": True, "complete": "false", "wires": []}


def _kinds(problems):
    return {(p.kind, p.node_id) for p in problems}


@pytest.mark.slow
def test_http1_deploys_without_problems(nodered_session):
    flow = json.loads(HTTP1.read_text())["flow"]
    result = nodered_session.deploy(flow)
    assert result.problems == []
    for probe in default_probes(flow):
        obs = observe(nodered_session, probe, flow)
        assert obs.note == "" and obs.status == 200
    assert nodered_session.problems() == []


@pytest.mark.slow
def test_each_problem_is_reported_on_its_node(nodered_session):
    flow = _tab(
        {"id": "u1", "type": "no-such-node-type", "wires": []},
        {"id": "tw", "type": "twitter in", "wires": [[]]},
        {"id": "mq", "type": "mqtt in", "broker": "cfg-gone", "topic": "a", "qos": "2", "wires": [[]]},
        _inject("in1", "fn"),
        {"id": "fn", "type": "function", "func": "throw new Error('boom ' + msg.payload);", "outputs": 1,
         "wires": [["d1"]]},
        _debug("d1"),
    )
    result = nodered_session.deploy(flow)
    kinds = _kinds(result.problems)
    assert ("missing-type", "u1") in kinds
    assert ("needs-network", "tw") in kinds
    assert ("config-error", "mq") in kinds
    missing = next(p for p in result.problems if p.node_id == "u1")
    assert "no-such-node-type" in missing.message
    tw = next(p for p in result.problems if p.node_id == "tw")
    assert "Twitter" in tw.message and "node-red-node-twitter" in tw.message
    assert not any(p.node_id == "fn" for p in result.problems)  # nothing ran yet
    obs = observe(nodered_session, Probe("fire", inject="in1"), flow)
    assert obs.debug == []  # the function threw: nothing reached the debug node
    errors = [p for p in nodered_session.problems() if p.node_id == "fn"]
    assert [(p.kind, p.message) for p in errors] == [("runtime-error", "boom 1")]


def test_missing_type_names_its_npm_module(nodered_session):
    flow = _tab({"id": "c1", "type": "cronplus", "wires": [[]]}, {"id": "s1", "type": "sqlite", "wires": [[]]})
    probs = {p.node_id: p.message for p in nodered_session.deploy(flow).problems}
    assert "node-red-contrib-cron-plus" in probs["c1"] and "node-red-node-sqlite" in probs["s1"]


@pytest.mark.slow
def test_probes_separate_structure_from_behaviour(nodered_session):
    from gindex_studio.api import score

    ref = json.loads((DEMO / "reference.json").read_text())
    same = json.loads((DEMO / "same-behaviour.json").read_text())
    const = json.loads((DEMO / "one-constant.json").read_text())
    d_same = score(DEMO / "reference.json", DEMO / "same-behaviour.json").delta
    d_const = score(DEMO / "reference.json", DEMO / "one-constant.json").delta
    assert d_same > 0.3 and 0 < d_const < 0.1  # structure says: const is the closer one

    outcomes, _, _ = compare(nodered_session, ref, same, settle=1.0)
    assert [o.probe.name for o in outcomes] == ["inject 20 °C", "GET /boiling"]
    assert all(o.agrees for o in outcomes)
    assert outcomes[0].reference.debug == ["68"] and outcomes[1].generated.body == {"f": 212}

    outcomes, _, _ = compare(nodered_session, ref, const, settle=1.0)
    assert [o.agrees for o in outcomes] == [False, True]  # behaviour says: const is wrong
    assert outcomes[0].generated.debug == ["66"]


@pytest.mark.slow
def test_a_flow_that_never_goes_quiet_is_bounded_by_the_timeout(nodered_session, monkeypatch):
    from gindex_studio.core.nodered import deploy

    monkeypatch.setattr(deploy, "FUNCTION_TIMEOUT_S", 1)
    # a message loop through a delay node: messages forever, the runtime stays responsive
    flow = _tab(_inject("in1", "ch"),
                {"id": "ch", "type": "change", "rules": [{"t": "set", "p": "payload", "pt": "msg", "to": "payload + 1",
                                                          "tot": "jsonata"}], "wires": [["dl", "d1"]]},
                {"id": "dl", "type": "delay", "pauseType": "delay", "timeout": "20", "timeoutUnits": "milliseconds",
                 "wires": [["ch"]]},
                _debug("d1"))
    nodered_session.deploy(flow)
    t0 = time.monotonic()
    obs = observe(nodered_session, Probe("loop", inject="in1", timeout=1.5), flow)
    assert time.monotonic() - t0 < 4
    assert obs.note == "still busy after 1.5 s" and len(obs.debug) > 5
    # a function that spins forever is stopped by its time limit; the runtime keeps answering
    spin = _tab(_inject("in2", "fn"), {"id": "fn", "type": "function", "func": "while (true) {}", "outputs": 1,
                                        "wires": [[]]})
    nodered_session.deploy(spin)
    nodered_session.fire_inject("in2")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not any(p.node_id == "fn" for p in nodered_session.problems()):
        time.sleep(0.2)
    assert any(p.node_id == "fn" and p.kind == "timeout" and "ran for over 1 s" in p.message
               for p in nodered_session.problems())
    assert nodered_session.runtime.alive()


@pytest.mark.slow
def test_http_probe_without_response_times_out(nodered_session):
    flow = _tab({"id": "h1", "type": "http in", "url": "/never", "method": "get", "wires": [[]]})
    nodered_session.deploy(flow)
    (probe,) = default_probes(flow, timeout=1.0)
    obs = observe(nodered_session, probe, flow)
    assert obs.note == "no response within 1 s" and obs.status is None


def test_normalise_drops_ids_and_times():
    now = time.time() * 1000
    v = {"_msgid": "abc", "payload": now - 5, "when": "2024-05-01T10:00:00Z", "n": 3, "req": {"x": 1}}
    assert normalise(v, now) == {"n": 3, "payload": "<time>", "when": "<time>"}


@pytest.mark.slow
def test_remote_runtime_adds_a_tab_and_removes_it(user_nodered):
    """A user's Node-RED keeps its own flows: the flow goes in as a new tab and is removed."""
    from gindex_studio.core.nodered.deploy import Session
    from gindex_studio.core.nodered.runtime import RemoteRuntime

    own = [{"id": "usertab", "type": "tab", "label": "mine"},
           {"id": "usernode", "type": "comment", "z": "usertab", "name": "keep me", "wires": []}]
    nodered = user_nodered
    status, _ = nodered.request("POST", "/flows", {"flows": own}, headers={"Node-RED-API-Version": "v2"})
    assert status == 200
    remote = RemoteRuntime(nodered.url, nodered.token)
    s = Session(remote)
    try:
        flow = json.loads(HTTP1.read_text())["flow"]
        assert s.deploy(flow).problems == []
        ids = {n["id"] for n in nodered.request("GET", "/flows")[1]}
        assert {"usertab", "usernode"} <= ids and s.prepared.tab in ids
        assert "e19c3c12.21e082" not in ids  # deployed under fresh ids
        obs = observe(s, default_probes(flow)[0], flow)
        assert obs.status == 200
    finally:
        s.close()
    after = {n["id"] for n in nodered.request("GET", "/flows")[1]}
    assert after == {"usertab", "usernode"}
    nodered.request("POST", "/flows", {"flows": []}, headers={"Node-RED-API-Version": "v2"})


def test_bad_token_is_clear(user_nodered):
    from gindex_studio.core.nodered.runtime import NodeRedError, RemoteRuntime

    with pytest.raises(NodeRedError, match="refused the admin token"):
        RemoteRuntime(user_nodered.url, "wrong")


def test_missing_or_old_node_is_one_clear_line(tmp_path, monkeypatch):
    from gindex_studio.core.nodered import install

    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(install.InstallError, match="Node.js is not installed"):
        install.ensure_installed(base=tmp_path / "home")
    old = tmp_path / "node"
    old.write_text("#!/bin/sh\necho v16.20.2\n")
    old.chmod(0o755)
    with pytest.raises(install.InstallError, match=r"Node.js v16.20.2 is too old"):
        install.ensure_installed(base=tmp_path / "home")


@pytest.mark.slow
def test_unreachable_registry_is_one_clear_line(tmp_path, monkeypatch, nodered):
    import shutil

    from gindex_studio.core.nodered import install

    if not shutil.which("npm"):
        pytest.skip("npm is not installed")
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens on the discard port
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "cache"))  # an empty cache: npm must fetch
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    with pytest.raises(install.InstallError, match="cannot reach the npm registry"):
        install.ensure_installed(base=tmp_path / "home")
    assert not install.is_installed(tmp_path / "home")


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie of ours counts as gone
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_crash_mid_run_and_node_never_outlives_python(nodered):
    """Two runtimes of their own: Node.js killed mid-run gives a clear message; a Python process
    killed outright takes its Node.js with it."""
    from gindex_studio.core.nodered.deploy import Session
    from gindex_studio.core.nodered.runtime import NodeRedError, PrivateRuntime

    rt = PrivateRuntime.start(timeout=120)
    s = Session(rt)
    flow = json.loads(HTTP1.read_text())["flow"]
    assert s.deploy(flow).problems == []
    os.kill(rt.pid, signal.SIGKILL)
    rt.proc.wait(10)
    crash = [p for p in s.problems() if p.kind == "runtime-crash"]
    assert len(crash) == 1 and "process exited" in crash[0].message
    with pytest.raises(NodeRedError, match="does not answer.*process exited"):
        s.deploy(flow)
    s.comms.close()
    rt.stop()
    assert not rt.run_dir.exists()

    code = ("import sys, time\n"
            "from gindex_studio.core.nodered.runtime import PrivateRuntime\n"
            "rt = PrivateRuntime.start(timeout=120)\n"
            "print(rt.pid, flush=True)\n"
            "time.sleep(600)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=os.environ)
    try:
        pid = int(child.stdout.readline())
        os.kill(pid, 0)  # Node.js runs
        child.send_signal(signal.SIGKILL)  # no atexit, no finally: only the watchdog can end Node.js
        child.wait(10)
        assert _gone(pid, 15), "Node.js outlived the killed Python process"
    finally:
        if child.poll() is None:
            child.kill()
