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


def rank_types(query: str, types: Iterable[Any], recent: Sequence[str] = (), limit: int = 50,
               need_input: bool = False, library: Any = None) -> list[Any]:
    """Node types matching ``query`` over type, label, category and description, best first.

    With an empty query, recent types come first, then the rest in library order. With a query,
    a recent type gets a bonus. ``need_input`` keeps only types with an input port.
    """
    recent_rank = {t: i for i, t in enumerate(recent)}
    scored = []
    for k, nt in enumerate(types):
        if getattr(nt, "config", False):
            continue
        if need_input and not getattr(nt, "inputs", 0):
            continue
        if not query.strip():
            s = 1000.0 - recent_rank[nt.type] if nt.type in recent_rank else -k * 0.001
            scored.append((s, k, nt))
            continue
        fields = [
            (nt.type, 1.0),
            (getattr(nt, "label", "") or "", 1.0),
            (getattr(nt, "category", "") or "", 0.5),
            (getattr(nt, "description", "") or "", 0.3),
        ]
        best = None
        for text, weight in fields:
            s = fuzzy_score(query, text)
            if s is not None and (best is None or s * weight > best):
                best = s * weight
        if best is None:
            continue
        if nt.type in recent_rank:
            best += 15 - min(recent_rank[nt.type], 10)
        scored.append((best, k, nt))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [nt for _s, _k, nt in scored[:limit]]
