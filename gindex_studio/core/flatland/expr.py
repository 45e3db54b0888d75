"""LISP argument expressions: numbers, parameters and arithmetic, evaluated in a scope chain.

The names are those the reference offers: ``+ - * / %``, comparisons, ``abs min max round expt``,
``if``, and everything in Python's ``math`` (``sin cos sqrt pi`` …; angles in radians). ``+`` and
``*`` take any number of arguments, ``-`` one or two. Errors name the symbol or form and where it is.

Programs are model output, so arithmetic is bounded (the limit): every value is a finite number
of magnitude below ``2 ** MAX_BITS`` (2^1024 ≈ 1.8e308, the range of a float). An operation whose
result would leave that range is refused before it is computed: ``expt`` by a bit-length
estimate, ``factorial`` / ``comb`` / ``perm`` / ``lcm`` / ``*`` step by step, each step checked,
so at most about a thousand small steps; ``round``'s digits are clamped to where they still
matter. ``inf``, ``nan`` and anything non-finite is an error. A hostile expression such as
``(factorial 100000000)`` or ``(expt 10 (expt 10 10))`` is refused in microseconds.

>>> evaluate(read("(* radius (sin (/ pi 2)))"), Scope({"radius": 3}))
3.0
"""
from __future__ import annotations

import math
import operator

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.sexpr import Atom, SList, read  # noqa: F401  (read: doctest)

MAX_BITS = 1024
_LIMIT_TEXT = "2^1024"


class LimitError(ArithmeticError):
    """A value or an operation outside the documented range (see the module docstring)."""


