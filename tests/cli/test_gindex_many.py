"""``gindex`` over several experiments in one call (issue 34, item 6): one table of systems sorted
by g-index, the same numbers as one call per experiment, the shared curriculum prepared and
searched once, the companion's dd once, and bad input among several as one line."""
from __future__ import annotations

import json
import os

import pytest

from cli_run import run  # tests/cli is on sys.path (rootdir-relative test modules)
from gindex_studio.paths import DEMO_DIR

STUDY = DEMO_DIR / "study"
EXPERIMENTS = [STUDY / f"gpt2-{size}.json" for size in ("small", "medium", "large")]


def single(*args) -> dict:
    code, out, err = run("gindex", *args, "--json", "--workers", "1")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_a_folder_gives_each_experiment_once_sorted_with_the_numbers_of_one_call_each():
    """The study folder holds study.json and the three experiments it names: each is scored once."""
    code, out, err = run("gindex", STUDY, "--json", "--workers", "1")
    assert code == 0, err
    rows = json.loads(out)
    assert sorted(r["file"] for r in rows) == sorted(str(p) for p in EXPERIMENTS)
    assert [r["g_index"] for r in rows] == sorted((r["g_index"] for r in rows), reverse=True)
    for r in rows:
        alone = single(r["file"])
        assert r["g_index"] == alone["g_index"] and r["theta_mean"] == alone["theta_mean"]
        assert [t["omega"] for t in r["tasks"]] == [t["omega"] for t in alone["tasks"]]
        assert r["samples"] == sum(d["samples"] for d in alone["domains"])
        assert r["compute"] == alone["domains"][0]["compute"]
    code, text, err = run("gindex", *EXPERIMENTS, "--workers", "1")
    assert code == 0, err
    lines = text.splitlines()
    assert lines[0] == "3 systems, sorted by g-index"
    header = lines[2].split()
    assert header[:3] == ["system", "experiment", "samples"] and "g-index" in header
    body = lines[4:7]
    assert [line.split()[0] for line in body] == [r["label"] for r in rows]
    for line, r in zip(body, rows):
        assert f"{r['g_index']:.6f}" in line and f"{r['theta_mean']:.6f}" in line and r["file"] in line


def test_a_shared_curriculum_is_prepared_and_searched_once(monkeypatch, capsys):
    from gindex_studio.cli.dispatch import main
    from gindex_studio.core.benchmark import gindex as gi

    built, searched = [], []
    from_flows, omega_many = gi.Curriculum.from_flows, gi.omega_many

    def counting_build(*a, **k):
        built.append(1)
        return from_flows(*a, **k)

    def counting_search(tasks, *a, **k):
        searched.append(len(tasks))
        return omega_many(tasks, *a, **k)

    monkeypatch.setattr(gi.Curriculum, "from_flows", counting_build)
    monkeypatch.setattr(gi, "omega_many", counting_search)
    assert main(["gindex", *map(str, EXPERIMENTS), "--json", "--workers", "1"]) == 0
    rows = json.loads(capsys.readouterr().out)
    tasks = len(rows[0]["tasks"])
    assert len(rows) == 3 and all(len(r["tasks"]) == tasks for r in rows)
    assert built == [1] and searched == [tasks]  # not once per experiment
    monkeypatch.setattr(gi.Curriculum, "from_flows", from_flows)
    monkeypatch.setattr(gi, "omega_many", omega_many)
    from gindex_studio.core.benchmark.experiment import load_experiment

    by_file = {r["file"]: r for r in rows}
    for p in EXPERIMENTS:  # each on its own, nothing shared: the same numbers to the last bit
        alone = gi.compute_gindex(load_experiment(p), workers=1)
        r = by_file[str(p)]
        assert r["g_index"] == alone.g_index
        assert [t["omega_per_domain"] for t in r["tasks"]] == [t.omega_per_domain for t in alone.tasks]


def test_one_experiment_keeps_its_own_output():
    code, text, err = run("gindex", EXPERIMENTS[0], "--workers", "1")
    assert code == 0, err
    assert text.startswith("g-index = ") and "systems, sorted by g-index" not in text


def test_a_bad_file_among_several_is_one_line_naming_it(tmp_path):
    (tmp_path / "broken.json").write_text('{"format": "gindex-studio.experiment/1", "tasks": [')
    code, out, err = run("gindex", *EXPERIMENTS[:2], tmp_path / "broken.json")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1 and "broken.json" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = run("gindex", empty)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "no experiment file" in err
    code, _out, err = run("gindex", *EXPERIMENTS[:2], "--probes")
    assert code == 2 and "one experiment" in err
    code, _out, err = run("gindex", STUDY, "--probes")
    assert code == 1 and "one experiment" in err and len(err.strip().splitlines()) == 1


