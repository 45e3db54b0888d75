"""The one way to read a pair of programs: the reference strictly (it is hand-written and must be
a valid flow), the generated program leniently (it is raw model output: fences, prose, trailing
commas, truncation; spec §4). Used by the CLI, the compare view and experiments alike.

>>> from gindex_studio.paths import DEMO_DIR
>>> p = read_pair(f"{DEMO_DIR}/programs/gmail-send/gmail-send-4.json", f"{DEMO_DIR}/generated/gmail-send-4.txt")
>>> len(p.reference.nodes) > 0, p.generated.flow is not None
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .flow import Flow, FlowError, read_flow_file, read_user_file
from .lenient import LenientRead, read_model_output


class PairError(FlowError):
    """One program of a pair could not be read; ``side`` is "reference" or "generated"."""

    def __init__(self, side: str, message: str):
        super().__init__(message)
        self.side = side


@dataclass
class GeneratedRead:
    """A generated program as read: the flow, the syntax error (None if the text was clean JSON)
    and the text exactly as the model wrote it (decoded as UTF-8, bad bytes replaced)."""

    flow: Flow
    syntax: object  # SyntaxIssue | None
    text: str

    @property
    def lenient(self) -> LenientRead:
        return LenientRead(self.flow, self.syntax)


@dataclass
class Pair:
    reference: Flow
    generated: GeneratedRead

    @property
    def text(self) -> str:
        return self.generated.text


def read_generated_text(text: str | bytes) -> GeneratedRead:
    """Model output given as text or bytes, read leniently."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    read = read_model_output(text)
    return GeneratedRead(read.flow, read.syntax, text)


def read_generated_file(path: str | Path) -> GeneratedRead:
    """A generated program file, read leniently. Raises FlowError (missing, a folder, unreadable)."""
    return read_generated_text(read_user_file(path, "a generated program"))


def read_reference_file(path: str | Path) -> Flow:
    """A reference program file, read strictly. Raises FlowError with one line."""
    return read_flow_file(path)


def read_pair(reference_path: str | Path, generated_path: str | Path) -> Pair:
    """Both programs of a comparison. Raises PairError (a FlowError) naming the side and file."""
    try:
        reference = read_reference_file(reference_path)
    except FlowError as e:
        raise PairError("reference", str(e)) from None
    try:
        generated = read_generated_file(generated_path)
    except FlowError as e:
        raise PairError("generated", str(e)) from None
    return Pair(reference, generated)
