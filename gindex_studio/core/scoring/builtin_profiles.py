"""The ``paper`` and ``companion`` profiles (scoring-spec §2), registered with ``profiles``.

- ``paper``: K = (keys(u) ∪ keys(v)) − PAPER_IGNORED; JSON equality (objects ignore key order,
  numbers by value, a boolean never equals a number). Symmetric; Eq. 12 as written (edges
  correspond both ways, self-loops agree). The default profile (``profiles.default()``).
- ``companion``: K = keys(u) − IGNORED; a key missing or null on both sides is equal, on one side a
  mismatch; Python ``==`` (``True == 1``). Not symmetric: u is the reference node. Its adjacency
  joins the two brackets of Eq. 12 by *or*; Δ of two parsed flows runs in one C call. The companion
  code's experiment files are scored with it (``profiles.companion_default()``).

>>> from gindex_studio.core.scoring.similarity import similarity
>>> a, b = PAPER.signature({"type": "t", "x": 1, "k": True}), PAPER.signature({"type": "t", "k": 1})
>>> c, d = COMPANION.signature({"type": "t", "k": True}), COMPANION.signature({"type": "t", "k": 1})
>>> similarity(a, b, PAPER), similarity(c, d, COMPANION)
((0, 1), (1, 1))
"""
from __future__ import annotations

from gindex_studio.core import native
from gindex_studio.core.support.profiles import Profile, register
from gindex_studio.core.scoring.similarity import (
    IGNORED,
    Signature,
    canonical_json,
    canonical_python,
    make_signature,
)

PAPER_IGNORED = IGNORED | {"w", "h", "g", "l", "info"}

# strings, numbers and null are their own canonical value (bool is not: type(True) is bool)
_PLAIN = frozenset({str, int, float, type(None)})
_EMPTY = frozenset()


def paper_signature(data: dict) -> Signature:
    plain = _PLAIN
    values = {k: v if type(v) in plain else canonical_json(v) for k, v in data.items() if k not in PAPER_IGNORED}
    return make_signature(str(data.get("type")), values)


def paper_weight(a: Signature, b: Signature) -> tuple[int, int]:
    """|equal items| / |keys of both| (1 when neither has a key)."""
    den = len(a.keys | b.keys)
    if den == 0:
        return 1, 1
    return len(a.items & b.items), den


def companion_signature(data: dict) -> Signature:
    plain = _PLAIN
    values = {k: v if type(v) in plain else canonical_python(v) for k, v in data.items() if k not in IGNORED}
    # only the companion's w reads none_keys and self_equal
    return make_signature(str(data.get("type")), values, None,
                          frozenset(k for k, v in values.items() if v is None),
                          all(v == v for v in values.values() if type(v) is float))


def companion_weight(a: Signature, b: Signature) -> tuple[int, int]:
    """|a's keys whose value b has, under ==| / |a's keys| (1 when a has no key)."""
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


def companion_delta_of_values(reference, generated) -> float | None:
    """Δ of two parsed flows in one C call (None: not in C, e.g. ``GINDEX_PURE_PYTHON``, or a
    value it leaves to ``score``)."""
    fn = native.companion_delta
    if fn is None:
        return None
    return fn(reference, generated, IGNORED, None)  # None: signals checked in the main thread


PAPER = register(Profile(
    name="paper", ignored=PAPER_IGNORED, signature=paper_signature, weight=paper_weight,
    description="the paper's w: keys of both nodes, JSON equality",
    native_rule=native.UNION_JSON, adjacency="and", self_loops_agree=True, symmetric=True,
    key_fraction_weights=True, induced_edges=True,
), default=True)

COMPANION = register(Profile(
    name="companion", ignored=IGNORED, signature=companion_signature, weight=companion_weight,
    description="the companion code's w: the reference node's keys, Python ==, missing equals null",
    reference_keys=True, native_rule=native.REFERENCE_PYTHON, adjacency="or",
    delta_of_values=companion_delta_of_values if native.companion_delta is not None else None,
    companion_default=True,
))
