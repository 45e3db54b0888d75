"""Every command slot × the hostile corpus (issue 36, "Done when"): each run ends with exit 0, 1 or
2, at most one line on stderr (a usage error: argparse's usage and its one error line), no
traceback, within 10 s of CPU (40 s of wall time: the suite runs on two processes of a 2-core
machine) and 1 GB of peak memory.

A slot is a place of a command line where a user names a file (``score``'s reference, a program
folder's entry, an experiment's task, a Flatland include, …): test_user_files.SLOTS and
test_folder_entries.SLOTS, plus ``lint`` and ``compare``'s second file. Every kind of
tests/hostile_inputs.py is put in every slot, each run in a folder of its own. The runs are
in-process command lines (``cli.dispatch.main``) in two driver processes working in parallel
(hostile_driver.py: file descriptors 1 and 2 caught, an alarm, the peak resident size), so the
whole matrix (about 2,200 runs) takes well under a minute. ``run``/``probe`` (real Node-RED) and
``flatland dataset`` (no input file) are not slots; ``lint`` runs the real nrlint when the test
Node-RED install exists (tests/conftest.py's ``nodered`` folder), else a stand-in that finds
nothing, said as a warning.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from tests.hostile_inputs import KINDS
from tests.reliability.test_folder_entries import SLOTS as FOLDER_SLOTS
from tests.reliability.test_user_files import REF, SLOTS as FILE_SLOTS

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("hostile_driver.py")
DRIVERS = 2
LIMIT_S = 10
#: the wall-clock bound: a command blocked on something (the driver's alarm ends it here)
WALL_LIMIT_S = 40
LIMIT_BYTES = 1 << 30
NODERED_HOME = Path.home() / ".cache" / "gindex-studio-test-nodered"

def _file_slot(name: str):
    """test_user_files' slot ``name``: the input made as its bad file, in ``t/bad``."""
    file_name, argv = FILE_SLOTS[name]
    return lambda t, make: argv(t, make(_dir(t / "bad"), file_name))


def _folder_slot(name: str):
    """test_folder_entries' slot ``name``: the input made as an entry of its program folder."""
    def slot(t, make):
        argv, folder = FOLDER_SLOTS[name](t)
        make(folder, "zz-bad.json")
        return argv
    return slot


#: slot → argv from (the run's folder, the kind's ``make``)
SLOTS = {
    **{name: _file_slot(name) for name in FILE_SLOTS},
    **{f"{name} entry": _folder_slot(name) for name in FOLDER_SLOTS},
    "compare generated": lambda t, make: ["compare", REF, make(_dir(t / "bad"), "g.txt")],
    "lint": lambda t, make: ["lint", make(_dir(t / "bad"), "l.json")],
}


def _dir(p: Path) -> Path:
    p.mkdir(parents=True, exist_ok=True)
    return p


def _env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINDEX_")}
    env.update(PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"),
               OPENBLAS_NUM_THREADS="1")
    from gindex_studio.core.nodered.install import is_installed

    if is_installed(NODERED_HOME):
        env["GINDEX_NODERED_HOME"] = str(NODERED_HOME)
    else:  # lint would install Node-RED from the network first
        env["HOSTILE_NO_NRLINT"] = "1"
    return env


#: a JSON file (an experiment, a study) cannot name a file whose name is not UTF-8 text
UNWRITABLE = {(slot, "a name that is not UTF-8") for slot in ("gindex task file", "report study entry")}
#: runs not made, each with why: outside this branch's reach, and beyond the time bound
NOT_RUN: dict[tuple[str, str], str] = {}


def _jobs(tmp: Path) -> tuple[dict[str, tuple[str, str]], set]:
    """Every slot × kind made in a folder of its own: (job id → (slot, kind), the pairs that
    cannot be made: a JSON file that would have to name a file whose name is no text)."""
    jobs, lists, unwritable = {}, [[] for _ in range(DRIVERS)], set()
    for s, slot in enumerate(sorted(SLOTS)):
        for k, kind in enumerate(sorted(KINDS)):
            folder = _dir(tmp / "runs" / f"{s}-{k}")
            if (slot, kind) in NOT_RUN:
                continue
            try:
                argv = [str(a) for a in SLOTS[slot](folder, KINDS[kind])]
            except (TypeError, UnicodeError):  # orjson: "str is not valid UTF-8: surrogates not allowed"
                unwritable.add((slot, kind))
                continue
            job_id = f"{s}-{k}"
            jobs[job_id] = (slot, kind)
            lists[len(jobs) % DRIVERS].append({"id": job_id, "argv": argv})
    for n, jl in enumerate(lists):
        (tmp / f"jobs-{n}.json").write_text(json.dumps(jl))
    return jobs, unwritable


