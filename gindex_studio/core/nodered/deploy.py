"""Deploy a flow and read, per node, what Node-RED says about it.

:class:`Session` owns a runtime connection and its ``/comms`` websocket. :meth:`Session.deploy`
prepares the flow (nodes of types the runtime lacks and nodes that need the network are left out
and reported, the rest runs; every node is given a tab; function nodes get a time limit so a
loop in their code cannot freeze the runtime), deploys it (the whole flow set on the private
runtime; a new tab that :meth:`Session.close` removes on a remote one), and collects the problems
Node-RED reports: errors and warnings nodes log, red node status, runtime notices.

On a remote runtime (the user's own Node-RED) only the studio's tab is ever added, restarted or
removed (the admin API's ``/flow`` calls restart that tab alone); the tab is marked with
:data:`MARK` (this host and process), and a marked tab whose process has ended (a killed run) is
removed when the next session opens.
"""
from __future__ import annotations

import html
import json
import os
import re
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

from gindex_studio.core.nodered.comms import ERROR, WARN, Comms, Event
from gindex_studio.core.nodered.nodes import network_reason, npm_module
from gindex_studio.core.nodered.runtime import STALL_S, NodeRedError, Runtime
from gindex_studio.core.nodered.sandbox import REFUSED_TYPES

WORKSPACES = ("tab", "subflow", "group")
FUNCTION_TIMEOUT_S = 5  # given to function nodes without a time limit of their own

#: problem kinds: deploy problems (the first four) stop a clean deploy; all are per node.
#: ``refused``: a node the private runtime does not run (it reaches outside the sandbox);
#: ``timeout``: a node that kept the runtime busy past its limit (an endless loop)
KINDS = ("refused", "missing-type", "needs-network", "config-error", "runtime-error", "runtime-warning",
         "status-error", "timeout", "deploy-error", "runtime-crash")

#: a runtime error that says a node tried to reach a host the sandbox has no route to
_NO_NETWORK = re.compile(r"\b(ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\b|getaddrinfo")
_VM_TIMEOUT = re.compile(r"Script execution timed out after (\d+)ms")
#: the environment variable on the tabs the studio adds to a remote runtime: ``host:pid`` of the run
MARK = "GINDEX_STUDIO_RUN"


def one_line(text: Any, limit: int = 300) -> str:
    """``text`` (e.g. an HTML error page) as one line of plain text, at most ``limit`` characters."""
    t = str(text)
    if "<" in t and ">" in t:
        body = re.search(r"<pre>(.*?)</pre>", t, re.S) or re.search(r"<title>(.*?)</title>", t, re.S)
        t = html.unescape(re.sub(r"<[^>]*>", " ", body.group(1) if body else t))
    t = " ".join(t.split())
    return t if len(t) <= limit else t[:limit - 1] + "…"


@dataclass(frozen=True)
class RunProblem:
    """One thing Node-RED (or the studio, for the network) says is wrong with a node."""

    kind: str
    message: str
    node_id: str | None = None
    node_type: str | None = None

    def line(self) -> str:
        where = f"{self.node_type or 'node'} {self.node_id}: " if self.node_id else ""
        return f"{self.kind}: {where}{self.message}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "node": self.node_id, "type": self.node_type}


@dataclass
class Prepared:
    """The flow as deployed: ``nodes`` (deployed ids), the ids mapping back to the file's, the
    problems found before deploying and the ids left out."""

    nodes: list[dict]
    back: dict[str, str]
    forward: dict[str, str]
    problems: list[RunProblem] = field(default_factory=list)
    left_out: set[str] = field(default_factory=set)
    tab: str | None = None


def node_dicts(source: Any) -> list[dict]:
    """The node objects of a flow: a list, a dataset ``{"flow": …}``, ``{"flows": …}`` or a
    gindex ``Flow``."""
    if hasattr(source, "flow") and not isinstance(source, (list, dict)):  # a lenient read
        source = source.flow
    if hasattr(source, "nodes") and not isinstance(source, (list, dict)):
        return [dict(n.data) for n in source.nodes]
    if isinstance(source, dict):
        source = source.get("flow", source.get("flows"))
    if not isinstance(source, list):
        raise ValueError("not a flow: expected a list of node objects")
    return [dict(n) for n in source if isinstance(n, dict) and isinstance(n.get("id"), str)
            and isinstance(n.get("type"), str)]


def _remap(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, list):
        return [_remap(v, ids) for v in value]
    if isinstance(value, dict):
        return {k: _remap(v, ids) for k, v in value.items()}
    return value


