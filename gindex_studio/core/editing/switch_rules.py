"""The switch node's rules as Node-RED 4's editor reads and writes them (10-switch.html).

A rule is ``{"t": operator, "v": value, "vt": value type}``; "between" and "index between" add
``v2``/``v2t``, "matches regex" adds ``case``, "is of type" stores the type in both ``v`` and
``vt``, and the operators that test nothing but the property (``true``, ``null``, ``else``, …)
keep ``t`` alone. Values are strings, as the editor's text fields give them. The node has one
output per rule; reordering or removing rules moves or drops the wires of their outputs.

Pure Python: no Qt.
"""
from __future__ import annotations

from dataclasses import dataclass

#: (operator, words Node-RED's editor shows), in its menu's order
OPERATORS = (
    ("eq", "=="), ("neq", "!="), ("lt", "<"), ("lte", "<="), ("gt", ">"), ("gte", ">="),
    ("hask", "has key"), ("btwn", "is between"), ("cont", "contains"), ("regex", "matches regex"),
    ("true", "is true"), ("false", "is false"), ("null", "is null"), ("nnull", "is not null"),
    ("istype", "is of type"), ("empty", "is empty"), ("nempty", "is not empty"),
    ("head", "head"), ("index", "index between"), ("tail", "tail"),
    ("jsonata_exp", "JSONata exp"), ("else", "otherwise"),
)
OPERATOR_TEXT = dict(OPERATORS)
#: operators that take no value
NO_VALUE = frozenset({"true", "false", "null", "nnull", "empty", "nempty", "else"})
#: operators with a second value ("and …")
TWO_VALUES = frozenset({"btwn", "index"})
#: the value types each operator's field offers, and the one a fresh field starts with
VALUE_TYPES = ("msg", "flow", "global", "str", "num", "jsonata", "env", "prev")
COUNT_TYPES = ("flow", "global", "num", "jsonata", "env")
EXP_TYPES = ("jsonata",)
#: "is of type": the types it can test for (stored in both ``v`` and ``vt``)
IS_TYPES = ("string", "number", "boolean", "array", "buffer", "object", "json", "undefined", "null")
#: the switch node's Property: where the tested value comes from
PROPERTY_TYPES = ("msg", "flow", "global", "jsonata", "env")


def field_of(op: str) -> str:
    """Which of Node-RED's value fields operator ``op`` shows ("value", "range", "count", "exp",
    "type" or "" for none): a field keeps its text and type while another operator is picked."""
    if op in NO_VALUE:
        return ""
    return {"btwn": "range", "index": "range", "head": "count", "tail": "count", "jsonata_exp": "exp",
            "istype": "type"}.get(op, "value")


def value_types(op: str) -> tuple[tuple[str, ...], str]:
    """(types offered, default type) of the value field of operator ``op``."""
    if op in TWO_VALUES:
        return VALUE_TYPES, "num"
    if op in ("head", "tail"):
        return COUNT_TYPES, "num"
    if op == "jsonata_exp":
        return EXP_TYPES, "jsonata"
    if op == "istype":
        return IS_TYPES, "string"
    return VALUE_TYPES, "str"


@dataclass
class SwitchRule:
    """What one row of the editor holds: its operator and the fields behind it."""

    t: str = "eq"
    v: str = ""
    vt: str = "str"
    v2: str = ""
    v2t: str = "num"
    case: bool = False

    def export(self) -> dict:
        """The rule as Node-RED's ``exportRule`` writes it (only the keys ``t`` uses)."""
        r: dict = {"t": self.t}
        if self.t in NO_VALUE:
            return r
        types, default = value_types(self.t)
        vt = self.vt if self.vt in types else default
        if self.t == "istype":
            r["v"], r["vt"] = vt, vt
        else:
            r["v"], r["vt"] = self.v, vt
        if self.t in TWO_VALUES:
            r["v2"], r["v2t"] = self.v2, self.v2t if self.v2t in VALUE_TYPES else "num"
        if self.t == "regex":
            r["case"] = bool(self.case)
        return r


def read_rule(rule: dict) -> SwitchRule:
    """A stored rule as the editor shows it (``oneditprepare``: absent types take the operator's default)."""
    t = str(rule.get("t", "eq"))
    _types, default = value_types(t)
    v = rule.get("v", "")
    return SwitchRule(
        t=t,
        v="" if v is None else v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v),
        vt=str(rule.get("vt") or default),
        v2="" if rule.get("v2") is None else str(rule.get("v2")),
        v2t=str(rule.get("v2t") or "num"),
        case=bool(rule.get("case", False)),
    )


def new_rule(previous: dict | None) -> dict:
    """The rule "+ add" appends: ``==`` with an empty value of the previous rule's value type."""
    if previous is None:
        return {"t": "eq", "v": "", "vt": "str"}
    vt = previous.get("vt") or "str"
    if previous.get("t") == "istype":
        vt = "num" if vt == "number" else "str"
    return {"t": "eq", "v": "", "vt": vt if vt in VALUE_TYPES else "str"}


def remap_wires(wires: list, origins: list) -> list[list[str]]:
    """The wires after the rules were reordered, added or removed: output ``k`` takes the wires of
    the old output ``origins[k]`` (``None`` for a new rule: unwired); old outputs no rule keeps lose
    their wires. Node-RED's editor does the same with its output map.

    >>> remap_wires([["a"], ["b"], ["c"]], [2, None, 0])
    [['c'], [], ['a']]
    """
    old = [list(p) for p in (wires or [])]
    return [list(old[o]) if o is not None and 0 <= o < len(old) else [] for o in origins]
