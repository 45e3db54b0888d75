"""Outputs (issue 36, item 10): ``flatland draw`` writes each output whole or not at all (a full
disk left the old ``--json`` as 4,096 bytes of invalid JSON, and "No space left on device" named
no file), and an output that is a named pipe or a device is refused at once (``-o FIFO`` hung)."""
import errno
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.core.flows import files
from gindex_studio.paths import DEMO_DIR

ROOT = Path(__file__).resolve().parents[2]
DEMO = Path(DEMO_DIR)
SQUARE = DEMO.parent / "flatland" / "square.fbp"
REF = DEMO / "programs/telegram-2-reply/telegram-2-reply-4.json"
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def run(argv, capsys):
    start = time.monotonic()
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err, time.monotonic() - start


def _old_outputs(folder: Path) -> dict:
    """Outputs of an earlier draw: (name → bytes) as they must stay."""
    old = {"o.png": b"old png", "o.json": b'{"old": "json"}', "o.lisp": b"(old)"}
    for name, data in old.items():
        (folder / name).write_bytes(data)
    return old


def test_a_full_disk_leaves_every_old_output_whole_and_names_the_file(tmp_path, monkeypatch, capsys):
    old = _old_outputs(tmp_path)

    def full(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    code, out, err, _ = run(["flatland", "draw", SQUARE, "-o", tmp_path / "o.png", "--json", tmp_path / "o.json",
                             "--lisp", tmp_path / "o.lisp"], capsys)
    assert code == 1 and out == ""
    assert err == f"gindex-studio: {tmp_path / 'o.png'}: No space left on device\n"
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == old  # no temporary file left either


@pytest.mark.skipif(not shutil.which("unshare"), reason="needs unshare(1) for a private tmpfs")
def test_a_really_full_file_system(tmp_path):
    """On a 64 KiB tmpfs filled to the last byte (in a private mount namespace): the draw fails
    with one line naming its output, and the old output files are unchanged."""
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (f"mount -t tmpfs -o size=64k tmpfs {disk} && cd {disk} && printf old > o.png && "
              f"printf '{{\"old\": 1}}' > o.json && (head -c 1000000 /dev/zero > filler 2>/dev/null; true) && "
              f"{sys.executable} -m gindex_studio.cli flatland draw {SQUARE} -o o.png --json o.json; "
              f"echo status=$?; cat o.png; echo; cat o.json; echo; ls -a")
    r = subprocess.run(["unshare", "-rm", "sh", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if "mount" in r.stderr and "status=" not in r.stdout:
        pytest.skip(f"no private tmpfs here: {r.stderr.strip()[:200]}")
    assert r.stderr == "gindex-studio: o.png: No space left on device\n", r.stderr
    assert r.stdout.split("\n")[:3] == ["status=1", "old", '{"old": 1}'], r.stdout
    assert sorted(r.stdout.split("\n")[3:-1]) == [".", "..", "filler", "o.json", "o.png"], r.stdout


def _fifo(folder: Path) -> Path:
    p = folder / "fifo"
    os.mkfifo(p)
    return p


def _outputs_jsonl(tmp: Path) -> Path:
    p = tmp / "out.jsonl"
    p.write_text('{"task_id": "telegram-2-reply-4", "output": "[]"}\n')
    return p


#: every option that names a file or folder to write: (argv from the tmp folder and the bad path)
OUTPUT_SLOTS = {
    "draw -o": lambda t, b: ["flatland", "draw", SQUARE, "-o", b, "--json", t / "x.json"],
    "draw --json": lambda t, b: ["flatland", "draw", SQUARE, "-o", t / "x.png", "--json", b],
    "draw --lisp": lambda t, b: ["flatland", "draw", SQUARE, "-o", t / "x.png", "--lisp", b],
    "augment -o": lambda t, b: ["flatland", "augment", SQUARE, "-o", b],
    "dataset -o": lambda t, b: ["flatland", "dataset", "-o", b, "--per-domain", "1", "--per-test-domain", "1"],
    "report -o": lambda t, b: ["report", DEMO / "experiment.json", "-o", b],
    "experiment new -o": lambda t, b: ["experiment", "new", "--curriculum", DEMO / "programs", "--tasks", REF,
                                       "--outputs", _outputs_jsonl(t), "--compute", "1e9", "-o", b],
}


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("slot", sorted(OUTPUT_SLOTS))
def test_an_output_that_is_a_pipe_or_a_device_is_refused_at_once(tmp_path, capsys, slot, kind):
    if slot == "report -o":
        pytest.importorskip("PySide6")
    bad = _fifo(tmp_path) if kind == "fifo" else Path("/dev/null")
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err, took = run(OUTPUT_SLOTS[slot](tmp_path, bad), capsys)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "Traceback" not in err, err[-2000:]
    assert str(bad) in lines[0] and ("named pipe" in lines[0] or "device" in lines[0]
                                     or "is not a folder" in lines[0]), lines[0]
    assert took < 5
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".jsonl") == before
    assert Path("/dev/null").is_char_device()
