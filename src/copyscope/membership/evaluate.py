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

**TPR at low FPR** (Carlini et al. 2022), :func:`low_fpr_row`: the TPR at FPR ≤ α for α in
:data:`LOW_FPRS` (0.1%, 1%, 5%) with a stratified bootstrap (vectorised over resample counts,
:func:`resampled_metrics`). With n non-members a
threshold may let through ``floor(α·n)`` of them (:func:`false_positives_allowed`); when that
is 0 (e.g. α = 0.1% with fewer than 1000 non-members) the threshold must clear every
non-member, the "rate" is decided by the single highest non-member, and the value is NaN (not
estimable) rather than that one item's verdict.

**Thresholds from a calibration split** (:func:`calibration_split`,
:func:`calibrated_thresholds`): the items are split once, seeded and stratified by label, into a
calibration and a test part; each threshold rule (FPR ≤ α, above every non-member, best
balanced accuracy) is fitted on the calibration part and its TPR and FPR are counted on the
test part, with exact (Clopper–Pearson) binomial intervals.
"""

from __future__ import annotations

import functools

import numpy as np

from ..lazy import lazy_module
from ..stats import bootstrap_weights, clopper_pearson, percentile_interval

metrics = lazy_module("sklearn.metrics")

__all__ = [
    "LOW_FPRS",
    "METRICS",
    "balanced_accuracy_best",
    "bootstrap_ci",
    "calibrated_thresholds",
    "calibration_split",
    "false_positives_allowed",
    "fpr_column",
    "low_fpr_row",
    "detector_metrics",
    "evaluate_detector",
    "paired_auc_difference",
    "paired_auc_margin",
    "resampled_metrics",
    "threshold_at_fpr",
    "threshold_best_balanced",
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
    f, t, _ = metrics.roc_curve(y, s, drop_intermediate=False)
    return float(t[f <= fpr].max())


def balanced_accuracy_best(scores, labels) -> float:
    """The best balanced accuracy ``(TPR + 1 − FPR) / 2`` of any threshold on the scores."""
    s, y = _check(scores, labels)
    f, t, _ = metrics.roc_curve(y, s, drop_intermediate=False)
    return float(((t + 1 - f) / 2).max())


def detector_metrics(scores, labels) -> dict[str, float]:
    """``{"auc", "tpr_at_5fpr", "balanced_accuracy"}`` of the scores (see the module docstring)."""
    s, y = _check(scores, labels)
    return {
        "auc": float(metrics.roc_auc_score(y, s)),
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
    reps = metric_replicates(s, y, n_boot, seed)
    return {m: tuple(float(x) for x in percentile_interval(reps[:, k], level))
            for k, m in enumerate(METRICS)}  # fmt: skip


def _picks(y: np.ndarray, n_boot: int, seed: int):
    """The members, the non-members and the stratified resamples of the module docstring
    (:func:`copyscope.stats.stratified_indices` over the members, then the non-members) as
    index arrays into them (:func:`_stratified_picks`)."""
    members, others = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    return members, others, _stratified_picks(members.size, others.size, n_boot, seed)


@functools.lru_cache(maxsize=64)
def _stratified_picks(n1: int, n0: int, n_boot: int, seed: int):
    """Per replicate ``rng.integers(0, n1, n1)`` for the members then ``rng.integers(0, n0,
    n0)`` for the non-members (which is what ``rng.choice`` with replacement draws), as two
    read-only arrays: they depend on the sizes and the seed alone, so the detectors of one
    table (the same labels) draw them once."""
    rng = np.random.default_rng(seed)
    picks = np.empty((n_boot, n1), np.int64), np.empty((n_boot, n0), np.int64)
    for r in range(n_boot):
        picks[0][r] = rng.integers(0, n1, n1)
        picks[1][r] = rng.integers(0, n0, n0)
    for p in picks:
        p.flags.writeable = False
    return picks


def metric_replicates(s: np.ndarray, y: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """The ``n_boot`` replicates of :data:`METRICS` (one row each) of :func:`bootstrap_ci`:
    :func:`fast_metrics` of each resample of :func:`_picks`, in one compiled call
    (:func:`copyscope.membership.kernels.metric_replicates`: the same numbers, tested)."""
    from .kernels import metric_replicates as replicates

    members, others, picks = _picks(y, n_boot, seed)
    return replicates(np.ascontiguousarray(s, np.float64), np.ascontiguousarray(y, np.int64),
                      members, others, *picks)  # fmt: skip


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
    delta = float(metrics.roc_auc_score(y, a) - metrics.roc_auc_score(y, b))
    lo, hi = percentile_interval(paired_auc_replicates(a, b, y, n_boot, seed), level)
    return delta, float(lo), float(hi)


def paired_auc_replicates(a, b, y, n_boot: int, seed: int) -> np.ndarray:
    """The ``n_boot`` bootstrap replicates of ``AUC(a) − AUC(b)`` of
    :func:`paired_auc_difference`: the resamples of :func:`_picks` (members, then
    non-members, each ``rng.choice`` with replacement, which is ``stratum[rng.integers(0,
    size, size)]``), each AUC that of :func:`fast_metrics`, in one compiled call
    (:func:`copyscope.membership.kernels.auc_differences`: the same numbers, tested)."""
    from .kernels import auc_differences

    members, others, picks = _picks(y, n_boot, seed)
    return auc_differences(np.ascontiguousarray(a, np.float64), np.ascontiguousarray(b, np.float64),
                           np.ascontiguousarray(y, np.int64), members, others, *picks)  # fmt: skip


# --------------------------------------------------------------------- TPR at low FPR
LOW_FPRS = (0.001, 0.01, 0.05)
"""The false-positive rates at which the TPR is reported (Carlini et al. 2022: 0.1%, 1%; the
detector table's historical 5%)."""


def fpr_column(fpr: float) -> str:
    """The detector table's column of the TPR at FPR ≤ ``fpr``: ``tpr_at_0p1fpr`` (0.1%),
    ``tpr_at_1fpr`` (1%), ``tpr_at_5fpr`` (5%)."""
    pct = f"{100 * fpr:g}".replace(".", "p")
    return f"tpr_at_{pct}fpr"


def false_positives_allowed(n_nonmembers: int, fpr: float) -> int:
    """``floor(fpr × n_nonmembers)``: how many non-members a threshold with FPR ≤ ``fpr`` may
    let through (0: the threshold must clear every non-member, and the TPR at that FPR is not
    estimable from these items)."""
    return int(np.floor(fpr * n_nonmembers + 1e-9))


def resampled_metrics(
    scores, labels, w_pos: np.ndarray, w_neg: np.ndarray, fprs=LOW_FPRS
) -> tuple[np.ndarray, np.ndarray]:
    """``(auc, tpr)`` of resamples given as counts: row b of ``w_pos`` (``w_neg``) says how
    often each member (non-member), in input order, is drawn in resample b. ``auc[b]`` is the
    AUC of resample b (ties half credit) and ``tpr[b, j]`` its TPR at FPR ≤ ``fprs[j]``: with
    n non-member draws a threshold may pass k = ``floor(fpr·n)`` of them, so it is the share of
    member draws scoring above the (k + 1)-th highest non-member draw. Vectorised over the
    resamples: the member × non-member comparison matrix is computed once."""
    s, y = _check(scores, labels)
    sp, sn = s[y == 1], s[y == 0]
    w_pos, w_neg = np.atleast_2d(w_pos).astype(float), np.atleast_2d(w_neg).astype(float)
    if w_pos.shape[1] != sp.size or w_neg.shape[1] != sn.size:
        raise ValueError("expected one count per member and per non-member")
    n_pos, n_neg = w_pos.sum(axis=1), w_neg.sum(axis=1)
    cmp = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    auc = ((w_pos @ cmp) * w_neg).sum(axis=1) / (n_pos * n_neg)
    order = np.argsort(-sn, kind="stable")
    cum = np.cumsum(w_neg[:, order], axis=1)
    tpr = np.empty((w_pos.shape[0], len(fprs)))
    for j, a in enumerate(fprs):
        k = np.floor(a * n_neg + 1e-9)
        cut = sn[order][np.argmax(cum >= (k + 1)[:, None], axis=1)]
        tpr[:, j] = (w_pos * (sp[None, :] > cut[:, None])).sum(axis=1) / n_pos
    return auc, tpr


def low_fpr_row(
    scores,
    labels,
    *,
    fprs=LOW_FPRS,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    auc: bool = False,
) -> dict[str, float]:
    """Per ``fpr`` of ``fprs``: :func:`fpr_column` (the TPR at FPR ≤ fpr), its ``_lo`` /
    ``_hi`` percentile bounds over ``n_boot`` seeded stratified bootstrap replicates
    (members and non-members resampled separately, :func:`resampled_metrics`) and ``_fp``, the
    non-members the threshold may let through (:func:`false_positives_allowed`); all three
    values NaN when ``_fp`` is 0 (not estimable). With ``auc``, first ``n_members``,
    ``n_nonmembers``, ``auc`` and its ``auc_lo`` / ``auc_hi`` from the same replicates."""
    s, y = _check(scores, labels)
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"expected n_boot >= 1 and 0 < level < 1, got {n_boot}, {level}")
    n_pos, n_neg = int(y.sum()), int((1 - y).sum())
    fprs = [float(a) for a in fprs]
    rng = np.random.default_rng(seed)
    w_pos, w_neg = bootstrap_weights(rng, n_pos, n_boot), bootstrap_weights(rng, n_neg, n_boot)
    aucs, reps = resampled_metrics(s, y, w_pos, w_neg, fprs)
    row: dict[str, float] = {}
    if auc:
        lo, hi = percentile_interval(aucs, level)
        row |= {"n_members": n_pos, "n_nonmembers": n_neg}
        row |= {"auc": float(metrics.roc_auc_score(y, s)), "auc_lo": float(lo), "auc_hi": float(hi)}
    for j, a in enumerate(fprs):
        col = fpr_column(a)
        if false_positives_allowed(n_neg, a) > 0:
            lo, hi = percentile_interval(reps[:, j], level)
            row |= {col: tpr_at_fpr(s, y, a), f"{col}_lo": float(lo), f"{col}_hi": float(hi)}
        else:
            row |= {col: np.nan, f"{col}_lo": np.nan, f"{col}_hi": np.nan}
        row[f"{col}_fp"] = false_positives_allowed(n_neg, a)
    return row


