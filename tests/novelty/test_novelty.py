"""n-gram novelty metrics: the paper's worked example and hand-checked cases."""

from __future__ import annotations

import numpy as np
import pytest

from copyscope.corpus.windows import prompt_windows
from copyscope.errors import InputError
from copyscope.index import Index, build_index
from copyscope.novelty import (
    bootstrap_mean,
    bootstrap_mean_difference,
    bootstrap_novelty,
    completion_loss_frequency,
    completion_loss_slope,
    completion_loss_table,
    count_matrix,
    lower_bound,
    novelty_counts,
    novelty_curve,
    novelty_tables,
)
from support.index import stream_of


def novelty_block(n_max, bootstrap):
    """A ``novelty:`` config block."""
    return {
        "n_max": n_max,
        "bootstrap": bootstrap,
        "seed": 0,
        "lower_bound": {"p": 0.9, "bits_per_token": 1.8},
    }


def test_paper_example_novelty_from_index(tmp_path):
    """Merrill et al.: C = "hello world", Q = "lloyd": novelty 1/5, 2/4, 2/3, 2/2 for n = 1..4."""
    build_index(stream_of([[ord(c) for c in "hello world"]]), tmp_path / "i")
    L, _ = Index(tmp_path / "i").longest_matches([[ord(c) for c in "lloyd"]])[0]
    curve = novelty_curve([L], n_max=6)
    assert curve[:4].tolist() == pytest.approx([1 / 5, 2 / 4, 2 / 3, 2 / 2])
    assert curve[4] == 1.0  # the only 5-gram ("lloyd") is novel
    assert np.isnan(curve[5])  # no 6-gram in a 5-token text


def test_novelty_counts_by_hand():
    # L = [1, 2, 0, 3]: n=1 → t=2 novel of 4; n=2 → t≥1: L<2 at t=2 → 1 of 3;
    # n=3 → t≥2: L<3 at t=2 → 1 of 2; n=4 → t=3: L=3<4 → 1 of 1; n=5 → none
    novel, total = novelty_counts(np.array([1, 2, 0, 3]), 5)
    assert novel.tolist() == [1, 1, 1, 1, 0]
    assert total.tolist() == [4, 3, 2, 1, 0]


def test_pooling_is_over_token_occurrences():
    docs = [np.array([0, 0]), np.array([1, 2, 3, 4, 5, 6])]
    # n=1: novel tokens 2 of 8
    assert novelty_curve(docs, 1)[0] == pytest.approx(2 / 8)
    novel, total = count_matrix(docs, 2)
    assert novel.sum(0).tolist() == [2, 1] and total.sum(0).tolist() == [8, 6]


def test_lower_bound_by_hand():
    # LB(n) = max(0, 1 − |C| · 2^(n·(log2 p − ℓ))).
    # |C| = 1000, p = 0.5, ℓ = 1: log2 0.5 − 1 = −2, so |C| · 2^(−2n) = 1000 / 4^n:
    #   n = 1: 1 − 1000/4    = −249      → clipped to 0
    #   n = 4: 1 − 1000/256  = −2.90625  → clipped to 0
    #   n = 5: 1 − 1000/1024 = 24/1024   = 0.0234375
    #   n = 6: 1 − 1000/4096 = 3096/4096 = 0.755859375
    #   n = 10: 1 − 1000/1048576 = 1047576/1048576 = 0.99904632568359375
    # (powers of two: every value is exact in floating point)
    lb = lower_bound(np.array([1, 4, 5, 6, 10]), corpus_size=1000, p=0.5, bits_per_token=1.0)
    assert lb.tolist() == [0.0, 0.0, 0.0234375, 0.755859375, 0.99904632568359375]
    # |C| = 3, p = 1 (every token deterministic), ℓ = 2: 1 − 3/4^n → n = 1: 0.25, n = 2: 0.8125
    assert lower_bound(np.array([1, 2]), corpus_size=3, p=1.0, bits_per_token=2.0).tolist() == [
        0.25,
        0.8125,
    ]
    # the paper's setting, |C| = 10^6, p = 0.9, ℓ = 1.8, n = 11:
    #   log2 0.9 = −0.1520031; 11 · (−0.1520031 − 1.8) = −21.472034;
    #   2^−21.472034 = 2^−21 · 2^−0.472034 = 4.768372e-7 · 0.720941 = 3.437745e-7;
    #   LB = 1 − 10^6 · 3.437745e-7 = 1 − 0.3437745 = 0.6562255
    assert lower_bound(np.array([11]), 10**6, 0.9, 1.8)[0] == pytest.approx(0.6562255, abs=1e-7)


