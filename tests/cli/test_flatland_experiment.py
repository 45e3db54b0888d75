"""A Flatland experiment (``"profile": "flatland"``): loading, and ``gindex`` / ``gindex --profile
flatland`` on it, from ``cli.main`` and in a subprocess; Δ and Ω checked against the core."""
import json
import subprocess
import sys

import pytest

from gindex_studio.cli import main
from gindex_studio.core.benchmark.experiment import ExperimentError, load_experiment
from gindex_studio.core.flatland.dataset import generate, write_dataset
from gindex_studio.core.flatland.files import read_generated_text
from gindex_studio.core.flatland.resolve import LIBRARY_DIR, load_file
from gindex_studio.core.flatland.score import delta


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """Curriculum: 3 programs in each of the 10 domains; tasks: the easy test set, each answered
    by another program's text (one broken, one inline flat JSON, one a .lisp file)."""
    root = tmp_path_factory.mktemp("flatexp")
    tasks = generate(seed=5, per_domain=3, per_test_domain=1)
    write_dataset(tasks, root)
    train = sorted({t.domain for t in tasks if t.split == "train"})
    easy = [t for t in tasks if t.split == "easy"]
    lisp = root / "answer.lisp"
    lisp.write_text((root / "train" / "lines-2" / "lines-2-001.lisp").read_text())
    generated = [
        {"text": (root / "train" / "circles-1" / "circles-1-001.fbp").read_text()},
        {"text": "p(start) -> m(move 10 0)\nm -> t(trun 90)\nm -> p(end)\n{} -> p()\n"},  # broken line 2
        {"json": json.loads((root / "train" / "lines-1" / "lines-1-002.json").read_text())},
        {"file": "answer.lisp"},
        {"text": "```\n" + easy[4].text + "```\n"},
    ]
    exp = {
        "format": "gindex-studio.experiment/1", "name": "flatland toy", "system": "sys", "profile": "flatland",
        "priors": 0.0001, "compute": {"total": 1000},
        "curriculum": [{"domain": d, "programs": [f"train/{d}"], "samples": 3} for d in train],
        "tasks": [{"id": t.name, "domain": t.domain, "reference": f"test/easy/{t.domain}/{t.name}.fbp",
                   "generated": g} for t, g in zip(easy, generated)],
    }
    path = root / "experiment.json"
    path.write_text(json.dumps(exp))
    return path, root, easy, generated


def _generated_program(root, g):
    if "text" in g:
        return read_generated_text(g["text"]).program
    if "file" in g:
        return load_file(root / g["file"])
    from gindex_studio.core.flatland.program import program_from_json
    return program_from_json(g["json"])


def test_loads_as_flatland_programs(experiment):
    path, root, easy, generated = experiment
    exp = load_experiment(path)
    assert exp.profile == "flatland" and len(exp.curriculum) == 10 and len(exp.tasks) == 5
    assert all(len(c.programs) == 3 for c in exp.curriculum)  # one per name, not .fbp + .lisp + .json
    assert exp.tasks[1].syntax is not None and exp.tasks[1].syntax.line == 2
    assert {n.type for t in exp.tasks for n in t.reference.vertex_nodes()} <= {"info", "move", "turn", "loop"}


@pytest.mark.parametrize("extra", [[], ["--profile", "flatland"]])
def test_gindex_on_a_flatland_experiment(experiment, extra, capsys):
    path, root, easy, generated = experiment
    assert main(["gindex", str(path), "--json", "--workers", "1"] + extra) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["profile"] == "flatland" and len(r["tasks"]) == 5 and 0 < r["g_index"]
    curriculum = [load_file(p) for p in sorted((root / "train").rglob("*.fbp"))]
    for t, task, g in zip(r["tasks"], easy, generated):
        ref = load_file(root / "test" / "easy" / task.domain / f"{task.name}.fbp")
        assert t["delta"] == pytest.approx(delta(ref, _generated_program(root, g)), abs=1e-12)
        assert t["omega"] == pytest.approx(min(delta(ref, c) for c in curriculum), abs=1e-12)
        assert t["exact"] and t["omega_exact"]
    assert r["tasks"][4]["delta"] == 0  # the ideal program inside a code fence


def test_gindex_in_a_subprocess_and_a_broken_program(experiment, tmp_path):
    path, root, easy, generated = experiment
    p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "gindex", str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "flatland profile, exact" in p.stdout and easy[0].name in p.stdout
    bad = json.loads(path.read_text())
    (root / "train" / "lines-1" / "zz-bad.fbp").write_text("p(start) -> h(limbs 3)\nh -> p(end)\n{} -> p()\n")
    try:
        with pytest.raises(ExperimentError, match="limbs"):
            load_experiment(path)
        p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "gindex", str(path)], capture_output=True,
                           text=True)
        assert p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1 and "limbs" in p.stderr
    finally:
        (root / "train" / "lines-1" / "zz-bad.fbp").unlink()
    assert bad  # the file itself was not changed
