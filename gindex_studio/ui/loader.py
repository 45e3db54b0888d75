"""Reading flow files off the GUI thread, with limits that keep hostile files harmless.

Every file goes through the guarded reader (``core.flows.files.read_user_bytes``): a pipe, a
device, a socket or a folder is refused without being read, and so is a file over the input size
limit. Otherwise the only limit is memory (``core.limits``): a file whose estimated footprint
exceeds the free memory is refused before it is read, with both figures. A node count never refuses
a file: what the editor saves it opens again. Temporary files left next to it by a killed save are
removed.

``LoadJob(path)`` runs in a QThreadPool; ``done(token, flow, error)`` arrives on the GUI thread.
Errors are one-paragraph messages a person can act on; nothing raised escapes the worker.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, QRunnable, Signal

from gindex_studio.core.flows.files import UserFileError, check_user_file, read_user_bytes, remove_stale_temps
from gindex_studio.core.flows.flow import FlowError, no_node_reason, read_flow_bytes
from gindex_studio.core.flows.sniff import binary_kind
from gindex_studio.core.support.limits import editor_memory_needed, human_bytes, too_big

#: a flow with more nodes opens, but the status bar says that drawing it may be slow
LARGE_FLOW_NODES = 5_000


@dataclass(frozen=True)
class Recovered:
    """A damaged flow file (truncated, trailing text): what could be read, and where it broke.
    The app offers to open it as a new, unsaved document, never over the original."""

    flow: object
    syntax: object  # core.flows.lenient.SyntaxIssue

    @property
    def nodes(self) -> int:
        return len(self.flow.nodes)


class LoadSignals(QObject):
    done = Signal(object, object, str)  # token, Flow | None, error message


def load_flow(path: str):
    """(Flow, "") or (None, reason), or (Recovered, reason) for a damaged JSON flow of which
    some nodes can be read. Never raises. ``.fbp`` / ``.lisp`` files are Flatland programs; a
    binary file is named for what it is ("a PNG image")."""
    from gindex_studio.ui.flatland.files import is_flatland_path, load_flatland_flow

    try:
        size = check_user_file(path, "a flow file").st_size
    except UserFileError as e:
        return None, _refusal(e)
    if is_flatland_path(path):
        return load_flatland_flow(path)
    reason = too_big(f"opening this {human_bytes(size)} file", editor_memory_needed(size))
    if reason:
        return None, f"{path}\n\ncannot be opened: {reason}."
    remove_stale_temps(path)
    try:
        data = read_user_bytes(path, "a flow file")
    except UserFileError as e:  # swapped for a pipe, grown or unreadable since the check
        return None, _refusal(e)
    try:
        kind = binary_kind(data)
        if kind:
            return None, f"{path}\n\nis {kind}, not a flow."
        flow = read_flow_bytes(data)
    except FlowError as e:
        recovered = _recover(data)
        if recovered is not None:
            s = recovered.syntax
            return recovered, (f"{path}\n\nis damaged: {s.message} (line {s.line}, column {s.column}). "
                               f"{recovered.nodes} node{'s' if recovered.nodes != 1 else ''} can be recovered.")
        return None, f"{path}\n\ncannot be opened: {e}.\n\nA flow file is a JSON array of Node-RED nodes, a dataset object with a \"flow\" array, or a Node-RED {{\"flows\": [...]}} object."
    except MemoryError:
        return None, f"{path}\n\nis too large to read into memory."
    except RecursionError:
        return None, f"{path}\n\ncannot be opened: its JSON is nested too deeply."
    except Exception as e:  # a hostile file must never take the studio down
        return None, f"{path}\n\ncannot be opened: {type(e).__name__}: {e}"
    reason = no_node_reason(flow)
    if reason:
        return None, f"{path}\n\n{reason}."
    return flow, ""


def _refusal(e: UserFileError) -> str:
    """The message for a file the guarded reader refused ("PATH\\n\\nis a named pipe ...")."""
    if e.reason.startswith("is "):
        return f"{e.path}\n\n{e.reason}."
    return f"{e.path}\n\ncannot be opened: {e.reason}."


def _recover(data: bytes) -> Recovered | None:
    """What the lenient reader (the one Compare uses for model output) recovers, when anything."""
    from gindex_studio.core.flows.lenient import read_model_output

    try:
        r = read_model_output(data)
    except Exception:  # the strict reader's message stands
        return None
    if r.syntax is None or not r.flow.nodes:
        return None
    return Recovered(r.flow, r.syntax)


class LoadJob(QRunnable):
    def __init__(self, path: str, token):
        super().__init__()
        self.path, self.token = path, token
        self.signals = LoadSignals()

    def run(self):
        flow, err = load_flow(self.path)
        self.signals.done.emit(self.token, flow, err)
