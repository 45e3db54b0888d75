"""Node similarity w (paper Sec. 2.4.2, Eq. 2): signatures and exact weights, for any profile.

Each node is reduced once to a ``Signature``; ``similarity(a, b, profile)`` then asks the profile
(``profiles.Profile``: ``signature``, ``weight``, ``reference_keys``). Weights are exact rationals
``(matches, keys)``; ``w = matches / keys`` and ``w = 1`` when there is no key to compare. The
profiles themselves say how they compare values (``builtin_profiles``, ``flatland.profile``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gindex_studio.core import native
from gindex_studio.core.support import profiles

# the keys no built-in profile compares: identity, layout and wiring
IGNORED = frozenset({"id", "type", "x", "y", "z", "wires", "name", "label", "group", "tab", "endpointUrl"})


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


def make_signature(type_: str, values: dict, items: frozenset | None = None, none_keys: frozenset = frozenset(),
                   self_equal: bool = True) -> Signature:
    """A Signature of a node of type ``type_`` whose compared keys and (canonical) values are
    ``values``; ``items`` defaults to ``values.items()`` (give it when the values are not hashable)."""
    sig = object.__new__(Signature)  # the frozen dataclass's fields, set without its per-field __setattr__
    sig.__dict__.update(type=type_, keys=frozenset(values),
                        items=frozenset(values.items()) if items is None else items, values=values,
                        none_keys=none_keys, self_equal=self_equal)
    return sig


def signature(data: dict, profile=None) -> Signature:
    """Reduce a node dict to the Signature used by ``similarity`` under ``profile`` (a ``Profile``,
    a name, or None: the default profile; so for every ``profile`` below)."""
    return profiles.get(profile).signature(data)


def signatures(datas: list[dict], profile=None) -> list[Signature]:
    """``[signature(d, profile) for d in datas]``, in C when the profile has a ``native_rule`` and
    the native search is in use (``native.available``): the same Signatures."""
    prof = profiles.get(profile)
    if prof.native_rule is not None and native.available():
        return native.signatures(datas, prof.ignored, native.kernel_flag(prof.native_rule), _TRUE, _FALSE, Signature)
    sig = prof.signature
    return [sig(d) for d in datas]


def similarity(a: Signature, b: Signature, profile=None) -> tuple[int, int]:
    """w(a, b) as an exact fraction ``(matches, keys)``; ``(0, 1)`` for different types.

    >>> a = signature({"type": "inject", "topic": "t"})
    >>> similarity(a, signature({"type": "inject", "topic": "t", "payload": "1"}))
    (1, 2)
    """
    if a.type != b.type:
        return 0, 1
    return profiles.get(profile).weight(a, b)


def differing_keys(a: Signature, b: Signature, profile=None) -> list[str]:
    """The compared keys whose values differ (present on one side only counts), sorted; the
    reference's keys only when the profile compares those only (``reference_keys``)."""
    if not profiles.get(profile).reference_keys:
        keys = a.keys | b.keys
        return sorted(k for k in keys if k not in a.values or k not in b.values or a.values[k] != b.values[k])
    return sorted(k for k, v in a.values.items() if b.values.get(k) != v)
