"""``gindex`` on an experiment holding what-if edits: the model's own outputs by default (and it
says edits are present), the edits with ``--use-edited``."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from gindex_studio.core.benchmark.experiment import load_experiment, save_experiment
from gindex_studio.paths import DEMO_DIR



def run(*args):
    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", *map(str, args)], capture_output=True, text=True,
                       timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


def test_gindex_reports_the_models_own_outputs_and_scores_edits_on_request(tmp_path):
    dst = tmp_path / "demo"
    for sub in ("programs", "generated"):
        shutil.copytree(Path(DEMO_DIR, sub), dst / sub)
    path = dst / "experiment.json"
    shutil.copy(Path(DEMO_DIR, "experiment.json"), path)
    code, out, err = run("gindex", path, "--json", "--workers", "1")
    assert code == 0, err
    own = json.loads(out)
    assert not any("what-if" in w for w in own["warnings"])
    exp = load_experiment(path)
    k = exp.task_index("telegram-2-reply-4")
    exp.tasks[k].edit(generated=exp.tasks[k].reference.copy())
    save_experiment(exp)
    code, out, err = run("gindex", path, "--json", "--workers", "1")
    assert code == 0, err
    data = json.loads(out)
    assert data["g_index"] == own["g_index"]
    assert any("1 tasks hold what-if edits (telegram-2-reply-4)" in w and "--use-edited" in w for w in data["warnings"])
    code, text, err = run("gindex", path, "--workers", "1", "--use-edited")
    assert code == 0, err
    assert "scored on the what-if edits of 1 tasks (telegram-2-reply-4)" in text
    code, out, err = run("gindex", path, "--json", "--workers", "1", "--use-edited")
    edited = json.loads(out)
    assert edited["g_index"] > own["g_index"]
    assert edited["tasks"][k]["delta"] == 0
