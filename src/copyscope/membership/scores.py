"""Per-text membership scores from per-token log-probabilities.

Every function takes the natural-log probabilities ``log p(x_t | x_<t)`` of one text's tokens
(a 1-d float array, as :func:`copyscope.lm.score.token_logprobs` returns them) and returns one
float. The *log-perplexity* of a text is its mean token negative log-likelihood (nats),
``-mean(logprobs)``; nothing is exponentiated. Two scores need more than the log-probabilities:
Min-K%++ the mean and variance of each position's next-token log-probabilities
(:func:`copyscope.lm.score.token_moments`, the same forward pass), DC-PDD each token's
frequency in a reference corpus (copyscope: the run's training index,
:func:`laplace_frequencies`).

Each score keeps the orientation of the paper that defines it; :data:`MEMBER_SIGN` gives, per
score, the sign that turns it into "higher = more likely a training member" for the detector
evaluation (:mod:`copyscope.membership.evaluate`).
"""

from __future__ import annotations

import math
import zlib

import numpy as np

__all__ = [
    "DC_PDD_A",
    "HEADLINE",
    "KS",
    "MEMBER_SIGN",
    "NEEDS",
    "dc_pdd",
    "laplace_frequencies",
    "log_perplexity",
    "lowercase_ratio",
    "min_k_plus_plus",
    "min_k_prob",
    "reference_ratio",
    "text_scores",
    "zlib_bytes",
    "zlib_ratio_carlini",
    "zlib_ratio_shi",
]

KS = (5, 10, 20, 30, 50)
"""The Min-K% Prob and Min-K%++ percentages reported (Shi et al. 2024; 20% is the headline)."""

DC_PDD_A = 0.01
"""DC-PDD's upper bound ``a`` on a token's score (Zhang et al. 2024's hyper-parameter; 0.01 is
the default of the authors' released code)."""


def _logprobs(logprobs) -> np.ndarray:
    lp = np.asarray(logprobs, dtype=np.float64).ravel()
    if lp.size == 0:
        raise ValueError("expected the log-probabilities of at least one token, got none")
    if not np.isfinite(lp).all() or (lp > 0).any():
        raise ValueError("expected finite log-probabilities <= 0")
    return lp


def log_perplexity(logprobs) -> float:
    """The loss score (Yeom et al. 2018; Shi et al.'s "PPL" baseline in log form): the mean
    token negative log-likelihood ``-mean(logprobs)`` in nats. Lower = more likely a member."""
    return float(-_logprobs(logprobs).mean())


def min_k_prob(logprobs, k: float) -> float:
    """Min-K% Prob (Shi et al. 2024, "Detecting Pretraining Data from Large Language Models"):
    the mean negative log-probability of the ``k`` % least likely tokens of the text.

    The number of tokens kept is ``max(1, floor(k / 100 × n))`` for a text of n tokens: the
    authors' code takes ``int(n × k / 100)`` tokens, which is 0 — and the mean undefined — for
    short texts or small k; copyscope keeps at least 1 token (the single least likely one).
    Higher = less likely a member (the authors' sign).
    """
    if not 0 < k <= 100:
        raise ValueError(f"expected a percentage k in (0, 100], got {k}")
    lp = _logprobs(logprobs)
    n = max(1, math.floor(k / 100 * lp.size))
    return float(-np.sort(lp)[:n].mean())


