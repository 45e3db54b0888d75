"""``gindex-studio --version`` says which exact search is in use (issue 14, item 17)."""
import os
import subprocess
import sys
from pathlib import Path

from gindex_studio.core.native import EXTENSION as _native

ROOT = Path(__file__).resolve().parents[2]
BLOCK = """
import importlib.abc, sys
class NoCompiler(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "gindex_studio.core.native._mcsplit":
            raise ImportError("simulated: built without a C compiler")
sys.meta_path.insert(0, NoCompiler())
from gindex_studio.cli import main
sys.exit(main(["--version"]))
"""


def version(env_extra=None, code=None):
    env = {k: v for k, v in os.environ.items() if k != "GINDEX_PURE_PYTHON"} | (env_extra or {})
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "gindex_studio.cli", "--version"]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gindex-studio ")
    return lines[0]


def test_version_names_the_search_in_use():
    line = version()
    if _native is not None:
        assert line.endswith(f"search: C extension ({os.path.basename(_native.__file__)})")
    else:
        assert "search: pure Python, about 60× slower (the C extension is not built" in line


def test_version_says_when_the_pure_python_search_is_forced():
    line = version({"GINDEX_PURE_PYTHON": "1"})
    assert "search: pure Python" in line and "C extension" in line


def test_version_says_why_without_the_extension():
    line = version(code=BLOCK)
    assert line.endswith("search: pure Python, about 60× slower (the C extension is not built: "
                         "simulated: built without a C compiler)")
