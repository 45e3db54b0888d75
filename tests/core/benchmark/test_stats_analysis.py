"""core.analysis: the numbers of the Analysis window against the core's own functions and hand values."""
from __future__ import annotations

import json

import numpy as np
import pytest

from gindex_studio.core.benchmark import stats
from gindex_studio.core.benchmark.analysis import (
    System,
    TaskArrays,
    analyse,
    compare,
    delta_explanation,
    program_size,
    responsiveness,
    size_bins,
    table_marks,
    task_arrays,
)
from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.benchmark.gindex import (
    compute_gindex,
    gindex_vs_compute,
    gindex_vs_samples,
    gindex_vs_theta,
)
from gindex_studio.core.benchmark.study import load_study, open_inputs, save_study
from gindex_studio.paths import DEMO_DIR

from test_experiment_v2 import v2_experiment

STUDY = DEMO_DIR / "study" / "study.json"


@pytest.fixture(scope="module")
def demo_systems():
    _name, pairs = open_inputs([STUDY])
    return [System(label, exp, compute_gindex(exp, workers=1)) for label, exp in pairs]


def test_demo_study_has_three_systems_with_attempts(demo_systems):
    assert [s.label for s in demo_systems] == ["gpt2-small", "gpt2-medium", "gpt2-large"]
    for s in demo_systems:
        assert len(s.result.tasks) == 22
        assert all(len(t.attempt_deltas) == 4 for t in s.result.tasks)
    ids = [t.id for t in demo_systems[0].result.tasks]
    assert all([t.id for t in s.result.tasks] == ids for s in demo_systems)


def test_task_arrays_equal_the_result(tmp_path):
    exp = load_experiment(v2_experiment(tmp_path))
    res = compute_gindex(exp, workers=1)
    a = task_arrays(System("x", exp, res))
    assert a.ids == ["t1", "t2"]
    assert a.theta.tolist() == [t.theta for t in res.tasks]
    assert a.tc.tolist() == [t.tc for t in res.tasks]
    assert a.share.sum() == pytest.approx(1.0)
    assert a.attempts.tolist() == [3, 1] and a.perfect.tolist() == [1, 1]
    assert a.theta_min.tolist() == [0.0, 1.0] and a.theta_max.tolist() == [1.0, 1.0]
    assert a.theta_sd[0] == pytest.approx(np.std([0.25, 1.0, 0.0]))
    assert a.size[0] == program_size(exp.tasks[0].reference) == len(exp.tasks[0].reference.dumps(indent=False))
    assert a.solved.tolist() == [False, True]


def test_summary_equals_core_numbers(demo_systems):
    an = analyse(demo_systems, k=2, resamples=500)
    for s, row, a in zip(demo_systems, an.summary, an.arrays):
        assert row.g_index.value == s.result.g_index
        assert row.theta.value == pytest.approx(s.result.theta_mean)
        assert row.skill.value == pytest.approx(np.mean([t.delta == 0 and t.exact for t in s.result.tasks]))
        expected_pk = np.mean([stats.pass_at_k(len(t.attempt_deltas), sum(t.attempt_perfect), 2) for t in s.result.tasks])
        assert row.pass_k.value == pytest.approx(expected_pk)
        assert row.samples == sum(c.samples for c in s.experiment.curriculum)
        assert row.compute == s.experiment.compute.value
        assert row.mean_omega == pytest.approx(np.mean([t.omega for t in s.result.tasks]))
        assert row.g_index.low < row.g_index.value < row.g_index.high
    assert len(an.pairs) == 3
    json.dumps(an.to_dict())  # JSON-ready


def test_pass_at_k_needs_enough_attempts(demo_systems):
    an = analyse(demo_systems[:1], k=5, resamples=200)
    assert an.summary[0].pass_k is None
    assert "pass@5 needs 5 attempts" in an.notes[0]


def test_identical_systems_compare_as_equal(demo_systems):
    s = demo_systems[0]
    a, b = task_arrays(s), task_arrays(System("copy", s.experiment, s.result))
    p = compare(a, b)
    assert p.g_diff.value == 0 and p.g_diff.contains(0) and p.theta_diff.contains(0)
    assert p.g_test.p == 1.0 and p.theta_sign.p == 1.0 and p.mcnemar.p == 1.0
    assert "have the same g-index" in p.g_sentence


def test_compare_matches_tasks_by_id(demo_systems):
    a = task_arrays(demo_systems[0])
    b = task_arrays(demo_systems[2])
    # b with its tasks reversed and the first dropped: matched by id, not by position
    keep = list(range(len(b.ids)))[::-1][:-1]
    b2 = TaskArrays(b.label, [b.ids[j] for j in keep], [b.domains[j] for j in keep],
                    *(getattr(b, f)[keep] for f in ("size", "theta", "omega", "tc", "share", "solved", "attempts",
                                                    "perfect", "theta_min", "theta_max", "theta_sd")))
    p = compare(a, b2)
    shared = [t for t in a.ids if t in set(b2.ids)]
    assert p.shared == shared and len(shared) == 21
    ja = [a.ids.index(t) for t in shared]
    jb = [b.ids.index(t) for t in shared]
    assert p.g_diff.value == pytest.approx(np.mean(a.tc[ja] - b.tc[jb]))
    assert p.theta_diff.value == pytest.approx(np.mean(a.theta[ja] - b.theta[jb]))
    assert p.mcnemar.stats["only_b"] == int(np.sum(~a.solved[ja] & b.solved[jb]))
    assert p.g_sentence.endswith("over 21 shared tasks")
    with pytest.raises(ValueError, match="share no task"):
        compare(a, TaskArrays("none", [], [], *([np.zeros(0)] * 11)))


