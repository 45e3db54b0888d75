"""The one door to the optional C extensions: ``_mcsplit`` (McSplit, the clique search, the weight
kernels) and ``_flatsearch`` (the flatland profile's tree search), both in this package.

No other module imports an extension: they call the names below, each the extension's function
of that name when a build of the expected API version is importable, else None. Every function
takes named arguments (keyword only: ``budget``, a ``core.support.budget.Budget`` passed as it
is, whose absolute ``stop_at`` and cancel byte the binding puts in the C ``Stop``; and
``check_signals``, ``node_limit``):

- ``search`` (McSplit), ``clique_search`` (the clique search of "or" adjacency), ``solve``
  (weights and McSplit in one call, keyword arguments only);
- ``weights`` (every pair's w, scaled), ``weights_to`` / ``counts_to`` (one node against many
  values, for Ω's bounds), ``signatures`` (node dicts to Signatures);
- ``flow_graph`` (a flow's vertices and wires), ``companion_delta`` (Δ of two JSON flows in one
  call) and ``companion_hash_mask`` (its hash table's size, for tests);
- ``flat_search`` and ``flat_info`` (``_flatsearch``'s ``search`` and ``info``).

The C sources: ``core.h`` declares the plain C core (``stop.c``, ``graph.c``, ``weight_rows.c``,
``mcsplit_search.c``, ``mcsplit_clique.c``, ``flatsearch.c``; no Python object), ``kernels.h`` the
Python-value kernels (``py_*.c``: dicts compared with ``==``, JSON values), and the bindings
``mcsplit_module.c`` and ``flatsearch_module.c`` (with ``bind.c``) parse the arguments and convert.

The weight kernels implement two weight rules, named by what they compute (a ``Profile`` whose
weights equal one of them says so in ``Profile.native_rule``): ``UNION_JSON`` (K = the keys of
both nodes, JSON equality) and ``REFERENCE_PYTHON`` (K = the reference node's keys, Python ``==``,
a key missing on one side equal to null). ``kernel_flag(rule)`` is what the C functions take.

``available()`` says whether the searches run in C: the extension is built at the expected
``API_VERSION`` and ``GINDEX_PURE_PYTHON`` is unset or "0" (then every caller takes its Python
path, with the same results); ``flat_available()`` the same for ``_flatsearch``. ``describe()``
says which search is in use, and why, in one line.
"""
from __future__ import annotations

import os

API_VERSION = 14  # the API_VERSION of _mcsplit these wrappers are written for
FLAT_API_VERSION = 8  # and of _flatsearch

try:
    from gindex_studio.core.native import _mcsplit as _built
except ImportError as _e:  # not compiled: the pure-Python searches are used
    _built = None
    _IMPORT_ERROR = str(_e)
else:
    _IMPORT_ERROR = ""

try:
    from gindex_studio.core.native import _flatsearch as _flat_built
except ImportError:
    _flat_built = None

# each extension when its build is current; None when missing or stale (rebuild: pip install -e .)
EXTENSION = _built if getattr(_built, "API_VERSION", None) == API_VERSION else None
FLAT_EXTENSION = _flat_built if getattr(_flat_built, "API_VERSION", None) == FLAT_API_VERSION else None

UNION_JSON = "union-json"
REFERENCE_PYTHON = "reference-python"
RULES = (UNION_JSON, REFERENCE_PYTHON)


def kernel_flag(rule: str) -> bool:
    """The C weight kernels' ``companion`` argument for ``rule`` (True: ``REFERENCE_PYTHON``)."""
    if rule not in RULES:
        raise ValueError(f"unknown native weight rule {rule!r} (use one of: {', '.join(RULES)})")
    return rule == REFERENCE_PYTHON


#: the functions of ``_mcsplit`` this package hands out under their own names (``native.solve``, …;
#: each None without a current build)
FUNCTIONS = ("search", "clique_search", "solve", "weights", "weights_to", "counts_to", "signatures",
             "flow_graph", "companion_delta", "companion_hash_mask", "set_sparse_from", "set_symmetry_pairs_upto")
globals().update((name, getattr(EXTENSION, name, None)) for name in FUNCTIONS)
flat_search = getattr(FLAT_EXTENSION, "search", None)
flat_info = getattr(FLAT_EXTENSION, "info", None)


def pure_python_requested() -> bool:
    """True when ``GINDEX_PURE_PYTHON`` is set and not "0"."""
    return os.environ.get("GINDEX_PURE_PYTHON", "0") not in ("", "0")


def available() -> bool:
    """True when the searches will run in C (extension built and current, not disabled)."""
    return EXTENSION is not None and not EXTENSION.pure_python_requested()  # getenv: a tenth of os.environ.get


def flat_available() -> bool:
    """True when the flatland profile's search will run in C (``_flatsearch`` built and current,
    ``GINDEX_PURE_PYTHON`` unset or "0")."""
    return FLAT_EXTENSION is not None and not pure_python_requested()


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
