"""Node weight w(a, b) of the ``flatland`` Δ profile (spec §3), as an exact fraction (num, den).

- different types: 0;
- move: (1[dist equal] + 1[penup equal]) / 2;
- turn: max(0, 1 − |(θa mod 360) − (θb mod 360)| / 360) (not circular);
- loop: (1[start equal] + 1[end equal]) / 2 (the counter name is ignored);
- info: (p + h) / 2, p = the mean over x and y of max(0, 1 − |a − b| / 128), each term and the
  mean rounded to 2 decimals (as the reference), h = the turn formula on theta.

Angles are taken mod 360 in floating point as the reference does, then compared on a grid of
10⁻⁶ degree (``ANGLE_GRID``), so every weight is a fraction with a small denominator and the
search adds integers; the weight differs from the floating-point formula by < 3·10⁻⁹.

>>> weight("turn", {"theta": 90}, "turn", {"theta": 180})
(3, 4)
>>> weight("info", {"position": [64, 64], "theta": 0}, "info", {"position": [0, 64], "theta": 0})
(7, 8)

(p = mean(1 − 64/128, 1 − 0/128) = 0.75, h = 1, so w = (0.75 + 1) / 2 = 7/8.)
"""
from __future__ import annotations

import math
from fractions import Fraction

ANGLE_GRID = 10**6


def _angle(theta) -> Fraction:
    return Fraction(round((float(theta) % 360.0) * ANGLE_GRID), ANGLE_GRID)


def turn_weight(a, b) -> Fraction:
    return max(Fraction(0), 1 - abs(_angle(a) - _angle(b)) / 360)


def _round2(x: float) -> float:
    """numpy.round(x, 2) as the reference computes it: rint(x · 100) / 100 in floating point."""
    return round(x * 100.0) / 100.0


def position_weight(pa, pb) -> Fraction:
    """p of the info weight: exactly a multiple of 1/100."""
    terms = [_round2(max(0.0, 1 - abs(float(a) - float(b)) / 128)) for a, b in zip(pa, pb)]
    return Fraction(round(_round2(sum(terms) / len(terms)) * 100), 100)


def weight_fraction(ta: str, pa: dict, tb: str, pb: dict) -> Fraction:
    """w as a Fraction; see the module docstring."""
    if ta != tb:
        return Fraction(0)
    try:
        if ta == "move":
            return Fraction((pa["dist"] == pb["dist"]) + (bool(pa["penup"]) == bool(pb["penup"])), 2)
        if ta == "turn":
            return turn_weight(pa["theta"], pb["theta"])
        if ta == "loop":
            return Fraction((pa["start"] == pb["start"]) + (pa["end"] == pb["end"]), 2)
        if ta == "info":
            return (position_weight(pa["position"], pb["position"]) + turn_weight(pa["theta"], pb["theta"])) / 2
    except (KeyError, TypeError, ValueError):
        return Fraction(0)
    return Fraction(0)


_TURN = 360 * ANGLE_GRID  # a turn weight is (_TURN − |Δ angle on the grid|) / _TURN


def _grid(theta) -> int:
    """``_angle`` × ANGLE_GRID: the angle on the grid, an integer."""
    return round((float(theta) % 360.0) * ANGLE_GRID)


def _lowest(num: int, den: int) -> tuple[int, int]:
    if num <= 0:
        return 0, 1
    g = math.gcd(num, den)
    return num // g, den // g


def weight(ta: str, pa: dict, tb: str, pb: dict) -> tuple[int, int]:
    """w as (numerator, denominator) in lowest terms; (0, 1) when zero: ``weight_fraction``
    computed in integers (the same value; Ω meets hundreds of thousands of parameter pairs)."""
    if ta != tb:
        return 0, 1
    try:
        if ta == "move":
            return _lowest((pa["dist"] == pb["dist"]) + (bool(pa["penup"]) == bool(pb["penup"])), 2)
        if ta == "turn":
            return _lowest(_TURN - abs(_grid(pa["theta"]) - _grid(pb["theta"])), _TURN)
        if ta == "loop":
            return _lowest((pa["start"] == pb["start"]) + (pa["end"] == pb["end"]), 2)
        if ta == "info":
            h = max(0, _TURN - abs(_grid(pa["theta"]) - _grid(pb["theta"])))  # h · _TURN
            p = position_weight(pa["position"], pb["position"])  # a multiple of 1/100
            return _lowest(p.numerator * (_TURN // p.denominator) + h, 2 * _TURN)
    except (KeyError, TypeError, ValueError):
        return 0, 1
    return 0, 1


_CACHE: dict = {}
_CACHE_LIMIT = 200_000


def weight_of_signatures(a, b) -> tuple[int, int]:
    """``weight`` of two ``similarity.Signature`` values, remembered by their (type, items): the
    same parameters give the same weight, and scoring many programs meets the same pairs often."""
    key = (a.type, a.items, b.type, b.items)
    w = _CACHE.get(key)
    if w is None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        w = _CACHE[key] = weight(a.type, a.values, b.type, b.values)
    return w
