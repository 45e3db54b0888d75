"""The Qt desktop studio. Never imported by core or cli (except the ``gui`` entry).

Importing this package applies one workaround: PySide6 6.12.0 on CPython < 3.12 drops a reference
to ``None`` every time a Qt method returns nothing (it was built for 3.12's immortal ``None``), so
after a few thousand calls CPython aborts with "deallocating None". We give ``None`` a reference
count no session can use up (as 3.12 does). Pinning ``PySide6-Essentials != 6.12.0`` avoids it.
"""
import sys as _sys


def _guard_none_refcount() -> bool:
    if _sys.version_info >= (3, 12) or _sys.implementation.name != "cpython":
        return False
    try:
        import PySide6
    except ImportError:
        return False
    if not PySide6.__version__.startswith("6.12."):
        return False
    import ctypes

    ref = ctypes.c_ssize_t.from_address(id(None))
    if ref.value < (1 << 40):
        ref.value += 1 << 40
    return True


NONE_GUARD = _guard_none_refcount()
