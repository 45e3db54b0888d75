"""S-expressions with positions: the reader shared by ``.lisp`` programs and ``.fbp`` arguments.

``read(text)`` returns one expression: an ``Atom`` (a number or a symbol, with its line and
column) or an ``SList`` (a list of expressions, with the position of its opening parenthesis).
Unbalanced parentheses raise ``FlatlandError`` at the offending parenthesis, and so does nesting
deeper than ``MAX_NESTING`` (the reader itself keeps an explicit stack).

>>> e = read("(move (* 2 r) 0)")
>>> [str(x) for x in e]
['move', '(* 2 r)', '0']
"""
from __future__ import annotations

import re

from gindex_studio.core.flatland.errors import FlatlandError
from gindex_studio.core.flows.nesting import MAX_DEPTH

MAX_NESTING = MAX_DEPTH  # parentheses inside one another: deeper input is refused (evaluating it recurses)
_TOKEN = re.compile(r'\s+|;[^\n]*|(\()|(\))|("[^"\n]*")|([^\s()";]+)')


class Atom:
    """A number (int or float) or a symbol (str) read from text, with where it was."""

    __slots__ = ("value", "line", "column")

    def __init__(self, value, line: int = 0, column: int = 0):
        self.value = value
        self.line = line
        self.column = column

    @property
    def is_symbol(self) -> bool:
        return isinstance(self.value, str)

    def __eq__(self, other):
        return isinstance(other, Atom) and type(other.value) is type(self.value) and other.value == self.value

    def __hash__(self):
        return hash(self.value)

    def __str__(self) -> str:
        return format_value(self.value)

    __repr__ = __str__


class SList(list):
    """A parenthesised list of expressions, with the position of its ``(``."""

    def __init__(self, items=(), line: int = 0, column: int = 0):
        super().__init__(items)
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return "(" + " ".join(str(x) for x in self) + ")"

    __repr__ = __str__


def format_value(value) -> str:
    """A number or symbol as program text: ints plainly, floats by ``repr`` (exact round trip),
    booleans as 1 / 0."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def atom_of(token: str, line: int, column: int) -> Atom:
    """A token as a number when it reads as one (int first, then float), else a symbol."""
    try:
        return Atom(int(token), line, column)
    except ValueError:
        pass
    try:
        value = float(token)
    except ValueError:
        return Atom(token, line, column)
    if value != value or value in (float("inf"), float("-inf")):
        return Atom(token, line, column)
    return Atom(value, line, column)


def tokens(text: str, line0: int = 1, column0: int = 1):
    """(kind, text, line, column) for each token: kind is ``(``, ``)``, ``str`` or ``atom``."""
    line, start_of_line = line0, -(column0 - 1)
    pos = 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:  # a lone double quote
            raise FlatlandError("unterminated string", line, pos - start_of_line + 1)
        col = pos - start_of_line + 1
        if m.group(1):
            yield "(", "(", line, col
        elif m.group(2):
            yield ")", ")", line, col
        elif m.group(3):
            yield "str", m.group(3), line, col
        elif m.group(4):
            yield "atom", m.group(4), line, col
        chunk = m.group(0)
        nl = chunk.count("\n")
        if nl:
            line += nl
            start_of_line = pos + chunk.rindex("\n") + 1
        pos = m.end()


def read_all(text: str, line0: int = 1, column0: int = 1) -> list:
    """Every top-level expression of ``text``. Strings (``"file.fbp"``) become symbols keeping their
    quotes."""
    stack: list[SList] = [SList()]
    for kind, tok, line, col in tokens(text, line0, column0):
        if kind == "(":
            if len(stack) > MAX_NESTING:
                raise FlatlandError(f"parentheses nested deeper than {MAX_NESTING} levels", line, col)
            stack.append(SList((), line, col))
        elif kind == ")":
            if len(stack) == 1:
                raise FlatlandError("unbalanced parenthesis: ')' without a matching '('", line, col)
            done = stack.pop()
            stack[-1].append(done)
        elif kind == "str":
            stack[-1].append(Atom(tok, line, col))
        else:
            stack[-1].append(atom_of(tok, line, col))
    if len(stack) > 1:
        open_ = stack[-1]
        raise FlatlandError("unbalanced parenthesis: '(' is never closed", open_.line, open_.column)
    return list(stack[0])


def read(text: str, line0: int = 1, column0: int = 1):
    """Exactly one expression. Raises FlatlandError for none, several, or unbalanced input."""
    exprs = read_all(text, line0, column0)
    if not exprs:
        raise FlatlandError("expected an expression, found nothing", line0, column0)
    if len(exprs) > 1:
        extra = exprs[1]
        raise FlatlandError(f"unexpected {str(extra)!r} after the expression", extra.line, extra.column)
    return exprs[0]
