"""Exact maximum-weight common subgraph search (the clique C* of scoring-spec §3, step 3).

The profile (``profiles.Profile``) says which search runs: its own (``Profile.search``), else one
of two generic searches, both exact, both anytime (a deadline returns the best mapping found and a
proven upper bound):

- ``adjacency`` "and" (the paper profile): the association graph of Eq. 11/12 is never built. The search works on the two
  graphs directly, McSplit-style (McCreesh, Prosser & Trimble, IJCAI 2017), extended to weights:
  unmatched vertices are partitioned into label classes (L, R) — same node type, same self-loop
  flag, same relation (none / out / in / both, per output port when port-aware) to every pair
  matched so far, which is exactly Eq. 12. The bound of a class is the smaller of the sums of the
  k = min(|L|, |R|) best weights available to each side. Branch on the class with the smallest
  max(|L|, |R|), on its highest-degree vertex, trying partners by descending w and "leave
  unmatched" last. Vertex sets are Python ints used as bitsets.
- ``adjacency`` "or" (the companion profile): its adjacency (the two brackets of Eq. 12 joined by *or*) is not an
  equivalence, so classes do not exist; a branch-and-bound clique search over the association
  vertices is used, bounded per node type by the maximum-weight assignment of the pairs still
  possible (a clique is such an assignment, and the *or* adjacency rarely excludes more).

Weights are exact: every w = m/k is scaled by the least common multiple D of the denominators, so
the search adds and compares integers and S = best / D is exact.

Both searches run in C when the optional extension is built (``native``: ``pip install`` compiles
it when a C compiler is present): the same search trees, so the same S, node count and bounds,
20-1000x faster. The node weights of all pairs (``_weights``), the quick bound and the signatures
(``similarity.signatures``) are then computed in C too, with the same values, for a profile whose
weights a C kernel computes (``Profile.native_rule``). ``_McSplit`` and ``_CliqueSearch`` below are the reference
implementations and the fallback: used when the extension is missing, when a scaled weight total
reaches 2^62 (the C searches add 64-bit integers), or when the environment variable
``GINDEX_PURE_PYTHON`` is set (not "0").

Deadline and cancel: one ``Budget`` (``core.support.budget``: an absolute stop time and a cancel
flag), given as ``budget=`` and passed down unchanged to the C search; ``deadline=`` (seconds from
the call) and ``cancel=`` (a ``CancelToken``, or any object with ``is_set()`` such as a
``threading.Event``) are converted into one at the top of ``max_common_subgraph``. The stop time
bounds the weights and the search together. Both are checked every 128 search nodes and a
cancelled search returns like a deadline-cut one: the best mapping found, ``exact=False``, the
proven bound, and ``cancelled=True``. The C search runs without the GIL and reads the Budget's
one-byte flag directly; another ``cancel`` object is polled with the GIL every 4096 nodes.
"""
from __future__ import annotations

import math
import threading
from array import array
from itertools import chain
from dataclasses import replace
from typing import Iterable, Sequence

from gindex_studio.core import native
from gindex_studio.core.support import profiles
from gindex_studio.core.support.budget import Budget, CancelFlag
from gindex_studio.core.support.profiles import Profile, SearchPlan
from gindex_studio.core.scoring.search_base import (
    BranchAndBound,
    Match,
    consistent_subset,
    found_match,
    frac,
    none_beats,
    pair_ok,
    threshold_floor,
    threshold_pair,
)
from gindex_studio.core.scoring.similarity import Signature

__all__ = ["CancelToken", "Graph", "Match", "build_graph", "consistent_subset", "max_common_subgraph",
           "max_assignment", "native_search_available"]

_NATIVE_LIMIT = 1 << 62  # the C search adds weights in 64-bit integers

native_search_available = native.available  # True when the searches will run in C


#: the cancel flag of a Budget (kept by this name: callers make one and pass it as ``cancel=``)
CancelToken = CancelFlag