def test_bootstrap_brackets_point_and_is_seeded():
    rng = np.random.default_rng(0)
    docs = [rng.integers(0, 6, size=50) for _ in range(40)]
    novel, total = count_matrix(docs, 10)
    lo, hi = bootstrap_novelty(novel, total, 500, seed=1)
    point = novelty_curve(docs, 10)
    assert np.all(lo <= point + 1e-12) and np.all(point <= hi + 1e-12)
    lo2, hi2 = bootstrap_novelty(novel, total, 500, seed=1)
    assert lo.tolist() == lo2.tolist() and hi.tolist() == hi2.tolist()
    mean, mlo, mhi = bootstrap_mean(docs, 500, seed=1)
    assert mlo <= mean <= mhi
    assert mean == pytest.approx(np.concatenate(docs).mean())


def test_prompt_windows_are_deterministic_and_true_continuations():
    docs = [np.arange(100), np.arange(1000, 1030)]
    w = prompt_windows(docs, 4, 6, max_windows=5, seed=3)
    assert w == prompt_windows(docs, 4, 6, max_windows=5, seed=3)
    assert len(w) == 5
    for x in w:
        d = docs[x["doc"]]
        assert x["prompt"] == d[x["start"] : x["start"] + 4].tolist()
        assert x["continuation"] == d[x["start"] + 4 : x["start"] + 10].tolist()


def test_novelty_tables_columns():
    docs = [np.array([1, 2, 0, 3]), np.array([1, 1])]
    curve, summary, hist = novelty_tables(docs, 1000, novelty_block(4, 50), {"text_set": "x"})
    assert list(curve["n"]) == [1, 2, 3, 4]
    assert summary["mean_nnsl"].iloc[0] == pytest.approx(8 / 6)
    assert dict(zip(hist["L"], hist["tokens"], strict=True)) == {0: 1, 1: 3, 2: 1, 3: 1}


# ----------------------------------------------------------------------------- novelty valid
PARAMS = {
    "prompt_tokens": 2,
    "continuation_tokens": 3,
    "max_windows": 10,
    "seed": 0,
    "n_max": 4,
    "bootstrap": 20,
    "lower_bound": {"p": 0.9, "bits_per_token": 1.8},
}


def test_validation_novelty_matches_by_hand(tmp_path):
    from copyscope.novelty import validation_novelty

    build_index(stream_of([[1, 2, 3, 4]]), tmp_path / "i")
    idx = Index(tmp_path / "i")
    # one window per document: prompt 9 9 | continuation 2 3 7 and 1 2 3
    docs = [np.array([9, 9, 2, 3, 7]), np.array([5, 5, 1, 2, 3])]
    label = {"text_set": "validation", "tokenizer": "t", "unit": "tokens"}
    matches, curve, summary, hist = validation_novelty(idx, docs, ["x", "y"], PARAMS, label)
    assert matches["doc_id"].tolist() == ["x"] * 3 + ["y"] * 3
    assert matches["token"].tolist() == [2, 3, 7, 1, 2, 3]
    assert matches["L"].tolist() == [1, 2, 0, 1, 2, 3]
    assert matches["C"].tolist() == [1, 1, 5, 1, 1, 1]
    ref = novelty_tables([np.array([1, 2, 0]), np.array([1, 2, 3])], 5, novelty_block(4, 20), label)
    assert summary.equals(ref[1]) and hist.equals(ref[2])
    assert curve.drop(columns="corpus_tokens").equals(ref[0])
    assert (curve["corpus_tokens"] == 5).all()
    with pytest.raises(InputError, match="no validation document is long enough"):
        validation_novelty(idx, [np.array([1, 2, 3])], ["x"], PARAMS, label, "v.json")


