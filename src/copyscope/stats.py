"""Statistics shared by the stages (a base module: any stage may import it)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import pandas as pd

from .lazy import lazy_module

# imported at first use: the workflow reads the scorecard's claims on every start (copyscope.lazy)
scipy_stats = lazy_module("scipy.stats")


def permutation_tails(null, observed: float, tol: float = 1e-12) -> tuple[float, float]:
    """One-sided Monte Carlo permutation p-values of ``observed`` against the statistics of
    ``len(null)`` random permutations: (P(T* ≥ T), P(T* ≤ T)), each (1 + hits) / (1 + draws)
    (Phipson & Smyth 2010: never 0, valid at any number of draws); ``tol`` counts a
    permutation within it of the observed value as a tie (floating-point sums)."""
    null = np.asarray(null, dtype=float)
    draws = len(null)
    up = (1 + int(np.sum(null >= observed - tol))) / (1 + draws)
    down = (1 + int(np.sum(null <= observed + tol))) / (1 + draws)
    return up, down


def pooled_ratio_permutation_test(
    num_a, den_a, num_b, den_b, *, draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-sample permutation test of a difference of pooled ratios, one per column: items of
    group a (rows of ``num_a``/``den_a``) and of group b, the statistic
    ``Σ num_a / Σ den_a − Σ num_b / Σ den_b`` (e.g. the pooled novelty(n) of two text sets,
    one column per n: novel and total n-grams per text), its null distribution from
    ``draws`` random reassignments of the pooled items to the two groups, sizes kept (seeded;
    every column of one draw uses the same reassignment). Exact under exchangeability of the
    items, so it keeps its level on data a bootstrap interval of 50 skewed items covers badly
    (Good 2005, ch. 3); with equal group sizes it stays valid for unequal spreads (Romano
    1990). Returns (observed difference, P(T* ≥ T), P(T* ≤ T)) per column, each p
    (1 + hits) / (1 + valid draws) (:func:`permutation_tails`; a draw whose group has no
    denominator in a column is left out of that column); NaN where the observed difference
    is NaN. Example: a two items of 1 novel n-gram in 1, b two of 0 in 1: T = 1, and of the
    6 regroupings only the one that keeps the groups gives T* ≥ 1 (P(T* ≥ T) → 1/6)."""
    num = np.vstack([np.asarray(num_a, float), np.asarray(num_b, float)])
    den = np.vstack([np.asarray(den_a, float), np.asarray(den_b, float)])
    n_a = len(num_a)
    observed = safe_ratio(num[:n_a].sum(0), den[:n_a].sum(0)) - safe_ratio(
        num[n_a:].sum(0), den[n_a:].sum(0)
    )
    columns = num.shape[1]
    up, down = np.full(columns, np.nan), np.full(columns, np.nan)
    if not n_a or n_a == len(num) or draws <= 0:
        return observed, up, down
    labels = np.zeros(len(num))
    labels[:n_a] = 1.0
    chosen = np.random.default_rng(seed).permuted(np.tile(labels, (draws, 1)), axis=1)
    num_in, den_in = chosen @ num, chosen @ den  # integer-valued sums: exact in float64
    null = safe_ratio(num_in, den_in) - safe_ratio(num.sum(0) - num_in, den.sum(0) - den_in)
    for j in range(columns):
        if not np.isfinite(observed[j]):
            continue
        column = null[:, j][np.isfinite(null[:, j])]
        if len(column):
            up[j], down[j] = permutation_tails(column, observed[j])
    return observed, up, down


