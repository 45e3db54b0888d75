"""Autosave of dirty documents to the user data folder, and restore after a crash.

Each running studio is a session; its autosaves are ``<session>-<doc>.json`` holding the original
path and the flow's JSON value. Autosaves of sessions that are no longer running (their process is
gone, or in this process their window was dropped without closing) are offered for restore.
"""
from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import orjson

from gindex_studio.core.flows.files import pid_alive
from gindex_studio.core.flows.flow import Flow, atomic_write_bytes, flow_from_value

FORMAT = "gindex-studio-autosave/1"
_LIVE: set[str] = set()


@dataclass
class Recovered:
    file: Path
    path: str | None
    flow: Flow
    saved_at: float


class AutosaveStore:
    def __init__(self, directory: str | Path | None = None):
        if directory is None:
            from gindex_studio.paths import user_data_dir

            directory = user_data_dir() / "autosave"
        self.dir = Path(directory)
        self.session = uuid.uuid4().hex[:12]
        _LIVE.add(self.session)

    def close(self) -> None:
        _LIVE.discard(self.session)

    def file_for(self, doc_key: str) -> Path:
        return self.dir / f"{self.session}-{doc_key}.json"

    def save(self, doc_key: str, path: str | None, flow: Flow) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        body = {"format": FORMAT, "session": self.session, "pid": os.getpid(), "path": path,
                "saved_at": time.time(), "value": flow.to_json_value()}
        f = self.file_for(doc_key)
        try:
            data = orjson.dumps(body)
        except TypeError:
            import json

            data = json.dumps(body).encode()
        atomic_write_bytes(f, data)
        return f

    def discard(self, doc_key: str) -> None:
        try:
            self.file_for(doc_key).unlink()
        except FileNotFoundError:
            pass

    def orphans(self) -> list[Recovered]:
        """Autosaves left by sessions that ended without closing their documents."""
        out = []
        if not self.dir.is_dir():
            return out
        for f in sorted(self.dir.glob("*.json")):
            try:
                body = orjson.loads(f.read_bytes())
                if body.get("format") != FORMAT:
                    continue
                session, pid = body.get("session"), int(body.get("pid", 0))
                if session in _LIVE or (pid != os.getpid() and pid_alive(pid)):
                    continue
                flow = flow_from_value(body["value"])
                out.append(Recovered(f, body.get("path"), flow, float(body.get("saved_at", 0))))
            except Exception:
                continue  # a broken autosave is not worth a crash
        return out
