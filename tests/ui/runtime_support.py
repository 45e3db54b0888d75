"""Helpers for tests that run an edited flow in the real Node-RED (the ``nodered_session`` fixture)."""
from __future__ import annotations

import time


def fire_and_collect(session, inject_id: str, timeout: float = 10.0, settle: float = 0.3) -> list[tuple]:
    """Fire the deployed flow's inject ``inject_id``; the (debug node's file id, value) of every
    message that reached a debug node within ``timeout`` s (waiting ``settle`` s after the first)."""
    pos = session.comms.position
    session.fire_inject(inject_id)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not session.debug_messages(pos):
        time.sleep(0.1)
    time.sleep(settle)
    return [(session.file_id(e.node_id), e.value) for e in session.debug_messages(pos)]
