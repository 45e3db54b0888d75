"""Which exact search this installation runs, in one sentence (for ``gindex-studio --version``).

The C extension ``gindex_studio.core.scoring._mcsplit`` is optional: without a compiler the install
succeeds and the same search runs in Python, about 60× slower. This says which one is in use and
why.
"""
from __future__ import annotations

import importlib
import os


def search_in_use() -> str:
    """``"search: C extension (…)"`` or ``"search: pure Python (reason)"``."""
    from gindex_studio.core.scoring import matching

    if os.environ.get("GINDEX_PURE_PYTHON", "0") not in ("", "0") and matching._native is not None:
        return "search: pure Python (GINDEX_PURE_PYTHON is set; the C extension is built)"
    if matching.native_search_available():
        return f"search: C extension ({os.path.basename(matching._native.__file__)})"
    try:
        mod = importlib.import_module("gindex_studio.core.scoring._mcsplit")
    except ImportError as e:
        why = f"the C extension is not built: {e}"
    else:
        why = f"the C extension is a stale build (API {getattr(mod, 'API_VERSION', '?')}); rebuild it with pip install -e ."
    return f"search: pure Python, about 60× slower ({why})"
