"""Every example in a docstring of the Qt-free package runs, as a reader would paste it: the core,
the CLI's helpers and the public API (the UI's examples, if any, need Qt and are not collected)."""
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import gindex_studio

PACKAGE = Path(gindex_studio.__file__).resolve().parent
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules_with_examples() -> list[str]:
    """Every module of gindex_studio outside ui/ whose source holds a ``>>>`` line."""
    names = []
    for info in pkgutil.walk_packages([str(PACKAGE)], "gindex_studio."):
        if info.name.startswith("gindex_studio.ui"):
            continue
        rel = Path(*info.name.split(".")[1:])
        path = PACKAGE / rel / "__init__.py" if info.ispkg else PACKAGE / rel.with_suffix(".py")
        if path.is_file() and ">>> " in path.read_text(encoding="utf-8"):
            names.append(info.name)
    return ["gindex_studio", *names]


MODULES = _modules_with_examples()


def test_the_core_modules_with_examples_are_all_found():
    # the sweep below is only as good as this list: the modules known to carry examples are in it
    for name in ("gindex_studio.api", "gindex_studio.core.scoring.similarity", "gindex_studio.core.editing.layout",
                 "gindex_studio.core.flatland.weights", "gindex_studio.core.benchmark.validate"):
        assert name in MODULES
    assert len(MODULES) >= 10


@pytest.mark.parametrize("name", MODULES)
@pytest.mark.slow
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.attempted > 0, f"{name} has '>>>' in its source but doctest found no example"
    assert result.failed == 0


def test_the_python_api_guide_runs():
    guide = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"
    result = doctest.testfile(str(guide), module_relative=False, optionflags=FLAGS)
    assert result.attempted >= 20
    assert result.failed == 0
