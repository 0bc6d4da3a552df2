"""Li (2023)'s perplexity placement of a benchmark between a clean and a memorised baseline.

Li ("Estimating Contamination via Perplexity: Quantifying Memorisation in Language Model
Evaluation"; code: Contamination_Detector) scores three sets of texts of the same form with
each model:

* **Per sample** — a contiguous window of ``words`` whitespace words starting at a seeded
  uniformly drawn word (the whole text when it is shorter), joined by single spaces,
  tokenized with the model's tokenizer and truncated to the model's context; the score is the
  mean token negative log-likelihood in nats (never exponentiated). **BOS handling
  (copyscope's choice):** the window is read after one end-of-text token, as every copyscope
  score (:func:`copyscope.lm.score.token_logprobs`), so *every* token of the window is scored,
  the first one included; the truncation therefore keeps ``context − 1`` tokens.
* **Per set** — the macro average over samples, with a seeded bootstrap percentile interval
  (:func:`copyscope.stats.bootstrap_mean_ci`).
* **Placement** — the benchmark lies near the memorised baseline (contaminated) or near the
  clean one. The normalised position ``(clean − bench) / (clean − memorised)`` (0 = clean,
  1 = memorised) is **copyscope's** summary; Li's code only plots the three means.
"""

from __future__ import annotations

import numpy as np

from ..stats import bootstrap_mean_ci, bootstrap_set_means, percentile_interval

__all__ = [
    "normalised_position",
    "placement_table",
    "position_ci",
    "sample_nll",
    "window_ids",
    "word_windows",
]


def word_windows(texts: list[str], words: int, seed: int) -> list[str]:
    """Li's sample windows: for each text in order, ``words`` contiguous whitespace words from
    a start drawn uniformly in ``[0, n − words]`` by one generator seeded with ``seed`` (the
    whole text when it has at most ``words`` words), joined by single spaces. ValueError for a
    text without words."""
    if words < 1:
        raise ValueError(f"expected a window of at least 1 word, got {words}")
    rng = np.random.default_rng(seed)
    out = []
    for i, text in enumerate(texts):
        w = text.split()
        if not w:
            raise ValueError(f"text {i} has no words")
        start = int(rng.integers(0, len(w) - words + 1)) if len(w) > words else 0
        out.append(" ".join(w[start : start + words]))
    return out


def window_ids(ids, context: int | None) -> np.ndarray:
    """The token ids of a window truncated to fit the model after its leading end-of-text
    token: the first ``context − 1`` ids (all of them when ``context`` is None)."""
    ids = np.asarray(ids, dtype=np.int64)
    if context is None:
        return ids
    if context < 2:
        raise ValueError(f"expected a model context of at least 2 tokens, got {context}")
    return ids[: context - 1]


def sample_nll(logprobs) -> float:
    """Li's per-sample score: the mean token negative log-likelihood (nats) of the window."""
    lp = np.asarray(logprobs, dtype=np.float64)
    if lp.size == 0:
        raise ValueError("expected the log-probabilities of at least one token, got none")
    return float(-lp.mean())


def normalised_position(clean: float, bench: float, memorised: float) -> float:
    """copyscope's normalised position of the benchmark (not Li's):
    ``(clean − bench) / (clean − memorised)``; 0 = at the clean baseline, 1 = at the
    memorised one. NaN when the two baselines coincide (the position is undefined)."""
    gap = clean - memorised
    return float("nan") if gap == 0 else (clean - bench) / gap


def position_ci(
    clean, bench, memorised, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """``(position, low, high)`` of :func:`normalised_position` of the three sets' per-sample
    NLLs: the point estimate from the set means, the interval from resampling each set
    independently (seeded percentile bootstrap, :func:`copyscope.stats.bootstrap_set_means`;
    replicates with coinciding baselines are dropped)."""
    sets = [np.asarray(x, dtype=np.float64) for x in (clean, bench, memorised)]
    if any(s.size == 0 for s in sets):
        raise ValueError("expected at least one sample in each set")
    means = bootstrap_set_means(sets, n_boot, seed)
    gap = means[0] - means[2]
    ok = gap != 0
    reps = (means[0][ok] - means[1][ok]) / gap[ok]
    point = normalised_position(*(float(s.mean()) for s in sets))
    if reps.size == 0:
        return point, float("nan"), float("nan")
    lo, hi = percentile_interval(reps, level)
    return point, float(lo), float(hi)


def placement_table(
    nll: dict[str, np.ndarray],
    *,
    clean: str = "clean",
    memorised: str = "memorised",
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> list[dict]:
    """One row per set of ``nll`` (set name → per-sample NLLs): ``set``, ``n``, ``mean_nll``,
    ``lo``, ``hi`` (:func:`copyscope.stats.bootstrap_mean_ci`) and, for every set other than
    the two baselines, copyscope's ``position`` with ``position_lo`` / ``position_hi``
    (:func:`position_ci`); the baselines sit at 0 (clean) and 1 (memorised) by definition."""
    rows = []
    for name, values in nll.items():
        mean, lo, hi = bootstrap_mean_ci(values, n_boot=n_boot, seed=seed, level=level)
        row = {"set": name, "n": len(values), "mean_nll": mean, "mean_nll_lo": lo, "mean_nll_hi": hi}
        if name in (clean, memorised):
            pos = (float(name == memorised),) * 3
        else:
            pos = position_ci(
                nll[clean], values, nll[memorised], n_boot=n_boot, seed=seed, level=level
            )
        row["position"], row["position_lo"], row["position_hi"] = pos
        rows.append(row)
    return rows


def window_nlls(
    model, tokenizer, windows: list[str], *, batch_size: int = 20, device="cpu"
) -> tuple[np.ndarray, int]:
    """Per-sample NLLs of ``windows`` (from :func:`word_windows`) under ``model``: each is
    encoded without special tokens, truncated by :func:`window_ids` to the model's context and
    scored after one end-of-text token (batched :func:`copyscope.lm.score.token_logprobs`).
    Returns ``(nlls, truncated)``, ``truncated`` counting the windows that were cut."""
    from ..lm.models import context_length
    from ..lm.score import token_logprobs

    limit = context_length(model)
    full = [np.asarray(tokenizer.encode(w, add_special_tokens=False), np.int64) for w in windows]
    ids = [window_ids(x, limit) for x in full]
    empty = [i for i, x in enumerate(ids) if x.size == 0]
    if empty:
        raise ValueError(f"windows {empty[:5]} encode to no tokens")
    lps = token_logprobs(
        model, ids, eos_id=tokenizer.eos_token_id, batch_size=batch_size, device=device
    )
    truncated = sum(int(a.size != b.size) for a, b in zip(full, ids, strict=True))
    return np.array([sample_nll(lp) for lp in lps]), truncated
