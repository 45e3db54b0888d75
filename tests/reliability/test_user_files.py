"""Every command slot that reads a file the user named refuses a named pipe, a device and a file
above the input size limit at once, with one line naming it (issue 26, item 4).

The commands run in this process (``cli.dispatch.main``) under an alarm: a slot that blocked on a
pipe would fail the test after ``HANG_S`` instead of hanging the suite.
"""
import os
import signal
import time
from pathlib import Path

import orjson
import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.core.flows import files
from gindex_studio.core.flows.flow import FlowError, read_flow_file
from gindex_studio.paths import DEMO_DIR

DEMO = Path(DEMO_DIR)
REF = DEMO / "programs/telegram-2-reply/telegram-2-reply-4.json"
GEN = DEMO / "generated/telegram-2-reply-4.txt"
FLAT = Path(DEMO_DIR).parent / "flatland"
HANG_S = 10
KINDS = ("fifo", "device", "huge")

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def make_bad(kind: str, folder: Path, name: str) -> Path:
    """A file named ``name`` in ``folder`` that is a named pipe, /dev/zero (a link to it) or an 8 GiB
    sparse file."""
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "device":
        p.symlink_to("/dev/zero")
    else:
        with open(p, "wb") as f:
            f.truncate(8 << 30)
    return p