class Graph:
    """A flow reduced for matching. Vertices are 0..n-1 in the order of ``ids``.

    ``adj_out[u]`` / ``adj_in[u]``: for each relation key (output port, or 0 when ports are
    ignored) the bitset of targets of u / sources into u. ``selfloop[u]``: the set of ports of
    u's self-loops (empty when none).

    A large flow is kept sparse: built with ``adj_out = adj_in = None`` and ``edges`` (the flat
    ``array('i')`` of ``edge_array``), its bitsets are made only when something reads them (they
    cost n² bits for a chain); the native search and the report read ``edge_array`` instead.
    """

    def __init__(self, ids: list[str], sigs: list[Signature], adj_out: list[dict[int, int]] | None,
                 adj_in: list[dict[int, int]] | None, selfloop: list[frozenset], n_edges: int, edges=None):
        if adj_out is None and edges is None:
            raise ValueError("Graph: bitsets or an edge array are needed")
        self.ids = ids
        self.sigs = sigs
        self._adj_out = adj_out
        self._adj_in = adj_in
        self.selfloop = selfloop
        self.n_edges = n_edges
        self._edges = edges

    @property
    def adj_out(self) -> list[dict[int, int]]:
        if self._adj_out is None:
            self._adj_out, self._adj_in = _bitsets(self.n, self._edges)
        return self._adj_out

    @property
    def adj_in(self) -> list[dict[int, int]]:
        if self._adj_in is None:
            self._adj_out, self._adj_in = _bitsets(self.n, self._edges)
        return self._adj_in

    @property
    def sparse(self) -> bool:
        """True while the bitsets are not built (the searches then take ``edge_array``)."""
        return self._adj_out is None

    def edge_array(self):
        """The edges as a flat ``array('i')`` of (src, key, dst) triples, sorted, each once
        (computed once from the bitsets when the graph was built with them)."""
        e = self._edges
        if e is None:
            e = array("i")
            for u, ports in enumerate(self._adj_out):
                for p in sorted(ports):
                    m = ports[p]
                    while m:
                        low = m & -m
                        e.extend((u, p, low.bit_length() - 1))
                        m ^= low
            self._edges = e
        return e

    def __eq__(self, other):
        if not isinstance(other, Graph):
            return NotImplemented
        return ((self.ids, self.sigs, self.selfloop, self.n_edges) == (other.ids, other.sigs, other.selfloop, other.n_edges)
                and self.edge_array() == other.edge_array())

    __hash__ = None

    def __repr__(self) -> str:
        return f"Graph(n={self.n}, edges={self.n_edges}{', sparse' if self.sparse else ''})"

    @property
    def n(self) -> int:
        return len(self.ids)

    def by_type(self) -> dict[str, list[int]]:
        """Node type → its vertices in order (computed once; a Graph is not changed after it is built)."""
        bt = self.__dict__.get("_by_type")
        if bt is None:
            bt = {}
            for v, s in enumerate(self.sigs):
                bt.setdefault(s.type, []).append(v)
            self.__dict__["_by_type"] = bt
        return bt

    def columns(self) -> tuple[list, list, list]:
        """(types, values, self_equal) of the signatures, one list each (computed once)."""
        cols = self.__dict__.get("_columns")
        if cols is None:
            sigs = self.sigs
            cols = self.__dict__["_columns"] = ([s.type for s in sigs], [s.values for s in sigs],
                                                [s.self_equal for s in sigs])
        return cols

    def groups(self) -> tuple[list[int], list[tuple]]:
        """(group of each vertex, the groups' keys (type, self-loop ports) in order of first
        occurrence); computed once."""
        gr = self.__dict__.get("_groups")
        if gr is None:
            ids: dict[tuple, int] = {}
            gr = self.__dict__["_groups"] = ([ids.setdefault((s.type, self.selfloop[u]), len(ids))
                                               for u, s in enumerate(self.sigs)], list(ids))
        return gr

    def has_edge(self, u: int, v: int) -> frozenset:
        """Ports of the edges u→v (empty frozenset when there is none)."""
        return frozenset(p for p, m in self.adj_out[u].items() if (m >> v) & 1)


def build_graph(ids: Sequence[str], sigs: Sequence[Signature], edges: Iterable[tuple[int, int, int]]) -> Graph:
    """Graph from vertex ids, signatures and edges ``(src, port, dst)`` as vertex indices."""
    n = len(ids)
    out: list[dict[int, int]] = [dict() for _ in range(n)]
    inn: list[dict[int, int]] = [dict() for _ in range(n)]
    loops: list[set] = [set() for _ in range(n)]
    seen = set()
    for s, p, d in edges:
        if (s, p, d) in seen:
            continue
        seen.add((s, p, d))
        if s == d:
            loops[s].add(p)
        out[s][p] = out[s].get(p, 0) | (1 << d)
        inn[d][p] = inn[d].get(p, 0) | (1 << s)
    return Graph(list(ids), list(sigs), out, inn, [frozenset(x) for x in loops], len(seen))


