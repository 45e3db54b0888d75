"""``flatland dataset -o DIR`` writes its folder whole (issue 26, item 7): stale files of an
interrupted run are never mixed with new ones."""
import json
import os
from pathlib import Path

import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.core.flows import files

SMALL = ["--seed", "3", "--per-domain", "2", "--per-test-domain", "1"]


def _programs(folder: Path) -> int:
    return sum(1 for _ in (folder / "train").rglob("*.fbp"))


def test_a_folder_with_stale_programs_is_refused_and_left_as_it_was(tmp_path, capsys):
    ds = tmp_path / "ds"
    stale = ds / "train" / "circles" / "old-999.fbp"  # what an interrupted bigger run left
    stale.parent.mkdir(parents=True)
    stale.write_text("junk")
    assert main(["flatland", "dataset", "-o", str(ds), *SMALL]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(ds) in err and "--force" in err
    assert [p for p in ds.rglob("*") if p.is_file()] == [stale]
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]  # no temporary folder left


def test_force_replaces_the_folder_whole_and_omega_reads_what_was_printed(tmp_path, capsys):
    ds = tmp_path / "ds"
    stale = ds / "train" / "circles" / "old-999.fbp"
    stale.parent.mkdir(parents=True)
    stale.write_text("junk")
    assert main(["flatland", "dataset", "-o", str(ds), *SMALL, "--force"]) == 0
    assert "curriculum 20 programs" in capsys.readouterr().out
    assert not stale.exists() and _programs(ds) == 20
    assert main(["omega", "--profile", "flatland", "--curriculum", str(ds / "train"), "--tasks",
                 str(ds / "test" / "easy"), "--json", "--workers", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["programs"] == 20
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]


def test_an_empty_folder_is_filled(tmp_path, capsys):
    (tmp_path / "ds").mkdir()
    assert main(["flatland", "dataset", "-o", str(tmp_path / "ds"), *SMALL]) == 0
    assert _programs(tmp_path / "ds") == 20


def test_an_interrupted_write_leaves_the_old_folder_and_no_half_one(tmp_path):
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "keep.txt").write_text("old")

    def fill(tmp):
        (tmp / "new.txt").write_text("new")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        files.write_folder(dest, fill, replace=True)
    assert [p.name for p in tmp_path.iterdir()] == ["out"] and [p.name for p in dest.iterdir()] == ["keep.txt"]


def test_a_temporary_folder_of_a_killed_run_is_removed_by_the_next(tmp_path):
    left = tmp_path / ".out.999999999.abcd.tmp"  # no such process
    (left / "train").mkdir(parents=True)
    files.write_folder(tmp_path / "out", lambda tmp: (tmp / "a").write_text("a"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"] and (tmp_path / "out" / "a").read_text() == "a"
