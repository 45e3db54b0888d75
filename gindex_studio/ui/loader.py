"""Reading flow files off the GUI thread, with limits that keep hostile files harmless.

The only limit is memory (``core.limits``): a file whose estimated footprint exceeds the free
memory is refused before it is read, with both figures. A node count never refuses a file: what
the editor saves it opens again. Temporary files left next to it by a killed save are removed.

``LoadJob(path)`` runs in a QThreadPool; ``done(token, flow, error)`` arrives on the GUI thread.
Errors are one-paragraph messages a person can act on; nothing raised escapes the worker.
"""
from __future__ import annotations

import os

from PySide6.QtCore import QObject, QRunnable, Signal

from gindex_studio.core.flows.files import remove_stale_temps
from gindex_studio.core.flows.flow import FlowError, read_flow_bytes
from gindex_studio.core.runtime.limits import editor_memory_needed, human_bytes, too_big

#: a flow with more nodes opens, but the status bar says that drawing it may be slow
LARGE_FLOW_NODES = 5_000


class LoadSignals(QObject):
    done = Signal(object, object, str)  # token, Flow | None, error message


def load_flow(path: str):
    """(Flow, "") or (None, reason). Never raises. ``.fbp`` / ``.lisp`` files are Flatland programs."""
    from gindex_studio.ui.flatland.files import is_flatland_path, load_flatland_flow

    if is_flatland_path(path) and os.path.isfile(path):
        return load_flatland_flow(path)
    try:
        size = os.path.getsize(path)
    except OSError as e:
        return None, f"{path}\n\ncannot be opened: {e.strerror or e}."
    if os.path.isdir(path):
        return None, f"{path}\n\nis a folder, not a flow file."
    reason = too_big(f"opening this {human_bytes(size)} file", editor_memory_needed(size))
    if reason:
        return None, f"{path}\n\ncannot be opened: {reason}."
    remove_stale_temps(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
        flow = read_flow_bytes(data)
    except FlowError as e:
        return None, f"{path}\n\ncannot be opened: {e}.\n\nA flow file is a JSON array of Node-RED nodes, a dataset object with a \"flow\" array, or a Node-RED {{\"flows\": [...]}} object."
    except MemoryError:
        return None, f"{path}\n\nis too large to read into memory."
    except RecursionError:
        return None, f"{path}\n\ncannot be opened: its JSON is nested too deeply."
    except Exception as e:  # a hostile file must never take the studio down
        return None, f"{path}\n\ncannot be opened: {type(e).__name__}: {e}"
    if not flow.nodes and flow.invalid:
        return None, f"{path}\n\nholds {len(flow.invalid)} entries but none is a node object with a string id and type."
    return flow, ""


class LoadJob(QRunnable):
    def __init__(self, path: str, token):
        super().__init__()
        self.path, self.token = path, token
        self.signals = LoadSignals()

    def run(self):
        flow, err = load_flow(self.path)
        self.signals.done.emit(self.token, flow, err)