def min_k_plus_plus(logprobs, mean, variance, k: float) -> float:
    """Min-K%++ (Zhang, Sun, Yeats et al. 2024, "Min-K%++: Improved Baseline for Detecting
    Pre-Training Data from Large Language Models"): per token the log-probability standardised
    by the model's next-token distribution at that position,

        z_t = (log p(x_t | x_<t) − μ_t) / σ_t,

    with ``μ_t`` (``mean``) and ``σ_t²`` (``variance``) the mean and variance of
    ``log p(z | x_<t)`` under ``z ~ p(· | x_<t)`` (:func:`copyscope.lm.score.token_moments`);
    the score is the mean of the ``k`` % lowest ``z_t``. As :func:`min_k_prob`, at least one
    token is kept: ``max(1, floor(k / 100 × n))`` (the authors' code takes
    ``int(n × k / 100)``). Higher = more likely a member (the authors' sign).

    A position whose distribution puts all its mass on one token has ``σ_t = 0``; the text's
    token is then that token (any other has probability 0, an infinite log-probability that
    is rejected) and ``z_t`` is taken as 0 (the authors' code divides 0 by 0).
    """
    if not 0 < k <= 100:
        raise ValueError(f"expected a percentage k in (0, 100], got {k}")
    lp = _logprobs(logprobs)
    mu = np.asarray(mean, dtype=np.float64).ravel()
    var = np.asarray(variance, dtype=np.float64).ravel()
    if mu.shape != lp.shape or var.shape != lp.shape:
        raise ValueError(
            f"expected one mean and one variance per token ({lp.size}), got {mu.size}, {var.size}"
        )
    if not (np.isfinite(mu).all() and np.isfinite(var).all()) or (mu > 0).any() or (var < 0).any():
        raise ValueError("expected finite means <= 0 and finite variances >= 0")
    sigma = np.sqrt(var)
    z = np.divide(lp - mu, sigma, out=np.zeros_like(lp), where=sigma > 0)
    n = max(1, math.floor(k / 100 * lp.size))
    return float(np.sort(z)[:n].mean())


def laplace_frequencies(counts, total: int, vocab_size: int) -> np.ndarray:
    """The Laplace-smoothed unigram frequency ``(count + 1) / (total + vocab_size)`` of tokens
    seen ``counts`` times in a reference corpus of ``total`` tokens over a vocabulary of
    ``vocab_size`` (Zhang et al. 2024, DC-PDD §3.3): every token, also one the corpus never
    holds, gets a frequency in (0, 1), so ``log f`` is finite."""
    c = np.asarray(counts, dtype=np.float64)
    if (c < 0).any() or total < c.max(initial=0) or vocab_size < 1:
        raise ValueError(
            f"expected counts in [0, total] and a vocabulary of >= 1 token, got total {total}, "
            f"vocab_size {vocab_size}"
        )
    return (c + 1) / (total + vocab_size)


def dc_pdd(logprobs, ids, frequencies, a: float = DC_PDD_A) -> float:
    """DC-PDD (Zhang, Zhang, Guo, de Rijke, Fan & Cheng 2024, "Pretraining Data Detection for
    Large Language Models: A Divergence-based Calibration Method", §3.4): each token's
    probability ``p_t = p(x_t | x_<t)`` calibrated by its frequency ``f_t`` in a reference
    corpus (``frequencies``, one per token, e.g. :func:`laplace_frequencies`) as one term of a
    cross-entropy,

        α_t = min(−p_t · log f_t, a),

    and the score is the mean of ``α_t`` over the *first occurrence* of each distinct token id
    of ``ids`` (later repeats are left out). Higher = more likely a member (the paper's
    decision rule; the authors' code reports the negative). Rare tokens the model predicts
    well score high; common tokens score low whatever their probability, which is the
    calibration. The paper and the code take ``−p · log f``, not ``p · log(p / f)``.
    """
    lp = _logprobs(logprobs)
    x = np.asarray(ids).ravel()
    f = np.asarray(frequencies, dtype=np.float64).ravel()
    if x.shape != lp.shape or f.shape != lp.shape:
        raise ValueError(
            f"expected one id and one frequency per token ({lp.size}), got {x.size}, {f.size}"
        )
    if not ((f > 0) & (f <= 1)).all():
        raise ValueError("expected frequencies in (0, 1] (smoothed: laplace_frequencies)")
    if not a > 0:
        raise ValueError(f"expected an upper bound a > 0, got {a}")
    _, first = np.unique(x, return_index=True)
    first.sort()
    alpha = np.minimum(-np.exp(lp[first]) * np.log(f[first]), a)
    return float(alpha.mean())


def zlib_bytes(text: str) -> int:
    """Length in bytes of the zlib-compressed UTF-8 text (default compression level): the
    "zlib entropy" of Carlini et al. (2021)."""
    return len(zlib.compress(text.encode("utf-8")))


def zlib_ratio_carlini(logprobs, text: str) -> float:
    """Carlini et al. (2021, "Extracting Training Data from Large Language Models")'s zlib
    ratio: ``zlib_bytes(text) / log_perplexity``. Text the model finds much more predictable
    than zlib does scores high; higher = more likely a member. ``inf`` when the
    log-perplexity is 0 (every token certain)."""
    lppl = log_perplexity(logprobs)
    return math.inf if lppl == 0 else zlib_bytes(text) / lppl