def test_responsiveness_equals_the_what_if_series(demo_systems):
    res = demo_systems[1].result
    curves = responsiveness(res, splits=20, points=7)
    c = curves["samples"]
    assert c.y.tolist() == pytest.approx(gindex_vs_samples(res, c.x.tolist()).g_index, rel=1e-12)
    j = int(np.argmin(abs(c.x - c.current)))
    assert c.x[j] == c.current == sum(d.samples for d in res.domains if d.included)
    assert c.y[j] == pytest.approx(res.g_index, rel=1e-12)
    assert (c.low <= c.high).all() and c.splits == 20
    cc = curves["compute"]
    assert cc.y.tolist() == pytest.approx(gindex_vs_compute(res, cc.x.tolist()).g_index, rel=1e-12)
    k = int(np.argmin(abs(cc.x - cc.current)))
    assert cc.y[k] == pytest.approx(res.g_index, rel=1e-12)
    ct = curves["theta"]
    assert ct.y.tolist() == pytest.approx(gindex_vs_theta(res, ct.x.tolist()).g_index, rel=1e-12)


def test_size_bins_hand_values():
    def arrays(label, size, solved, n, c):
        z = np.zeros(len(size))
        return TaskArrays(label, [f"t{i}" for i in range(len(size))], ["d"] * len(size), np.array(size, float), z, z, z,
                          z, np.array(solved, bool), np.array(n), np.array(c), z, z, z)

    a = arrays("A", [10, 20, 30, 40], [1, 0, 1, 1], [2, 2, 2, 2], [2, 0, 1, 2])
    b = arrays("B", [10, 20, 30, 40], [0, 0, 0, 1], [2, 2, 2, 2], [0, 0, 1, 2])
    bins = size_bins([a, b], k=1, bins=2)
    assert bins.edges.tolist() == [10, 25, 40]
    assert bins.skill["A"].tolist() == [0.5, 1.0] and bins.skill["B"].tolist() == [0.0, 0.5]
    assert bins.pass_k["A"].tolist() == [0.5, 0.75]  # pass@1 = c/n: (1 + 0)/2, (0.5 + 1)/2
    assert bins.count["A"].tolist() == [2, 2]


def test_table_marks():
    class R:
        def __init__(self, g, s, c):
            self.g_index = self.theta = self.skill = stats.Estimate(g, g, g, 0.95, 1, 0, 1)
            self.samples, self.compute, self.mean_omega = s, c, 0.5

    marks = table_marks([R(1, 100, 10), R(3, 50, 20), R(2, 80, 5)])
    assert marks["g-index"] == (1, 0)
    assert marks["training samples"] == (1, 0)  # fewest samples is best
    assert marks["compute"] == (2, 1)


def test_delta_explanation_of_the_demo(demo_systems):
    exp = load_experiment(DEMO_DIR / "experiment.json")
    res = compute_gindex(exp, workers=1)
    j = exp.task_index("youtube-play-4")
    why = delta_explanation(res.tasks[j].score, exp.tasks[j].reference, exp.tasks[j].generated)
    assert why == ["2 missing node(s): function, maya-browser-find-tab", "1 extra node(s): maya-browser-find-tab",
                   "3 missing wire(s)", "2 extra wire(s)"]
    j = exp.task_index("youtube-pause-4")
    why = delta_explanation(res.tasks[j].score, exp.tasks[j].reference, exp.tasks[j].generated)
    assert why[0].startswith("syntax:") and "no nodes could be read from the output" in why


def test_study_files_round_trip_and_errors(tmp_path):
    study = load_study(STUDY)
    assert [e.written for e in study.entries] == ["gpt2-small.json", "gpt2-medium.json", "gpt2-large.json"]
    study.entries[0].label = "small"
    out = save_study(study, tmp_path / "s.json")
    again = load_study(out)
    assert again.entries[0].label == "small" and again.entries[0].path == study.entries[0].path.resolve()
    (tmp_path / "bad.json").write_text(json.dumps({"format": "gindex-studio.study/1", "experiments": ["none.json"]}))
    with pytest.raises(Exception, match=r"bad.json: experiments\[0\]: no such experiment file 'none.json'"):
        load_study(tmp_path / "bad.json")
    (tmp_path / "bad2.json").write_text(json.dumps({"format": "gindex-studio.study/1", "experiment": []}))
    with pytest.raises(Exception, match=r"experiment: unknown field \(did you mean 'experiments'\?\)"):
        load_study(tmp_path / "bad2.json")
    name, pairs = open_inputs([out, DEMO_DIR / "experiment.json"])
    assert [label for label, _ in pairs] == ["small", "gpt2-medium", "gpt2-large", "demo-gpt2-medium"]


def test_score_systems_stops_when_cancelled():
    """The Analysis window passes its cancel through (closing it stops the scoring)."""
    from gindex_studio.core.benchmark.analysis import score_systems
    from gindex_studio.core.benchmark.curriculum import Cancelled
    from gindex_studio.core.scoring.matching import CancelToken

    _name, pairs = open_inputs([DEMO_DIR / "study" / "study.json"])
    token = CancelToken()
    token.set()
    with pytest.raises(Cancelled):
        score_systems(pairs, workers=1, cancel=token)
    assert [s.label for s in score_systems(pairs[:1], workers=1, cancel=CancelToken())] == [pairs[0][0]]
