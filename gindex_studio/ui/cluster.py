"""The Dask cluster the studio's windows compute on, when the user chose one (Preferences →
Dask scheduler, or ``$GINDEX_SCHEDULER``); otherwise they compute on this computer.

``preferred_scheduler()`` is the address to use (None: this computer). ``client_for(address)``
connects once per address and keeps the connection for the process (a ``distributed.Client`` is
safe to share between threads); call it from a worker thread, since reaching a scheduler can take
up to ``CONNECT_TIMEOUT``. Raises ``ClusterError`` with one line (Dask missing, scheduler not
answering). Dask is imported only when a cluster is used.
"""
from __future__ import annotations

import os
import threading

from gindex_studio.core.support.cluster import SCHEDULER_ENV, ClusterError, connect

#: seconds to wait for a scheduler to answer
CONNECT_TIMEOUT = 10.0

_clients: dict[str, object] = {}
_lock = threading.Lock()


def preferred_scheduler() -> str | None:
    """The scheduler address from the preferences, else ``$GINDEX_SCHEDULER``, else None."""
    from gindex_studio.ui.preferences import Preferences, studio_settings

    return Preferences.load(studio_settings()).scheduler or os.environ.get(SCHEDULER_ENV) or None


def client_for(address: str):
    """A connected ``distributed.Client`` for ``address`` (reused while it stays connected)."""
    with _lock:
        client = _clients.get(address)
        if client is not None and client.status == "running":
            return client
        client = connect(address, timeout=CONNECT_TIMEOUT)
        _clients[address] = client
        return client


def disconnect(address: str) -> None:
    """Close the connection to ``address`` made here, if any (the cluster keeps running)."""
    with _lock:
        client = _clients.pop(address, None)
    if client is not None:
        client.close()


__all__ = ["ClusterError", "client_for", "disconnect", "preferred_scheduler"]
