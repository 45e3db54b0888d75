"""The one door to the optional C extension ``gindex_studio.core.scoring._mcsplit``.

No other module imports the extension: they call the names below, each the extension's function
of that name when a build of the expected ``API_VERSION`` is importable, else None:

- ``search`` (McSplit), ``clique_search`` (the clique search of "or" adjacency), ``solve``
  (weights and McSplit in one call);
- ``weights`` (every pair's w, scaled), ``weights_to`` / ``counts_to`` (one node against many
  values, for Ω's bounds), ``signatures`` (node dicts to Signatures);
- ``flow_graph`` (a flow's vertices and wires), ``companion_delta`` (Δ of two JSON flows in one
  call) and ``companion_hash_mask`` (its hash table's size, for tests).

The weight kernels implement two weight rules, named by what they compute (a ``Profile`` whose
weights equal one of them says so in ``Profile.native_rule``): ``UNION_JSON`` (K = the keys of
both nodes, JSON equality) and ``REFERENCE_PYTHON`` (K = the reference node's keys, Python ``==``,
a key missing on one side equal to null). ``kernel_flag(rule)`` is what the C functions take.

``available()`` says whether the searches run in C: the extension is built at the expected
``API_VERSION`` and ``GINDEX_PURE_PYTHON`` is unset or "0" (then every caller takes its Python
path, with the same results). ``describe()`` says which search is in use, and why, in one line.
"""
from __future__ import annotations

import os

API_VERSION = 12  # the extension's API_VERSION these wrappers are written for

try:
    from gindex_studio.core.scoring import _mcsplit as _built
except ImportError as _e:  # not compiled: the pure-Python searches are used
    _built = None
    _IMPORT_ERROR = str(_e)
else:
    _IMPORT_ERROR = ""

# the extension when its build is current; None when missing or stale (rebuild: pip install -e .)
EXTENSION = _built if getattr(_built, "API_VERSION", None) == API_VERSION else None

UNION_JSON = "union-json"
REFERENCE_PYTHON = "reference-python"
RULES = (UNION_JSON, REFERENCE_PYTHON)


def kernel_flag(rule: str) -> bool:
    """The C weight kernels' ``companion`` argument for ``rule`` (True: ``REFERENCE_PYTHON``)."""
    if rule not in RULES:
        raise ValueError(f"unknown native weight rule {rule!r} (use one of: {', '.join(RULES)})")
    return rule == REFERENCE_PYTHON


def _fn(name: str):
    return getattr(EXTENSION, name, None)


search = _fn("search")
clique_search = _fn("clique_search")
solve = _fn("solve")
weights = _fn("weights")
weights_to = _fn("weights_to")
counts_to = _fn("counts_to")
signatures = _fn("signatures")
flow_graph = _fn("flow_graph")
companion_delta = _fn("companion_delta")
companion_hash_mask = _fn("companion_hash_mask")


def pure_python_requested() -> bool:
    """True when ``GINDEX_PURE_PYTHON`` is set and not "0"."""
    return os.environ.get("GINDEX_PURE_PYTHON", "0") not in ("", "0")


def available() -> bool:
    """True when the searches will run in C (extension built and current, not disabled)."""
    return EXTENSION is not None and not EXTENSION.pure_python_requested()  # getenv: a tenth of os.environ.get


def describe() -> str:
    """``"search: C extension (…)"`` or ``"search: pure Python (reason)"``: which exact search
    this installation runs, for ``gindex-studio --version``. The extension is optional: without a
    compiler the install succeeds and the same search runs in Python, about 60× slower."""
    if pure_python_requested() and EXTENSION is not None:
        return "search: pure Python (GINDEX_PURE_PYTHON is set; the C extension is built)"
    if available():
        return f"search: C extension ({os.path.basename(EXTENSION.__file__)})"
    if _built is None:
        why = f"the C extension is not built: {_IMPORT_ERROR}"
    else:
        why = (f"the C extension is a stale build (API {getattr(_built, 'API_VERSION', '?')}); "
               "rebuild it with pip install -e .")
    return f"search: pure Python, about 60× slower ({why})"
