"""The leak flag: a task whose reference lies within Ω ≤ LEAK_THRESHOLD (1/20) of a curriculum
program, decided exactly from the Ω search's own nearest program, reported per task by the core,
``gindex --json`` and the human output.

Hand-computed cases (paper profile, Ω = 1 − S²/(|V'|·|V''|)): the curriculum program P has 19
inject nodes with distinct topics (w = 1 only between equal topics) and one debug node, no wires.
- copy: P with other ids → S = 20, Ω = 0;
- boundary: P's 19 inject nodes → S = 19, Ω = 1 − 361/(19·20) = 1/20 exactly, a leak (≤);
- far: 10 of P's injects and 9 other topics → S = 10, Ω = 1 − 100/380 = 14/19.
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from gindex_studio.core.benchmark.curriculum import LEAK_THRESHOLD, Nearest, leak_of
from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.paths import DEMO_DIR

ROOT = Path(__file__).resolve().parents[3]


def injects(prefix: str, topics) -> list[dict]:
    return [{"id": f"{prefix}{k}", "type": "inject", "topic": t, "x": 10, "y": 10 * k, "wires": [[]]}
            for k, t in enumerate(topics)]


def write(path: Path, value) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return str(path)


@pytest.fixture
def hand(tmp_path):
    topics = [f"t{k}" for k in range(19)]
    program = injects("p", topics) + [{"id": "pd", "type": "debug", "x": 0, "y": 0, "wires": []}]
    write(tmp_path / "cur" / "a" / "p.json", program)
    write(tmp_path / "cur" / "b" / "q.json", [{"id": "h", "type": "http in", "url": "/x", "wires": [[]]}])
    refs = {
        "copy": injects("c", topics) + [{"id": "cd", "type": "debug", "x": 5, "y": 5, "wires": []}],
        "boundary": injects("b", topics),
        "far": injects("f", topics[:10] + [f"other{k}" for k in range(9)]),
    }
    tasks = [{"id": k, "domain": "a", "reference": {"json": v}, "generated": {"json": v}} for k, v in refs.items()]
    return load_experiment(write(tmp_path / "exp.json", {
        "format": "gindex-studio.experiment/1", "name": "leaks", "system": "hand", "compute": {"total": 16},
        "curriculum": [{"domain": "a", "programs": ["cur/a"], "samples": 4},
                       {"domain": "b", "programs": ["cur/b"], "samples": 4}],
        "tasks": tasks}))


def test_hand_computed_leaks(hand):
    res = compute_gindex(hand, workers=1)
    by = {t.id: t for t in res.tasks}
    assert by["copy"].omega == 0 and by["copy"].leak is True
    assert by["boundary"].omega == float(Fraction(1, 20)) and by["boundary"].leak is True
    assert by["far"].omega == float(Fraction(14, 19)) and by["far"].leak is False
    assert all(t.nearest == "cur/a/p.json" for t in res.tasks)
    assert [t.id for t in res.leaks] == ["copy", "boundary"]
    assert res.leak_threshold == LEAK_THRESHOLD == Fraction(1, 20)
    # the threshold is an option, compared exactly: just below 1/20 the boundary case is no leak
    below = compute_gindex(hand, workers=1, leak_threshold=Fraction(1, 20) - Fraction(1, 10**12))
    assert [t.id for t in below.leaks] == ["copy"]


def test_leak_of_a_nearest_program_hand_values():
    exact = lambda v: Nearest(float(v), 3, True, value=v)  # noqa: E731
    assert leak_of(exact(Fraction(0))) is True
    assert leak_of(exact(Fraction(1, 20))) is True
    assert leak_of(exact(Fraction(1, 20) + Fraction(1, 10**15))) is False  # the floats are equal here
    assert float(Fraction(1, 20) + Fraction(1, 10**15)) == float(Fraction(1, 20)) + 1e-15
    assert leak_of(Nearest(1.0, None)) is False  # no curriculum program
    # a deadline cut the search: Ω ∈ [omega_lower, omega]
    assert leak_of(Nearest(0.04, 1, False, omega_lower=0.01)) is True  # the bound itself is a leak
    assert leak_of(Nearest(0.06, 1, False, omega_lower=0.04)) is None  # either side of 1/20
    assert leak_of(Nearest(0.06, 1, False, omega_lower=0.055)) is False


def test_the_demo_leaks():
    res = compute_gindex(load_experiment(DEMO_DIR / "experiment.json"), workers=1)
    flagged = {t.id: (t.nearest, t.omega) for t in res.leaks}
    assert set(flagged) == {"youtube-resume-4", "gmail-send-4", "google-search-4", "youtube-play-4"}
    assert flagged["youtube-resume-4"] == ("programs/youtube-resume/youtube-resume-1.json", 0.0)
    assert all(omega <= 0.05 for _n, omega in flagged.values())
    assert all(t.omega > 0.05 for t in res.tasks if not t.leak)


def run_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gindex_studio.cli", "gindex", *args], cwd=ROOT,
                          capture_output=True, text=True, check=True)


def test_gindex_json_and_text_report_leaks(hand, tmp_path):
    out = json.loads(run_cli(str(hand.path), "--workers", "1", "--json").stdout)
    assert out["leak_threshold"] == 0.05
    tasks = {t["id"]: t for t in out["tasks"]}
    assert {k: (t["leak"], t["nearest"], t["omega"]) for k, t in tasks.items()} == {
        "copy": (True, "cur/a/p.json", 0.0),
        "boundary": (True, "cur/a/p.json", 0.05),
        "far": (False, "cur/a/p.json", float(Fraction(14, 19))),
    }
    strict = json.loads(run_cli(str(hand.path), "--workers", "1", "--json", "--leak-threshold", "0").stdout)
    assert [t["id"] for t in strict["tasks"] if t["leak"]] == ["copy"]
    text = run_cli(str(hand.path), "--workers", "1").stdout
    assert "leaks (Ω ≤ 0.05 to a curriculum program): 2" in text
    assert "  copy: Ω = 0.000000 to cur/a/p.json" in text and "  boundary: Ω = 0.050000 to cur/a/p.json" in text
    bad = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "gindex", str(hand.path), "--leak-threshold", "2"],
                         cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "must lie in [0, 1]" in bad.stderr
