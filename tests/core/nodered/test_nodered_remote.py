"""The user's own Node-RED (issue 31, item 5): the studio's tab is added, restarted and removed
alone (the user's flows are not restarted), a busy tab of the user's causes no false timeout,
and a marked tab left by a killed run is removed by the next one. The ``user_nodered`` fixture
stands for the user's Node-RED."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio.core.nodered.deploy import MARK, Session
from gindex_studio.core.nodered.probe import compare
from gindex_studio.core.nodered.runtime import RemoteRuntime

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "resources" / "demo" / "runtime"

#: the user's flows: a busy tab (a message every 0.1 s) and a counter of its own starts
USERS = [
    {"id": "busy", "type": "tab", "label": "busy"},
    {"id": "tick", "type": "inject", "z": "busy", "repeat": "0.1", "once": True, "onceDelay": 0.1,
     "payload": "", "payloadType": "date", "topic": "", "wires": [["tock"]]},
    {"id": "tock", "type": "debug", "z": "busy", "active": True, "tosidebar": True, "complete": "false", "wires": []},
    {"id": "hin", "type": "http in", "z": "busy", "url": "/starts", "method": "get", "wires": [["count"]]},
    {"id": "count", "type": "function", "z": "busy", "func": "msg.payload = context.get('starts'); return msg;",
     "initialize": "context.set('starts', (context.get('starts') || 0) + 1);", "outputs": 1, "wires": [["hres"]]},
    {"id": "hres", "type": "http response", "z": "busy", "wires": []},
]


def _starts(user_nodered) -> int:
    return json.loads(user_nodered.http("GET", "/starts").body)


def _ids(user_nodered) -> set[str]:
    return {n["id"] for n in user_nodered.request("GET", "/flows")[1]}


@pytest.mark.slow
def test_probes_on_the_users_node_red_restart_only_their_own_tab(user_nodered):
    assert user_nodered.request("POST", "/flows", {"flows": USERS}, headers={
        "Node-RED-API-Version": "v2", "Node-RED-Deployment-Type": "full"})[0] == 200
    try:
        time.sleep(0.5)
        assert _starts(user_nodered) == 1
        s = Session(RemoteRuntime(user_nodered.url, user_nodered.token))
        try:
            ref = json.loads((DEMO / "reference.json").read_text())
            same = json.loads((DEMO / "same-behaviour.json").read_text())
            outcomes, ref_run, gen_run = compare(s, ref, same, settle=1.0, timeout=20)
        finally:
            s.close()
        # the busy tab's messages never kept a probe from ending: no false timeout
        assert [o.agrees for o in outcomes] == [True, True], [o.to_dict() for o in outcomes]
        assert all(o.reference.ended == o.generated.ended == "quiet" for o in outcomes)
        assert ref_run.verdict() == gen_run.verdict() == "ran"
        assert _starts(user_nodered) == 1  # two deploys, four probes: the user's flow never restarted
        assert _ids(user_nodered) == {n["id"] for n in USERS}
    finally:
        user_nodered.request("POST", "/flows", {"flows": []}, headers={"Node-RED-API-Version": "v2"})


def test_a_tab_left_by_a_killed_run_is_removed_by_the_next_one(user_nodered, tmp_path):
    flow = [{"id": "t", "type": "tab"},
            {"id": "i", "type": "inject", "z": "t", "payload": "1", "payloadType": "num", "wires": [["dl"]]},
            {"id": "dl", "type": "delay", "z": "t", "pauseType": "delay", "timeout": "60", "timeoutUnits": "seconds",
             "wires": [[]]}]
    path = tmp_path / "slow.json"
    path.write_text(json.dumps(flow))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-m", "gindex_studio", "run", str(path), "--node-red", user_nodered.url,
                              "--token", "-", "--trust-flows"], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    child.stdin.write(user_nodered.token + "\n")
    child.stdin.close()
    try:
        deadline, marked = time.monotonic() + 60, []
        while time.monotonic() < deadline and not marked:
            marked = [n for n in user_nodered.request("GET", "/flows")[1]
                      if n.get("type") == "tab" and any(e.get("name") == MARK for e in n.get("env", []))]
            time.sleep(0.2)
        assert marked, "the run's tab never appeared"
        assert marked[0]["env"][0]["value"].endswith(f":{child.pid}")
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        assert marked[0]["id"] in _ids(user_nodered)  # left behind
        # a live run's tab (this process's) stays
        mine = {"id": "live-tab", "label": "live", "nodes": [],
                "env": [{"name": MARK, "type": "str", "value": f"{os.uname().nodename}:{os.getpid()}"}]}
        status, live = user_nodered.request("POST", "/flow", mine)
        assert status == 200
        s = Session(RemoteRuntime(user_nodered.url, user_nodered.token))
        s.close()
        assert s.abandoned == [marked[0]["id"]]
        assert _ids(user_nodered) == {live["id"]}
    finally:
        if child.poll() is None:
            child.kill()
        user_nodered.request("POST", "/flows", {"flows": []}, headers={"Node-RED-API-Version": "v2"})