def separation_permutation_test(
    a1, b1, a2, b2, *, draws: int, seed: int
) -> tuple[tuple[float, float, float], ...]:
    """Permutation tests of two separations and of their difference: ``s1 = mean(a1) −
    mean(b1)`` and ``s2 = mean(a2) − mean(b2)`` (e.g. a benchmark's non-members' and members'
    mean NLL: how far a detector separates them) and ``T = s1 − s2``.

    Each separation is :func:`pooled_ratio_permutation_test` of its pair's values (each of
    denominator 1: the pooled ratio is the mean), ``draws`` regroupings seeded ``seed`` and
    ``seed + 1``: exact where the pair does not separate (exchangeable values, Good 2005,
    ch. 3). T's null comes from the residuals of the model
    without a difference (value = level of the pair + separation common to both; least
    squares) permuted over all values and added back to its fitted values (Freedman & Lane
    1983): the pairs may differ in level (a multiple-choice item's NLL is not a passage's)
    and both may separate; the test is approximate (exact for normal errors of equal
    spread in the limit), where regrouping each pair on its own would hold each
    separation's gap in its spread and miss a real difference.

    Returns ``(s1, p↑, p↓)``, ``(s2, p↑, p↓)``, ``(T, p↑, p↓)``, each p (1 + hits) /
    (1 + draws) (:func:`permutation_tails`); NaN where a group is empty. Example: a1 = (2, 2),
    b1 = (0, 0): s1 = 2, and of the 6 regroupings of (2, 2, 0, 0) into two pairs only the
    observed one reaches 2, so P(s1* ≥ s1) → 1/6."""
    groups = [np.asarray(x, float) for x in (a1, b1, a2, b2)]
    out = []
    for k, (a, b) in enumerate((groups[:2], groups[2:])):
        if not len(a) or not len(b) or draws <= 0:
            out.append((float("nan"),) * 3)
            continue
        t, up, down = pooled_ratio_permutation_test(
            a[:, None], np.ones((len(a), 1)), b[:, None], np.ones((len(b), 1)),
            draws=draws, seed=seed + k,
        )  # fmt: skip
        out.append((float(t[0]), float(up[0]), float(down[0])))
    if not all(np.isfinite(o[0]) for o in out):
        return out[0], out[1], (float("nan"),) * 3
    sizes = [len(x) for x in groups]
    values = np.concatenate(groups)
    pair = np.repeat([0.0, 0.0, 1.0, 1.0], sizes)
    first = np.repeat([1.0, 0.0, 1.0, 0.0], sizes)
    design = np.column_stack([np.ones(len(values)), pair, first])
    fitted = design @ np.linalg.lstsq(design, values, rcond=None)[0]
    weights = np.repeat([1 / sizes[0], -1 / sizes[1], -1 / sizes[2], 1 / sizes[3]], sizes)
    t = out[0][0] - out[1][0]
    # the fitted values carry no difference (fitted @ weights = 0): T* is the residuals' share
    rng = np.random.default_rng(seed + 2)
    null = rng.permuted(np.tile(values - fitted, (draws, 1)), axis=1) @ weights
    return out[0], out[1], (t, *permutation_tails(null, t))


# ------------------------------------------------------------------ bootstrap intervals
# One implementation of the percentile bootstrap for every stage. The functions reproduce
# the random draws the stages have always made (one ``numpy.random.default_rng(seed)`` per
# interval, the same calls in the same order), so moving a stage onto them changes no number.


def bootstrap_indices(rng: np.random.Generator, n: int, n_boot: int) -> np.ndarray:
    """``n_boot`` resamples of ``n`` items with replacement as row indices: an
    ``(n_boot, n)`` integer array drawn by one call ``rng.integers(0, n, size=(n_boot, n))``
    (row b lists the items of resample b). ValueError for ``n`` 0."""
    return rng.integers(0, n, size=(n_boot, n))


def bootstrap_weights(rng: np.random.Generator, n: int, n_boot: int) -> np.ndarray:
    """``n_boot`` resamples of ``n`` units with replacement as counts: an ``(n_boot, n)``
    integer array, row b saying how often each unit is drawn in resample b (each row sums to
    ``n``), drawn by one call ``rng.multinomial(n, [1/n] * n, size=n_boot)``. The same
    distribution as :func:`bootstrap_indices`, other draws."""
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot)


