"""Scoring profiles: what a profile decides, and the registry that knows them by name.

The generic scoring code (``similarity``, ``matching``, ``divergence``, the benchmark, curation)
never tests a profile's name: it asks the ``Profile`` for each decision. A profile is one file
that builds a ``Profile`` and calls ``register``; ``get(name)`` finds it (the names are what
``ScoreOptions.profile``, experiment files and ``--profile`` take).

The built-in profiles register from their own modules (``BUILTIN_MODULES``: ``paper`` and
``companion`` in ``scoring.builtin_profiles``, ``flatland`` in ``flatland.profile``), and every
other module of the core named ``profile_*.py`` (``discover``) registers too: a new profile is one
such file. They are imported by name the first time the registry is read, so that no generic module imports a profile and the
profile modules may import the generic ones. Imports point one way: profile files → generic
modules (``similarity``, ``search_base``, ``native``) → this module.
"""
from __future__ import annotations

import importlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

BUILTIN_MODULES = ("gindex_studio.core.scoring.builtin_profiles", "gindex_studio.core.flatland.profile")
_CORE = Path(__file__).resolve().parent.parent  # gindex_studio/core
DEFAULT = "paper"  # ScoreOptions' default profile


@dataclass(frozen=True, eq=False)
class Profile:
    """What a scoring profile decides. ``Signature`` is ``similarity.Signature``.

    Node similarity (scoring-spec §2):

    - ``ignored``: the node keys never compared (identity, layout, presentation).
    - ``signature(data) -> Signature``: a node dict reduced once (its type, compared keys, values).
    - ``weight(a, b) -> (num, den)``: w of two signatures of the same type, an exact fraction
      (``(1, 1)`` when there is no key to compare; pairs of different types are 0 without asking).
    - ``reference_keys``: the compared keys are the reference node's only (else both nodes'); the
      report's differing keys follow it.
    - ``native_rule``: the C weight kernel whose weights equal ``weight`` (``native.UNION_JSON`` or
      ``native.REFERENCE_PYTHON``), used when the extension is available; None: Python only.

    The common subgraph (scoring-spec §3):

    - ``adjacency``: "and" (Eq. 12 as written: the edges between two mapped pairs correspond in
      both directions; the McSplit search) or "or" (in either direction; the clique search).
    - ``self_loops_agree``: mapped nodes have the same self-loop ports (their own label class).
    - ``typed_edges``: edges keep their output port (ScoreOptions.port_aware is forced on).
    - ``symmetric``: the studio relies on Δ(a, b) = Δ(b, a): matrices search one triangle, the Δ
      cache stores one order, and Ω races the two orientations of McSplit.
    - ``search(g1, g2, *, warm, threshold, threshold_sq, budget) -> Match | None``: a
      search of the profile's own, with ``matching.max_common_subgraph``'s contract; None from it
      (or no search) means the generic one runs.

    Reading a flow (``divergence.prepare``):

    - ``skip_wire(src_id, port, target_id, ports) -> bool``: a wire that is not an edge.
    - ``no_cycle_warnings(nodes, out, back) -> bool``: a quick proof that a flow with backward
      wires (``back``: (k, j) with j <= k; ``out``: per vertex {port: targets bitset}) has no
      cycle ``checks.cycle_problems`` would warn about (True skips that full check).
    - ``delta_of_values(reference, generated) -> float | None``: Δ of two parsed flows with no other
      option set, in one call (``divergence.delta_of_values``); None: take ``score``.
    - ``reader``: the dotted name of a module reading the profile's programs (``flows.reading``'s
      protocol: ``read_generated``, ``generated_from_value``, ``read_strict``, ``from_value``,
      ``folder_files``, ``KIND_NAMES``, ``StrictError``); None: Node-RED flow JSON.

    Bounds that hold for the profile (curation's pruning):

    - ``key_fraction_weights``: w = (keys with equal values) / K with K the keys of both nodes, so
      a pair of type t that is not identical has w ≤ 1 − 1/K_t.
    - ``induced_edges``: the mapping is an induced common subgraph on untyped edges: mapped edges
      correspond both ways (curation's edge bound).
    """

    name: str
    ignored: frozenset
    signature: Callable[[dict], Any]
    weight: Callable[[Any, Any], tuple[int, int]]
    description: str = ""
    reference_keys: bool = False
    native_rule: str | None = None
    adjacency: str = "and"
    self_loops_agree: bool = False
    typed_edges: bool = False
    symmetric: bool = False
    search: Callable | None = None
    skip_wire: Callable | None = None
    no_cycle_warnings: Callable | None = None
    delta_of_values: Callable | None = None
    reader: str | None = None
    key_fraction_weights: bool = False
    induced_edges: bool = False

    def __post_init__(self):
        if self.adjacency not in ("and", "or"):
            raise ValueError(f"profile {self.name!r}: adjacency must be 'and' or 'or', got {self.adjacency!r}")

    @property
    def reads_flow_json(self) -> bool:
        """True when the profile's programs are Node-RED flow JSON (no reader of its own)."""
        return self.reader is None

    def __repr__(self) -> str:
        return f"Profile({self.name!r})"


_REGISTRY: dict[str, Profile] = {}
_lock = threading.RLock()
_state = 0  # 0: built-ins not loaded, 1: being loaded (by the thread holding _lock), 2: loaded


def _load_builtins() -> None:
    global _state
    if _state == 2:
        return
    with _lock:
        if _state != 0:  # loaded meanwhile, or being loaded by this very thread (a built-in registering)
            return
        _state = 1
        try:
            for mod in (*BUILTIN_MODULES, *discover(_CORE, "gindex_studio.core")):
                importlib.import_module(mod)
        except BaseException:
            _state = 0
            raise
        _state = 2


def discover(root: Path, package: str) -> list[str]:
    """The dotted names of the modules below folder ``root`` (package ``package``) named
    ``profile_*.py``, sorted: the profiles added as one file each. Nothing is imported here.

    >>> discover(_CORE, "gindex_studio.core")  # the shipped profiles are BUILTIN_MODULES
    []
    """
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d.isidentifier())
        rel = Path(folder).relative_to(root).parts
        found += [".".join((package, *rel, f[:-3])) for f in files
                  if f.startswith("profile_") and f.endswith(".py") and f[:-3].isidentifier()]
    return sorted(found)


def register(profile: Profile, *, replace: bool = False) -> Profile:
    """Make ``profile`` known by its name; returns it. A name already taken raises ValueError
    unless ``replace``."""
    _load_builtins()
    with _lock:
        if profile.name in _REGISTRY and not replace and _REGISTRY[profile.name] is not profile:
            raise ValueError(f"a profile named {profile.name!r} is already registered")
        _REGISTRY[profile.name] = profile
    return profile


def unregister(name: str) -> None:
    """Forget the profile ``name`` (tests registering a toy profile clean up with it)."""
    _load_builtins()
    with _lock:
        _REGISTRY.pop(name, None)


def get(name) -> Profile:
    """The profile registered as ``name`` (a Profile is returned as it is). Raises ValueError
    naming the known profiles for any other name."""
    if isinstance(name, Profile):
        return name
    _load_builtins()
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown profile {name!r} (use one of: {', '.join(names())})") from None


def names() -> tuple[str, ...]:
    """The registered profiles' names, built-ins first, in the order they registered."""
    _load_builtins()
    return tuple(_REGISTRY)
