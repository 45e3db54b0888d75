"""Building an experiment from a curriculum folder, reference files and JSONL outputs."""
from __future__ import annotations

import json

import pytest

from gindex_studio.core.benchmark.experiment import FORMAT, FORMAT_V2, ExperimentError, load_experiment
from gindex_studio.core.benchmark.experiment_build import BuildSpec, build_experiment, read_outputs
from gindex_studio.core.benchmark.gindex import compute_gindex

from test_gindex import http_pair, inject_debug, write_json


def layout(tmp_path, lines):
    """cur/A (2 programs), cur/B (1), refs/t1.json (dataset, domain A), refs/C/t2.json (bare, domain from folder)."""
    write_json(tmp_path / "cur" / "A" / "a1.json", {"name": "A", "text": "a", "flow": inject_debug("a1")})
    write_json(tmp_path / "cur" / "A" / "a2.json", inject_debug("a2", topic="x"))
    write_json(tmp_path / "cur" / "B" / "b1.json", http_pair("b1"))
    (tmp_path / "cur" / "B" / "notes.txt").write_text("ignored")
    write_json(tmp_path / "refs" / "t1.json", {"name": "A", "text": "Inject t", "flow": inject_debug("r1")})
    write_json(tmp_path / "refs" / "C" / "t2.json", inject_debug("r2", topic="u"))
    out = tmp_path / "outputs.jsonl"
    out.write_text("\n".join(json.dumps(x) if not isinstance(x, str) else x for x in lines) + "\n")
    return out


def spec(tmp_path, outputs, **kw):
    return BuildSpec(tmp_path / "cur", [tmp_path / "refs"], outputs, 16.0, name="built", system="sys", **kw)


def test_build_with_attempts_is_format_2_and_scores(tmp_path):
    unwired = json.dumps(inject_debug("g", wired=False))
    out = layout(tmp_path, [
        {"task_id": "t1", "outputs": [unwired, json.dumps(inject_debug("g"))]},
        {"task_id": "t2", "output": "```json\n" + json.dumps(inject_debug("h", topic="u")) + "\n```"},
        "",
        {"task_id": "t1", "output": "no flow here"},
    ])
    exp = build_experiment(spec(tmp_path, out, samples={"B": 7}), tmp_path / "exp" / "built.json")
    raw = json.loads((tmp_path / "exp" / "built.json").read_text())
    assert raw["format"] == FORMAT_V2
    assert raw["curriculum"] == [{"domain": "A", "programs": ["../cur/A"], "samples": 2},
                                 {"domain": "B", "programs": ["../cur/B"], "samples": 7}]
    assert [(t["id"], t["domain"], t["reference"]) for t in raw["tasks"]] == [  # sorted by path
        ("t2", "C", "../refs/C/t2.json"), ("t1", "A", "../refs/t1.json")]
    assert raw["tasks"][1]["generated"] == [{"text": unwired}, {"text": json.dumps(inject_debug("g"))},
                                            {"text": "no flow here"}]
    assert [len(t.attempts) for t in exp.tasks] == [1, 3]
    res = compute_gindex(load_experiment(tmp_path / "exp" / "built.json"), workers=1)
    assert res.task("t1").attempt_deltas == [0.75, 0.0, 1.0]
    assert res.task("t2").delta == 0.0


def test_one_output_per_task_is_format_1_and_default_samples(tmp_path):
    out = layout(tmp_path, [{"task_id": "t1", "output": "x"}, {"task_id": "t2", "output": "y"}])
    build_experiment(spec(tmp_path, out, default_samples=50), tmp_path / "e.json")
    raw = json.loads((tmp_path / "e.json").read_text())
    assert raw["format"] == FORMAT and [c["samples"] for c in raw["curriculum"]] == [50, 50]
    assert raw["compute"] == {"total": 16.0}


@pytest.mark.parametrize("lines, message", [
    ([{"task_id": "t1", "output": "x"}], r"outputs.jsonl: no output for task 't2'"),
    ([{"task_id": "t1", "output": "x"}, {"task_id": "t2", "output": "y"}, {"task_id": "t9", "output": "z"}],
     r"outputs for tasks with no reference file: 't9'"),
    (["{not json"], r"outputs.jsonl:1: not a JSON object"),
    ([{"task_id": "t1"}], r'outputs.jsonl:1: give either "output" \(one string\) or "outputs"'),
    ([{"task_id": "t1", "outputs": []}], r'outputs.jsonl:1: "output" must be a string and "outputs" a non-empty list'),
    ([{"output": "x"}], r'outputs.jsonl:1: needs "task_id"'),
    ([""], r"outputs.jsonl: no outputs"),
])
def test_bad_outputs_name_the_line(tmp_path, lines, message):
    out = layout(tmp_path, lines)
    with pytest.raises(ExperimentError, match=message):
        build_experiment(spec(tmp_path, out), tmp_path / "e.json")
    assert not (tmp_path / "e.json").exists()  # nothing written


def test_bad_folders_and_samples(tmp_path):
    out = layout(tmp_path, [{"task_id": "t1", "output": "x"}, {"task_id": "t2", "output": "y"}])
    with pytest.raises(ExperimentError, match=r"--samples Z=…: no domain 'Z'"):
        build_experiment(spec(tmp_path, out, samples={"Z": 3}), tmp_path / "e.json")
    bad = BuildSpec(tmp_path / "nowhere", [tmp_path / "refs"], out, 16.0)
    with pytest.raises(ExperimentError, match="no such curriculum folder"):
        build_experiment(bad, tmp_path / "e.json")
    bad = BuildSpec(tmp_path / "cur", [tmp_path / "refs"], out, 0.5)
    with pytest.raises(ExperimentError, match=r"compute.total|priors \+ E"):
        build_experiment(bad, tmp_path / "e.json")


def test_read_outputs_collects_attempts_in_order(tmp_path):
    p = tmp_path / "o.jsonl"
    p.write_text('{"task_id": "a", "output": "1"}\n{"task_id": "b", "outputs": ["2", "3"]}\n{"task_id": "a", "outputs": ["4"]}\n')
    assert read_outputs(p) == {"a": ["1", "4"], "b": ["2", "3"]}
