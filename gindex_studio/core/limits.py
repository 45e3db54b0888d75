"""Limits that say what they are: how much memory a piece of work needs against what the machine
has free, decided before the work starts.

Nothing here refuses a file for its node count alone: a flow the editor saved must open again.
The estimates are deliberately generous (measured on this project's generated flows, see the
constants) so that a refusal means the work would really not fit.
"""
from __future__ import annotations

import os

#: bytes of memory the editor needs per byte of flow file (Python objects + scene items): a
#: 5,001-node, 1.6 MB flow grew the studio by 59 MB (37×)
EDITOR_BYTES_PER_FILE_BYTE = 50


def available_memory() -> int | None:
    """Bytes of memory free for new work (``MemAvailable``), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def human_bytes(n: float) -> str:
    """``1.25 TB``, ``1.3 GB``, ``250 MB``, ``12 kB`` (powers of 1000, as file managers show sizes)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} bytes"


def too_big(what: str, needed: int, available: int | None = None) -> str | None:
    """A one-line reason when ``needed`` bytes exceed the free memory, else None."""
    available = available_memory() if available is None else available
    if available is None or needed <= available:
        return None
    return (f"{what} needs about {human_bytes(needed)} of memory and {human_bytes(available)} is free")


def editor_memory_needed(file_bytes: int) -> int:
    """Memory the studio needs to open and draw a flow file of ``file_bytes`` bytes."""
    return file_bytes * EDITOR_BYTES_PER_FILE_BYTE


#: bytes the exact search needs per association pair (same-type node pair), setup included:
#: 350-500 B measured on generated 500-4,000-node pairs (bench: /tmp script in the issue report)
SCORE_BYTES_PER_PAIR = 500
#: from this many same-type pairs on, scoring takes seconds before the search even starts
SLOW_PAIRS = 1_000_000


def same_type_pairs(reference, generated, ignore_types=frozenset()) -> int:
    """How many (reference node, generated node) pairs share a type: the association vertices
    of the search (only such pairs can have w > 0), counted without building anything."""
    from collections import Counter

    c1 = Counter(n.type for n in reference.vertex_nodes() if n.type not in ignore_types)
    c2 = Counter(n.type for n in generated.vertex_nodes() if n.type not in ignore_types)
    return sum(k * c2[t] for t, k in c1.items())


def scoring_too_big(reference, generated, ignore_types=frozenset(), available: int | None = None) -> str | None:
    """One line when scoring this pair would not fit in the free memory, else None."""
    pairs = same_type_pairs(reference, generated, ignore_types)
    n1, n2 = len(reference.vertex_nodes()), len(generated.vertex_nodes())
    return too_big(f"scoring {n1:,} × {n2:,} nodes ({pairs:,} same-type node pairs)",
                   pairs * SCORE_BYTES_PER_PAIR, available)
