"""Divergence Δ between a reference and a generated flow, with its full report (scoring-spec §3).

``score(reference, generated, options)`` returns a ``ScoreResult``: Δ = 1 − S² / (|V'|·|V''|),
θ = 1 − Δ, the mapping with per-pair differing keys, matched / missing / extra nodes and edges, the
edge divergence and the paper's three error kinds. Flows are reduced once by ``prepare`` (cache the
``Prepared`` value when scoring one flow against many).
"""
from __future__ import annotations

import os as _os
import time
from pathlib import Path
from dataclasses import dataclass, asdict, field
from fractions import Fraction
from typing import Iterable

from gindex_studio.core.flows.flow import (
    Flow,
    FlowError,
    flow_from_value,
    json_problem,
    loads_json,
    no_node_reason,
    normalise_wires,
    read_user_file,
)
from gindex_studio.core.flows.lenient import SyntaxIssue
from gindex_studio.core.scoring.matching import Graph, Match, max_common_subgraph, sparse_graph
from gindex_studio.core.scoring.similarity import differing_keys, signatures
from gindex_studio.core.support.budget import Budget, DeadlinePassed
from gindex_studio.core import native
from gindex_studio.core.support import profiles
from gindex_studio.core.support.summary import summarise


@dataclass(frozen=True)
class ScoreOptions:
    """How Δ is computed. ``profile``: the ``Profile`` (a registered profile's name is taken and
    turned into it; ``to_dict`` writes the name; default: ``profiles.default()``);
    ``deadline``: seconds for the search (None: exact, however long)."""

    profile: profiles.Profile = field(default_factory=profiles.default)
    ignore_types: frozenset = frozenset()
    port_aware: bool = False
    fill_defaults: bool = False
    deadline: float | None = None

    def __post_init__(self):
        prof = profiles.get(self.profile)  # ValueError naming the profiles for an unknown one
        object.__setattr__(self, "profile", prof)
        object.__setattr__(self, "ignore_types", frozenset(self.ignore_types))
        if prof.typed_edges:  # edges are typed by their port
            object.__setattr__(self, "port_aware", True)

    def to_dict(self) -> dict:
        return {
            "profile": self.profile.name,
            "ignore_types": sorted(self.ignore_types),
            "port_aware": self.port_aware,
            "fill_defaults": self.fill_defaults,
            "deadline": self.deadline,
        }


class Prepared:
    """A flow reduced for scoring under given options: its graph and the warnings of reduction.
    ``edges``: (src id, port, dst id) when port-aware, else (src id, dst id); built from the graph
    on first use (only the report reads them)."""

    __slots__ = ("graph", "warnings", "port_aware", "_edges")

    def __init__(self, graph: Graph, warnings: list[str] | None = None, port_aware: bool = False):
        self.graph = graph
        self.warnings = warnings if warnings is not None else []
        self.port_aware = port_aware
        self._edges = None

    @property
    def n(self) -> int:
        return self.graph.n

    @property
    def edges(self) -> set:
        e = self._edges
        if e is None:
            ids, flat = self.graph.ids, self.graph.edge_array()  # linear in the edges, whatever n
            if self.port_aware:
                e = {(ids[flat[i]], flat[i + 1], ids[flat[i + 2]]) for i in range(0, len(flat), 3)}
            else:
                e = {(ids[flat[i]], ids[flat[i + 2]]) for i in range(0, len(flat), 3)}
            self._edges = e
        return e

    def __getstate__(self):
        return (self.graph, self.warnings, self.port_aware)

    def __setstate__(self, state):
        self.graph, self.warnings, self.port_aware = state
        self._edges = None

    def __eq__(self, other):
        if not isinstance(other, Prepared):
            return NotImplemented
        return (self.graph, self.warnings, self.port_aware) == (other.graph, other.warnings, other.port_aware)

    def __repr__(self) -> str:
        return f"Prepared(n={self.n}, edges={self.graph.n_edges}, warnings={self.warnings!r})"


