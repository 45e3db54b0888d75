"""The one way to read a pair of programs: the reference strictly (it is hand-written and must be
a valid flow), the generated program leniently (it is raw model output: fences, prose, trailing
commas, truncation; spec §4). Used by the CLI, the compare view and experiments alike.

``profile`` is a ``Profile`` or a registered profile's name (None: the default profile). A profile
with a ``reader`` (``Profile.reader``: the flatland profile's programs are ``.fbp``, ``.lisp`` or
flat JSON) has its programs read by that module with the same contract (strict errors are
FlowErrors with one line). A reader module has ``read_generated(text, suffix)`` and
``generated_from_value(value)`` (each (flow, syntax issue)), ``read_strict(path)`` and
``from_value(value)`` (raising ``StrictError``), ``folder_files(folder)`` (the programs directly
in a folder), ``files_below(path)`` (a file, or the programs anywhere below a folder) and
``read_curriculum(root)`` ((flows, domains, labels) of a curriculum folder, raising
``StrictError``).

>>> from gindex_studio.paths import DEMO_DIR
>>> p = read_pair(f"{DEMO_DIR}/programs/gmail-send/gmail-send-4.json", f"{DEMO_DIR}/generated/gmail-send-4.txt")
>>> len(p.reference.nodes) > 0, p.generated.flow is not None
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from gindex_studio.core.flows.flow import Flow, FlowError, flow_from_value, no_node_reason, read_flow_file, read_user_file
from gindex_studio.core.flows.lenient import LenientRead, read_model_output
from gindex_studio.core.support import profiles


class PairError(FlowError):
    """One program of a pair could not be read; ``side`` is "reference" or "generated"."""

    def __init__(self, side: str, message: str):
        super().__init__(message)
        self.side = side


@dataclass
class GeneratedRead:
    """A generated program as read: the flow, the syntax error (None if the text was clean JSON)
    and the text exactly as the model wrote it (decoded as UTF-8, bad bytes replaced; None for a
    program given as parsed JSON)."""

    flow: Flow
    syntax: object  # SyntaxIssue | None
    text: str | None

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


def _reader(profile):
    """The reader module of ``profile`` (``Profile.reader_module``), or None for Node-RED flow JSON."""
    return profiles.get(profile).reader_module()


def _strict(reader, read, *args) -> Flow:
    """A strict read by a profile's reader; its ``StrictError`` as a FlowError (same one line)."""
    try:
        return read(*args)
    except reader.StrictError as e:
        raise FlowError(str(e)) from None


def read_generated_text(text: str | bytes, profile=None, suffix: str | None = None) -> GeneratedRead:
    """Model output given as text or bytes, read leniently (``suffix``: the file's, if any)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    reader = _reader(profile)
    if reader is not None:
        return GeneratedRead(*reader.read_generated(text, suffix), text)
    read = read_model_output(text)
    return GeneratedRead(read.flow, read.syntax, text)


def read_generated_file(path: str | Path, profile=None) -> GeneratedRead:
    """A generated program file, read leniently. Raises FlowError (missing, a folder, unreadable)."""
    return read_generated_text(read_user_file(path, "a generated program"), profile, Path(path).suffix)


def read_generated_value(value, profile=None) -> GeneratedRead:
    """A generated program given as parsed JSON (an experiment's inline ``{"json": ...}``): a flow
    if it is one, else read leniently as model output (``text`` is None: there was none)."""
    reader = _reader(profile)
    if reader is not None:
        return GeneratedRead(*reader.generated_from_value(value), None)
    try:
        return GeneratedRead(flow_from_value(value), None, None)
    except FlowError:
        # inline JSON that is no flow is still model output: read it leniently (empty flow, Δ = 1)
        read = read_generated_text(orjson.dumps(value), profile)
        return GeneratedRead(read.flow, read.syntax, None)


def read_reference_file(path: str | Path, profile=None) -> Flow:
    """A reference program file, read strictly. Raises FlowError with one line."""
    reader = _reader(profile)
    if reader is not None:
        return _strict(reader, reader.read_strict, path)
    return read_flow_file(path)


def read_reference_value(value, profile=None) -> Flow:
    """A reference program given as parsed JSON, read strictly. Raises FlowError."""
    reader = _reader(profile)
    if reader is not None:
        return _strict(reader, reader.from_value, value)
    flow = flow_from_value(value)
    reason = no_node_reason(flow)
    if reason:
        raise FlowError(reason)
    return flow


def program_files(folder: str | Path, profile=None) -> list[Path]:
    """The program files directly inside ``folder``, sorted (Flatland: one per name)."""
    reader = _reader(profile)
    if reader is not None:
        return reader.folder_files(Path(folder))
    from gindex_studio.core.flows.folders import program_files as regular_files

    return regular_files(folder, profiles.get(profile).suffixes)


def program_kinds(profile=None) -> str:
    """What ``program_files`` looks for, for messages (``Profile.kind_names``)."""
    return profiles.get(profile).kind_names


def read_pair(reference_path: str | Path, generated_path: str | Path, profile=None) -> Pair:
    """Both programs of a comparison. Raises PairError (a FlowError) naming the side and file."""
    try:
        reference = read_reference_file(reference_path, profile)
    except FlowError as e:
        raise PairError("reference", str(e)) from None
    try:
        generated = read_generated_file(generated_path, profile)
    except FlowError as e:
        raise PairError("generated", str(e)) from None
    return Pair(reference, generated)
