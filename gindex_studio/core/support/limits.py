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
    """Bytes of memory free for new work, or None when unknown: the machine's ``MemAvailable``,
    lowered to what this process may still take under its own caps (``ulimit -v`` / ``-d``:
    RLIMIT_AS and RLIMIT_DATA; a cgroup's memory limit), whichever is least. Pool processes
    each have their own RLIMIT_AS, but ``searches_too_big`` adds them up against this one value:
    a cap on the process is taken for the whole run (on the safe side; ``--workers 1`` fits)."""
    known = [n for n in (_machine_free(), _rlimit_headroom(), _cgroup_headroom()) if n is not None]
    return max(0, min(known)) if known else None


def _machine_free() -> int | None:
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


def _status_kb(field: str) -> int | None:
    """A ``kB`` field of /proc/self/status in bytes (``VmSize``, ``VmData``), None when unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _rlimit_headroom() -> int | None:
    """The least of (RLIMIT_AS − VmSize, RLIMIT_DATA − VmData) over the limits that are set."""
    try:
        import resource
    except ImportError:
        return None
    room = []
    for limit, field in ((resource.RLIMIT_AS, "VmSize"), (resource.RLIMIT_DATA, "VmData")):
        soft = resource.getrlimit(limit)[0]
        if soft != resource.RLIM_INFINITY:
            used = _status_kb(field)
            room.append(soft - (used or 0))
    return min(room) if room else None


def _cgroup_headroom() -> int | None:
    """The memory limit of this process's cgroup less its usage (v2, else v1), None without one."""
    try:
        with open("/proc/self/cgroup", encoding="ascii") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        controllers, path = parts[1], parts[2]
        if controllers == "":
            pair = (f"/sys/fs/cgroup{path}/memory.max", f"/sys/fs/cgroup{path}/memory.current")
        elif "memory" in controllers.split(","):
            pair = (f"/sys/fs/cgroup/memory{path}/memory.limit_in_bytes",
                    f"/sys/fs/cgroup/memory{path}/memory.usage_in_bytes")
        else:
            continue
        try:
            with open(pair[0], encoding="ascii") as f:
                limit = f.read().strip()
            with open(pair[1], encoding="ascii") as f:
                used = int(f.read())
            if limit != "max" and int(limit) < 1 << 60:
                return int(limit) - used
        except (OSError, ValueError):
            continue
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


def _type_counts(flow, ignore_types) -> dict[str, int]:
    from collections import Counter

    return Counter(n.type for n in flow.vertex_nodes() if n.type not in ignore_types)


def same_type_pairs(reference, generated, ignore_types=frozenset()) -> int:
    """How many (reference node, generated node) pairs share a type: the association vertices
    of the search (only such pairs can have w > 0), counted without building anything."""
    c1, c2 = _type_counts(reference, ignore_types), _type_counts(generated, ignore_types)
    return sum(k * c2[t] for t, k in c1.items())


def largest_matrix_pair(flows, ignore_types=frozenset(), block: int = 512,
                        distinct: bool = False) -> tuple[int, int, int] | None:
    """(same-type pairs, i, j) of the pair (flows[i] as reference, flows[j] as generated) with
    the most same-type node pairs; the first in row order on ties (as ``searches_too_big`` picks
    over a group listed row by row). ``distinct``: only pairs i ≠ j (a program is never searched
    against itself). None with no such pair. Per-type counts as a matrix product in blocks of
    rows: memory follows ``block`` × n, not n²."""
    import numpy as np

    if len(flows) < (2 if distinct else 1):
        return None
    counts = [_type_counts(f, ignore_types) for f in flows]
    types = {t: k for k, t in enumerate(sorted({t for c in counts for t in c}))}
    table = np.zeros((len(flows), max(1, len(types))), dtype=np.int64)
    for i, c in enumerate(counts):
        for t, x in c.items():
            table[i, types[t]] = x
    best = None
    for start in range(0, len(flows), block):
        pairs = table[start:start + block] @ table.T
        if distinct:
            rows = np.arange(pairs.shape[0])
            pairs[rows, start + rows] = -1
        k = int(pairs.argmax())
        r, j = divmod(k, len(flows))
        if best is None or int(pairs[r, j]) > best[0]:
            best = (int(pairs[r, j]), start + r, j)
    return best


def scoring_too_big(reference, generated, ignore_types=frozenset(), available: int | None = None) -> str | None:
    """One line when scoring this pair would not fit in the free memory, else None."""
    return searches_too_big([[(reference, generated, None)]], ignore_types=ignore_types, available=available)


def searches_too_big(groups, *, at_once: int = 1, ignore_types=frozenset(), available: int | None = None,
                     what: str = "") -> str | None:
    """One line when a batch of searches would not fit in the free memory, else None.

    ``groups``: lists of ``(reference, generated, label)`` searches; one process runs a group's
    searches one after the other (so a group needs its largest search's memory) and ``at_once``
    processes run groups side by side (the ``at_once`` largest groups add up). The line names the
    largest search (``label``, nodes, same-type node pairs), the estimate and the free memory;
    ``what`` (e.g. ``"Ω"``) starts it. Each flow's type counts are taken once."""
    counts: dict[int, object] = {}

    def count(flow):
        c = counts.get(id(flow))
        if c is None:
            c = counts[id(flow)] = (flow, _type_counts(flow, ignore_types))  # keep flow: ids stay unique
        return c[1]

    largest = []  # per group: (pairs, reference, generated, label)
    for group in groups:
        best = None
        for ref, gen, label in group:
            c1, c2 = count(ref), count(gen)
            pairs = sum(k * c2[t] for t, k in c1.items())
            if best is None or pairs > best[0]:
                best = (pairs, ref, gen, label)
        if best is not None:
            largest.append(best)
    if not largest:
        return None
    largest.sort(key=lambda b: b[0], reverse=True)
    running = largest[:max(1, at_once)]
    pairs, ref, gen, label = running[0]
    needed = sum(b[0] for b in running) * SCORE_BYTES_PER_PAIR
    n1, n2 = len(ref.vertex_nodes()), len(gen.vertex_nodes())
    nodes = f"{n1:,} × {n2:,} nodes ({pairs:,} same-type node pairs)"
    if not label:
        return too_big(f"{what}: scoring {nodes}" if what else f"scoring {nodes}", needed, available)
    available = available_memory() if available is None else available
    if available is None or needed <= available:
        return None
    line = f"{what}: " if what else ""
    line += f"its largest search, {label}, scores {nodes}"
    if len(running) > 1:
        return (line + f"; {len(running)} processes searching at once need about {human_bytes(needed)} of memory "
                f"and {human_bytes(available)} is free")
    return line + f" and needs about {human_bytes(needed)} of memory; {human_bytes(available)} is free"