@lru_cache(maxsize=16)
def seeded_weights(n: int, n_boot: int, seed: int) -> np.ndarray:
    """:func:`bootstrap_weights` of a fresh ``np.random.default_rng(seed)``, as floats and
    read-only: the weights depend on ``(n, n_boot, seed)`` alone, so repeated intervals of
    the same size (the null calibration's halves, every n of a novelty curve) draw them once.
    The same array as drawing them anew, so the same intervals."""
    w = bootstrap_weights(np.random.default_rng(seed), n, n_boot).astype(float)
    w.flags.writeable = False
    return w


def stratified_indices(rng: np.random.Generator, strata, n_boot: int):
    """``n_boot`` stratified resamples, one at a time: for each replicate, each stratum (an
    array of item indices, in the order given) is resampled with replacement to its own size
    by ``rng.choice(stratum, size=len(stratum), replace=True)`` and the draws are
    concatenated (every replicate keeps every stratum's size, e.g. members and non-members).
    Yields one index array per replicate."""
    strata = [np.asarray(s) for s in strata]
    for _ in range(n_boot):
        yield np.concatenate([rng.choice(s, size=s.size, replace=True) for s in strata])


def central_probabilities(level: float) -> tuple[float, float]:
    """The two probabilities of a central ``level`` interval: ``((1 − level)/2, (1 + level)/2)``
    (0.025 and 0.975 for 0.95)."""
    return (1 - level) / 2, (1 + level) / 2


def complement_probabilities(level: float) -> tuple[float, float]:
    """``(α, 1 − α)`` with ``α = (1 − level)/2``: the probabilities of
    :func:`central_probabilities` as the novelty stage has always written them (equal for
    most levels, one float step apart for a few, e.g. 0.09)."""
    alpha = (1 - level) / 2
    return alpha, 1 - alpha


def percentile_interval(
    reps, level: float = 0.95, *, axis=None, omit_nan: bool = False, probs=None
) -> tuple:
    """The percentile interval ``(low, high)`` of bootstrap replicates ``reps``: their
    quantiles (numpy's default, linear interpolation) at the probabilities ``probs``, by
    default :func:`central_probabilities` of ``level``. ``axis``: replicates along it, one
    interval per remaining position (``None``: all values together); ``omit_nan``: NaN
    replicates are left out (``numpy.nanquantile``; all NaN gives NaN). Each bound is a numpy
    float (an array with ``axis``). Example: reps 0, 1, …, 100 with ``probs`` (0.025, 0.975)
    → (2.5, 97.5)."""
    q = list(central_probabilities(level) if probs is None else probs)
    # numpy's nanquantile is many times slower than quantile: used only where a NaN is
    omit_nan = omit_nan and bool(np.isnan(reps).any())
    if not omit_nan and axis == 0 and np.ndim(reps) == 2:
        # each column's quantiles from its own contiguous row (the same order statistics and
        # interpolation, each column by itself): partitioning across the rows is slower
        lo, hi = np.quantile(np.ascontiguousarray(np.asarray(reps).T), q, axis=1)
        return lo, hi
    lo, hi = (np.nanquantile if omit_nan else np.quantile)(reps, q, axis=axis)
    return lo, hi


