"""Ω with pruning equals the brute-force minimum; dd and Δ matrices follow the spec."""
from __future__ import annotations

import random

import pytest

from gindex_studio.core.benchmark.curriculum import Curriculum, delta_matrix, domain_distance, omega_many
from gindex_studio.core.scoring.divergence import ScoreOptions, prepare, score
from gindex_studio.core.flows.flow import flow_from_value
from gindex_studio.core.flows.generate import perturb, random_flow


def _curriculum(seed=0, n=40):
    rng = random.Random(seed)
    bases = [random_flow(rng.randint(5, 14), rng, f"b{k}") for k in range(5)]
    flows, domains = [], []
    for i in range(n):
        k = i % len(bases)
        flows.append(perturb(bases[k], rng, 0.3, prefix=f"c{i}"))
        domains.append(f"dom{k}")
    return bases, flows, domains


@pytest.mark.parametrize("seed", [1, 4, 9])
@pytest.mark.parametrize("profile", ["paper", "companion"])
def test_nearest_equals_brute_force_minimum(profile, seed):
    opts = ScoreOptions(profile=profile)
    bases, flows, domains = _curriculum(seed)
    cur = Curriculum.from_flows(flows, domains, options=opts)
    rng = random.Random(7 + seed)
    tasks = [perturb(bases[0], rng, 0.2, prefix="t0"), random_flow(9, rng, "t1"), bases[2], flows[seed]]
    for task in tasks:
        per = cur.nearest_by_domain(prepare(task, opts))
        for d in sorted(set(domains)):
            brute = min(score(task, f, opts).delta for f, dd in zip(flows, domains) if dd == d)
            assert per[d].omega == brute
            assert domains[per[d].index] == d
            assert per[d].searched + per[d].skipped == domains.count(d)  # every program searched or skipped
            assert score(task, flows[per[d].index], opts).delta == brute
        total = cur.nearest(prepare(task, opts))
        assert total.omega == min(score(task, f, opts).delta for f in flows)
        assert total.searched + total.skipped == len(flows)


def _renamed(flow_nodes: list[dict], prefix: str) -> list[dict]:
    """The same program with other node ids (wires follow)."""
    new = {n["id"]: f"{prefix}{k}" for k, n in enumerate(flow_nodes)}
    return [dict(n, id=new[n["id"]], wires=[[new[t] for t in port] for port in n.get("wires", [])])
            for n in flow_nodes]


@pytest.mark.parametrize("seed", [2, 5])
def test_copies_of_a_program_are_searched_once_and_change_no_result(seed):
    """A curriculum holding each program several times (other ids): Ω, its index and the exact
    value are those of the curriculum without copies, and no shape is searched twice for a task."""
    bases, flows, domains = _curriculum(seed, n=20)
    rng = random.Random(seed)
    copies = [rng.randint(1, 3) for _ in flows]
    many, many_domains, origin = [], [], []
    for i, (f, d, c) in enumerate(zip(flows, domains, copies)):
        for j in range(c):
            many.append(flow_from_value(_renamed([dict(n.data) for n in f.nodes], f"p{i}x{j}x")))
            many_domains.append(d)
            origin.append(i)
    once = Curriculum.from_flows(flows, domains)
    cur = Curriculum.from_flows(many, many_domains)
    first_copy = [origin.index(i) for i in origin]
    assert [cur.copy_of(k) for k in range(len(many))] == [cur.copy_of(k) for k in first_copy]
    assert len({cur.copy_of(k) for k in range(len(many))}) <= len(flows) < len(many)
    for task in (perturb(bases[1], rng, 0.2, prefix="t"), random_flow(11, rng, "u"), flows[3]):
        got, want = cur.nearest_by_domain(prepare(task)), once.nearest_by_domain(prepare(task))
        for d, near in got.items():
            assert (near.omega, near.value, near.exact) == (want[d].omega, want[d].value, want[d].exact)
            assert origin[near.index] == want[d].index  # the first copy of the same program
            assert near.searched <= len(set(origin[k] for k in range(len(many)) if many_domains[k] == d))
            assert near.searched + near.skipped == many_domains.count(d)


def test_identical_program_gives_zero_and_most_pairs_are_skipped():
    bases, flows, domains = _curriculum(2, n=60)
    cur = Curriculum.from_flows(flows, domains)
    task = flows[17].copy()
    near = cur.nearest(prepare(task))
    assert near.omega == 0.0 and domains[near.index] == domains[17]
    assert near.skipped > near.searched