def prepare(nodes: list[dict], known_types: set[str], fresh_ids: bool = False, quiet_injects: bool = False,
            refuse: bool = True) -> Prepared:
    """See the module's docstring. ``quiet_injects``: inject nodes fire only when asked (no
    "once", no repeat), so that probes see only what they cause. ``fresh_ids``: give every node a
    new id (for a remote runtime, whose flows may use the same ids); ``back`` maps deployed ids to
    the file's. ``refuse``: nodes of the types the private runtime leaves out
    (``sandbox.REFUSED_TYPES``) are reported ``refused`` and left out."""
    by_id = {n["id"]: n for n in nodes}
    problems: list[RunProblem] = []
    left_out: set[str] = set()
    for n in nodes:
        t = n["type"]
        if t in WORKSPACES or t.startswith("subflow:"):
            continue
        mod = npm_module(n)
        hint = f" (provided by the npm module {mod})" if mod else ""
        try:
            why = network_reason(n, by_id)
        except ValueError as e:  # a URL urllib cannot read
            why = f"an unreadable address ({e})"
        if refuse and t in REFUSED_TYPES:
            problems.append(RunProblem("refused", f"refused: {REFUSED_TYPES[t]} (not run in the studio's sandbox)",
                                       n["id"], t))
            left_out.add(n["id"])
        elif why:  # installing the type would not help on an offline machine: say this first
            also = "" if t in known_types else f"; its type {t!r} is not installed either{hint}"
            problems.append(RunProblem("needs-network", f"needs the network ({why}): not run here{also}", n["id"], t))
            left_out.add(n["id"])
        elif t not in known_types:
            problems.append(RunProblem("missing-type", f"node type {t!r} is not installed{hint}", n["id"], t))
            left_out.add(n["id"])
    tabs = {n["id"] for n in nodes if n["type"] in ("tab", "subflow")}
    forward = {i: (secrets.token_hex(8) if fresh_ids else i) for i in by_id}
    out: list[dict] = []
    default_tab = None
    for n in nodes:
        if n["id"] in left_out:
            continue
        d = dict(n)
        if "wires" in d:  # ports of node ids; anything else (a string, objects) is dropped
            wires = d["wires"] if isinstance(d["wires"], list) else []
            d["wires"] = [[t for t in (p if isinstance(p, list) else [p]) if isinstance(t, str) and t not in left_out]
                          for p in wires]
        if "z" in d and not isinstance(d["z"], str):
            del d["z"]
        if d["type"] not in WORKSPACES:
            z = d.get("z")
            if isinstance(z, str) and z and z not in tabs:
                tabs.add(z)
                out.append({"id": z, "type": "tab", "label": "Flow", "disabled": False, "info": ""})
            elif not z and ("wires" in d or "x" in d):  # a program node without a tab: give it one
                if default_tab is None:
                    default_tab = "gindex-tab-" + secrets.token_hex(4)
                    forward[default_tab] = default_tab
                    out.append({"id": default_tab, "type": "tab", "label": "gindex-studio", "disabled": False,
                                "info": ""})
                d["z"] = default_tab
        if quiet_injects and d["type"] == "inject":
            d.update(once=False, repeat="", crontab="")
        if d["type"] == "function" and not d.get("timeout"):
            d["timeout"] = FUNCTION_TIMEOUT_S
        out.append(d)
    for d in out:  # forward map tabs created above too
        forward.setdefault(d["id"], secrets.token_hex(8) if fresh_ids else d["id"])
    deployed = [_remap(d, forward) for d in out] if fresh_ids else out
    back = {v: k for k, v in forward.items()}
    return Prepared(deployed, back, forward, problems, left_out)


@dataclass
class DeployResult:
    problems: list[RunProblem]
    prepared: Prepared

    @property
    def clean(self) -> bool:
        return not self.problems


