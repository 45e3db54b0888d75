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

Inside the core a profile travels as the ``Profile`` object (``ScoreOptions.profile`` holds one);
names are read at the edges (command line, files, settings) with ``get``. ``default()`` is the
profile scoring uses when none is named, ``companion_default()`` the one the companion code's
experiment files are scored with; no module outside the profiles' own names a built-in profile.
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


@dataclass(frozen=True)
class SearchPlan:
    """How the common-subgraph search runs under a profile (``Profile.search_plan``).

    - ``own``: the profile's own search (``Profile.search``), tried first; None: the generic one.
    - ``adjacency``: the generic search, "and" (McSplit) or "or" (the clique search).
    - ``races``: Ω's searches (a ``threshold_sq`` alone) race the two orientations of McSplit:
      S is symmetric and McSplit, whose node budget cuts an attempt, is the search.
    - ``one_call_rule``: the native weight rule under which one C call (``native.solve``) may do
      the weights and McSplit together ("and" adjacency, self-loops that agree); None: never.
    """

    own: Callable | None
    adjacency: str
    races: bool
    one_call_rule: str | None


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
      ``folder_files``, ``files_below``, ``read_curriculum``, ``StrictError``); None: Node-RED
      flow JSON. ``reader_module()`` imports it.
    - ``suffixes``: the suffixes of its program files, in the order a folder prefers them.

    The editor's checks and the experiments:

    - ``node_types``: the node types its programs are made of (None: any). ``checks.cycle_problems``
      reads a flow made only of these types under this profile's ``cycle_skip``.
    - ``cycle_skip(source type, port) -> bool``: a wire that closes no cycle worth a warning
      (Flatland: a loop's body).
    - ``companion_default``: the companion code's experiment files are scored with this profile
      unless told otherwise (``companion_default()``).

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
    suffixes: tuple[str, ...] = (".json",)
    key_fraction_weights: bool = False
    induced_edges: bool = False
    node_types: frozenset | None = None
    cycle_skip: Callable[[str, int], bool] | None = None
    companion_default: bool = False

    def __post_init__(self):
        if self.adjacency not in ("and", "or"):
            raise ValueError(f"profile {self.name!r}: adjacency must be 'and' or 'or', got {self.adjacency!r}")

    @property
    def reads_flow_json(self) -> bool:
        """True when the profile's programs are Node-RED flow JSON (no reader of its own)."""
        return self.reader is None

    def reader_module(self):
        """The module ``reader`` names (imported on first use: most runs never read such a
        program), or None for Node-RED flow JSON."""
        return None if self.reader is None else importlib.import_module(self.reader)

    @property
    def kind_names(self) -> str:
        """Its program files' suffixes for messages: ".json", ".fbp, .lisp or .json"."""
        *first, last = self.suffixes
        return f"{', '.join(first)} or {last}" if first else last

    def search_plan(self) -> SearchPlan:
        """How ``matching.max_common_subgraph`` searches under this profile (``SearchPlan``; made
        once, on first use)."""
        plan = self.__dict__.get("_search_plan")
        if plan is None:
            mcsplit = self.adjacency == "and"
            plan = SearchPlan(
                own=self.search, adjacency=self.adjacency,
                races=self.symmetric and self.search is None and mcsplit,
                one_call_rule=self.native_rule if mcsplit and self.self_loops_agree else None,
            )
            self.__dict__["_search_plan"] = plan  # (a frozen dataclass: no setattr)
        return plan

    def __reduce__(self):
        # a profile crosses to worker processes by name: the registered object on the other side
        return get, (self.name,)

    def __repr__(self) -> str:
        return f"Profile({self.name!r})"


_REGISTRY: dict[str, Profile] = {}
_default: Profile | None = None  # default(), set by ``register(..., default=True)``
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


def register(profile: Profile, *, replace: bool = False, default: bool = False) -> Profile:
    """Make ``profile`` known by its name; returns it. A name already taken raises ValueError
    unless ``replace``. ``default``: it becomes ``default()``."""
    global _default
    _load_builtins()
    with _lock:
        if profile.name in _REGISTRY and not replace and _REGISTRY[profile.name] is not profile:
            raise ValueError(f"a profile named {profile.name!r} is already registered")
        _REGISTRY[profile.name] = profile
        if default:
            _default = profile
    return profile


def unregister(name: str) -> None:
    """Forget the profile ``name`` (tests registering a toy profile clean up with it)."""
    _load_builtins()
    with _lock:
        _REGISTRY.pop(name, None)


def get(name=None) -> Profile:
    """The profile registered as ``name`` (a Profile is returned as it is; None: ``default()``).
    Raises ValueError naming the known profiles for any other name."""
    if isinstance(name, Profile):
        return name
    _load_builtins()
    if name is None:
        return default()
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown profile {name!r} (use one of: {', '.join(names())})") from None


def names() -> tuple[str, ...]:
    """The registered profiles' names, built-ins first, in the order they registered."""
    _load_builtins()
    return tuple(_REGISTRY)


def default() -> Profile:
    """The profile scoring uses when none is named (``ScoreOptions``' default)."""
    _load_builtins()
    return _default


def companion_default() -> Profile:
    """The profile the companion code's experiment files are scored with unless told otherwise:
    the first registered with ``companion_default``."""
    _load_builtins()
    for p in list(_REGISTRY.values()):
        if p.companion_default:
            return p
    raise LookupError("no registered profile scores the companion's experiments")


def cycle_skip_for(types) -> Callable[[str, int], bool] | None:
    """The ``cycle_skip`` of the first registered profile whose ``node_types`` hold every type
    in ``types`` (a non-empty set of node types), or None."""
    if not types:
        return None
    _load_builtins()
    for p in list(_REGISTRY.values()):
        if p.cycle_skip is not None and p.node_types is not None and p.node_types.issuperset(types):
            return p.cycle_skip
    return None
