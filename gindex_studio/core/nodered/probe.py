"""Behavioural probes: the same inputs to two programs, their observations compared.

A probe is an input — fire an inject node, or an HTTP request to an ``http in`` path (method,
headers, body) — and what follows it: the messages reaching debug nodes (as a multiset of values:
the two programs' debug nodes are different nodes) and, for a request, the response's status and
body, and the errors its nodes log. Observations are normalised: ``_msgid`` and other per-message
bookkeeping, ``req``/``res`` objects and timestamps are left out. Each probe runs on a freshly
restarted flow.

A probe is over when the flow has been quiet for ``settle`` seconds (default :data:`SETTLE_S`: no
event of its nodes, no timer of its pending — a delay, a trigger, a function's setTimeout — no
request open), or at its limit: the probe's own ``timeout`` or the run's deadline (default
:data:`RUN_TIMEOUT_S` for all the probes of one program). A runtime that stops answering is not
"quiet": the probe ends with the runtime's fate (stopped by its watchdog, crashed, or still stuck
at the limit), the program's remaining probes are not run, and a private runtime is started
afresh for the next program.

A task file may carry ``"probes": [...]`` (see :meth:`Probe.from_dict`); without them
:func:`default_probes` fires every inject node once and requests every ``http in`` endpoint.
"""
from __future__ import annotations

import json
import math
import re
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from gindex_studio.core.nodered.comms import ERROR
from gindex_studio.core.nodered.deploy import RunProblem, Session, error_text, node_dicts
from gindex_studio.core.nodered.runtime import NodeRedError

#: seconds a flow must be quiet (no event, no pending timer) before a probe is over
SETTLE_S = 2.0
#: seconds one program's run (its deploy and all its probes) may take
RUN_TIMEOUT_S = 60.0
#: how an observation ended besides "quiet": still active at its limit, the runtime not
#: answering at its limit, the runtime gone
BUSY, STUCK, STOPPED = "busy", "stuck", "stopped"

DROP_KEYS = frozenset({"_msgid", "_event", "_linkSource", "_session", "req", "res", "_parts"})
_ISO = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$")


@dataclass
class Probe:
    """One input. ``inject``: the inject node to fire, by name or id (default probes: its id in the
    reference, with ``match`` — payload, topic, position — to find its counterpart elsewhere);
    else an HTTP request: ``method``, ``path``, ``headers``, ``body``. ``timeout``: this probe's
    own limit in seconds (None: the run's deadline alone)."""

    name: str
    inject: str | None = None
    match: dict = field(default_factory=dict)
    method: str = "GET"
    path: str | None = None
    headers: dict = field(default_factory=dict)
    body: Any = None
    timeout: float | None = None

    @classmethod
    def from_dict(cls, d: dict) -> "Probe":
        """``{"inject": "name or id"}`` or ``{"request": {"method", "path", "headers", "body"}}``, plus
        optional ``name`` and ``timeout`` (positive seconds). ValueError on anything else."""
        if not isinstance(d, dict):
            raise ValueError(f"a probe must be an object, not {d!r}")
        timeout = d.get("timeout")
        if timeout is not None:
            timeout = seconds(timeout, "a probe's timeout")
        if isinstance(d.get("inject"), str):
            return cls(d.get("name") or f"inject {d['inject']}", inject=d["inject"], timeout=timeout)
        r = d.get("request")
        if isinstance(r, dict) and isinstance(r.get("path"), str):
            method = str(r.get("method", "GET")).upper()
            return cls(d.get("name") or f"{method} {r['path']}", method=method, path=r["path"],
                       headers=dict(r.get("headers") or {}), body=r.get("body"), timeout=timeout)
        raise ValueError(f"a probe needs \"inject\" or \"request\" with a \"path\": {json.dumps(d)[:120]}")

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, {}, "")}


