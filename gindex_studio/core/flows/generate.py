"""Seeded generator of realistic flow programs, for benchmarks and property tests.

Real flows are mostly chains and small fan-outs of ``function`` and ``change`` nodes between a few
inputs and outputs; node types follow a skewed distribution. ``random_flow(n, rng)`` builds a DAG
of n nodes; ``perturb(flow, rng, rate)`` changes about ``rate`` of its nodes, wires and attributes,
the way model output differs from its reference.
"""
from __future__ import annotations

import random
from typing import Any

from gindex_studio.core.flows.flow import Flow, flow_from_nodes

# (type, weight, inputs, outputs, attribute maker)
_SOURCES = ["inject", "http in", "mqtt in", "cronplus", "chatbot-telegram-receive"]
_SINKS = ["debug", "http response", "mqtt out", "file", "chatbot-telegram-send"]
_MIDDLE = [
    ("function", 30),
    ("change", 22),
    ("switch", 10),
    ("template", 6),
    ("delay", 5),
    ("json", 5),
    ("http request", 5),
    ("split", 3),
    ("join", 3),
    ("csv", 3),
    ("trigger", 3),
    ("maya-browser-query", 2),
    ("maya-browser-open", 2),
    ("chatbot-message", 2),
]

_WORDS = "alpha beta gamma delta temp humidity price stock query reply result user order page".split()


def _attrs(t: str, rng: random.Random) -> dict[str, Any]:
    w = lambda: rng.choice(_WORDS)
    if t == "function":
        return {"func": f"msg.payload = msg.payload.{w()} * {rng.randint(1, 9)};\nreturn msg;", "outputs": 1,
                "noerr": 0, "initialize": "", "finalize": "", "libs": []}
    if t == "change":
        return {"rules": [{"t": "set", "p": w(), "pt": "msg", "to": w(), "tot": rng.choice(["str", "msg"])}],
                "action": "", "property": "", "from": "", "to": "", "reg": False}
    if t == "switch":
        return {"property": "payload", "propertyType": "msg",
                "rules": [{"t": "eq", "v": w(), "vt": "str"}], "checkall": "true", "repair": False, "outputs": 1}
    if t == "template":
        return {"field": "payload", "fieldType": "msg", "format": "handlebars", "syntax": "mustache",
                "template": f"Hello {{{{{w()}}}}}", "output": "str"}
    if t == "delay":
        return {"pauseType": "delay", "timeout": str(rng.randint(1, 9)), "timeoutUnits": "seconds", "rate": "1",
                "nbRateUnits": "1", "rateUnits": "second", "drop": False}
    if t == "http request":
        return {"method": rng.choice(["GET", "POST"]), "ret": "txt", "paytoqs": "ignore",
                "url": f"https://api.example.com/{w()}", "tls": "", "persist": False, "proxy": "", "authType": ""}
    if t == "inject":
        return {"props": [{"p": "payload"}], "repeat": str(rng.choice(["", "60", "3600"])), "crontab": "",
                "once": rng.random() < 0.3, "onceDelay": 0.1, "topic": w(), "payload": w(), "payloadType": "str"}
    if t == "debug":
        return {"active": True, "tosidebar": True, "console": False, "tostatus": False,
                "complete": rng.choice(["payload", "true"]), "targetType": "msg", "statusVal": "", "statusType": "auto"}
    if t == "http in":
        return {"url": f"/{w()}", "method": rng.choice(["get", "post"]), "upload": False, "swaggerDoc": ""}
    if t == "cronplus":
        return {"outputField": "payload", "timeZone": "", "persistDynamic": False, "commandResponseMsgOutput": "output1",
                "outputs": 1, "options": [{"name": w(), "topic": w(), "payloadType": "default", "payload": "",
                                            "expressionType": "cron", "expression": f"0 {rng.randint(0, 59)} * * * * *"}]}
    if t in ("chatbot-message",):
        return {"message": f"{w()} {w()}", "answer": False, "track": False, "parse_mode": "", "silent": False}
    return {"property": rng.choice(["payload", w()])} if rng.random() < 0.5 else {}


