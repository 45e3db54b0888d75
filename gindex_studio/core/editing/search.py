"""Fuzzy search over node types for the quick-add popup and the palette (pure Python).

``fuzzy_score(query, text)``: None when the query's characters do not appear in order in the
text; otherwise higher is better (prefix, word starts and consecutive runs score more).

>>> fuzzy_score("htr", "http request") is not None
True
>>> fuzzy_score("xyz", "debug") is None
True
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence


def fuzzy_score(query: str, text: str) -> float | None:
    q = query.lower().strip()
    t = text.lower()
    if not q:
        return 0.0
    if q in t:
        i = t.index(q)
        return 100.0 + (50.0 if i == 0 else 0.0) + (20.0 if i > 0 and not t[i - 1].isalnum() else 0.0) - len(t) * 0.1
    score = 0.0
    pos = -1
    run = 0
    for ch in q:
        if ch == " ":
            continue
        nxt = t.find(ch, pos + 1)
        if nxt < 0:
            return None
        if nxt == pos + 1:
            run += 1
            score += 2 + run
        else:
            run = 0
            score += 1
        if nxt == 0 or not t[nxt - 1].isalnum():
            score += 3
        pos = nxt
    return score - len(t) * 0.05


#: match tiers, best first: how a query meets a type's id or label, then its category, then its text
TIERS = ("exact", "prefix", "word", "substring", "fuzzy", "category", "description")


def match_tier(query: str, nt: Any) -> tuple[int, float] | None:
    """(tier, score within the tier: higher better) of a node type for ``query``, or None.

    >>> from types import SimpleNamespace as T
    >>> match_tier("function", T(type="function", label="function", category="functional", description=""))
    (0, 0.0)
    >>> match_tier("function", T(type="exec", label="exec", category="functional", description=""))[0]
    5
    """
    q = query.strip().lower()
    names = [nt.type.lower(), (getattr(nt, "label", "") or "").lower()]
    if q in names:
        return 0, 0.0
    if any(n.startswith(q) for n in names):
        return 1, -min(len(n) for n in names if n.startswith(q))
    for n in names:
        k = n.find(q)
        if k > 0 and not n[k - 1].isalnum():
            return 2, -len(n)
    if any(q in n for n in names):
        return 3, -min(len(n) for n in names if q in n)
    fuzzy = [f for f in (fuzzy_score(q, n) for n in names) if f is not None]
    if fuzzy:
        return 4, max(fuzzy)
    if q in (getattr(nt, "category", "") or "").lower():
        return 5, 0.0
    if q in (getattr(nt, "description", "") or "").lower():
        return 6, 0.0
    return None


def rank_types(query: str, types: Iterable[Any], recent: Sequence[str] = (), limit: int = 50,
               need_input: bool = False, library: Any = None, configs: bool = True) -> list[Any]:
    """Node types matching ``query``, best first (see ``TIERS``): an exact type or label first,
    then prefixes, word starts, substrings and fuzzy matches of type or label, then category and
    description matches. Within a tier a recent type comes first, then the better score, then
    library order. With an empty query: recent types, then the library's order.

    ``need_input`` keeps only types with an input port (so never config types); ``configs=False``
    leaves config types out. Workspace types (``tab``) are never offered.
    """
    recent_rank = {t: i for i, t in enumerate(recent)}
    scored = []
    for k, nt in enumerate(types):
        if nt.type in ("tab", "subflow", "group"):
            continue
        if getattr(nt, "config", False) and (need_input or not configs):
            continue
        if need_input and not getattr(nt, "inputs", 0):
            continue
        r = recent_rank.get(nt.type, len(recent_rank) + 1)
        if not query.strip():
            scored.append(((0, r, 0.0, k), nt))
            continue
        m = match_tier(query, nt)
        if m is None:
            continue
        scored.append(((m[0], r, -m[1], k), nt))
    scored.sort(key=lambda x: x[0])
    return [nt for _key, nt in scored[:limit]]
