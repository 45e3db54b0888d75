"""Δ values kept on disk, keyed by the two programs' content (issue 9: "results are kept").

A ``DeltaCache`` is an SQLite file (default: ``<user data>/curation-cache.sqlite``). A row of
``delta`` holds the exact Δ of one ordered pair (reference digest, generated digest) under one options key; for a
symmetric profile the pair is stored once, smaller digest first. A program's digest
(``content_digest``) covers everything Δ can see: its nodes with every attribute except the
canvas position ``x``/``y``, in file order, and its wires; so editing a program changes its digest
and only the pairs it takes part in are computed again. A row of ``estimate`` keeps what a search
cut by a deadline proved (best Δ found, lower bound, seconds searched), so that reopening a
heatmap does not repeat hard searches; exact questions never read it. A row of ``snapshot`` is a
whole matrix as the heatmap last showed it (over unique digests, float arrays), so reopening a
1,000-program matrix reads a few blobs instead of half a million rows; pairs it lacks come from
the other tables. A row of ``arrangement`` keeps what was derived from a complete matrix (the
clustering order and the 2-D map), keyed by a digest of the matrix and the domains, so that an
unchanged matrix is not clustered again.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading

import numpy as np
from fractions import Fraction
from pathlib import Path
from typing import Iterable

import orjson

from gindex_studio.core.scoring.divergence import ScoreOptions
from gindex_studio.core.scoring import profiles
from gindex_studio.core.flows.flow import Flow

_POSITION = ("x", "y")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS delta (
    opts TEXT NOT NULL,
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    num TEXT NOT NULL,
    den TEXT NOT NULL,
    PRIMARY KEY (opts, a, b)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS estimate (
    opts TEXT NOT NULL,
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    num TEXT NOT NULL,
    den TEXT NOT NULL,
    lnum TEXT NOT NULL,
    lden TEXT NOT NULL,
    seconds REAL NOT NULL,
    PRIMARY KEY (opts, a, b)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshot (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    opts TEXT NOT NULL,
    digests BLOB NOT NULL,
    vals BLOB NOT NULL,
    lows BLOB NOT NULL,
    exact BLOB NOT NULL,
    seconds REAL
);
CREATE TABLE IF NOT EXISTS arrangement (
    key BLOB PRIMARY KEY,
    ord BLOB NOT NULL,
    pts BLOB NOT NULL
);
"""
SNAPSHOTS_KEPT = 4  # per options key: the matrices of the last few workspaces
ARRANGEMENTS_KEPT = 8


