"""LISP argument expressions: numbers, parameters and arithmetic, evaluated in a scope chain.

The names are those the reference offers: ``+ - * / %``, comparisons, ``abs min max round expt``,
``if``, and everything in Python's ``math`` (``sin cos sqrt pi`` …; angles in radians). ``+`` and
``*`` take any number of arguments, ``-`` one or two. Errors name the symbol or form and where it is.

>>> evaluate(read("(* radius (sin (/ pi 2)))"), Scope({"radius": 3}))
3.0
"""
from __future__ import annotations

import math
import operator

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flatland.sexpr import Atom, SList, read  # noqa: F401  (read: doctest)


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
    return sum(xs)


def _product(*xs):
    out = 1
    for x in xs:
        out = out * x
    return out


BUILTINS: dict = {k: v for k, v in vars(math).items() if not k.startswith("_")}
BUILTINS.update({
    "+": _sum, "-": _sub, "*": _product, "/": _binary(operator.truediv), "%": _binary(operator.mod),
    "=": _binary(operator.eq), ">": _binary(operator.gt), "<": _binary(operator.lt),
    ">=": _binary(operator.ge), "<=": _binary(operator.le), "not": operator.not_,
    "abs": abs, "min": min, "max": max, "round": round, "expt": pow, "int": int, "float": float,
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
        if not expr.is_symbol:
            return expr.value
        try:
            return scope.lookup(expr.value)
        except KeyError:
            raise FlatlandError(f"unknown name {expr.value!r}", expr.line, expr.column) from None
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
        return fn(*args)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError) as e:
        raise FlatlandError(f"{expr}: {e}", expr.line, expr.column) from None


def is_literal(expr) -> bool:
    """True for an integer literal: the constants the augmenter may redraw (as the reference,
    which redraws int literals and keeps float literals and expressions)."""
    return isinstance(expr, Atom) and type(expr.value) is int