def zlib_ratio_shi(logprobs, text: str) -> float:
    """Shi et al. (2024)'s zlib baseline, the reciprocal direction:
    ``log_perplexity / zlib_bytes(text)``, the (positive) log-perplexity — the mean token
    negative log-likelihood in nats — divided by the zlib bytes, as their code computes it
    (``log(ppl) / zlib_entropy``). Higher = less likely a member."""
    return log_perplexity(logprobs) / zlib_bytes(text)


def reference_ratio(logprobs, reference_logprobs) -> float:
    """The reference-model score (Carlini et al. 2021's "Small" comparison in the log form of
    Shi et al. 2024): ``log_perplexity(model) − log_perplexity(reference model)`` on the same
    text. The target model finding the text easier than the reference does (negative values)
    marks a member; higher = less likely a member."""
    return log_perplexity(logprobs) - log_perplexity(reference_logprobs)


def lowercase_ratio(logprobs, lowercase_logprobs) -> float:
    """Carlini et al. (2021)'s lowercase score: ``log_perplexity(lowercased text) /
    log_perplexity(text)`` under the same model (``lowercase_logprobs`` are the model's
    log-probabilities of ``text.lower()``). A memorised text is much easier in its original
    case; higher = more likely a member. ``inf`` when the original's log-perplexity is 0.

    **Sign:** Shi et al. (2024)'s code reports the negative of this ratio in its lowercase
    column (``-(log ppl_lower / log ppl)``, higher = less likely a member); copyscope keeps
    Carlini et al.'s orientation. The ranking, and every detector metric after orienting by
    :data:`MEMBER_SIGN`, is the same."""
    lppl = log_perplexity(logprobs)
    return math.inf if lppl == 0 else log_perplexity(lowercase_logprobs) / lppl


MEMBER_SIGN = {
    "loss": -1,
    **{f"min_k_{k}": -1 for k in KS},
    "zlib_carlini": 1,
    "zlib_shi": -1,
    "reference": -1,
    "lowercase": 1,
    **{f"min_k_pp_{k}": 1 for k in KS},
    "dc_pdd": 1,
}
"""The detectors, declared once: per score column of :func:`text_scores`, +1 when a higher
value means "member", -1 when lower does. The detector table, its thresholds, the texts'
columns and the figures read it."""

HEADLINE = (
    "loss",
    "min_k_20",
    "min_k_pp_20",
    "dc_pdd",
    "zlib_carlini",
    "reference",
    "lowercase",
)
"""The detectors of the ROC figures, the overlap-stratified table and the summary (each
family at its headline setting)."""

NEEDS = {
    **{f"min_k_pp_{k}": "moments" for k in KS},
    "dc_pdd": "frequencies",
}
"""The scores that need more than the log-probabilities, and what (:func:`text_scores`'s
keyword): without it they are absent, never computed from something else."""


def text_scores(
    logprobs,
    text: str,
    *,
    reference_logprobs=None,
    lowercase_logprobs=None,
    moments=None,
    ids=None,
    frequencies=None,
) -> dict[str, float]:
    """Every score of one text: ``loss``, ``min_k_<k>`` for k in :data:`KS`, ``zlib_carlini``,
    ``zlib_shi`` and, when their inputs are given, ``reference`` and ``lowercase`` (their
    log-probabilities), ``min_k_pp_<k>`` for k in :data:`KS` (``moments``: the per-token
    ``(mean, variance)`` of :func:`min_k_plus_plus`) and ``dc_pdd`` (the token ``ids`` and
    their reference ``frequencies``, :func:`dc_pdd`)."""
    out = {"loss": log_perplexity(logprobs)}
    out.update({f"min_k_{k}": min_k_prob(logprobs, k) for k in KS})
    out["zlib_carlini"] = zlib_ratio_carlini(logprobs, text)
    out["zlib_shi"] = zlib_ratio_shi(logprobs, text)
    if reference_logprobs is not None:
        out["reference"] = reference_ratio(logprobs, reference_logprobs)
    if lowercase_logprobs is not None:
        out["lowercase"] = lowercase_ratio(logprobs, lowercase_logprobs)
    if moments is not None:
        out.update({f"min_k_pp_{k}": min_k_plus_plus(logprobs, *moments, k) for k in KS})
    if frequencies is not None:
        out["dc_pdd"] = dc_pdd(logprobs, ids, frequencies)
    return out