def content_digest(flow: Flow) -> int:
    """A 63-bit digest of what Δ reads from ``flow`` (nodes without x/y, in order, with wires)."""
    nodes = []
    for n in flow.nodes:  # a copy without the position (dict copies: faster than filtering key by key)
        d = dict(n.data)
        for k in _POSITION:
            d.pop(k, None)
        nodes.append(d)
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
    """True when Δ(a, b) = Δ(b, a) under ``options`` (a symmetric profile: paper)."""
    return profiles.get(options.profile).symmetric


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
        self._db.executescript(_SCHEMA)
        self._db.commit()

    @classmethod
    def default(cls) -> "DeltaCache":
        """The cache in the user's data folder."""
        from gindex_studio.paths import user_data_dir

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
            self._want(wanted)
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

    def get_one(self, opts: str, a: int, b: int) -> Fraction | None:
        """The exact Δ of one stored pair, or None."""
        with self._lock:
            row = self._db.execute("SELECT num, den FROM delta WHERE opts = ? AND a = ? AND b = ?", (opts, a, b)).fetchone()
        return Fraction(int(row[0]), int(row[1])) if row else None

    def get_estimate_one(self, opts: str, a: int, b: int) -> tuple[Fraction, Fraction, float] | None:
        """The cut search of one stored pair (Δ found, lower bound, seconds), or None."""
        with self._lock:
            row = self._db.execute("SELECT num, den, lnum, lden, seconds FROM estimate WHERE opts = ? AND a = ? AND b = ?",
                                   (opts, a, b)).fetchone()
        return (Fraction(int(row[0]), int(row[1])), Fraction(int(row[2]), int(row[3])), row[4]) if row else None

    def get_estimates(self, opts: str, digests: Iterable[int]) -> dict[tuple[int, int], tuple[Fraction, Fraction, float]]:
        """Every stored cut search (Δ found, lower bound, seconds) whose two digests are in ``digests``."""
        wanted = set(digests)
        if not wanted:
            return {}
        with self._lock:
            self._want(wanted)
            rows = self._db.execute(
                "SELECT a, b, num, den, lnum, lden, seconds FROM estimate WHERE opts = ? AND a IN (SELECT d FROM want) "
                "AND b IN (SELECT d FROM want)", (opts,)).fetchall()
        return {(a, b): (Fraction(int(n), int(d)), Fraction(int(ln), int(ld)), s) for a, b, n, d, ln, ld, s in rows}

    def put_estimates(self, opts: str, values: Iterable[tuple[int, int, Fraction, Fraction, float]]) -> None:
        rows = [(opts, a, b, str(v.numerator), str(v.denominator), str(lo.numerator), str(lo.denominator), float(s))
                for a, b, v, lo, s in values]
        if not rows:
            return
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO estimate VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            self._db.commit()

    def floats(self, opts: str, digests: Iterable[int], deadline: float | None, involving: Iterable[int] | None = None
               ) -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float, float]]]:
        """Exact values as (a, b, Δ) and cut searches at least ``deadline`` seconds long (None:
        none) as (a, b, Δ found, lower bound), floats computed by SQLite, for pairs within
        ``digests`` (and with ``involving``: only pairs with a side among those)."""
        wanted = set(digests)
        if not wanted:
            return [], []
        inside = "opts = ? AND a IN (SELECT d FROM want) AND b IN (SELECT d FROM want)"
        with self._lock:
            self._want(wanted)
            if involving is not None:
                self._db.execute("CREATE TEMP TABLE IF NOT EXISTS touch (d INTEGER PRIMARY KEY)")
                self._db.execute("DELETE FROM touch")
                self._db.executemany("INSERT OR IGNORE INTO touch VALUES (?)", ((int(d),) for d in involving))
                inside += " AND (a IN (SELECT d FROM touch) OR b IN (SELECT d FROM touch))"
            exact = self._db.execute(
                f"SELECT a, b, CAST(num AS REAL) / CAST(den AS REAL) FROM delta WHERE {inside}", (opts,)).fetchall()
            cut = [] if deadline is None else self._db.execute(
                "SELECT a, b, CAST(num AS REAL) / CAST(den AS REAL), CAST(lnum AS REAL) / CAST(lden AS REAL) "
                f"FROM estimate WHERE {inside} AND seconds >= ?", (opts, float(deadline))).fetchall()
        return exact, cut

    def put_snapshot(self, opts: str, digests: np.ndarray, vals: np.ndarray, lows: np.ndarray, exact: np.ndarray,
                     seconds: float | None) -> None:
        """Keep a square matrix over ``digests`` (sorted, unique): Δ found, lower bounds, exact
        flags; ``seconds``: the per-pair deadline of its cut cells (None: all exact)."""
        with self._lock:
            self._db.execute("INSERT INTO snapshot (opts, digests, vals, lows, exact, seconds) VALUES (?, ?, ?, ?, ?, ?)",
                             (opts, np.asarray(digests, dtype=np.int64).tobytes(), np.asarray(vals, dtype=np.float64).tobytes(),
                              np.asarray(lows, dtype=np.float64).tobytes(), np.asarray(exact, dtype=np.bool_).tobytes(),
                              seconds))
            self._db.execute("DELETE FROM snapshot WHERE opts = ? AND id NOT IN (SELECT id FROM snapshot WHERE opts = ? "
                             "ORDER BY id DESC LIMIT ?)", (opts, opts, SNAPSHOTS_KEPT))
            self._db.commit()

    def best_snapshot(self, opts: str, digests: np.ndarray):
        """The kept matrix sharing most digests with ``digests``: (digests, vals, lows, exact,
        seconds), or None when none shares any."""
        wanted = np.asarray(digests, dtype=np.int64)
        with self._lock:
            heads = self._db.execute("SELECT id, digests FROM snapshot WHERE opts = ?", (opts,)).fetchall()
        best, best_id = 0, None
        for sid, blob in heads:
            shared = int(np.isin(np.frombuffer(blob, dtype=np.int64), wanted).sum())
            if shared > best:
                best, best_id = shared, sid
        if best_id is None:
            return None
        with self._lock:
            d, v, lo, ex, sec = self._db.execute("SELECT digests, vals, lows, exact, seconds FROM snapshot WHERE id = ?",
                                                 (best_id,)).fetchone()
        d = np.frombuffer(d, dtype=np.int64)
        u = len(d)
        return (d, np.frombuffer(v, dtype=np.float64).reshape(u, u), np.frombuffer(lo, dtype=np.float64).reshape(u, u),
                np.frombuffer(ex, dtype=np.bool_).reshape(u, u), sec)

    def get_arrangement(self, key: bytes) -> tuple[np.ndarray, np.ndarray] | None:
        """(display order, 2-D points) kept under ``key`` (``analysis.arrangement_key``), or None."""
        with self._lock:
            row = self._db.execute("SELECT ord, pts FROM arrangement WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return np.frombuffer(row[0], dtype=np.int64), np.frombuffer(row[1], dtype=np.float64).reshape(-1, 2)

    def put_arrangement(self, key: bytes, order, points) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO arrangement VALUES (?, ?, ?)",
                             (key, np.asarray(order, dtype=np.int64).tobytes(),
                              np.ascontiguousarray(points, dtype=np.float64).tobytes()))
            self._db.execute("DELETE FROM arrangement WHERE rowid NOT IN (SELECT rowid FROM arrangement "
                             "ORDER BY rowid DESC LIMIT ?)", (ARRANGEMENTS_KEPT,))
            self._db.commit()

    def _want(self, digests: set[int]) -> None:
        self._db.execute("CREATE TEMP TABLE IF NOT EXISTS want (d INTEGER PRIMARY KEY)")
        self._db.execute("DELETE FROM want")
        self._db.executemany("INSERT OR IGNORE INTO want VALUES (?)", ((d,) for d in digests))

    def count(self, opts: str | None = None) -> int:
        with self._lock:
            if opts is None:
                return self._db.execute("SELECT COUNT(*) FROM delta").fetchone()[0]
            return self._db.execute("SELECT COUNT(*) FROM delta WHERE opts = ?", (opts,)).fetchone()[0]