def test_a_study_file_gives_the_table_of_its_experiments():
    code, out, err = run("gindex", STUDY / "study.json", "--json", "--workers", "1")
    assert code == 0, err
    assert sorted(r["label"] for r in json.loads(out)) == ["gpt2-large", "gpt2-medium", "gpt2-small"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_in_the_folder_is_skipped_with_a_warning_or_refused_with_strict(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    os.mkfifo(folder / "pipe.json")
    code, out, err = run("gindex", folder, EXPERIMENTS[0], "--json", "--workers", "1")
    assert code == 0, err
    assert len(json.loads(out)) == 1 and "pipe.json" in err and "skipped" in err
    code, _out, err = run("gindex", folder, EXPERIMENTS[0], "--strict")
    assert code == 1 and "pipe.json" in err and len(err.strip().splitlines()) == 1


# ----- the companion's experiment files (--domains) -------------------------------------------------


def _companion_folder(tmp_path):
    """Two small companion experiments on two domains: alpha = {inject→debug, http in→http
    response}, beta = {inject→debug}; the second has fewer samples and a worse divergence."""
    dom = tmp_path / "domains"
    inj = lambda p: [{"id": p + "i", "type": "inject", "topic": "t", "wires": [[p + "d"]]},  # noqa: E731
                     {"id": p + "d", "type": "debug", "wires": []}]
    programs = {"alpha/alpha-1.json": inj("a1"), "beta/beta-1.json": inj("b1"),
                "alpha/alpha-2.json": [{"id": "h", "type": "http in", "url": "/x", "wires": [["r"]]},
                                       {"id": "r", "type": "http response", "wires": []}]}
    for name, flow in programs.items():
        (dom / name).parent.mkdir(parents=True, exist_ok=True)
        (dom / name).write_text(json.dumps({"title": "t", "text": "x", "flow": flow, "name": name.split("/")[0]}))
    exps = tmp_path / "experiments"
    exps.mkdir()
    for name, samples, div in (("big", 4, 0.25), ("small", 2, 0.5)):
        (exps / f"{name}.json").write_text(json.dumps({
            "model": {"name": "GPT2", "train_params": {"model_name": f"gpt2-{name}"}},
            "train_set": {"data": [{"name": "alpha", "num_samples": samples}, {"name": "beta", "num_samples": samples}]},
            "test_set": {"data": [{"name": "alpha", "num_samples": 2}, {"name": "beta", "num_samples": 1}]},
            "train_cost": {"time": 100.0, "compute": 32},
            "performance": {"divergence": div, "domains": [
                {"name": "alpha", "num_samples": 2, "divergence": div, "perfects": 0.5},
                {"name": "beta", "num_samples": 1, "divergence": div, "perfects": 0.0}]},
        }))
    return exps, dom


def test_the_companions_folder_gives_its_table_with_dd_computed_once(tmp_path, monkeypatch, capsys):
    exps, dom = _companion_folder(tmp_path)
    code, out, err = run("gindex", exps, "--domains", dom, "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["label"] for r in rows] == ["big", "small"]  # sorted by g-index
    assert rows[0]["g_index"] > rows[1]["g_index"]
    for r in rows:
        alone = single(r["file"], "--domains", dom)
        assert r["g_index"] == alone["g_index"] and r["system"] == alone["system"]
        assert r["samples"] == sum(d["samples"] for d in alone["domains"]) and r["compute"] == 32
    code, text, err = run("gindex", exps, "--domains", dom)
    assert code == 0, err
    assert text.splitlines()[4].split()[:2] == ["big", str(exps / "big.json")]
    assert "leak ?" in text
    from gindex_studio.cli.dispatch import main
    from gindex_studio.core.benchmark import gindex as gi

    calls = []
    dd = gi.companion_dd_matrix
    monkeypatch.setattr(gi, "companion_dd_matrix", lambda *a, **k: calls.append(1) or dd(*a, **k))
    assert main(["gindex", str(exps), "--domains", str(dom), "--json"]) == 0
    assert [r["g_index"] for r in json.loads(capsys.readouterr().out)] == [r["g_index"] for r in rows]
    assert calls == [1]


@pytest.mark.slow
def test_report_takes_the_folder_too_each_experiment_once():
    """The study folder holds study.json and its three experiments: three systems, not six."""
    code, out, err = run("report", STUDY, "--json", "--resamples", "100", "--workers", "1")
    assert code == 0, err
    labels = sorted(s["label"] for s in json.loads(out)["systems"])
    assert labels == ["gpt2-large", "gpt2-medium", "gpt2-small"]
