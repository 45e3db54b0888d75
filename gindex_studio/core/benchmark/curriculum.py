"""Curricula, domain distance Ω, all-pairs Δ matrices (scoring-spec §5).

Ω(T', C) = min over curriculum programs P of Δ(P'ref, P), exact. Most pairs are never searched:
- a weight bound (each node adds at most its best w to any node of the other flow, per type) gives
  a lower bound on Δ for every program at once (numpy, weights computed once per distinct node
  signature); programs are visited in increasing bound order and a program whose bound cannot
  beat the best so far is skipped;
- a searched pair only has to beat the best so far: the search gets that as its threshold and
  gives up as soon as its own (tighter) bound proves it cannot;
- a canonical hash (Weisfeiler-Lehman style, over node signatures and wires) puts programs that are
  probably identical to the task first, so Ω = 0 is confirmed by one trivial search.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Collection, Sequence

import numpy as np

from gindex_studio.core.scoring.divergence import Prepared, ScoreOptions, prepare
from gindex_studio.core.flows.flow import Flow
from gindex_studio.core.support.gcpause import frozen_heap, refreeze
from gindex_studio.core.support.pools import _single_threaded, signals_held, stop_pool_now, worker_signals  # noqa: F401 (imported from here too)
from gindex_studio.core.scoring.matching import Graph, max_common_subgraph
from gindex_studio.core import native
from gindex_studio.core.support import profiles
from gindex_studio.core.support.cancel import Cancelled  # noqa: F401 (imported from here too)

Progress = Callable[[int, int], None]


def _check(cancel) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def canonical_hash(graph: Graph, rounds: int = 3) -> int:
    """A hash equal for flows identical up to ids and ignored keys (and, rarely, for others)."""
    labels = [hash((s.type, s.items)) for s in graph.sigs]
    n = graph.n
    e = graph.edge_array()  # (src, port, dst) triples: linear in the edges (the bitsets are n² bits)
    pairs = sorted(set(zip(e[0::3], e[2::3])))  # u → v once, whatever its ports
    outs_of: list[list[int]] = [[] for _ in range(n)]
    ins_of: list[list[int]] = [[] for _ in range(n)]
    for u, v in pairs:
        outs_of[u].append(v)
        ins_of[v].append(u)
    for _ in range(rounds):
        labels = [hash((labels[u], tuple(sorted(labels[v] for v in outs_of[u])),
                        tuple(sorted(labels[v] for v in ins_of[u])))) for u in range(n)]
    return hash((n, graph.n_edges, tuple(sorted(labels))))


#: A task leaks from training when the reference lies within this Ω of a curriculum program:
#: identical up to ids and ignored keys (Ω = 0), or a few attribute values or wires apart. The
#: curation window's leak threshold (``curation.report.DEFAULT_LEAKS``) is this value too.
LEAK_THRESHOLD = Fraction(1, 20)


@dataclass
class Nearest:
    """The nearest curriculum program: Ω, its index in the curriculum (None when empty), whether
    the minimum is proven (false only when a deadline cut a search that might have gone lower),
    and how much work it took."""

    omega: float
    index: int | None
    exact: bool = True
    searched: int = 0
    skipped: int = 0
    omega_lower: float | None = None  # when not exact: the true Ω lies in [omega_lower, omega]
    value: Fraction | None = None  # Ω as an exact fraction (None where only the float is known)


@dataclass
class Curriculum:
    """Programs (prepared once), each with a domain name and a label (usually its file name)."""

    programs: list[Prepared]
    domains: list[str]
    labels: list[str]
    options: ScoreOptions = field(default_factory=ScoreOptions)
    hashes: list[int] | None = field(default=None, repr=False)  # canonical_hash per program (computed if None)

    def __post_init__(self):
        # every distinct node signature of the curriculum once; every node as (program, type, signature)
        self.vocab: dict[str, int] = {}
        self._sig_index: dict[tuple, int] = {}
        self._sigs: list = []
        self._sigs_by_type: dict[str, list[int]] = {}
        gids, types, owner, starts = [], [], [], []
        for i, p in enumerate(self.programs):
            starts.append(len(gids))
            for sig in p.graph.sigs:
                key = (sig.type, sig.items)
                g = self._sig_index.get(key)
                if g is None:
                    g = self._sig_index[key] = len(self._sigs)
                    self._sigs.append(sig)
                    self._sigs_by_type.setdefault(sig.type, []).append(g)
                gids.append(g)
                types.append(self.vocab.setdefault(sig.type, len(self.vocab)))
                owner.append(i)
        self.node_sig = np.array(gids, dtype=np.int64)
        self.node_type = np.array(types, dtype=np.int64)
        self.node_program = np.array(owner, dtype=np.int64)
        self.starts = np.array(starts, dtype=np.int64)
        self.sizes = np.array([p.n for p in self.programs], dtype=np.int64)
        if self.hashes is None:
            self.hashes = [canonical_hash(p.graph) for p in self.programs]
        self.domain_names = sorted(set(self.domains))
        self._per_type: dict[str, tuple] = {}  # built on first use by lower_bounds
        self._local: list[bytes] | None = None  # per program its vertices' signatures by type (``counts``)
        self._copies: list[int] | None = None  # per program the first program identical to it (``copy_of``)

    def _type_nodes(self, type_name: str) -> tuple:
        """For the curriculum nodes of one type (in node order, so grouped by program): their
        positions, each one's signature as an index into ``_sigs_by_type[type]``, where each
        program's block starts, those programs, and the signatures' values (for the C weights)."""
        got = self._per_type.get(type_name)
        if got is None:
            gs = self._sigs_by_type[type_name]
            local = np.full(len(self._sigs), -1, dtype=np.int64)
            local[gs] = np.arange(len(gs))
            nodes = np.flatnonzero(self.node_type == self.vocab[type_name])
            progs = self.node_program[nodes]
            block = np.flatnonzero(np.r_[True, progs[1:] != progs[:-1]])
            got = self._per_type[type_name] = (nodes, local[self.node_sig[nodes]], block, progs[block],
                                               [self._sigs[g].values for g in gs])
        return got

    @classmethod
    def from_flows(cls, flows: Sequence[Flow], domains: Sequence[str], labels: Sequence[str] | None = None,
                   options: ScoreOptions = ScoreOptions(), library=None, *, progress: Progress | None = None,
                   cancel=None) -> "Curriculum":
        """Prepare ``flows``; ``progress(done, total)`` after each program; raises ``Cancelled``
        once ``cancel`` (anything with ``is_set()``) is set."""
        labels = list(labels) if labels is not None else [str(i) for i in range(len(flows))]
        prepared, hashes = [], []
        for k, f in enumerate(flows):
            _check(cancel)
            p = prepare(f, options, library)
            prepared.append(p)
            hashes.append(canonical_hash(p.graph))
            if progress:
                progress(k + 1, len(flows))
            if k % 64 == 63:  # inside gcpause.frozen_heap: the programs so far out of the collector's reach
                refreeze()
        _check(cancel)
        return cls(prepared, list(domains), labels, options, hashes)

    def __len__(self) -> int:
        return len(self.programs)

    def task_counts(self, task: Prepared) -> list[bytes | None] | None:
        """The w of each task vertex against every distinct curriculum signature of its type, as
        int64 (num, den) pairs in ``_sigs_by_type`` order (None for a type the curriculum lacks);
        None unless the profile's weights are ``native.UNION_JSON`` and the native search is in use. With
        ``program_counts`` this is ``matching.max_common_subgraph``'s ``counts``: each search then
        looks its weights up instead of comparing the nodes' values again (the same weights:
        signatures with equal (type, items) compare equal to every value)."""
        if self.options.profile.native_rule != native.UNION_JSON or not native.available():
            return None
        out: list[bytes | None] = []
        for su in task.graph.sigs:
            if su.type in self.vocab:
                out.append(native.counts_to(su.values, self._type_nodes(su.type)[4]))
            else:
                out.append(None)
        return out

    def program_counts(self, i: int) -> bytes:
        """Program i's vertices' signatures as indices into ``_sigs_by_type`` of their type (int32)."""
        if self._local is None:
            local = np.zeros(len(self._sigs), dtype=np.int32)
            for gs in self._sigs_by_type.values():
                local[gs] = np.arange(len(gs), dtype=np.int32)
            node_local = local[self.node_sig]
            self._local = [node_local[a:a + n].tobytes() for a, n in zip(self.starts.tolist(), self.sizes.tolist())]
        return self._local[i]

    def copy_of(self, i: int) -> int:
        """The first program identical to program i (i itself when none is): the same signatures
        in the same vertex order, the same self-loops and edges, so the same Δ to every task
        (generated curricula repeat programs; Ω searches each shape once per task and domain)."""
        if self._copies is None:
            copies = list(range(len(self.programs)))
            by_hash: dict[int, list[int]] = {}  # identical programs have equal canonical hashes
            for k, h in enumerate(self.hashes):
                by_hash.setdefault(h, []).append(k)
            for group in by_hash.values():
                if len(group) > 1:
                    first: dict[tuple, int] = {}
                    for k in group:
                        g = self.programs[k].graph
                        copies[k] = first.setdefault((tuple((s.type, s.items) for s in g.sigs),
                                                      tuple(map(repr, g.selfloop)), g.edge_array().tobytes()), k)
            self._copies = copies
        return self._copies[i]

    def warm(self) -> None:
        """Build the tables the searches compute on first use (``copy_of``, ``program_counts``, the
        per-type tables of ``task_counts``, each program graph's columns and vertices by type) now:
        before worker processes fork, so they share them instead of each building its own."""
        with frozen_heap():  # thousands of small tables: no full collection walks the curriculum meanwhile
            if self.programs:
                self.copy_of(0)
                self.program_counts(0)
            for type_name in self.vocab:
                self._type_nodes(type_name)
            for p in self.programs:
                p.graph.columns()
                p.graph.by_type()

    def lower_bounds(self, task: Prepared, counts: list[bytes | None] | None = None) -> np.ndarray:
        """A lower bound on Δ(task, P) for every program P at once.

        For each node, its best weight w to any node of the other flow bounds what it can add to
        S; so S ≤ Σ_type min(Σ best of the task's nodes, Σ best of the program's nodes). Weights
        are computed once per distinct curriculum signature (or taken from ``counts``, the
        ``task_counts``), the rest is numpy.
        """
        n1, n_prog, n_types = task.n, len(self.programs), max(1, len(self.vocab))
        if n1 == 0 or n_prog == 0 or len(self.node_sig) == 0:
            return np.ones(n_prog)
        prof = self.options.profile
        in_c = prof.native_rule is not None and native.available()
        # only nodes of equal type have w > 0: work type by type on the curriculum's nodes of it
        by_type: dict[str, list[int]] = {}
        for u, su in enumerate(task.graph.sigs):
            if su.type in self.vocab:
                by_type.setdefault(su.type, []).append(u)
        best_prog_node = np.zeros(len(self.node_sig))  # each curriculum node's best w to the task
        side_task = np.zeros((n_prog, n_types))  # Σ over the task's nodes of a type of their best w in a program
        sigs = self._sigs
        for type_name, us in by_type.items():
            nodes, local, block, progs, values = self._type_nodes(type_name)
            t = self.vocab[type_name]
            if counts is not None:  # num / den as floats, as weights_to divides (den 0: w = 1)
                pairs = np.frombuffer(b"".join(counts[u] for u in us), dtype=np.int64).reshape(len(us), -1, 2)
                num, den = pairs[..., 0], pairs[..., 1]
                rows = np.where(den > 0, num / np.where(den > 0, den, 1), 1.0)
            elif in_c:
                flag = native.kernel_flag(prof.native_rule)
                rows = [native.weights_to(task.graph.sigs[u].values, task.graph.sigs[u].self_equal, values, flag)
                        for u in us]
            else:
                others = [sigs[g] for g in self._sigs_by_type[type_name]]
                rows = [_weights_to(task.graph.sigs[u], others, prof) for u in us]
            per_node = np.asarray(rows, dtype=float)[:, local].T  # the type's curriculum nodes × task nodes
            best_prog_node[nodes] = per_node.max(axis=1)
            side_task[progs, t] = np.maximum.reduceat(np.ascontiguousarray(per_node), block, axis=0).sum(axis=1)
        side_prog = np.bincount(self.node_program * n_types + self.node_type, weights=best_prog_node,
                                minlength=n_prog * n_types).reshape(n_prog, n_types)
        s_ub = np.minimum(side_task, side_prog).sum(axis=1)
        denom = (n1 * self.sizes).astype(float)
        lb = np.where(denom > 0, 1.0 - s_ub * s_ub / np.where(denom > 0, denom, 1.0), 1.0)
        return np.clip(lb, 0.0, 1.0) - 1e-9  # margin for float rounding: never above the true bound

    def nearest_by_domain(self, task: Prepared, deadline: float | None = None, cancel=None,
                          exclude: Collection[int] = ()) -> dict[str, Nearest]:
        """Ω(T', C_i) for every domain i, exact, with pruning. Keys: domain names. Raises
        ``Cancelled`` once ``cancel`` is set (checked between programs and inside the search).
        ``exclude``: indices of programs left out (the task's own program, ``leave_self_out``); a
        domain left with no program has Ω = 1 and no nearest program."""
        return self._nearest(task, self.domains, self.domain_names, deadline, cancel, exclude)

    def nearest(self, task: Prepared, deadline: float | None = None, cancel=None,
                exclude: Collection[int] = ()) -> Nearest:
        """Ω(T', C) over the whole curriculum (one minimum: prunes more than per domain)."""
        return self._nearest(task, [""] * len(self.programs), [""], deadline, cancel, exclude)[""]

    def _nearest(self, task: Prepared, group_of: Sequence[str], groups: Sequence[str],
                 deadline: float | None, cancel=None, exclude: Collection[int] = ()) -> dict[str, Nearest]:
        counts = self.task_counts(task)
        lb = self.lower_bounds(task, counts)
        th = canonical_hash(task.graph)
        first = np.array([h == th for h in self.hashes], dtype=bool)
        order = np.lexsort((np.arange(len(lb)), lb, ~first))  # hash matches first, then by bound
        if len(exclude):
            order = order[~np.isin(order, np.fromiter(exclude, dtype=np.int64))]
        if len(groups) == 1:
            per_group = {groups[0]: order}
        else:  # each group's programs in that order (a group's minimum depends on its own programs only)
            codes = self._group_codes(group_of, groups)[order]
            per_group = {d: order[codes == c] for c, d in enumerate(groups)}
        return {d: self._nearest_in(task, idx, lb, first, deadline, cancel, counts) for d, idx in per_group.items()}

    def _group_codes(self, group_of: Sequence[str], groups: Sequence[str]) -> np.ndarray:
        """Per program the index in ``groups`` of its group (kept for the last ``group_of``)."""
        kept = self.__dict__.get("_codes")
        if kept is None or kept[0] is not group_of or kept[1] is not groups:
            code = {d: c for c, d in enumerate(groups)}
            kept = self.__dict__["_codes"] = (group_of, groups,
                                              np.array([code[g] for g in group_of], dtype=np.int64))
        return kept[2]

    def _nearest_in(self, task: Prepared, idx: np.ndarray, lb: np.ndarray, first: np.ndarray,
                    deadline: float | None, cancel=None, counts=None) -> Nearest:
        """The minimum over the programs ``idx`` (hash matches first, then by ascending bound).
        Δ values are exact rationals kept as integer pairs (num, den); a program is skipped when its
        bound is ≥ the minimum so far, and once a program past the hash matches is, so is the rest;
        a copy of a program searched exactly before (``copy_of``) is skipped too: its Δ is that
        program's, which is ≥ the minimum already (a tie changes neither the minimum nor its index)."""
        bn, bd = 2, 1  # the minimum so far, Δ = bn / bd (2: none yet)
        best_f = 2.0  # float(bn / bd)
        best_idx: int | None = None
        cut: list[tuple[int, int]] = []  # Δ lower bounds of deadline-cut searches
        searched = skipped = 0
        n1 = task.n
        profile = self.options.profile
        lbs = lb[idx].tolist()
        firsts = first[idx].tolist()
        sizes = self.sizes[idx].tolist()
        known: set[int] = set()  # programs (``copy_of``) whose Δ an exact search has settled
        for k, i in enumerate(idx.tolist()):
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            if best_idx is not None:
                b = lbs[k]  # b ≥ bn/bd exactly: decided by floats unless they are equal
                if b > best_f or (b == best_f and Fraction(b) >= Fraction(bn, bd)):
                    if firsts[k]:
                        skipped += 1
                        continue
                    skipped += len(lbs) - k  # the bounds only grow from here and the minimum only falls
                    break
            shape = self.copy_of(i)
            if shape in known:
                skipped += 1
                continue
            prog = self.programs[i]
            n2 = sizes[k]
            if n1 == 0 or n2 == 0:
                if bd < bn:  # Δ = 1 < the minimum so far (bn / bd)
                    bn, bd, best_f, best_idx = 1, 1, 1.0, int(i)
                continue
            # only S with 1 - S²/(n1 n2) < best matters: S² > (1 - best)·n1·n2
            threshold = ((bd - bn) * n1 * n2, bd) if best_idx is not None else None
            m = max_common_subgraph(task.graph, prog.graph, profile, deadline=deadline, threshold_sq=threshold,
                                    cancel=cancel, counts=None if counts is None else (counts, self.program_counts(i)))
            if m.cancelled:
                raise Cancelled()
            searched += 1
            if not m.exact:
                cut.append(_delta_pair(m.upper, n1, n2))
            else:
                known.add(shape)
            if m.improved or threshold is None:
                vn, vd = _delta_pair(m.weight, n1, n2)
                if vn * bd < bn * vd:
                    bn, bd, best_idx = vn, vd, int(i)
                    best_f = vn / vd
        return _finish_nearest(Fraction(bn, bd), best_idx, [Fraction(*c) for c in cut], searched, skipped)


def _delta_pair(s: tuple[int, int], n1: int, n2: int) -> tuple[int, int]:
    """Δ = 1 − S²/(n1·n2) for S = num/den as integers (num', den'), den' > 0 (n1, n2 > 0)."""
    num, den = s
    total = den * den * n1 * n2
    return total - num * num, total


def _weights_to(su, others: list, profile) -> list[float]:
    """w(su, s) as floats (num / den) for signatures ``others`` of su's type: the profile's
    weight (``similarity`` on pairs of one type); in C for a profile with a ``native_rule`` when the
    native search is in use."""
    prof = profiles.get(profile)
    if prof.native_rule is not None and native.available():
        return native.weights_to(su.values, su.self_equal, [sv.values for sv in others],
                                 native.kernel_flag(prof.native_rule))
    weight = prof.weight
    out = []
    for sv in others:
        num, den = weight(su, sv)
        out.append(num / den)
    return out


def _finish_nearest(best: Fraction, index: int | None, cut: list[Fraction], searched: int, skipped: int) -> Nearest:
    """A cut search matters only if its proven bound leaves room below the minimum found."""
    omega = float(best) if index is not None else 1.0
    lower = min([best] + cut) if index is not None else Fraction(1)
    value = best if index is not None else Fraction(1)
    return Nearest(omega, index, lower >= best, searched, skipped, float(min(lower, best)), value)


def leak_of(nearest: Nearest, threshold: Fraction = LEAK_THRESHOLD) -> bool | None:
    """Whether Ω ≤ ``threshold``, compared exactly: True or False, or None when a deadline cut a
    search and the proven interval [omega_lower, omega] contains the threshold. False with no
    curriculum program. Uses ``nearest.value`` (the exact Ω) when known, else the float's exact value."""
    if nearest.index is None:
        return False
    omega = nearest.value if nearest.value is not None else Fraction(nearest.omega)
    if omega <= threshold:
        return True
    if nearest.exact or nearest.omega_lower is None or Fraction(nearest.omega_lower) > threshold:
        return False
    return None


def overall(per_domain: dict[str, Nearest]) -> Nearest:
    """The curriculum-wide nearest program from per-domain results."""
    if not per_domain:
        return Nearest(1.0, None)
    best = min(per_domain.values(), key=lambda n: (n.omega, n.index if n.index is not None else 1 << 60))
    lower = min(n.omega_lower if n.omega_lower is not None else n.omega for n in per_domain.values())
    return Nearest(
        best.omega,
        best.index,
        lower >= best.omega,
        sum(n.searched for n in per_domain.values()),
        sum(n.skipped for n in per_domain.values()),
        lower,
        best.value,
    )


# ----- many tasks on all cores ---------------------------------------------------------------

_WORKER_CURRICULUM: Curriculum | None = None


def _init_worker(curriculum: Curriculum | None = None) -> None:
    """A worker leaves Ctrl-C to the parent (which stops every worker at once, see
    ``stop_pool_now``); a spawned worker also receives the curriculum. The objects a worker starts
    with are frozen out of the garbage collector (``gc.freeze``)."""
    global _WORKER_CURRICULUM

    worker_signals()
    if isinstance(curriculum, bytes):
        import pickle

        curriculum = pickle.loads(curriculum)
    if curriculum is not None:
        _WORKER_CURRICULUM = curriculum
    # the curriculum (millions of objects, never freed in a worker) out of the cyclic collector's
    # reach: otherwise every full collection walks it again (a third of Ω's time)
    import gc

    gc.freeze()


def _worker_nearest(args):
    task, deadline, exclude = args
    return _WORKER_CURRICULUM.nearest_by_domain(task, deadline, exclude=exclude)


def omega_many(tasks: Sequence[Prepared], curriculum: Curriculum, *, workers: int | None = None,
               deadline: float | None = None, progress: Progress | None = None, cancel=None,
               on_result: Callable[[int, dict[str, Nearest]], None] | None = None,
               exclude: Sequence[Collection[int]] | None = None) -> list[dict[str, Nearest]]:
    """``nearest_by_domain`` for every task, on ``workers`` processes (default: all cores);
    ``exclude[i]``: the programs task i is not measured against.

    ``progress(done, total)`` is called after each task, ``on_result(i, nearest)`` as soon as
    task ``i`` is done (in completion order). Results are in task order. ``cancel`` (anything with
    ``is_set()``): once set, raises ``Cancelled`` within about 50 ms, the worker processes
    terminated. Worker processes are forked when this process runs a single thread (the curriculum
    is shared without copying); with other threads alive (a GUI, a thread pool) forking is unsafe,
    so they are spawned and receive the curriculum once each. They are spawned too when the program
    set a start method other than fork (``multiprocessing.set_start_method``).
    """
    global _WORKER_CURRICULUM
    total = len(tasks)
    workers = workers or os.cpu_count() or 1
    results: list = [None] * total
    if workers <= 1 or total <= 1:
        with frozen_heap():  # no full garbage collection walks the curriculum meanwhile
            for i, t in enumerate(tasks):
                results[i] = curriculum.nearest_by_domain(t, deadline, cancel, exclude[i] if exclude else ())
                if on_result:
                    on_result(i, results[i])
                if progress:
                    progress(i + 1, total)
        return results
    import multiprocessing as mp
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    from gindex_studio.core.support.pools import Finished, done_result

    curriculum.warm()  # once here, not in every worker
    chosen = mp.get_start_method(allow_none=True)  # a program that chose spawn (or forkserver) keeps it
    forking = chosen in (None, "fork") and _single_threaded() and "fork" in mp.get_all_start_methods()
    if forking:
        _WORKER_CURRICULUM = curriculum
        pool_args = dict(mp_context=mp.get_context("fork"), initializer=_init_worker)
    else:  # pickled once here, not once per worker as it starts
        blob = pickle.dumps(curriculum, protocol=pickle.HIGHEST_PROTOCOL)
        _check(cancel)
        pool_args = dict(mp_context=mp.get_context("spawn"), initializer=_init_worker, initargs=(blob,))
    try:
        pool = ProcessPoolExecutor(max_workers=min(workers, total), **pool_args)
        try:
            # the largest tasks first (they tend to search longest): no worker is left alone with a
            # long task at the end while the others idle
            order = sorted(range(total), key=lambda i: -tasks[i].n)
            with signals_held():  # the pool starts whole, then a signal stops all of it
                futures = {pool.submit(_worker_nearest, (tasks[i], deadline, tuple(exclude[i]) if exclude else ())): i
                           for i in order}
            finished, done = Finished(futures), 0
            while finished.left:
                _check(cancel)
                fut = finished.next(0.05 if cancel is not None else None)
                if fut is not None:
                    i = futures[fut]
                    results[i] = done_result(fut)
                    done += 1
                    if on_result:
                        on_result(i, results[i])
                    if progress:
                        progress(done, total)
        except BaseException:  # Ctrl-C, cancel or an error: no worker keeps searching
            stop_pool_now(pool)
            raise
        pool.shutdown()
    finally:
        _WORKER_CURRICULUM = None
    return results


def delta_matrix(flows: Sequence[Flow], options: ScoreOptions = ScoreOptions(), library=None,
                 deadline: float | None = None, progress: Progress | None = None,
                 workers: int | None = 1) -> list[list[float]]:
    """All-pairs Δ (row = reference, column = generated), in the order given, as lists of floats.
    ``progress(done, total)`` counts searches (a symmetric profile, as paper, makes n(n+1)/2).
    ``workers``: processes (``matrix.delta_rows``; None: all cores). For large n use
    ``matrix.delta_rows``, which gives the rows one at a time as float64 arrays."""
    from gindex_studio.core.benchmark.matrix import delta_rows

    prepared = [prepare(f, options, library) for f in flows]
    return [row.tolist() for _i, row in delta_rows(prepared, options.profile, deadline=deadline, workers=workers,
                                                    progress=progress)]


def domain_distance(task_programs: Sequence[Flow], curriculum_programs: Sequence[Flow],
                    options: ScoreOptions = ScoreOptions(profile=profiles.companion_default()), library=None,
                    exclude: Sequence[Collection[int]] | None = None) -> float:
    """The companion's dd(D_task, D_cur): mean over P in D_task of min over Q in D_cur of Δ(P, Q),
    rounded to 3 decimals (spec §5). Not symmetric. 1.0 when either side is empty. ``exclude[k]``:
    the curriculum programs left out for task program k (itself, with ``leave_self_out``); a
    program left with none counts 1."""
    if not task_programs or not curriculum_programs:
        return 1.0
    cur = Curriculum.from_flows(curriculum_programs, ["d"] * len(curriculum_programs), options=options, library=library)
    mins = [cur.nearest(prepare(p, options, library), exclude=exclude[k] if exclude else ()).omega
            for k, p in enumerate(task_programs)]
    return round(sum(mins) / len(mins), 3)
