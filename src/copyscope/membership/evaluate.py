"""A membership detector evaluated against known labels.

Scores are oriented so that a higher score means "member" (multiply a column of
:func:`copyscope.membership.scores.text_scores` by its
:data:`~copyscope.membership.scores.MEMBER_SIGN`); labels are 1 for members (planted or
training text) and 0 for non-members. The metrics are those of Shi et al. (2024) and Carlini
et al. (2022, "Membership Inference Attacks From First Principles"), computed with
scikit-learn's ROC functions (ties in the scores get half credit in the AUC):

* ``auc`` — the area under the ROC curve;
* ``tpr_at_5fpr`` — the largest true-positive rate at a threshold whose false-positive rate
  is at most 5%;
* ``balanced_accuracy`` — the best ``(TPR + 1 − FPR) / 2`` over all thresholds.

Confidence intervals come from a seeded stratified bootstrap (its replicates computed by
:func:`fast_metrics`, which equals the scikit-learn values): members and non-members are
resampled separately (so every replicate has both classes), and the interval is the
percentile interval of the replicates.

Two detectors scored on the *same* items are compared by a paired bootstrap of the difference
of their AUCs (:func:`paired_auc_difference`): each replicate resamples the items once (again
stratified) and computes both AUCs on that one resample, so the interval reflects the
difference, not two independent spreads (the paired design of DeLong-style comparisons, here
by resampling).
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score, roc_curve

__all__ = [
    "METRICS",
    "balanced_accuracy_best",
    "bootstrap_ci",
    "detector_metrics",
    "evaluate_detector",
    "paired_auc_difference",
    "tpr_at_fpr",
]


def _check(scores, labels) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels).ravel()
    if s.shape != y.shape:
        raise ValueError(f"expected one label per score, got {s.size} scores, {y.size} labels")
    if not np.isin(y, [0, 1]).all():
        raise ValueError("expected labels 0 (non-member) and 1 (member)")
    if np.isnan(s).any():
        raise ValueError("expected scores without NaN")
    if y.min(initial=1) == 1 or y.max(initial=0) == 0:
        raise ValueError("expected at least one member and one non-member")
    return s, y.astype(np.int64)


def tpr_at_fpr(scores, labels, fpr: float = 0.05) -> float:
    """The largest true-positive rate over thresholds whose false-positive rate is ≤ ``fpr``."""
    s, y = _check(scores, labels)
    f, t, _ = roc_curve(y, s, drop_intermediate=False)
    return float(t[f <= fpr].max())


def balanced_accuracy_best(scores, labels) -> float:
    """The best balanced accuracy ``(TPR + 1 − FPR) / 2`` of any threshold on the scores."""
    s, y = _check(scores, labels)
    f, t, _ = roc_curve(y, s, drop_intermediate=False)
    return float(((t + 1 - f) / 2).max())


def detector_metrics(scores, labels) -> dict[str, float]:
    """``{"auc", "tpr_at_5fpr", "balanced_accuracy"}`` of the scores (see the module docstring)."""
    s, y = _check(scores, labels)
    return {
        "auc": float(roc_auc_score(y, s)),
        "tpr_at_5fpr": tpr_at_fpr(s, y, 0.05),
        "balanced_accuracy": balanced_accuracy_best(s, y),
    }


METRICS = ("auc", "tpr_at_5fpr", "balanced_accuracy")


def fast_metrics(s: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """:func:`detector_metrics` in plain numpy for the bootstrap replicates (same values:
    the ROC points at every distinct score, the AUC by the trapezoid rule, which gives tied
    pairs half credit)."""
    order = np.argsort(-s, kind="stable")
    s, y = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]  # the last index of each score
    tp = np.cumsum(y)[last]
    fp = (last + 1) - tp
    tpr = np.r_[0.0, tp / tp[-1]]
    fpr = np.r_[0.0, fp / fp[-1]]
    auc = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    return auc, float(tpr[fpr <= 0.05].max()), float(((tpr + 1 - fpr) / 2).max())


def bootstrap_ci(
    scores, labels, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> dict[str, tuple[float, float]]:
    """Percentile intervals ``{metric: (low, high)}`` of :func:`detector_metrics` over
    ``n_boot`` seeded stratified bootstrap replicates (see the module docstring)."""
    s, y = _check(scores, labels)
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"expected n_boot >= 1 and 0 < level < 1, got {n_boot}, {level}")
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    reps = {m: np.empty(n_boot) for m in METRICS}
    for b in range(n_boot):
        idx = np.concatenate(
            [rng.choice(pos, size=pos.size, replace=True), rng.choice(neg, size=neg.size)]
        )
        for m, v in zip(METRICS, fast_metrics(s[idx], y[idx]), strict=True):
            reps[m][b] = v
    q = [(1 - level) / 2, (1 + level) / 2]
    return {m: tuple(float(x) for x in np.quantile(r, q)) for m, r in reps.items()}


def evaluate_detector(
    scores, labels, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> dict[str, float]:
    """One row of the detector table: ``n_members``, ``n_nonmembers`` and, per metric of
    :data:`METRICS`, its value and ``<metric>_lo`` / ``<metric>_hi`` bootstrap bounds."""
    s, y = _check(scores, labels)
    point = detector_metrics(s, y)
    ci = bootstrap_ci(s, y, n_boot=n_boot, seed=seed, level=level)
    row: dict[str, float] = {"n_members": int(y.sum()), "n_nonmembers": int((1 - y).sum())}
    for m in METRICS:
        row[m], (row[f"{m}_lo"], row[f"{m}_hi"]) = point[m], ci[m]
    return row


def _fast_auc(s: np.ndarray, y: np.ndarray) -> float:
    return fast_metrics(s, y)[0]


def paired_auc_difference(
    scores_a, scores_b, labels, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """``(delta, low, high)``: ``AUC(a) − AUC(b)`` of two detectors scored on the same items
    (both oriented higher = member) and its paired, seeded, stratified percentile bootstrap
    interval: every replicate draws one resample of the members and one of the non-members
    and evaluates both detectors on it. Identical detectors give ``(0, 0, 0)``."""
    a, y = _check(scores_a, labels)
    b, _ = _check(scores_b, labels)
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"expected n_boot >= 1 and 0 < level < 1, got {n_boot}, {level}")
    delta = float(roc_auc_score(y, a) - roc_auc_score(y, b))
    rng = np.random.default_rng(seed)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    reps = np.empty(n_boot)
    for r in range(n_boot):
        idx = np.concatenate(
            [rng.choice(pos, size=pos.size, replace=True), rng.choice(neg, size=neg.size)]
        )
        reps[r] = _fast_auc(a[idx], y[idx]) - _fast_auc(b[idx], y[idx])
    lo, hi = np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])
    return delta, float(lo), float(hi)
