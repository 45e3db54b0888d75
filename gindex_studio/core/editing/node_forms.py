"""How Node-RED 4's edit dialogs of the core nodes show their plain attributes, beyond the node
library's kinds: the rows a dialog shows only for some choices (a delay's rate fields only when it
rate-limits), checkboxes over string defaults (a trigger's ``extend`` starts as ``"false"``; the
checkbox writes ``true``/``false``), and the types each typed value offers.

Pure Python: no Qt.
"""
from __future__ import annotations

from typing import Any, Mapping

_DELAYS = ("delay", "delayv")
_RATES = ("rate", "queue", "timed", "burst")
#: (node type, key) → (the attribute deciding, the values for which the row is shown)
SHOWN_WHEN: dict[tuple[str, str], tuple[str, tuple]] = {
    **{("delay", k): ("pauseType", _DELAYS) for k in ("timeout", "timeoutUnits")},
    **{("delay", k): ("pauseType", ("random",)) for k in ("randomFirst", "randomLast", "randomUnits")},
    **{("delay", k): ("pauseType", _RATES) for k in ("rate", "nbRateUnits", "rateUnits", "drop", "allowrate", "outputs")},
    **{("join", k): ("mode", ("custom",)) for k in ("build", "property", "key", "joiner", "accumulate", "timeout",
                                                    "count")},
    **{("join", k): ("mode", ("reduce",)) for k in ("reduceRight", "reduceExp", "reduceInit", "reduceFixup")},
    ("trigger", "topic"): ("bytopic", ("topic",)),
    ("inject", "onceDelay"): ("once", (True, "true")),
}
#: attributes a Node-RED dialog edits with a control the library's kind does not say: a checkbox
#: over a string default, the trigger's "then" (its duration's sign says which)
CONTROLS = {("trigger", "extend"): "checkbox", ("trigger", "overrideDelay"): "checkbox",
            ("join", "accumulate"): "checkbox", ("trigger", "duration"): "trigger-then",
            ("inject", "onceDelay"): "number-text"}
#: ("number-text": a text box over a number default; an edited value is written as the typed text)
#: the trigger's "then" choices, in its menu's order, with its words
THEN = (("block", "wait to be reset"), ("wait", "wait for"), ("loop", "resend it every"))
_LITERALS = ("flow", "global", "str", "num", "bool", "json", "bin", "date", "env")
#: (node type, key) → the types its typed value offers, in the dialog's order
TYPED_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("switch", "property"): ("msg", "flow", "global", "jsonata", "env"),
    ("trigger", "op1"): _LITERALS + ("pay", "nul"),
    ("trigger", "op2"): _LITERALS + ("pay", "payl", "nul"),
    ("split", "splt"): ("str", "bin", "len"),
    ("split", "arraySplt"): ("len",),
    ("join", "property"): ("msg", "full"),
    ("join", "joiner"): ("str", "bin"),
    ("join", "reduceInit"): _LITERALS[:-1] + ("jsonata", "env"),
}
#: stored types a dialog shows as another (the trigger's old "val" is a string)
SHOWN_TYPE = {("trigger", "op1"): {"val": "str"}, ("trigger", "op2"): {"val": "str"}}


def shown(node_type: str, key: str, data: Mapping[str, Any], defaults: Mapping[str, Any]) -> bool:
    """Whether the dialog of ``node_type`` shows ``key`` for a node holding ``data``.

    >>> shown("delay", "rate", {"pauseType": "delay"}, {}), shown("delay", "rate", {"pauseType": "queue"}, {})
    (False, True)
    >>> shown("delay", "timeout", {}, {"pauseType": "delay"})
    True
    """
    rule = SHOWN_WHEN.get((node_type, key))
    if rule is None:
        return True
    decider, values = rule
    return data.get(decider, defaults.get(decider)) in values


def checked(value: Any) -> bool:
    """A checkbox's state for a stored value (``true`` or ``"true"``, as the dialogs read them)."""
    return value is True or value == "true"


def then_mode(duration: Any) -> tuple[str, str]:
    """(choice, amount shown) of a trigger's stored ``duration``: "0" waits to be reset, a
    negative amount resends every that long, a positive one waits for it.

    >>> then_mode("250"), then_mode("0"), then_mode("-5")
    (('wait', '250'), ('block', '250'), ('loop', '5'))
    """
    text = str(duration if duration is not None else "250").strip()
    try:
        number = float(text)
    except ValueError:
        return "wait", text
    if number == 0:
        return "block", "250"
    if number < 0:
        return "loop", text[1:] if text.startswith("-") else str(-number)
    return "wait", text


def then_duration(mode: str, amount: str) -> str:
    """The ``duration`` saving writes (Node-RED: "0", the amount, or minus the amount).

    >>> then_duration("block", "250"), then_duration("wait", "250"), then_duration("loop", "5")
    ('0', '250', '-5')
    """
    if mode == "block":
        return "0"
    amount = amount.strip() or "250"
    if mode == "loop":
        try:
            n = -float(amount)
        except ValueError:
            return "-" + amount
        return str(int(n)) if n == int(n) else str(n)
    return amount