def prepare(flow: Flow, options: ScoreOptions = ScoreOptions(), library=None, *, budget: Budget | None = None) -> Prepared:
    """Reduce ``flow`` to vertices (minus ignored types), signatures and edges. A wire the
    profile's ``skip_wire`` rejects is no edge (the flatland profile drops self-loops, and a loop
    wired to one node by both ports has one edge labelled ``out``). ``budget``: a reduction still
    running at its stop time raises ``DeadlinePassed`` (``core.support.budget``'s; the clock is
    read every ``_CLOCK_EVERY`` nodes: a few ms of work between two reads; a cancel is not
    looked at here)."""
    profile = options.profile
    built = None
    stop_at = None if budget is None else budget.stop_at
    _past(stop_at)
    if (_flow_graph is not None and len(flow.nodes) <= SPARSE_FROM and not (options.ignore_types or options.port_aware)
            and profile.skip_wire is None and native.available()):
        built = _flow_graph(flow.nodes, _NO_LOOPS, _LOOP0)  # the vertices and wires below, in C
    if built is None:
        return _prepare_python(flow, options, library, stop_at)
    ids, nodes, out, inn, loops, cyclic, n_edges = built
    sigs = signatures(_filled(nodes, options, library), profile)
    return _prepared(flow, options, Graph(ids, sigs, out, inn, loops, n_edges), cyclic)


#: from this many vertices on, ``prepare`` builds a sparse Graph (an edge array, no n² bitsets)
SPARSE_FROM = 4096
#: ``prepare`` with a ``budget`` reads the clock every this many nodes (a power of two)
_CLOCK_EVERY = 8192


def _filled(nodes: list[dict], options: ScoreOptions, library) -> list[dict]:
    """The vertices' node dicts as scored: with the library's defaults when ``fill_defaults``."""
    if not options.fill_defaults:
        return nodes
    if library is None:
        from gindex_studio.core.flows.library import NodeLibrary

        library = NodeLibrary.bundled()
    return [library.fill_defaults(d) for d in nodes]


def _past(stop_at: float | None) -> None:
    if stop_at is not None and time.perf_counter() > stop_at:
        raise DeadlinePassed


def _signatures(nodes: list[dict], prof, stop_at: float | None) -> list:
    """``signatures(nodes, prof)``; with ``stop_at``, in slices with a look at the clock between."""
    if stop_at is None or len(nodes) <= 2 * _CLOCK_EVERY:
        return signatures(nodes, prof)
    out = []
    for i in range(0, len(nodes), 2 * _CLOCK_EVERY):
        _past(stop_at)
        out += signatures(nodes[i:i + 2 * _CLOCK_EVERY], prof)
    return out


