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

The file is only a cache, so nothing in it is trusted or allowed to stop a run:

- every row carries a keyed checksum (BLAKE2b of the row's key and value under a secret kept
  beside the cache, ``<cache>.key``, mode 0600); a row whose checksum does not match (changed by
  another program, or damaged) is dropped and its value computed again;
- a file that is not an SQLite database, fails SQLite's quick check, or holds another schema is
  set aside (renamed to ``<cache>.damaged-<time>``, with its ``-wal``/``-shm``) and a new cache is
  started; a locked, read-only or full database, or one that fails later, is left alone and the run
  goes on without the disk (values kept in memory);
- a cache path or key file that is not a regular file (a named pipe, a device, a folder, a link
  to nothing) is never opened nor created through: the run goes on without the disk; text in the
  file that is not UTF-8 is damage;
- each such event is said once in ``notices`` (and passed to ``on_notice`` when given), one line
  naming the file.
"""
from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import secrets
import sqlite3
import stat
import struct
import threading
import time

import numpy as np
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable

import orjson

from gindex_studio.core.scoring.divergence import ScoreOptions
from gindex_studio.core.flows.files import UserFileError, kind_problem, read_user_bytes
from gindex_studio.core.flows.flow import Flow

_POSITION = ("x", "y")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS delta (
    opts TEXT NOT NULL,
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    num TEXT NOT NULL,
    den TEXT NOT NULL,
    mac BLOB NOT NULL,
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
    mac BLOB NOT NULL,
    PRIMARY KEY (opts, a, b)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshot (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    opts TEXT NOT NULL,
    digests BLOB NOT NULL,
    vals BLOB NOT NULL,
    lows BLOB NOT NULL,
    exact BLOB NOT NULL,
    seconds REAL,
    mac BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS arrangement (
    key BLOB PRIMARY KEY,
    ord BLOB NOT NULL,
    pts BLOB NOT NULL,
    mac BLOB NOT NULL
);
"""
_COLUMNS = {
    "delta": ["opts", "a", "b", "num", "den", "mac"],
    "estimate": ["opts", "a", "b", "num", "den", "lnum", "lden", "seconds", "mac"],
    "snapshot": ["id", "opts", "digests", "vals", "lows", "exact", "seconds", "mac"],
    "arrangement": ["key", "ord", "pts", "mac"],
}
#: pairs whose two digests are both in the temporary table ``want`` (``DeltaCache._want``)
_WITHIN = "opts = ? AND a IN (SELECT d FROM want) AND b IN (SELECT d FROM want)"


def _select(table: str, where: str) -> str:
    """SELECT of a delta or estimate row as ``DeltaCache._checked`` reads it: a, b, then the stored columns."""
    return f"SELECT {', '.join(_COLUMNS[table][1:])} FROM {table} WHERE {where}"


#: SQLite's errors that mean the file is damaged (set it aside); every other one means it cannot
#: be used now (locked, read-only, full, cannot be opened: run without it)
_DAMAGE = ("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_FORMAT", "SQLITE_SCHEMA", "SQLITE_MISMATCH", "SQLITE_RANGE")
LOCK_WAIT_S = 2.0  # how long to wait for another program's lock before running without the cache
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
    """True when Δ(a, b) = Δ(b, a) under ``options`` (a symmetric profile)."""
    return options.profile.symmetric


