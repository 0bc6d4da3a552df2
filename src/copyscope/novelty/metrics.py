"""n-gram novelty metrics of Merrill, Smith & Elazar (2024), "Evaluating n-Gram Novelty of
Language Models Using Rusty-DAWG".  All take per-document arrays of L_t (non-novel suffix
lengths) for the queried (generated / continuation) tokens only.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..stats import (
    bootstrap_weights,
    complement_probabilities,
    percentile_interval,
    pooled_ratio_interval,
    safe_ratio,
)


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
    return safe_ratio(novel.sum(0), total.sum(0))


def count_matrix(docs: list[np.ndarray], n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """(novel, total) matrices of shape (documents, n_max) from :func:`novelty_counts`, every
    document at once (the same counts: the null calibration and the power table count the
    texts of every draw)."""
    docs = [np.asarray(d, dtype=np.int64) for d in docs]
    if not docs:
        return np.zeros((0, n_max), np.int64), np.zeros((0, n_max), np.int64)
    sizes = np.fromiter((d.shape[0] for d in docs), np.int64, len(docs))
    L = np.concatenate(docs) if sizes.sum() else np.zeros(0, np.int64)
    if L.size and L.min() < -1:  # a negative start: novelty_counts' own (wrapping) indexing
        pairs = [novelty_counts(d, n_max) for d in docs]
        return np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])
    n = np.arange(1, n_max + 1)
    total = np.maximum(0, sizes[:, None] - n[None, :] + 1)
    doc = np.repeat(np.arange(len(docs)), sizes)
    t = np.arange(L.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)  # position in its doc
    lo, hi = L + 1, np.minimum(t + 1, n_max)
    ok = lo <= hi
    width = n_max + 2
    starts = np.bincount(doc[ok] * width + lo[ok], minlength=len(docs) * width)
    ends = np.bincount(doc[ok] * width + hi[ok] + 1, minlength=len(docs) * width)
    diff = (starts - ends).reshape(len(docs), width)
    novel = np.cumsum(diff, axis=1)[:, 1 : n_max + 1]
    return novel.astype(np.int64), total.astype(np.int64)


def bootstrap_novelty(
    novel: np.ndarray, total: np.ndarray, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap CI of the pooled novelty(n), resampling documents with replacement
    (:func:`copyscope.stats.pooled_ratio_interval`: novel / total n-grams per n)."""
    if novel.shape[0] == 0 or n_boot <= 0:
        nan = np.full(novel.shape[1], np.nan)
        return nan, nan
    return pooled_ratio_interval(
        novel, total, n_boot=n_boot, seed=seed, probs=complement_probabilities(level)
    )


def bootstrap_mean(values_per_doc: list[np.ndarray], n_boot: int = 1000, seed: int = 0, level=0.95):
    """Pooled mean over all tokens and its percentile bootstrap CI over documents
    (:func:`copyscope.stats.pooled_ratio_interval` of the documents' sums and lengths)."""
    sums = np.array([float(np.sum(v)) for v in values_per_doc])
    counts = np.array([len(v) for v in values_per_doc], dtype=float)
    point = sums.sum() / counts.sum() if counts.sum() else np.nan
    if not len(sums) or n_boot <= 0:
        return point, np.nan, np.nan
    lo, hi = pooled_ratio_interval(
        sums, counts, n_boot=n_boot, seed=seed, probs=complement_probabilities(level)
    )
    return point, float(lo), float(hi)


def bootstrap_mean_difference(
    a_per_doc: list[np.ndarray],
    b_per_doc: list[np.ndarray],
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    paired: bool = False,
) -> tuple[float, float, float]:
    """(delta, low, high): the pooled mean of ``a`` minus the pooled mean of ``b`` (each over
    all values of its documents, as :func:`bootstrap_mean`) and its percentile bootstrap CI.

    ``paired``: ``a_per_doc[i]`` and ``b_per_doc[i]`` belong to the same unit (a window at two
    prompt lengths, a text under two sources), so each draw resamples the units once and
    weights both sides alike; otherwise each side's documents are resampled independently
    (two samples, e.g. two sets' templates). A draw where a side has no value gives NaN and
    is left out of the quantiles; (delta, NaN, NaN) when ``n_boot`` is 0 or a side is empty.
    Example: a = [[1, 1], [3]], b = [[1], [1, 2]] → delta 5/3 − 4/3 = 1/3.
    """
    sa, ca, sb, cb = (
        np.array([f(v) for v in docs], dtype=float)
        for docs in (a_per_doc, b_per_doc)
        for f in (np.sum, len)
    )
    if paired and len(sa) != len(sb):
        raise ValueError(f"paired: {len(sa)} units on one side, {len(sb)} on the other")
    delta = float(safe_ratio(sa.sum(), ca.sum()) - safe_ratio(sb.sum(), cb.sum()))
    if n_boot <= 0 or not len(sa) or not len(sb):
        return delta, np.nan, np.nan
    rng = np.random.default_rng(seed)
    wa = bootstrap_weights(rng, len(sa), n_boot).astype(float)
    wb = wa if paired else bootstrap_weights(rng, len(sb), n_boot).astype(float)
    boot = safe_ratio(wa @ sa, wa @ ca) - safe_ratio(wb @ sb, wb @ cb)
    if np.isnan(boot).all():
        return delta, np.nan, np.nan
    lo, hi = percentile_interval(boot, omit_nan=True, probs=complement_probabilities(level))
    return delta, float(lo), float(hi)


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


