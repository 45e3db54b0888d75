"""Reading flow files off the GUI thread, with limits that keep hostile files harmless.

``LoadJob(path)`` runs in a QThreadPool; ``done(token, flow, error)`` arrives on the GUI thread.
Errors are one-paragraph messages a person can act on; nothing raised escapes the worker.
"""
from __future__ import annotations

import os

from PySide6.QtCore import QObject, QRunnable, Signal

from gindex_studio.core.flow import FlowError, read_flow_bytes

MAX_BYTES = 200 * 1024 * 1024
#: files above this size are first sized up in a child process: parsing holds Python's GIL, and a
#: second-long parse on a worker thread would still stall the window
PRESCAN_BYTES = 8 * 1024 * 1024

_PRESCAN = """
import sys, orjson
try:
    v = orjson.loads(open(sys.argv[1], 'rb').read())
except Exception:
    print(-1); raise SystemExit
if isinstance(v, dict):
    v = v.get('flow') if isinstance(v.get('flow'), list) else v.get('flows')
print(len(v) if isinstance(v, list) else -1)
"""


def count_entries_elsewhere(path: str) -> int | None:
    """Entries of the node array, counted by a child process (None: unknown, -1: not readable)."""
    import subprocess
    import sys

    try:
        r = subprocess.run([sys.executable, "-c", _PRESCAN, path], capture_output=True, text=True, timeout=120)
        return int(r.stdout.strip())
    except Exception:
        return None
MAX_NODES = 5_000  # building the scene stays under ~2 s


class LoadSignals(QObject):
    done = Signal(object, object, str)  # token, Flow | None, error message


def load_flow(path: str):
    """(Flow, "") or (None, reason). Never raises. ``.fbp`` / ``.lisp`` files are Flatland programs."""
    from .flatland.files import is_flatland_path, load_flatland_flow

    if is_flatland_path(path) and os.path.isfile(path):
        return load_flatland_flow(path)
    try:
        size = os.path.getsize(path)
    except OSError as e:
        return None, f"{path}\n\ncannot be opened: {e.strerror or e}."
    if os.path.isdir(path):
        return None, f"{path}\n\nis a folder, not a flow file."
    if size > MAX_BYTES:
        return None, f"{path}\n\nis {size / 1e6:.0f} MB; the editor opens files up to {MAX_BYTES // 2**20} MB."
    if size > PRESCAN_BYTES:
        n = count_entries_elsewhere(path)
        if n is not None and n > MAX_NODES:
            return None, _too_many(path, n)
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
        return None, _too_many(path, len(flow.nodes))
    if not flow.nodes and flow.invalid:
        return None, f"{path}\n\nholds {len(flow.invalid)} entries but none is a node object with a string id and type."
    return flow, ""


def _too_many(path: str, n: int) -> str:
    return (f"{path}\n\nholds {n:,} nodes; the editor opens flows of up to {MAX_NODES:,} nodes. "
            "The scoring commands (gindex-studio score …) read it without this limit.")


class LoadJob(QRunnable):
    def __init__(self, path: str, token):
        super().__init__()
        self.path, self.token = path, token
        self.signals = LoadSignals()

    def run(self):
        flow, err = load_flow(self.path)
        self.signals.done.emit(self.token, flow, err)
