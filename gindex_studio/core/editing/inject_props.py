"""The inject node's Properties list as Node-RED 4's editor reads and writes it (20-inject.html).

The editor shows rows of ``msg.<p>`` = typed value. On save, the ``payload`` row's value and type
go to the node's legacy ``payload``/``payloadType`` (its entry keeps only ``p``), a string
``topic`` row's value goes to ``topic`` (its entry keeps ``p`` and ``vt``), every other row is
``{"p", "v", "vt"}``; rows without a property name are dropped. Values are strings.

Pure Python: no Qt.
"""
from __future__ import annotations

#: the value types a property row offers, in Node-RED's order
VALUE_TYPES = ("flow", "global", "str", "num", "bool", "json", "bin", "date", "jsonata", "env", "msg")
#: the node keys the Properties rows write besides ``props``
LEGACY_KEYS = ("payload", "payloadType", "topic")


def _payload_type(data: dict) -> str:
    t = data.get("payloadType")
    if t is None:
        return "date" if data.get("payload", "") in ("", None) else "str"
    return "str" if t in ("string", "none") else str(t)


def _text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v if isinstance(v, str) else str(v)


def read_props(data: dict) -> list[tuple[str, str, str]]:
    """The rows ``(property, value, type)`` the editor shows for a node's stored attributes."""
    props = data.get("props")
    if not isinstance(props, list):
        props = [{"p": "payload"}, {"p": "topic", "vt": "str"}]
    rows = []
    for prop in props:
        if not isinstance(prop, dict):
            continue
        p, v, vt = _text(prop.get("p")), prop.get("v"), prop.get("vt")
        if v is None:
            if p == "payload":
                v, vt = data.get("payload") or "", _payload_type(data)
            elif p == "topic" and vt == "str":
                v = data.get("topic") or ""
        vt = "str" if vt in (None, "", "string") else str(vt)
        rows.append((p, _text(v), vt))
    return rows


def write_props(rows) -> dict:
    """The attributes saving ``rows`` writes: ``props`` and ``topic`` always, ``payload`` and
    ``payloadType`` when a payload row exists (absent ones are removed: value ``None``).

    >>> write_props([("payload", "", "date"), ("topic", "t", "str"), ("x", "1", "num")])
    {'props': [{'p': 'payload'}, {'p': 'topic', 'vt': 'str'}, {'p': 'x', 'v': '1', 'vt': 'num'}], 'topic': 't', 'payload': '', 'payloadType': 'date'}
    """
    out: dict = {"props": [], "topic": "", "payload": None, "payloadType": None}
    for p, v, vt in rows:
        if not p:
            continue
        if p == "payload":
            out["payload"], out["payloadType"] = v, vt
            out["props"].append({"p": p})
        elif p == "topic" and vt == "str":
            out["topic"] = v
            out["props"].append({"p": p, "vt": vt})
        else:
            out["props"].append({"p": p, "v": v, "vt": vt})
    return out