def _prepare_python(flow: Flow, options: ScoreOptions, library, stop_at: float | None = None) -> Prepared:
    """``prepare`` in Python: every option and profile."""
    index: dict[str, int] = {}  # the vertices (flow.vertex_nodes: first node of each id) and their position
    nodes = []
    ignored = options.ignore_types
    tick = _CLOCK_EVERY - 1 if stop_at is not None else -1  # -1: never (k & -1 == k is 0 only for k = 0)
    for c, node in enumerate(flow.nodes):
        if not (c & tick) and c:
            _past(stop_at)
        d = node.data
        i = d["id"]
        if i not in index:
            if ignored and d["type"] in ignored:
                index[i] = -1  # an ignored vertex: not scored, and a later node with its id is not one
                continue
            index[i] = len(nodes)
            nodes.append(d)
    if ignored:
        index = {i: k for i, k in index.items() if k >= 0}
    ids = list(index)
    prof = options.profile
    sigs = _signatures(_filled(nodes, options, library), prof, stop_at)
    n = len(nodes)
    port_aware = options.port_aware
    skip = prof.skip_wire
    sparse = n > SPARSE_FROM
    edges: set[tuple[int, int, int]] = set()  # sparse: the edges (k, p, j), else the bitsets below
    out: list[dict[int, int]] = [{} for _ in range(0 if sparse else n)]  # the Graph's adjacency, built here directly
    inn: list[dict[int, int]] = [{} for _ in range(0 if sparse else n)]
    loops = [_NO_LOOPS] * n
    back = []  # wires (k, j) with j <= k: without any, file order is a topological order (no loop)
    for k, d in enumerate(nodes):
        if not (k & tick) and k:
            _past(stop_at)
        wires = d.get("wires")
        if not wires:
            continue
        src = ids[k]
        # normalise_wires, without copying the usual list of lists (non-string targets skipped below)
        ports = (wires if type(wires) is list and type(wires[0]) is list
                 and (len(wires) == 1 or all(type(p) is list for p in wires)) else normalise_wires(wires))
        for port, targets in enumerate(ports):
            for t in targets:
                if type(t) is not str and not isinstance(t, str):
                    continue
                j = index.get(t)
                if j is None:
                    continue
                if j <= k:
                    back.append((k, j))
                if skip is not None and skip(src, port, t, ports):
                    continue  # not an edge under this profile
                p = port if port_aware else 0  # a wire twice sets the same bits (one edge)
                if j == k:
                    loops[k] = loops[k] | {p}
                if sparse:
                    edges.add((k, p, j))
                    continue
                a = out[k]
                a[p] = a.get(p, 0) | (1 << j)
                a = inn[j]
                a[p] = a.get(p, 0) | (1 << k)
    if sparse:
        graph = sparse_graph(ids, sigs, edges, loops)
    else:
        n_edges = 0
        for ports in out:
            for m in ports.values():
                n_edges += m.bit_count()
        graph = Graph(ids, sigs, out, inn, loops, n_edges)
    # a flow the profile proves free of cycle warnings (Flatland: cycles through loop bodies only) is not checked in full
    quiet = prof.no_cycle_warnings
    cyclic = bool(back) and not (quiet is not None and quiet(nodes, graph.adj_out, back)) and not _acyclic(graph, back)
    return _prepared(flow, options, graph, cyclic)


def _prepared(flow: Flow, options: ScoreOptions, graph: Graph, cyclic: bool) -> Prepared:
    """``graph`` with the flow's reader warnings; the full cycle check (checks.cycle_problems) only
    when ``graph`` has a loop (it reads the whole flow, ignored types included, so it also runs
    whenever types are ignored)."""
    warnings = [p.message for p in flow.problems if p.kind in _READER_WARNINGS]
    if options.ignore_types or cyclic:
        warnings += loop_warnings(flow)
    if warnings:
        warnings = summarise(warnings)
    return Prepared(graph, warnings, options.port_aware)


_NO_LOOPS = frozenset()
_LOOP0 = frozenset({0})
_flow_graph = native.flow_graph
_READER_WARNINGS = frozenset({"dangling-wire", "duplicate-id", "invalid-node", "encoding"})


def _acyclic(graph: Graph, back: list) -> bool:
    """True when the wires have no loop, a self-loop included (Kahn's test, linear). ``back``: the
    wires (k, j) with j <= k; ``graph``'s edges are the wires but those a profile's ``skip_wire``
    left out: only self-loops (seen in ``back``) and wires doubling another (the flatland profile)."""
    n = graph.n
    for k, j in back:
        if k == j:
            return False
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    flat = graph.edge_array()
    for k, j in {(flat[i], flat[i + 2]) for i in range(0, len(flat), 3)}:  # one per target, whatever the ports
        succ[k].append(j)
        indeg[j] += 1
    stack = [k for k in range(n) if not indeg[k]]
    seen = 0
    while stack:
        k = stack.pop()
        seen += 1
        for j in succ[k]:
            indeg[j] -= 1
            if not indeg[j]:
                stack.append(j)
    return seen == n


