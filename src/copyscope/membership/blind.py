"""Model-free ("blind") membership baselines (Das et al. 2024, "Blind Baselines Beat Membership
Inference Attacks for Foundation Models").

A blind baseline sees only the texts and their labels, never the model: if it separates
members from non-members, the two sets differ in distribution and a detector's AUC measures
that shift as much as the model's memory. Each baseline is a scikit-learn logistic
regression (L2, C = 1) whose score for a text is its out-of-fold probability of "member"
under seeded stratified k-fold cross-validation (:func:`cross_validated_scores`; k = 5, or the
smaller class's count when that is fewer): no text is scored by a classifier that saw it.

* ``blind_length`` — the text's length only: log(1 + characters), log(1 + whitespace words),
  log(1 + lines), standardised;
* ``blind_bow`` — bag of words: binary presence of each lowercased word (``\\w+``) of the
  training folds' vocabulary.

A detector is credited only with its margin over the better blind baseline on the same items
(the detector table's ``delta_auc_vs_blind``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["BLIND", "cross_validated_scores", "length_features", "blind_scores"]

BLIND = ("blind_length", "blind_bow")
"""The blind baselines, in the detector table's names (higher score = member)."""


def length_features(texts) -> np.ndarray:
    """One row per text: log(1 + characters), log(1 + whitespace words), log(1 + lines)."""
    rows = [(len(t), len(t.split()), t.count("\n") + 1) for t in texts]
    return np.log1p(np.asarray(rows, dtype=np.float64).reshape(-1, 3))


def _pipeline(name: str):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, StandardScaler

    clf = LogisticRegression(C=1.0, max_iter=1000)
    if name == "blind_length":
        return make_pipeline(FunctionTransformer(length_features), StandardScaler(), clf)
    if name == "blind_bow":
        return make_pipeline(CountVectorizer(binary=True, token_pattern=r"(?u)\w+"), clf)
    raise ValueError(f"expected a blind baseline of {BLIND}, got {name!r}")


def cross_validated_scores(name: str, texts, labels, *, folds: int = 5, seed: int = 0):
    """Out-of-fold P(member) of the blind baseline ``name`` (:data:`BLIND`) for every text:
    ``sklearn.model_selection.cross_val_predict`` over ``StratifiedKFold(k, shuffle=True,
    random_state=seed)`` with k = min(``folds``, members, non-members). ValueError with fewer
    than 2 members or 2 non-members."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    x = np.asarray(list(texts), dtype=object)
    y = np.asarray(labels).astype(np.int64).ravel()
    if x.shape != y.shape:
        raise ValueError(f"expected one label per text, got {x.size} texts, {y.size} labels")
    k = min(folds, int(y.sum()), int((1 - y).sum()))
    if k < 2:
        raise ValueError("expected at least 2 members and 2 non-members to cross-validate")
    cv = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    return cross_val_predict(_pipeline(name), x, y, cv=cv, method="predict_proba")[:, 1]


def blind_scores(texts, labels, *, folds: int = 5, seed: int = 0) -> dict[str, np.ndarray]:
    """``{name: out-of-fold scores}`` of every baseline of :data:`BLIND`
    (:func:`cross_validated_scores`)."""
    texts = list(texts)
    return {b: cross_validated_scores(b, texts, labels, folds=folds, seed=seed) for b in BLIND}