def paired_auc_margin(
    scores_a, scores_b, labels, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """``(delta, low, high)``: ``AUC(a) − AUC(b)`` on the same items with the paired, seeded,
    stratified percentile bootstrap of :func:`paired_auc_difference` (both AUCs on each
    resample), computed vectorised from resample counts (:func:`resampled_metrics`; its random
    draws differ from :func:`paired_auc_difference`'s, which keeps the detector table's
    ``delta_auc_vs_loss`` as before)."""
    a, y = _check(scores_a, labels)
    b, _ = _check(scores_b, labels)
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"expected n_boot >= 1 and 0 < level < 1, got {n_boot}, {level}")
    rng = np.random.default_rng(seed)
    w_pos = bootstrap_weights(rng, int(y.sum()), n_boot)
    w_neg = bootstrap_weights(rng, int((1 - y).sum()), n_boot)
    reps = (
        resampled_metrics(a, y, w_pos, w_neg, ())[0] - resampled_metrics(b, y, w_pos, w_neg, ())[0]
    )
    lo, hi = percentile_interval(reps, level)
    return float(metrics.roc_auc_score(y, a) - metrics.roc_auc_score(y, b)), float(lo), float(hi)


# ------------------------------------------------------- calibration and test thresholds
def calibration_split(labels, *, share: float = 0.5, seed: int = 0) -> np.ndarray:
    """A boolean mask, True for the calibration items: per label, a seeded permutation of that
    label's items (``numpy.random.default_rng(seed)``, members first) of which the first
    ``round(share × count)`` — at least 1 and at most count − 1 — calibrate; the rest are the
    test split. ValueError with fewer than 2 items of a label."""
    y = np.asarray(labels).ravel()
    if not 0 < share < 1:
        raise ValueError(f"expected a calibration share in (0, 1), got {share}")
    rng = np.random.default_rng(seed)
    cal = np.zeros(y.size, dtype=bool)
    for label in (1, 0):
        idx = np.flatnonzero(y == label)
        if idx.size < 2:
            raise ValueError(f"expected at least 2 items labelled {label} to split, got {idx.size}")
        k = min(max(round(share * idx.size), 1), idx.size - 1)
        cal[rng.permutation(idx)[:k]] = True
    return cal