class Session:
    """A runtime plus its ``/comms`` connection; deploy flows, read their problems, clean up."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self.prepared: Prepared | None = None
        self._remote_tab: str | None = None
        self._remote_body: dict | None = None
        self._start = 0
        self._started = 0
        self._connect()
        #: marked tabs of ended runs removed from a remote runtime when this session opened
        self.abandoned = [] if runtime.private else remove_abandoned_tabs(runtime)

    def _connect(self) -> None:
        self.comms = Comms(self.runtime)
        self.types = self.runtime.node_types()
        self.settings = self.runtime.request("GET", "/settings")[1] or {}

    def revive(self) -> bool:
        """A private runtime that died or stopped answering is replaced by a fresh one (the comms
        listeners move over); True when that happened. A remote runtime is left alone (False).
        NodeRedError when the new one cannot start."""
        restart = getattr(self.runtime, "restart", None)
        if restart is None:
            return False
        listeners = list(self.comms.listeners)
        self.comms.close()
        self.prepared = None
        self.runtime = restart()
        self._connect()
        self.comms.listeners.extend(listeners)
        return True

    def activity(self) -> int | None:
        """How many timers the deployed flow has pending (a delay, a trigger, a function's
        setTimeout: the private runtime counts them, see resources/nodered/settings.js; 0 on a
        remote runtime, which cannot say), or None when the runtime does not answer within 1 s."""
        if self.comms.closed:
            return None
        if not self.runtime.private:
            return 0
        try:
            status, body = self.runtime.request("GET", "/gindex/activity", timeout=1.0)
        except NodeRedError:
            return None
        return int(body.get("timers", 0)) if status == 200 and isinstance(body, dict) else 0

    def running(self) -> bool:
        """False when the runtime's process has ended (a remote one: when /comms closed)."""
        running = getattr(self.runtime, "running", None)
        return running() if running is not None else not self.comms.closed

    def ended(self, within: float) -> bool:
        """Whether the runtime's process ends within ``within`` seconds (a request to it just failed)."""
        end = time.monotonic() + within
        while self.running():
            if time.monotonic() >= end:
                return False
            time.sleep(0.05)
        return True

    def ours(self, ev: Event) -> bool:
        """Whether ``ev`` is about the deployed flow (not another tab's node of a user's runtime)."""
        return self.file_id(ev.node_id) is not None

    # ----- deploying ---------------------------------------------------------------------------
    def deploy(self, source: Any, settle: float = 0.5, quiet_injects: bool = False,
               timeout: float = 30.0) -> DeployResult:
        """Deploy the flow (see the module's docstring); problems found on the way and while the flow
        starts (``settle`` seconds after Node-RED accepted it), all within about ``timeout``
        seconds. NodeRedError when the runtime fails."""
        end = time.monotonic() + timeout
        nodes = node_dicts(source)
        remote = not self.runtime.private
        self.remove()
        prepared = prepare(nodes, self.types, fresh_ids=remote, quiet_injects=quiet_injects,
                           refuse=self.runtime.private)
        self._start = self.comms.position
        if remote:
            tab = "gindex-" + secrets.token_hex(6)
            body_nodes = [dict(n, z=tab) if n.get("z") and n["type"] not in WORKSPACES else n
                          for n in prepared.nodes if n["type"] != "tab"]
            self._remote_body = {"id": tab, "label": "gindex-studio run", "env": [
                {"name": MARK, "type": "str", "value": f"{socket.gethostname()}:{os.getpid()}"}],
                "info": "Added by gindex-studio for one run of a flow and removed when it ends.",
                "nodes": [n for n in body_nodes if n.get("z")], "configs": [n for n in body_nodes if not n.get("z")]}
            status, body = self._post_remote_tab(max(1.0, end - time.monotonic()))
            prepared.tab = self._remote_tab
        else:
            status, body = self.runtime.request("POST", "/flows", {"flows": prepared.nodes}, headers={
                "Node-RED-API-Version": "v2", "Node-RED-Deployment-Type": "full"},
                timeout=max(1.0, end - time.monotonic()))
        self.prepared = prepared
        if status in (200, 204):
            self.wait_started(self._start, min(10.0, max(0.5, end - time.monotonic())))
        if status not in (200, 204):
            msg = body.get("message", body) if isinstance(body, dict) else body
            return DeployResult(prepared.problems + [RunProblem("deploy-error", f"Node-RED refused the flow "
                                                                f"(HTTP {status}): {one_line(msg)}")], prepared)
        time.sleep(0.1)  # comms batches events every 50 ms: errors raised while nodes start arrive by now
        self._started = self.comms.position
        time.sleep(settle)
        return DeployResult(prepared.problems + self.problems(self._start, starting=True), prepared)

    def _post_remote_tab(self, timeout: float = 30.0) -> tuple[int, Any]:
        """Add the studio's marked tab to the remote runtime (its other flows keep running)."""
        status, body = self.runtime.request("POST", "/flow", self._remote_body, timeout=timeout)
        if status == 200 and isinstance(body, dict):
            self._remote_tab = body.get("id", self._remote_body["id"])
        return status, body

    def remove(self) -> None:
        """Take the deployed flow away: delete the tab on a remote runtime (nothing else there is
        touched); on the private one an empty flow set is deployed."""
        if self._remote_tab:
            try:
                self.runtime.request("DELETE", f"/flow/{self._remote_tab}")
            finally:
                self._remote_tab = None
                self._remote_body = None
        elif self.prepared is not None and self.runtime.private:
            self.runtime.request("POST", "/flows", {"flows": []}, headers={
                "Node-RED-API-Version": "v2", "Node-RED-Deployment-Type": "full"})
        self.prepared = None

    def wait_started(self, pos: int, timeout: float = 10.0) -> bool:
        """Wait for Node-RED's notice that the flows started (it answers a deploy before every node
        has started). False when no such notice came within ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for ev in self.comms.events_since(pos):
                if (ev.kind == "notification" and ev.data.get("topic") == "notification/runtime-state"
                        and (ev.data.get("state") == "start" or ev.data.get("error"))):
                    return True
            time.sleep(0.02)
        return False

    def redeploy(self) -> None:
        """Restart the deployed flow (fresh node state), e.g. between probes."""
        if self.prepared is None:
            return
        pos = self.comms.position
        if self.runtime.private:
            self.runtime.request("POST", "/flows", {"flows": self.prepared.nodes}, headers={
                "Node-RED-API-Version": "v2", "Node-RED-Deployment-Type": "full"}, timeout=30)
        elif self._remote_tab and self._remote_body:  # only the studio's tab: taken away and added again
            self.runtime.request("DELETE", f"/flow/{self._remote_tab}")
            self._remote_tab = None
            self._post_remote_tab()
        self.wait_started(pos)

    # ----- reading ---------------------------------------------------------------------------
    def file_id(self, deployed_id: str | None) -> str | None:
        """The flow file's id of a deployed node id (None when it is not one of ours)."""
        if deployed_id is None or self.prepared is None:
            return None
        if deployed_id in self.prepared.back:
            return self.prepared.back[deployed_id]
        tail = deployed_id.split("-")[-1]  # nodes inside subflow instances: path ids
        return self.prepared.back.get(tail)

    def node_type(self, file_id: str | None) -> str | None:
        if file_id is None or self.prepared is None:
            return None
        deployed = self.prepared.forward.get(file_id, file_id)
        for n in self.prepared.nodes:
            if n["id"] == deployed:
                return n["type"]
        return None

    def problems(self, since: int | None = None, starting: bool = False, wait: float | None = None
                 ) -> list[RunProblem]:
        """Problems in the events from ``since`` on (default: since the last deploy), one per node,
        kind and message. ``starting``: errors count as ``config-error`` (raised while nodes start).
        A runtime that does not answer is given up to ``wait`` seconds (default: its watchdog's
        limit and 3 s) to answer or be ended by its watchdog (then the crash is one of the
        problems)."""
        if wait is None:
            limits = getattr(self.runtime, "limits", None)
            wait = (limits.stall_s if limits is not None else STALL_S) + 3
        events = self.comms.events_since(self._start if since is None else since)
        out: list[RunProblem] = []
        seen: set[tuple] = set()
        for ev in events:
            p = self._problem(ev, starting)
            if p is not None and (p.kind, p.node_id, p.message) not in seen:
                seen.add((p.kind, p.node_id, p.message))
                out.append(p)
        if not self.runtime.alive() and not self._recovers(wait):
            out.append(self._crash())
        return out

    def _recovers(self, wait: float) -> bool:
        """A private runtime that does not answer but still runs is either busy for a moment or
        stuck in a loop that its watchdog ends: wait for one or the other (at most ``wait``
        seconds). True when it answers again."""
        running = getattr(self.runtime, "running", None)
        if running is None:
            return False
        end = time.monotonic() + wait
        while running() and time.monotonic() < end:
            if self.runtime.alive():
                return True
        return False

    def _crash(self) -> RunProblem:
        """The runtime died: a ``timeout`` on the node the watchdog named (an endless loop), else a
        ``runtime-crash`` (on the function node that last received a message, when there is one)."""
        stall = getattr(self.runtime, "stall", None)
        node = stall.get("node") if isinstance(stall, dict) and isinstance(stall.get("node"), dict) else None
        fid = self.file_id(node.get("id")) if node else None
        if stall:
            return RunProblem("timeout", self.runtime.why_down().lstrip(": "), fid, self.node_type(fid))
        if getattr(self.runtime, "running", lambda: False)():
            return RunProblem("timeout", "the runtime stopped answering (an endless loop?) and was stopped")
        last = getattr(self.runtime, "last_node", None)  # the function node running when it died
        fid = self.file_id(last.get("id")) if isinstance(last, dict) else None
        return RunProblem("runtime-crash", "Node-RED stopped while the flow ran" + self.runtime.why_down(), fid,
                          self.node_type(fid))

    def _label(self, file_id: str | None) -> str:
        if file_id is None or self.prepared is None:
            return "?"
        deployed = self.prepared.forward.get(file_id, file_id)
        for n in self.prepared.nodes:
            if n["id"] == deployed:
                return str(n.get("name") or file_id)
        return file_id

    def _problem(self, ev: Event, starting: bool) -> RunProblem | None:
        fid = self.file_id(ev.node_id)
        if ev.kind == "debug" and ev.level in (ERROR, WARN):
            if fid is None and ev.node_id is not None:
                return None  # another tab's node on a remote runtime
            if fid is None and ev.level == WARN:
                return None  # the runtime's own notices (e.g. "Encrypted credentials not found"), not the flow's
            text = error_text(ev.value)
            on_start = ev.seq < self._started
            kind = "runtime-warning" if ev.level == WARN else ("config-error" if on_start else "runtime-error")
            ntype = self.node_type(fid) or ev.data.get("type")
            if ev.level == ERROR and _NO_NETWORK.search(text):
                return RunProblem("needs-network", f"needs the network ({text}): the sandbox has none", fid, ntype)
            timed_out = _VM_TIMEOUT.search(text)
            if ev.level == ERROR and timed_out:
                secs = int(timed_out.group(1)) / 1000
                return RunProblem("timeout", f"timeout in {ntype or 'node'} {self._label(fid)}: its code ran "
                                             f"for over {secs:g} s and was stopped", fid, ntype)
            return RunProblem(kind, text, fid, ntype)
        if ev.kind == "status" and fid is not None and ev.data.get("fill") == "red":
            return RunProblem("status-error", f"status: {ev.data.get('text') or 'red'}", fid, self.node_type(fid))
        if ev.kind == "notification" and ev.data.get("error") == "missing-types":
            return None  # reported from the node list before deploying (left out of the deploy)
        return None

    def debug_messages(self, since: int = 0) -> list[Event]:
        """Messages that reached debug nodes (not log records) from ``since`` on."""
        return [e for e in self.comms.events_since(since) if e.kind == "debug" and e.level is None]

    def fire_inject(self, file_id: str) -> None:
        """Fire an inject node of the deployed flow (as its button in the editor does)."""
        deployed = self.prepared.forward.get(file_id, file_id) if self.prepared else file_id
        status, body = self.runtime.request("POST", f"/inject/{deployed}")
        if status != 200:
            raise NodeRedError(f"inject node {file_id} could not be fired (HTTP {status}: {body})")

    def close(self) -> None:
        try:
            self.remove()
        except NodeRedError:
            pass
        self.comms.close()


