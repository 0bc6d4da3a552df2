"""Per-text membership scores from per-token log-probabilities.

Every function takes the natural-log probabilities ``log p(x_t | x_<t)`` of one text's tokens
(a 1-d float array, as :func:`copyscope.lm.score.token_logprobs` returns them) and returns one
float. The *log-perplexity* of a text is its mean token negative log-likelihood (nats),
``-mean(logprobs)``; nothing is exponentiated.

Each score keeps the orientation of the paper that defines it; :data:`MEMBER_SIGN` gives, per
score, the sign that turns it into "higher = more likely a training member" for the detector
evaluation (:mod:`copyscope.membership.evaluate`).
"""

from __future__ import annotations

import math
import zlib

import numpy as np

__all__ = [
    "KS",
    "MEMBER_SIGN",
    "log_perplexity",
    "lowercase_ratio",
    "min_k_prob",
    "reference_ratio",
    "text_scores",
    "zlib_bytes",
    "zlib_ratio_carlini",
    "zlib_ratio_shi",
]

KS = (5, 10, 20, 30, 50)
"""The Min-K% Prob percentages reported (Shi et al. 2024; 20% is the headline)."""


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
}
"""Per score column of :func:`text_scores`: +1 when a higher value means "member", -1 when
lower does."""


def text_scores(
    logprobs, text: str, *, reference_logprobs=None, lowercase_logprobs=None
) -> dict[str, float]:
    """Every score of one text: ``loss``, ``min_k_<k>`` for k in :data:`KS`, ``zlib_carlini``,
    ``zlib_shi`` and, when their log-probabilities are given, ``reference`` and
    ``lowercase``."""
    out = {"loss": log_perplexity(logprobs)}
    out.update({f"min_k_{k}": min_k_prob(logprobs, k) for k in KS})
    out["zlib_carlini"] = zlib_ratio_carlini(logprobs, text)
    out["zlib_shi"] = zlib_ratio_shi(logprobs, text)
    if reference_logprobs is not None:
        out["reference"] = reference_ratio(logprobs, reference_logprobs)
    if lowercase_logprobs is not None:
        out["lowercase"] = lowercase_ratio(logprobs, lowercase_logprobs)
    return out