def threshold_at_fpr(scores, labels, fpr: float) -> float:
    """The lowest threshold τ (an item is called a member when its score ≥ τ) whose FPR on
    these items is ≤ ``fpr``: the most members found within that FPR. ``inf`` when not even the
    highest score qualifies (ties of a non-member with it)."""
    s, y = _check(scores, labels)
    f, _, thr = metrics.roc_curve(y, s, drop_intermediate=False)
    return float(thr[np.flatnonzero(f <= fpr)[-1]])


def threshold_best_balanced(scores, labels) -> float:
    """The threshold τ (member when score ≥ τ) of the best balanced accuracy
    ``(TPR + 1 − FPR) / 2`` on these items (the highest such τ on ties)."""
    s, y = _check(scores, labels)
    f, t, thr = metrics.roc_curve(y, s, drop_intermediate=False)
    return float(thr[int(np.argmax((t + 1 - f) / 2))])


def _rate_ci(k: int, n: int, level: float) -> tuple[float, float, float]:
    """k/n with its exact interval at ``level`` (:func:`copyscope.stats.clopper_pearson`)."""
    return clopper_pearson(k, n, level)


def calibrated_thresholds(
    scores, labels, calibration, *, fprs=LOW_FPRS, level: float = 0.95
) -> list[dict]:
    """Thresholds fitted on the ``calibration`` items (a boolean mask,
    :func:`calibration_split`) and counted on the others. One dict per rule: ``fpr_<α>`` for
    each α of ``fprs`` (:func:`threshold_at_fpr`; its threshold, and every count, NaN with a
    ``note`` when the calibration split's non-members allow no false positive at α),
    ``zero_fp`` (the lowest threshold above every calibration non-member) and
    ``best_balanced`` (:func:`threshold_best_balanced`). Keys: ``rule``, ``target_fpr``,
    ``threshold``, ``cal_members``, ``cal_nonmembers``, ``cal_tpr``, ``cal_fpr``,
    ``test_members``, ``test_nonmembers``, ``test_tp``, ``test_fp``, ``test_tpr`` and
    ``test_fpr`` with exact binomial ``_lo`` / ``_hi`` bounds, ``note``."""
    s, y = _check(scores, labels)
    cal = np.asarray(calibration, dtype=bool).ravel()
    if cal.shape != s.shape:
        raise ValueError(f"expected one calibration flag per score, got {cal.size}, {s.size}")
    sc, yc = _check(s[cal], y[cal])
    st, yt = _check(s[~cal], y[~cal])
    n_neg = int((1 - yc).sum())
    rules: list[tuple[str, float, float, str]] = []
    for a in fprs:
        if false_positives_allowed(n_neg, a) > 0:
            rules.append((f"fpr_{a:g}", a, threshold_at_fpr(sc, yc, a), ""))
        else:
            need = int(np.ceil(1 / a - 1e-9))
            note = f"not estimable: FPR {a:g} needs >= {need} calibration non-members, has {n_neg}"
            rules.append((f"fpr_{a:g}", a, np.nan, note))
    rules.append(("zero_fp", 0.0, threshold_at_fpr(sc, yc, 0.0), ""))
    rules.append(("best_balanced", np.nan, threshold_best_balanced(sc, yc), ""))
    rows = []
    for name, target, tau, note in rules:
        row = {
            "rule": name,
            "target_fpr": target,
            "threshold": tau,
            "cal_members": int(yc.sum()),
            "cal_nonmembers": n_neg,
        }
        if np.isnan(tau):
            row |= {"cal_tpr": np.nan, "cal_fpr": np.nan}
            row |= {"test_members": int(yt.sum()), "test_nonmembers": int((1 - yt).sum())}
            for k in ("test_tp", "test_fp", "test_tpr", "test_tpr_lo", "test_tpr_hi"):
                row[k] = np.nan
            row |= {"test_fpr": np.nan, "test_fpr_lo": np.nan, "test_fpr_hi": np.nan}
        else:
            hit_c, hit_t = sc >= tau, st >= tau
            tp, fp = int((hit_t & (yt == 1)).sum()), int((hit_t & (yt == 0)).sum())
            n_pos, n_neg_t = int(yt.sum()), int((1 - yt).sum())
            row["cal_tpr"] = float(hit_c[yc == 1].mean())
            row["cal_fpr"] = float(hit_c[yc == 0].mean())
            row |= {"test_members": n_pos, "test_nonmembers": n_neg_t}
            row |= {"test_tp": tp, "test_fp": fp}
            for key, k, n in (("test_tpr", tp, n_pos), ("test_fpr", fp, n_neg_t)):
                v, lo, hi = _rate_ci(k, n, level)
                row |= {key: v, f"{key}_lo": lo, f"{key}_hi": hi}
        row["note"] = note
        rows.append(row)
    return rows