def run_matrix(tmp: Path) -> dict:
    """(slot, kind) → the driver's result, for the whole matrix."""
    start = time.monotonic()
    jobs, unwritable = _jobs(tmp)
    assert unwritable == UNWRITABLE
    made = time.monotonic() - start
    env = _env(tmp)
    procs = [subprocess.Popen([sys.executable, str(DRIVER), str(tmp / f"jobs-{n}.json"), str(tmp / f"results-{n}.jsonl")],
                              cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT) for n in range(DRIVERS)]
    try:
        for p in procs:
            out, _ = p.communicate(timeout=900)
            assert p.returncode == 0, out.decode(errors="replace")[-3000:]
    finally:  # a driver that did not end (SIGTERM only ends the command it runs) goes with the test
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    results = {}
    for n in range(DRIVERS):
        for line in (tmp / f"results-{n}.jsonl").read_text().splitlines():
            r = json.loads(line)
            results[jobs[r["id"]]] = r
    assert len(results) == len(jobs) == len(SLOTS) * len(KINDS) - len(UNWRITABLE) - len(NOT_RUN)
    if "GINDEX_NODERED_HOME" not in env:
        warnings.warn("lint ran without nrlint: no test Node-RED install (tests/conftest.py's nodered fixture "
                      "makes one); its reading of the files was tested, not nrlint on them")
    print(f"\nhostile corpus: {len(KINDS)} kinds × {len(SLOTS)} slots: {len(jobs)} runs; made in {made:.1f} s, "
          f"run in {time.monotonic() - start - made:.1f} s; not run: "
          + ("; ".join(f"{s} × {k} ({why})" for (s, k), why in NOT_RUN.items()) or "none"))
    return results


def problems(r: dict) -> list[str]:
    """What is wrong with one run, in words (empty: nothing)."""
    found = []
    code, err = r["code"], r["err"]
    if code not in (0, 1, 2):
        found.append(f"exit {code}")
    lines = err.strip().splitlines()
    if code == 2 and lines and lines[0].startswith("usage:"):  # argparse: its usage, then one error line
        lines = [x for x in lines if ": error: " in x] or lines
    if len(lines) > 1:
        found.append(f"{len(lines)} stderr lines")
    if "Traceback" in err or "Traceback" in r["out"]:
        found.append("a traceback")
    if r["cpu"] > LIMIT_S:  # the work's bound, whatever else runs on the machine meanwhile
        found.append(f"{r['cpu']:.1f} s of CPU")
    if r["seconds"] > WALL_LIMIT_S:
        found.append(f"{r['seconds']:.1f} s")
    if r["peak"] > LIMIT_BYTES:
        found.append(f"peak memory {r['peak'] >> 20} MiB")
    return found


@pytest.mark.slow
def test_every_hostile_input_in_every_slot_ends_cleanly(tmp_path_factory):
    """One test for the whole matrix (under pytest-xdist a test per slot ran it once per process)."""
    runs = run_matrix(tmp_path_factory.mktemp("hostile"))
    bad = []
    for slot in sorted(SLOTS):
        for kind in sorted(KINDS):
            if (slot, kind) in UNWRITABLE or (slot, kind) in NOT_RUN:
                continue
            r = runs[(slot, kind)]
            found = problems(r)
            if found:
                bad.append(f"{slot} × {kind}: {', '.join(found)}: exit {r['code']}: {r['err'].strip()[-600:]!r}")
    assert not bad, f"{len(bad)} of {len(runs)} runs:\n" + "\n".join(bad)


def test_the_corpus_is_large_and_varied():
    assert len(KINDS) >= 50
    for words in ("named pipe", "/dev/zero", "link loop", "dangling link", "folder named", "sparse", "nested",
                  "broken", "unknown node types", "cycle", "1e308", "NaN", "-1", "[1,2,3]", "UTF-8", "empty file",
                  "binary garbage", "255-byte name"):
        assert any(words in k for k in KINDS), words


@pytest.mark.slow
def test_the_driver_catches_what_it_must_catch(tmp_path):
    """The driver itself: a hang is "hung", a traceback is caught from file descriptor 2, and
    a command's exit status and lines are kept (else the matrix could pass whatever happens)."""
    sys.path.insert(0, str(DRIVER.parent))
    try:
        import hostile_driver as d
    finally:
        sys.path.remove(str(DRIVER.parent))

    def command(argv):
        if argv == ["hang"]:
            time.sleep(60)
        if argv == ["crash"]:
            raise RuntimeError("boom")
        os.write(2, b"from C\n")
        return 3

    import signal

    old = signal.signal(signal.SIGALRM, d._alarm)
    d.HANG_S, d.WALL_S, before = 1, 1, (d.HANG_S, d.WALL_S)
    try:
        assert d.run_one(command, ["hang"])["code"] == "hung"
        crash = d.run_one(command, ["crash"])
        ok = d.run_one(command, ["x"])
    finally:
        d.HANG_S, d.WALL_S = before
        signal.signal(signal.SIGALRM, old)
    assert crash["code"] == "raised" and "Traceback" in crash["err"] and problems(crash)
    assert ok["code"] == 3 and ok["err"] == "from C\n" and problems(ok) == ["exit 3"]