def seconds(value: Any, what: str = "a time") -> float:
    """``value`` as a finite, positive number of seconds; ValueError (one line) otherwise."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number of seconds, not {value!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{what} must be a positive, finite number of seconds, not {value!r}")
    return v


def _inject_signature(n: dict) -> tuple:
    return (str(n.get("payloadType", "")), json.dumps(n.get("payload"), sort_keys=True), str(n.get("topic", "")))


#: how long a default probe's request waits for an ``http in`` endpoint's answer (``timeout`` of
#: :func:`default_probes` otherwise): an endpoint that never answers is found in seconds, not at
#: the end of the run's limit
HTTP_WAIT_S = 10.0


def default_probes(source: Any, timeout: float | None = None) -> list[Probe]:
    """Fire every inject node once (file order), request every ``http in`` endpoint. ``timeout``:
    each probe's limit (None: an inject is bounded by the run's limit, a request by
    :data:`HTTP_WAIT_S`)."""
    nodes = node_dicts(source)
    out: list[Probe] = []
    injects = [n for n in nodes if n["type"] == "inject"]
    for k, n in enumerate(injects):
        label = n.get("name") or f"#{k + 1}"
        out.append(Probe(f"inject {label}", inject=n["id"], timeout=timeout,
                         match={"name": n.get("name") or "", "signature": list(_inject_signature(n)), "index": k}))
    for n in nodes:
        if n["type"] == "http in" and isinstance(n.get("url"), str):
            method = str(n.get("method") or "get").upper()
            method = "GET" if method == "ALL" else method
            path = re.sub(r":\w+", "1", n["url"] if n["url"].startswith("/") else "/" + n["url"])
            body = {"value": 1} if method in ("POST", "PUT", "PATCH") else None
            out.append(Probe(f"{method} {path}", method=method, path=path, body=body,
                             timeout=timeout if timeout is not None else HTTP_WAIT_S))
    return out


def task_probes(value: Any) -> list[Probe] | None:
    """The ``probes`` a task file carries (None when it has none)."""
    if isinstance(value, dict) and isinstance(value.get("probes"), list):
        return [Probe.from_dict(p) for p in value["probes"]]
    return None


def find_inject(probe: Probe, nodes: list[dict]) -> str | None:
    """The inject node ``probe`` fires in this program: by id or name; for a default probe, the one
    with the same name, else the only one with the same payload and topic, else the one at the
    same position."""
    injects = [n for n in nodes if n["type"] == "inject"]
    for n in injects:
        if probe.inject in (n["id"], n.get("name")) and not probe.match:
            return n["id"]
    m = probe.match
    if not m:
        return None
    if m.get("name"):
        named = [n for n in injects if n.get("name") == m["name"]]
        if len(named) == 1:
            return named[0]["id"]
    same = [n for n in injects if list(_inject_signature(n)) == m.get("signature")]
    if len(same) == 1:
        return same[0]["id"]
    k = m.get("index", -1)
    return injects[k]["id"] if 0 <= k < len(injects) else None


def normalise(value: Any, now_ms: float | None = None) -> Any:
    """``value`` without per-run noise: bookkeeping keys dropped, timestamps (epoch milliseconds
    within a day of now, ISO date-times) replaced by ``"<time>"``."""
    now_ms = now_ms if now_ms is not None else time.time() * 1000
    if isinstance(value, dict):
        return {k: normalise(v, now_ms) for k, v in sorted(value.items()) if k not in DROP_KEYS}
    if isinstance(value, list):
        return [normalise(v, now_ms) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - now_ms) < 86_400_000:
        return "<time>"
    if isinstance(value, str) and _ISO.match(value.strip()):
        return "<time>"
    return value


@dataclass
class Observation:
    """What a probe saw: debug values (sorted canonical JSON), the errors the flow's nodes logged
    (sorted), the HTTP response, and a note when it could not run or did not end quietly
    (``ended``: "quiet", or :data:`BUSY`, :data:`STUCK`, :data:`STOPPED`; "" when not run)."""

    debug: list[str] = field(default_factory=list)
    status: int | None = None
    body: Any = None
    note: str = ""
    errors: list[str] = field(default_factory=list)
    ended: str = "quiet"

    def key(self) -> tuple:
        return (tuple(self.debug), tuple(self.errors), self.status, json.dumps(self.body, sort_keys=True), self.note)

    def to_dict(self) -> dict:
        d = {"debug": [json.loads(x) for x in self.debug]}
        if self.errors:
            d["errors"] = list(self.errors)
        if self.status is not None:
            d.update(status=self.status, body=self.body)
        if self.note:
            d["note"] = self.note
        return d

    def summary(self) -> str:
        parts = []
        if self.status is not None:
            parts.append(f"HTTP {self.status} {json.dumps(self.body)[:60]}")
        if self.debug:
            parts.append("debug " + ", ".join(x[:40] for x in self.debug[:4]) + (" …" if len(self.debug) > 4 else ""))
        if self.errors:
            parts.append("error " + "; ".join(x[:60] for x in self.errors[:2]) + (" …" if len(self.errors) > 2 else ""))
        if self.note:
            parts.append(self.note)
        return "; ".join(parts) or "nothing"


def _http(runtime, probe: Probe, result: dict, timeout: float) -> None:
    data = None
    headers = {str(k): str(v) for k, v in probe.headers.items()}
    if probe.body is not None:
        if isinstance(probe.body, str):
            data = probe.body.encode()
        else:
            data = json.dumps(probe.body).encode()
            headers.setdefault("Content-Type", "application/json")
    try:
        r = runtime.transport.http(probe.method, probe.path, data, headers, timeout)
        result.update(status=r.status, raw=r.body, ctype=r.content_type)
    except OSError as e:
        result.update(error=str(e) or type(e).__name__)


def _body(raw: bytes, ctype: str) -> Any:
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def wait_settled(session: Session, pos: int, settle: float, end: float, busy=lambda: False) -> str:
    """Wait until the deployed flow has been quiet for ``settle`` seconds (no event of its nodes
    from ``pos`` on, no timer of its pending, ``busy()`` false, no message still coming in on the
    websocket, the runtime answering), at most
    until ``end`` (``time.monotonic()``). "quiet", or :data:`BUSY` / :data:`STUCK` (not answering)
    at ``end``, or :data:`STOPPED` when the runtime ended."""
    last = time.monotonic()
    seen = pos
    while True:
        events = session.comms.events_since(seen)
        seen += len(events)
        for ev in events:
            if session.ours(ev):
                last = max(last, ev.time)
        timers = session.activity()
        now = time.monotonic()
        if timers is None and not session.running():
            return STOPPED
        if timers is None or timers or busy() or session.comms.receiving:
            last = now if timers is not None else last
            state = STUCK if timers is None else BUSY
        elif now - last >= settle:
            return "quiet"
        else:
            state = BUSY
        if now >= end:
            return state
        time.sleep(min(0.1, max(0.0, end - now)))


def observe(session: Session, probe: Probe, nodes: list[dict], settle: float = SETTLE_S,
            deadline: float | None = None) -> Observation:
    """Run one probe on the flow deployed in ``session`` (``nodes``: its file nodes); it is over
    when the flow is quiet for ``settle`` seconds, at the probe's timeout or at ``deadline``
    (``time.monotonic()``; default: :data:`RUN_TIMEOUT_S` from now)."""
    begin = time.monotonic()
    ends = [deadline if deadline is not None else begin + RUN_TIMEOUT_S]
    if probe.timeout is not None:
        ends.append(begin + probe.timeout)
    end = min(ends)
    pos = session.comms.position
    busy = lambda: False  # noqa: E731
    result: dict = {}
    if probe.path is None:
        target = find_inject(probe, nodes)
        if target is None or (session.prepared and target in session.prepared.left_out):
            return Observation(note="no matching inject node", ended="")
        try:
            session.fire_inject(target)
        except NodeRedError:
            if not session.ended(within=3.0):
                raise
            return Observation(note="the runtime stopped" + session.runtime.why_down(), ended=STOPPED)
    else:
        limit = max(0.1, end - time.monotonic())
        t = threading.Thread(target=_http, args=(session.runtime, probe, result, limit), daemon=True)
        t.start()
        busy = t.is_alive
    ended = wait_settled(session, pos, settle, end, busy)
    now = time.time() * 1000
    events = [e for e in session.comms.events_since(pos) if e.kind == "debug" and session.ours(e)]
    values = [json.dumps(normalise(e.value, now), sort_keys=True) for e in events if e.level is None]
    errors = [error_text(e.value) for e in events if e.level == ERROR]
    obs = Observation(debug=sorted(values), errors=sorted(errors), ended=ended)
    waited = f"{round(end - begin, 1):g}"
    if probe.path is not None:
        if "status" in result:
            obs.status, obs.body = result["status"], normalise(_body(result["raw"], result.get("ctype", "")), now)
        elif "error" in result and "timed out" not in result["error"] and ended != STOPPED:
            obs.note = f"request failed: {result['error']}"
        elif ended not in (STOPPED, STUCK):
            obs.note = f"no response within {waited} s"
    if ended == STOPPED:
        obs.note = "the runtime stopped" + session.runtime.why_down()
    elif ended == STUCK:
        obs.note = f"the runtime stopped answering (an endless loop?) within {waited} s"
    elif ended == BUSY and not obs.note:
        obs.note = f"still busy after {waited} s"
    return obs


@dataclass
class ProbeOutcome:
    probe: Probe
    reference: Observation
    generated: Observation

    @property
    def agrees(self) -> bool:
        """Both ran the probe to its end and saw the same (a probe that was not run, or whose
        runtime stopped, agrees with nothing)."""
        ran = all(o.ended not in ("", STOPPED, STUCK) for o in (self.reference, self.generated))
        return ran and self.reference.key() == self.generated.key()

    def to_dict(self) -> dict:
        return {"probe": self.probe.to_dict(), "agrees": self.agrees, "reference": self.reference.to_dict(),
                "generated": self.generated.to_dict()}


@dataclass
class RunReport:
    """One program run on the probes: the deploy problems, an observation per probe and the
    program's verdict (:meth:`verdict`)."""

    problems: list[RunProblem]
    observations: list[Observation]

    def verdict(self) -> str:
        """"ran", "does not run" (a missing or refused type, a refused deploy), "crashed" (the
        runtime died) or "timed out" (a node ran past its limit, the runtime stopped answering, or
        a probe was still busy at its limit)."""
        kinds = {p.kind for p in self.problems}
        if kinds & {"missing-type", "refused", "deploy-error"}:
            return "does not run"
        if "runtime-crash" in kinds:
            return "crashed"
        if "timeout" in kinds or any(o.ended in (BUSY, STUCK) for o in self.observations):
            return "timed out"
        return "ran"


