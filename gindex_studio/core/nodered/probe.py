"""Behavioural probes: the same inputs to two programs, their observations compared.

A probe is an input — fire an inject node, or an HTTP request to an ``http in`` path (method,
headers, body) — and what follows it: the messages reaching debug nodes (as a multiset of values:
the two programs' debug nodes are different nodes) and, for a request, the response's status and
body. Observations are normalised: ``_msgid`` and other per-message bookkeeping, ``req``/``res``
objects and timestamps are left out. Each probe runs on a freshly restarted flow and is bounded by
its timeout (a flow that never goes quiet, or never answers, is observed as timed out).

A task file may carry ``"probes": [...]`` (see :meth:`Probe.from_dict`); without them
:func:`default_probes` fires every inject node once and requests every ``http in`` endpoint.
"""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from gindex_studio.core.nodered.deploy import RunProblem, Session, node_dicts

DROP_KEYS = frozenset({"_msgid", "_event", "_linkSource", "_session", "req", "res", "_parts"})
_ISO = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$")


@dataclass
class Probe:
    """One input. ``inject``: the inject node to fire, by name or id (default probes: its id in the
    reference, with ``match`` — payload, topic, position — to find its counterpart elsewhere);
    else an HTTP request: ``method``, ``path``, ``headers``, ``body``. ``timeout`` in seconds."""

    name: str
    inject: str | None = None
    match: dict = field(default_factory=dict)
    method: str = "GET"
    path: str | None = None
    headers: dict = field(default_factory=dict)
    body: Any = None
    timeout: float = 5.0

    @classmethod
    def from_dict(cls, d: dict) -> "Probe":
        """``{"inject": "name or id"}`` or ``{"request": {"method", "path", "headers", "body"}}``, plus
        optional ``name`` and ``timeout``. ValueError on anything else."""
        if not isinstance(d, dict):
            raise ValueError(f"a probe must be an object, not {d!r}")
        timeout = float(d.get("timeout", 5.0))
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


def _inject_signature(n: dict) -> tuple:
    return (str(n.get("payloadType", "")), json.dumps(n.get("payload"), sort_keys=True), str(n.get("topic", "")))


def default_probes(source: Any, timeout: float = 5.0) -> list[Probe]:
    """Fire every inject node once (file order), request every ``http in`` endpoint."""
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
            out.append(Probe(f"{method} {path}", method=method, path=path, body=body, timeout=timeout))
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
    """What a probe saw: debug values (sorted canonical JSON), the HTTP response, and a note when
    it could not run or timed out."""

    debug: list[str] = field(default_factory=list)
    status: int | None = None
    body: Any = None
    note: str = ""

    def key(self) -> tuple:
        return (tuple(self.debug), self.status, json.dumps(self.body, sort_keys=True), self.note)

    def to_dict(self) -> dict:
        d = {"debug": [json.loads(x) for x in self.debug]}
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
        if self.note:
            parts.append(self.note)
        return "; ".join(parts) or "nothing"


def _http(runtime, probe: Probe, result: dict) -> None:
    data = None
    headers = {str(k): str(v) for k, v in probe.headers.items()}
    if probe.body is not None:
        if isinstance(probe.body, str):
            data = probe.body.encode()
        else:
            data = json.dumps(probe.body).encode()
            headers.setdefault("Content-Type", "application/json")
    try:
        r = runtime.transport.http(probe.method, probe.path, data, headers, probe.timeout)
        result.update(status=r.status, raw=r.body, ctype=r.content_type)
    except OSError as e:
        result.update(error=str(e) or type(e).__name__)


def _body(raw: bytes, ctype: str) -> Any:
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def observe(session: Session, probe: Probe, nodes: list[dict], quiet: float = 0.3) -> Observation:
    """Run one probe on the flow deployed in ``session`` (``nodes``: its file nodes)."""
    pos = session.comms.position
    busy = lambda: False  # noqa: E731
    result: dict = {}
    if probe.path is None:
        target = find_inject(probe, nodes)
        if target is None or (session.prepared and target in session.prepared.left_out):
            return Observation(note="no matching inject node")
        session.fire_inject(target)
    else:
        t = threading.Thread(target=_http, args=(session.runtime, probe, result), daemon=True)
        t.start()
        busy = t.is_alive
    went_quiet = session.comms.wait_quiet(pos, quiet, probe.timeout, busy)
    now = time.time() * 1000
    values = [json.dumps(normalise(e.value, now), sort_keys=True) for e in session.debug_messages(pos)
              if session.file_id(e.node_id) is not None]
    obs = Observation(debug=sorted(values))
    if probe.path is not None:
        if "status" in result:
            obs.status, obs.body = result["status"], normalise(_body(result["raw"], result.get("ctype", "")), now)
        elif "error" in result and "timed out" not in result["error"]:
            obs.note = f"request failed: {result['error']}"
        else:
            obs.note = f"no response within {probe.timeout:g} s"
    if not went_quiet and not obs.note:
        obs.note = f"still busy after {probe.timeout:g} s"
    return obs


@dataclass
class ProbeOutcome:
    probe: Probe
    reference: Observation
    generated: Observation

    @property
    def agrees(self) -> bool:
        return self.reference.key() == self.generated.key() and "no matching" not in self.reference.note

    def to_dict(self) -> dict:
        return {"probe": self.probe.to_dict(), "agrees": self.agrees, "reference": self.reference.to_dict(),
                "generated": self.generated.to_dict()}


@dataclass
class RunReport:
    """One program run on the probes: the deploy problems and an observation per probe."""

    problems: list[RunProblem]
    observations: list[Observation]


def run_probes(session: Session, source: Any, probes: list[Probe]) -> RunReport:
    """Deploy ``source`` (injects fire only when probed) and observe each probe on a fresh start."""
    nodes = node_dicts(source)
    result = session.deploy(nodes, settle=0.2, quiet_injects=True)
    obs: list[Observation] = []
    for k, p in enumerate(probes):
        if k:
            session.redeploy()
        obs.append(observe(session, p, nodes))
    problems = result.problems + [q for q in session.problems() if q not in result.problems]
    return RunReport(problems, obs)


def compare(session: Session, reference: Any, generated: Any, probes: list[Probe] | None = None
            ) -> tuple[list[ProbeOutcome], RunReport, RunReport]:
    """Both programs on the same probes (the task's, else the reference's default probes)."""
    probes = probes if probes is not None else (task_probes(reference) or default_probes(reference))
    ref = run_probes(session, reference, probes)
    gen = run_probes(session, generated, probes)
    session.remove()
    return [ProbeOutcome(p, r, g) for p, r, g in zip(probes, ref.observations, gen.observations)], ref, gen
