"""Contamination and membership detectors against the planted answers (see
:mod:`copyscope.membership`): Li (2023)'s placement with copyscope's normalised position, the
detector table (Shi et al. 2024; Carlini et al. 2021) on two label sets, name cloze (Chang et
al. 2023; Zhang et al. 2024) per play and its correlation with continuation overlap (the name
cloze tables are built in :mod:`copyscope.report.name_cloze`).

Label sets: ``planted`` — contamination-set items planted into training (members) vs never planted;
``training`` — the memorised baseline (training passages) vs the clean baseline (held-out
passages); ``plays`` — name cloze accuracy per play, training plays vs clean held-out plays
(the excerpt plays of ``corpus.inject.excerpts``, partly in training, are in neither).

Li's placement is also given as differences of mean NLLs (``membership_nll_delta``): the
normalised position divides by the clean − memorised gap, a fraction of a nat, so its
intervals are wide; a difference such as unplanted − planted is in nats, with its own
interval. Name cloze on the excerpt plays (``membership_cloze_excerpts``,
``membership_cloze_trend``) tests whether excerpts in training, without the full text, raise
accuracy, and whether more copies raise it more.

Reported as the field now expects (Duan et al. 2024; Das et al. 2024; Carlini et al. 2022):
the detector table has the TPR at 0.1%, 1% and 5% FPR with intervals (NaN where the
non-members are too few, :func:`~copyscope.membership.evaluate.low_fpr_row`), the two blind
baselines as detectors (:mod:`copyscope.membership.blind`) and every detector's AUC margin over
the better of them; ``membership_overlap`` and ``membership_strata`` give the non-members'
training 7- and 13-gram overlap and the metrics per overlap bin; ``membership_thresholds``
counts TPR and FPR on a test split at thresholds fitted on a calibration split.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..io import read_json, write_csv
from ..lazy import lazy_module
from ..membership.blind import BLIND, blind_scores
from ..membership.evaluate import (
    calibrated_thresholds,
    calibration_split,
    evaluate_detector,
    low_fpr_row,
    paired_auc_difference,
    paired_auc_margin,
)
from ..membership.overlap import TRAINING_NS
from ..membership.placement import placement_table
from ..membership.scores import HEADLINE, MEMBER_SIGN
from ..membership.stage import contamination_texts
from ..stats import (
    bootstrap_difference_ci,
)
from . import fmt
from .jobs import Input, Output, Params, fixed, per_model
from .name_cloze import (
    COLUMNS as CLOZE_COLUMNS,
)
from .name_cloze import (
    cloze_detector_rows,
    cloze_excerpt_rows,
    cloze_genre_rows,
    cloze_model_rows,
    cloze_popularity_rows,
    cloze_tables,
    cloze_trend_rows,
    genres,
    with_play_context,
)

fig = lazy_module("copyscope.report.figures")
cloze_fig = lazy_module("copyscope.report.cloze_figures")

NAME = "membership"
HELP = "contamination and membership detectors on the planted contamination set"
INPUTS = {
    "texts": Input(("MODEL",), "per-text membership scores (.csv) of a model", files=per_model("membership/{model}/texts.csv", "cloze_models")),
    "cloze": Input(
        ("MODEL",),
        "per-item name cloze and continuation overlap (.csv) of a model",
        files=per_model("membership/{model}/cloze.csv", "cloze_models"),
    ),
    "manifest": Input(
        ("CORPUS",),
        "corpus manifest.json (the contamination set's texts, for blind baselines)",
        files=fixed("corpus", "corpus/manifest.json", when="cloze"),
    ),
    "overlap": Input(
        ("TOKENIZER",),
        "each contamination-set text's training n-gram overlap in a tokenizer's tokens (.csv)",
        files=lambda p: (
            ([p.model_tok], [f"{p.results}/membership/overlap.csv"]) if p.contamination else ([], [])
        ),
        optional=True,
    ),
}
OUTPUTS = {
    "placement": Output(
        "tables/membership_placement.csv",
        "Li's per-set mean NLL and copyscope's normalised position per model (.csv)",
        "membership_tables",
        "li",
    ),
    "detectors": Output(
        "tables/membership_detectors.csv",
        "AUC, TPR at 5 percent FPR, balanced accuracy per detector and label set (.csv)",
        "membership_tables",
        "related",
    ),
    "cloze": Output(
        "tables/membership_cloze.csv",
        "name cloze accuracy and continuation overlap per model and play (.csv)",
        "membership_tables",
        "literature",
    ),
    "cloze_summary": Output(
        "tables/membership_cloze_summary.csv",
        "cloze accuracy per split and r with overlap within training plays (.csv)",
        "membership_tables",
        "literature",
    ),
    "cloze_models": Output(
        "tables/membership_cloze_models.csv",
        "name cloze accuracy per model over every play, Zhang et al. Table 1 (.csv)",
        "membership_cloze_models",
        "literature",
    ),
    "cloze_excerpts": Output(
        "tables/membership_cloze_excerpts.csv",
        "cloze accuracy of training, held-out and excerpt plays by copies (.csv)",
        "membership_excerpts",
        "literature",
    ),
    "cloze_trend": Output(
        "tables/membership_cloze_trend.csv",
        "Spearman rho of cloze correctness with the excerpt copies (.csv)",
        "membership_excerpts",
        "literature",
    ),
    "cloze_genre": Output(
        "tables/membership_cloze_genre.csv",
        "name cloze accuracy per model and genre of the plays (.csv)",
        "membership_tables",
        "literature",
    ),
    "cloze_popularity": Output(
        "tables/membership_cloze_popularity.csv",
        "Spearman rho of per-play cloze accuracy with a popularity proxy (.csv)",
        "membership_tables",
        "literature",
    ),
    "nll_delta": Output(
        "tables/membership_nll_delta.csv",
        "differences of Li's mean NLLs between sets with bootstrap CIs (.csv)",
        "membership_nll_delta",
        "li",
    ),
    "overlap": Output(
        "tables/membership_overlap.csv",
        "training 7- and 13-gram overlap of members and non-members per label set (.csv)",
        "membership_strata",
        "known answers",
    ),
    "strata": Output(
        "tables/membership_strata.csv",
        "detector metrics with the non-members stratified by training overlap (.csv)",
        "membership_strata",
        "known answers",
    ),
    "thresholds": Output(
        "tables/membership_thresholds.csv",
        "test-split TPR and FPR at thresholds fitted on a calibration split (.csv)",
        "membership_thresholds",
        "known answers",
    ),
    "fig_placement": Output(
        "figures/membership_placement.png",
        "figure: Li's placement (.png)",
        "membership_placement",
        "li",
    ),
    "fig_roc_planted": Output(
        "figures/membership_roc_planted.png",
        "figure: ROC curves, planted vs unplanted items (.png)",
        "membership_roc",
        "related",
    ),
    "fig_roc_training": Output(
        "figures/membership_roc_training.png",
        "figure: ROC curves, training vs held-out passages (.png)",
        "membership_roc",
        "related",
    ),
    "fig_cloze": Output(
        "figures/membership_cloze.png",
        "figure: name cloze accuracy per play (.png)",
        "membership_cloze",
        "literature",
    ),
    "fig_cloze_models": Output(
        "figures/membership_cloze_models.png",
        "figure: name cloze accuracy per model, every play and per split, Zhang et al. Table 1 (.png)",
        "membership_cloze_models",
        "literature",
    ),
    "fig_cloze_genre": Output(
        "figures/membership_cloze_genre.png",
        "figure: name cloze accuracy per First Folio genre and split of the plays (.png)",
        "membership_cloze_genre",
        "literature",
    ),
    "fig_cloze_popularity": Output(
        "figures/membership_cloze_popularity.png",
        "figure: name cloze accuracy by the play's exposure in training (excerpt copies) (.png)",
        "membership_cloze_popularity",
        "literature",
    ),
    "fig_cloze_overlap": Output(
        "figures/membership_cloze_overlap.png",
        "figure: continuation score against name cloze accuracy per play, Zhang et al. Fig. 8 (.png)",
        "membership_cloze_overlap",
        "literature",
    ),
}
CLOZE_FIGURES = ("fig_cloze", "fig_cloze_models", "fig_cloze_genre", "fig_cloze_overlap")
"""The name cloze figures every run with cloze items draws (the popularity figure needs the
excerpt plays' table of a run with ground truth)."""
PARAMS = Params(
    "the config block analysis.membership",
    of=lambda p: p.membership,
)
SUMMARY_TABLES = (
    "membership_placement",
    "membership_detectors",
    "membership_cloze_summary",
    "membership_nll_delta",
    "membership_cloze_trend",
)

LABEL_SETS = ("planted", "training")
DELTA = ("delta_auc_vs_loss", "delta_auc_vs_loss_lo", "delta_auc_vs_loss_hi")
"""The detector table's paired comparison with the loss (AUC difference and 95% CI)."""
BLIND_DELTA = ("delta_auc_vs_blind", "delta_auc_vs_blind_lo", "delta_auc_vs_blind_hi")
"""The detector table's paired comparison with the better blind baseline (``blind_detector``)."""
SIGN = {**MEMBER_SIGN, **{b: 1 for b in BLIND}}
"""Every detector of the table with its orientation (+1: higher = member): the scores of
:data:`~copyscope.membership.scores.MEMBER_SIGN` and the blind baselines."""
STRATA_DETECTORS = (*HEADLINE, *BLIND)
"""The detectors of the overlap-stratified table: the headline detectors
(:data:`~copyscope.membership.scores.HEADLINE`) and the blind baselines."""
OVERLAP_BINS = (("none", 0.0, 0.0), ("low", 0.0, 0.2), ("mid", 0.2, 0.8), ("high", 0.8, 1.0))
"""Bins ``(name, lo, hi)`` of a non-member's training n-gram overlap: ``none`` is exactly 0,
the others ``lo < overlap <= hi`` (MIMIR's 0.2 and 0.8 thresholds)."""
CALIBRATION_SHARE = 0.5
"""The share of each class's items in the calibration split of ``membership_thresholds``."""


def reference_model(texts: pd.DataFrame, reference: str | None) -> str:
    """The reference model: ``reference`` or, when None, the model with the fewest
    parameters (the first of them in input order)."""
    if reference is not None:
        return reference
    sizes = texts.drop_duplicates("model").set_index("model")["n_params"]
    return str(sizes.idxmin())


def with_reference(texts: pd.DataFrame, reference: str) -> pd.DataFrame:
    """``texts`` with the ``reference`` column: the text's loss under the model minus its
    loss under the reference model (absent for the reference model itself)."""
    ref = texts[texts["model"] == reference].set_index(["set", "id"])["loss"]
    out = texts.copy()
    key = pd.MultiIndex.from_frame(out[["set", "id"]])
    out["reference"] = out["loss"].to_numpy() - ref.reindex(key).to_numpy()
    out.loc[out["model"] == reference, "reference"] = np.nan
    return out


def label_sets(g: pd.DataFrame) -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    """The two labelled text sets of one model's rows: (rows, labels 1 = member): the items
    (every set but the two baselines: the planted contamination set's, or an own benchmark's)
    and the baselines (memorised = member)."""
    items = ~g["set"].isin(["memorised", "clean"])
    bench, base = g[items], g[~items]
    return {
        "planted": (bench, bench["planted"].to_numpy()),
        "training": (base, (base["set"] == "memorised").to_numpy().astype(int)),
    }


def _oriented(rows: pd.DataFrame, det: str) -> np.ndarray:
    s = SIGN[det] * rows[det].to_numpy(dtype=float)
    return np.nan_to_num(s, posinf=np.finfo(float).max, neginf=-np.finfo(float).max)


def with_blind(texts: pd.DataFrame, documents: list[dict], seed: int) -> pd.DataFrame:
    """``texts`` with a column per blind baseline of
    :data:`~copyscope.membership.blind.BLIND`: each text's out-of-fold score
    (:func:`~copyscope.membership.blind.blind_scores`, seeded) within its label set, from the
    texts of ``documents`` (:func:`copyscope.membership.stage.contamination_texts`, joined on set
    and id). The scores depend on the texts only, so every model's rows get the same. A label
    set with fewer than 2 items of a class, or a text missing from ``documents``, gets NaN."""
    out = texts.copy()
    for b in BLIND:
        out[b] = np.nan
    text = {(d["set"], d["id"]): d["text"] for d in documents}
    first = texts[texts["model"] == texts["model"].iloc[0]] if len(texts) else texts
    for rows_, y in label_sets(first).values():
        keys = list(zip(rows_["set"], rows_["id"], strict=True))
        if not keys or any(k not in text for k in keys) or min(y.sum(), (1 - y).sum()) < 2:
            continue
        scores = blind_scores([text[k] for k in keys], y, seed=seed)
        at = pd.MultiIndex.from_tuples(keys)
        where = pd.MultiIndex.from_frame(out[["set", "id"]])
        for b, v in scores.items():
            hit = where.isin(at)
            out.loc[hit, b] = pd.Series(v, index=at).reindex(where[hit]).to_numpy()
    return out


def _usable(rows: pd.DataFrame, det: str) -> bool:
    return det in rows and not rows[det].isna().any()


def detector_table(texts: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """One row per model, label set and detector (scores oriented by :data:`SIGN`; the blind
    baselines are detectors too) with the metrics and their CIs, and ``delta_auc_vs_loss`` with
    ``delta_auc_vs_loss_lo`` / ``delta_auc_vs_loss_hi``: the detector's AUC minus the loss's on the same items
    with the paired bootstrap interval
    (:func:`~copyscope.membership.evaluate.paired_auc_difference`; 0 for the loss itself). Then
    the TPR at 0.1%, 1% and 5% FPR (:func:`~copyscope.membership.evaluate.low_fpr_row`: value,
    interval and ``_fp``, the non-members the threshold may let through; NaN where that is 0;
    the 5% value and interval are the columns ``tpr_at_5fpr*`` of before), ``blind_detector``
    and ``blind_auc``, the better blind baseline on these items, and
    ``delta_auc_vs_blind`` with ``delta_auc_vs_blind_lo`` / ``delta_auc_vs_blind_hi``: the detector's margin
    over it (paired bootstrap, :func:`~copyscope.membership.evaluate.paired_auc_margin`; NaN
    without blind scores). A detector without values for a model
    (the reference ratio of the reference model) is left out."""
    rows = []
    for model, g in texts.groupby("model", sort=False):
        for name, (rows_, y) in label_sets(g).items():
            if y.min(initial=1) == 1 or y.max(initial=0) == 0:
                continue
            loss = _oriented(rows_, "loss")
            blind = best_blind(rows_, y)
            for det in SIGN:
                if not _usable(rows_, det):
                    continue
                s = _oriented(rows_, det)
                r = evaluate_detector(s, y, n_boot=n_boot, seed=seed)
                d = paired_auc_difference(s, loss, y, n_boot=n_boot, seed=seed)
                r |= dict(zip(DELTA, d, strict=True))
                low = low_fpr_row(s, y, n_boot=n_boot, seed=seed)
                r |= {k: v for k, v in low.items() if k not in r}
                r |= {"blind_detector": blind or "", "blind_auc": np.nan}
                r |= dict.fromkeys(BLIND_DELTA, np.nan)
                if blind is not None:
                    b = _oriented(rows_, blind)
                    d = paired_auc_margin(s, b, y, n_boot=n_boot, seed=seed)
                    r["blind_auc"] = float(r["auc"] - d[0])
                    r |= dict(zip(BLIND_DELTA, d, strict=True))
                rows.append({"model": model, "label_set": name, "detector": det, **r})
    return pd.DataFrame(rows)


def best_blind(rows: pd.DataFrame, y: np.ndarray) -> str | None:
    """The blind baseline with the higher AUC on these items (the first on ties), or None
    when the rows have no blind scores."""
    from sklearn.metrics import roc_auc_score

    aucs = {b: roc_auc_score(y, _oriented(rows, b)) for b in BLIND if _usable(rows, b)}
    return max(aucs, key=aucs.get) if aucs else None


def overlap_bin(value: float) -> str:
    """The :data:`OVERLAP_BINS` name of an overlap share in [0, 1]."""
    if value == 0.0:
        return OVERLAP_BINS[0][0]
    for name, lo, hi in OVERLAP_BINS[1:]:
        if lo < value <= hi:
            return name
    raise ValueError(f"expected an overlap share in [0, 1], got {value}")


def overlap_rows(texts: pd.DataFrame, overlap: pd.DataFrame) -> pd.DataFrame:
    """Per label set, class (``member`` 1/0) and n of
    :data:`~copyscope.membership.overlap.TRAINING_NS`: the texts, the mean, min and max of
    their training n-gram overlap and their count per bin of :data:`OVERLAP_BINS`
    (``bin_<name>``)."""
    rows = []
    first = texts[texts["model"] == texts["model"].iloc[0]] if len(texts) else texts
    for name, (rows_, y) in label_sets(first).items():
        ov = _overlap_of(rows_, overlap)
        for member in (1, 0):
            for n in TRAINING_NS:
                v = ov[f"overlap_{n}"].to_numpy(float)[y == member]
                v = v[np.isfinite(v)]
                row = {"label_set": name, "member": member, "n": n, "texts": int(v.size)}
                if v.size:
                    row |= {"mean": float(v.mean()), "min": float(v.min()), "max": float(v.max())}
                else:
                    row |= {"mean": np.nan, "min": np.nan, "max": np.nan}
                bins = [overlap_bin(x) for x in v]
                row |= {f"bin_{b}": bins.count(b) for b, _, _ in OVERLAP_BINS}
                rows.append(row)
    return pd.DataFrame(rows, columns=EMPTY["overlap"])


def _overlap_of(rows: pd.DataFrame, overlap: pd.DataFrame) -> pd.DataFrame:
    """The overlap rows of ``rows``' texts, in their order (InputError naming a missing
    text)."""
    from ..errors import InputError

    ov = overlap.set_index(["set", "id"])
    key = pd.MultiIndex.from_frame(rows[["set", "id"]])
    missing = key.difference(ov.index)
    if len(missing):
        raise InputError("--overlap", f"no overlap row for text {missing[0]} (stale table?)")
    return ov.reindex(key).reset_index()


def strata_rows(texts: pd.DataFrame, overlap: pd.DataFrame, n_boot: int, seed: int):
    """Per model, label set, n of :data:`~copyscope.membership.overlap.TRAINING_NS`, bin of
    :data:`OVERLAP_BINS` and detector of :data:`STRATA_DETECTORS`: the AUC and the TPR at
    low FPR, with bootstrap CIs (:func:`~copyscope.membership.evaluate.low_fpr_row`), of
    every member against the
    non-members whose training n-gram overlap is in the bin (``n_nonmembers`` of them; the
    metrics NaN for an empty bin). A text shorter than n tokens has no n-gram in training: bin
    ``none``."""
    rows = []
    for model, g in texts.groupby("model", sort=False):
        for name, (rows_, y) in label_sets(g).items():
            if y.min(initial=1) == 1 or y.max(initial=0) == 0:
                continue
            ov = _overlap_of(rows_, overlap)
            for n in TRAINING_NS:
                bins = np.array([overlap_bin(x) for x in ov[f"overlap_{n}"].fillna(0.0)])
                for b, _, _ in OVERLAP_BINS:
                    keep = (y == 1) | (bins == b)
                    for det in STRATA_DETECTORS:
                        if not _usable(rows_, det):
                            continue
                        head = {"model": model, "label_set": name, "n": n, "bin": b}
                        head["detector"] = det
                        if keep.sum() == y.sum():
                            nm = {"n_members": int(y.sum()), "n_nonmembers": 0}
                            rows.append(head | nm)
                            continue
                        s = _oriented(rows_, det)[keep]
                        r = low_fpr_row(s, y[keep], n_boot=n_boot, seed=seed, auc=True)
                        rows.append(head | r)
    return pd.DataFrame(rows, columns=EMPTY["strata"] if not rows else None)


def threshold_rows(texts: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Per model, label set and detector of :data:`SIGN`: the rules of
    :func:`~copyscope.membership.evaluate.calibrated_thresholds`, fitted on a seeded
    calibration split (:func:`~copyscope.membership.evaluate.calibration_split`,
    :data:`CALIBRATION_SHARE` of each class; the same items for every detector and model)
    and counted on the test split. Thresholds are in the oriented score (higher = member)."""
    rows = []
    for model, g in texts.groupby("model", sort=False):
        for name, (rows_, y) in label_sets(g).items():
            if min(y.sum(), (1 - y).sum()) < 2:
                continue
            order = np.lexsort((rows_["id"].to_numpy(str), rows_["set"].to_numpy(str)))
            cal = np.empty(len(y), dtype=bool)
            cal[order] = calibration_split(y[order], share=CALIBRATION_SHARE, seed=seed)
            for det in SIGN:
                if not _usable(rows_, det):
                    continue
                for r in calibrated_thresholds(_oriented(rows_, det), y, cal):
                    rows.append({"model": model, "label_set": name, "detector": det, **r})
    return pd.DataFrame(rows, columns=EMPTY["thresholds"] if not rows else None)


def placement_sets(g: pd.DataFrame) -> dict[str, np.ndarray]:
    """Li's per-sample NLLs of one model's rows per set: clean, contamination, its planted
    and unplanted halves, the planted items by copy count (``contamination_copies_<c>``,
    ascending) and memorised; empty sets left out."""
    nll = {"clean": g.loc[g["set"] == "clean", "li_nll"].to_numpy()}
    bench = g[g["set"] == "contamination"]
    nll["contamination"] = bench["li_nll"].to_numpy()
    nll["contamination_planted"] = bench.loc[bench["planted"] == 1, "li_nll"].to_numpy()
    nll["contamination_unplanted"] = bench.loc[bench["planted"] == 0, "li_nll"].to_numpy()
    for c in sorted(bench.loc[bench["copies"] > 0, "copies"].unique()):
        nll[f"contamination_copies_{int(c)}"] = bench.loc[bench["copies"] == c, "li_nll"].to_numpy()
    nll["memorised"] = g.loc[g["set"] == "memorised", "li_nll"].to_numpy()
    return {k: v for k, v in nll.items() if len(v)}


def placement_rows(texts: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Li's placement per model on the sets of :func:`placement_sets`
    (:func:`copyscope.membership.placement.placement_table`); ``copies`` is the set's copy
    count (0 = unplanted, empty for mixed sets and the baselines)."""
    rows = []
    for model, g in texts.groupby("model", sort=False):
        for r in placement_table(placement_sets(g), n_boot=n_boot, seed=seed):
            rows.append({"model": model, **r, "copies": set_copies(r["set"])})
    return pd.DataFrame(rows)


CONTRASTS = (
    ("unplanted - planted", "contamination_unplanted", "contamination_planted"),
    ("clean - planted", "clean", "contamination_planted"),
    ("unplanted - memorised", "contamination_unplanted", "memorised"),
    ("clean - memorised", "clean", "memorised"),
    ("clean - unplanted", "clean", "contamination_unplanted"),
)
"""The NLL contrasts ``(name, set a, set b)`` of :func:`nll_delta_rows`: mean NLL of a minus
that of b (positive = b is more familiar to the model)."""


def nll_delta_rows(texts: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Per model, each contrast of :data:`CONTRASTS` and ``unplanted - copies_<c>`` per copy
    count c of the planted items: ``delta`` = mean NLL of set a − mean NLL of set b (nats) with
    ``lo`` / ``hi``, the 95% bootstrap interval resampling the items of each set independently
    (:func:`copyscope.stats.bootstrap_difference_ci`), and the set sizes
    ``n_a``, ``n_b``. A contrast with an empty set is left out."""
    rows = []
    for model, g in texts.groupby("model", sort=False):
        nll = placement_sets(g)
        pairs = list(CONTRASTS)
        pairs += [
            (f"unplanted - copies_{k.rsplit('_', 1)[1]}", "contamination_unplanted", k)
            for k in nll
            if k.startswith("contamination_copies_")
        ]
        for name, a, b in pairs:
            if a not in nll or b not in nll:
                continue
            d, lo, hi = bootstrap_difference_ci(nll[a], nll[b], n_boot=n_boot, seed=seed)
            rows.append(
                {
                    "model": model,
                    "contrast": name,
                    "delta": d,
                    "delta_lo": lo,
                    "delta_hi": hi,
                    "n_a": len(nll[a]),
                    "n_b": len(nll[b]),
                }
            )
    return pd.DataFrame(rows, columns=EMPTY["nll_delta"])


def set_copies(name: str) -> float:
    """The copy count of a placement set: c of ``contamination_copies_<c>``, 0 for the unplanted
    items, NaN (no single count) otherwise."""
    if name.startswith("contamination_copies_"):
        return float(name.rsplit("_", 1)[1])
    return 0.0 if name == "contamination_unplanted" else float("nan")


EMPTY = {
    "placement": ["model", "set", "n", "mean_nll", "mean_nll_lo", "mean_nll_hi", "position"],
    "detectors": ["model", "label_set", "detector", "n_members", "n_nonmembers", "auc"],
    "cloze": ["model", "play", "split", "n", "acc_insensitive", "chance"],
    "cloze_summary": [
        "model",
        "split",
        "plays",
        "n",
        "acc_insensitive",
        "chance",
        "r_overlap",
        "r_plays",
    ],
    **CLOZE_COLUMNS,
    "nll_delta": ["model", "contrast", "delta", "delta_lo", "delta_hi", "n_a", "n_b"],
    "overlap": [
        "tokenizer",
        "label_set",
        "member",
        "n",
        "texts",
        "mean",
        "min",
        "max",
        *[f"bin_{b}" for b, _, _ in OVERLAP_BINS],
    ],
    "strata": ["model", "label_set", "n", "bin", "detector", "n_members", "n_nonmembers", "auc"],
    "thresholds": [
        "model",
        "label_set",
        "detector",
        "rule",
        "target_fpr",
        "threshold",
        "test_tpr",
        "test_fpr",
    ],
}
"""Header of each table written without a contamination set (no inputs: every table is empty)."""


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Build the tables from the models' text and cloze tables; draw the figures.
    Without inputs (no ``corpus.inject.contamination``) the tables are empty and the figures
    say so; with cloze tables but no text scored (``analysis.membership.cloze`` without a
    contamination set: no ground truth) only the name cloze tables are filled."""
    if not inputs["texts"]:
        for name, columns in EMPTY.items():
            write_csv(out[name], pd.DataFrame(columns=columns))
        for name in ("fig_placement", "fig_roc_planted", "fig_roc_training", *CLOZE_FIGURES,
                     "fig_cloze_popularity"):  # fmt: skip
            fig.not_measured(out[name], "no planted contamination set (corpus.inject.contamination)")
        return
    texts = pd.concat([pd.read_csv(p) for _, p in inputs["texts"]], ignore_index=True)
    cloze = pd.concat([pd.read_csv(p) for _, p in inputs["cloze"]], ignore_index=True)
    n_boot, seed = params["bootstrap"], params["seed"]
    if not len(texts):
        return _cloze_only(cloze, inputs, out, n_boot, seed)
    texts = with_reference(texts, reference_model(texts, params.get("reference")))
    (_, manifest), (tokenizer, overlap_csv) = _one(inputs, "manifest"), _one(inputs, "overlap")
    documents = contamination_texts(read_json(manifest), str(manifest))
    texts = with_blind(texts, documents, seed)
    overlap = pd.read_csv(overlap_csv)
    detectors = detector_table(texts, n_boot, seed)
    placement = placement_rows(texts, n_boot, seed)
    nll_delta = nll_delta_rows(texts, n_boot, seed)
    plays, summary = cloze_tables(cloze, n_boot, seed)
    genre = genres(read_json(manifest))
    plays = with_play_context(plays, cloze, genre)
    if len(plays):
        extra = pd.DataFrame(cloze_detector_rows(plays, n_boot, seed))
        detectors = pd.concat([detectors, extra], ignore_index=True)
    tables = {"placement": placement, "detectors": detectors, "cloze": plays}
    tables["cloze_summary"] = summary
    tables["cloze_models"] = cloze_model_rows(cloze, n_boot, seed)
    tables["cloze_excerpts"] = cloze_excerpt_rows(cloze, n_boot, seed)
    tables["cloze_trend"] = cloze_trend_rows(cloze, n_boot, seed)
    tables["cloze_genre"] = cloze_genre_rows(cloze, genre, n_boot, seed)
    tables["cloze_popularity"] = cloze_popularity_rows(plays, n_boot, seed)
    tables["nll_delta"] = nll_delta
    tables["overlap"] = overlap_rows(texts, overlap).assign(tokenizer=tokenizer)
    tables["strata"] = strata_rows(texts, overlap, n_boot, seed)
    tables["thresholds"] = threshold_rows(texts, seed)
    for name, frame in tables.items():  # e.g. no cloze item fits the models' context
        write_csv(out[name], frame if len(frame.columns) else pd.DataFrame(columns=EMPTY[name]))
    fig.membership_placement(placement, out["fig_placement"])
    for name in LABEL_SETS:
        fig.membership_roc(texts, name, label_sets, out[f"fig_roc_{name}"])
    _cloze_figures(tables, out, "no name cloze items (no speaker names, or none fits\nthe "
                   "models' context: see logs/probe)")  # fmt: skip
    if len(tables["cloze_excerpts"]) and tables["cloze_excerpts"]["items"].sum():
        cloze_fig.cloze_popularity(tables["cloze_excerpts"], tables["cloze_trend"],
                                   out["fig_cloze_popularity"])  # fmt: skip
    else:
        fig.not_measured(out["fig_cloze_popularity"], "no name cloze items")


def _cloze_figures(tables: Mapping[str, pd.DataFrame], out: Mapping, why: str) -> None:
    """The name cloze figures of :data:`CLOZE_FIGURES` from the tables ``cloze``,
    ``cloze_summary``, ``cloze_models`` and ``cloze_genre``; without a play each says ``why``."""
    plays = tables["cloze"]
    if not len(plays):
        for name in CLOZE_FIGURES:
            fig.not_measured(out[name], why)
        return
    fig.membership_cloze(plays, out["fig_cloze"])
    cloze_fig.cloze_models(tables["cloze_models"], tables["cloze_summary"],
                           out["fig_cloze_models"])  # fmt: skip
    cloze_fig.cloze_genre(tables["cloze_genre"], out["fig_cloze_genre"])
    cloze_fig.cloze_overlap(plays, tables["cloze_summary"], out["fig_cloze_overlap"])


def _cloze_only(cloze, inputs: Mapping, out: Mapping, n_boot: int, seed: int) -> None:
    """The name cloze tables and figure of a run without a contamination set; every table of the
    planted ground truth is empty and its figure says so."""
    (_, manifest) = _one(inputs, "manifest")
    genre = genres(read_json(manifest))
    plays, summary = cloze_tables(cloze, n_boot, seed)
    plays = with_play_context(plays, cloze, genre)
    tables = {"cloze": plays, "cloze_summary": summary}
    tables["cloze_models"] = cloze_model_rows(cloze, n_boot, seed)
    tables["cloze_genre"] = cloze_genre_rows(cloze, genre, n_boot, seed)
    tables["cloze_popularity"] = cloze_popularity_rows(plays, n_boot, seed)
    for name, columns in EMPTY.items():
        frame = tables.get(name, pd.DataFrame())
        write_csv(out[name], frame if len(frame.columns) else pd.DataFrame(columns=columns))
    for name in ("fig_placement", "fig_roc_planted", "fig_roc_training"):
        fig.not_measured(out[name], "no planted contamination set (corpus.inject.contamination)")
    fig.not_measured(out["fig_cloze_popularity"], "no planted excerpts (no ground truth)")
    _cloze_figures(tables, out, "no name cloze item fits the models' context")


def _one(inputs: Mapping, name: str) -> tuple:
    """The single (label, path) of the input ``name`` (InputError when not exactly one)."""
    from ..errors import InputError

    given = inputs.get(name) or []
    if len(given) != 1:
        raise InputError(f"--{name}", f"expected exactly one (with --texts), got {len(given)}")
    return given[0]


def _blind_margin(r: pd.Series) -> str:
    """`` (margin over blind_bow 0.52 [0.3, 0.7])`` of a detector row, or nothing."""
    if "delta_auc_vs_blind" not in r or not np.isfinite(r["delta_auc_vs_blind"]):
        return ""
    return (
        f" (margin over {r['blind_detector']} {fmt(r['delta_auc_vs_blind'], 2)} "
        f"[{fmt(r['delta_auc_vs_blind_lo'], 2)}, {fmt(r['delta_auc_vs_blind_hi'], 2)}])"
    )


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Per model: copyscope's position of the planted and unplanted halves, Li's NLL
    difference unplanted − planted, the AUC of each headline detector
    (:data:`~copyscope.membership.scores.HEADLINE`) on planted items, cloze accuracy by split
    and its trend with the excerpt copies."""
    place, det = tables["membership_placement"], tables["membership_detectors"]
    summ = tables["membership_cloze_summary"]
    delta = tables.get("membership_nll_delta", pd.DataFrame(columns=EMPTY["nll_delta"]))
    trend = tables.get("membership_cloze_trend", pd.DataFrame(columns=EMPTY["cloze_trend"]))
    if not len(place):
        return []
    lines = [
        "",
        "## Contamination and membership (planted contamination set)",
        "",
        "copyscope's normalised position (clean − bench) / (clean − memorised) of Li's mean "
        "NLLs (0 = clean, 1 = memorised); AUC of planted vs unplanted items and its margin "
        "over the better model-free blind baseline (95% CIs):",
        "",
    ]
    for model, g in place.groupby("model", sort=False):
        parts = [
            f"{r.set} {fmt(r.position, 2)} [{fmt(r.position_lo, 2)}, {fmt(r.position_hi, 2)}]"
            for r in g.itertuples()
            if r.set.startswith("contamination")
        ]
        parts += [
            f"NLL {r.contrast} {fmt(r.delta, 2)} [{fmt(r.delta_lo, 2)}, {fmt(r.delta_hi, 2)}] nats"
            for r in delta[delta["model"] == model].itertuples()
            if r.contrast == "unplanted - planted"
        ]
        d = det[(det["model"] == model) & (det["label_set"] == "planted")].set_index("detector")
        parts += [
            f"AUC {k} {fmt(d.at[k, 'auc'], 2)} [{fmt(d.at[k, 'auc_lo'], 2)}, "
            f"{fmt(d.at[k, 'auc_hi'], 2)}]" + _blind_margin(d.loc[k])
            for k in HEADLINE
            if k in d.index
        ]
        s = summ[summ["model"] == model] if len(summ) else summ
        parts += [
            f"cloze {r.split} {fmt(r.acc_insensitive, 2)} (chance {fmt(r.chance, 2)})"
            for r in s.itertuples()
        ]
        parts += [
            f"cloze ρ with excerpt copies {fmt(r.rho, 2)} [{fmt(r.rho_lo, 2)}, "
            f"{fmt(r.rho_hi, 2)}] (p {fmt(r.p_value, 2)}, {r.items} items)"
            for r in trend[trend["model"] == model].itertuples()
            if np.isfinite(r.rho)
        ]
        lines.append(f"- {model}: " + "; ".join(parts))
    return lines