@pytest.mark.parametrize("kind, unit", [("moses", "words"), ("bpe", "tokens")])
def test_novelty_valid_command_writes_the_tables(tmp_path, kind, unit):
    import json

    import pandas as pd

    from copyscope.cli import main

    build_index(stream_of([[1, 2, 3, 4]]), tmp_path / "i")
    np.save(tmp_path / "v.npy", stream_of([[9, 9, 2, 3, 7], [5]]))
    meta = {"kind": kind, "doc_ids": ["x", "y"], "doc_lengths": [5, 1]}
    (tmp_path / "v.json").write_text(json.dumps(meta))
    out = {k: tmp_path / f"{k}.{'parquet' if k == 'matches' else 'csv'}"
           for k in ("matches", "curve", "summary", "hist")}  # fmt: skip
    argv = ["novelty", "valid", "--index", str(tmp_path / "i"), "--tokenizer-name", "t",
            "--valid-npy", str(tmp_path / "v.npy"), "--valid-json", str(tmp_path / "v.json"),
            "--params-json", json.dumps(PARAMS)] + [f"--out-{k}={p}" for k, p in out.items()]  # fmt: skip
    assert main(argv) == 0
    summary = pd.read_csv(out["summary"])
    assert summary[["tokenizer", "unit", "texts", "tokens"]].values.tolist() == [["t", unit, 1, 3]]
    assert pd.read_parquet(out["matches"])["L"].tolist() == [1, 2, 0]
    assert pd.read_csv(out["curve"])["n"].tolist() == [1, 2, 3, 4]


# ----------------------------------------------------------------------------- completion loss
def _curve(table, curve):
    g = table[table["curve"] == curve]
    return dict(zip(g["x"].tolist(), g["loss"].tolist(), strict=True))


def test_completion_loss_by_hand():
    """L = [2, 3, 1], losses l0, l1, l2. Authors' "in training" (every token t ≥ 1 at its own
    L_t): {3: l1, 1: l2}. "Not in training" (L_i + 1 ≠ L_{i+1}, x = L_i + 1, loss of i+1):
    i = 0 has L_1 = L_0 + 1, i = 1 has L_2 = 1 ≠ 4 → {4: l2}. Extended match (the earlier
    variant): i = 0 → {3: l1}."""
    l0, l1, l2 = 0.5, 1.25, 2.0
    table = completion_loss_table([np.array([2, 3, 1])], [np.array([l0, l1, l2])], "m")
    assert _curve(table, "in training") == {3: l1, 1: l2}
    assert _curve(table, "not in training") == {4: l2}
    assert _curve(table, "in training, extended match") == {3: l1}
    assert table["curve"].tolist() == [
        "in training",
        "in training",
        "not in training",
        "in training, extended match",
    ]
    assert (table["model"] == "m").all() and table["tokens"].tolist() == [1, 1, 1, 1]


def test_completion_loss_pools_tokens_and_drops_unseen_unigrams():
    """Two texts: L = [0, 1, 2, 0] and [1, 1]; losses 1..4 and 5, 6. In training (t ≥ 1,
    L_t ≥ 1): x=1 {2, 6}, x=2 {3}; the t = 3 token with L = 0 is on no in-training point.
    Not in training: text 1 i = 2 (L 2 → 0) → x = 3: 4; text 2 i = 0 (1 → 1) → x = 2: 6.
    Extended: text 1 i = 0, 1 → x = 1: 2, x = 2: 3."""
    table = completion_loss_table(
        [np.array([0, 1, 2, 0]), np.array([1, 1])],
        [np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, 6.0])],
        "m",
    )
    assert _curve(table, "in training") == {1: 4.0, 2: 3.0}
    assert table[(table["curve"] == "in training") & (table["x"] == 1)]["tokens"].item() == 2
    assert _curve(table, "not in training") == {2: 6.0, 3: 4.0}
    assert _curve(table, "in training, extended match") == {1: 2.0, 2: 3.0}
    capped = completion_loss_table([np.array([2, 3, 1])], [np.array([0.0, 1.0, 2.0])], "m", 3)
    assert capped["x"].max() == 3
    with pytest.raises(ValueError):
        completion_loss_table([np.array([1, 2])], [np.array([1.0])], "m")