def remove_abandoned_tabs(runtime: Runtime) -> list[str]:
    """Remove from a remote runtime the tabs marked :data:`MARK` by a run on this host whose
    process has ended (a killed run); their ids. Tabs of live runs and of other hosts stay."""
    status, flows = runtime.request("GET", "/flows")
    if status != 200 or not isinstance(flows, list):
        return []
    host, gone = socket.gethostname(), []
    for n in flows:
        if not (isinstance(n, dict) and n.get("type") == "tab" and isinstance(n.get("env"), list)):
            continue
        mark = next((e.get("value") for e in n["env"] if isinstance(e, dict) and e.get("name") == MARK), None)
        owner, _, pid = str(mark or "").rpartition(":")
        if owner == host and pid.isdigit() and not _alive(int(pid)):
            if runtime.request("DELETE", f"/flow/{n['id']}")[0] in (200, 204):
                gone.append(n["id"])
    return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def error_text(value: Any) -> str:
    """One line for a logged error value (an encoded Error object becomes ``Name: message``)."""
    if isinstance(value, dict):
        data = value.get("data") if value.get("__enc__") else value
        if isinstance(data, dict) and "message" in data:
            name = data.get("name")
            return f"{name}: {data['message']}" if name and name != "Error" else str(data["message"])
        return json.dumps(value)
    return str(value).strip().splitlines()[0] if str(value).strip() else ""


def problems_lines(problems: Iterable[RunProblem]) -> list[str]:
    return [p.line() for p in problems]
