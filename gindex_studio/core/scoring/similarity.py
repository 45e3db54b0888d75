"""Node similarity w (paper Sec. 2.4.2, Eq. 2) and the scoring profiles (scoring-spec §2).

Each node is reduced once to a ``Signature``; ``similarity(a, b)`` then costs two set operations.
Weights are exact rationals ``(matches, keys)``; ``w = matches / keys`` and ``w = 1`` when there is
no key to compare.

- ``paper``: K = (keys(u) ∪ keys(v)) − PAPER_IGNORED; JSON equality (objects ignore key order,
  numbers by value, a boolean never equals a number). Symmetric.
- ``companion``: K = keys(u) − IGNORED; a key missing or null on both sides is equal, on one side a
  mismatch; Python ``==`` (``True == 1``). Not symmetric: u is the reference node.
- ``flatland``: Flatland programs (flatland-spec §3): graded weights per node type, from
  ``flatland.weights``; the weight is an exact fraction with a small denominator. Symmetric.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gindex_studio.core.flatland.weights import weight_of_signatures as flatland_weight

IGNORED = frozenset({"id", "type", "x", "y", "z", "wires", "name", "label", "group", "tab", "endpointUrl"})
PAPER_IGNORED = IGNORED | {"w", "h", "g", "l", "info"}
PROFILES = ("paper", "companion", "flatland")


class _JsonBool:
    """A boolean in canonical JSON values: hashable, equal only to itself (never to 0 or 1)."""

    __slots__ = ("value",)

    def __init__(self, value: bool):
        self.value = value

    def __eq__(self, other) -> bool:
        return isinstance(other, _JsonBool) and other.value is self.value

    def __hash__(self) -> int:
        return hash(("json-bool", self.value))

    def __reduce__(self):  # unpickles to the shared instances
        return (_json_bool, (self.value,))

    def __repr__(self) -> str:
        return "true" if self.value else "false"


def _json_bool(value: bool) -> "_JsonBool":
    return _TRUE if value else _FALSE


_TRUE, _FALSE = _JsonBool(True), _JsonBool(False)


def canonical_json(value: Any) -> Any:
    """A hashable value equal to another's exactly when the two are equal as JSON.

    >>> canonical_json({"a": 1, "b": [1.0]}) == canonical_json({"b": [1], "a": 1.0})
    True
    >>> canonical_json(True) == canonical_json(1)
    False
    """
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    if isinstance(value, dict):
        return frozenset((k, canonical_json(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(canonical_json(v) for v in value)
    return value


def canonical_python(value: Any) -> Any:
    """A hashable value equal to another's exactly when Python ``==`` holds (companion profile)."""
    if isinstance(value, dict):
        return frozenset((k, canonical_python(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(canonical_python(v) for v in value)
    return value


_PLAIN = frozenset({str, int, float, type(None)})


@dataclass(frozen=True)
class Signature:
    """What similarity needs of one node: its type, compared keys and (key, value) items."""

    type: str
    keys: frozenset
    items: frozenset
    values: dict  # key -> canonical value (companion lookups and differing-key reports)
    none_keys: frozenset = frozenset()  # keys whose value is null (companion: equal to a missing key)
    self_equal: bool = True  # every value equals itself under == (False for a top-level NaN)

    def __getattr__(self, name: str):
        # reached only for a field not set: ``signatures`` (in C) leaves keys and items to be built
        # from values on first use (the native weights never read them)
        values = self.__dict__.get("values")
        if values is None or name not in ("keys", "items"):
            raise AttributeError(name)
        value = self.__dict__[name] = frozenset(values) if name == "keys" else frozenset(values.items())
        return value


def signature(data: dict, profile: str = "paper") -> Signature:
    """Reduce a node dict to the Signature used by ``similarity`` under ``profile``."""
    # strings, numbers and null are their own canonical value (bool is not: type(True) is bool)
    plain = _PLAIN
    if profile == "paper":
        values = {k: v if type(v) in plain else canonical_json(v) for k, v in data.items() if k not in PAPER_IGNORED}
    elif profile == "companion":
        values = {k: v if type(v) in plain else canonical_python(v) for k, v in data.items() if k not in IGNORED}
    elif profile == "flatland":
        return flatland_signature(str(data.get("type")), {k: v for k, v in data.items() if k not in IGNORED})
    else:
        raise ValueError(f"unknown profile {profile!r} (use one of: {', '.join(PROFILES)})")
    sig = object.__new__(Signature)  # the frozen dataclass's fields, set without its per-field __setattr__
    sig.__dict__.update(type=str(data.get("type")), keys=frozenset(values), items=frozenset(values.items()),
                        values=values)
    if profile == "companion":  # only the companion's w reads these
        sig.__dict__["none_keys"] = frozenset(k for k, v in values.items() if v is None)
        sig.__dict__["self_equal"] = all(v == v for v in values.values() if type(v) is float)
    else:
        sig.__dict__.update(none_keys=_EMPTY, self_equal=True)
    return sig


_EMPTY = frozenset()


def flatland_signature(type_: str, values: dict) -> Signature:
    """The ``flatland`` profile's Signature of a node of type ``type_`` whose compared keys and
    values are ``values`` (the node dict without the ``IGNORED`` keys)."""
    # identity of the node's values (canonical_python, called only where it changes something)
    items = frozenset((k, canonical_python(v) if isinstance(v, (dict, list)) else v) for k, v in values.items())
    sig = object.__new__(Signature)
    sig.__dict__.update(type=type_, keys=frozenset(values), items=items, values=values, none_keys=_EMPTY,
                        self_equal=True)
    return sig


def signatures(datas: list[dict], profile: str = "paper") -> list[Signature]:
    """``[signature(d, profile) for d in datas]``, in C for the paper and companion profiles when
    the native search is in use (``matching.native_search_available``): the same Signatures."""
    if profile in ("paper", "companion"):
        from gindex_studio.core.scoring import matching

        if matching.native_search_available():
            companion = profile == "companion"
            return matching._native.signatures(datas, IGNORED if companion else PAPER_IGNORED, companion,
                                               _TRUE, _FALSE, Signature)
    return [signature(d, profile) for d in datas]


def similarity(a: Signature, b: Signature, profile: str = "paper") -> tuple[int, int]:
    """w(a, b) as an exact fraction ``(matches, keys)``; ``(0, 1)`` for different types.

    >>> a = signature({"type": "inject", "topic": "t"})
    >>> similarity(a, signature({"type": "inject", "topic": "t", "payload": "1"}))
    (1, 2)
    """
    if a.type != b.type:
        return 0, 1
    if profile == "flatland":
        return flatland_weight(a, b)
    if profile == "paper":
        den = len(a.keys | b.keys)
        if den == 0:
            return 1, 1
        return len(a.items & b.items), den
    # companion: iterate the first node's keys; missing == null
    den = len(a.keys)
    if den == 0:
        return 1, 1
    return companion_matches(a, b), den


def companion_matches(a: Signature, b: Signature) -> int:
    """How many of a's compared keys have a value in b equal under Python ``==`` (a key missing in
    b counts as null): the items both share, plus a's null keys that b lacks. A top-level NaN
    (never == itself, yet one object in both item sets) takes the key-by-key loop instead."""
    if a.self_equal:
        return len(a.items & b.items) + (len(a.none_keys - b.keys) if a.none_keys else 0)
    bv = b.values
    return sum(1 for k, v in a.values.items() if bv.get(k) == v)


def differing_keys(a: Signature, b: Signature, profile: str = "paper") -> list[str]:
    """The compared keys whose values differ (present on one side only counts), sorted."""
    if profile in ("paper", "flatland"):
        keys = a.keys | b.keys
        return sorted(k for k in keys if k not in a.values or k not in b.values or a.values[k] != b.values[k])
    return sorted(k for k, v in a.values.items() if b.values.get(k) != v)
