"""The frozen app's entry point (packaging/app_main.py) and the process pool it needs: workers
spawned, not forked, when the program chose spawn (as frozen apps on macOS and Windows must, and
as packaging/check-app.sh makes the Linux bundle do with GINDEX_START_METHOD=spawn)."""
from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gindex_studio.core.benchmark.curriculum import Curriculum, omega_many
from gindex_studio.core.scoring.divergence import prepare
from gindex_studio.core.flows.flow import read_flow_file
from gindex_studio.paths import DEMO_DIR

pytestmark = pytest.mark.packaging

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = DEMO_DIR / "programs"


def _omegas(results):
    return [{d: n.omega for d, n in r.items()} for r in results]


def test_the_pool_spawns_its_workers_when_the_program_chose_spawn(monkeypatch):
    files = sorted(PROGRAMS.glob("*/*.json"))
    curriculum = Curriculum.from_flows([read_flow_file(f) for f in files[:24]], [f.parent.name for f in files[:24]])
    tasks = [prepare(read_flow_file(f)) for f in files[40:43]]
    contexts = []
    real = multiprocessing.get_context
    monkeypatch.setattr(multiprocessing, "get_context", lambda m=None: contexts.append(m) or real(m))
    monkeypatch.setattr(multiprocessing, "get_start_method", lambda allow_none=False: "spawn")
    spawned = omega_many(tasks, curriculum, workers=2)
    assert contexts == ["spawn"]
    assert _omegas(spawned) == _omegas(omega_many(tasks, curriculum, workers=1))


def test_the_entry_point_runs_the_cli_with_spawned_workers(tmp_path):
    """Spawned workers re-run the entry script as ``__mp_main__``: it must not start a second CLI."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}, "PYTHONPATH": str(REPO)}
    args = ["omega", "--curriculum", str(PROGRAMS), "--tasks", str(PROGRAMS / "telegram-2-reply"), "--json"]
    runs = {}
    for method, workers in (("spawn", "2"), ("", "1")):
        p = subprocess.run([sys.executable, REPO / "packaging" / "app_main.py", *args, "--workers", workers],
                           env={**env, "GINDEX_START_METHOD": method}, cwd=tmp_path, capture_output=True, text=True,
                           timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        runs[method] = json.loads(p.stdout)["tasks"]
    assert runs["spawn"] == runs[""] and len(runs[""]) == 4