def random_flow(n: int, rng: random.Random, prefix: str = "n", palette: list[str] | None = None) -> Flow:
    """A DAG of ``n`` nodes: a few sources, a middle of skewed types, a few sinks.

    ``palette``: the middle node types to draw from (a task domain's own types); default: all.
    """
    n_src = max(1, n // 10)
    n_sink = max(1, n // 8)
    types = [rng.choice(_SOURCES) for _ in range(n_src)]
    middle = [m for m in _MIDDLE if palette is None or m[0] in palette] or _MIDDLE
    mids, weights = zip(*middle)
    types += rng.choices(mids, weights=weights, k=max(0, n - n_src - n_sink))
    types += [rng.choice(_SINKS) for _ in range(n_sink)]
    types = types[:n]
    ids = [f"{prefix}{i:04x}.{rng.randrange(16**6):06x}" for i in range(n)]
    nodes = []
    for i, t in enumerate(types):
        node = {"id": ids[i], "type": t, "z": "tab1", "name": "", "x": 100 + 180 * (i % 12), "y": 60 + 60 * (i // 12)}
        node.update(_attrs(t, rng))
        node["wires"] = [[]] if t not in _SINKS else []
        nodes.append(node)
    # wire: every non-source gets 1 (sometimes 2) predecessors among earlier nodes, mostly the near past
    for i in range(n_src, n):
        k = 1 if rng.random() < 0.85 else 2
        for _ in range(k):
            j = max(0, i - 1 - int(rng.expovariate(0.5)))
            src = nodes[j]
            if src["type"] in _SINKS:
                continue
            if ids[i] not in src["wires"][0]:
                src["wires"][0].append(ids[i])
    return flow_from_nodes(nodes)


def perturb(flow: Flow, rng: random.Random, rate: float = 0.1, prefix: str = "g") -> Flow:
    """A copy of ``flow`` with fresh ids and about ``rate`` of nodes, wires and attributes changed
    (an attribute edited, a node dropped or added, a wire removed or rewired)."""
    nodes = [dict(n.data) for n in flow.copy().nodes]
    remap = {n["id"]: f"{prefix}{i:04x}.{rng.randrange(16**6):06x}" for i, n in enumerate(nodes)}
    for n in nodes:
        n["id"] = remap[n["id"]]
        n["wires"] = [[remap.get(t, t) for t in port] for port in n.get("wires", [])]
        n["x"] = n.get("x", 0) + rng.randint(-20, 20)
    changes = max(1, round(rate * len(nodes)))
    for _ in range(changes):
        kind = rng.random()
        if kind < 0.45 and nodes:
            node = rng.choice(nodes)
            keys = [k for k in node if k not in ("id", "type", "wires", "x", "y", "z", "name")]
            if keys:
                key = rng.choice(keys)
                node[key] = f"changed-{rng.randrange(1000)}"
        elif kind < 0.65 and len(nodes) > 2:
            victim = nodes.pop(rng.randrange(len(nodes)))
            for n in nodes:
                n["wires"] = [[t for t in port if t != victim["id"]] for port in n["wires"]]
        elif kind < 0.8:
            wired = [n for n in nodes if any(n["wires"] and p for p in n["wires"])]
            if wired:
                n = rng.choice(wired)
                port = next(p for p in n["wires"] if p)
                port.pop(rng.randrange(len(port)))
        elif kind < 0.9 and len(nodes) > 1:
            a, b = rng.sample(range(len(nodes)), 2)
            a, b = min(a, b), max(a, b)
            if nodes[a]["wires"]:
                nodes[a]["wires"][0].append(nodes[b]["id"])
        else:
            extra = {"id": f"{prefix}x{rng.randrange(16**8):08x}", "type": "function", "z": "tab1", "name": "",
                     "x": 0, "y": 0, "func": "return msg;", "outputs": 1, "noerr": 0, "initialize": "",
                     "finalize": "", "libs": [], "wires": [[]]}
            nodes.append(extra)
    return flow_from_nodes(nodes)


MIDDLE_TYPES = [t for t, _w in _MIDDLE]
