"""Helpers of the command-line tests: run ``python -m gindex_studio.cli`` as a user would."""
from __future__ import annotations

import json
import subprocess
import sys

from pathlib import Path

import gindex_studio
from gindex_studio.paths import DEMO_DIR

PROGRAMS = DEMO_DIR / "programs"
#: The tree under test: on the subprocess's path whatever its working folder (else an installed
#: copy could answer from another checkout).
TREE = str(Path(gindex_studio.__file__).resolve().parents[1])


def run(*args, cwd=None, env=None):
    env = env if env is not None else {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "PYTHONPATH": TREE}
    p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", *map(str, args)], capture_output=True, text=True,
                       cwd=cwd, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


def write(tmp_path, name, value):
    p = tmp_path / name
    p.write_text(value if isinstance(value, str) else json.dumps(value))
    return p


REF = [{"id": "i", "type": "inject", "topic": "t", "wires": [["d"]]}, {"id": "d", "type": "debug", "wires": []}]
