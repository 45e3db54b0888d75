"""core.stats against hand computations, brute force and scipy."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from gindex_studio.core.benchmark import stats


# ----- pass@k ----------------------------------------------------------------------------------


def _pass_at_k_brute(n: int, c: int, k: int) -> float:
    """Share of the k-subsets of n attempts (c of them exact) that hold at least one exact attempt."""
    attempts = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(attempts[i] for i in s) for s in subsets) / len(subsets)


def test_pass_at_k_equals_closed_form_and_brute_force():
    for n in range(1, 8):
        for c in range(n + 1):
            for k in range(1, n + 1):
                got = stats.pass_at_k(n, c, k)
                assert got == pytest.approx(stats.pass_at_k_exact(n, c, k), abs=1e-12)
                assert got == pytest.approx(_pass_at_k_brute(n, c, k), abs=1e-12)


def test_pass_at_k_hand_values_and_vectorised():
    # n = 5, c = 2, k = 1: c/n = 0.4; k = 2: 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7
    assert stats.pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert stats.pass_at_k(5, 2, 2) == pytest.approx(0.7)
    got = stats.pass_at_k([5, 5, 10, 200], [0, 5, 3, 1], 2)
    assert got.tolist() == pytest.approx([0.0, 1.0, 1 - math.comb(7, 2) / math.comb(10, 2), 1 - math.comb(199, 2) / math.comb(200, 2)])
    assert str(got[0]) == "0.0"  # no negative zero


def test_pass_at_k_bad_input():
    with pytest.raises(ValueError, match="at least 3 attempts"):
        stats.pass_at_k([2, 5], [1, 1], 3)
    with pytest.raises(ValueError, match="k must be"):
        stats.pass_at_k(5, 1, 0)
    with pytest.raises(ValueError, match="between 0"):
        stats.pass_at_k(5, 6, 1)


@given(st.integers(1, 60), st.data())
@settings(max_examples=80, deadline=None)
def test_pass_at_k_axioms(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    p = stats.pass_at_k(n, c, k)
    assert 0.0 <= p <= 1.0
    assert p == pytest.approx(stats.pass_at_k_exact(n, c, k), abs=1e-9)
    if c < n:  # more exact attempts never lowers it
        assert stats.pass_at_k(n, c + 1, k) >= p - 1e-12
    if k < n:  # a larger budget never lowers it
        assert stats.pass_at_k(n, c, k + 1) >= p - 1e-12
    assert stats.pass_at_k(n, c, 1) == pytest.approx(c / n)


# ----- bootstrap -------------------------------------------------------------------------------


def test_stratified_indices_keep_strata():
    strata = ["a", "b", "a", "c", "b", "a"]
    idx = stats.stratified_indices(6, strata, resamples=300, seed=3)
    assert idx.shape == (300, 6)
    labels = np.asarray(strata)[idx]
    for s, n in (("a", 3), ("b", 2), ("c", 1)):
        assert ((labels == s).sum(axis=1) == n).all()
    assert (stats.stratified_indices(6, strata, 300, seed=3) == idx).all()  # seeded


def test_bootstrap_constant_and_seeded():
    e = stats.bootstrap_mean([0.25] * 7, ["x", "y"] * 3 + ["x"])
    assert (e.value, e.low, e.high, e.n, e.resamples) == (0.25, 0.25, 0.25, 7, 2000)
    v = np.linspace(0, 1, 40)
    assert stats.bootstrap_mean(v, seed=5) == stats.bootstrap_mean(v, seed=5)
    assert stats.bootstrap_mean([], None).to_dict()["n"] == 0


def test_bootstrap_unstratified_matches_plain_percentile_bootstrap():
    v = np.random.default_rng(1).random(30)
    e = stats.bootstrap_mean(v, None, resamples=2000, seed=11)
    rng = np.random.default_rng(11)
    means = v[rng.integers(0, 30, size=(2000, 30))].mean(axis=1) * math.sqrt(30 / 29) + v.mean() * (1 - math.sqrt(30 / 29))
    assert (e.low, e.high) == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])))


def _coverage(draw, strata, truth, sims=500):
    rng = np.random.default_rng(2024)
    hits = 0
    for s in range(sims):
        hits += stats.bootstrap_mean(draw(rng), strata, seed=s).contains(truth)
    return hits / sims


@pytest.mark.slow
def test_bootstrap_covers_theta_like_means_at_nominal_rate():
    strata = np.repeat([0, 1, 2, 3], [10, 20, 30, 40])
    a, b = np.array([2, 3, 1, 1])[strata], np.array([3, 2, 1, 4])[strata]
    cov = _coverage(lambda rng: rng.beta(a, b), strata, float(np.mean(a / (a + b))))
    assert cov >= 0.93


@pytest.mark.slow
def test_bootstrap_covers_skill_levels_at_nominal_rate():
    strata = np.repeat([0, 1, 2, 3], [10, 20, 30, 40])
    p = np.array([0.2, 0.5, 0.7, 0.4])[strata]
    cov = _coverage(lambda rng: (rng.random(p.size) < p).astype(float), strata, float(p.mean()))
    assert cov >= 0.93


def test_paired_difference_covers_the_true_difference_at_nominal_rate():
    # two systems on the same tasks: per-task θ share a task effect (pairing matters), B is better
    # by a domain-dependent amount; truth = the expected mean difference over the strata
    strata = np.repeat([0, 1, 2, 3], [10, 20, 30, 40])
    shift = np.array([0.10, 0.0, 0.05, 0.02])[strata]
    rng = np.random.default_rng(77)
    hits = 0
    for s in range(500):
        task = rng.beta(2, 2, strata.size)
        a = task + rng.normal(0, 0.08, strata.size)  # not clipped to [0, 1]: clipping would move the truth
        b = task + shift + rng.normal(0, 0.08, strata.size)
        hits += stats.paired_bootstrap(b, a, strata, seed=s).contains(float(shift.mean()))
    assert hits / 500 >= 0.93


def test_pass_at_k_interval_covers_the_population_value_at_nominal_rate():
    # tasks with success probability p ~ Beta(a_h, b_h) per domain, 5 attempts each; the value
    # pass@2 estimates is E[1 - (1 - p)^2] = 1 - B(a, b + 2) / B(a, b), averaged over the tasks' domains
    from scipy.special import beta as B

    strata = np.repeat([0, 1, 2, 3], [10, 20, 30, 40])
    a, b = np.array([1.0, 2.0, 0.5, 3.0]), np.array([3.0, 2.0, 1.5, 1.0])
    truth = float(np.mean((1 - B(a, b + 2) / B(a, b))[strata]))
    rng = np.random.default_rng(8)
    hits = 0
    for s in range(500):
        p = rng.beta(a[strata], b[strata])
        c = rng.binomial(5, p)
        hits += stats.bootstrap_mean(stats.pass_at_k(5, c, 2), strata, seed=s).contains(truth)
    assert hits / 500 >= 0.93


def test_identical_systems_difference_contains_zero():
    v = np.random.default_rng(4).random(80) * 1000
    d = stats.paired_bootstrap(v, v.copy(), np.arange(80) % 5)
    assert d.value == 0 and d.contains(0.0)
    assert stats.sign_test(v, v).p == 1.0 and stats.permutation_test(v, v).p == 1.0
    assert stats.mcnemar(v > 500, v > 500).p == 1.0


def test_paired_bootstrap_detects_a_shift_and_uses_common_tasks():
    rng = np.random.default_rng(9)
    base = rng.random(100)
    d = stats.paired_bootstrap(base + 0.05 + rng.normal(0, 0.01, 100), base)
    assert d.low > 0.04 and d.high < 0.06  # pairing removes the task-to-task spread
    with pytest.raises(ValueError, match="same tasks"):
        stats.paired_bootstrap([1, 2], [1, 2, 3])


# ----- tests against scipy and brute force -----------------------------------------------------


def _binom_two_sided(k: int, n: int) -> float:
    """Exact two-sided binomial p at 1/2 by hand: twice the smaller tail, at most 1."""
    tail = sum(math.comb(n, i) for i in range(0, min(k, n - k) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def test_sign_test_equals_scipy_and_hand():
    a = [0.9, 0.5, 0.7, 0.7, 1.0, 0.2, 0.8, 0.6, 0.95, 0.4]
    b = [0.5, 0.5, 0.6, 0.9, 0.3, 0.1, 0.2, 0.1, 0.90, 0.3]
    t = stats.sign_test(a, b)
    assert t.stats == {"positive": 8, "negative": 1, "ties": 1}
    assert t.p == pytest.approx(sps.binomtest(8, 9, 0.5).pvalue)
    assert t.p == pytest.approx(_binom_two_sided(8, 9))  # 2 · (1 + 9) / 512
    assert t.p == pytest.approx(20 / 512)


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=40))
@settings(max_examples=60, deadline=None)
def test_sign_test_property_equals_scipy(pairs):
    a, b = zip(*pairs)
    t = stats.sign_test(a, b)
    pos = sum(x > y for x, y in pairs)
    m = sum(x != y for x, y in pairs)
    assert t.p == pytest.approx(1.0 if m == 0 else sps.binomtest(pos, m, 0.5).pvalue)
    assert t.p == pytest.approx(1.0 if m == 0 else _binom_two_sided(pos, m))


def test_mcnemar_equals_scipy_and_hand():
    sa = [1, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1]
    sb = [0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1]
    t = stats.mcnemar(np.array(sa, bool), np.array(sb, bool))
    assert t.stats == {"only_a": 6, "only_b": 1, "both": 3, "neither": 2}
    assert t.p == pytest.approx(sps.binomtest(6, 7, 0.5).pvalue)
    assert t.p == pytest.approx(16 / 128)  # 2 · (C(7,0) + C(7,1)) / 2^7


def test_permutation_test_exact_equals_enumeration():
    a = np.array([0.9, 0.5, 0.7, 0.7, 1.0, 0.2, 0.8, 0.6])
    b = np.array([0.5, 0.5, 0.6, 0.9, 0.3, 0.1, 0.2, 0.1])
    d = a - b
    nz = d[d != 0]
    obs = abs(nz.sum())
    count = sum(abs(sum(s * x for s, x in zip(signs, nz))) >= obs - 1e-12
                for signs in itertools.product((1, -1), repeat=nz.size))
    t = stats.permutation_test(a, b)
    assert t.exact and t.p == pytest.approx(count / 2 ** nz.size)
    # scipy's paired permutation test enumerates the same 2^m sign flips
    ref = sps.permutation_test((nz,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples",
                               n_resamples=np.inf, alternative="two-sided")
    assert t.p == pytest.approx(ref.pvalue)


def test_permutation_test_monte_carlo_close_to_exact():
    rng = np.random.default_rng(5)
    a, b = rng.random(17), rng.random(17)
    t = stats.permutation_test(a, b, seed=1)
    assert not t.exact
    nz = (a - b)
    codes = np.arange(2 ** 17)[:, None]
    signs = 1 - 2 * ((codes >> np.arange(17)) & 1)
    exact = float((np.abs(signs @ nz) >= abs(nz.sum()) - 1e-12).mean())
    assert abs(t.p - exact) < 0.015
    assert stats.permutation_test(a, b, seed=1).p == t.p


def test_difference_sentence():
    diff = stats.Estimate(-412.0, -701.4, -120.2, 0.95, 2000, 0, 80)
    test = stats.TestResult("permutation", 0.0041, False, {})
    s = stats.difference_sentence("g-index", "A", "B", diff, test, 80)
    assert s == "B's g-index is higher than A's by 412 [95% CI 120, 701], p = 0.004 over 80 shared tasks"
    same = stats.difference_sentence("mean θ", "A", "B", stats.Estimate(0, -0.1, 0.1, 0.95, 2000, 0, 3), test, 3)
    assert same.startswith("A and B have the same mean θ")


def test_single_task_strata_are_pooled():
    # one task per domain: resampled as one pooled stratum, not frozen
    v = np.arange(10, dtype=float)
    e = stats.bootstrap_mean(v, [f"d{i}" for i in range(10)], seed=2)
    plain = stats.bootstrap_mean(v, None, seed=2)
    assert e.high > e.low and (e.low, e.high) == (plain.low, plain.high)
    idx = stats.stratified_indices(5, ["a", "a", "b", "c", "d"], 500, seed=0)
    assert set(np.unique(idx[:, :2])) == {0, 1}  # stratum a stays within a
    assert set(np.unique(idx[:, 2:])) == {2, 3, 4}  # b, c, d pooled
