"""Reading flow files off the GUI thread, with limits that keep hostile files harmless.

``LoadJob(path)`` runs in a QThreadPool; ``done(token, flow, error)`` arrives on the GUI thread.
Errors are one-paragraph messages a person can act on; nothing raised escapes the worker.
"""
from __future__ import annotations

import os

from PySide6.QtCore import QObject, QRunnable, Signal

from gindex_studio.core.flow import FlowError, read_flow_bytes

MAX_BYTES = 200 * 1024 * 1024
MAX_NODES = 20_000


class LoadSignals(QObject):
    done = Signal(object, object, str)  # token, Flow | None, error message


def load_flow(path: str):
    """(Flow, "") or (None, reason). Never raises."""
    try:
        size = os.path.getsize(path)
    except OSError as e:
        return None, f"{path}\n\ncannot be opened: {e.strerror or e}."
    if os.path.isdir(path):
        return None, f"{path}\n\nis a folder, not a flow file."
    if size > MAX_BYTES:
        return None, f"{path}\n\nis {size / 1e6:.0f} MB; the editor opens files up to {MAX_BYTES // 2**20} MB."
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
    if len(flow.nodes) > MAX_NODES:
        return None, (f"{path}\n\nholds {len(flow.nodes):,} nodes; the editor opens flows of up to {MAX_NODES:,} nodes. "
                      "The scoring commands (gindex-studio score …) read it without this limit.")
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
