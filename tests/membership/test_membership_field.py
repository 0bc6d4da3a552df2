"""Membership inference reported as the field expects: TPR at low FPR, blind baselines,
training n-gram overlap strata, calibration/test thresholds (issue 19 §4)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from copyscope.index import Index, build_index
from copyscope.membership import blind, evaluate, overlap, stage
from copyscope.report import membership as report
from support.index import stream_of

# --- TPR at low FPR --------------------------------------------------------------------------


def test_fpr_columns_and_false_positives_allowed():
    assert [evaluate.fpr_column(a) for a in evaluate.LOW_FPRS] == [
        "tpr_at_0p1fpr",
        "tpr_at_1fpr",
        "tpr_at_5fpr",
    ]
    assert evaluate.false_positives_allowed(20, 0.05) == 1
    assert evaluate.false_positives_allowed(19, 0.05) == 0
    assert evaluate.false_positives_allowed(100, 0.01) == 1
    assert evaluate.false_positives_allowed(999, 0.001) == 0
    assert evaluate.false_positives_allowed(1000, 0.001) == 1
    assert evaluate.false_positives_allowed(2000, 0.001) == 2


def test_tpr_at_low_fpr_hand_worked_with_ties_and_few_items():
    # non-members 8, 5 and eighteen 0s; members 10, 9, 5, 5. At FPR <= 5% one non-member may
    # pass: threshold 8 finds 10 and 9 (TPR .5); lowering it to 5 lets the tied non-member 5
    # through too (2 of 20 = 10% FPR) and finds all four (TPR 1). 1% and 0.1% allow no false
    # positive with 20 non-members: not estimable.
    s = np.r_[10, 9, 5, 5, 8, 5, np.zeros(18)]
    y = np.r_[np.ones(4, int), np.zeros(20, int)]
    assert evaluate.tpr_at_fpr(s, y, 0.05) == 0.5
    assert evaluate.tpr_at_fpr(s, y, 0.10) == 1.0
    row = evaluate.low_fpr_row(s, y, n_boot=200, seed=3)
    assert row["tpr_at_5fpr"] == 0.5 and row["tpr_at_5fpr_fp"] == 1
    assert row["tpr_at_5fpr_lo"] <= 0.5 <= row["tpr_at_5fpr_hi"]
    for col in ("tpr_at_1fpr", "tpr_at_0p1fpr"):
        assert row[f"{col}_fp"] == 0
        assert all(np.isnan(row[k]) for k in (col, f"{col}_lo", f"{col}_hi"))
    two = evaluate.low_fpr_row(s, y, fprs=(0.10,), n_boot=50)
    assert two["tpr_at_10fpr"] == 1.0 and two["tpr_at_10fpr_fp"] == 2


def test_tpr_at_0p1_fpr_needs_a_thousand_nonmembers():
    rng = np.random.default_rng(0)
    for n_neg, estimable in ((999, False), (1000, True)):
        y = np.r_[np.ones(50, int), np.zeros(n_neg, int)]
        s = rng.normal(size=y.size) + 2 * y
        row = evaluate.low_fpr_row(s, y, n_boot=20)
        assert np.isfinite(row["tpr_at_0p1fpr"]) == estimable
        assert row["tpr_at_0p1fpr_fp"] == int(estimable)
        assert np.isfinite(row["tpr_at_1fpr"])  # 1% of 999 is 9 non-members


def test_resampled_metrics_equal_the_metrics_of_each_explicit_resample():
    rng = np.random.default_rng(1)
    for _ in range(10):
        y = np.r_[np.ones(9, int), np.zeros(21, int)]
        s = rng.integers(0, 6, size=30).astype(float) + y * rng.integers(0, 3)
        w_pos = rng.multinomial(9, np.full(9, 1 / 9), size=5)
        w_neg = rng.multinomial(21, np.full(21, 1 / 21), size=5)
        auc, tpr = evaluate.resampled_metrics(s, y, w_pos, w_neg, (0.05, 0.1, 0.5))
        for b in range(5):
            idx = np.r_[np.repeat(np.flatnonzero(y == 1), w_pos[b]),
                        np.repeat(np.flatnonzero(y == 0), w_neg[b])]  # fmt: skip
            want = evaluate.detector_metrics(s[idx], y[idx])["auc"]
            assert auc[b] == pytest.approx(want)
            for j, a in enumerate((0.05, 0.1, 0.5)):
                assert tpr[b, j] == pytest.approx(evaluate.tpr_at_fpr(s[idx], y[idx], a))


def test_low_fpr_row_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(1)
    y = np.repeat([1, 0], 40)
    s = rng.normal(size=80) + y
    a = evaluate.low_fpr_row(s, y, n_boot=300, seed=7, auc=True)
    assert a == evaluate.low_fpr_row(s, y, n_boot=300, seed=7, auc=True)
    assert a["auc"] == evaluate.detector_metrics(s, y)["auc"]
    assert a["auc_lo"] < a["auc"] < a["auc_hi"]
    assert a["tpr_at_5fpr_lo"] <= a["tpr_at_5fpr"] <= a["tpr_at_5fpr_hi"]
    assert (a["n_members"], a["n_nonmembers"]) == (40, 40)


def test_paired_auc_margin_known_answers():
    rng = np.random.default_rng(2)
    y = np.repeat([1, 0], 40)
    weak = rng.normal(size=80) + 0.3 * y
    strong = y * 10.0 + rng.uniform(size=80)
    d, lo, hi = evaluate.paired_auc_margin(strong, weak, y, n_boot=300, seed=2)
    assert d == pytest.approx(1 - evaluate.detector_metrics(weak, y)["auc"])
    assert 0 < lo <= d <= hi
    assert evaluate.paired_auc_margin(weak, weak, y, n_boot=100) == (0.0, 0.0, 0.0)
    assert evaluate.paired_auc_margin(weak, strong, y, n_boot=300, seed=2)[2] < 0


# --- calibration and test split --------------------------------------------------------------


def test_calibration_split_is_seeded_and_stratified():
    y = np.r_[np.ones(7, int), np.zeros(13, int)]
    a = evaluate.calibration_split(y, seed=4)
    assert (a == evaluate.calibration_split(y, seed=4)).all()
    assert a[y == 1].sum() == 4 and a[y == 0].sum() == 6  # round(3.5) = 4, round(6.5) = 6
    assert any((evaluate.calibration_split(y, seed=k) != a).any() for k in range(5, 10))
    assert evaluate.calibration_split([1, 1, 0, 0], seed=0).sum() == 2
    with pytest.raises(ValueError, match="at least 2 items labelled 1"):
        evaluate.calibration_split([1, 0, 0])


def test_thresholds_hand_worked():
    s, y = [3, 2, 1, 0], [1, 0, 1, 0]
    assert evaluate.threshold_at_fpr(s, y, 0.0) == 3
    assert evaluate.threshold_at_fpr(s, y, 0.5) == 1
    assert evaluate.threshold_best_balanced(s, y) == 3  # .75 at 3 and at 1: the higher
    assert evaluate.threshold_at_fpr([1, 1], [1, 0], 0.0) == np.inf  # a tie with a non-member


def test_calibrated_thresholds_count_the_test_split():
    # calibration: members 9, 7; non-members 8, 1 -> zero_fp threshold 9 (above the
    # non-member 8); best balanced accuracy at 9 or 7 (both .75): 9.
    # test: members 10, 6, 8.5; non-members 9.5, 2 -> at 9: TP 1 (10), FP 1 (9.5)
    s = np.array([9, 7, 8, 1, 10, 6, 8.5, 9.5, 2])
    y = np.array([1, 1, 0, 0, 1, 1, 1, 0, 0])
    cal = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0], bool)
    rows = {r["rule"]: r for r in evaluate.calibrated_thresholds(s, y, cal, fprs=(0.01, 0.5))}
    assert set(rows) == {"fpr_0.01", "fpr_0.5", "zero_fp", "best_balanced"}
    z = rows["zero_fp"]
    assert z["threshold"] == 9 and z["cal_tpr"] == 0.5 and z["cal_fpr"] == 0
    assert (z["test_tp"], z["test_members"], z["test_fp"], z["test_nonmembers"]) == (1, 3, 1, 2)
    assert z["test_tpr"] == pytest.approx(1 / 3) and z["test_fpr"] == 0.5
    assert z["test_tpr_lo"] < 1 / 3 < z["test_tpr_hi"] and z["test_fpr_lo"] < 0.5
    assert rows["best_balanced"]["threshold"] == 9
    half = rows["fpr_0.5"]  # one of two calibration non-members may pass: threshold 7
    assert half["threshold"] == 7 and half["cal_fpr"] == 0.5
    assert (half["test_tp"], half["test_fp"]) == (2, 1)  # 10 and 8.5; 9.5
    low = rows["fpr_0.01"]
    assert np.isnan(low["threshold"]) and np.isnan(low["test_tpr"])
    assert "needs >= 100 calibration non-members, has 2" in low["note"]


# --- blind baselines -------------------------------------------------------------------------

VOCAB = [f"w{i}" for i in range(40)]


def _texts(rng, lengths) -> list[str]:
    return [" ".join(rng.choice(VOCAB, size=int(n))) for n in lengths]


def _contamination(texts, planted, loss) -> tuple[pd.DataFrame, list[dict]]:
    ids = [f"bench-{i}" for i in range(len(texts))]
    frame = pd.DataFrame(
        {"model": "m", "set": "contamination", "id": ids, "planted": planted, "loss": loss}
    )
    docs = [
        {"set": "contamination", "id": i, "planted": p, "text": t}
        for i, p, t in zip(ids, planted, texts, strict=True)
    ]
    return frame, docs


def test_blind_baseline_finds_a_length_shift_and_takes_the_detectors_credit():
    # members differ from non-members in length only (same words): the blind baseline
    # separates them, and a "detector" that reads the length has no margin over it
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(40, int), np.zeros(40, int)]
    lengths = np.where(y == 1, rng.integers(60, 80, 80), rng.integers(30, 50, 80))
    frame, docs = _contamination(_texts(rng, lengths), y, -lengths.astype(float))
    table = report.detector_table(report.with_blind(frame, docs, seed=0), n_boot=200, seed=0)
    r = table.set_index("detector")
    assert r.at["blind_length", "auc"] > 0.95
    assert r.at["loss", "blind_auc"] > 0.95
    assert abs(r.at["loss", "delta_auc_vs_blind"]) < 0.05
    assert r.at["loss", "delta_auc_vs_blind_lo"] <= 0 <= r.at["loss", "delta_auc_vs_blind_hi"]
    assert r.at["loss", "blind_detector"] in blind.BLIND


def test_blind_baseline_control_without_a_shift_credits_the_detector():
    # members and non-members drawn alike: blind near chance, a real signal keeps its margin
    rng = np.random.default_rng(1)
    y = rng.permutation(np.r_[np.ones(60, int), np.zeros(60, int)])
    lengths = rng.integers(40, 60, 120)
    loss = rng.normal(size=120) - 1.5 * y  # lower loss = member
    frame, docs = _contamination(_texts(rng, lengths), y, loss)
    table = report.detector_table(report.with_blind(frame, docs, seed=0), n_boot=200, seed=0)
    r = table.set_index("detector")
    for b in blind.BLIND:
        assert 0.3 < r.at[b, "auc"] < 0.7, b
    assert r.at["loss", "auc"] > 0.8
    assert r.at["loss", "delta_auc_vs_blind_lo"] > 0
    assert r.at["loss", "delta_auc_vs_blind"] == pytest.approx(
        r.at["loss", "auc"] - r.at["loss", "blind_auc"]
    )


def test_blind_scores_are_out_of_fold_and_seeded():
    rng = np.random.default_rng(2)
    texts = _texts(rng, rng.integers(5, 15, 30))
    y = np.r_[np.ones(15, int), np.zeros(15, int)]
    a = blind.blind_scores(texts, y, seed=3)
    assert set(a) == set(blind.BLIND)
    b = blind.blind_scores(texts, y, seed=3)
    assert all((a[k] == b[k]).all() for k in a)
    # a text's score never comes from a classifier that saw its label: duplicating every
    # member text into the non-members keeps the scores near chance
    dup = texts[:15] + texts[:15]
    s = blind.cross_validated_scores("blind_bow", dup, y, seed=0)
    assert evaluate.detector_metrics(s, y)["auc"] < 0.8
    with pytest.raises(ValueError, match="2 members and 2 non-members"):
        blind.cross_validated_scores("blind_length", texts[:3], [1, 0, 0])
    with pytest.raises(ValueError, match="blind baseline"):
        blind.cross_validated_scores("blind_x", texts, y)
    assert blind.length_features(["a b\nc", ""]).shape == (2, 3)


# --- training n-gram overlap and strata ------------------------------------------------------


class Words:
    """A tokenizer stub: whitespace words to fixed ids."""

    def __init__(self, vocab):
        self.ids = {w: i for i, w in enumerate(vocab)}

    def encode(self, text: str) -> np.ndarray:
        return np.array([self.ids[w] for w in text.split()], np.int64)


def brute_overlap(docs, query, n) -> float:
    grams = {tuple(d[i : i + n]) for d in docs for i in range(len(d) - n + 1)}
    q = [tuple(query[i : i + n]) for i in range(len(query) - n + 1)]
    return np.nan if not q else sum(g in grams for g in q) / len(q)


def test_ngram_overlap_hand_worked():
    # L_t = 0 1 2 3 1 2: 3-grams end at t = 2..5, occurring where L_t >= 3: one of four
    assert overlap.ngram_overlap([0, 1, 2, 3, 1, 2], 3) == 0.25
    assert overlap.ngram_overlap([1, 2, 3], 3) == 1.0
    assert np.isnan(overlap.ngram_overlap([1, 2], 3))


def test_overlap_rows_and_strata_equal_brute_force_ngram_membership(tmp_path):
    rng = np.random.default_rng(5)
    vocab = [f"v{i}" for i in range(6)]
    train = [list(rng.integers(0, 6, size=int(n))) for n in rng.integers(10, 40, size=12)]
    build_index(stream_of(train), tmp_path / "idx")
    index, tok = Index(tmp_path / "idx"), Words(vocab)
    texts = []
    for i in range(40):  # queries: pieces of training documents with some words replaced
        d = train[i % len(train)]
        q = list(d[: int(rng.integers(5, len(d) + 1))])
        for j in rng.choice(len(q), size=int(rng.integers(0, len(q))), replace=False):
            q[j] = int(rng.integers(0, 6))
        text = " ".join(vocab[t] for t in q)
        texts.append({"set": "contamination", "id": f"b{i}", "planted": int(i < 8), "text": text})
    rows = stage.overlap_rows(index, tok, texts, ns=(2, 3, 7))
    assert [r["id"] for r in rows] == [t["id"] for t in texts]
    for t, r in zip(texts, rows, strict=True):
        q = list(tok.encode(t["text"]))
        assert r["n_tokens"] == len(q)
        for n in (2, 3, 7):
            want, got = brute_overlap(train, q, n), r[f"overlap_{n}"]
            assert (np.isnan(want) and np.isnan(got)) or got == pytest.approx(want), (n, q)
    # the strata: every member against exactly the non-members in each overlap bin
    ov = pd.DataFrame(stage.overlap_rows(index, tok, texts))
    frame = pd.DataFrame(
        {
            "model": "m",
            "set": "contamination",
            "id": [t["id"] for t in texts],
            "planted": [t["planted"] for t in texts],
            "loss": rng.normal(size=len(texts)),
        }
    )
    strata = report.strata_rows(frame, ov, n_boot=20, seed=0)
    for n in overlap.TRAINING_NS:
        brute = [brute_overlap(train, list(tok.encode(t["text"])), n) for t in texts]
        for b, lo, hi in report.OVERLAP_BINS:
            want = sum(
                1
                for t, v in zip(texts, brute, strict=True)
                if not t["planted"] and (v == 0 or np.isnan(v) if hi == 0 else lo < v <= hi)
            )
            got = strata[(strata["n"] == n) & (strata["bin"] == b) & (strata["detector"] == "loss")]
            assert got["n_nonmembers"].tolist() == [want], (n, b)
            assert got["n_members"].tolist() == [8]
    table = report.overlap_rows(frame, ov)
    assert table[["bin_" + b for b, _, _ in report.OVERLAP_BINS]].sum(axis=1).tolist() == (
        table["texts"].tolist()
    )


def test_overlap_bins():
    assert [report.overlap_bin(v) for v in (0, 1e-9, 0.2, 0.21, 0.8, 0.81, 1)] == [
        "none",
        "low",
        "low",
        "mid",
        "mid",
        "high",
        "high",
    ]
    with pytest.raises(ValueError, match="overlap share"):
        report.overlap_bin(1.5)


def test_threshold_rows_share_one_split_across_detectors():
    rng = np.random.default_rng(6)
    y = np.r_[np.ones(10, int), np.zeros(10, int)]
    frame = pd.DataFrame(
        {
            "model": "m",
            "set": "contamination",
            "id": [f"b{i}" for i in range(20)],
            "planted": y,
            "loss": rng.normal(size=20) - y,
            "min_k_20": rng.normal(size=20),
        }
    )
    t = report.threshold_rows(frame, seed=0)
    assert set(t["detector"]) == {"loss", "min_k_20"}
    assert (t["cal_members"] == 5).all() and (t["test_nonmembers"] == 5).all()
    again = report.threshold_rows(frame.iloc[::-1].reset_index(drop=True), seed=0)
    key = ["detector", "rule"]
    pd.testing.assert_frame_equal(
        t.sort_values(key).reset_index(drop=True), again.sort_values(key).reset_index(drop=True)
    )
    assert list(itertools.islice(t["rule"], 5)) == [
        "fpr_0.001",
        "fpr_0.01",
        "fpr_0.05",
        "zero_fp",
        "best_balanced",
    ]