def run_probes(session: Session, source: Any, probes: list[Probe], settle: float = SETTLE_S,
               timeout: float = RUN_TIMEOUT_S) -> RunReport:
    """Deploy ``source`` (injects fire only when probed) and observe each probe on a fresh start,
    all within ``timeout`` seconds. When the runtime stops or is stuck, the remaining probes are
    not run and a private runtime is started afresh (``session.revive``) for what comes next.
    NodeRedError when the runtime cannot be reached at all."""
    deadline = time.monotonic() + timeout
    nodes = node_dicts(source)
    result = session.deploy(nodes, settle=0.2, quiet_injects=True, timeout=timeout)
    obs: list[Observation] = []
    problems = list(result.problems)
    for k, p in enumerate(probes):
        if time.monotonic() >= deadline:
            obs += [Observation(note=f"not run: the run's limit of {timeout:g} s was reached", ended=BUSY)
                    for _ in probes[k:]]
            problems.append(RunProblem("timeout", f"the run's limit of {timeout:g} s was reached with "
                                                  f"{len(probes) - k} of {len(probes)} probes not run"))
            break
        if k:
            session.redeploy()
        o = observe(session, p, nodes, settle, deadline)
        obs.append(o)
        if o.ended in (STOPPED, STUCK):
            obs += [Observation(note="not run: the runtime stopped", ended="") for _ in probes[k + 1:]]
            break
    stopped = any(o.ended in (STOPPED, STUCK) for o in obs)
    problems += [q for q in session.problems(wait=0 if stopped else 3.0) if q not in problems]
    if stopped:
        session.revive()
    return RunReport(problems, obs)


def compare(session: Session, reference: Any, generated: Any, probes: list[Probe] | None = None,
            settle: float = SETTLE_S, timeout: float = RUN_TIMEOUT_S
            ) -> tuple[list[ProbeOutcome], RunReport, RunReport]:
    """Both programs on the same probes (the task's, else the reference's default probes), each
    run within ``timeout`` seconds."""
    probes = probes if probes is not None else (task_probes(reference) or default_probes(reference))
    ref = run_probes(session, reference, probes, settle, timeout)
    gen = run_probes(session, generated, probes, settle, timeout)
    session.remove()
    return [ProbeOutcome(p, r, g) for p, r, g in zip(probes, ref.observations, gen.observations)], ref, gen