def check_value(v):
    """``v`` when it is a number within the limit; else LimitError saying why."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        if v.bit_length() > MAX_BITS:
            raise LimitError(f"the result has {v.bit_length():,} bits, beyond the limit of {_LIMIT_TEXT}")
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise LimitError(f"the result is {v!r}, not a finite number")
        return v
    raise LimitError(f"the result is a {type(v).__name__}, not a number")


def _too_big(what: str) -> LimitError:
    return LimitError(f"{what} would exceed the limit of {_LIMIT_TEXT}")


def _int_args(name: str, *xs) -> None:
    for x in xs:
        if not isinstance(x, int):
            raise TypeError(f"{name} takes integers, got {x!r}")


def _sub(*xs):
    if len(xs) == 1:
        return -xs[0]
    if len(xs) != 2:
        raise TypeError("- takes one or two arguments")
    return xs[0] - xs[1]


def _binary(fn):
    def call(*xs):
        if len(xs) != 2:
            raise TypeError("takes two arguments")
        return fn(*xs)

    return call


def _sum(*xs):
    out = 0
    for x in xs:
        out = check_value(out + x)
    return out


def _product(*xs):
    out = 1
    for x in xs:
        out = check_value(out * x)  # each factor is within the limit: one step is cheap
    return out


def _expt(base, exp, mod=None):
    """``pow``: integer powers are estimated before computing: |base| ≥ 2 and exp > 0 give at
    least (bits(base) − 1) · exp bits."""
    if mod is None and isinstance(base, int) and isinstance(exp, int) and exp > 0 and abs(base) >= 2:
        if (abs(base).bit_length() - 1) * exp > MAX_BITS:
            raise _too_big(f"{base} to the power {exp}")
    if isinstance(base, float) or isinstance(exp, float):
        try:
            return math.pow(base, exp) if mod is None else pow(base, exp, mod)
        except OverflowError:
            raise _too_big(f"{base} to the power {exp}") from None
    return pow(base, exp) if mod is None else pow(base, exp, mod)


def _factorial(n):
    _int_args("factorial", n)
    if n < 0:
        raise ValueError("factorial is not defined for negative numbers")
    return _perm(n, n)


def _perm(n, k=None):
    """n · (n−1) · … · (n−k+1), checked after each factor (each but the last is ≥ 2, so the product
    passes the limit within about MAX_BITS steps)."""
    k = n if k is None else k
    _int_args("perm", n, k)
    if n < 0 or k < 0:
        raise ValueError("perm needs non-negative integers")
    if k > n:
        return 0
    out = 1
    for f in range(n, n - k, -1):
        out *= f
        if out.bit_length() > MAX_BITS:
            raise _too_big(f"perm({n}, {k})" if k != n else f"factorial({n})")
    return out


def _comb(n, k):
    """C(n, k) as C(n, i+1) = C(n, i) · (n − i) / (i + 1) for i < min(k, n − k), checked after each
    step: C(n, i) ≥ 2^i there, so it passes the limit within about MAX_BITS steps."""
    _int_args("comb", n, k)
    if n < 0 or k < 0:
        raise ValueError("comb needs non-negative integers")
    if k > n:
        return 0
    k = min(k, n - k)
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
        if out.bit_length() > MAX_BITS:
            raise _too_big(f"comb({n}, {k})")
    return out


def _lcm(*xs):
    out = 1
    for x in xs:
        _int_args("lcm", x)
        out = check_value(math.lcm(out, x))
    return out


def _round(x, ndigits=None):
    if ndigits is None:
        return round(x)
    _int_args("round", ndigits)
    # beyond ±400 digits, a value below 2^1024 (309 digits) rounds the same: no 10^|ndigits| is built
    return round(x, max(-400, min(400, ndigits)))


BUILTINS: dict = {k: v for k, v in vars(math).items() if not k.startswith("_")}
BUILTINS.update({
    "+": _sum, "-": _sub, "*": _product, "/": _binary(operator.truediv), "%": _binary(operator.mod),
    "=": _binary(operator.eq), ">": _binary(operator.gt), "<": _binary(operator.lt),
    ">=": _binary(operator.ge), "<=": _binary(operator.le), "not": operator.not_,
    "abs": abs, "min": min, "max": max, "round": _round, "expt": _expt, "int": int, "float": float,
    "factorial": _factorial, "perm": _perm, "comb": _comb, "lcm": _lcm, "prod": _product,
})


class Scope:
    """Names visible to an expression: ``values``, then the ``outer`` scope, then BUILTINS."""

    def __init__(self, values: dict | None = None, outer: "Scope | None" = None):
        self.values = dict(values or {})
        self.outer = outer

    def lookup(self, name: str):
        scope = self
        while scope is not None:
            if name in scope.values:
                return scope.values[name]
            scope = scope.outer
        if name in BUILTINS:
            return BUILTINS[name]
        raise KeyError(name)


def where(expr) -> tuple[int | None, int | None]:
    """(line, column) of an expression, or (None, None)."""
    return getattr(expr, "line", None), getattr(expr, "column", None)


def evaluate(expr, scope: Scope):
    """The value of ``expr`` (an Atom, an SList, or an already plain number)."""
    if isinstance(expr, Atom):
        try:
            value = scope.lookup(expr.value) if expr.is_symbol else expr.value
        except KeyError:
            raise FlatlandError(f"unknown name {_short(expr.value, 40)!r}", expr.line, expr.column) from None
        if callable(value):
            return value
        try:
            return check_value(value)
        except LimitError as e:
            raise FlatlandError(f"{_short(expr)}: {str(e).replace('the result', 'its value')}", expr.line,
                                expr.column) from None
    if isinstance(expr, (int, float)):
        return expr
    if not isinstance(expr, SList):
        raise FlatlandError(f"cannot evaluate {expr!r}", *where(expr))
    if not expr:
        raise FlatlandError("empty expression ()", expr.line, expr.column)
    head = expr[0]
    if isinstance(head, Atom) and head.value == "if":
        if len(expr) != 4:
            raise FlatlandError("(if test then else) takes three expressions", expr.line, expr.column)
        return evaluate(expr[2] if evaluate(expr[1], scope) else expr[3], scope)
    fn = evaluate(head, scope)
    if not callable(fn):
        raise FlatlandError(f"{str(head)!r} is not a function", *where(head))
    args = [evaluate(a, scope) for a in expr[1:]]
    try:
        return check_value(fn(*args))
    except OverflowError:
        raise FlatlandError(f"{_short(expr)}: the result would exceed the limit of {_LIMIT_TEXT}",
                            expr.line, expr.column) from None
    except (TypeError, ValueError, ArithmeticError) as e:
        raise FlatlandError(f"{_short(expr)}: {e}", expr.line, expr.column) from None


def _short(expr, n: int = 60) -> str:
    """An expression as text, cut to ``n`` characters (a hostile one can be long)."""
    text = str(expr)
    return text if len(text) <= n else text[: n - 1] + "…"


def is_literal(expr) -> bool:
    """True for an integer literal: the constants the augmenter may redraw (as the reference,
    which redraws int literals and keeps float literals and expressions)."""
    return isinstance(expr, Atom) and type(expr.value) is int