COMPLETION_CURVES = ("in training", "not in training", "in training, extended match")
"""The curves of :func:`completion_loss_table`, in the order of its rows."""


def completion_points(L: np.ndarray, loss: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The (x, loss) points of one text for each curve of :data:`COMPLETION_CURVES`.

    From the text's L_0..L_{T-1} and per-token losses (Merrill et al. 2024, Fig. 1 right, as
    their code, ngram-copying ``CompletionLossPlots``, computes it):

    * ``in training`` (``get_completed_lengths_stats``): every token t ≥ 1 at x = L_t, the size
      of the n-gram it completes, which occurs in training; y = its loss. Tokens with L_t = 0
      (a unigram not in training) have no such n-gram and are left out (the authors group them
      at x = 0, which never occurs on the Pile);
    * ``not in training`` (``get_uncompleted_lengths_stats``): every position i with
      L_i + 1 ≠ L_{i+1}, at x = L_i + 1, the size of the n-gram token i+1 would complete, which
      does not occur in training; y = the loss of token i+1;
    * ``in training, extended match`` (copyscope's earlier definition, kept as a variant): the
      complement of ``not in training`` — positions with L_{i+1} = L_i + 1, at x = L_i + 1.

    Token 0 is never a y value (as in the authors' code). Example: L = [2, 3, 1] → in training
    {3: loss_1, 1: loss_2}; not in training {4: loss_2}; extended match {3: loss_1}.
    """
    L = np.asarray(L, dtype=np.int64)
    loss = np.asarray(loss, dtype=float)
    if L.shape != loss.shape:
        raise ValueError(
            f"lengths and losses must have the same shape, got {L.shape}, {loss.shape}"
        )
    own = L[1:] >= 1
    extended = L[1:] == L[:-1] + 1
    return {
        "in training": (L[1:][own], loss[1:][own]),
        "not in training": (L[:-1][~extended] + 1, loss[1:][~extended]),
        "in training, extended match": (L[:-1][extended] + 1, loss[1:][extended]),
    }


def completion_frame(lengths: list[np.ndarray], losses: list[np.ndarray]):
    """The tokens of every curve of :func:`completion_points` over all texts, as one frame
    (curve, x, loss), texts in order and curves in the order of :data:`COMPLETION_CURVES`
    within each text: the rows :func:`completion_loss_table` averages (and the null
    calibration permutes, :mod:`copyscope.report.calibration`)."""
    import pandas as pd

    parts = []
    for L, loss in zip(lengths, losses, strict=True):
        for curve, (x, y) in completion_points(L, loss).items():
            parts.append(pd.DataFrame({"curve": curve, "x": x, "loss": y}))
    if not parts:
        return pd.DataFrame(columns=["curve", "x", "loss"])
    return pd.concat(parts, ignore_index=True)


COMPLETION_COLUMNS = ("model", "curve", "x", "loss", "tokens")
"""The columns of :func:`completion_loss_table`."""


def completion_aggregate(frame, model: str, x_max: int = 30):
    """:func:`completion_loss_table` of the tokens of :func:`completion_frame`: the mean loss
    and number of tokens per curve and x, x capped at ``x_max``."""
    import pandas as pd

    cols = list(COMPLETION_COLUMNS)
    if not len(frame):
        return pd.DataFrame(columns=cols)
    frame = frame[frame["x"] <= x_max].copy()
    frame["curve"] = pd.Categorical(frame["curve"], COMPLETION_CURVES, ordered=True)
    out = (
        frame.groupby(["curve", "x"], observed=True)
        .agg(loss=("loss", "mean"), tokens=("loss", "size"))
        .reset_index()
    )
    out["curve"] = out["curve"].astype(str)
    out.insert(0, "model", model)
    return out[cols]


def completion_loss_table(
    lengths: list[np.ndarray], losses: list[np.ndarray], model: str, x_max: int = 30
):
    """Completion loss (Merrill et al. 2024, Fig. 1 right): the mean per-token loss (nats) of a
    model on held-out text by n-gram size x, for each curve of :func:`completion_points`
    (pooled over tokens of all texts). Returns a tidy frame (model, curve, x, loss, tokens),
    curves in the order of :data:`COMPLETION_CURVES`, x ascending and capped at ``x_max``.
    """
    return completion_aggregate(completion_frame(lengths, losses), model, x_max)


FREQUENCY_LENGTHS = (4, 8, 16, 32, 64, 128)
"""The fixed n-gram sizes of :func:`completion_loss_frequency` (Merrill et al.'s)."""

SLOPE_COLUMNS = ("model", "n", "tokens", "texts", "slope", "slope_lo", "slope_hi")
"""The columns of :func:`completion_loss_slope`."""

FREQUENCY_COLUMNS = ("model", "n", "log10_count", "loss", "loss_lo", "loss_hi", "tokens", "texts")
"""The columns of :func:`completion_loss_frequency`."""


def frequency_tokens(
    lengths: list[np.ndarray],
    counts: list[np.ndarray],
    losses: list[np.ndarray],
    ns=FREQUENCY_LENGTHS,
):
    """The tokens of the loss-vs-frequency analyses (Merrill et al. 2024): every token t ≥ 1
    of every text whose L_t is one of ``ns``, as a frame (text, n = L_t, log10_C = log10 C_t,
    loss), texts numbered by their position, tokens in text order. C_t ≥ 1 for these tokens
    (the n-gram occurs in training), so log10 C_t is finite. Example: L = [4, 4, 2], C = [10,
    100, 5] → one row, text 0, n 4, log10_C 2 (token 0 is never used, L = 2 is no fixed n)."""
    import pandas as pd

    if not len(lengths):
        return pd.DataFrame()
    for d, (L, C, y) in enumerate(zip(lengths, counts, losses, strict=True)):
        if not (np.shape(L) == np.shape(C) == np.shape(y)):
            raise ValueError(f"text {d}: lengths, counts and losses differ in length")
    sizes = np.array([len(L) for L in lengths])
    text = np.repeat(np.arange(len(lengths)), sizes)
    L = np.concatenate([np.asarray(x) for x in lengths])
    C = np.concatenate([np.asarray(x, dtype=float) for x in counts])
    y = np.concatenate([np.asarray(x, dtype=float) for x in losses])
    keep = np.isin(L, ns)
    keep[np.cumsum(sizes)[sizes > 0] - sizes[sizes > 0]] = False  # token 0 of each text
    return pd.DataFrame({"text": text[keep], "n": L[keep], "log10_C": np.log10(C[keep]),
                         "loss": y[keep]})  # fmt: skip


def ols_slope(stats: np.ndarray) -> np.ndarray:
    """OLS slope of y on x from sufficient statistics ``stats[..., :]`` = (count, Σx, Σy, Σx²,
    Σxy): (N Σxy − Σx Σy) / (N Σx² − (Σx)²); NaN where the x values do not vary (fewer than
    two distinct x). Example: points (0, 1), (1, 3), (2, 5) → stats (3, 3, 9, 5, 13) → 2."""
    s = np.asarray(stats, dtype=float)
    n, sx, sy, sxx, sxy = (s[..., i] for i in range(5))
    den = n * sxx - sx * sx
    num = n * sxy - sx * sy
    out = np.full(den.shape, np.nan)
    # x constant: den is 0 up to rounding; relative to N Σx², a spread below 1e-9 is none
    ok = den > 1e-9 * np.maximum(n * sxx, 1e-300)
    np.divide(num, den, out=out, where=ok)
    return out


def completion_loss_slope(
    lengths: list[np.ndarray],
    counts: list[np.ndarray],
    losses: list[np.ndarray],
    model: str,
    ns=FREQUENCY_LENGTHS,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
):
    """Completion loss vs training frequency as one number per n (Merrill et al. 2024's
    loss-vs-frequency analysis, decidable): for each fixed n of ``ns``, the OLS slope of the
    token loss (nats) on log10 C_t over the tokens t ≥ 1 with L_t = n — the same tokens as
    :func:`completion_loss_frequency` (:func:`frequency_tokens`), unbucketed. A negative
    slope: n-grams seen more often in training are completed with lower loss.

    Returns a tidy frame (model, n, tokens, texts, slope, slope_lo, slope_hi), one row per n
    of ``ns`` in order (tokens 0 where no token has L_t = n): the number of tokens and of
    texts contributing, the slope (NaN with fewer than 2 distinct counts) and its percentile
    bootstrap interval, resampling whole texts (``n_boot`` draws of all texts with
    replacement, one seeded draw shared by every n; a draw without 2 distinct counts is left
    out; NaN when ``n_boot`` is 0).
    """
    import pandas as pd

    cols = list(SLOPE_COLUMNS)
    frame = frequency_tokens(lengths, counts, losses, ns)
    D, ns = len(lengths), list(ns)
    stats = np.zeros((len(ns), D, 5))  # per n and text: count, Σx, Σy, Σx², Σxy
    if not frame.empty:
        x, y = frame["log10_C"].to_numpy(), frame["loss"].to_numpy()
        key = (pd.Index(ns).get_indexer(frame["n"]), frame["text"].to_numpy())
        for i, v in enumerate((np.ones_like(x), x, y, x * x, x * y)):
            np.add.at(stats[..., i], key, v)
    out = pd.DataFrame(
        {
            "model": model,
            "n": ns,
            "tokens": stats[..., 0].sum(1).astype(np.int64),
            "texts": (stats[..., 0] > 0).sum(1),
            "slope": ols_slope(stats.sum(1)),
            "slope_lo": np.nan,
            "slope_hi": np.nan,
        }
    )
    if n_boot > 0 and D:
        w = bootstrap_weights(np.random.default_rng(seed), D, n_boot).astype(float)
        boot = ols_slope(np.einsum("bd,ndk->bnk", w, stats))  # (n_boot, ns)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column: no spread
            out["slope_lo"], out["slope_hi"] = percentile_interval(
                boot, axis=0, omit_nan=True, probs=complement_probabilities(level)
            )
    return out[cols]


def completion_loss_frequency(
    lengths: list[np.ndarray],
    counts: list[np.ndarray],
    losses: list[np.ndarray],
    model: str,
    ns=FREQUENCY_LENGTHS,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
):
    """Completion loss vs n-gram frequency (Merrill et al. 2024: n-grams seen more often in
    training are completed with lower loss; their code: ngram-copying ``CompletionLossPlots
    .plot_by_freq``): for each fixed n of ``ns``, the tokens t ≥ 1 with L_t = n, bucketed by
    b = round(log10 C_t), C_t the training count of the n-gram the token completes.

    Returns a tidy frame (model, n, log10_count, loss, loss_lo, loss_hi, tokens, texts): the
    mean loss of the bucket pooled over its tokens, its percentile bootstrap interval
    (``n_boot`` resamples of the texts, all texts drawn, seeded; NaN when ``n_boot`` is 0),
    the number of tokens and of texts contributing. Only the (n, b) that occur are listed,
    sorted by n and b.
    """
    import pandas as pd

    cols = list(FREQUENCY_COLUMNS)
    frame = frequency_tokens(lengths, counts, losses, ns)
    if frame.empty:
        return pd.DataFrame(columns=cols)
    frame["log10_count"] = np.round(frame.pop("log10_C")).astype(np.int64)
    per_text = (
        frame.groupby(["n", "log10_count", "text"])["loss"].agg(["sum", "size"]).reset_index()
    )
    groups = per_text.groupby(["n", "log10_count"], sort=True)
    out = groups.agg(
        loss_sum=("sum", "sum"), tokens=("size", "sum"), texts=("text", "nunique")
    ).reset_index()
    out["loss"] = out["loss_sum"] / out["tokens"]
    out["loss_lo"] = out["loss_hi"] = np.nan
    if n_boot > 0:
        D = len(lengths)
        key = groups.ngroup().to_numpy()
        sums = np.zeros((len(out), D))
        num = np.zeros((len(out), D))
        np.add.at(sums, (key, per_text["text"].to_numpy()), per_text["sum"].to_numpy())
        np.add.at(num, (key, per_text["text"].to_numpy()), per_text["size"].to_numpy())
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column: a rare bucket
            out["loss_lo"], out["loss_hi"] = pooled_ratio_interval(  # texts × groups
                sums.T, num.T, n_boot=n_boot, seed=seed, probs=complement_probabilities(level)
            )
    out.insert(0, "model", model)
    return out[cols]


def distinct_sequences(seqs) -> int:
    """The number of distinct sequences among ``seqs`` (e.g. generated texts as token-id
    arrays): 100 identical greedy samples of one prompt are one, not 100."""
    return len({tuple(np.asarray(x).tolist()) for x in seqs})
