"""Saving keeps hard links and user xattrs, is atomic on a full disk (``report -o`` included) and
sees a same-size edit whose time was set back (issue 26, item 6)."""
import errno
import os
import resource
import subprocess
import sys
from pathlib import Path

import orjson
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


# ----- issue 36, item 4: kill -9 while a hard-linked flow is written in place

def _flow_bytes(n: int, tag: str) -> bytes:
    nodes = [{"id": f"{tag}{k}", "type": "function", "func": "return msg;" * 20, "wires": [[]]} for k in range(n)]
    return orjson.dumps(nodes)


_KILLED_MID_WRITE = """
import os, signal, sys
from gindex_studio.core.flows import files
real, written = os.pwrite, [0]
def pwrite(fd, data, offset):  # the disk takes 2 MiB, then the process is killed (the issue's case)
    n = real(fd, bytes(data[: (2 << 20) - written[0]]), offset)
    written[0] += n
    if written[0] >= 2 << 20:
        os.kill(os.getpid(), signal.SIGKILL)
    return n
files.os.pwrite = pwrite
files.atomic_write_bytes(sys.argv[1], open(sys.argv[2], "rb").read())
"""


def test_a_save_killed_mid_write_is_finished_from_its_copy_through_every_link(tmp_path):
    """The issue's case: NUL bytes from byte 2,097,152 on, through every link. The killed save's
    complete copy is kept beside the saved name (``.redo``), and the next read of that name
    finishes the save from it, for every link."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    old, new = _flow_bytes(2000, "old"), _flow_bytes(16000, "new")
    assert len(new) > 4 << 20 > len(old)
    a.write_bytes(old)
    os.link(a, b)
    (tmp_path / "new.bin").write_bytes(new)
    r = subprocess.run([sys.executable, "-c", _KILLED_MID_WRITE, str(a), str(tmp_path / "new.bin")], cwd=ROOT)
    assert r.returncode == -9
    torn = os.open(b, os.O_RDONLY)  # what a plain read sees right after the kill: neither old nor new
    raw = os.read(torn, len(new) + 1)
    os.close(torn)
    assert raw not in (old, new) and raw[: 2 << 20] == new[: 2 << 20]
    copies = [p.name for p in tmp_path.iterdir() if p.name.endswith(".redo")]
    assert len(copies) == 1 and copies[0].startswith(".a.json.")
    assert files.read_user_bytes(a) == new  # the save is finished, for every link
    assert b.read_bytes() == new and a.stat().st_ino == b.stat().st_ino and a.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json", "new.bin"]


def test_the_studios_open_finishes_a_killed_save_too(tmp_path):
    pytest.importorskip("PySide6")
    from gindex_studio.ui.loader import load_flow

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    old, new = _flow_bytes(2000, "old"), _flow_bytes(16000, "new")
    a.write_bytes(old)
    os.link(a, b)
    (tmp_path / "new.bin").write_bytes(new)
    assert subprocess.run([sys.executable, "-c", _KILLED_MID_WRITE, str(a), str(tmp_path / "new.bin")],
                          cwd=ROOT).returncode == -9
    flow, err = load_flow(str(a))
    assert err == "" and len(flow.nodes) == 16000 and b.read_bytes() == new


_SAVING_FOR_EVER = """
import sys
from gindex_studio.core.flows.files import atomic_write_bytes
one, two = open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
print("ready", flush=True)
while True:
    atomic_write_bytes(sys.argv[1], one)
    atomic_write_bytes(sys.argv[1], two)
"""


@pytest.mark.slow
def test_kill_9_at_random_moments_of_saving_a_hard_linked_flow_never_leaves_it_torn(tmp_path):
    import random
    import time

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    one, two = _flow_bytes(3000, "one"), _flow_bytes(9000, "two")
    (tmp_path / "one.bin").write_bytes(one)
    (tmp_path / "two.bin").write_bytes(two)
    a.write_bytes(one)
    os.link(a, b)
    rnd = random.Random(36)
    for _ in range(15):
        child = subprocess.Popen([sys.executable, "-c", _SAVING_FOR_EVER, str(a), str(tmp_path / "one.bin"),
                                  str(tmp_path / "two.bin")], cwd=ROOT, stdout=subprocess.PIPE)
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rnd.uniform(0.0, 0.3))
        child.kill()
        child.wait()
        assert files.read_user_bytes(a) in (one, two) and b.read_bytes() == a.read_bytes()
        assert a.stat().st_ino == b.stat().st_ino
    # a kill between a temporary file's creation and its rename leaves it; the next save removes it
    files.atomic_write_bytes(a, one)
    assert b.read_bytes() == one and a.stat().st_ino == b.stat().st_ino
    assert not [p for p in tmp_path.iterdir() if p.name.endswith((".redo", ".tmp"))]