def run(argv, capsys):
    """(exit status, stdout, stderr, seconds) of the command line run here, failing after HANG_S."""
    def hung(*_):
        raise TimeoutError(f"{argv[0]} blocked for {HANG_S} s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG_S)
    start = time.monotonic()
    try:
        code = main([str(a) for a in argv])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out, err = capsys.readouterr()
    return code, out, err, time.monotonic() - start


def _experiment(tmp: Path, generated: Path | None = None) -> Path:
    exp = orjson.loads((DEMO / "experiment.json").read_bytes())
    exp["curriculum"] = [dict(c, programs=[str(DEMO / p) for p in c["programs"]]) for c in exp["curriculum"][:2]]
    task = exp["tasks"][0]
    exp["tasks"] = [dict(task, reference=str(DEMO / task["reference"]),
                         generated={"file": str(generated or DEMO / task["generated"]["file"])})]
    p = tmp / "exp.json"
    p.write_bytes(orjson.dumps(exp))
    return p


def _curriculum(tmp: Path) -> Path:
    cur = tmp / "cur"
    for d in ("http", "facebook"):
        (cur / d).mkdir(parents=True)
        for f in sorted((DEMO / "programs" / d).glob("*.json"))[:2]:
            (cur / d / f.name).write_bytes(f.read_bytes())
    return cur


def _outputs(tmp: Path) -> Path:
    p = tmp / "out.jsonl"
    p.write_bytes(orjson.dumps({"task_id": REF.stem, "output": GEN.read_text()}) + b"\n")
    return p


def _study(tmp: Path, bad: Path) -> Path:
    p = tmp / "study.json"
    p.write_bytes(orjson.dumps({"format": "gindex-studio.study/1", "name": "s", "experiments": [str(bad)]}))
    return p


def _including(tmp: Path, bad: Path) -> Path:
    p = bad.parent / "inc.fbp"  # a bare name: looked up in the library, then beside the including file
    p.write_bytes(b'#include "' + os.fsencode(bad.name) + b'"\n' + (FLAT / "square.fbp").read_bytes().split(b"\n", 1)[1])
    return p


# slot name → (name of the bad file, argv built from tmp folder and the bad file's path)
SLOTS = {
    "score reference": ("r.json", lambda t, b: ["score", b, GEN]),
    "score generated": ("g.txt", lambda t, b: ["score", REF, b]),
    "score flatland": ("r.fbp", lambda t, b: ["score", "--profile", "flatland", b, FLAT / "square.fbp"]),
    "matrix": ("m.json", lambda t, b: ["matrix", REF, b]),
    "omega tasks": ("t.json", lambda t, b: ["omega", "--curriculum", _curriculum(t), "--tasks", b]),
    "gindex experiment": ("e.json", lambda t, b: ["gindex", b]),
    "gindex companion": ("e.json", lambda t, b: ["gindex", b, "--domains", t]),
    "gindex task file": ("g.txt", lambda t, b: ["gindex", _experiment(t, b)]),
    "compare": ("c.json", lambda t, b: ["compare", b, GEN]),
    "curate experiment": ("e.json", lambda t, b: ["curate", b, "--no-cache"]),
    "curate tasks": ("t.json", lambda t, b: ["curate", _curriculum(t), "--tasks", b, "--no-cache"]),
    "experiment new tasks": ("t.json", lambda t, b: ["experiment", "new", "--curriculum", _curriculum(t), "--tasks", b,
                                                     "--outputs", _outputs(t), "--compute", "1e20", "-o", t / "x.json"]),
    "experiment new outputs": ("o.jsonl", lambda t, b: ["experiment", "new", "--curriculum", _curriculum(t),
                                                        "--tasks", REF, "--outputs", b, "--compute", "1e20",
                                                        "-o", t / "x.json"]),
    "report": ("s.json", lambda t, b: ["report", b, "--json"]),
    "report study entry": ("e.json", lambda t, b: ["report", _study(t, b), "--json"]),
    "flatland draw": ("p.fbp", lambda t, b: ["flatland", "draw", b, "-o", t / "o.png"]),
    "flatland augment": ("p.fbp", lambda t, b: ["flatland", "augment", b, "-o", t / "aug"]),
    "flatland compare reference": ("p.fbp", lambda t, b: ["flatland", "compare", b, FLAT / "square.fbp"]),
    "flatland compare generated": ("p.fbp", lambda t, b: ["flatland", "compare", FLAT / "square.fbp", b]),
    "flatland include": ("inc2.fbp", lambda t, b: ["flatland", "draw", _including(t, b), "-o", t / "o.png"]),
    "library folder": ("x.json", lambda t, b: ["library", "--library", b.parent]),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_a_pipe_a_device_or_a_huge_file_is_refused_at_once_with_one_line(slot, kind, tmp_path, capsys):
    name, argv = SLOTS[slot]
    bad = make_bad(kind, tmp_path / "bad", name)
    code, out, err, took = run(argv(tmp_path, bad), capsys)
    line = err.strip()
    assert code == 1 and "\n" not in line and "Traceback" not in err, (code, err[-2000:])
    assert name in line or str(bad) in line, line
    reason = {"fifo": "named pipe", "device": "is a device", "huge": "8.0 GiB"}[kind]
    if slot == "flatland include" and kind == "device":
        reason = "a link to a file outside"  # an include may not leave its folder, whatever the link points to
    assert reason in line, line
    assert took < 5, took


def test_dev_zero_named_directly_is_a_device(capsys):
    code, _, err, _ = run(["score", "/dev/zero", GEN], capsys)
    assert code == 1 and err.strip() == "gindex-studio: /dev/zero: is a device, not a flow file; give a regular file"


@pytest.mark.parametrize("kind", ("fifo", "device"))
def test_a_pipe_or_device_inside_a_program_folder_is_skipped_never_opened(kind, tmp_path, capsys):
    """A folder walk takes regular files only (by stat: nothing is opened), so a pipe among the
    programs neither blocks nor changes the result."""
    cur = _curriculum(tmp_path)
    code, clean, _, _ = run(["omega", "--curriculum", cur, "--tasks", REF, "--json"], capsys)
    assert code == 0
    make_bad(kind, cur / "http", "zz.json")
    code, out, err, took = run(["omega", "--curriculum", cur, "--tasks", REF, "--json"], capsys)
    assert code == 0 and orjson.loads(out) == orjson.loads(clean), err
    code, out, err, _ = run(["curate", cur, "--no-cache", "--json"], capsys)
    assert code == 0 and "zz.json" not in out, err


def test_a_huge_file_inside_a_program_folder_is_refused_with_its_name(tmp_path, capsys):
    cur = _curriculum(tmp_path)
    make_bad("huge", cur / "http", "zz.json")
    for argv in (["omega", "--curriculum", cur, "--tasks", REF], ["curate", cur, "--no-cache"]):
        code, _, err, took = run(argv, capsys)
        assert code == 1 and len(err.strip().splitlines()) == 1 and "zz.json: is 8.0 GiB" in err, err
        assert took < 5


def test_the_size_limit_is_documented_and_raised_by_its_environment_variable(tmp_path, monkeypatch):
    p = tmp_path / "f.json"
    p.write_bytes(REF.read_bytes())
    size = p.stat().st_size
    assert files.max_input_bytes() == files.MAX_INPUT_MB << 20 == 256 << 20
    monkeypatch.setenv(files.MAX_INPUT_ENV, str(size / 2 / (1 << 20)))
    with pytest.raises(FlowError, match=r"f\.json: is .* larger than the .* limit .*GINDEX_MAX_INPUT_MB"):
        read_flow_file(p)
    monkeypatch.setenv(files.MAX_INPUT_ENV, str(size / (1 << 20)))
    assert read_flow_file(p).nodes  # exactly at the limit is fine
    monkeypatch.setenv(files.MAX_INPUT_ENV, "not a number")
    assert files.max_input_bytes() == 256 << 20


def test_a_file_swapped_for_a_pipe_after_the_stat_is_still_refused_without_blocking(tmp_path, monkeypatch):
    """The stat said "regular file", but a pipe was opened: O_NONBLOCK keeps the open from
    blocking and fstat refuses it."""
    fifo = make_bad("fifo", tmp_path, "p.json")
    real_stat = os.stat
    monkeypatch.setattr(files.os, "stat", lambda p, *a, **k: real_stat(REF) if str(p) == str(fifo) else real_stat(p, *a, **k))
    start = time.monotonic()
    with pytest.raises(files.UserFileError, match="named pipe"):
        files.read_user_bytes(fifo)
    assert time.monotonic() - start < 2


def test_a_file_that_grows_past_the_limit_while_read_is_refused(tmp_path, monkeypatch):
    p = tmp_path / "grow.json"
    p.write_bytes(b"[]")
    monkeypatch.setenv(files.MAX_INPUT_ENV, str(1 / 1024))  # 1 KiB
    real_fstat = os.fstat
    monkeypatch.setattr(files.os, "fstat", lambda fd: (p.write_bytes(b" " * 4096), real_fstat(fd))[1])
    with pytest.raises(files.UserFileError, match="grew|larger"):
        files.read_user_bytes(p)