def test_omega_many_in_processes_matches_in_process():
    bases, flows, domains = _curriculum(3, n=30)
    cur = Curriculum.from_flows(flows, domains)
    tasks = [prepare(perturb(b, random.Random(i), 0.2, prefix="t")) for i, b in enumerate(bases)]
    seen = []
    a = omega_many(tasks, cur, workers=2, progress=lambda d, t: seen.append((d, t)))
    b = omega_many(tasks, cur, workers=1)
    assert [{k: v.omega for k, v in r.items()} for r in a] == [{k: v.omega for k, v in r.items()} for r in b]
    assert seen[-1] == (len(tasks), len(tasks))


def test_delta_matrix_is_in_file_order_and_symmetric_for_paper():
    bases, flows, _ = _curriculum(4, n=6)
    m = delta_matrix(flows)
    for i, a in enumerate(flows):
        assert m[i][i] == 0.0
        for j, b in enumerate(flows):
            assert m[i][j] == score(a, b).delta


def test_domain_distance_is_a_rounded_mean_of_minima():
    bases, flows, domains = _curriculum(5, n=10)
    task_dom = flows[:3]
    cur_dom = flows[5:]
    opts = ScoreOptions(profile="companion")
    expected = round(sum(min(score(p, q, opts).delta for q in cur_dom) for p in task_dom) / 3, 3)
    assert domain_distance(task_dom, cur_dom) == expected
    assert domain_distance(task_dom, []) == 1.0


def _single_threaded_after(first: str) -> str:
    import subprocess
    import sys

    code = f"{first}; from gindex_studio.core.benchmark.curriculum import _single_threaded as s; print(s())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.slow
def test_workers_are_forked_only_beside_no_other_thread():
    assert _single_threaded_after("import numpy") == "True"
    assert _single_threaded_after("import threading; threading.Thread(target=__import__('time').sleep, args=(2,)).start()") == "False"


def test_workers_are_not_forked_beside_qt():
    """Qt's threads are not in ``threading``'s list; forking beside them could deadlock a worker."""
    pytest.importorskip("PySide6", reason="needs the [gui] extra (PySide6)")
    assert _single_threaded_after("import PySide6.QtCore") == "False"


def test_omega_many_spawns_workers_when_threads_are_alive():
    import threading

    bases, flows, domains = _curriculum(6, n=20)
    cur = Curriculum.from_flows(flows, domains)
    tasks = [prepare(perturb(b, random.Random(i), 0.2, prefix="t")) for i, b in enumerate(bases[:3])]
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        spawned = omega_many(tasks, cur, workers=2)
    finally:
        stop.set()
        other.join()
    alone = omega_many(tasks, cur, workers=1)
    assert [{k: v.omega for k, v in r.items()} for r in spawned] == [{k: v.omega for k, v in r.items()} for r in alone]


@pytest.mark.parametrize("profile", ["paper", "companion"])
def test_empty_flows_in_the_curriculum_and_as_the_task(profile):
    """Δ = 1 for a pair with an empty flow (spec §3): an empty program is a candidate like any
    other, and an empty task is at Ω = 1 from every domain, with a nearest program."""
    from gindex_studio.core.flows.flow import flow_from_nodes

    opts = ScoreOptions(profile=profile)
    bases, flows, domains = _curriculum(5, n=12)
    flows = [flow_from_nodes([])] + flows + [flow_from_nodes([])]
    domains = ["empty"] + domains + ["dom0"]
    cur = Curriculum.from_flows(flows, domains, options=opts)
    for task in (flow_from_nodes([]), bases[1], random_flow(6, random.Random(3), "t")):
        per = cur.nearest_by_domain(prepare(task, opts))
        for d in sorted(set(domains)):
            brute = min(score(task, f, opts).delta for f, dd in zip(flows, domains) if dd == d)
            assert per[d].omega == brute and per[d].index is not None and domains[per[d].index] == d
            assert score(task, flows[per[d].index], opts).delta == brute
        assert cur.nearest(prepare(task, opts)).omega == min(score(task, f, opts).delta for f in flows)


def _odd_values_flow(rng: random.Random, prefix: str, n: int):
    """A flow whose attribute values are the ones equality treats oddly: 1, 1.0 and True, 0 and
    -0.0 and False, NaN (one shared object and fresh ones), None, strings and nested values."""
    from gindex_studio.core.flows.flow import flow_from_nodes

    shared_nan = _SHARED_NAN
    pool = [1, 1.0, True, 0, -0.0, False, shared_nan, float("nan"), None, "1", "a", [1, 2], {"p": 1}]
    nodes = []
    for k in range(n):
        data = {key: rng.choice(pool) for key in rng.sample(["x", "y", "z", "topic"], rng.randint(0, 3))}
        nodes.append({"id": f"{prefix}{k}", "type": rng.choice(["function", "change", "debug"]), **data,
                      "wires": [[f"{prefix}{j}" for j in range(k + 1, n) if rng.random() < 0.3]]})
    return flow_from_nodes(nodes)


