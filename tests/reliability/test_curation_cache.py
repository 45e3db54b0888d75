"""The curation cache is a cache: damage is set aside and rebuilt, a locked, read-only or full
database is run without, and a changed row is computed again, each said once (issue 26, item 5)."""
import os
import resource
import sqlite3
import subprocess
import time
import sys
from fractions import Fraction
from pathlib import Path

import orjson
import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.core.curation import cache as cache_mod
from gindex_studio.core.curation.cache import DeltaCache
from gindex_studio.paths import DEMO_DIR

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = str(Path(DEMO_DIR) / "experiment.json")


@pytest.fixture
def data(tmp_path, monkeypatch):
    """The user data folder of this test (where the cache lives)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "gindex-studio"


def curate(capsys, *extra):
    """(exit status, the report without its work counts, stderr lines) of ``curate --json``."""
    code = main(["curate", EXPERIMENT, "--json", *extra])
    out, err = capsys.readouterr()
    value = orjson.loads(out) if code == 0 else None
    if value:
        value.pop("pairs_searched")
        value["duplicates"].pop("pairs_searched")
    return code, value, [line for line in err.splitlines() if line.strip()]


@pytest.fixture
def clean(data, capsys):
    """The report with a fresh cache (which it fills), and that cache's path."""
    code, value, err = curate(capsys)
    assert code == 0 and err == []
    path = data / "curation-cache.sqlite"
    assert _count(path) > 0
    return value, path


def _count(path: Path) -> int:
    c = DeltaCache(path)
    try:
        return c.count()
    finally:
        c.close()


def _asides(path: Path):
    return sorted(p for p in path.parent.iterdir() if ".damaged-" in p.name and not p.name.endswith(("-wal", "-shm")))


def _check_rebuilt(capsys, clean, damage_word):
    value, path = clean
    code, again, err = curate(capsys)
    assert code == 0 and again == value
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert str(path) in err[0] and "set aside as" in err[0] and damage_word in err[0], err[0]
    aside = _asides(path)
    assert len(aside) == 1 and str(aside[0]) in err[0]  # kept, and where is said
    code, third, err = curate(capsys)
    assert code == 0 and third == value and err == []  # said once: the new cache is healthy
    assert _count(path) > 0
    return aside[0]