def bootstrap_mean_ci(
    values,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    probs=None,
    allow_nan: bool = False,
) -> tuple:
    """``(mean, low, high)``: the mean of ``values`` (over the first axis: one mean per column
    of a 2-D array) and its seeded percentile bootstrap interval, resampling the values (rows)
    with replacement: ``n_boot`` resamples (:func:`bootstrap_indices`), their means, and
    :func:`percentile_interval` (``probs`` as there). Floats for 1-D ``values``, arrays
    otherwise. ValueError with no values, or with a NaN unless ``allow_nan`` (then the NaN
    column's mean and bounds are NaN). Example: values [2, 2] → (2, 2, 2)."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0 or (not allow_nan and np.isnan(v).any()):
        raise ValueError("expected at least one value and no NaN")
    rng = np.random.default_rng(seed)
    reps = v[bootstrap_indices(rng, len(v), n_boot)].mean(axis=1)
    lo, hi = percentile_interval(reps, level, axis=0, probs=probs)
    if v.ndim == 1:
        return float(v.mean()), float(lo), float(hi)
    return v.mean(axis=0), lo, hi


def bootstrap_set_means(sets, n_boot: int, seed: int) -> list[np.ndarray]:
    """The bootstrap replicates of the means of several independent sets of values: one
    generator seeded with ``seed`` draws each set's ``n_boot`` resamples
    (:func:`bootstrap_indices`) in the order of ``sets``; returns one array of ``n_boot``
    resample means per set."""
    rng = np.random.default_rng(seed)
    return [s[bootstrap_indices(rng, s.size, n_boot)].mean(axis=1) for s in sets]


def bootstrap_difference_ci(
    a, b, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """``(delta, low, high)``: the difference of the means ``mean(a) − mean(b)`` of two
    independent sets of values and its seeded percentile bootstrap interval, resampling each
    set with replacement independently of the other (:func:`bootstrap_set_means`, ``a``
    first). ValueError with an empty set or a NaN. Example: a [5, 5], b [1] → (4, 4, 4)."""
    sets = [np.asarray(x, dtype=np.float64) for x in (a, b)]
    if any(s.size == 0 or np.isnan(s).any() for s in sets):
        raise ValueError("expected at least one value in each set and no NaN")
    ma, mb = bootstrap_set_means(sets, n_boot, seed)
    lo, hi = percentile_interval(ma - mb, level)
    return float(sets[0].mean() - sets[1].mean()), float(lo), float(hi)


def bootstrap_statistic_ci(
    arrays, statistic, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """The seeded percentile bootstrap interval ``(low, high)`` of a statistic of paired
    values (e.g. a correlation): ``arrays`` are equally long 1-D arrays whose i-th values
    belong together; one set of resamples (:func:`bootstrap_indices`) is applied to all of
    them, and ``statistic(*resampled)`` gets ``(n_boot, n)`` arrays and returns the replicate
    values to use (leaving out replicates without a value, e.g. a constant variable).
    (NaN, NaN) when it returns none."""
    arrays = [np.asarray(x) for x in arrays]
    rng = np.random.default_rng(seed)
    idx = bootstrap_indices(rng, arrays[0].size, n_boot)
    reps = np.asarray(statistic(*(x[idx] for x in arrays)))
    if not reps.size:
        return float("nan"), float("nan")
    lo, hi = percentile_interval(reps, level)
    return float(lo), float(hi)


def safe_ratio(a, b) -> np.ndarray:
    """``a / b`` elementwise (broadcast), NaN where ``b`` is not positive."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    out = np.full(np.broadcast(a, b).shape, np.nan)
    np.divide(a, b, out=out, where=b > 0)
    return out


def pooled_ratio_interval(
    sums, counts, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95, probs=None
) -> tuple:
    """The seeded percentile bootstrap interval ``(low, high)`` of a pooled ratio
    ``Σ sums / Σ counts`` over units (e.g. the mean over all tokens of documents: ``sums``
    and ``counts`` one entry per document; or one row per unit and a column per measure, one
    interval per column), resampling whole units (a cluster bootstrap): ``n_boot`` draws of
    the units with replacement as counts (:func:`bootstrap_weights`, as floats), each giving
    ``Σ w·sums / Σ w·counts`` (:func:`safe_ratio`: NaN where its count is 0, left out of the
    quantiles: :func:`percentile_interval` with ``omit_nan``, ``probs`` as there). NaN bounds
    (of the shape of one row) with no units or ``n_boot`` 0. Example: sums [2, 3], counts
    [2, 1]: every replicate lies in [1, 3]."""
    n = len(sums)
    if not n or n_boot <= 0:
        nan = np.full(np.shape(sums)[1:], np.nan)
        return nan, nan
    if isinstance(seed, (int, np.integer)):
        w = seeded_weights(n, int(n_boot), int(seed))
    else:  # a seed sequence (unhashable): drawn anew, uncached
        w = seeded_weights.__wrapped__(n, n_boot, seed)
    reps = safe_ratio(w @ sums, w @ counts)
    return percentile_interval(reps, level, axis=0, omit_nan=True, probs=probs)