def test_completion_loss_frequency_by_hand():
    """Tokens t ≥ 1 with L_t ∈ {4, 8}, bucketed by round(log10 C_t): text 0 has
    (L 4, C 9 → 1, loss 1), (L 4, C 11 → 1, loss 3), (L 8, C 2 → 0, loss 5), (L 5: no such n);
    text 1 has (L 4, C 120 → 2, loss 2) and at t = 0 (L 4, C 10, loss 9), which is left out."""
    L = [np.array([0, 4, 4, 8, 5]), np.array([4, 4])]
    C = [np.array([1e6, 9, 11, 2, 3]), np.array([10, 120])]
    y = [np.array([7.0, 1.0, 3.0, 5.0, 6.0]), np.array([9.0, 2.0])]
    f = completion_loss_frequency(L, C, y, "m", ns=(4, 8, 16), n_boot=0)
    got = {(r.n, r.log10_count): (r.loss, r.tokens, r.texts) for r in f.itertuples()}
    assert got == {(4, 1): (2.0, 2, 1), (4, 2): (2.0, 1, 1), (8, 0): (5.0, 1, 1)}
    assert f["loss_lo"].isna().all() and (f["model"] == "m").all()
    boot = completion_loss_frequency(L, C, y, "m", ns=(4, 8), n_boot=200, seed=1)
    assert boot[["n", "log10_count", "loss"]].equals(f[["n", "log10_count", "loss"]])
    # one text per bucket: every resample gives the same mean or none → degenerate interval
    assert (boot["loss_lo"] == boot["loss"]).all() and (boot["loss_hi"] == boot["loss"]).all()
    assert completion_loss_frequency(L, C, y, "m", ns=(64,), n_boot=10).empty


def test_ols_slope_by_hand():
    from copyscope.novelty.metrics import ols_slope

    # (0, 1), (1, 3), (2, 5): N 3, Σx 3, Σy 9, Σx² 5, Σxy 13 → (39 − 27) / (15 − 9) = 2
    assert ols_slope(np.array([3, 3, 9, 5, 13])) == pytest.approx(2.0)
    # one distinct x (twice 1): no slope
    assert np.isnan(ols_slope(np.array([2, 2, 5, 2, 5])))
    assert np.isnan(ols_slope(np.zeros(5)))


def test_completion_loss_slope_by_hand():
    """The tokens of the frequency table (t ≥ 1, L_t = n), unbucketed: n = 4 has (log10 C,
    loss) = (1, 3), (2, 2) in text 0 and (3, 1) in text 1 → slope −1; n = 8 has one token
    (C 5) → NaN; the other n have no token. Token 0 of each text (L 4) is left out."""
    L = [np.array([4, 4, 4]), np.array([4, 4, 8])]
    C = [np.array([10**5, 10, 100]), np.array([7, 1000, 5])]
    y = [np.array([0.0, 3.0, 2.0]), np.array([8.0, 1.0, 7.0])]
    f = completion_loss_slope(L, C, y, "m", n_boot=0)
    assert list(f.columns) == ["model", "n", "tokens", "texts", "slope", "slope_lo", "slope_hi"]
    assert f["n"].tolist() == [4, 8, 16, 32, 64, 128]
    assert f["tokens"].tolist() == [3, 1, 0, 0, 0, 0] and f["texts"].tolist() == [2, 1, 0, 0, 0, 0]
    assert f["slope"].iloc[0] == pytest.approx(-1.0) and f["slope"].iloc[1:].isna().all()
    assert f["slope_lo"].isna().all()
    # every resample with both texts or text 0 alone lies on the line: a degenerate interval;
    # text 1 alone (one count) gives no slope and is left out
    b = completion_loss_slope(L, C, y, "m", n_boot=200, seed=3)
    assert b["slope_lo"].iloc[0] == pytest.approx(-1.0) and b["slope_hi"].iloc[0] == pytest.approx(
        -1.0
    )
    assert b["slope_lo"].iloc[1:].isna().all()
    # the same tokens as the frequency table
    freq = completion_loss_frequency(L, C, y, "m", n_boot=0)
    assert freq.groupby("n")["tokens"].sum().to_dict() == {4: 3, 8: 1}