def _checkpoint(path: Path):
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def test_a_truncated_cache_is_set_aside_and_rebuilt(clean, capsys):
    value, path = clean
    _checkpoint(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    aside = _check_rebuilt(capsys, clean, "damaged")
    assert aside.read_bytes() == data[: len(data) // 2]  # nothing lost: the damaged file is kept as it was


def test_random_bytes_are_set_aside_and_rebuilt(clean, capsys):
    value, path = clean
    for side in ("-wal", "-shm"):
        Path(str(path) + side).unlink(missing_ok=True)
    path.write_bytes(os.urandom(50_000))
    _check_rebuilt(capsys, clean, "not a database")


@pytest.mark.parametrize("schema", ["CREATE TABLE users (name TEXT)",
                                    "CREATE TABLE delta (opts TEXT, a INTEGER, value REAL)"])
def test_a_foreign_schema_is_set_aside_and_rebuilt(clean, capsys, schema):
    value, path = clean
    for p in [path] + [Path(str(path) + s) for s in ("-wal", "-shm")]:
        p.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute(schema)
    db.commit()
    db.close()
    _check_rebuilt(capsys, clean, "another program" if "users" in schema else "other columns")


def test_a_changed_value_is_detected_and_computed_again(clean, capsys):
    value, path = clean
    db = sqlite3.connect(path)
    changed = db.execute("UPDATE delta SET num = '0'").rowcount
    db.commit()
    db.close()
    assert changed > 0
    code, again, err = curate(capsys)
    assert code == 0 and again == value  # no false duplicates or leaks from the forged Δ = 0
    assert len(err) == 1 and "do not match their checksum" in err[0] and str(path) in err[0], err
    code, third, err = curate(capsys)
    assert code == 0 and third == value and err == []  # recomputed values were stored with good checksums


def test_a_row_copied_onto_another_pair_is_detected(tmp_path):
    """The checksum covers the key too: a value moved to another pair is not trusted."""
    c = DeltaCache(tmp_path / "c.sqlite")
    c.put_many("o", [(1, 2, Fraction(1, 3)), (1, 3, Fraction(2, 3))])
    c._db.execute("UPDATE delta SET num = '2' WHERE b = 2")  # 2/3 under 1×2: Δ of 1×3, with 1×3's numbers
    c._db.execute("UPDATE delta SET mac = (SELECT mac FROM delta WHERE b = 3) WHERE b = 2")
    assert c.get_many("o", [1, 2, 3]) == {(1, 3): Fraction(2, 3)}
    assert c.get_one("o", 1, 2) is None and len(c.notices) == 1
    c.close()


def test_a_locked_cache_is_run_without_and_said(clean, capsys, monkeypatch):
    value, path = clean
    monkeypatch.setattr(cache_mod, "LOCK_WAIT_S", 0.2)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, again, err = curate(capsys)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 0 and again == value
    assert len(err) == 1 and "locked" in err[0] and "running without it" in err[0] and str(path) in err[0], err
    assert _asides(path) == []  # a locked cache is not damaged: left alone


def test_a_read_only_cache_is_run_without_and_said(clean, capsys, monkeypatch):
    """SQLite opening the file read-only (as it does for a file or folder without write
    permission; the test may run as root, who may write anything, so the open is made read-only)."""
    value, path = clean
    db = sqlite3.connect(path)
    db.execute("DELETE FROM delta WHERE b = (SELECT b FROM delta LIMIT 1)")  # something left to write
    db.commit()
    db.close()
    real = sqlite3.connect
    monkeypatch.setattr(cache_mod.sqlite3, "connect",
                        lambda target, **kw: real(f"file:{target}?mode=ro", uri=True, **kw)
                        if target != ":memory:" else real(target, **kw))
    code, again, err = curate(capsys)
    assert code == 0 and again == value
    assert len(err) == 1 and "readonly" in err[0] and "without it" in err[0], err
    assert _asides(path) == []


def test_a_full_disk_is_run_without_and_said(clean, tmp_path):
    """The file size limit (RLIMIT_FSIZE) makes every write past the cache's present size fail
    as on a full disk; the run goes on in memory."""
    value, path = clean
    _checkpoint(path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM delta")
    db.commit()
    db.execute("VACUUM")
    db.close()
    limit = path.stat().st_size

    def small_disk():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, XDG_DATA_HOME=str(path.parent.parent))
    r = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "curate", EXPERIMENT, "--json"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120, preexec_fn=small_disk)
    assert r.returncode == 0, r.stderr[-2000:]
    again = orjson.loads(r.stdout)
    again.pop("pairs_searched")
    again["duplicates"].pop("pairs_searched")
    assert again == value
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in r.stderr and "without it" in err[0] and str(path) in err[0], r.stderr


def test_a_cache_that_fails_mid_run_goes_on_in_memory(tmp_path):
    c = DeltaCache(tmp_path / "c.sqlite")
    c.put_many("o", [(1, 2, Fraction(1, 3))])
    (tmp_path / "c.sqlite").write_bytes(b"\0" * 8192)  # damaged under the open connection
    c._db.execute("PRAGMA cache_size = 0")
    got = c.get_many("o", [1, 2])  # whatever it reads, no exception escapes
    c.put_many("o", [(1, 2, Fraction(1, 3))])
    assert got in ({}, {(1, 2): Fraction(1, 3)})
    c.close()


def test_a_read_then_another_processs_write_leaves_the_cache_writable(tmp_path):
    """The curation window's jobs share the file from several processes. A read through the
    temporary ``ask`` table (``get_pairs``) used to leave its transaction open; once another
    connection wrote, this one's next write failed at once (SQLITE_BUSY_SNAPSHOT) and it went on
    in memory for the rest of the run: nothing more was kept, and reopening the window computed
    the matrix again."""
    path = tmp_path / "c.sqlite"
    mine, other = DeltaCache(path), DeltaCache(path)
    mine.put_many("o", [(1, 2, Fraction(1, 3))])
    assert mine.get_pairs("o", [(1, 2), (1, 3)]) == {(1, 2): Fraction(1, 3)}
    other.put_many("o", [(1, 3, Fraction(2, 3))])
    mine.put_many("o", [(2, 3, Fraction(1, 2))])
    assert mine.notices == [] and other.notices == []
    later = DeltaCache(path)
    assert later.get_pairs("o", [(1, 2), (1, 3), (2, 3)]) == {
        (1, 2): Fraction(1, 3), (1, 3): Fraction(2, 3), (2, 3): Fraction(1, 2)}
    for c in (mine, other, later):
        c.close()


# ----- issue 36, item 2: flipped bytes, a key file that is a pipe, a cache path that links to nothing

def _schema_offset(path: Path) -> int:
    """Where the text of the cache's schema (``CREATE TABLE delta``) starts in the file."""
    _checkpoint(path)
    return path.read_bytes().index(b"CREATE TABLE delta")


def test_a_byte_of_the_schema_flipped_to_non_utf8_is_set_aside_and_rebuilt(clean, capsys):
    """The issue's input: damage that leaves SQLite's check passing but puts a byte that is not
    UTF-8 (0xb3) in the text SQLite hands over. It ended every run from then on with
    "'utf-8' codec can't decode byte 0xb3", exit 1, naming no file."""
    value, path = clean
    data = bytearray(path.read_bytes())
    data[_schema_offset(path) + 4] = 0xB3
    path.write_bytes(bytes(data))
    _check_rebuilt(capsys, clean, "not UTF-8 (byte 0xb3)")


def test_a_stored_value_that_is_not_utf8_is_set_aside_and_rebuilt(clean, capsys):
    value, path = clean
    db = sqlite3.connect(path)
    db.execute("UPDATE delta SET num = CAST(X'31b3' AS TEXT)")
    db.commit()
    db.close()
    _check_rebuilt(capsys, clean, "damaged")


@pytest.mark.slow
def test_random_300_byte_damages_never_stop_a_run(clean, capsys):
    """The issue's fault injector: 300 random bytes at a random place; every run ends 0 with the
    clean report and at most one line, and the run after it says nothing more."""
    import random

    value, path = clean
    _checkpoint(path)
    good = path.read_bytes()
    for seed in range(12):
        rnd = random.Random(seed)
        data = bytearray(good)
        at = rnd.randrange(len(data) - 300)
        data[at:at + 300] = rnd.randbytes(300)
        for side in ("-wal", "-shm"):
            Path(str(path) + side).unlink(missing_ok=True)
        path.write_bytes(bytes(data))
        for run in ("damaged", "after"):
            code, again, err = curate(capsys)
            assert code == 0 and again == value, (seed, run, err)
            assert len(err) <= (1 if run == "damaged" else 0) and "Traceback" not in "".join(err), (seed, run, err)
            assert all(str(path) in line for line in err), err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_key_file_that_is_a_pipe_is_never_opened(clean, capsys):
    """It hung curate (killed at 60 s). Now the run goes on without the disk, said in one line,
    and the cache's rows are kept (a new key would have made every row fail its checksum)."""
    value, path = clean
    rows = _count(path)
    key = Path(str(path) + ".key")
    good = key.read_bytes()
    key.unlink()
    os.mkfifo(key)
    start = time.monotonic()
    code, again, err = curate(capsys)
    assert time.monotonic() - start < 10
    assert code == 0 and again == value
    assert len(err) == 1 and str(key) in err[0] and "named pipe" in err[0] and "running without it" in err[0], err
    key.unlink()
    key.write_bytes(good)
    assert _count(path) == rows  # nothing was dropped


def test_a_cache_path_that_links_to_nothing_creates_nothing(clean, capsys, tmp_path):
    """It silently created the link's target; now the run goes on in memory and says why."""
    value, path = clean
    for p in [path] + [Path(str(path) + s) for s in ("-wal", "-shm")]:
        p.unlink(missing_ok=True)
    target = tmp_path / "elsewhere" / "target.sqlite"
    target.parent.mkdir()
    path.symlink_to(target)
    code, again, err = curate(capsys)
    assert code == 0 and again == value
    assert len(err) == 1 and str(path) in err[0] and f"is a link to {target}, which does not exist" in err[0], err
    assert list(target.parent.iterdir()) == [] and path.is_symlink()