# ------------------------------------------------------------ proportions, ranks, trends, permutations
def difference_bounds(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    """Bounds on ``a − b`` from two independent intervals: ``(a − b, a_low − b_high,
    a_high − b_low)``; each 95% interval covers its value, so both do with probability at
    least 90%, and then the difference lies within these bounds."""
    return (
        float(a[0]) - float(b[0]),
        float(a[1]) - float(b[2]),
        float(a[2]) - float(b[1]),
    )


def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """The proportion k/n with its Wilson score interval at ``level`` (scipy's
    ``binomtest(k, n).proportion_ci(level, method="wilson")``; NaNs for n = 0)."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    ci = scipy_stats.binomtest(int(k), int(n)).proportion_ci(level, method="wilson")
    return k / n, float(ci.low), float(ci.high)


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """The proportion k/n with its exact (Clopper–Pearson) interval at ``level`` (NaNs for
    n = 0). Unlike a bootstrap over n binary outcomes, it does not collapse to [0, 0] when
    k = 0."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    ci = scipy_stats.binomtest(int(k), int(n)).proportion_ci(level, method="exact")
    return k / n, float(ci.low), float(ci.high)


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """The difference of proportions k1/n1 − k2/n2 with Newcombe's (1998, method 10) 95%
    hybrid score interval, built from the two Wilson intervals."""
    p1, l1, u1 = wilson(k1, n1)
    p2, l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return d, d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def mover(parts: Sequence[Sequence[float]], weights: Sequence[float]) -> tuple[float, float, float]:
    """The linear combination ``Σ w_i θ_i`` of independent estimates ``parts[i] = (θ_i, l_i,
    u_i)``, each with its confidence interval, with the MOVER interval ("method of variance
    estimates recovery", Zou & Donner 2008): ``L = θ − √Σ (w_i θ_i − min(w_i l_i, w_i u_i))²``,
    ``U = θ + √Σ (max(w_i l_i, w_i u_i) − w_i θ_i)²``. With two Wilson intervals and weights
    (1, −1) it is Newcombe's interval (:func:`newcombe`). NaN bounds where a bound is
    missing."""
    theta = sum(w * float(p[0]) for p, w in zip(parts, weights, strict=True))
    down = up = 0.0
    for (v, lo, hi), w in zip(parts, weights, strict=True):
        a, b = sorted((w * float(lo), w * float(hi)))
        down += (w * float(v) - a) ** 2
        up += (b - w * float(v)) ** 2
    if not (math.isfinite(down) and math.isfinite(up)):
        return theta, math.nan, math.nan
    return theta, theta - math.sqrt(down), theta + math.sqrt(up)


def proportions_contrast(
    k: Sequence[int], n: Sequence[int], weights: Sequence[float], level: float = 0.95
) -> tuple[float, float, float]:
    """``Σ w_i k_i / n_i`` of independent proportions with the MOVER interval (:func:`mover`)
    from their Wilson intervals at ``level`` (:func:`wilson`): a difference (weights 1, −1, at
    0.95 Newcombe's interval) or a difference of differences (1, −1, −1, 1). NaNs when some
    n is 0."""
    if any(int(m) <= 0 for m in n):
        return math.nan, math.nan, math.nan
    parts = [wilson(int(a), int(m), level) for a, m in zip(k, n, strict=True)]
    return mover(parts, weights)


def permuted_counts(k: Sequence[int], n: Sequence[int], rng: np.random.Generator) -> np.ndarray:
    """The successes of each group when the pooled binary items of groups of sizes ``n`` (with
    ``k`` successes each) are dealt at random into groups of the same sizes: a random
    permutation of the group labels over the items, drawn group by group from the
    hypergeometric distribution (``rng.hypergeometric``)."""
    good, total = int(sum(k)), int(sum(n))
    out = np.zeros(len(n), dtype=np.int64)
    for i, m in enumerate(n):
        m = int(m)
        if i == len(n) - 1:
            out[i] = good
        elif m:
            out[i] = rng.hypergeometric(good, total - good, m)
        good -= int(out[i])
        total -= m
    return out


Z95 = 1.959963984540054
"""Φ⁻¹(0.975): the half-width of a central 95% normal interval in standard errors."""


def interval_se(lo: float, hi: float, level: float = 0.95) -> float:
    """The standard error a central normal ``level`` interval ``[lo, hi]`` implies:
    ``(hi − lo) / (2 Φ⁻¹((1 + level)/2))`` (NaN for a missing bound)."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return math.nan
    return (float(hi) - float(lo)) / (2 * float(scipy_stats.norm.isf((1 - level) / 2)))


def ranks(x: Sequence[float]) -> np.ndarray:
    """Ranks 1..n of ``x``, ties getting their average rank (as Spearman's ρ uses them)."""
    return pd.Series(np.asarray(x, dtype=float)).rank(method="average").to_numpy()


EXACT_MAX = 8  # rank_test: exact permutation p-values up to this many points ...


N_PERMUTATIONS = 20000  # ... else from this many random permutations


def rank_test(x: Sequence[float], y: Sequence[float], seed: int = 0) -> tuple[float, float]:
    """Spearman's ρ of (x, y) (Pearson correlation of the ranks) and its two-sided permutation
    p-value P(|ρ*| ≥ |ρ|) over permutations of y: exact (all of them) for up to
    :data:`EXACT_MAX` points, else from :data:`N_PERMUTATIONS` random permutations drawn with
    ``seed`` (p = (1 + hits) / (1 + draws)). (NaN, NaN) for fewer than two points or a
    constant x or y; with two points ρ = ±1 and p = 1."""
    rx, ry = ranks(x), ranks(y)
    if len(rx) < 2 or np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return math.nan, math.nan
    rx, ry = rx - rx.mean(), ry - ry.mean()
    rho = float(rx @ ry / np.linalg.norm(rx) / np.linalg.norm(ry))
    if len(rx) <= EXACT_MAX:
        perms = np.array(list(itertools.permutations(ry)))
    else:
        # one call: the same permutations as N_PERMUTATIONS calls of rng.permutation(ry)
        rng = np.random.default_rng(seed)
        perms = rng.permuted(np.tile(ry, (N_PERMUTATIONS, 1)), axis=1)
    rhos = perms @ rx / np.linalg.norm(perms, axis=1) / np.linalg.norm(rx)
    hits = int(np.sum(np.abs(rhos) >= abs(rho) - 1e-9))
    if len(rx) <= EXACT_MAX:
        return rho, hits / len(perms)
    return rho, (1 + hits) / (1 + len(perms))


def sign_test(k: int, m: int) -> float:
    """Two-sided exact binomial p-value of k successes in m trials with p = 1/2:
    min(1, 2 · P(X ≤ min(k, m − k))); NaN for m = 0."""
    if m == 0:
        return math.nan
    tail = sum(math.comb(m, i) for i in range(min(k, m - k) + 1)) / 2**m
    return min(1.0, 2 * tail)


def trend_test(scores: Sequence[int], n: Sequence[int], k: Sequence[int]) -> tuple[float, float]:
    """Exact conditional test of a trend in proportions (the exact Cochran–Armitage /
    linear-by-linear association test; Agresti 2013, §5.8.3): groups with integer ``scores``
    (e.g. the rank of each ladder rung, controls 0) hold ``n`` passages of which ``k``
    succeed. Given the total K = Σk, under no association every choice of K successes among
    the N passages is equally likely (the outcomes permuted over the passages), and
    T = Σ score·k has the distribution computed exactly here by convolution over groups.
    Returns (P(T ≥ T_obs), P(T ≤ T_obs)): one-sided p-values for an increasing and a
    decreasing trend; (1, 1) when K is 0 or N (no outcome varies)."""
    scores = [int(s) for s in scores]
    n, k = [int(v) for v in n], [int(v) for v in k]
    total, big = sum(k), sum(n)
    if total in (0, big):
        return 1.0, 1.0
    observed = sum(s * x for s, x in zip(scores, k, strict=True))
    # dist[(successes so far, T so far)] = number of ways (exact integers)
    dist: dict[tuple[int, int], int] = {(0, 0): 1}
    for s, m in zip(scores, n, strict=True):
        step: dict[tuple[int, int], int] = {}
        for (c, t), ways in dist.items():
            for x in range(min(m, total - c) + 1):
                key = (c + x, t + s * x)
                step[key] = step.get(key, 0) + ways * math.comb(m, x)
        dist = step
    final = {t: w for (c, t), w in dist.items() if c == total}
    norm = sum(final.values())
    up = sum(w for t, w in final.items() if t >= observed) / norm
    down = sum(w for t, w in final.items() if t <= observed) / norm
    return float(up), float(down)


def kendall_tails(x: Sequence[float], y: Sequence[float]) -> tuple[float, float, float]:
    """Kendall's τ_b of (x, y) and its one-sided p-values (P(τ* ≤ τ), P(τ* ≥ τ)) under
    independence (scipy.stats.kendalltau: its exact null distribution for small samples
    without ties, else the normal approximation); NaN for fewer than 3 points or a constant x
    or y. Example: x = 1..5, y = 5..1 → τ = −1, P(τ* ≤ τ) = 1/5! = 1/120."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan, math.nan, math.nan
    lower = scipy_stats.kendalltau(x, y, alternative="less")
    upper = scipy_stats.kendalltau(x, y, alternative="greater")
    return float(lower.statistic), float(lower.pvalue), float(upper.pvalue)


def alternate_halves(groups: Sequence, order: Sequence) -> np.ndarray:
    """Per item, whether it falls in the first half of its group: each group's items sorted by
    ``order`` (ties by position) and dealt alternately to the first half, the second, the
    first, … Example: groups a, a, a, b, order 3, 1, 2, 0 → True, True, False, True (a's
    items by order are the 2nd, 3rd, 1st: first, second, first half; b's only item first)."""
    frame = pd.DataFrame({"g": list(groups), "o": list(order), "i": np.arange(len(groups))})
    frame = frame.sort_values(["g", "o", "i"], kind="stable")
    first = (frame.groupby("g", sort=False).cumcount() % 2 == 0).to_numpy()
    out = np.empty(len(frame), dtype=bool)
    out[frame["i"].to_numpy()] = first
    return out


def split_half_trend(
    groups: Sequence, order: Sequence, x, xw, y, yw
) -> tuple[float, float, float, int]:
    """Is there a monotone association *between groups* (e.g. decodings) of two ratio means,
    beyond what the items (texts) carry? Each group's items are split in two alternate halves
    (:func:`alternate_halves` by ``order``, e.g. the prompt window); X_g = Σx/Σxw over the
    first half, Y_g = Σy/Σyw over the second; the statistic is Kendall's τ of (X_g, Y_g) over
    the groups with at least one item in each half, tested by :func:`kendall_tails`.

    Items whose own x and y are related (texts that copy more are easier to predict) give the
    means of the same items a correlation of that sign even where the groups do not differ;
    X_g and Y_g from disjoint items have independent sampling errors, so without a group
    effect the pairing of the X's and Y's is random and τ's null distribution is exact. (A
    random regrouping of the items cannot serve as the null of a rank statistic: the items
    carry the group effect with them, so random groups line up as well as the real ones.)
    Returns (τ, P(τ* ≤ τ), P(τ* ≥ τ), the number of groups)."""
    first = alternate_halves(groups, order)
    frame = pd.DataFrame({"g": list(groups), "first": first, "x": x, "xw": xw, "y": y,
                          "yw": yw})  # fmt: skip
    a = frame[frame["first"]].groupby("g")[["x", "xw"]].sum()
    b = frame[~frame["first"]].groupby("g")[["y", "yw"]].sum()
    both = a.join(b, how="inner")
    both = both[(both["xw"] > 0) & (both["yw"] > 0)]
    tau, lower, upper = kendall_tails(both["x"] / both["xw"], both["y"] / both["yw"])
    return tau, lower, upper, len(both)


def z_signs(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], alpha: float) -> list[int]:
    """Simultaneous comparisons of paired intervals ``a[j]``, ``b[j]`` (each ``(value, low,
    high)``, a 95% interval): +1 where a lies above b, −1 below, 0 otherwise, such that all
    comparisons together err with probability at most ``alpha`` (Bonferroni over the k
    pairs, α/2 per direction). Each standard error is read off the interval's half-width on
    the side facing the other value (÷ 1.96, so skewed bootstrap intervals are used on the
    side that matters) and z = (a − b) / √(se_a² + se_b²) is compared to Φ⁻¹(1 − α/(2k))."""
    k = len(a)
    if not k:
        return []
    crit = float(scipy_stats.norm.isf(alpha / (2 * k)))
    out = []
    for (va, la, ha), (vb, lb, hb) in zip(a, b, strict=True):
        if not all(np.isfinite(v) for v in (va, la, ha, vb, lb, hb)):
            out.append(0)
            continue
        d = va - vb
        se_a = (va - la) if d > 0 else (ha - va)
        se_b = (hb - vb) if d > 0 else (vb - lb)
        se = math.hypot(se_a, se_b) / 1.959964
        if d == 0:
            out.append(0)
        elif se == 0:
            out.append(int(np.sign(d)))
        else:
            out.append(int(np.sign(d)) if abs(d) / se > crit else 0)
    return out


def relative_excess(a, b, n_boot: int, seed: int) -> tuple[float, float, float]:
    """``mean(a) / mean(b) − 1`` of two independent sets of per-text values (how much higher
    a's mean is, as a share of b's) with its seeded 95% percentile bootstrap interval, each set
    resampled on its own (:func:`copyscope.stats.bootstrap_set_means`); NaN where a mean of
    b is not positive. Example: a [3, 3], b [2, 2] → (0.5, 0.5, 0.5)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ma, mb = bootstrap_set_means([a, b], n_boot, seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        reps = np.where(mb > 0, ma / np.where(mb > 0, mb, 1.0) - 1, np.nan)
        value = a.mean() / b.mean() - 1 if b.mean() > 0 else math.nan
    if np.isnan(reps).all():
        return float(value), math.nan, math.nan
    lo, hi = percentile_interval(reps, omit_nan=True)
    return float(value), float(lo), float(hi)


def within(groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random permutation of the positions 0..n−1 that moves each position only among those
    of its own group (``groups`` sorted): ``values[within(groups, rng)]`` permutes ``values``
    inside each group."""
    return np.lexsort((rng.random(len(groups)), groups))


def derangement(groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random permutation inside each group (``groups`` sorted) that moves every position of
    a group of two or more (a random cycle through the group); a position alone in its group
    stays. ``values[derangement(groups, rng)]`` gives each position another one's value."""
    order = within(groups, rng)  # a random order inside each group
    g = groups[order]
    first = np.r_[True, g[1:] != g[:-1]]
    last = np.r_[g[1:] != g[:-1], True]
    start = np.maximum.accumulate(np.where(first, np.arange(len(g)), 0))
    nxt = np.where(last, start, np.arange(len(g)) + 1)  # the next in the cycle, wrapping
    out = np.empty(len(g), dtype=np.int64)
    out[order] = order[nxt]
    return out
