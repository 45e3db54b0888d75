"""Statistics for comparing systems on tasks (spec §7; issue 10): how sure is a number?

Pure numpy/scipy, no Qt; scipy loads when a test or pass@k first needs it (it is most of a second
of start-up, and the studio's first window needs none of it). Everything that resamples is seeded (``seed``) and reproducible.

- ``stratified_indices``: bootstrap resamples of tasks, drawn within each stratum (task domain) so
  that every resample keeps the number of tasks per domain.
- ``bootstrap_mean``: percentile interval of the mean of per-task values (the g-index is the mean
  TC, mean θ the mean θ, skill level the mean of a 0/1 solved indicator, pass@k the mean per-task
  estimate) over stratified resamples.
- ``paired_bootstrap``: the interval of mean(a) − mean(b) over the *same* resampled tasks for both
  systems (common random numbers, as seed 002 does for AIQ).
- ``sign_test`` (exact binomial on the signs of the differences, ties dropped),
  ``permutation_test`` (paired sign-flip test of the mean difference: exact enumeration up to
  ``EXACT_PERMUTATION_LIMIT`` non-zero differences, else seeded Monte Carlo),
  ``mcnemar`` (exact binomial test on the discordant solved / not-solved pairs).
- ``pass_at_k``: the unbiased estimator 1 − C(n−c, k)/C(n, k) (n attempts, c exact), vectorised.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

DEFAULT_RESAMPLES = 2000
DEFAULT_LEVEL = 0.95
#: The permutation test enumerates all 2^m sign flips when m (non-zero differences) is at most this.
EXACT_PERMUTATION_LIMIT = 16
MC_PERMUTATIONS = 20_000



def _binomtest(k: int, n: int) -> float:
    """Two-sided exact binomial p value of ``k`` successes in ``n`` trials at 1/2."""
    from scipy.stats import binomtest

    return binomtest(k, n, 0.5).pvalue


class Record:
    """A dataclass that reads as a dict (``to_dict``: ``dataclasses.asdict``, for JSON)."""

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Estimate(Record):
    """A value with its bootstrap interval [low, high] at ``level`` (``resamples`` stratified
    resamples with ``seed``); ``n`` = number of tasks."""

    value: float
    low: float
    high: float
    level: float
    resamples: int
    seed: int
    n: int

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high


@dataclass
class TestResult(Record):
    """A two-sided test: its ``name``, the ``p`` value, the counts it used (``stats``) and whether
    it was ``exact`` (False: Monte Carlo with ``MC_PERMUTATIONS`` draws)."""

    name: str
    p: float
    exact: bool
    stats: dict


# ----- resampling ------------------------------------------------------------------------------


def _as_strata(strata: Sequence | None, n: int) -> list[np.ndarray]:
    """Index arrays of the tasks of each stratum (one stratum when ``strata`` is None). Strata of
    a single task are pooled into one stratum: a stratum of one cannot vary under resampling, and
    a benchmark with one task per domain would otherwise get an interval of zero width."""
    if strata is None:
        return [np.arange(n)]
    labels = list(strata)
    if len(labels) != n:
        raise ValueError(f"{len(labels)} strata labels for {n} tasks")
    groups: dict = {}
    for i, s in enumerate(labels):
        groups.setdefault(s, []).append(i)
    single = [g[0] for g in groups.values() if len(g) == 1]
    out = [np.asarray(g) for g in groups.values() if len(g) > 1]
    if single:
        out.append(np.asarray(sorted(single)))
    return out


def stratified_indices(n: int, strata: Sequence | None = None, resamples: int = DEFAULT_RESAMPLES,
                       seed: int = 0) -> np.ndarray:
    """A (resamples × n) array of task indices: row r is a bootstrap resample of the n tasks,
    drawn with replacement within each stratum (the stratum sizes are kept)."""
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    rng = np.random.default_rng(seed)
    parts = [g[rng.integers(0, g.size, size=(resamples, g.size))] for g in _as_strata(strata, n)]
    return np.concatenate(parts, axis=1) if parts else np.zeros((resamples, 0), dtype=int)


def _interval(samples: np.ndarray, level: float) -> tuple[float, float]:
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(samples, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def bootstrap_mean(values: Sequence[float] | np.ndarray, strata: Sequence | None = None,
                   resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL, seed: int = 0) -> Estimate:
    """The mean of per-task ``values`` with its stratified percentile bootstrap interval. With no
    task: value 0 and interval [0, 0]."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return Estimate(0.0, 0.0, 0.0, level, resamples, seed, 0)
    lo, hi = _interval(_resampled_means(v, strata, resamples, seed), level)
    return Estimate(float(v.mean()), lo, hi, level, resamples, seed, int(v.size))


