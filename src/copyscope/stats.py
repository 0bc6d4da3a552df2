"""Statistics shared by the stages (a base module: any stage may import it)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np


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
