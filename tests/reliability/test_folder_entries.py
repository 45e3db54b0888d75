"""Entries of program folders that are not regular files are never read and never left out
silently (issue 36, item 5): one warning line with the count and the first names, exit 0; with
``--strict`` the first one is an error (exit 1, one line).

The commands run in this process under an alarm (``test_user_files.run``)."""
import os
from pathlib import Path

import orjson
import pytest

from tests.cli.test_cli_companion import _companion
from tests.reliability.test_user_files import DEMO, REF, _curriculum, _outputs, run

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

#: kind → (make it at path, the words the warning uses for it)
KINDS = {
    "fifo": (lambda p: os.mkfifo(p), "a named pipe (FIFO)"),
    "device link": (lambda p: p.symlink_to("/dev/zero"), "a device"),
    "link loop": (lambda p: p.symlink_to(p.name), "a link loop"),
    "dangling link": (lambda p: p.symlink_to("gone.json"), "a link to nothing (gone.json)"),
    "folder": (lambda p: p.mkdir(), "a folder"),
}


def _exp_new(t, cur, tasks):
    return ["experiment", "new", "--curriculum", cur, "--tasks", tasks, "--outputs", _outputs(t),
            "--compute", "1e20", "-o", t / "x.json"]


def _tasks_folder(t: Path) -> Path:
    folder = t / "tasks"
    folder.mkdir(exist_ok=True)
    (folder / REF.name).write_bytes(REF.read_bytes())
    return folder


# slot → (argv from the tmp folder, the folder that gets the bad entry)
SLOTS = {
    "omega --curriculum": lambda t: (["omega", "--curriculum", _curriculum(t), "--tasks", REF], t / "cur" / "http"),
    "omega --tasks": lambda t: (["omega", "--curriculum", _curriculum(t), "--tasks", _tasks_folder(t)], t / "tasks"),
    "curate DIR": lambda t: (["curate", _curriculum(t), "--no-cache"], t / "cur" / "http"),
    "gindex --domains": lambda t: (["gindex", *_companion_args(t)], t / "domains" / "alpha"),
    "experiment new --curriculum": lambda t: (_exp_new(t, _curriculum(t), REF), t / "cur" / "http"),
    "experiment new --tasks": lambda t: (_exp_new(t, _curriculum(t), _tasks_folder(t)), t / "tasks"),
}


def _companion_args(t: Path):
    path, dom = _companion(t)
    return [path, "--domains", dom]


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_a_bad_entry_in_a_program_folder_is_said_and_strict_refuses_it(slot, kind, tmp_path, capsys):
    argv, folder = SLOTS[slot](tmp_path)
    make, words = KINDS[kind]
    bad = folder / "zz-bad.json"
    make(bad)
    code, out, err, took = run(argv, capsys)
    lines = err.strip().splitlines()
    assert code == 0 and len(lines) == 1 and "Traceback" not in err, (code, err[-2000:])
    assert "skipped 1 entry" in lines[0] and f"{bad} ({words})" in lines[0] and "--strict" in lines[0], lines[0]
    assert took < 10
    code, out, err, took = run(argv + ["--strict"], capsys)
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "Traceback" not in err, (code, err[-2000:])
    assert lines[0] == f"gindex-studio: {bad}: {words}, not a regular program file (--strict)"


def test_a_dangling_link_that_hid_a_leak_is_named(tmp_path, capsys):
    """The issue's case: the curriculum's copy of a task, behind a link whose target moved. Ω is
    that of the programs that could be read (no leak seen), and the line says which one was not."""
    cur = _curriculum(tmp_path)
    leak = cur / "http" / "leaked.json"
    leak.write_bytes(REF.read_bytes())
    code, out, _, _ = run(["omega", "--curriculum", cur, "--tasks", REF, "--json"], capsys)
    assert code == 0 and orjson.loads(out)["tasks"][0]["omega"] == 0.0  # the leak, seen
    leak.unlink()
    leak.symlink_to(tmp_path / "moved" / "leaked.json")
    code, out, err, _ = run(["omega", "--curriculum", cur, "--tasks", REF, "--json"], capsys)
    assert code == 0 and orjson.loads(out)["tasks"][0]["omega"] > 0
    assert f"{leak} (a link to nothing ({tmp_path / 'moved' / 'leaked.json'}))" in err and err.count("\n") == 1, err


def test_many_bad_entries_are_one_line_with_the_count_and_the_first_names(tmp_path, capsys):
    cur = _curriculum(tmp_path)
    for k in range(7):
        os.mkfifo(cur / "http" / f"p{k}.json")
    code, _, err, _ = run(["curate", cur, "--no-cache"], capsys)
    lines = err.strip().splitlines()
    assert code == 0 and len(lines) == 1
    assert "skipped 7 entries" in lines[0] and "p0.json" in lines[0] and "p2.json" in lines[0]
    assert "p3.json" not in lines[0] and "and 4 more" in lines[0]


def test_a_clean_folder_says_nothing(tmp_path, capsys):
    cur = _curriculum(tmp_path)
    (cur / "http" / "README.md").write_text("not a program: other names are not entries of the folder")
    code, _, err, _ = run(["curate", cur, "--no-cache"], capsys)
    assert code == 0 and err == ""
