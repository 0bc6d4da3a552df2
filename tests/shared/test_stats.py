"""copyscope.stats: hand-worked permutation p-values and bootstrap intervals, and the stages'
intervals equal to the direct numpy computations they were written as before they shared
copyscope.stats (same generator, same draws, same quantiles: equality, not approximation)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from copyscope import stats
from copyscope.membership import evaluate, overlap, placement
from copyscope.novelty import metrics
from copyscope.report import memorization, name_cloze
from copyscope.stats import permutation_tails


def test_permutation_tails_hand_worked():
    null = [0.1, 0.2, 0.2, 0.5]
    # T = 0.2: 3 of 4 at or above (ties count), 3 of 4 at or below: (1 + 3) / 5 each
    assert permutation_tails(null, 0.2) == (0.8, 0.8)
    # above every permutation: P(≥) = 1/5 (never 0), P(≤) = 5/5
    assert permutation_tails(null, 0.9) == (0.2, 1.0)
    # a float sum a hair above a tie still ties; with a tolerance of 0 it does not
    assert permutation_tails(null, 0.2 + 1e-15) == (0.8, 0.8)
    assert permutation_tails(null, 0.2 + 1e-15, tol=0.0) == (0.4, 0.8)


def test_pooled_ratio_permutation_test_hand_worked_and_exact():
    """a: two texts of 1 novel n-gram in 1; b: two of 0 in 1. T = 1; of the C(4, 2) = 6
    regroupings only the one that keeps the groups reaches 1, so P(T* ≥ T) → 1/6 and
    P(T* ≤ T) = 1; the second column (equal ratios) has T = 0, every T* ≥ 0 and ≤ 0."""
    a_num, b_num, den = [[1, 1], [1, 1]], [[0, 1], [0, 1]], [[1, 1], [1, 1]]
    t, up, down = stats.pooled_ratio_permutation_test(a_num, den, b_num, den, draws=20000, seed=0)
    assert t.tolist() == [1.0, 0.0]
    assert up[0] == pytest.approx(1 / 6, abs=0.01) and down[0] == 1.0
    assert up[1] == 1.0 and down[1] == 1.0
    # the Monte Carlo p-values approach the exact ones over every regrouping
    rng = np.random.default_rng(3)
    num, tot = rng.integers(0, 6, (8, 3)), rng.integers(6, 9, (8, 3))
    t, up, down = stats.pooled_ratio_permutation_test(
        num[:4], tot[:4], num[4:], tot[4:], draws=40000, seed=1
    )
    exact = []
    for chosen in itertools.combinations(range(8), 4):
        mask = np.isin(np.arange(8), chosen)
        exact.append(num[mask].sum(0) / tot[mask].sum(0) - num[~mask].sum(0) / tot[~mask].sum(0))
    exact = np.array(exact)
    assert up == pytest.approx((exact >= t - 1e-12).mean(0), abs=0.01)
    assert down == pytest.approx((exact <= t + 1e-12).mean(0), abs=0.01)


def test_pooled_ratio_permutation_test_keeps_its_level_on_skewed_texts():
    """Two halves of one set of texts whose copied n-grams sit in a few texts (most texts
    all novel, one in ten with a long copy): the one-sided test at 5% rejects in about 5% of
    splits or fewer; a planted difference (10 more copied n-grams in every text of one half)
    is found."""
    rng = np.random.default_rng(0)
    total = np.full((100, 1), 90)
    copied = np.where(rng.random(100) < 0.1, rng.integers(10, 45, 100), 0)[:, None]
    novel = total - copied
    rejections = 0
    for i in range(400):
        order = np.random.default_rng([1, i]).permutation(100)
        a, b = order[:50], order[50:]
        _, up, _ = stats.pooled_ratio_permutation_test(
            novel[a], total[a], novel[b], total[b], draws=500, seed=i
        )
        rejections += up[0] < 0.05
    assert rejections / 400 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 400)
    _, up, down = stats.pooled_ratio_permutation_test(
        novel[:50], total[:50], novel[50:] - 10, total[50:], draws=2000, seed=0
    )
    assert up[0] < 0.05 and down[0] > 0.5


def test_separation_permutation_test_hand_worked():
    """a1 = (2, 2), b1 = (0, 0): s1 = 2, and of the 6 regroupings of (2, 2, 0, 0) only the
    observed one reaches 2 (P(s1* ≥ s1) → 1/6); a2 = b2 = (1, 1): s2 = 0, every regrouping
    ties. T = 2: the model without a difference fits s = 1 in both pairs, residuals ±0.5 in
    the first pair, ∓0.5 in the second; a permutation reaches T* = 2 only where the four
    residuals of +0.5 fall on a1 and b2 (1 of C(8, 4) = 70 placements)."""
    (s1, up1, down1), (s2, up2, down2), (t, up, down) = stats.separation_permutation_test(
        [2, 2], [0, 0], [1, 1], [1, 1], draws=40000, seed=0
    )
    assert (s1, s2, t) == (2.0, 0.0, 2.0)
    assert up1 == pytest.approx(1 / 6, abs=0.01) and down1 == 1.0
    assert up2 == down2 == 1.0
    assert up == pytest.approx(1 / 70, abs=0.003) and down == 1.0
    # an empty group: no test
    (s1, up1, _), _, (t, up, _) = stats.separation_permutation_test([1.0], [], [1.0], [0.0],
                                                                   draws=10, seed=0)  # fmt: skip
    assert np.isnan([s1, up1, t, up]).all()


def test_separation_permutation_test_keeps_its_level():
    """8 + 8 values per pair, the second pair 3 higher (another format's level): where
    neither pair separates, and where both separate by the same 1, the one-sided tests at 5%
    reject in about 5% of draws or fewer (the separations' own tests only where there is
    none); a separation of the first pair alone is found, and its difference."""
    level = np.repeat([0.0, 0.0, 3.0, 3.0], 8)
    for gap in (0.0, 1.0):
        hits = np.zeros(3)
        for i in range(300):
            v = np.random.default_rng([2, i]).normal(0, 1, 32) + level
            v[np.r_[0:8, 16:24]] += gap
            out = stats.separation_permutation_test(v[:8], v[8:16], v[16:24], v[24:],
                                                    draws=400, seed=i)  # fmt: skip
            hits += [p[1] < 0.05 for p in out]
        bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / 300)
        assert hits[2] / 300 <= bound, (gap, hits)
        assert gap or (hits[:2] / 300 <= bound).all(), hits
    v = np.random.default_rng(9).normal(0, 1, 64)
    (_, up1, _), _, (_, up, down) = stats.separation_permutation_test(
        v[:16] + 2, v[16:32], v[32:48], v[48:], draws=2000, seed=0
    )
    assert up1 < 0.01 and up < 0.05 and down > 0.5

# ------------------------------------------------------------------ the pieces
def test_resamples_are_the_documented_draws():
    idx = stats.bootstrap_indices(np.random.default_rng(3), 5, 7)
    assert idx.shape == (7, 5) and idx.min() >= 0 and idx.max() <= 4
    assert np.array_equal(idx, np.random.default_rng(3).integers(0, 5, size=(7, 5)))
    w = stats.bootstrap_weights(np.random.default_rng(3), 5, 7)
    assert w.shape == (7, 5) and (w.sum(axis=1) == 5).all()
    assert np.array_equal(w, np.random.default_rng(3).multinomial(5, [0.2] * 5, size=7))
    strata = [np.array([0, 1]), np.array([2, 3, 4])]
    got = list(stats.stratified_indices(np.random.default_rng(4), strata, 3))
    rng = np.random.default_rng(4)
    for idx in got:  # each replicate keeps every stratum's size, members first
        want = np.concatenate([rng.choice(s, size=s.size, replace=True) for s in strata])
        assert np.array_equal(idx, want)
        assert set(idx[:2]) <= {0, 1} and set(idx[2:]) <= {2, 3, 4}
    assert len(got) == 3


def test_interval_probabilities():
    assert stats.central_probabilities(0.95) == ((1 - 0.95) / 2, 0.975)
    assert stats.complement_probabilities(0.95) == stats.central_probabilities(0.95)
    # the two spellings differ by one float step at a few levels: kept apart on purpose
    lo, hi = stats.complement_probabilities(0.09)
    assert lo == stats.central_probabilities(0.09)[0]
    assert hi != stats.central_probabilities(0.09)[1] and math.isclose(hi, 0.545)


def test_percentile_interval_hand_worked():
    reps = np.arange(101.0)  # 0, 1, …, 100: the q-quantile is 100·q
    lo, hi = stats.percentile_interval(reps)  # (1 − 0.95) / 2 is a float step above 0.025
    assert math.isclose(lo, 2.5) and lo > 2.5 and hi == 97.5
    assert stats.percentile_interval(reps, 0.5) == (25.0, 75.0)
    p95 = (0.025, 0.975)
    assert stats.percentile_interval(reps, probs=p95) == (2.5, 97.5)
    with_nan = np.r_[reps, np.nan]
    assert stats.percentile_interval(with_nan, omit_nan=True, probs=p95) == (2.5, 97.5)
    assert all(math.isnan(x) for x in stats.percentile_interval(with_nan))
    lo, hi = stats.percentile_interval(np.c_[reps, 2 * reps], axis=0, probs=p95)
    assert lo.tolist() == [2.5, 5.0] and hi.tolist() == [97.5, 195.0]


def test_bootstrap_mean_ci_hand_worked_and_direct():
    assert stats.bootstrap_mean_ci([2.0, 2.0], n_boot=10) == (2.0, 2.0, 2.0)
    v = np.array([1.0, 2.0, 3.0, 6.0])
    mean, lo, hi = stats.bootstrap_mean_ci(v, n_boot=500, seed=1)
    assert mean == 3.0 and 1.0 <= lo < mean < hi <= 6.0
    reps = v[np.random.default_rng(1).integers(0, 4, size=(500, 4))].mean(axis=1)
    assert (lo, hi) == tuple(np.quantile(reps, [(1 - 0.95) / 2, (1 + 0.95) / 2]))
    # one mean and interval per column of a 2-D array, the same resampled rows for all
    m = np.c_[v, 10 * v]
    point, lo2, hi2 = stats.bootstrap_mean_ci(m, n_boot=500, seed=1)
    assert point.tolist() == [3.0, 30.0] and (lo2[0], hi2[0]) == (lo, hi)
    for bad in ([], [1.0, np.nan]):
        with pytest.raises(ValueError, match="at least one value"):
            stats.bootstrap_mean_ci(bad)
    point, lo3, hi3 = stats.bootstrap_mean_ci(np.c_[v, [1, np.nan, 1, 1]], allow_nan=True)
    assert math.isnan(point[1]) and math.isnan(lo3[1]) and lo3[0] == lo


def test_bootstrap_difference_ci_hand_worked_and_direct():
    assert stats.bootstrap_difference_ci([5.0, 5.0], [1.0], n_boot=20) == (4.0, 4.0, 4.0)
    a, b = np.array([3.0, 3.0, 4.0, 4.0]), np.array([1.0, 2.0])
    d, lo, hi = stats.bootstrap_difference_ci(a, b, n_boot=300, seed=2)
    assert d == 2.0 and 1.0 <= lo <= d <= hi <= 3.0
    rng = np.random.default_rng(2)  # a's resamples first, then b's, from one generator
    ma = a[rng.integers(0, 4, size=(300, 4))].mean(axis=1)
    mb = b[rng.integers(0, 2, size=(300, 2))].mean(axis=1)
    assert (lo, hi) == tuple(np.quantile(ma - mb, [0.025000000000000022, 0.975]))
    with pytest.raises(ValueError, match="at least one value"):
        stats.bootstrap_difference_ci([], [1.0])


def test_bootstrap_statistic_ci_resamples_pairs():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    # pairs stay together: x − (x − 1) is 1 in every replicate
    diff = stats.bootstrap_statistic_ci((x, x - 1), lambda a, b: (a - b).mean(axis=1))
    assert diff == (1.0, 1.0)
    assert all(math.isnan(v) for v in stats.bootstrap_statistic_ci((x,), lambda a: a[:0, 0]))
    idx = np.random.default_rng(5).integers(0, 4, size=(50, 4))
    got = stats.bootstrap_statistic_ci((x,), lambda a: a.max(axis=1), n_boot=50, seed=5)
    assert got == tuple(np.quantile(x[idx].max(axis=1), [0.025000000000000022, 0.975]))


def test_pooled_ratio_interval_hand_worked():
    # two units: a draw takes (2, 0), (1, 1) or (0, 2) copies → 4/4, 5/3 or 6/2
    lo, hi = stats.pooled_ratio_interval([2.0, 3.0], [2.0, 1.0], n_boot=1000, seed=0)
    assert (lo, hi) == (1.0, 3.0)
    # a draw of only the empty unit has no ratio and is left out: every other one gives 2
    assert stats.pooled_ratio_interval([0.0, 2.0], [0.0, 1.0], n_boot=200) == (2.0, 2.0)
    assert all(math.isnan(v) for v in stats.pooled_ratio_interval([1.0], [1.0], n_boot=0))
    w = np.random.default_rng(7).multinomial(3, [1 / 3] * 3, size=100).astype(float)
    sums, counts = np.array([1.0, 4.0, 2.0]), np.array([1.0, 2.0, 2.0])
    got = stats.pooled_ratio_interval(sums, counts, n_boot=100, seed=7)
    assert got == tuple(np.nanquantile((w @ sums) / (w @ counts), [0.025000000000000022, 0.975]))
    assert stats.safe_ratio([1.0, 1.0], [2.0, 0.0]).tolist()[0] == 0.5
    assert math.isnan(stats.safe_ratio(1.0, 0.0))


def test_seeded_weights_are_the_fresh_draws_and_cannot_be_changed():
    stats.seeded_weights.cache_clear()
    w = stats.seeded_weights(5, 40, 3)
    fresh = stats.bootstrap_weights(np.random.default_rng(3), 5, 40).astype(float)
    assert np.array_equal(w, fresh) and stats.seeded_weights(5, 40, 3) is w
    assert not np.array_equal(stats.seeded_weights(5, 40, 4), w)  # the seed is part of the key
    with pytest.raises(ValueError):
        w[0, 0] = 99.0  # a caller cannot corrupt the next interval's draws
    # an interval repeated (cached weights) or with a numpy seed, or with a seed sequence
    # (drawn anew), is the same interval
    sums, counts = np.array([1.0, 4.0, 2.0, 0.0, 3.0]), np.array([1.0, 2.0, 2.0, 1.0, 1.0])
    first = stats.pooled_ratio_interval(sums, counts, n_boot=300, seed=9)
    assert stats.pooled_ratio_interval(sums, counts, n_boot=300, seed=np.int64(9)) == first
    stats.seeded_weights.cache_clear()
    assert stats.pooled_ratio_interval(sums, counts, n_boot=300, seed=9) == first
    seq = stats.pooled_ratio_interval(sums, counts, n_boot=300, seed=[9, 1])
    w = np.random.default_rng([9, 1]).multinomial(5, [0.2] * 5, size=300).astype(float)
    assert seq == tuple(np.nanquantile((w @ sums) / (w @ counts), [0.025000000000000022, 0.975]))


# ------------------------------------------------ the stages' intervals, as written before
def _draws(seed, n, n_boot):
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def test_stage_intervals_equal_their_direct_computation():
    rng = np.random.default_rng(0)
    a, b, c = rng.normal(3, 1, 9), rng.normal(2, 1, 7), rng.normal(1, 1, 5)

    # Li's placement: each set resampled in turn by one generator
    g = np.random.default_rng(4)
    ma, mb, mc = (s[g.integers(0, s.size, size=(200, s.size))].mean(axis=1) for s in (a, b, c))
    reps = (ma - mb) / (ma - mc)
    want = tuple(float(x) for x in np.quantile(reps, [(1 - 0.95) / 2, (1 + 0.95) / 2]))
    assert placement.position_ci(a, b, c, n_boot=200, seed=4)[1:] == want

    # Pearson's r over resampled pairs
    x, y = rng.normal(size=12), rng.normal(size=12)
    idx = _draws(3, 12, 300)
    r = np.array([np.corrcoef(x[i], y[i])[0, 1] for i in idx])
    lo, hi = overlap.pearson_ci(x, y, n_boot=300, seed=3)[1:]
    want = np.quantile(r, [0.025, 0.975])
    assert math.isclose(lo, want[0], abs_tol=1e-12) and math.isclose(hi, want[1], abs_tol=1e-12)

    # the memorization ladder's column means (α and 1 − α)
    values = rng.random((20, 3))
    boot = values[_draws(6, 20, 100)].mean(axis=1)
    point, low, high = memorization.bootstrap_means(values, 100, 6)
    assert np.array_equal(low, np.quantile(boot, 0.025000000000000022, axis=0))
    assert np.array_equal(high, np.quantile(boot, 1 - 0.025000000000000022, axis=0))

    # the name cloze accuracy over items and over plays (the literal 0.025, 0.975)
    flags = (rng.random(30) < 0.5).astype(float)
    reps = flags[_draws(9, 30, 400)].mean(axis=1)
    want = (float(flags.mean()), *map(float, np.quantile(reps, [0.025, 0.975])))
    assert name_cloze._mean_ci(flags, 400, 9) == want
    plays = np.array(list("aabbbcdddd" * 3))
    k = np.array([flags[plays == p].sum() for p in "abcd"])
    n = np.array([(plays == p).sum() for p in "abcd"], dtype=float)
    w = np.random.default_rng(9).multinomial(4, np.full(4, 1 / 4), size=400)
    want = (float(k.sum() / n.sum()), *map(float, np.quantile((w @ k) / (w @ n), [0.025, 0.975])))
    assert name_cloze.play_mean_ci(flags, plays, 400, 9) == want

    # the novelty curve and pooled token mean over documents (multinomial counts)
    docs = [rng.integers(0, 6, size=int(m)) for m in rng.integers(1, 15, size=8)]
    novel, total = metrics.count_matrix(docs, 10)
    w = np.random.default_rng(2).multinomial(8, np.full(8, 1.0 / 8), size=150).astype(float)
    with np.errstate(all="ignore"):
        curves = (w @ novel) / (w @ total)
    lo, hi = metrics.bootstrap_novelty(novel, total, 150, 2)
    alpha = (1 - 0.95) / 2
    assert np.array_equal(lo, np.nanquantile(curves, alpha, axis=0), equal_nan=True)
    assert np.array_equal(hi, np.nanquantile(curves, 1 - alpha, axis=0), equal_nan=True)
    vals = [rng.normal(size=len(d)) for d in docs]
    sums, counts = np.array([v.sum() for v in vals]), np.array([len(v) for v in vals], float)
    w = np.random.default_rng(2).multinomial(8, np.full(8, 1.0 / 8), size=150)
    boot = (w @ sums) / (w @ counts)
    want = (sums.sum() / counts.sum(), *map(float, np.nanquantile(boot, [alpha, 1 - alpha])))
    assert metrics.bootstrap_mean(vals, 150, 2) == want

    # the stratified detector bootstrap: one replicate at a time, members first
    labels = np.r_[np.ones(6, int), np.zeros(9, int)]
    scores = rng.normal(size=15) + labels
    g = np.random.default_rng(1)
    pos, neg = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    aucs = []
    for _ in range(50):
        i = np.concatenate([g.choice(pos, size=6, replace=True), g.choice(neg, size=9)])
        aucs.append(evaluate.fast_metrics(scores[i], labels[i])[0])
    want = tuple(float(v) for v in np.quantile(aucs, [(1 - 0.95) / 2, (1 + 0.95) / 2]))
    assert evaluate.bootstrap_ci(scores, labels, n_boot=50, seed=1)["auc"] == want


# ----------------------------------------------------------- proportions, ranks, trends, permutations
def test_proportion_intervals():
    # Wilson 95% interval of 0/10: upper bound 0.2775 (z²/(n+z²))
    assert stats.wilson(0, 10) == pytest.approx((0.0, 0.0, 0.27753), abs=1e-4)
    # Clopper–Pearson of 0/16: upper 1 − 0.025^(1/16) = 0.2059
    assert stats.clopper_pearson(0, 16) == pytest.approx((0.0, 0.0, 0.20591), abs=1e-4)
    assert all(math.isnan(v) for v in stats.clopper_pearson(0, 0))
    # Newcombe (1998) Table II example (method 10): 56/70 − 48/80 = 0.2, interval 0.0524–0.3339
    assert stats.newcombe(56, 70, 48, 80) == pytest.approx((0.2, 0.0524, 0.3339), abs=1e-4)


def test_mover_is_newcombe_for_a_difference_and_adds_variances():
    """MOVER (Zou & Donner 2008) of two Wilson intervals with weights (1, −1) is Newcombe's
    interval; for a difference of differences each side adds the four squared distances."""
    assert stats.proportions_contrast([56, 48], [70, 80], [1, -1]) == pytest.approx(
        stats.newcombe(56, 70, 48, 80)
    )
    # by hand: (0.5 [0.4, 0.7]) − (0.2 [0.1, 0.25]) − (0.3 [0.2, 0.5]) + (0.1 [0.0, 0.3])
    parts = [(0.5, 0.4, 0.7), (0.2, 0.1, 0.25), (0.3, 0.2, 0.5), (0.1, 0.0, 0.3)]
    d, lo, hi = stats.mover(parts, [1, -1, -1, 1])
    assert d == pytest.approx(0.1)
    assert lo == pytest.approx(0.1 - math.sqrt(0.1**2 + 0.05**2 + 0.2**2 + 0.1**2))
    assert hi == pytest.approx(0.1 + math.sqrt(0.2**2 + 0.1**2 + 0.1**2 + 0.2**2))
    assert math.isnan(stats.mover([(0.5, math.nan, 0.6)], [1])[1])
    assert all(math.isnan(v) for v in stats.proportions_contrast([1, 0], [4, 0], [1, -1]))
    # a wider level widens the interval
    narrow = stats.proportions_contrast([6, 2], [10, 10], [1, -1], 0.95)
    wide = stats.proportions_contrast([6, 2], [10, 10], [1, -1], 0.975)
    assert wide[1] < narrow[1] < narrow[2] < wide[2]


def test_permuted_counts_deal_the_pooled_items():
    """Dealing the pooled successes at random keeps every group's size and the total; each
    group's count is hypergeometric (mean k·n_i/N)."""
    rng = np.random.default_rng(0)
    draws = np.array([stats.permuted_counts([10, 0, 2], [10, 20, 10], rng) for _ in range(4000)])
    assert (draws.sum(1) == 12).all() and (draws >= 0).all() and (draws <= [10, 20, 10]).all()
    assert draws.mean(0) == pytest.approx([3, 6, 3], abs=0.15)
    assert stats.permuted_counts([0, 0], [5, 5], rng).tolist() == [0, 0]
    assert stats.permuted_counts([5, 5], [5, 5], rng).tolist() == [5, 5]


def test_interval_se_reads_the_half_width():
    assert stats.interval_se(-1.959964, 1.959964) == pytest.approx(1.0)
    assert math.isnan(stats.interval_se(math.nan, 1.0))


def test_rank_test_exact_and_sampled():
    # 4 points in perfect order: 2 of the 24 permutations reach |rho| = 1
    assert stats.rank_test([1, 2, 3, 4], [9, 7, 5, 1]) == pytest.approx((-1.0, 2 / 24))
    # ties take average ranks: ranks (1, 2.5, 2.5, 4) vs (1, 2, 3, 4)
    rho, _ = stats.rank_test([1, 2, 2, 3], [1, 2, 3, 4])
    assert rho == pytest.approx(4.5 / math.sqrt(4.5 * 5))
    assert all(math.isnan(v) for v in stats.rank_test([1, 1, 1], [1, 2, 3]))
    assert stats.rank_test([1, 2], [2, 1]) == pytest.approx((-1.0, 1.0))
    rho, p = stats.rank_test(range(12), range(12))  # 12! permutations: sampled, seeded
    assert rho == pytest.approx(1.0) and p == pytest.approx(1 / 20001)
    assert stats.rank_test(range(12), range(12)) == (rho, p)


def test_sign_test():
    assert stats.sign_test(6, 6) == pytest.approx(2 / 64)
    assert stats.sign_test(0, 6) == pytest.approx(2 / 64)
    assert stats.sign_test(3, 6) == 1.0
    assert math.isnan(stats.sign_test(0, 0))


def test_kendall_tails_by_hand_and_against_every_pairing():
    # reversed order: every pair discordant, τ = −1, reached by 1 of the 5! pairings
    tau, lower, upper = stats.kendall_tails([1, 2, 3, 4, 5], [5, 4, 3, 2, 1])
    assert tau == pytest.approx(-1.0)
    assert lower == pytest.approx(1 / 120) and upper == pytest.approx(1.0)
    # one swap of neighbours: 9 of 10 pairs concordant, τ = (9 − 1) / 10 = 0.8
    x, y = [1, 2, 3, 4, 5], [1, 2, 3, 5, 4]
    tau, lower, upper = stats.kendall_tails(x, y)
    assert tau == pytest.approx(0.8)
    taus = []
    for perm in itertools.permutations(y):  # the exact null: every pairing equally likely
        c = sum(np.sign(x[i] - x[j]) * np.sign(perm[i] - perm[j])
                for i in range(5) for j in range(i + 1, 5))  # fmt: skip
        taus.append(c / 10)
    assert upper == pytest.approx(np.mean(np.asarray(taus) >= 0.8 - 1e-9))  # 5/120
    assert lower == pytest.approx(np.mean(np.asarray(taus) <= 0.8 + 1e-9))
    assert all(math.isnan(v) for v in stats.kendall_tails([1, 2], [2, 1]))
    assert all(math.isnan(v) for v in stats.kendall_tails([1, 1, 1], [1, 2, 3]))


def test_alternate_halves_by_hand():
    got = stats.alternate_halves(["a", "a", "a", "b"], [3, 1, 2, 0])
    assert got.tolist() == [True, True, False, True]
    got = stats.alternate_halves([0, 0, 0, 0, 1, 1], [0, 1, 2, 3, 5, 4])
    assert got.tolist() == [True, False, True, False, False, True]


def test_split_half_trend_by_hand():
    """Three groups of two items, the first of each (by order) giving X, the second Y:
    X = 1/1, 4/2, 9/3 = 1, 2, 3 (pooled ratios) and Y = 6, 5, 4: τ = −1, P = 1/3! = 1/6."""
    groups = ["a", "a", "b", "b", "c", "c"]
    order = [0, 1, 0, 1, 0, 1]
    x, xw = [1, 99, 4, 99, 9, 99], [1, 1, 2, 1, 3, 1]
    y, yw = [99, 6, 99, 10, 99, 12], [1, 1, 1, 2, 1, 3]
    tau, lower, upper, k = stats.split_half_trend(groups, order, x, xw, y, yw)
    assert (tau, k) == (pytest.approx(-1.0), 3)
    assert lower == pytest.approx(1 / 6) and upper == pytest.approx(1.0)
    # a group with one item has no second half: left out (two groups left: no test)
    tau, *_, k = stats.split_half_trend(groups[:5], order[:5], x[:5], xw[:5], y[:5], yw[:5])
    assert k == 2 and math.isnan(tau)


def test_split_half_trend_is_exact_where_items_covary():
    """Items whose own x and y are strongly related, dealt at random into 8 groups without
    any group effect: the means of the same items would line up (τ near −1 most of the time),
    the halves' τ errs at its nominal rate."""
    rng = np.random.default_rng(0)
    same, split = [], []
    for _ in range(300):
        x = rng.normal(size=64)
        y = -x + 0.3 * rng.normal(size=64)
        groups = rng.permutation(np.repeat(np.arange(8), 8))
        ones = np.ones(64)
        mx = [x[groups == g].mean() for g in range(8)]
        my = [y[groups == g].mean() for g in range(8)]
        same.append(stats.kendall_tails(mx, my)[1] < 0.05)
        split.append(stats.split_half_trend(groups, np.arange(64), x, ones, y, ones)[1] < 0.05)
    assert np.mean(same) > 0.9
    assert np.mean(split) < 0.09  # 5% nominal; 300 draws


def test_z_signs_correct_for_many_comparisons():
    a, b = (0.30, 0.20, 0.40), (0.10, 0.0, 0.20)  # z = 0.2 / (0.1·√2 / 1.96) = 2.77
    assert stats.z_signs([a], [b], 0.05) == [1]  # above Φ⁻¹(1 − 0.025) = 1.96
    assert stats.z_signs([b], [a], 0.05) == [-1]
    assert stats.z_signs([a] * 20, [b] * 20, 0.05) == [0] * 20  # below Φ⁻¹(1 − 0.025/20) = 3.02
    # the side facing the other value: a skewed interval with a long upper tail
    assert stats.z_signs([(0.30, 0.29, 0.9)], [(0.10, 0.09, 0.11)], 0.05) == [1]
    assert stats.z_signs([(0.30, 0.0, 0.31)], [(0.10, 0.09, 0.11)], 0.05) == [0]
    assert stats.z_signs([(0.3, 0.3, 0.3)], [(0.1, 0.1, 0.1)], 0.05) == [1]  # collapsed intervals
    assert stats.z_signs([(0.3, math.nan, 0.4)], [b], 0.05) == [0]
    assert stats.z_signs([], [], 0.05) == []


def test_relative_excess_by_hand():
    assert stats.relative_excess([3, 3], [2, 2], 100, 0) == (0.5, 0.5, 0.5)
    v, lo, hi = stats.relative_excess([1, 2, 3, 4], [1, 1, 2, 2], 500, 0)
    assert v == pytest.approx(2 / 3) and lo < v < hi
    assert all(math.isnan(x) for x in stats.relative_excess([1, 2], [0, 0], 50, 0))


def test_trend_test_by_hand_and_against_brute_force():
    import itertools

    from scipy import stats as scipy_stats

    # two groups: Fisher's exact test. 2 successes among 4 passages, both in the upper group:
    # 1 of the C(4, 2) = 6 equally likely placements
    assert stats.trend_test([0, 1], [2, 2], [0, 2]) == pytest.approx((1 / 6, 1.0))
    for k in ([1, 4], [3, 1], [2, 2]):
        n = [5, 6]
        table = [[n[0] - k[0], k[0]], [n[1] - k[1], k[1]]]
        up, down = stats.trend_test([0, 1], n, k)
        assert up == pytest.approx(scipy_stats.fisher_exact(table, alternative="greater")[1])
        assert down == pytest.approx(scipy_stats.fisher_exact(table, alternative="less")[1])
    # three groups against every placement of the successes
    scores, n, k = [0, 1, 2], [3, 2, 3], [0, 1, 2]
    labels = [s for s, m in zip(scores, n, strict=True) for _ in range(m)]
    observed = sum(s * x for s, x in zip(scores, k, strict=True))
    sums = [sum(labels[i] for i in c) for c in itertools.combinations(range(8), sum(k))]
    up = sum(t >= observed for t in sums) / len(sums)
    down = sum(t <= observed for t in sums) / len(sums)
    assert stats.trend_test(scores, n, k) == pytest.approx((up, down))
    assert stats.trend_test([0, 1], [3, 3], [0, 0]) == (1.0, 1.0)
    assert stats.trend_test([0, 1], [3, 3], [3, 3]) == (1.0, 1.0)


def test_within_permutes_inside_groups_only():
    groups = np.array([1, 1, 1, 2, 2, 5])
    order = stats.within(groups, np.random.default_rng(0))
    assert sorted(order) == list(range(6)) and (groups[order] == groups).all()


def test_derangement_moves_every_position_of_a_group():
    groups = np.array([1, 1, 2, 2, 2, 3, 4, 4, 4, 4])
    for seed in range(20):
        order = stats.derangement(groups, np.random.default_rng(seed))
        assert sorted(order) == list(range(10)) and (groups[order] == groups).all()
        moved = order != np.arange(10)
        assert moved[groups != 3].all() and not moved[groups == 3].any()
