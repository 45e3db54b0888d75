"""What-if edits in experiment files: kept beside the model's recorded output (``tasks[j].edited``),
read and validated by the core, scored only through ``with_edits``."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gindex_studio.core.benchmark.experiment import (
    ExperimentError,
    edited_tasks,
    experiment_kind,
    load_experiment,
    save_experiment,
    with_edits,
)
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.paths import DEMO_DIR


@pytest.fixture
def demo_copy(tmp_path):
    dst = tmp_path / "demo"
    for sub in ("programs", "generated"):
        shutil.copytree(Path(DEMO_DIR, sub), dst / sub)
    shutil.copy(Path(DEMO_DIR, "experiment.json"), dst / "experiment.json")
    return dst / "experiment.json"


def test_an_edit_is_saved_beside_the_recorded_output_and_scored_only_with_edits(demo_copy):
    exp = load_experiment(demo_copy)
    own = compute_gindex(exp, workers=1).g_index
    k = exp.task_index("telegram-2-reply-4")
    recorded = json.loads(demo_copy.read_text())["tasks"][k]["generated"]
    exp.tasks[k].edit(generated=exp.tasks[k].reference.copy())  # the what-if: a perfect answer
    assert edited_tasks(exp) == [k]
    assert exp.tasks[k].generated is not exp.tasks[k].edited_generated  # the recorded one is untouched
    save_experiment(exp)
    entry = json.loads(demo_copy.read_text())["tasks"][k]
    assert entry["generated"] == recorded
    assert set(entry["edited"]) == {"generated", "note"}
    again = load_experiment(demo_copy)
    assert edited_tasks(again) == [k]
    assert compute_gindex(again, workers=1).g_index == pytest.approx(own, rel=1e-12)
    what_if = compute_gindex(with_edits(again), workers=1)
    assert what_if.tasks[k].delta == 0 and what_if.g_index > own
    assert edited_tasks(again) == [k] and again.tasks[k].generated_source.kind == "file"  # with_edits copies
    again.tasks[k].revert_edits()
    save_experiment(again)
    assert "edited" not in json.loads(demo_copy.read_text())["tasks"][k]


@pytest.mark.parametrize("edited, where", [
    ({}, "tasks[0].edited"),
    ({"generated": "out.json"}, "tasks[0].edited.generated"),
    ({"generated": {"json": 5}}, "tasks[0].edited.generated.json"),
    ({"generated": {"json": []}, "nte": "x"}, "tasks[0].edited"),
])
def test_a_bad_edited_entry_is_one_clear_error(demo_copy, edited, where):
    value = json.loads(demo_copy.read_text())
    value["tasks"][0]["edited"] = edited
    demo_copy.write_text(json.dumps(value))
    with pytest.raises(ExperimentError) as e:
        load_experiment(demo_copy)
    assert where in str(e.value) and "\n" not in str(e.value)


def test_experiment_kind_is_the_one_definition(tmp_path, demo_copy):
    comp = tmp_path / "comp.json"
    comp.write_text(json.dumps({"model": {}, "train_set": {"data": []}, "performance": {}}))
    flow = tmp_path / "flow.json"
    flow.write_text("[]")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert experiment_kind(demo_copy) == "experiment"
    assert experiment_kind(comp) == "companion"
    assert experiment_kind(flow) is None and experiment_kind(bad) is None
    assert experiment_kind(tmp_path / "missing.json") is None
