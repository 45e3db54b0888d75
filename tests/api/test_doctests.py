"""The examples in the public docstrings run, as a reader would paste them."""
import doctest
import importlib
from pathlib import Path

import pytest

MODULES = [
    "gindex_studio",
    "gindex_studio.api",
    "gindex_studio.core.scoring.similarity",
    "gindex_studio.core.editing.search",
    "gindex_studio.core.editing.layout",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0


def test_the_python_api_guide_runs():
    guide = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"
    result = doctest.testfile(str(guide), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 20
    assert result.failed == 0