def _resampled_means(v: np.ndarray, strata: Sequence | None, resamples: int, seed: int) -> np.ndarray:
    """The overall mean of each stratified resample, rescaled per stratum (Rao & Wu 1988): a
    stratum of n_h tasks contributes mean_h + sqrt(n_h / (n_h − 1)) · (mean*_h − mean_h), which makes
    the bootstrap variance of the stratified mean unbiased (the plain within-stratum bootstrap
    shrinks it by (n_h − 1)/n_h: too narrow intervals for small domains). A stratum of one task
    cannot vary."""
    groups = _as_strata(strata, v.size)
    idx = stratified_indices(v.size, strata, resamples, seed)
    total = np.zeros(resamples)
    start = 0
    for g in groups:
        block = v[idx[:, start:start + g.size]]
        start += g.size
        mean_h = v[g].mean()
        scale = math.sqrt(g.size / (g.size - 1)) if g.size > 1 else 0.0
        total += g.size * (mean_h + scale * (block.mean(axis=1) - mean_h))
    return total / v.size


def paired_bootstrap(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, strata: Sequence | None = None,
                     resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL, seed: int = 0) -> Estimate:
    """mean(a) − mean(b) over paired per-task values (a[j], b[j] on the same task j), with the
    interval of the difference over the same resampled tasks for both systems."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired values need the same tasks: {a.size} values against {b.size}")
    return bootstrap_mean(a - b, strata, resamples, level, seed)


# ----- tests -----------------------------------------------------------------------------------


def sign_test(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Exact two-sided sign test of a[j] − b[j]: ties (equal values) are dropped; p is the binomial
    test of the number of positive differences among the m non-zero ones at 1/2 (p = 1 with m = 0)."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    pos, neg = int((d > 0).sum()), int((d < 0).sum())
    m = pos + neg
    p = 1.0 if m == 0 else float(_binomtest(pos, m))
    return TestResult("sign", p, True, {"positive": pos, "negative": neg, "ties": int(d.size - m)})


def permutation_test(a: Sequence[float], b: Sequence[float], seed: int = 0) -> TestResult:
    """Two-sided paired permutation (sign-flip) test of the mean difference a − b: under the null
    each task's difference is equally likely to have either sign. p = share of sign assignments
    whose |mean| is at least the observed one; exact over all 2^m assignments of the m non-zero
    differences when m ≤ EXACT_PERMUTATION_LIMIT, else (k + 1)/(R + 1) over R seeded random ones."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    nz = d[d != 0]
    m = nz.size
    if m == 0:
        return TestResult("permutation", 1.0, True, {"nonzero": 0, "mean_difference": 0.0})
    observed = abs(nz.sum())
    tol = 1e-12 * max(1.0, float(np.abs(nz).sum()))
    if m <= EXACT_PERMUTATION_LIMIT:
        codes = np.arange(2 ** m)[:, None]
        signs = 1 - 2 * ((codes >> np.arange(m)) & 1)
        sums = np.abs(signs @ nz)
        p = float((sums >= observed - tol).mean())
        exact = True
    else:
        rng = np.random.default_rng(seed)
        total = nz.sum()
        count, done = 0, 0
        while done < MC_PERMUTATIONS:
            r = min(4096, MC_PERMUTATIONS - done)
            raw = rng.integers(0, 256, size=(r, (m + 7) // 8), dtype=np.uint8)  # 8 fair coins a byte
            flipped = np.unpackbits(raw, axis=1, count=m).astype(np.float64)
            count += int((np.abs(total - 2.0 * (flipped @ nz)) >= observed - tol).sum())  # Σ ±d
            done += r
        p = (count + 1) / (MC_PERMUTATIONS + 1)
        exact = False
    return TestResult("permutation", min(1.0, p), exact, {"nonzero": int(m), "mean_difference": float(d.mean())})


def mcnemar(solved_a: Sequence[bool], solved_b: Sequence[bool]) -> TestResult:
    """McNemar's exact test on paired solved / not-solved outcomes: b = tasks A solved and B did
    not, c = the reverse; p = two-sided binomial test of b among b + c at 1/2 (p = 1 when b + c = 0)."""
    sa = np.asarray(solved_a, dtype=bool)
    sb = np.asarray(solved_b, dtype=bool)
    if sa.shape != sb.shape:
        raise ValueError(f"paired outcomes need the same tasks: {sa.size} against {sb.size}")
    only_a, only_b = int((sa & ~sb).sum()), int((~sa & sb).sum())
    n = only_a + only_b
    p = 1.0 if n == 0 else float(_binomtest(only_a, n))
    return TestResult("mcnemar", p, True, {"only_a": only_a, "only_b": only_b, "both": int((sa & sb).sum()),
                                            "neither": int((~sa & ~sb).sum())})


# ----- pass@k ----------------------------------------------------------------------------------


def pass_at_k(n: Sequence[int] | np.ndarray | int, c: Sequence[int] | np.ndarray | int, k: int) -> np.ndarray | float:
    """The unbiased pass@k estimate 1 − C(n−c, k)/C(n, k) of a task with n attempts of which c are
    exact (vectorised over tasks). Needs 1 ≤ k ≤ n and 0 ≤ c ≤ n; computed from log-gamma as
    −expm1(log C(n−c, k) − log C(n, k)), so it stays accurate near 0 (1 when n − c < k)."""
    n_arr = np.asarray(n, dtype=np.int64)
    c_arr = np.asarray(c, dtype=np.int64)
    n_arr, c_arr = np.broadcast_arrays(n_arr, c_arr)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if np.any(n_arr < k):
        raise ValueError(f"pass@{k} needs at least {k} attempts per task (a task has {int(n_arr.min())})")
    if np.any((c_arr < 0) | (c_arr > n_arr)):
        raise ValueError("exact attempts must lie between 0 and the number of attempts")
    fail = n_arr - c_arr
    some = fail >= k
    f = np.where(some, fail, k).astype(float)
    from scipy.special import gammaln

    log_ratio = gammaln(f + 1) - gammaln(f - k + 1) - gammaln(n_arr + 1.0) + gammaln(n_arr - k + 1.0)
    out = np.where(some, np.clip(-np.expm1(log_ratio), 0.0, 1.0), 1.0)
    out = np.where(c_arr == 0, 0.0, out)  # exactly 0 (log-gamma rounding would leave ±1e-16)
    return float(out) if out.ndim == 0 else out


def pass_at_k_exact(n: int, c: int, k: int) -> float:
    """The same estimate from the binomial coefficients (math.comb), for checking."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


# ----- plain words -----------------------------------------------------------------------------


def _num(x: float) -> str:
    """A number for a sentence: 3 significant digits below 1000, whole above."""
    ax = abs(x)
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def difference_sentence(what: str, a_name: str, b_name: str, diff: Estimate, test: TestResult, shared: int) -> str:
    """'B's g-index is higher by 412 [95% CI 120, 701], p = 0.004 over 80 shared tasks', from the
    difference mean(b) − mean(a) ... phrased for whichever system is higher. ``diff`` is a − b."""
    level = f"{diff.level * 100:g}% CI"
    if diff.value == 0:
        return (f"{a_name} and {b_name} have the same {what} [{level} {_num(diff.low)}, {_num(diff.high)}], "
                f"{_p(test.p)} over {shared} shared tasks")
    higher, lower = (a_name, b_name) if diff.value > 0 else (b_name, a_name)
    sign = 1 if diff.value > 0 else -1
    lo, hi = sorted((sign * diff.low, sign * diff.high))
    return (f"{higher}'s {what} is higher than {lower}'s by {_num(abs(diff.value))} "
            f"[{level} {_num(lo)}, {_num(hi)}], {_p(test.p)} over {shared} shared tasks")
