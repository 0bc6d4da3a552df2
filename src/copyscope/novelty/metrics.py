"""n-gram novelty metrics of Merrill, Smith & Elazar (2024), "Evaluating n-Gram Novelty of
Language Models Using Rusty-DAWG".  All take per-document arrays of L_t (non-novel suffix
lengths) for the queried (generated / continuation) tokens only.
"""

from __future__ import annotations

import numpy as np


def novelty_counts(lengths: np.ndarray, n_max: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Per-document counts behind novelty(n), n = 1..n_max.

    For one document with L_0..L_{T-1} (0-based t): position t has a full n-gram iff t ≥ n-1,
    and that n-gram is novel (not found in the corpus) iff L_t < n.  Returns (novel[n-1],
    total[n-1]) with total = max(0, T - n + 1).
    """
    L = np.asarray(lengths, dtype=np.int64)
    T = L.shape[0]
    n = np.arange(1, n_max + 1)
    total = np.maximum(0, T - n + 1)
    # position t is novel for every n with L_t < n <= t + 1: a range [L_t + 1, min(t + 1, n_max)]
    lo = L + 1
    hi = np.minimum(np.arange(T) + 1, n_max)
    ok = lo <= hi
    diff = np.zeros(n_max + 2, dtype=np.int64)
    np.add.at(diff, lo[ok], 1)
    np.add.at(diff, hi[ok] + 1, -1)
    novel = np.cumsum(diff)[1 : n_max + 1]
    return novel, total


def novelty_curve(docs: list[np.ndarray], n_max: int = 100) -> np.ndarray:
    """novelty(n) = #{positions t ≥ n-1 with L_t < n} / #{positions t ≥ n-1}, pooled over all
    documents (token occurrences, not n-gram types).  NaN where no document has n tokens.
    """
    novel, total = count_matrix(docs, n_max)
    return _ratio(novel.sum(0), total.sum(0))


def count_matrix(docs: list[np.ndarray], n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """(novel, total) matrices of shape (documents, n_max) from :func:`novelty_counts`."""
    pairs = [novelty_counts(d, n_max) for d in docs]
    if not pairs:
        return np.zeros((0, n_max), np.int64), np.zeros((0, n_max), np.int64)
    return np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])


def _ratio(a, b):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    out = np.full(np.broadcast(a, b).shape, np.nan)
    np.divide(a, b, out=out, where=b > 0)
    return out


def bootstrap_novelty(
    novel: np.ndarray, total: np.ndarray, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap CI of the pooled novelty(n), resampling documents with replacement."""
    D = novel.shape[0]
    if D == 0 or n_boot <= 0:
        nan = np.full(novel.shape[1], np.nan)
        return nan, nan
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(D, np.full(D, 1.0 / D), size=n_boot).astype(float)
    curves = _ratio(weights @ novel, weights @ total)
    alpha = (1 - level) / 2
    return np.nanquantile(curves, alpha, axis=0), np.nanquantile(curves, 1 - alpha, axis=0)


def bootstrap_mean(values_per_doc: list[np.ndarray], n_boot: int = 1000, seed: int = 0, level=0.95):
    """Pooled mean over all tokens and its percentile bootstrap CI over documents."""
    sums = np.array([float(np.sum(v)) for v in values_per_doc])
    counts = np.array([len(v) for v in values_per_doc], dtype=float)
    point = sums.sum() / counts.sum() if counts.sum() else np.nan
    if not len(sums) or n_boot <= 0:
        return point, np.nan, np.nan
    rng = np.random.default_rng(seed)
    w = rng.multinomial(len(sums), np.full(len(sums), 1.0 / len(sums)), size=n_boot)
    boot = _ratio(w @ sums, w @ counts)
    alpha = (1 - level) / 2
    return point, float(np.nanquantile(boot, alpha)), float(np.nanquantile(boot, 1 - alpha))


def lower_bound(n: np.ndarray, corpus_size: int, p: float = 0.9, bits_per_token: float = 1.8):
    """Merrill et al.'s no-duplication lower bound on novelty(n) for text of entropy ℓ bits/token:
    LB(n) = max(0, 1 − |C| · 2^(n·(log2 p − ℓ))), p = share of non-deterministic tokens.
    copyscope uses the real |C| (the authors' plotting code has 4e12 by a typo).
    """
    n = np.asarray(n, dtype=float)
    return np.maximum(0.0, 1.0 - corpus_size * np.exp2(n * (np.log2(p) - bits_per_token)))


def length_histogram(docs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(L values, number of tokens with that L_t)."""
    if not docs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    values, counts = np.unique(np.concatenate(docs), return_counts=True)
    return values, counts


def completion_loss_table(
    lengths: list[np.ndarray], losses: list[np.ndarray], model: str, x_max: int = 30
):
    """Completion loss (Merrill et al. 2024, Fig. 1 right): the model's per-token loss (nats) on
    held-out text, by the length x = L_i + 1 of the n-gram that token i+1 would complete.

    Position i+1 "completes an n-gram seen in training" when L_{i+1} = L_i + 1 (curve
    ``in training``), otherwise the (L_i + 1)-gram is not in training (curve ``not in
    training``); y is the loss of token i+1.  Returns a tidy frame (model, curve, x, loss,
    tokens), x capped at ``x_max``.
    """
    import pandas as pd

    xs, ins, ys = [], [], []
    for L, loss in zip(lengths, losses, strict=True):
        L = np.asarray(L, dtype=np.int64)
        loss = np.asarray(loss, dtype=float)
        if L.shape != loss.shape:
            raise ValueError("lengths and losses must have the same shape per text")
        xs.append(L[:-1] + 1)
        ins.append(L[1:] == L[:-1] + 1)
        ys.append(loss[1:])
    frame = pd.DataFrame(
        {
            "x": np.concatenate(xs) if xs else [],
            "in_training": np.concatenate(ins) if ins else [],
            "loss": np.concatenate(ys) if ys else [],
        }
    )
    frame = frame[frame["x"] <= x_max]
    out = (
        frame.groupby(["in_training", "x"])
        .agg(loss=("loss", "mean"), tokens=("loss", "size"))
        .reset_index()
    )
    out["curve"] = np.where(out["in_training"], "in training", "not in training")
    out.insert(0, "model", model)
    return out[["model", "curve", "x", "loss", "tokens"]]