def loop_warnings(flow: Flow) -> list[str]:
    """Self-loops and cycles, as warnings: the metric scores them as edges (spec §1), but the
    paper's programs are DAGs, so a loop is worth a look."""
    from gindex_studio.core.flows.checks import cycle_problems

    out = []
    for p in cycle_problems(flow):
        if p.kind == "self-loop":
            out.append(f"node {p.node_id!r} is wired to itself: the self-loop is scored as an edge "
                       "(the paper's programs are DAGs)")
        else:
            out.append(f"cycle: {p.message} (ids {', '.join(map(repr, p.nodes[:6]))}"
                       f"{', …' if len(p.nodes) > 6 else ''}): scored as it is (the paper's programs are DAGs)")
    return out


@dataclass
class MappedPair:
    reference: str
    generated: str
    w: float
    w_exact: str  # "m/k"
    differing_keys: list[str]


_REPORT_FIELDS = ("mapping", "missing_nodes", "extra_nodes", "matched_edges", "missing_edges", "extra_edges",
                  "edge_delta", "errors")


@dataclass
class ScoreResult:
    """Everything scoring-spec §3 lists. Ids are node ids; edges are lists [src, dst] (or
    [src, port, dst] when port-aware).

    ``score`` builds the report (mapping, missing/extra nodes and edges, edge Δ, errors) lazily: on
    the first access to any of those fields, from the search result it keeps; the values are the
    same as if built at once. ``seconds`` is the time of the search and Δ, without the report."""

    delta: float
    theta: float
    profile: str
    options: dict
    exact: bool
    delta_lower: float  # the true Δ lies in [delta_lower, delta]; equal to delta when exact
    s: float
    s_exact: str
    n_reference: int
    n_generated: int
    mapping: list[MappedPair]
    missing_nodes: list[str]
    extra_nodes: list[str]
    matched_edges: list[list]
    missing_edges: list[list]
    extra_edges: list[list]
    edge_delta: float
    errors: dict
    warnings: list[str]
    search_nodes: int = 0
    seconds: float = 0.0

    def __getattr__(self, name: str):
        # only reached for a report field not built yet (a lazily made result)
        src = self.__dict__.get("_report_src")
        if src is None or name not in _REPORT_FIELDS:
            raise AttributeError(name)
        self.__dict__.update(_report(*src))
        # pop, not del: two threads may build the same report at once (a compare window's GUI
        # thread reads a task's reports while its worker does); the second found it gone: KeyError
        self.__dict__.pop("_report_src", None)
        return self.__dict__[name]

    def __getstate__(self):
        for name in _REPORT_FIELDS:  # a pickled result carries its report, not the flows
            getattr(self, name)
        return self.__dict__

    def to_dict(self) -> dict:
        return asdict(self)

    def json_value(self) -> dict:
        """What ``to_dict`` holds, for serialising at once (orjson with ``OPT_SERIALIZE_DATACLASS``
        writes the same bytes): the fields in order, not copied (``asdict`` copies every list
        and string of the report, seconds for a 100,000-node flow)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def pair_of(self, node_id: str, side: str = "reference") -> MappedPair | None:
        for p in self.mapping:
            if (p.reference if side == "reference" else p.generated) == node_id:
                return p
        return None


def delta_from_s(s: Fraction, n1: int, n2: int) -> Fraction:
    """Δ = 1 − S²/(|V'|·|V''|), exactly; 1 when either flow is empty."""
    if n1 == 0 or n2 == 0:
        return Fraction(1)
    return 1 - s * s / (n1 * n2)


def score(
    reference: Flow,
    generated: Flow,
    options: ScoreOptions = ScoreOptions(),
    *,
    syntax: SyntaxIssue | None = None,
    warm: Iterable[tuple[str, str]] = (),
    library=None,
    cancel=None,
    started: float | None = None,
    budget: Budget | None = None,
) -> ScoreResult:
    """Score ``generated`` against ``reference``. ``syntax``: the lenient reader's issue for the
    generated text, reported as the syntax error. ``warm``: (ref id, gen id) pairs of a previous
    mapping to start the search from. ``budget``: the Budget of the search (its stop time and
    cancel flag); without it, one is made of ``options.deadline`` counted from ``started`` (a
    ``time.perf_counter()``; default: this call, so it bounds the reduction of both flows too) and
    ``cancel`` (a ``matching.CancelToken`` or any object with ``is_set()``, set from another
    thread). A search the budget stops gives a deadline-cut result (not exact, Δ an upper
    bound)."""
    if budget is None:
        budget = Budget.of(options.deadline, cancel, started=started)
    p1 = prepare(reference, options, library)
    p2 = prepare(generated, options, library)
    return score_prepared(p1, p2, options, syntax=syntax, warm=warm, budget=budget)


def score_prepared(
    p1: Prepared,
    p2: Prepared,
    options: ScoreOptions = ScoreOptions(),
    *,
    syntax: SyntaxIssue | None = None,
    warm: Iterable[tuple[str, str]] = (),
    cancel=None,
    budget: Budget | None = None,
) -> ScoreResult:
    """``score`` on flows already reduced by ``prepare`` with the same options; ``budget`` (or,
    without it, ``options.deadline`` from this call and ``cancel``) as ``score`` takes it."""
    if budget is None:
        budget = Budget.of(options.deadline, cancel)
    t0 = time.perf_counter()
    g1, g2 = p1.graph, p2.graph
    warm_idx = []
    if warm:
        i1 = {k: i for i, k in enumerate(g1.ids)}
        i2 = {k: i for i, k in enumerate(g2.ids)}
        warm_idx = [(i1[a], i2[b]) for a, b in warm if a in i1 and b in i2]
    m: Match = max_common_subgraph(g1, g2, options.profile, warm=warm_idx, budget=budget)
    delta, theta = _delta_of(m.weight, g1.n, g2.n)
    delta_lower = _delta_of(m.upper, g1.n, g2.n)[0] if not m.exact else delta
    warnings = [f"reference: {w}" for w in p1.warnings] + [f"generated: {w}" for w in p2.warnings]
    if not m.exact:
        why = ("was cancelled" if m.cancelled else "stopped at its deadline" if options.deadline is None
               else f"stopped at the {options.deadline:g} s deadline")
        warnings.append(
            f"search {why}: Δ is an upper bound, the exact value lies in "
            f"[{delta_lower:.6f}, {delta:.6f}]"
        )
    num, den = m.weight
    r = ScoreResult.__new__(ScoreResult)
    r.__dict__.update(
        delta=delta,
        theta=theta,
        profile=options.profile.name,
        options=options.to_dict(),
        exact=m.exact,
        delta_lower=delta_lower,
        s=num / den,
        s_exact=f"{num}/{den}" if den != 1 else str(num),
        n_reference=g1.n,
        n_generated=g2.n,
        warnings=warnings,
        search_nodes=m.nodes,
        _report_src=(p1, p2, m, options.profile, syntax),
    )
    r.seconds = time.perf_counter() - t0
    return r


def vertex_count(flow: Flow, options: ScoreOptions = ScoreOptions()) -> int:
    """|V| of ``flow`` as ``prepare`` counts it (first node of each id, ignored types left out),
    without reducing it."""
    ignored = options.ignore_types
    if not ignored:
        return len({n.data["id"] for n in flow.nodes})
    seen: dict[str, bool] = {}
    for n in flow.nodes:
        seen.setdefault(n.data["id"], n.data["type"] not in ignored)
    return sum(seen.values())


def unsearched(n1: int | None, n2: int | None, options: ScoreOptions, why: str) -> ScoreResult:
    """The result when no search ran (``why``: one clause, e.g. the deadline passed while the
    flows were reduced): S = 0 found, S ≤ min(|V'|, |V''|) proven (w ≤ 1 per pair), so Δ = 1 and
    the true Δ lies in [1 − min²/(|V'|·|V''|), 1]; exact only when a flow is empty. With the sizes
    unknown (None: the flows were not read yet) the interval is [0, 1]. The report fields
    (mapping, nodes, edges, edge Δ, errors) are None: not built."""
    if n1 is None or n2 is None:
        delta, theta, lower = 1.0, 0.0, 0.0
    else:
        delta, theta = _delta_of((0, 1), n1, n2)
        lower = _delta_of((min(n1, n2), 1), n1, n2)[0]
    exact = lower == delta
    r = ScoreResult.__new__(ScoreResult)
    r.__dict__.update(
        delta=delta, theta=theta, profile=options.profile.name, options=options.to_dict(), exact=exact,
        delta_lower=lower, s=0.0, s_exact="0", n_reference=n1, n_generated=n2,
        warnings=[] if exact else [f"no search ran ({why}): Δ is an upper bound, the exact value lies in "
                                   f"[{lower:.6f}, {delta:.6f}]; no mapping or report was made"],
        search_nodes=0, seconds=0.0, **{name: None for name in _REPORT_FIELDS})
    return r


def _delta_of(s: tuple[int, int], n1: int, n2: int) -> tuple[float, float]:
    """(Δ, θ) as floats for S = num/den, both the correctly rounded value of the exact fraction
    (``float(delta_from_s(...))`` and ``float(1 - delta_from_s(...))``): integer true division
    rounds correctly, so no Fraction is needed."""
    if n1 == 0 or n2 == 0:
        return 1.0, 0.0
    num, den = s
    total = den * den * n1 * n2
    sq = num * num
    return (total - sq) / total, sq / total


def _report(p1: Prepared, p2: Prepared, m: Match, profile: profiles.Profile, syntax) -> dict:
    """The report fields of a ScoreResult (see ``_REPORT_FIELDS``) from a search result."""
    g1, g2 = p1.graph, p2.graph
    mapping = []
    phi = {}
    for u, v, (num, den) in m.pairs:
        a, b = g1.ids[u], g2.ids[v]
        phi[a] = b
        mapping.append(
            MappedPair(a, b, num / den, f"{num}/{den}", differing_keys(g1.sigs[u], g2.sigs[v], profile))
        )
    mapped_gen = set(phi.values())
    missing_nodes = [k for k in g1.ids if k not in phi]
    extra_nodes = [k for k in g2.ids if k not in mapped_gen]
    matched, missing_edges = [], []
    if phi:
        edges2 = p2.edges
        for e in sorted(p1.edges, key=str):
            image = _image(e, phi)
            if image is not None and image in edges2:
                matched.append([list(e), list(image)])
            else:
                missing_edges.append(list(e))
    else:  # no mapping: every edge is missing
        missing_edges = [list(e) for e in sorted(p1.edges, key=str)]
    hit = {tuple(pair[1]) for pair in matched}
    extra_edges = [list(e) for e in sorted(p2.edges, key=str) if e not in hit]
    ne1, ne2 = len(p1.edges), len(p2.edges)
    edge_delta = 1.0 if ne1 == 0 or ne2 == 0 else float(1 - Fraction(len(matched) ** 2, ne1 * ne2))
    function_errors = [
        {"kind": "attributes", "reference": p.reference, "generated": p.generated, "w": p.w, "keys": p.differing_keys}
        for p in mapping
        if p.w < 1
    ]
    function_errors += [{"kind": "missing-node", "reference": k} for k in missing_nodes]
    function_errors += [{"kind": "extra-node", "generated": k} for k in extra_nodes]
    dataflow_errors = [{"kind": "missing-edge", "edge": e} for e in missing_edges]
    dataflow_errors += [{"kind": "extra-edge", "edge": e} for e in extra_edges]
    return dict(
        mapping=mapping,
        missing_nodes=missing_nodes,
        extra_nodes=extra_nodes,
        matched_edges=matched,
        missing_edges=missing_edges,
        extra_edges=extra_edges,
        edge_delta=edge_delta,
        errors={
            "syntax": syntax.to_dict() if syntax is not None else None,
            "function": function_errors,
            "dataflow": dataflow_errors,
        },
    )


def _image(edge: tuple, phi: dict[str, str]) -> tuple | None:
    if edge[0] not in phi or edge[-1] not in phi:
        return None
    if len(edge) == 3:
        return (phi[edge[0]], edge[1], phi[edge[2]])
    return (phi[edge[0]], phi[edge[1]])


def delta_of_values(reference, generated, options: ScoreOptions = ScoreOptions()) -> float:
    """Δ of two parsed flows (JSON values, as ``flow.flow_from_value`` takes them): exactly
    ``score(flow_from_value(reference), flow_from_value(generated), options).delta``, and the same
    FlowError for a value that is not a flow. A profile with a one-call Δ (``Profile.delta_of_values``:
    the companion's, in C when the native search is in use) takes it when no other option is set,
    without building the flows, their reduction or a report; everything else takes ``score``."""
    if (not options.ignore_types and not options.fill_defaults and options.deadline is None
            and not options.port_aware):
        one_call = options.profile.delta_of_values
        # (the C call returns None itself when GINDEX_PURE_PYTHON asks for the Python searches:
        # native.available's os.environ lookup would cost more than the call)
        if one_call is not None:
            d = one_call(reference, generated)
            if d is not None:
                return d
    return score(flow_from_value(reference), flow_from_value(generated), options).delta


def delta_of_files(reference: str | Path, generated: str | Path, options: ScoreOptions = ScoreOptions()) -> float:
    """``delta_of_values`` of two flow files read strictly (as ``flow.read_flow_file`` reads them:
    the same values and the same FlowError, naming the file)."""
    values = [_read_json_file(reference), _read_json_file(generated)]
    for path, value in zip((reference, generated), values):
        if _entries_without_node(value):  # read_flow_file's refusal of [1, 2, 3]
            raise FlowError(f"{Path(path)}: {no_node_reason(flow_from_value(value))}")
    try:
        return delta_of_values(values[0], values[1], options)
    except FlowError as e:
        raise FlowError(f"{Path(reference if _not_a_flow(values[0]) else generated)}: {e}") from None


def _read_json_file(path):
    """The JSON value of a file as ``read_flow_file`` parses it; FlowError naming the file when it
    cannot be read or is not JSON."""
    data = None
    if not isinstance(path, int):  # (open() would take an int as a file descriptor)
        try:  # the fewest system calls: open, fstat, read, close
            fd = _os.open(path, _os.O_RDONLY)
        except (OSError, TypeError, ValueError):
            pass
        else:
            try:
                size = _os.fstat(fd).st_size
                data = _os.read(fd, size + 1)
                if len(data) != size:  # grown or shrunk since fstat, or a size it does not know: to the end
                    parts = [data]
                    while part := _os.read(fd, 1 << 16):
                        parts.append(part)
                    data = b"".join(parts)
            except OSError:
                data = None
            finally:
                _os.close(fd)
    if data is None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except (OSError, TypeError, ValueError):
            data = read_user_file(path)  # its one-line error (missing, a folder, unreadable)
    try:
        return loads_json(data)
    except ValueError as e:
        raise FlowError(f"{Path(path)}: {json_problem(e)}") from None


def _entries_without_node(value) -> bool:
    """Whether a parsed flow holds entries and not one node (stops at the first node)."""
    items = value
    if isinstance(value, dict):
        items = value.get("flow") if isinstance(value.get("flow"), list) else value.get("flows")
    if not isinstance(items, list) or not items:
        return False
    return not any(isinstance(e, dict) and isinstance(e.get("id"), str) and isinstance(e.get("type"), str)
                   for e in items)


def _not_a_flow(value) -> bool:
    try:
        flow_from_value(value)
        return False
    except FlowError:
        return True


def delta(reference: Flow, generated: Flow, options: ScoreOptions = ScoreOptions()) -> float:
    """Just Δ (see ``score``)."""
    return score(reference, generated, options).delta