class DeltaCache:
    """Exact Δ values by (options, digest, digest). Thread-safe; every ``put_many`` commits.

    ``path=None`` keeps the values in memory only (nothing on disk)."""

    def __init__(self, path: str | Path | None, on_notice: Callable[[str], None] | None = None):
        self.path = Path(path) if path is not None else None
        self.notices: list[str] = []
        self.on_notice = on_notice
        self.on_disk = False  # True while values are read from and written to ``path``
        self._lock = threading.RLock()
        self._key = secrets.token_bytes(32)  # a memory cache's; the key file's once the disk is used
        self._db = self._open()

    @classmethod
    def default(cls, on_notice: Callable[[str], None] | None = None) -> "DeltaCache":
        """The cache in the user's data folder."""
        from gindex_studio.paths import user_data_dir

        return cls(user_data_dir() / "curation-cache.sqlite", on_notice)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ----- opening, damage and notices --------------------------------------------------------

    def _notice(self, text: str) -> None:
        text = "; ".join(line.strip() for line in text.splitlines() if line.strip())  # one line
        if text not in self.notices:
            self.notices.append(text)
            if self.on_notice is not None:
                self.on_notice(text)

    def _secret(self) -> tuple[bytes | None, str | None]:
        """(the checksum key, None), or (None, why it cannot be had). The key is ``<cache>.key``,
        made on first use (mode 0600); a key of the wrong length is set aside and a new one made."""
        keyfile = self.path.with_name(self.path.name + ".key")
        for _ in range(2):
            why = _not_a_file(keyfile, "a key file")
            if why:
                return None, f"its key file {keyfile} {why}"
            try:
                data = read_user_bytes(keyfile, "a key file")
                if len(data) == 32:
                    return data, None
                os.replace(keyfile, keyfile.with_name(keyfile.name + f".damaged-{int(time.time())}"))
            except UserFileError as e:
                if e.errno != errno.ENOENT:
                    return None, f"its key file {e}"
            except OSError as e:
                return None, f"its key file {keyfile} cannot be set aside ({_reason(e)})"
            try:
                keyfile.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(keyfile, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue  # another process made it meanwhile: read it
            except OSError as e:
                return None, f"its key file {keyfile} cannot be made ({_reason(e)})"
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
        return None, f"its key file {keyfile} keeps changing"

    def _open(self) -> sqlite3.Connection:
        if self.path is None:
            return self._memory()
        why = _not_a_file(self.path, "a cache file")
        if why:
            self._notice(f"the curation cache {self.path} {why}; running without it (nothing is kept for the next run)")
            return self._memory()
        key, why = self._secret()
        if key is None:
            self._notice(f"the curation cache {self.path} cannot be used: {why}; running without it "
                         "(nothing is kept for the next run)")
            return self._memory()
        self._key = key
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = self._connect()
        except _Damaged as e:
            aside = self._set_aside()
            if aside is None:
                self._notice(f"the curation cache {self.path} is damaged ({e}) and cannot be set aside; "
                             "running without it")
                return self._memory()
            self._notice(f"the curation cache {self.path} was damaged ({e}): set aside as {aside}; starting a new one")
            try:
                db = self._connect()
            except (_Damaged, sqlite3.Error, OSError) as e2:
                self._notice(f"the curation cache {self.path} cannot be used ({e2}); running without it")
                return self._memory()
        except (sqlite3.Error, OSError) as e:
            self._notice(f"the curation cache {self.path} cannot be used ({_reason(e)}); running without it "
                         "(nothing is kept for the next run)")
            return self._memory()
        self.on_disk = True
        return db

    def _memory(self) -> sqlite3.Connection:
        self.on_disk = False
        db = sqlite3.connect(":memory:", check_same_thread=False)
        db.executescript(_SCHEMA)
        db.commit()
        return db

    def _connect(self) -> sqlite3.Connection:
        """The file as a checked cache: raises _Damaged, or sqlite3.Error when it cannot be used."""
        db = sqlite3.connect(str(self.path), timeout=LOCK_WAIT_S, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            check = db.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                lines = [ln for ln in str(check[0][0]).splitlines() if ln.strip() and not ln.startswith("***")]
                raise _Damaged(f"SQLite's check: {(lines or ['failed'])[0]}")
            self._check_schema(db)
            db.executescript(_SCHEMA)
            db.commit()
        except (sqlite3.Error, UnicodeDecodeError) as e:
            db.close()
            if _is_damage(e):
                raise _Damaged(_reason(e)) from None
            raise
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _check_schema(db: sqlite3.Connection) -> None:
        """Our tables with our columns (an older cache without checksums is emptied: its values
        cannot be checked); anything else is another program's file: _Damaged."""
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                  if not r[0].startswith("sqlite_")]
        for t in tables:
            if t not in _COLUMNS:
                raise _Damaged(f"it holds a table {t!r} of another program")
            cols = [r[1] for r in db.execute(f'PRAGMA table_info("{t}")')]
            if cols == _COLUMNS[t]:
                continue
            if cols == [c for c in _COLUMNS[t] if c != "mac"]:
                db.execute(f'DROP TABLE "{t}"')  # written by a version without checksums
                continue
            raise _Damaged(f"its table {t!r} has other columns")

    def _set_aside(self) -> Path | None:
        """Rename the damaged file (and its -wal/-shm) to ``<name>.damaged-<time>``; None when it cannot be."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{n}")
        try:
            os.replace(self.path, aside)
        except FileNotFoundError:
            pass
        except OSError:
            return None
        for tail in ("-wal", "-shm", "-journal"):
            side = self.path.with_name(self.path.name + tail)
            try:
                os.replace(side, aside.with_name(aside.name + tail))
            except OSError:
                pass
        return aside

    def _end_transaction(self) -> None:
        """Commit what a method left open (reads only: every write commits itself)."""
        with self._lock:
            if self._db.in_transaction:
                self._db.commit()

    def _rolled_back(self) -> bool:
        """Roll back the open transaction (a busy file: the next try starts from the file as it is
        now); False when even that fails."""
        with self._lock:
            try:
                self._db.rollback()
            except sqlite3.Error:
                return False
        return True

    def _failed(self, e: Exception) -> None:
        """A read or write failed while running: damage is set aside and a new file started;
        anything else (full, read-only, locked) goes on in memory."""
        with self._lock:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = self._memory()
            if self.path is None:
                return
            if _is_damage(e):
                aside = self._set_aside()
                where = f"set aside as {aside}" if aside else "it could not be set aside"
                self._notice(f"the curation cache {self.path} was damaged ({_reason(e)}): {where}; "
                             "going on without it")
            else:
                self._notice(f"the curation cache {self.path} cannot be used ({_reason(e)}); going on without it "
                             "(values found from now on are not kept)")

    # ----- checksums --------------------------------------------------------------------------

    def _mac(self, *parts) -> bytes:
        """BLAKE2b under the key of each part's length (8 bytes) and bytes (``repr`` of a non-bytes part)."""
        base = self.__dict__.get("_mac_base")
        if base is None:  # the keyed state once; each checksum copies it
            base = self.__dict__["_mac_base"] = hashlib.blake2b(key=self._key, digest_size=16)
        h = base.copy()
        for p in parts:
            b = p if isinstance(p, bytes) else repr(p).encode()
            h.update(len(b).to_bytes(8, "little") + b)
        return h.digest()

    def _delta_mac(self, opts: str):
        """``lambda a, b, num, den: self._mac(opts, a, b, num, den)`` for int digests and text
        num/den (the same checksum: the same bytes, built in one step), with the key and
        ``opts`` hashed once: a matrix writes, and a report reads, hundreds of thousands of rows."""
        macs = self.__dict__.setdefault("_delta_macs", {})
        mac = macs.get(opts)
        if mac is not None:
            return mac
        head = self.__dict__.get("_mac_base")
        if head is None:
            self._mac(b"")
            head = self.__dict__["_mac_base"]
        o = repr(opts).encode()
        head = head.copy()
        head.update(len(o).to_bytes(8, "little") + o)
        pack = struct.Struct("<Q").pack

        def mac(a: int, b: int, num: str, den: str) -> bytes:
            if type(a) is not int or type(b) is not int or type(num) is not str or type(den) is not str:
                return self._mac(opts, a, b, num, den)  # not what this cache writes: the general form
            n, d = num.encode(), den.encode()
            if not (n.lstrip(b"-").isdigit() and d.isdigit()):
                return self._mac(opts, a, b, num, den)  # repr may do more than quote other text
            sa, sb = b"%d" % a, b"%d" % b
            h = head.copy()
            h.update(b"%b%b%b%b%b'%b'%b'%b'" % (pack(len(sa)), sa, pack(len(sb)), sb, pack(len(n) + 2), n,
                                                pack(len(d) + 2), d))
            return h.digest()

        macs[opts] = mac
        return mac

    def _tampered(self, table: str, bad: list[tuple]) -> None:
        """Drop rows whose checksum failed (they are computed again) and say so once."""
        if not bad:
            return
        keys = ("opts", "a", "b") if table in ("delta", "estimate") else (("id",) if table == "snapshot" else ("key",))
        with self._lock:
            self._db.executemany(f"DELETE FROM {table} WHERE " + " AND ".join(f"{k} = ?" for k in keys), bad)
            self._db.commit()
        self._notice(f"the curation cache {self.path or '(memory)'} held values that do not match their checksum "
                     "(changed by another program, or damaged): they are computed again")

    # ----- reading checked rows of delta and estimate ------------------------------------------

    def _checked(self, table: str, opts: str, rows: list[tuple]) -> list[tuple[tuple[int, int], object]]:
        """((a, b), value) of each row (a, b, then ``table``'s stored columns) whose checksum holds:
        ``_delta_row``'s Fraction for delta, ``_estimate_row``'s triple for estimate. The other
        rows are dropped (``_tampered``)."""
        check = self._delta_row if table == "delta" else self._estimate_row
        good, bad = [], []
        for a, b, *rest in rows:
            v = check(opts, a, b, *rest)
            if v is None:
                bad.append((opts, a, b))
            else:
                good.append(((a, b), v))
        self._tampered(table, bad)
        return good

    def _within(self, table: str, opts: str, digests: Iterable[int]) -> list[tuple]:
        """The raw rows (a, b, stored columns) of ``table`` whose two digests are both in ``digests``."""
        wanted = set(digests)
        if not wanted:
            return []
        with self._lock:
            self._want(wanted)
            return self._db.execute(_select(table, _WITHIN), (opts,)).fetchall()

    def _among(self, table: str, opts: str, keys: Iterable[tuple[int, int]]) -> list[tuple]:
        """The raw rows (a, b, stored columns) of ``table`` whose pair is among ``keys``, in one query."""
        cols = ", ".join(f"t.{c}" for c in _COLUMNS[table][1:])
        with self._lock:
            self._pairs_table(keys)
            return self._db.execute(f"SELECT {cols} FROM ask CROSS JOIN {table} AS t "
                                    "ON t.opts = ? AND t.a = ask.a AND t.b = ask.b", (opts,)).fetchall()

    def _one(self, table: str, opts: str, a: int, b: int):
        """The checked value of one stored pair of ``table`` (as ``_checked``), or None."""
        with self._lock:
            row = self._db.execute(_select(table, "opts = ? AND a = ? AND b = ?"), (opts, a, b)).fetchone()
        if row is None:
            return None
        checked = self._checked(table, opts, [row])
        return checked[0][1] if checked else None

    def get_many(self, opts: str, digests: Iterable[int]) -> dict[tuple[int, int], Fraction]:
        """Every stored pair whose two digests are both in ``digests`` (checked rows only)."""
        return dict(self._checked("delta", opts, self._within("delta", opts, digests)))

    def _delta_row(self, opts, a, b, num, den, mac) -> Fraction | None:
        """The checked value of a delta row, or None (wrong checksum, or not a Δ at all)."""
        if mac != self._delta_mac(opts)(a, b, num, den):
            return None
        return _fraction(num, den)

    def put_many(self, opts: str, values: Iterable[tuple[int, int, Fraction]]) -> None:
        """Keep the exact Δ of each pair (a, b, Δ)."""
        self.put_exact(opts, [(a, b, v.numerator, v.denominator) for a, b, v in values])

    def put_exact(self, opts: str, values: list[tuple[int, int, int, int]]) -> None:
        """Keep the exact Δ = num / den (lowest terms) of each pair (a, b, num, den)."""
        rows = []
        mac = self._delta_mac(opts)
        for a, b, num, den in values:
            num, den = str(num), str(den)
            rows.append((opts, a, b, num, den, mac(a, b, num, den)))
        if not rows:
            return
        rows.sort(key=lambda r: (r[1], r[2]))  # in key order: the B-tree's pages are visited once each, in turn
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO delta VALUES (?, ?, ?, ?, ?, ?)", rows)
            self._db.commit()

    def get_one(self, opts: str, a: int, b: int) -> Fraction | None:
        """The exact Δ of one stored pair, or None."""
        return self._one("delta", opts, a, b)

    def _pairs_table(self, keys: Iterable[tuple[int, int]]) -> None:
        """The temporary table ``ask`` holds ``keys`` (the queries read it first: CROSS JOIN
        keeps SQLite from scanning the whole table and probing ``ask`` instead)."""
        self._db.execute("CREATE TEMP TABLE IF NOT EXISTS ask (a INTEGER, b INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID")
        self._db.execute("DELETE FROM ask")
        self._db.executemany("INSERT OR IGNORE INTO ask VALUES (?, ?)", keys)

    def get_pairs(self, opts: str, keys: Iterable[tuple[int, int]]) -> dict[tuple[int, int], Fraction]:
        """The exact Δ of each stored pair among ``keys`` (checked rows only), in one query."""
        return dict(self._checked("delta", opts, self._among("delta", opts, keys)))

    def get_estimate_pairs(self, opts: str, keys: Iterable[tuple[int, int]]
                           ) -> dict[tuple[int, int], tuple[Fraction, Fraction, float]]:
        """The kept cut search (Δ found, lower bound, seconds) of each pair among ``keys``, in one query."""
        return dict(self._checked("estimate", opts, self._among("estimate", opts, keys)))

    def _estimate_row(self, opts, a, b, num, den, lnum, lden, seconds, mac):
        if mac != self._mac(opts, a, b, num, den, lnum, lden, float(seconds)):
            return None
        v, lo = _fraction(num, den), _fraction(lnum, lden)
        return None if v is None or lo is None or lo > v else (v, lo, float(seconds))

    def get_estimate_one(self, opts: str, a: int, b: int) -> tuple[Fraction, Fraction, float] | None:
        """The cut search of one stored pair (Δ found, lower bound, seconds), or None."""
        return self._one("estimate", opts, a, b)

    def get_estimates(self, opts: str, digests: Iterable[int]) -> dict[tuple[int, int], tuple[Fraction, Fraction, float]]:
        """Every stored cut search (Δ found, lower bound, seconds) whose two digests are in ``digests``."""
        return dict(self._checked("estimate", opts, self._within("estimate", opts, digests)))

    def put_estimates(self, opts: str, values: Iterable[tuple[int, int, Fraction, Fraction, float]]) -> None:
        rows = []
        for a, b, v, lo, s in values:
            r = (opts, a, b, str(v.numerator), str(v.denominator), str(lo.numerator), str(lo.denominator), float(s))
            rows.append(r + (self._mac(*r),))
        if not rows:
            return
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO estimate VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            self._db.commit()

    def floats(self, opts: str, digests: Iterable[int], deadline: float | None, involving: Iterable[int] | None = None
               ) -> tuple[list[tuple[int, int, float]], list[tuple[int, int, float, float]]]:
        """Exact values as (a, b, Δ) and cut searches at least ``deadline`` seconds long (None:
        none) as (a, b, Δ found, lower bound), for pairs within ``digests`` (and with
        ``involving``: only pairs with a side among those). Checked rows only."""
        wanted = set(digests)
        if not wanted:
            return [], []
        inside = _WITHIN
        with self._lock:
            self._want(wanted)
            if involving is not None:
                self._db.execute("CREATE TEMP TABLE IF NOT EXISTS touch (d INTEGER PRIMARY KEY)")
                self._db.execute("DELETE FROM touch")
                self._db.executemany("INSERT OR IGNORE INTO touch VALUES (?)", ((int(d),) for d in involving))
                inside += " AND (a IN (SELECT d FROM touch) OR b IN (SELECT d FROM touch))"
            rows = self._db.execute(_select("delta", inside), (opts,)).fetchall()
            cut_rows = [] if deadline is None else self._db.execute(
                _select("estimate", inside + " AND seconds >= ?"), (opts, float(deadline))).fetchall()
        exact = [(a, b, v.numerator / v.denominator) for (a, b), v in self._checked("delta", opts, rows)]
        cut = [(a, b, v.numerator / v.denominator, lo.numerator / lo.denominator)
               for (a, b), (v, lo, _) in self._checked("estimate", opts, cut_rows)]
        return exact, cut

    def put_snapshot(self, opts: str, digests: np.ndarray, vals: np.ndarray, lows: np.ndarray, exact: np.ndarray,
                     seconds: float | None) -> None:
        """Keep a square matrix over ``digests`` (sorted, unique): Δ found, lower bounds, exact
        flags; ``seconds``: the per-pair deadline of its cut cells (None: all exact)."""
        blobs = (np.asarray(digests, dtype=np.int64).tobytes(), np.asarray(vals, dtype=np.float64).tobytes(),
                 np.asarray(lows, dtype=np.float64).tobytes(), np.asarray(exact, dtype=np.bool_).tobytes())
        seconds = None if seconds is None else float(seconds)
        with self._lock:
            self._db.execute("INSERT INTO snapshot (opts, digests, vals, lows, exact, seconds, mac) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)", (opts, *blobs, seconds, self._mac(opts, *blobs, seconds)))
            self._db.execute("DELETE FROM snapshot WHERE opts = ? AND id NOT IN (SELECT id FROM snapshot WHERE opts = ? "
                             "ORDER BY id DESC LIMIT ?)", (opts, opts, SNAPSHOTS_KEPT))
            self._db.commit()

    def best_snapshot(self, opts: str, digests: np.ndarray):
        """The kept matrix sharing most digests with ``digests``: (digests, vals, lows, exact,
        seconds), or None when none shares any. A snapshot failing its checksum is dropped."""
        wanted = np.asarray(digests, dtype=np.int64)
        with self._lock:
            heads = self._db.execute("SELECT id, digests FROM snapshot WHERE opts = ?", (opts,)).fetchall()
        best, best_id = 0, None
        for sid, blob in heads:
            if not isinstance(blob, bytes) or len(blob) % 8:
                continue  # checked (and dropped) below only if it were the best: it cannot be
            shared = int(np.isin(np.frombuffer(blob, dtype=np.int64), wanted).sum())
            if shared > best:
                best, best_id = shared, sid
        if best_id is None:
            return None
        with self._lock:
            d, v, lo, ex, sec, mac = self._db.execute(
                "SELECT digests, vals, lows, exact, seconds, mac FROM snapshot WHERE id = ?", (best_id,)).fetchone()
        u = len(d) // 8
        sizes_ok = all(isinstance(x, bytes) for x in (v, lo, ex)) and (len(v), len(lo), len(ex)) == (8 * u * u,) * 2 + (u * u,)
        if not sizes_ok or mac != self._mac(opts, d, v, lo, ex, sec):
            self._tampered("snapshot", [(best_id,)])
            return self.best_snapshot(opts, digests)
        d = np.frombuffer(d, dtype=np.int64)
        return (d, np.frombuffer(v, dtype=np.float64).reshape(u, u), np.frombuffer(lo, dtype=np.float64).reshape(u, u),
                np.frombuffer(ex, dtype=np.bool_).reshape(u, u), sec)

    def get_arrangement(self, key: bytes) -> tuple[np.ndarray, np.ndarray] | None:
        """(display order, 2-D points) kept under ``key`` (``analysis.arrangement_key``), or None."""
        with self._lock:
            row = self._db.execute("SELECT ord, pts, mac FROM arrangement WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        order, pts, mac = row
        if mac != self._mac(key, order, pts) or len(order) % 8 or len(pts) % 16:
            self._tampered("arrangement", [(key,)])
            return None
        return np.frombuffer(order, dtype=np.int64), np.frombuffer(pts, dtype=np.float64).reshape(-1, 2)

    def put_arrangement(self, key: bytes, order, points) -> None:
        order = np.asarray(order, dtype=np.int64).tobytes()
        pts = np.ascontiguousarray(points, dtype=np.float64).tobytes()
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO arrangement VALUES (?, ?, ?, ?)",
                             (key, order, pts, self._mac(key, order, pts)))
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


class _Damaged(Exception):
    """The cache file is damaged or not ours: set it aside."""


def _is_damage(e: Exception) -> bool:
    """True for an error that means the file is damaged (set it aside), among SQLite's errors and
    text that is not UTF-8 (which SQLite hands over undecoded)."""
    if isinstance(e, UnicodeDecodeError):
        return True
    name = getattr(e, "sqlite_errorname", "") or ""
    return name.startswith(_DAMAGE) or any(w in str(e) for w in ("malformed", "not a database", "decode to UTF-8"))


def _reason(e: BaseException) -> str:
    if isinstance(e, UnicodeDecodeError):
        return f"it holds text that is not UTF-8 (byte 0x{e.object[e.start]:02x})"
    if isinstance(e, OSError):
        return e.strerror or str(e)
    return str(e)


def _not_a_file(path: Path, what: str) -> str | None:
    """Why ``path`` cannot be opened as ``what`` ("is a named pipe (FIFO), not ...", "is a link to
    X, which does not exist"), or None: a regular file, or nothing there yet. Opens nothing."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(path)
            except FileNotFoundError:
                return f"is a link to {os.readlink(path)}, which does not exist"
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"cannot be read ({_reason(e)})"
    return kind_problem(st, what)


def _fraction(num, den) -> Fraction | None:
    """num/den as a Δ in [0, 1], or None when the stored text is no such value."""
    try:
        v = Fraction(int(num), int(den))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return v if 0 <= v <= 1 else None


def _guarded(default):
    """Run a cache method and end any transaction it left open (a read through the temporary
    ``ask`` table opens one: kept open, it pins an old snapshot of the file, and this connection's
    next write fails at once with SQLITE_BUSY_SNAPSHOT once another process has written). A
    method that finds the file busy is rolled back and run once more; a SQLite error after that
    goes to ``_failed`` (set aside or memory) and the method gives ``default()`` instead: the
    caller computes what the cache could not give."""
    def wrap(method):
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            for last in (False, True):
                try:
                    out = method(self, *args, **kwargs)
                    self._end_transaction()
                    return out
                except (sqlite3.Error, UnicodeDecodeError) as e:
                    if last or not _is_busy(e) or not self._rolled_back():
                        self._failed(e)
                        return default()
        return run
    return wrap


def _is_busy(e: sqlite3.Error) -> bool:
    """SQLITE_BUSY and its kinds: another connection holds the file or wrote since our snapshot."""
    return (getattr(e, "sqlite_errorname", "") or "").startswith("SQLITE_BUSY")


for _name, _default in (("get_many", dict), ("get_pairs", dict), ("get_estimate_pairs", dict), ("put_exact", lambda: None), ("get_one", lambda: None),
                        ("get_estimate_one", lambda: None), ("get_estimates", dict), ("put_estimates", lambda: None),
                        ("floats", lambda: ([], [])), ("put_snapshot", lambda: None), ("best_snapshot", lambda: None),
                        ("get_arrangement", lambda: None), ("put_arrangement", lambda: None), ("count", lambda: 0)):
    setattr(DeltaCache, _name, _guarded(_default)(getattr(DeltaCache, _name)))
