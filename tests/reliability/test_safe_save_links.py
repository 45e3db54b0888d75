"""Saving keeps hard links and user xattrs, is atomic on a full disk (``report -o`` included) and
sees a same-size edit whose time was set back (issue 26, item 6)."""
import errno
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from gindex_studio.core.flows import files
from gindex_studio.core.flows.files import FileStamp, atomic_write_bytes
from gindex_studio.paths import DEMO_DIR

ROOT = Path(__file__).resolve().parents[2]
STUDY = Path(DEMO_DIR) / "study" / "study.json"


def test_a_hard_linked_file_is_written_in_place_and_every_link_sees_it(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_bytes(b"[1]")
    os.link(a, b)
    inode = a.stat().st_ino
    atomic_write_bytes(a, b"[1, 2, 3]")
    assert b.read_bytes() == b"[1, 2, 3]" and a.stat().st_ino == b.stat().st_ino == inode
    assert a.stat().st_nlink == 2
    atomic_write_bytes(b, b"[]")  # shorter: the rest is cut off
    assert a.read_bytes() == b"[]"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]  # no temporary copy left


def test_a_hard_linked_file_is_put_back_when_writing_in_place_fails(tmp_path, monkeypatch):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_bytes(b"old content")
    os.link(a, b)
    real, calls = os.pwrite, []

    def full(fd, data, offset):
        calls.append(len(data))
        if len(calls) == 1:
            real(fd, bytes(data[:3]), offset)  # part of the new bytes, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data, offset)

    monkeypatch.setattr(files.os, "pwrite", full)
    with pytest.raises(OSError):
        atomic_write_bytes(a, b"new content, longer")
    assert b.read_bytes() == b"old content" and sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


def test_user_extended_attributes_are_kept(tmp_path):
    p = tmp_path / "f.json"
    p.write_bytes(b"[]")
    try:
        os.setxattr(p, "user.origin", b"downloaded")
    except OSError as e:
        pytest.skip(f"this file system has no user xattrs ({e.strerror})")
    atomic_write_bytes(p, b"[1]")
    assert os.getxattr(p, "user.origin") == b"downloaded" and p.read_bytes() == b"[1]"


def test_a_same_size_edit_with_its_time_set_back_is_a_change(tmp_path):
    p = tmp_path / "f.json"
    p.write_bytes(b'{"a": 1}')
    stamp = FileStamp.of(p)
    st = p.stat()
    p.write_bytes(b'{"a": 2}')  # what cp -p / rsync -t leave: other bytes, same size and time
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert p.stat().st_mtime_ns == stamp.mtime_ns and p.stat().st_size == stamp.size
    assert stamp.changed_on_disk(p)
    p.write_bytes(b'{"a": 1}')
    assert not stamp.changed_on_disk(p)  # the same bytes again: no change, whatever the time


@pytest.mark.slow
def test_report_on_a_full_disk_keeps_the_previous_report(tmp_path):
    """RLIMIT_FSIZE makes every write past a few bytes fail as a full disk would (EFBIG)."""
    out = tmp_path / "r.html"
    previous = b"<html>the previous report</html>"
    out.write_bytes(previous)
    limit = 4096

    def small_disk():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    r = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "report", str(STUDY), "-o", str(out),
                        "--resamples", "100", "--workers", "1"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, preexec_fn=small_disk, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    err = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(err) == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert str(out) in err[0] and "cannot write" in err[0]
    assert out.read_bytes() == previous and [p.name for p in tmp_path.iterdir()] == ["r.html"]
