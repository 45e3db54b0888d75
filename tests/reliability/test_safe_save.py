"""Saving never changes a user's file behind their back (issue 14, items 1-3, 5, 6).

Each test fails on the code before the fix: mkstemp's 0600 mode was kept, read-only files were
replaced, links were replaced by plain files, bad bytes became U+FFFD, temp files of a killed save
stayed forever."""
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio.core.flows.files import FileStamp, ReadOnlyError, atomic_write_bytes, remove_stale_temps
from gindex_studio.core.flows.flow import read_flow_file, write_flow_file

FLOW = b'[{"id":"a","type":"inject","wires":[["b"]]},{"id":"b","type":"debug","wires":[]}]'


def _flow_file(tmp_path: Path, name="a.json", data=FLOW, mode=0o644) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    p.chmod(mode)
    return p


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o664, 0o600])
def test_save_keeps_the_files_permission_bits(tmp_path, mode):
    p = _flow_file(tmp_path, mode=mode)
    flow = read_flow_file(p)
    flow.nodes[0].data["name"] = "edited"
    write_flow_file(flow, p)
    assert _mode(p) == mode
    assert read_flow_file(p).nodes[0].name == "edited"


def test_a_new_file_gets_the_usual_mode_from_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write_bytes(tmp_path / "new.json", FLOW)
    finally:
        os.umask(old)
    assert _mode(tmp_path / "new.json") == 0o644


def test_a_read_only_file_is_refused_and_left_as_it_was(tmp_path):
    p = _flow_file(tmp_path, mode=0o444)
    flow = read_flow_file(p)
    flow.nodes[0].data["name"] = "edited"
    with pytest.raises(ReadOnlyError) as e:
        write_flow_file(flow, p)
    assert "read-only" in str(e.value)
    assert isinstance(e.value, PermissionError)  # callers that catch OSError show it
    assert p.read_bytes() == FLOW and _mode(p) == 0o444
    assert [f.name for f in tmp_path.iterdir()] == ["a.json"]  # no temporary file left


def test_saving_through_a_symbolic_link_updates_its_target_and_keeps_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = _flow_file(tmp_path / "real", "t.json")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    flow = read_flow_file(link)
    flow.nodes[0].data["name"] = "through the link"
    write_flow_file(flow, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert read_flow_file(target).nodes[0].name == "through the link"


def test_bytes_that_are_not_utf8_are_reported_and_written_back_unchanged(tmp_path):
    data = b'[{"id":"a","type":"inject","name":"caf\xe9 \xff","topic":"ok \xc3\xa9","wires":[]}]'
    p = _flow_file(tmp_path, data=data)
    flow = read_flow_file(p)
    enc = [q for q in flow.problems if q.kind == "encoding"]
    assert len(enc) == 1 and "2 bytes" in enc[0].message and "not valid UTF-8" in enc[0].message
    assert flow.nodes[0].data["topic"] == "ok é"  # valid UTF-8 still decodes as text
    flow.nodes[0].data["info"] = "added"
    write_flow_file(flow, p)
    out = p.read_bytes()
    assert b"caf\xe9 \xff" in out and "\ufffd".encode() not in out
    assert read_flow_file(p).nodes[0].data["info"] == "added"


def test_valid_utf8_files_report_no_encoding_problem(tmp_path):
    p = _flow_file(tmp_path, data='[{"id":"a","type":"inject","name":"café ✓","wires":[]}]'.encode())
    assert not [q for q in read_flow_file(p).problems if q.kind == "encoding"]


_SLOW_SAVER = """
import os, sys, time
sys.path.insert(0, sys.argv[2])
from gindex_studio.core.flows import files
real = os.fsync
os.fsync = lambda fd: (print("writing", flush=True), time.sleep(60))
files.atomic_write_bytes(sys.argv[1], b"[]")
"""


def test_temporary_files_of_a_save_killed_with_sigkill_are_removed_by_the_next_save(tmp_path):
    p = _flow_file(tmp_path)
    root = str(Path(__file__).resolve().parents[2])
    child = subprocess.Popen([sys.executable, "-c", _SLOW_SAVER, str(p), root], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "writing"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(5)
    left = [f for f in tmp_path.iterdir() if f.name.endswith(".tmp")]
    assert len(left) == 1 and left[0].name.startswith(f".a.json.{child.pid}.")
    assert p.read_bytes() == FLOW  # the killed save changed nothing
    write_flow_file(read_flow_file(p), p)
    assert sorted(f.name for f in tmp_path.iterdir()) == ["a.json"]


def test_stale_temporaries_of_older_versions_go_but_a_running_save_is_left_alone(tmp_path):
    p = _flow_file(tmp_path)
    old_style = tmp_path / ".a.json.k2j4x_9q.tmp"  # mkstemp's name, before the process id was added
    old_style.write_bytes(b"[")
    os.utime(old_style, (time.time() - 600, time.time() - 600))
    running = tmp_path / f".a.json.{os.getpid()}.0000abcd.tmp"  # this process is alive
    running.write_bytes(b"[")
    other = tmp_path / ".b.json.1.0000abcd.tmp"  # another file's temporary is not ours to remove
    other.write_bytes(b"[")
    assert remove_stale_temps(p) == [old_style]
    assert running.exists() and other.exists()


def test_file_stamp_sees_other_programs_changes_but_not_a_touch(tmp_path):
    p = _flow_file(tmp_path)
    stamp = FileStamp.of(p)
    assert not stamp.changed_on_disk(p)
    os.utime(p, (time.time() + 5, time.time() + 5))
    assert not stamp.changed_on_disk(p)
    p.write_bytes(FLOW.replace(b"debug", b"DEBUG"))
    assert stamp.changed_on_disk(p)
    p.unlink()
    assert stamp.changed_on_disk(p)