def test_completion_loss_slope_bootstrap_is_seeded_over_texts():
    rng = np.random.default_rng(0)
    L = [np.array([0, 4, 4, 4]) for _ in range(40)]
    C = [np.array([1, 10, 100, 1000]) for _ in range(40)]
    y = [np.r_[0.0, 5 - 0.5 * np.arange(1, 4) + rng.normal(0, 0.5, 3)] for _ in range(40)]
    a = completion_loss_slope(L, C, y, "m", ns=(4,), n_boot=300, seed=2)
    b = completion_loss_slope(L, C, y, "m", ns=(4,), n_boot=300, seed=2)
    c = completion_loss_slope(L, C, y, "m", ns=(4,), n_boot=300, seed=3)
    assert a.equals(b) and not a.equals(c)
    r = a.iloc[0]
    assert r["tokens"] == 120 and r["texts"] == 40
    assert r["slope_lo"] < r["slope"] < r["slope_hi"] < 0 and abs(r["slope"] + 0.5) < 0.2
    # resampling texts, not tokens: a copy of every text gives the same point, other draws
    twice = completion_loss_slope(L + L, C + C, y + y, "m", ns=(4,), n_boot=300, seed=2)
    assert twice["slope"].iloc[0] == pytest.approx(r["slope"])


def test_bootstrap_mean_difference_by_hand():
    a, b = [np.array([1, 1]), np.array([3])], [np.array([1]), np.array([1, 2])]
    delta, lo, hi = bootstrap_mean_difference(a, b, n_boot=0)
    assert delta == pytest.approx(5 / 3 - 4 / 3) and np.isnan(lo) and np.isnan(hi)
    # paired: the same draw on both sides; a = b + 1 everywhere → every draw gives exactly 1
    same = [np.array([2.0, 3.0]), np.array([5.0])]
    plus = [v + 1 for v in same]
    assert bootstrap_mean_difference(plus, same, 100, 0, paired=True) == pytest.approx((1, 1, 1))
    # independent: the draws differ, so the interval is wider than the paired one
    _, lo, hi = bootstrap_mean_difference(plus, same, 100, 0)
    assert lo < 1 < hi
    assert bootstrap_mean_difference(a, b, 50, 4) == bootstrap_mean_difference(a, b, 50, 4)
    with pytest.raises(ValueError, match="paired"):
        bootstrap_mean_difference(a, b[:1], 10, paired=True)
    assert np.isnan(bootstrap_mean_difference(a, [], 10)[0])


def test_completion_loss_frequency_interval_over_texts():
    """A bucket spread over texts with different losses gets a proper, seeded interval."""
    rng = np.random.default_rng(0)
    L = [np.array([0, 4, 4]) for _ in range(30)]
    C = [np.array([1, 100, 100]) for _ in range(30)]
    y = [np.array([0.0, v, v]) for v in rng.normal(3.0, 1.0, size=30)]
    a = completion_loss_frequency(L, C, y, "m", n_boot=300, seed=2)
    b = completion_loss_frequency(L, C, y, "m", n_boot=300, seed=2)
    assert a.equals(b) and len(a) == 1
    r = a.iloc[0]
    assert r["tokens"] == 60 and r["texts"] == 30
    assert r["loss_lo"] < r["loss"] < r["loss_hi"] and r["loss_hi"] - r["loss_lo"] < 1.5