def sparse_graph(ids: list[str], sigs: list[Signature], edges: Iterable[tuple[int, int, int]],
                 selfloop: list[frozenset]) -> Graph:
    """A sparse Graph (see ``Graph``) from edges ``(src, key, dst)`` (a repeated edge counts once)."""
    flat = array("i", chain.from_iterable(sorted(set(edges))))
    return Graph(ids, sigs, None, None, selfloop, len(flat) // 3, flat)


def _bitsets(n: int, edges) -> tuple[list[dict[int, int]], list[dict[int, int]]]:
    """(adj_out, adj_in) of a sparse Graph's edge array."""
    out: list[dict[int, int]] = [{} for _ in range(n)]
    inn: list[dict[int, int]] = [{} for _ in range(n)]
    for i in range(0, len(edges), 3):
        s, p, d = edges[i], edges[i + 1], edges[i + 2]
        a = out[s]
        a[p] = a.get(p, 0) | (1 << d)
        a = inn[d]
        a[p] = a.get(p, 0) | (1 << s)
    return out, inn


def _weights(g1: Graph, g2: Graph, profile, loops_must_agree: bool):
    """Association vertices with w > 0: ``raw`` {(u, v): (num, den)}, ``w`` {(u, v): w·D} and the
    scale D (least common multiple of the denominators). The profile's weight on pairs of equal
    type only (the same values as ``similarity`` on every pair); in C (``native.weights``) for a
    profile with a ``native_rule`` when the native search is in use."""
    return _weights_full(g1, g2, profiles.get(profile), loops_must_agree)[:3]


def _weights_full(g1: Graph, g2: Graph, prof: Profile, loops_must_agree: bool, use_native: bool | None = None,
                  prune: tuple[int, int] | None = None):
    """``_weights`` and (quick, total): ``_quick_bound`` and Σ w when C computed them, else None.
    ``native``: ``native_search_available()`` when the caller has just asked it. ``prune``: integers
    (tn, td), td > 0, tn >= 0: when C finds quick <= isqrt(floor(tn·D²/td)) it builds no dict and
    raw and w are None (only C does this; the caller checks the same condition itself otherwise)."""
    prof = profiles.get(prof)  # (a name is taken too)
    if use_native is None:
        use_native = native.available()
    if prof.native_rule is not None and use_native:
        types1, vals1, _se = g1.columns()
        _t2, vals2, _se2 = g2.columns()
        loops = (g1.selfloop, g2.selfloop) if loops_must_agree else (None, None)
        raw, w, scale, quick, total = native.weights(
            types1, vals1, loops[0], g2.by_type(), vals2, loops[1], companion=native.kernel_flag(prof.native_rule),
            self_equal1=_se, threshold=prune)
        if raw is None or w is not None:
            return raw, w, scale, quick, total
        return (raw, *_scaled(raw), None, None)
    raw = _python_weights(g1, g2, prof, loops_must_agree)
    return (raw, *_scaled(raw), None, None)


def _python_weights(g1: Graph, g2: Graph, prof: Profile, loops_must_agree: bool) -> dict:
    """{(u, v): (num, den)} for w > 0, in Python (the profile's weight on pairs of equal type)."""
    raw: dict[tuple[int, int], tuple[int, int]] = {}
    by_type = g2.by_type()
    sigs2 = g2.sigs
    loops1, loops2 = g1.selfloop, g2.selfloop
    weight = prof.weight
    for u, su in enumerate(g1.sigs):
        vs = by_type.get(su.type)
        if vs is None:
            continue
        lu = loops1[u]
        for v in vs:
            if loops_must_agree and lu != loops2[v]:
                continue
            num, den = weight(su, sigs2[v])
            if num > 0:
                raw[(u, v)] = (num, den)
    return raw


def _scaled(raw: dict) -> tuple[dict, int]:
    """(w·D per pair, D) for exact weights {(u, v): (num, den)}: D the lcm of the denominators."""
    scale = 1
    for den in {den for _num, den in raw.values()}:
        scale = scale * den // math.gcd(scale, den)
    return {k: num * (scale // den) for k, (num, den) in raw.items()}, scale


def max_common_subgraph(
    g1: Graph,
    g2: Graph,
    profile=None,
    *,
    deadline: float | None = None,
    warm: Iterable[tuple[int, int]] = (),
    threshold: tuple[int, int] | None = None,
    threshold_sq=None,
    cancel=None,
    counts=None,
    budget: Budget | None = None,
) -> Match:
    """Find the mapping of maximum total weight S (exact unless ``deadline`` seconds run out)
    under ``profile`` (a ``profiles.Profile``, a name, or None: the default), searching as its
    ``search_plan()`` says.

    ``warm``: pairs of a previous mapping, used as the first incumbent where still valid.
    ``threshold``: only a mapping with S strictly greater than this fraction (num, den) is of
    interest; ``threshold_sq``: likewise for S² > this Fraction, or integers (num, den) with
    den > 0 (exact, used by Ω: Δ < best ⇔ S² > (1 − best)·|V'|·|V''|). When none exists the result has ``improved=False``.
    ``cancel``: a ``CancelToken`` (or any object with ``is_set()``); once set, the search stops
    within 128 search nodes and returns as if its deadline had passed, with ``cancelled=True``.
    ``budget``: a ``Budget`` instead of ``deadline`` and ``cancel`` (``Budget.of`` converts them
    when it is None); its one stop time bounds the weights and the search.
    Searches with ``threshold_sq`` alone (Ω's) race both orientations when the plan ``races``
    (``_raced``).
    ``counts``: (rows, local), the ``native.UNION_JSON`` weights precomputed for g1 against the
    signatures g2 is made of (``Curriculum.task_counts`` and ``program_counts``; rows[u]: int64
    (num, den) pairs of g1's vertex u against each signature of its type, local: int32 bytes, per
    g2 vertex its signature's index there), used by the native search instead of comparing the
    nodes' values; the same weights.
    """
    prof = profiles.get(profile)
    if budget is None:
        budget = Budget.of(deadline, cancel)
    if counts is not None and prof.native_rule != native.UNION_JSON:
        counts = None
    if threshold_sq is not None and threshold is None and not warm and prof.search_plan().races:
        return _raced(g1, g2, prof, threshold_sq, budget, counts)
    return _search_once(g1, g2, prof, budget, warm, threshold, threshold_sq,
                        counts=None if counts is None else (*counts, True))


# the race of the two orientations: the first node budget of each, and its growth per round
_RACE_NODES = 1000
_RACE_GROWTH = 16


def _raced(g1: Graph, g2: Graph, prof: Profile, threshold_sq, budget: Budget, counts=None) -> Match:
    """``max_common_subgraph`` of a profile whose plan ``races``, with ``threshold_sq``. McSplit branches on the
    first graph's vertices, and which graph that is can change the tree by orders of magnitude
    either way (300× and more on pairs of the Ω bench). So the two orientations run in turn under
    node budgets growing geometrically (``_RACE_NODES``, ×``_RACE_GROWTH``) until one finishes: S
    is symmetric, so the result is exact as either alone, at a small multiple of the better
    orientation's cost. The best mapping an attempt finds is the next attempts' floor (they
    need only beat it, and prune what cannot): an attempt that finishes without beating it
    proves it the maximum. ``nodes`` counts every attempt. A search ``budget`` stops (every
    attempt has the same one) returns the best mapping any attempt found and the least upper
    bound any attempt proved."""
    node_budget, nodes, best, upper = _RACE_NODES, 0, None, None
    floor = threshold_sq
    whole = _native_whole(prof.search_plan())
    while True:
        for swap in (False, True):
            a, b, task_first = (g2, g1, False) if swap else (g1, g2, True)
            m = _race_attempt(a, b, prof, whole, floor, budget, node_budget,
                              None if counts is None else (*counts, task_first))
            if swap:
                m = _transposed(m)
            nodes += m.nodes
            if m.exact:
                if best is None or m.improved:  # (most races end in their first attempt: no copy then)
                    return m if nodes == m.nodes else replace(m, nodes=nodes)
                return replace(best, upper=best.weight, exact=True, nodes=nodes, cancelled=False)
            # what this attempt proved: its bound, or the floor it was asked to beat (pruned below it)
            bound = m.upper if best is None or _frac_lt(best.weight, m.upper) else best.weight
            if m.improved:
                best = m
                floor = (m.weight[0] * m.weight[0], m.weight[1] * m.weight[1])
            if upper is None or _frac_lt(bound, upper):
                upper = bound
            if m.nodes <= node_budget:  # stopped by the deadline or cancel, not by the node budget
                if best is None:
                    return replace(m, upper=upper, nodes=nodes)
                return replace(best, upper=upper, exact=False, nodes=nodes, cancelled=m.cancelled)
        node_budget *= _RACE_GROWTH


def _frac_lt(x: tuple[int, int], y: tuple[int, int]) -> bool:
    """x < y for fractions (num, den) with den > 0."""
    return x[0] * y[1] < y[0] * x[1]


def _race_attempt(g1: Graph, g2: Graph, prof: Profile, whole: bool, threshold_sq, budget: Budget,
                  node_limit: int, counts) -> Match:
    """One attempt of ``_raced``: ``_search_once`` with g1 branching, straight to its one C call
    (``_solved_natively``) when ``whole`` (``_native_whole``, decided once per race)."""
    m = _solved_natively(g1, g2, threshold_sq, budget, node_limit, counts) if whole else None
    if m is None:
        m = _search_once(g1, g2, prof, budget, (), None, threshold_sq, node_limit, counts)
    return m


def _transposed(m: Match) -> Match:
    """``m`` of (g2, g1) as a Match of (g1, g2)."""
    return replace(m, pairs=sorted((v, u, w) for u, v, w in m.pairs))


def _search_once(g1: Graph, g2: Graph, prof: Profile, budget: Budget | None, warm, threshold, threshold_sq,
                 node_limit: int = 0, counts=None) -> Match:
    """``max_common_subgraph`` with g1's vertices as the branching side (``budget`` None: nothing
    stops it but ``node_limit``); ``node_limit`` > 0
    (McSplit) cuts the search as a deadline would when it would visit node ``node_limit`` + 1.
    ``counts``: (rows, local, task_first) for the native search (see ``max_common_subgraph``;
    task_first: rows are g1's, else g2's)."""
    prof = profiles.get(prof)
    plan = prof.search_plan()
    if plan.own is not None:  # the profile's own search; None: not for it, use the generic one
        m = plan.own(g1, g2, warm=warm, threshold=threshold, threshold_sq=threshold_sq, budget=budget)
        if m is not None:
            return m
    use_native = native.available()
    mode = plan.adjacency
    if not warm and threshold is None and _native_whole(plan):
        m = _solved_natively(g1, g2, threshold_sq, budget, node_limit, counts)
        if m is not None:
            return m
    prune = None
    if threshold_sq is not None and threshold is None and not warm:
        # Ω's case: C checks the quick bound against the threshold before building any dict
        prune = threshold_pair(threshold_sq)
        if prune[0] < 0:
            prune = None
    raw, w, scale, quick, total = _weights_full(g1, g2, prof, prof.self_loops_agree, use_native, prune)
    if raw is None:  # pruned in C: the same result as the quick-bound test below
        return none_beats(quick, scale)
    warm_pairs = consistent_subset(g1, g2, warm, w, mode)
    warm_best = sum(w[p] for p in warm_pairs) if warm_pairs else -1
    # the search looks for S*D strictly above ``floor`` (an integer)
    t_floor = threshold_floor(threshold, threshold_sq, scale)
    floor = max(warm_best, t_floor)
    if t_floor >= 0 and not warm_pairs:
        if quick is None:
            quick = _quick_bound(g1, g2, w)
        if quick <= t_floor:  # nothing here can beat the threshold: skip building the search
            return none_beats(quick, scale)
    in_c = (use_native and floor < _NATIVE_LIMIT
            and (total if total is not None else sum(w.values())) < _NATIVE_LIMIT)
    if mode == "or":
        search = _NativeCliqueSearch(g1, g2, w) if in_c else _CliqueSearch(g1, g2, w, scale, budget)
    elif in_c:
        search = _NativeMcSplit(g1, g2, w, scale)
    else:
        search = _McSplit(g1, g2, w, scale)
    if mode == "or":
        run = search.run(floor, budget)
    else:
        run = search.run(floor, budget, node_limit)
    return found_match(run, warm_best, warm_pairs, t_floor, scale, lambda u, v: raw[(u, v)], budget)


def _native_whole(plan: SearchPlan) -> bool:
    """True when ``_solved_natively`` can search under ``plan`` (one C call does the weights and
    the search): its ``one_call_rule`` is ``native.UNION_JSON``, the one ``native.solve`` has, and
    the native search is in use."""
    return plan.one_call_rule == native.UNION_JSON and native.solve is not None and native.available()


def _solved_natively(g1: Graph, g2: Graph, threshold_sq, budget: Budget | None,
                     node_limit: int = 0, counts=None) -> Match | None:
    """``max_common_subgraph`` for a profile of ``native.UNION_JSON`` weights, self-loops that agree
    and "and" adjacency, without warm start or ``threshold``, in one C call (``native.solve``: the weights without their dicts, the group ids and the search): the
    same Match as the steps below take. None when C leaves it to them (a total reaching 2^62)."""
    thr = None
    if threshold_sq is not None:
        thr = threshold_pair(threshold_sq)
        if thr[0] < 0:
            thr = None
    types1, vals1, se1 = g1.columns()
    types2, vals2, _se2 = g2.columns()
    (out1, in1), (out2, in2) = _native_adj(g1), _native_adj(g2)
    got = native.solve(types1=types1, vals1=vals1, loops1=g1.selfloop, by_type2=g2.by_type(), vals2=vals2,
                       loops2=g2.selfloop, self_equal1=se1, types2=types2, adj_out1=out1, adj_in1=in1,
                       adj_out2=out2, adj_in2=in2, threshold=thr, table=counts, budget=budget,
                       check_signals=_on_main_thread(), node_limit=node_limit)
    if got is None:
        return None
    if len(got) == 2:  # the quick bound proves nothing beats the threshold
        scale, quick = got
        return none_beats(quick, scale)
    scale, t_floor, best, pairs, upper, exact, nodes = got
    if pairs is None:  # nothing beat the floor
        best, pairs = 0, []
    elif pairs:
        pairs = [(u, v, (num, den)) for u, v, num, den in sorted(pairs)]
    cancelled = not exact and budget is not None and budget.cancelled()
    return Match(pairs, frac(best, scale), frac(max(upper, best), scale), exact, nodes, best > t_floor, cancelled)


def _on_main_thread() -> bool:
    """True on the main thread (where the C searches run Python's signal handlers: Ctrl-C)."""
    return threading.main_thread() is threading.current_thread()


def _quick_bound(g1: Graph, g2: Graph, w: dict) -> int:
    """Σ over node types of min(Σ best w of each ref node, Σ best w of each generated node)."""
    best1: dict[int, int] = {}
    best2: dict[int, int] = {}
    for (u, v), wt in w.items():
        if wt > best1.get(u, 0):
            best1[u] = wt
        if wt > best2.get(v, 0):
            best2[v] = wt
    by_type1: dict[str, int] = {}
    by_type2: dict[str, int] = {}
    for u, wt in best1.items():
        t = g1.sigs[u].type
        by_type1[t] = by_type1.get(t, 0) + wt
    for v, wt in best2.items():
        t = g2.sigs[v].type
        by_type2[t] = by_type2.get(t, 0) + wt
    return sum(min(x, by_type2.get(t, 0)) for t, x in by_type1.items())


def _symmetry_side(partners: list, out: list, inn: list, nb: list, group: list) -> tuple[list[int], list[int]]:
    """Per vertex of one side: rc, the first vertex with the same partner list (the same weight
    to every vertex of the other side), and tw, the first twin (the same partner list and group,
    not adjacent, the same relations to every other vertex that has a partner).

    Symmetry, exact: two vertices are interchangeable at a search node when they lie in one class
    (the same relation to every matched vertex), have the same rc, are not adjacent and relate
    alike to every vertex left to match; swapping them maps any completion to one of the same S.
    ``_McSplit`` uses twins, and vertices with no neighbour left to match at all: a partner of
    the branch vertex is skipped when an interchangeable one comes before it in its list and is
    still in R; "leave u unmatched" leaves every vertex of L interchangeable with u unmatched too
    (a completion matching one matches u instead, by the swap). The native search does the same."""
    n = len(partners)
    kept = 0
    for x in range(n):
        if partners[x]:
            kept |= 1 << x
    rc, tw = list(range(n)), list(range(n))
    for y in range(n):
        for x in range(y):
            if rc[x] == x and partners[x] == partners[y]:
                rc[y] = x
                break
        if not partners[y]:
            continue
        for x in range(y):
            if tw[x] != x or rc[x] != rc[y] or group[x] != group[y] or (nb[x] >> y) & 1 or (nb[y] >> x) & 1:
                continue
            mask = kept & ~((1 << x) | (1 << y))
            if all(((a.get(p, 0) ^ b.get(p, 0)) & mask) == 0 for a, b in ((out[x], out[y]), (inn[x], inn[y]))
                   for p in a.keys() | b.keys()):
                tw[y] = x
                break
    return rc, tw


class _McSplit(BranchAndBound):
    """Weighted McSplit on the two graphs ("and" adjacency)."""

    def __init__(self, g1: Graph, g2: Graph, w: dict, scale: int):
        n1, n2 = g1.n, g2.n
        # relabel ref vertices by descending degree so that the lowest set bit is the branch vertex
        deg = [sum(m.bit_count() for m in g1.adj_out[u].values()) + sum(m.bit_count() for m in g1.adj_in[u].values()) for u in range(n1)]
        order = sorted(range(n1), key=lambda u: (-deg[u], u))
        self.pos = pos = {u: i for i, u in enumerate(order)}
        self.order = order
        remap = lambda m: _remap_bits(m, pos)
        self.out1 = [{p: remap(m) for p, m in g1.adj_out[u].items()} for u in order]
        self.in1 = [{p: remap(m) for p, m in g1.adj_in[u].items()} for u in order]
        self.out2 = g2.adj_out
        self.in2 = g2.adj_in
        self.nb1 = [_or(self.out1[i].values()) | _or(self.in1[i].values()) for i in range(n1)]
        self.nb2 = [_or(g2.adj_out[v].values()) | _or(g2.adj_in[v].values()) for v in range(n2)]
        p1: list[list[tuple[int, int]]] = [[] for _ in range(n1)]
        p2: list[list[tuple[int, int]]] = [[] for _ in range(n2)]
        for (u, v), wt in w.items():
            p1[pos[u]].append((wt, v))
            p2[v].append((wt, pos[u]))
        for lst in p1:
            lst.sort(key=lambda t: (-t[0], t[1]))
        for lst in p2:
            lst.sort(key=lambda t: (-t[0], t[1]))
        self.p1, self.p2 = p1, p2
        # initial classes: vertices grouped by (type, self-loop ports); only those with a partner
        groups: dict[tuple, list[int]] = {}
        for i, u in enumerate(order):
            if p1[i]:
                key = (g1.sigs[u].type, g1.selfloop[u])
                groups.setdefault(key, [0, 0])[0] |= 1 << i
        for v in range(n2):
            if p2[v]:
                key = (g2.sigs[v].type, g2.selfloop[v])
                if key in groups:
                    groups[key][1] |= 1 << v
        self.root = [c for c in (self._cls(L, R) for L, R in groups.values() if L and R) if c]
        key1 = [(g1.sigs[u].type, g1.selfloop[u]) for u in order]
        key2 = [(g2.sigs[v].type, g2.selfloop[v]) for v in range(n2)]
        self.rc1, self.tw1 = _symmetry_side(p1, self.out1, self.in1, self.nb1, key1)
        self.rc2, self.tw2 = _symmetry_side(p2, self.out2, self.in2, self.nb2, key2)

    def _cls(self, L: int, R: int):
        """A class tuple (L, R, bound, size) after dropping vertices without a partner inside."""
        bl, L = _best_partners(L, R, self.p1)
        if not bl:
            return None
        br, R = _best_partners(R, L, self.p2)
        nl, nr = len(bl), len(br)
        if nl <= nr:
            a = sum(bl)
            b = sum(sorted(br, reverse=True)[:nl]) if nr > nl else sum(br)
        else:
            a = sum(sorted(bl, reverse=True)[:nr])
            b = sum(br)
        return (L, R, min(a, b), max(nl, nr))

    def run(self, floor: int, budget: Budget | None = None, node_limit: int = 0):
        """(best, pairs or None, upper, exact, nodes); ``node_limit`` > 0 stops the search as its
        deadline would when it is about to visit node ``node_limit`` + 1."""
        self.start(floor, budget, node_limit)
        root_bound = sum(c[2] for c in self.root)
        exact = self.explore(self._search, self.root, 0, [])
        upper = self.proven(floor, exact)
        pairs = None
        if self.best_choice is not None:
            pairs = [(self.order[u], v) for u, v in self.best_choice]
        return self.best, pairs, min(upper, max(root_bound, self.best)), exact, self.nodes

    def _search(self, classes, cur: int, mapping: list):
        self.visit(cur, mapping)
        bound = cur + sum(c[2] for c in classes)
        if bound <= self.best or not classes:
            return
        self.frames.append(bound)
        ci = min(range(len(classes)), key=lambda i: classes[i][3])
        L, R, _b, _s = classes[ci]
        low = L & -L
        u = low.bit_length() - 1
        others = classes[:ci] + classes[ci + 1 :]
        out1, in1, nb1 = self.out1[u], self.in1[u], self.nb1[u]
        rem1 = rem2 = 0  # what is left to match
        for c in classes:
            rem1 |= c[0]
            rem2 |= c[1]
        rest = sum(c[2] for c in classes)  # optimistic: the branch class keeps its whole bound
        for k, (wt, v) in enumerate(self.p1[u]):
            if not (R >> v) & 1:
                continue
            if cur + wt + rest <= self.best:
                continue
            if self._mirror_of_earlier(u, k, v, R, rem2):
                continue
            out2, in2, nb2 = self.out2[v], self.in2[v], self.nb2[v]
            new = []
            for c in others:
                self._split_into(new, c[0], c[1], c, out1, in1, nb1, out2, in2, nb2)
            self._split_into(new, L ^ low, R & ~(1 << v), None, out1, in1, nb1, out2, in2, nb2)
            mapping.append((u, v))
            self._search(new, cur + wt, mapping)
            mapping.pop()
        # leave u unmatched, and every vertex of L interchangeable with u (see _symmetry_side)
        L2, tw1, rc1 = L ^ low, self.tw1, self.rc1
        ufree = not (nb1 & rem1 & ~low)
        m = L2
        while m:
            b = m & -m
            m ^= b
            i = b.bit_length() - 1
            if tw1[i] == tw1[u] or (ufree and rc1[i] == rc1[u] and not (self.nb1[i] & rem1 & ~b)):
                L2 &= ~b
        rest = self._cls(L2, R) if L2 else None
        self._search(others + [rest] if rest else others, cur, mapping)
        self.frames.pop()

    def _mirror_of_earlier(self, u: int, k: int, v: int, R: int, rem2: int) -> bool:
        """A partner before v in u's list, still in R, is interchangeable with v (so u -> v is
        that branch again, up to a swap)."""
        tw2, rc2, nb2 = self.tw2, self.rc2, self.nb2
        vfree = not (nb2[v] & rem2 & ~(1 << v))
        if tw2[v] == v and not vfree:
            return False
        for _wt, v0 in self.p1[u][:k]:
            if not (R >> v0) & 1:
                continue
            if tw2[v0] == tw2[v]:
                return True
            if vfree and rc2[v0] == rc2[v] and not (nb2[v0] & rem2 & ~(1 << v0)):
                return True
        return False

    def _split_into(self, out, L, R, unchanged, out1, in1, nb1, out2, in2, nb2):
        if not (L & nb1) and not (R & nb2):
            if unchanged is not None:
                out.append(unchanged)
            elif L and R:
                c = self._cls(L, R)
                if c:
                    out.append(c)
            return
        pieces = [(L, R)]
        for keys1, keys2 in ((out1, out2), (in1, in2)):
            for p in keys1.keys() | keys2.keys():
                a, b = keys1.get(p, 0), keys2.get(p, 0)
                nxt = []
                for l, r in pieces:
                    l1, r1 = l & a, r & b
                    if l1 and r1:
                        nxt.append((l1, r1))
                    l0, r0 = l & ~a, r & ~b
                    if l0 and r0:
                        nxt.append((l0, r0))
                pieces = nxt
        for l, r in pieces:
            c = self._cls(l, r)
            if c:
                out.append(c)


class _NativeMcSplit:
    """``_McSplit`` with everything in C (``native.search``): the same relabelling, partner
    order, initial classes and search tree, so the same S, node count and bounds."""

    def __init__(self, g1: Graph, g2: Graph, w: dict, scale: int):
        self.g1, self.g2, self.w = g1, g2, w
        # group ids: numbered by first occurrence in g1; a group g1 lacks is -1
        self.gid1, keys1 = g1.groups()
        local2, keys2 = g2.groups()
        ids = {k: i for i, k in enumerate(keys1)}
        remap = [ids.get(k, -1) for k in keys2]
        self.gid2 = [remap[x] for x in local2]

    def run(self, floor: int, budget: Budget | None = None, node_limit: int = 0):
        g1, g2 = self.g1, self.g2
        return native.search(*_native_adj(g1), *_native_adj(g2), self.w, self.gid1, self.gid2, floor,
                             budget=budget, check_signals=_on_main_thread(), node_limit=node_limit)


def _native_adj(g: Graph) -> tuple:
    """A graph as the native McSplit takes it: its bitsets, or (edge array, None) while it is sparse."""
    out = g._adj_out  # (not the properties: this runs for every search of Ω)
    return (g.edge_array(), None) if out is None else (out, g._adj_in)


class _NativeCliqueSearch:
    """``_CliqueSearch`` in C (``native.clique_search``): the same association vertices in the
    same order, adjacency, bound and branching, so the same S, node count and bounds."""

    def __init__(self, g1: Graph, g2: Graph, w: dict):
        self.g1, self.g2 = g1, g2
        self.verts = sorted(w, key=lambda k: (-w[k], k))
        self.wt = [w[k] for k in self.verts]
        self.types = _type_ids(g1, self.verts)

    def run(self, floor: int, budget: Budget | None = None):
        g1, g2 = self.g1, self.g2
        return native.clique_search(g1.adj_out, g1.adj_in, g2.adj_out, g2.adj_in, self.verts, self.wt, self.types,
                                    floor, budget=budget, check_signals=_on_main_thread())


class _CliqueSearch(BranchAndBound):
    """Branch and bound maximum-weight clique on the association graph of "or" adjacency.

    Association vertices are ordered by descending weight (ties by pair); the search branches on
    the lowest remaining one (take it, then leave it). The bound of a candidate set P is the
    weight of a maximum-weight assignment of its pairs, per node type (``_assignment_bound``):
    a clique maps distinct nodes to distinct nodes, so it is such an assignment. ``native.clique_search``
    is the same search in C (the same tree, node count and bounds).
    """

    def __init__(self, g1: Graph, g2: Graph, w: dict, scale: int, budget: Budget | None = None):
        verts = sorted(w, key=lambda k: (-w[k], k))
        self.verts = verts
        self.wt = [w[k] for k in verts]
        self.type_of = _type_ids(g1, verts)
        n = len(verts)
        adj = [0] * n
        self.built = True  # False: cancelled while building the association graph (seconds for big flows)
        for i in range(n):
            if budget is not None and budget.cancelled():
                self.built = False
                break
            u1, v1 = verts[i]
            for j in range(i + 1, n):
                u2, v2 = verts[j]
                if u1 != u2 and v1 != v2 and pair_ok(g1, g2, u1, v1, u2, v2, "or"):
                    adj[i] |= 1 << j
                    adj[j] |= 1 << i
        self.adj = adj

    def _bound(self, P: int) -> int:
        return _assignment_bound(P, self.verts, self.wt, self.type_of)

    def run(self, floor: int, budget: Budget | None = None):
        self.start(floor, budget)
        P = (1 << len(self.verts)) - 1
        root_bound = self._bound(P)
        if not self.built:
            return self.best, None, max(root_bound, floor), False, 0
        exact = self.explore(self._expand, P, 0, [])
        upper = self.proven(floor, exact)
        pairs = None if self.best_choice is None else [self.verts[i] for i in self.best_choice]
        return self.best, pairs, min(upper, max(root_bound, self.best)), exact, self.nodes

    def _expand(self, P: int, cur: int, chosen: list):
        self.visit(cur, chosen)
        if not P:
            return
        bound = cur + self._bound(P)
        if bound <= self.best:
            return
        self.frames.append(bound)
        first = True
        while P:
            if not first and cur + self._bound(P) <= self.best:
                break
            first = False
            low = P & -P
            i = low.bit_length() - 1
            chosen.append(i)
            self._expand(P & self.adj[i], cur + self.wt[i], chosen)
            chosen.pop()
            P ^= low
        self.frames.pop()


def _type_ids(g1: Graph, verts: list[tuple[int, int]]) -> list[int]:
    """Per association vertex, a small id of its reference node's type (w > 0 needs equal types)."""
    ids: dict[str, int] = {}
    return [ids.setdefault(g1.sigs[u].type, len(ids)) for u, _v in verts]


def _assignment_bound(P: int, verts: list, wt: list, type_of: list) -> int:
    """Σ over types of the maximum-weight assignment between the type's reference and generated
    nodes, using only the pairs in P (a bitset over ``verts``): an upper bound on any clique in P."""
    blocks: dict[int, list[int]] = {}
    x = P
    while x:
        low = x & -x
        i = low.bit_length() - 1
        x ^= low
        blocks.setdefault(type_of[i], []).append(i)
    total = 0
    for items in blocks.values():
        if len(items) == 1:
            total += wt[items[0]]
            continue
        rows: dict[int, int] = {}
        cols: dict[int, int] = {}
        for i in items:
            u, v = verts[i]
            rows.setdefault(u, len(rows))
            cols.setdefault(v, len(cols))
        if len(rows) == 1 or len(cols) == 1:
            total += max(wt[i] for i in items)
            continue
        transpose = len(rows) > len(cols)
        nr, nc = (len(cols), len(rows)) if transpose else (len(rows), len(cols))
        mat = [[0] * nc for _ in range(nr)]
        for i in items:
            u, v = verts[i]
            r, c = rows[u], cols[v]
            if transpose:
                r, c = c, r
            mat[r][c] = wt[i]
        total += max_assignment(mat)
    return total


def max_assignment(mat: list[list[int]]) -> int:
    """The largest Σ mat[r][σ(r)] over injective σ: rows → columns (needs rows ≤ columns), by the
    Hungarian method with potentials on integer weights (exact)."""
    n, m = len(mat), len(mat[0]) if mat else 0
    INF = float("inf")
    u = [0] * (n + 1)
    v = [0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [INF] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            row = mat[i0 - 1]
            delta, j1 = INF, 0
            for j in range(1, m + 1):
                if not used[j]:
                    c = -row[j - 1] - u[i0] - v[j]
                    if c < minv[j]:
                        minv[j] = c
                        way[j] = j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    return sum(mat[p[j] - 1][j - 1] for j in range(1, m + 1) if p[j])


def _best_partners(side: int, other: int, partners: list) -> tuple[list[int], int]:
    """For each vertex of ``side``, its best weight to a vertex of ``other`` (partner lists are
    sorted by weight, descending); vertices without any partner there are dropped from ``side``."""
    best = []
    x = side
    while x:
        low = x & -x
        x ^= low
        for wt, v in partners[low.bit_length() - 1]:
            if (other >> v) & 1:
                best.append(wt)
                break
        else:
            side ^= low
    return best, side


def _remap_bits(mask: int, pos: dict[int, int]) -> int:
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << pos[low.bit_length() - 1]
        mask ^= low
    return out


def _or(values: Iterable[int]) -> int:
    out = 0
    for m in values:
        out |= m
    return out
