"""The one error type of Flatland programs: a message a person can act on, with where it is."""
from __future__ import annotations


class FlatlandError(Exception):
    """A Flatland program that cannot be read, resolved or run.

    ``file``, ``line`` and ``column`` (1-based) say where, when known; ``str(error)`` is one line:
    ``file:line:column: message``.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None, file: str | None = None):
        self.message = message
        self.line = line
        self.column = column
        self.file = file
        super().__init__(self._text())

    def _text(self) -> str:
        where = [str(x) for x in (self.file, self.line, self.column) if x is not None]
        return f"{':'.join(where)}: {self.message}" if where else self.message

    def in_file(self, file: str) -> "FlatlandError":
        """The same error, naming ``file`` when it does not name one yet."""
        if self.file is None:
            return FlatlandError(self.message, self.line, self.column, file)
        return self


class RunawayError(FlatlandError):
    """A program that would run (practically) forever: too many node firings or segments."""
