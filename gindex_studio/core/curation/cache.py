"""Δ values kept on disk, keyed by the two programs' content (issue 9: "results are kept").

A ``DeltaCache`` is an SQLite file (default: ``<user data>/curation-cache.sqlite``). A row holds
the exact Δ of one ordered pair (reference digest, generated digest) under one options key; for a
symmetric profile the pair is stored once, smaller digest first. A program's digest
(``content_digest``) covers everything Δ can see: its nodes with every attribute except the
canvas position ``x``/``y``, in file order, and its wires; so editing a program changes its digest
and only the pairs it takes part in are computed again.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from fractions import Fraction
from pathlib import Path
from typing import Iterable

import orjson

from ..divergence import ScoreOptions
from ..flow import Flow

_POSITION = ("x", "y")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS delta (
    opts TEXT NOT NULL,
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    num TEXT NOT NULL,
    den TEXT NOT NULL,
    PRIMARY KEY (opts, a, b)
) WITHOUT ROWID
"""


def content_digest(flow: Flow) -> int:
    """A 63-bit digest of what Δ reads from ``flow`` (nodes without x/y, in order, with wires)."""
    nodes = [{k: v for k, v in n.data.items() if k not in _POSITION} for n in flow.nodes]
    try:
        data = orjson.dumps(nodes, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer beyond 64 bits: the standard library writes it
        data = json.dumps(nodes, sort_keys=True, ensure_ascii=False).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big") >> 1


def options_key(options: ScoreOptions) -> str:
    """What of the scoring options changes Δ, as a short string (the deadline does not: only
    exact values are stored)."""
    d = options.to_dict()
    d.pop("deadline", None)
    return orjson.dumps(d, option=orjson.OPT_SORT_KEYS).decode()


def symmetric(options: ScoreOptions) -> bool:
    """True when Δ(a, b) = Δ(b, a) under ``options`` (the paper profile)."""
    return options.profile == "paper"


class DeltaCache:
    """Exact Δ values by (options, digest, digest). Thread-safe; every ``put_many`` commits.

    ``path=None`` keeps the values in memory only (nothing on disk)."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path is not None else None
        target = ":memory:" if self.path is None else str(self.path)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(target, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL") if self.path is not None else None
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._db.commit()

    @classmethod
    def default(cls) -> "DeltaCache":
        """The cache in the user's data folder."""
        from ...paths import user_data_dir

        return cls(user_data_dir() / "curation-cache.sqlite")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def get_many(self, opts: str, digests: Iterable[int]) -> dict[tuple[int, int], Fraction]:
        """Every stored pair whose two digests are both in ``digests``."""
        wanted = set(digests)
        out: dict[tuple[int, int], Fraction] = {}
        if not wanted:
            return out
        with self._lock:
            cur = self._db.execute("CREATE TEMP TABLE IF NOT EXISTS want (d INTEGER PRIMARY KEY)")
            self._db.execute("DELETE FROM want")
            self._db.executemany("INSERT OR IGNORE INTO want VALUES (?)", ((d,) for d in wanted))
            cur = self._db.execute(
                "SELECT a, b, num, den FROM delta WHERE opts = ? AND a IN (SELECT d FROM want) "
                "AND b IN (SELECT d FROM want)", (opts,))
            rows = cur.fetchall()
        for a, b, num, den in rows:
            out[(a, b)] = Fraction(int(num), int(den))
        return out

    def put_many(self, opts: str, values: Iterable[tuple[int, int, Fraction]]) -> None:
        rows = [(opts, a, b, str(v.numerator), str(v.denominator)) for a, b, v in values]
        if not rows:
            return
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO delta VALUES (?, ?, ?, ?, ?)", rows)
            self._db.commit()

    def count(self, opts: str | None = None) -> int:
        with self._lock:
            if opts is None:
                return self._db.execute("SELECT COUNT(*) FROM delta").fetchone()[0]
            return self._db.execute("SELECT COUNT(*) FROM delta WHERE opts = ?", (opts,)).fetchone()[0]
