"""What every exact common-subgraph search shares: its result (``Match``), exact fractions, the
warm start (``consistent_subset``), and the deadline / cancel / threshold scaffolding.

A leaf module: it imports nothing of the studio (a ``Budget`` is only read), so a profile's own
search (``Profile.search``) and the generic searches of ``matching`` both build on it without
importing each other.

Contract of a search built on it: it looks for an integer X = S·D (D the scale of its weights)
strictly above ``threshold_floor(threshold, threshold_sq, D)``; ``stop_check(budget)``
is polled every 128 search nodes and a True answer raises ``Stop``; the search then returns the
best mapping found and the least bound it proved.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Iterable


@dataclass
class Match:
    """The search result. ``pairs``: (ref index, gen index, exact w as (num, den)).

    ``weight`` = S as a fraction (num, den); ``upper`` = proven upper bound on S (equal to weight
    when ``exact``). ``nodes`` counts search nodes expanded.
    """

    pairs: list[tuple[int, int, tuple[int, int]]]
    weight: tuple[int, int]
    upper: tuple[int, int]
    exact: bool
    nodes: int = 0
    improved: bool = True  # False when a threshold was given and nothing beat it
    cancelled: bool = False  # the search was stopped by ``cancel`` (then exact is False)


class Stop(Exception):
    """Raised inside a search when its deadline passed, its node budget ran out or it was cancelled."""


def frac(num: int, den: int) -> tuple[int, int]:
    """``num / den`` in lowest terms (den > 0); ``(0, 1)`` for 0.

    >>> frac(6, 8), frac(0, 5)
    ((3, 4), (0, 1))
    """
    g = math.gcd(num, den) or 1
    return num // g, den // g


def none_beats(quick: int, scale: int) -> Match:
    """The Match of a pair whose quick bound ``quick`` (over ``scale``) proves that nothing beats
    the threshold: no pairs, weight 0, exact, not ``improved``."""
    return Match([], (0, 1), frac(quick, scale), True, 0, improved=False)


def found_match(run: tuple, warm_best: int, warm_pairs, t_floor: int, scale: int, weight, cancel) -> Match:
    """The Match of a search's ``run`` = (best, pairs or None, upper, exact, nodes), whose pairs
    beat its floor: those pairs, else the warm start's (``warm_pairs``, of weight ``warm_best``;
    −1: none, weight 0). ``weight(u, v)``: a pair's exact w as (num, den); ``improved``: the
    weight beats ``t_floor``; ``cancelled``: not exact and ``cancel`` is set."""
    found, found_pairs, upper, exact, nodes = run
    if found_pairs is not None:
        best, best_pairs = found, found_pairs
    else:
        best, best_pairs = max(warm_best, 0), warm_pairs
    pairs = [(u, v, weight(u, v)) for u, v in sorted(best_pairs)]
    cancelled = not exact and cancel is not None and bool(cancel.is_set())
    return Match(pairs=pairs, weight=frac(best, scale), upper=frac(max(upper, best), scale), exact=exact, nodes=nodes,
                 improved=best > t_floor, cancelled=cancelled)


def stop_check(budget):
    """The test the searches make every 128 nodes (None: nothing can stop them): True once
    ``budget`` (a ``core.support.budget.Budget``, or None) is cancelled or its stop time passed."""
    if budget is None:
        return None
    flag, poll, stop_at = budget.flag, budget.poll, budget.stop_at
    if poll is None and stop_at is None:
        return lambda: flag[0] != 0
    if poll is None:
        return lambda: flag[0] != 0 or time.perf_counter() > stop_at
    return lambda: budget.cancelled() or budget.expired()


class BranchAndBound:
    """The bookkeeping of a recursive branch-and-bound search, for its ``_search`` to call:
    ``best`` (the best X so far), ``best_choice`` (a copy of the choice that reached it; None:
    nothing beat the floor), ``nodes`` (search nodes visited), ``frames`` (the bounds of the
    frames still open: a stopped search proved no more than the largest)."""

    def start(self, floor: int, budget, node_limit: int = 0) -> None:
        """A new run that must beat ``floor``, stopped by ``budget`` (``stop_check``) or, with
        ``node_limit`` > 0, as it is about to visit node ``node_limit`` + 1."""
        self.best, self.best_choice, self.nodes = floor, None, 0
        self.limit = node_limit if node_limit > 0 else math.inf
        self.stop = stop_check(budget)
        self.frames: list[int] = []

    def visit(self, cur: int, choice: list) -> None:
        """One search node reached with X = ``cur`` by ``choice``: counted, the stop polled every
        128 nodes (``Stop``), and kept (a copy) when it beats the best."""
        self.nodes += 1
        if self.nodes > self.limit or (self.stop is not None and (self.nodes & 127) == 0 and self.stop()):
            raise Stop
        if cur > self.best:
            self.best = cur
            self.best_choice = list(choice)

    def explore(self, search, *args) -> bool:
        """``search(*args)`` to its end (True: the run is exact) or to a ``Stop`` (False)."""
        try:
            search(*args)
        except Stop:
            return False
        return True

    def proven(self, floor: int, exact: bool) -> int:
        """The upper bound on X the run proved: its best (at least ``floor``), and when it was
        stopped, the bounds of the frames it left open."""
        return max([self.best, floor] + ([] if exact else self.frames))


def threshold_pair(threshold_sq) -> tuple[int, int]:
    """``threshold_sq`` (a Fraction, or integers (num, den) with den > 0) as (num, den)."""
    return threshold_sq if isinstance(threshold_sq, tuple) else (threshold_sq.numerator, threshold_sq.denominator)


def threshold_floor(threshold: tuple[int, int] | None, threshold_sq, scale: int) -> int:
    """The integer X = S·D (D = ``scale``) a search must beat strictly: S > ``threshold`` (a
    fraction (num, den)) and S² > ``threshold_sq``; −1 when neither is given (or a negative
    ``threshold_sq``). X² > Q·D² ⇔ X > isqrt(floor(Q·D²)) for integers X.

    >>> threshold_floor((1, 2), None, 4), threshold_floor(None, (9, 4), 2), threshold_floor(None, None, 3)
    (2, 3, -1)
    """
    t_floor = -1 if threshold is None else (threshold[0] * scale) // threshold[1]
    if threshold_sq is not None:
        tn, td = threshold_pair(threshold_sq)
        if tn >= 0:
            t_floor = max(t_floor, math.isqrt(tn * scale * scale // td))
    return t_floor


def pair_ok(g1, g2, u1: int, v1: int, u2: int, v2: int, mode: str) -> bool:
    """Whether (u1, v1) and (u2, v2) may both be in a mapping: the edges between them correspond
    in both directions (``mode`` "and", Eq. 12 as written) or in one (``mode`` "or"). ``g1`` and
    ``g2`` have ``has_edge(u, v)`` (the ports of the edges u→v)."""
    fwd = g1.has_edge(u1, u2) == g2.has_edge(v1, v2)
    bwd = g1.has_edge(u2, u1) == g2.has_edge(v2, v1)
    return (fwd and bwd) if mode == "and" else (fwd or bwd)


def consistent_subset(g1, g2, pairs: Iterable[tuple[int, int]], allowed, mode: str = "and"):
    """Keep pairs in order while they form a valid clique (used to warm-start from an old mapping)."""
    kept: list[tuple[int, int]] = []
    used1, used2 = set(), set()
    for u, v in pairs:
        if (u, v) not in allowed or u in used1 or v in used2:
            continue
        if all(pair_ok(g1, g2, u, v, a, b, mode) for a, b in kept):
            kept.append((u, v))
            used1.add(u)
            used2.add(v)
    return kept
