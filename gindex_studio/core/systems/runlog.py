"""The JSONL log of a run, beside its experiment (``EXP.log.jsonl``): one record per line, each
appended and fsynced as it happens, so a run killed at any moment (SIGKILL included) loses at most
the line being written, and a rerun asks only what has no answer yet.

Records: ``{"kind": "run", ...settings}`` when a run starts; ``{"kind": "request", "task", "attempt",
"prompt", "params"}`` before asking; ``{"kind": "answer", "task", "attempt", "text", "error",
"prompt_tokens", "completion_tokens", "seconds", "cost"}`` when the answer comes. Secrets are never
given to it (the settings hold the name of the key's variable, not the key).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import orjson


def log_path(experiment: Path) -> Path:
    """The log of the run that writes ``experiment``."""
    return experiment.with_name(experiment.name + ".log.jsonl")


def read_log(path: Path) -> tuple[list[dict], dict[tuple[str, int], dict]]:
    """(the run records, (task, attempt) → its answer record). A successful answer wins over an
    error; among equals the later one. A line that is not a whole JSON object (the one a kill cut
    short) is skipped."""
    runs: list[dict] = []
    answers: dict[tuple[str, int], dict] = {}
    if not path.exists():
        return runs, answers
    with path.open("rb") as f:
        for line in f:
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(rec, dict):
                continue
            if rec.get("kind") == "run":
                runs.append(rec)
            elif rec.get("kind") == "answer":
                key = (rec.get("task"), rec.get("attempt"))
                old = answers.get(key)
                if old is None or not (old.get("error") is None and rec.get("error") is not None):
                    answers[key] = rec
    return runs, answers


class RunLog:
    """Appends records to the log, one whole line each, from any thread. Appends that come while
    another thread is syncing share the next fsync (group commit): each ``append`` returns once its
    line is on disk, at one fsync per batch rather than per record."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()  # the write and the count of lines written
        self._sync = threading.Lock()  # one fsync at a time; taken before _lock, never after
        self._closed = False
        self._written = self._synced = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        self._drop_torn_line()

    def _drop_torn_line(self) -> None:
        """Cut a last line that a kill left without its newline, so the next record starts a line."""
        size = os.fstat(self._fd).st_size
        if not size or os.pread(self._fd, 1, size - 1) == b"\n":
            return
        keep, pos = 0, size
        while pos > 0:
            start = max(0, pos - 65536)
            block = os.pread(self._fd, pos - start, start)
            nl = block.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                break
            pos = start
        os.ftruncate(self._fd, keep)

    def append(self, record: dict) -> None:
        """Append ``record`` as one line; returns when it is on disk (fsynced). After ``close`` (a
        run interrupted while a thread was still waiting for its answer) the record is dropped."""
        line = orjson.dumps(record) + b"\n"
        with self._lock:
            if self._closed:
                return
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view):]
            self._written += 1
            mine = self._written
        with self._sync:
            if self._synced >= mine:
                return  # another thread's fsync covered this line
            with self._lock:
                if self._closed:
                    return
                upto = self._written
            os.fsync(self._fd)
            self._synced = upto

    def close(self) -> None:
        with self._sync, self._lock:
            if not self._closed:
                self._closed = True
                os.close(self._fd)
