"""Continuation overlap, Zhang et al. (2024)'s pilot beside name cloze (no released code).

Each name cloze passage, unmasked, is split into its first ``prompt_tokens`` = 10 tokens (the
prompt, read after one end-of-text token) and its next ``new_tokens`` = 10 tokens (the
target); the model decodes ``new_tokens`` tokens greedily, stopping at its end-of-text token
(:mod:`copyscope.memorize.extraction`, end-of-text policy ``"stop"``). Measures of a
generation g against the target t (length S):

* ``match_fraction`` — the share of the S positions i with ``g[i] == t[i]``; positions the
  generation never reached (it ended early at end-of-text) count as misses, and so does the
  end-of-text token itself;
* ``lcp`` — the number of positions before the first miss (0..S);
* ``exact`` — all S positions match.

Per play the measures are averaged over its passages; across plays, :func:`pearson_ci` gives
Pearson's r with name cloze accuracy (the authors report r = 0.77) and a bootstrap interval.
:func:`spearman_ci` gives Spearman's ρ over items (name cloze correctness against the copies
of a play's planted excerpts) with a bootstrap interval and a permutation p-value.

**Training n-gram overlap** (Duan et al. 2024, MIMIR): :func:`ngram_overlap`, the share of a
text's n-grams (n = 7, 13: :data:`TRAINING_NS`) that occur in the training split, from the
index's per-token L_t (the complement of copyscope's n-gram novelty,
:func:`copyscope.novelty.metrics.novelty_counts`). A non-member with high overlap is nearly a
member; the report stratifies the detector metrics by it.
"""

from __future__ import annotations

import numpy as np

from ..lazy import lazy_module
from ..memorize.extraction import greedy_extract
from ..stats import bootstrap_statistic_ci

scipy_stats = lazy_module("scipy.stats")

__all__ = [
    "TRAINING_NS",
    "continue_passages",
    "ngram_overlap",
    "pearson_ci",
    "spearman_ci",
    "spearman_rho",
]

TRAINING_NS = (7, 13)
"""The n of the training n-gram overlap (MIMIR's 7- and 13-grams)."""


def ngram_overlap(lengths, n: int) -> float:
    """The share of a text's n-grams that occur in the training corpus, from its per-token
    L_t (the longest suffix ending at t found in the corpus, :meth:`copyscope.index.core.Index.
    longest_matches`): the n-gram ending at t (t ≥ n − 1) occurs iff L_t ≥ n, so the overlap
    is 1 − novelty(n) of :func:`copyscope.novelty.metrics.novelty_counts`. NaN for a text of
    fewer than n tokens."""
    from ..novelty.metrics import novelty_counts

    if n < 1:
        raise ValueError(f"expected n >= 1, got {n}")
    novel, total = novelty_counts(np.asarray(lengths, dtype=np.int64), n)
    return float("nan") if total[n - 1] == 0 else 1.0 - novel[n - 1] / total[n - 1]


def _pairs(x, y) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` as float arrays of paired values; ValueError with fewer than 3 pairs or
    a constant variable (no correlation)."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or a.size < 3:
        raise ValueError(f"expected at least 3 pairs of values, got {a.shape} and {b.shape}")
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        raise ValueError("a constant variable has no correlation")
    return a, b


def pearson_ci(
    x, y, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """``(r, low, high)``: Pearson's r of paired values (one pair per play; scipy) and the
    seeded percentile bootstrap interval over resampled pairs (replicates in which either
    variable is constant have no r and are dropped). ValueError with fewer than 3 pairs or a
    constant variable."""
    a, b = _pairs(x, y)
    r = float(scipy_stats.pearsonr(a, b).statistic)

    def statistic(ai, bi):
        keep = (np.ptp(ai, axis=1) > 0) & (np.ptp(bi, axis=1) > 0)
        return _row_pearson(ai[keep], bi[keep])

    return (r, *bootstrap_statistic_ci((a, b), statistic, n_boot=n_boot, seed=seed, level=level))


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of ``a`` with the same row of ``b`` (NaN for a constant row)."""
    a = a - a.mean(axis=-1, keepdims=True)
    b = b - b.mean(axis=-1, keepdims=True)
    den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a * b).sum(axis=-1) / den, np.nan)


def spearman_rho(x, y) -> float:
    """Spearman's ρ of paired values (``scipy.stats.spearmanr``: Pearson's r of the ranks, ties
    at their average rank); ValueError with fewer than 3 pairs or a constant variable."""
    a, b = _pairs(x, y)
    return float(scipy_stats.spearmanr(a, b).statistic)


def spearman_ci(
    x, y, *, n_boot: int = 1000, n_perm: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float, float]:
    """``(rho, low, high, p_value)``: Spearman's ρ of paired values (``scipy.stats.spearmanr``:
    Pearson's r of the ranks, ties at their average rank), the seeded percentile bootstrap
    interval over resampled pairs (each replicate ranked anew; replicates in which either
    variable is constant are dropped) and the two-sided permutation p-value
    (``scipy.stats.permutation_test`` pairing ``x`` with permuted ``y``: exact when n! ≤
    ``n_perm``, else ``n_perm`` seeded permutations). ValueError with fewer than 3 pairs or a
    constant variable."""
    a, b = _pairs(x, y)
    rho = spearman_rho(a, b)

    def replicates(ai, bi):
        reps = _row_pearson(scipy_stats.rankdata(ai, axis=1), scipy_stats.rankdata(bi, axis=1))
        return reps[np.isfinite(reps)]

    lo, hi = bootstrap_statistic_ci((a, b), replicates, n_boot=n_boot, seed=seed, level=level)
    ra = scipy_stats.rankdata(a)

    def statistic(v, axis=-1):
        return _row_pearson(np.broadcast_to(ra, v.shape), scipy_stats.rankdata(v, axis=axis))

    test = scipy_stats.permutation_test(
        (b,),
        statistic,
        permutation_type="pairings",
        vectorized=True,
        n_resamples=n_perm,
        alternative="two-sided",
        rng=np.random.default_rng([seed, 1]),
    )
    return rho, float(lo), float(hi), float(test.pvalue)


def continue_passages(
    model,
    tokenizer,
    passages: list[str],
    *,
    prompt_tokens: int = 10,
    new_tokens: int = 10,
    batch_size: int = 20,
    device="cpu",
) -> list[dict | None]:
    """The measures (``match_fraction``, ``lcp``, ``exact``) of the greedy continuation of each
    passage's first ``prompt_tokens`` tokens against its next ``new_tokens`` tokens
    (:func:`copyscope.memorize.extraction.greedy_extract`, end-of-text policy ``"stop"``). A
    passage with fewer than ``prompt_tokens + new_tokens`` tokens gets None (the caller logs
    the skip)."""
    ids = [np.asarray(tokenizer.encode(p, add_special_tokens=False), np.int64) for p in passages]
    keep = [i for i, x in enumerate(ids) if x.size >= prompt_tokens + new_tokens]
    found = greedy_extract(
        model,
        [ids[i] for i in keep],
        prompt_tokens=prompt_tokens,
        suffix_tokens=new_tokens,
        eos_id=tokenizer.eos_token_id,
        at_eos="stop",
        batch_size=batch_size,
        device=device,
    )
    result: list[dict | None] = [None] * len(passages)
    for i, (_, measures) in zip(keep, found, strict=True):
        result[i] = measures
    return result
