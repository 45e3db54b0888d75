"""Curation workspace, split saving and the `curate` command on the demo data (issue 9)."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import orjson
import pytest

from gindex_studio.cli import main
from gindex_studio.core.curation.report import analyse, engine_for
from gindex_studio.core.curation.workspace import CurationError, load_workspace, save_split
from gindex_studio.core.benchmark.experiment import Compute, load_experiment
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.paths import DEMO_DIR

EXPERIMENT = DEMO_DIR / "experiment.json"


@pytest.fixture(autouse=True)
def _private_data(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def label_index(ws, tail):
    return next(i for i, it in enumerate(ws.items) if it.label.endswith(tail))


def test_experiment_workspace_roles_and_domains():
    ws = load_workspace(EXPERIMENT)
    assert len(ws.indices("curriculum")) == 42 and len(ws.indices("test")) == 16
    i = label_index(ws, "youtube-resume-4.json")
    assert ws.items[i].role == "test" and ws.items[i].domain == "youtube-resume"


def test_folder_workspace_domains_from_subfolders():
    ws = load_workspace(DEMO_DIR / "programs")
    assert len(ws) == 64 and len(ws.domain_names()) == 16 and set(ws.indices("curriculum")) == set(range(64))


def test_bad_input_is_one_clear_error(tmp_path):
    with pytest.raises(CurationError, match="no such file or folder"):
        load_workspace(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CurationError, match="no .json program"):
        load_workspace(tmp_path / "empty")
    ws = load_workspace(EXPERIMENT)
    with pytest.raises(CurationError, match="unknown role"):
        ws.set_role(0, "train")


def test_moving_the_leaked_source_out_removes_the_leak_and_saved_split_scores_like_the_cli(tmp_path, capsys):
    ws = load_workspace(EXPERIMENT)
    eng = engine_for(ws)
    task = label_index(ws, "youtube-resume-4.json")
    rep = analyse(ws, eng)
    leak = next(x for x in rep.leaks if x.task == task)
    assert leak.delta == 0 and ws.items[leak.nearest].label.endswith("youtube-resume-1.json")
    ws.set_role(leak.nearest, "excluded")
    gmail4 = label_index(ws, "gmail-send-4.json")
    ws.set_role(gmail4, "curriculum")
    rep2 = analyse(ws, eng)
    assert all(x.task != task for x in rep2.leaks)
    assert rep2.omegas[task].delta > 0 and gmail4 not in rep2.omegas

    out = save_split(ws, tmp_path / "split" / "experiment.json")
    exp = load_experiment(out)
    cur_files = {p.path.name for c in exp.curriculum for p in c.programs}
    assert "youtube-resume-1.json" not in cur_files and "gmail-send-4.json" in cur_files
    assert {t.id for t in exp.tasks} == {Path(ws.items[i].label).stem for i in ws.indices("test")}
    # generated outputs kept (relative paths rebased to the new folder)
    orig = load_experiment(EXPERIMENT)
    assert exp.tasks[0].generated_text == orig.tasks[0].generated_text
    expected = compute_gindex(exp, workers=1).g_index
    assert main(["gindex", str(out), "--json", "--workers", "1"]) == 0
    assert orjson.loads(capsys.readouterr().out)["g_index"] == pytest.approx(expected, rel=1e-12)


def test_folder_split_needs_compute_and_new_tasks_have_empty_output(tmp_path):
    ws = load_workspace(DEMO_DIR / "programs")
    with pytest.raises(CurationError, match="compute"):
        save_split(ws, tmp_path / "e.json")
    for i, it in enumerate(ws.items):
        if it.label.endswith("-4.json"):
            ws.set_role(i, "test")
    out = save_split(ws, tmp_path / "e.json", Compute(total=74.75))
    exp = load_experiment(out)
    assert len(exp.tasks) == 16 and sum(len(c.programs) for c in exp.curriculum) == 48
    assert all(t.generated.nodes == [] for t in exp.tasks)


def test_curate_json_on_demo_finds_the_leak_and_gmail_send_duplicates(capsys):
    assert main(["curate", str(EXPERIMENT), "--json"]) == 0
    value = json.loads(capsys.readouterr().out)
    leak = next(x for x in value["leaks"] if x["task"].endswith("youtube-resume-4.json"))
    assert leak["delta"] == 0 and leak["nearest"].endswith("youtube-resume-1.json")
    gmail = next(g for g in value["duplicates"]["groups"] if any("gmail-send" in m for m in g["members"]))
    assert sorted(Path(m).name for m in gmail["members"]) == [f"gmail-send-{k}.json" for k in range(1, 5)]
    assert all(p["delta"] <= 0.05 for p in gmail["pairs"])
    cov = {c["domain"]: c for c in value["coverage"]}
    assert cov["template-form"]["curriculum"] == 0 and cov["template-form"]["tests"] == 1


def test_curate_thresholds_and_tasks(capsys):
    programs = DEMO_DIR / "programs"
    assert main(["curate", str(programs / "gmail-send"), "--tasks", str(programs / "youtube-resume"),
                 "--duplicates", "0", "--leaks", "1", "--json", "--no-cache"]) == 0
    value = json.loads(capsys.readouterr().out)
    # Δ ≤ 0: only the identical pair (the test program copied from the curriculum)
    assert [g["exact"] for g in value["duplicates"]["groups"]] == [["youtube-resume-1.json", "youtube-resume-4.json"]]
    assert {p["domain"] for p in value["programs"]} == {"gmail-send", "youtube-resume"}
    assert len(value["leaks"]) == 4  # every task is within Δ ≤ 1


def test_curate_bad_input_exits_1_with_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "curate", str(tmp_path / "missing")],
                       capture_output=True, text=True, cwd=Path(__file__).resolve().parents[3],
                       env={"XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "no such file or folder" in r.stderr
    r = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "curate", str(EXPERIMENT), "--leaks", "2"],
                       capture_output=True, text=True, cwd=Path(__file__).resolve().parents[3])
    assert r.returncode == 2 and "[0, 1]" in r.stderr
