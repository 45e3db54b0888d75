"""Experiment format 2: several attempts per task, θ = mean over attempts; version 1 still read."""
from __future__ import annotations

import json
import math

import pytest

from gindex_studio.core.benchmark.experiment import (
    FORMAT,
    FORMAT_V2,
    ExperimentError,
    load_experiment,
    save_experiment,
)
from gindex_studio.core.benchmark.gindex import compute_gindex, recompute_task, skill_levels

from test_gindex import RHO, inject_debug, tiny_experiment, write_json


def v2_experiment(tmp_path, attempts_t1=None):
    """The tiny experiment of test_gindex with t1 holding three attempts:
    the unwired pair (Δ = 0.75, spec §3), the reference itself (Δ = 0) and prose (Δ = 1)."""
    if attempts_t1 is None:
        attempts_t1 = [
            {"json": inject_debug("g1", wired=False)},
            {"json": inject_debug("g1b")},
            {"text": "I cannot write this flow."},
        ]
    path = tiny_experiment(tmp_path)
    value = json.loads(path.read_text())
    value["format"] = FORMAT_V2
    value["tasks"][0]["generated"] = attempts_t1
    return write_json(path, value)


def test_v2_reads_attempts_and_theta_is_the_mean(tmp_path):
    exp = load_experiment(v2_experiment(tmp_path))
    t1 = exp.tasks[0]
    assert len(t1.attempts) == 3 and t1.listed
    assert t1.attempts[2].syntax is not None
    res = compute_gindex(exp, workers=1)
    r1 = res.tasks[0]
    assert r1.attempt_deltas == [0.75, 0.0, 1.0]
    assert r1.attempt_perfect == [False, True, False]
    assert r1.delta == pytest.approx(1.75 / 3)
    assert r1.theta == pytest.approx(1 - 1.75 / 3)
    # TC with θ = 1 - 1.75/3: terms of test_gindex's hand computation (Ω(t1, A) = 0, Ω(t1, B) = 1)
    w_a, w_b = 1 / (1 + 3), 1 / (1 + math.log2(3))
    expected = math.sqrt(math.exp(12 * r1.theta) * (w_a * 1 / (RHO + 4) + w_b * math.exp(10) / (RHO + 4)))
    assert r1.tc == pytest.approx(expected)
    # a single-attempt task keeps its one Δ
    assert res.tasks[1].attempt_deltas == [0.0] and res.tasks[1].theta == 1.0
    # skill level: a task is solved exactly when θ = 1 (every attempt perfect)
    assert skill_levels(res) == {"A": 0.0, "C": 1.0}


def test_v1_files_still_read_and_write_as_v1(tmp_path):
    path = tiny_experiment(tmp_path)
    exp = load_experiment(path)
    assert [len(t.attempts) for t in exp.tasks] == [1, 1]
    assert not exp.tasks[0].listed
    res = compute_gindex(exp, workers=1)
    assert res.tasks[0].attempt_deltas == [0.75] and res.tasks[0].theta == 0.25
    out = save_experiment(exp, tmp_path / "copy.json")
    assert json.loads(out.read_text())["format"] == FORMAT


def test_v1_with_a_list_is_refused_with_the_field(tmp_path):
    path = v2_experiment(tmp_path)
    value = json.loads(path.read_text())
    value["format"] = FORMAT
    write_json(path, value)
    with pytest.raises(ExperimentError, match=r"tasks\[0\]\.generated: a list of attempts needs \"format\": "
                                              r"'gindex-studio.experiment/2'"):
        load_experiment(path)


def test_v2_bad_attempts_say_which(tmp_path):
    with pytest.raises(ExperimentError, match=r"tasks\[0\]\.generated: must list at least one attempt"):
        load_experiment(v2_experiment(tmp_path, []))
    with pytest.raises(ExperimentError, match=r"tasks\[0\]\.generated\[1\]\.file: no such file 'none.txt'"):
        load_experiment(v2_experiment(tmp_path, [{"text": "x"}, {"file": "none.txt"}]))
    with pytest.raises(ExperimentError, match=r"unknown format 'gindex-studio.experiment/3'"):
        load_experiment(tiny_experiment(tmp_path, format="gindex-studio.experiment/3"))


def test_v2_save_round_trip_moves_file_paths(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.txt").write_text(json.dumps(inject_debug("f1")))
    exp = load_experiment(v2_experiment(tmp_path, [{"file": "out/a.txt"}, "out/a.txt", {"text": "nope"}]))
    sub = tmp_path / "sub"
    sub.mkdir()
    saved = save_experiment(exp, sub / "moved.json")
    raw = json.loads(saved.read_text())
    assert raw["format"] == FORMAT_V2
    assert raw["tasks"][0]["generated"] == [{"file": "../out/a.txt"}, "../out/a.txt", {"text": "nope"}]
    assert raw["tasks"][1]["generated"] == {"text": exp.tasks[1].generated_text}
    again = load_experiment(saved)
    assert [a.source.kind for a in again.tasks[0].attempts] == ["file", "file", "text"]
    r1, r2 = compute_gindex(exp, workers=1), compute_gindex(again, workers=1)
    assert r1.g_index == r2.g_index


def test_recompute_after_editing_the_first_attempt_keeps_the_others(tmp_path):
    exp = load_experiment(v2_experiment(tmp_path))
    res = compute_gindex(exp, workers=1)
    exp.tasks[0].set_generated_flow(exp.tasks[0].reference.copy())  # attempt 1 now perfect
    new = recompute_task(res, exp, 0)
    assert new.tasks[0].attempt_deltas == [0.0, 0.0, 1.0]
    assert new.tasks[0].theta == pytest.approx(2 / 3)
    assert new.g_index == pytest.approx(compute_gindex(exp, workers=1).g_index)
    assert res.tasks[0].attempt_deltas == [0.75, 0.0, 1.0]  # the old result is untouched


def test_to_dict_lists_attempts_without_reports(tmp_path):
    res = compute_gindex(load_experiment(v2_experiment(tmp_path)), workers=1)
    d = res.to_dict()
    assert d["tasks"][0]["attempt_deltas"] == [0.75, 0.0, 1.0]
    assert "attempt_reports" not in d["tasks"][0] and "score" not in d["tasks"][0]
    assert json.dumps(d)