_SHARED_NAN = float("nan")


@pytest.mark.parametrize("seed", range(6))
def test_searches_with_the_curriculums_counts_equal_searches_without(seed, monkeypatch):
    """Ω's searches look their weights up in the curriculum's table (``task_counts`` and
    ``program_counts``) instead of comparing values: every Match, both orientations of the race and
    the lower bounds are the same as without the table, on curricula of odd values and of
    perturbed programs; and Ω equals the brute-force minimum."""
    from gindex_studio.core import native
    from gindex_studio.core.scoring import matching

    if not matching.native_search_available():
        pytest.skip("the C extension is not built")
    rng = random.Random(seed)
    if seed % 2:
        flows = [_odd_values_flow(rng, f"c{i}_", rng.randint(1, 9)) for i in range(30)]
        tasks = [_odd_values_flow(rng, f"t{i}_", rng.randint(1, 9)) for i in range(4)]
    else:
        bases, flows, _domains = _curriculum(seed)
        tasks = [perturb(bases[0], rng, 0.2, prefix="t0"), random_flow(9, rng, "t1"), flows[3]]
    domains = [f"d{i % 3}" for i in range(len(flows))]
    cur = Curriculum.from_flows(flows, domains)
    calls = []
    real = native.solve

    def solve(**kw):  # each solve with the table against the same solve without it
        got = real(**kw)
        if kw.get("table") is not None:
            calls.append(1)
            assert got == real(**{**kw, "table": None})
        return got

    monkeypatch.setattr(native, "solve", solve)
    for task in tasks:
        p = prepare(task)
        counts = cur.task_counts(p)
        assert list(cur.lower_bounds(p, counts)) == list(cur.lower_bounds(p))
        per = cur.nearest_by_domain(p)
        for d in sorted(set(domains)):
            brute = min(score(task, f).delta for f, dd in zip(flows, domains) if dd == d)
            assert per[d].omega == brute
        for i in range(len(flows)):  # also without a threshold, both orientations
            q = cur.programs[i]
            for swap in (False, True):
                tab = (counts, cur.program_counts(i), not swap)
                a, b = (q.graph, p.graph) if swap else (p.graph, q.graph)
                assert matching._solved_natively(a, b, None, None, 0, tab) == \
                    matching._solved_natively(a, b, None, None, 0, None)
    assert calls


def _hash_from_bitsets(graph, rounds: int = 3) -> int:
    """canonical_hash as it was computed on the adjacency bitsets (n² bits on a large flow)."""
    def bits(d):
        mask = 0
        for m in d.values():
            mask |= m
        while mask:
            low = mask & -mask
            yield low.bit_length() - 1
            mask ^= low

    labels = [hash((s.type, s.items)) for s in graph.sigs]
    for _ in range(rounds):
        labels = [hash((labels[u], tuple(sorted(labels[v] for v in bits(graph.adj_out[u]))),
                        tuple(sorted(labels[v] for v in bits(graph.adj_in[u]))))) for u in range(graph.n)]
    return hash((graph.n, graph.n_edges, tuple(sorted(labels))))


@pytest.mark.slow
def test_canonical_hash_reads_the_edges_not_the_bitsets():
    """The same hash as on the bitsets (multi-port wires once, self-loops, empty flows), without
    building them: a 300,000-node task took 12 GB in Ω for them."""
    from gindex_studio.core.benchmark.curriculum import canonical_hash
    from gindex_studio.core.scoring.matching import sparse_graph

    for seed in range(150):
        rng = random.Random(seed)
        g = prepare(random_flow(rng.randint(0, 25), rng, "a")).graph
        assert canonical_hash(g) == _hash_from_bitsets(g)
    n = 30_000  # a large flow is kept sparse (edges only): hashing it builds no bitsets
    sigs = prepare(random_flow(n, random.Random(5), "c")).graph.sigs
    edges = [(u, 0, u + 1) for u in range(n - 1)] + [(u, 1, u + 1) for u in range(0, n - 1, 7)] + [(n - 1, 0, 0)]
    chain = sparse_graph([f"c{i}" for i in range(n)], sigs, edges, [frozenset()] * n)
    h = canonical_hash(chain)
    assert chain._adj_out is None and chain._adj_in is None  # never built
    assert h == _hash_from_bitsets(chain)
