"""Facts that explain a score, for people: the figures of "why this Δ", the keys a profile does
not compare, and the closest unmatched node of a missing or extra node. Pure functions of the
core's own result (no second copy of any formula).

>>> from gindex_studio.core.flows.flow import flow_from_nodes
>>> from gindex_studio.core.scoring.divergence import score
>>> ref = flow_from_nodes([{"id": "a", "type": "inject", "topic": "t", "payload": "1"}, {"id": "b", "type": "debug"}])
>>> gen = flow_from_nodes([{"id": "x", "type": "inject", "topic": "t", "payload": "2"}])
>>> w = why_delta(score(ref, gen))
>>> (str(w.s), w.n_reference, w.n_generated, str(w.delta))
('1/2', 2, 1, '7/8')
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from gindex_studio.core.scoring.divergence import ScoreResult, delta_from_s
from gindex_studio.core.flows.flow import Flow
from gindex_studio.core.support import profiles
from gindex_studio.core.scoring.similarity import differing_keys, signature, similarity


def ignored_keys(profile) -> frozenset:
    """The node keys ``profile`` (a Profile or its name) never compares (layout, identity and
    presentation keys); a ValueError naming the profiles for an unknown one."""
    return profiles.get(profile).ignored


@dataclass(frozen=True)
class WhyDelta:
    """Δ = 1 − S²/(|V'|·|V''|) with every figure exact. ``empty``: a side without nodes (Δ = 1)."""

    s: Fraction
    pairs: int
    n_reference: int
    n_generated: int
    s_squared: Fraction
    ratio: Fraction  # S²/(|V'|·|V''|)
    delta: Fraction
    empty: str | None  # "reference" | "generated" | None


def why_delta(r: ScoreResult) -> WhyDelta:
    """The figures behind ``r.delta`` (the same S, |V'|, |V''| the core used; Δ recomputed by the
    core's own ``delta_from_s``, so it equals ``r.delta`` as a float)."""
    s = Fraction(r.s_exact)
    n1, n2 = r.n_reference, r.n_generated
    delta = delta_from_s(s, n1, n2)
    empty = "reference" if n1 == 0 else "generated" if n2 == 0 else None
    ratio = Fraction(0) if empty else s * s / (n1 * n2)
    return WhyDelta(s, len(r.mapping), n1, n2, s * s, ratio, delta, empty)


@dataclass(frozen=True)
class Closest:
    """The unmatched node on the other side most similar to a missing/extra node."""

    node: str
    matches: int
    keys: int
    differing_keys: tuple[str, ...]

    @property
    def w_exact(self) -> str:
        return f"{self.matches}/{self.keys}"


def closest_unmatched(r: ScoreResult, reference: Flow, generated: Flow, role: str, node_id: str) -> Closest | None:
    """For a node of side ``role`` ("reference" or "generated") left unmatched by ``r``: the
    unmatched node of the same type on the other side with the highest w under ``r``'s profile
    (first in file order on ties), or None when there is none. w is taken reference-first, as the
    score takes it (the companion profile is not symmetric)."""
    profile = r.profile
    mine, theirs = (reference, generated) if role == "reference" else (generated, reference)
    lonely = set(r.extra_nodes if role == "reference" else r.missing_nodes)
    by_id = mine.by_id()
    if node_id not in by_id:
        return None
    fill = _filler(r)
    me = signature(fill(by_id[node_id].data), profile)
    best: Closest | None = None
    for n in theirs.vertex_nodes():
        if n.id not in lonely or n.type != by_id[node_id].type:
            continue
        them = signature(fill(n.data), profile)
        a, b = (me, them) if role == "reference" else (them, me)
        m, k = similarity(a, b, profile)
        if best is None or m * best.keys > best.matches * k:
            best = Closest(n.id, m, k, tuple(differing_keys(a, b, profile)))
    return best


def _filler(r: ScoreResult):
    if not (r.options or {}).get("fill_defaults"):
        return lambda d: d
    from gindex_studio.core.flows.library import NodeLibrary

    return NodeLibrary.bundled().fill_defaults
