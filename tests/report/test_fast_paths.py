"""The report jobs' fast paths against the straightforward implementations they replace, on
small data: the same numbers (the null calibration's and the power table's outputs stay
byte-identical)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope import stats
from copyscope.errors import InputError
from copyscope.novelty.metrics import count_matrix, novelty_counts
from copyscope.report import raven as raven_report
from copyscope.report import workers


def _count_matrix_per_document(docs, n_max):
    pairs = [novelty_counts(d, n_max) for d in docs]
    if not pairs:
        return np.zeros((0, n_max), np.int64), np.zeros((0, n_max), np.int64)
    return np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])


def test_count_matrix_counts_every_document_at_once_as_one_by_one():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n_max = int(rng.integers(1, 25))
        docs = [
            rng.integers(-1, 30, size=int(rng.integers(0, 40))) for _ in range(rng.integers(0, 7))
        ]
        got, want = count_matrix(docs, n_max), _count_matrix_per_document(docs, n_max)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype == np.int64 and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
    # a start below −1 wraps in novelty_counts' own indexing: kept
    docs = [np.array([-3, 0, 5]), np.array([2, 2])]
    for g, w in zip(count_matrix(docs, 4), _count_matrix_per_document(docs, 4), strict=True):
        np.testing.assert_array_equal(g, w)


def test_rank_test_draws_the_permutations_of_one_call_per_permutation(monkeypatch):
    monkeypatch.setattr(stats, "N_PERMUTATIONS", 300)
    rng = np.random.default_rng(1)
    for n in (9, 12, 30):
        x, y = rng.random(n), rng.integers(0, 4, n).astype(float)  # ties in y
        rho, p = stats.rank_test(x, y, seed=n)
        rx, ry = stats.ranks(x), stats.ranks(y)
        rx, ry = rx - rx.mean(), ry - ry.mean()
        gen = np.random.default_rng(n)
        perms = np.array([gen.permutation(ry) for _ in range(300)])
        rhos = perms @ rx / np.linalg.norm(perms, axis=1) / np.linalg.norm(rx)
        hits = int(np.sum(np.abs(rhos) >= abs(rho) - 1e-9))
        assert p == (1 + hits) / 301


def test_gather_windows_against_a_frame_per_window():
    from copyscope.report.findings.data import gather_windows

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"text": rng.integers(0, 9, 200).astype(np.int32), "t": np.arange(200),
                          "window": rng.choice([3, 7, 11, 40], 200),
                          "s_union": rng.integers(1, 9, 200)})  # fmt: skip
    groups = dict(tuple(frame.groupby("window", sort=False)))
    for pick in ([7], [40, 3, 40], list(rng.choice([3, 7, 11, 40], 9))):
        want = pd.concat([groups[x].assign(text=j, window=j) for j, x in enumerate(pick)],
                         ignore_index=True)  # fmt: skip
        pd.testing.assert_frame_equal(gather_windows(frame, np.asarray(pick)), want)


def test_at_step_finds_the_row_a_frame_filter_finds():
    from copyscope.report.findings.core import at_step

    rows = pd.DataFrame({"model": ["a", "a", "b", "b", "a"], "set": ["x", "y", "x", "x", "x"],
                         "step": [1, 1, 1, 2, 2], "value": [0.1, 0.2, 0.3, 0.4, 0.5],
                         "n": [10.0, 20.0, 30.0, np.nan, 50.0]}).astype({"model": "string"})  # fmt: skip
    rows = rows.iloc[::-1]  # an index out of order
    for model, name, step in [("a", "x", 1), ("b", "x", 2), ("a", "x", 2), ("b", "y", 1)]:
        hit = rows[(rows["model"] == model) & (rows["set"] == name) & (rows["step"] == step)]
        got = at_step(rows, model, name, step)
        if not len(hit):
            assert got is None
        else:
            pd.testing.assert_series_equal(got, hit.iloc[0])


def _settings():
    rng = np.random.default_rng(3)
    sets = []
    for model, decoding in [("human", "reference"), ("null", "pure"), ("null", "top_k_40")]:
        texts = rng.permutation(12)[:8]
        w = pd.DataFrame({"text": np.repeat(texts, 15), "t": np.tile(np.arange(15), 8),
                          "window": np.repeat(texts, 15), "prompt_length": 32,
                          "s_train": rng.integers(1, 7, 120), "s_context": rng.integers(1, 5, 120),
                          "L_nat": rng.integers(0, 5, 120)})  # fmt: skip
        w["s_union"] = np.maximum(w["s_train"], w["s_context"])
        q = pd.DataFrame({"text": texts[::-1][:6], "prompt_length": 32,
                          "nll_sum": rng.random(6) * 50, "tokens": rng.integers(20, 40, 6),
                          "evaluator": "t4x256"})  # fmt: skip
        sets.append((model, decoding, w, q))
    return sets


SAMPLING = {"prompt_length": 32, "decodings": {"pure": {"kind": "sample"},
            "top_k_40": {"kind": "sample", "top_k": 40}}}  # fmt: skip


def rows_by_label(model, decoding, texts, values, q: pd.DataFrame) -> list[tuple]:
    """The text table's rows of one setting looked up text by text (``q.loc``): the way
    :func:`copyscope.report.raven.text_table` built them before it gathered them by index."""
    rows = []
    for text, v in zip(texts, values, strict=True):
        if text not in q.index:
            continue
        r = q.loc[text]
        rows.append(
            (model, decoding, int(text), float(v.sum()), len(v), float(r["nll_sum"]),
             int(r["tokens"]), str(r["evaluator"]))
        )  # fmt: skip
    return rows


def test_text_table_against_a_lookup_per_text():
    sets = _settings()
    want = []
    for model, decoding, w, q in sets:
        texts = sorted(pd.unique(w["text"]))
        values = raven_report.truncated_values(raven_report.per_text(w, "s_union"))
        want += rows_by_label(model, decoding, texts, values, q.set_index("text"))
    want = pd.DataFrame(want, columns=raven_report.TEXT_COLUMNS)
    pd.testing.assert_frame_equal(raven_report.text_table(sets, SAMPLING), want)
    assert len(want) == 18  # texts without a quality row are left out
    model, decoding, w, q = sets[0]
    twice = (model, decoding, w, pd.concat([q, q.iloc[:1]], ignore_index=True))
    with pytest.raises(InputError, match="one row per text"):
        raven_report.text_table([twice], SAMPLING)


def test_raven_build_without_curves_keeps_the_summary():
    sets, novelty = _settings(), {"bootstrap": 50, "seed": 0, "n_max": 12}
    full = raven_report.build(sets, novelty, SAMPLING, ("union", "natural"))
    bare = raven_report.build(sets, novelty, SAMPLING, ("union", "natural"), curves=False)
    pd.testing.assert_frame_equal(bare[0], full[0])
    pd.testing.assert_frame_equal(bare[2], full[2])
    assert len(full[1]) and not len(bare[1])


def test_cloze_summary_without_play_intervals_is_the_same():
    from copyscope.report.name_cloze import cloze_tables

    rng = np.random.default_rng(4)
    n = 120
    cloze = pd.DataFrame({"model": rng.choice(["a", "b"], n), "play": rng.choice(list("pqrstu"), n),
                          "correct_insensitive": rng.integers(0, 2, n),
                          "correct_sensitive": rng.integers(0, 2, n),
                          "n_candidates": rng.integers(2, 6, n), "match_fraction": rng.random(n),
                          "lcp": rng.integers(0, 5, n), "exact": rng.integers(0, 2, n)})  # fmt: skip
    cloze["split"] = np.where(cloze["play"].isin(list("pqrs")), "train", "valid")
    plays, summary = cloze_tables(cloze, 50, 0)
    bare_plays, bare_summary = cloze_tables(cloze, 50, 0, play_intervals=False)
    pd.testing.assert_frame_equal(bare_summary, summary)
    for col in ("acc_insensitive", "acc_sensitive"):
        pd.testing.assert_series_equal(bare_plays[col], plays[col])
        assert bare_plays[f"{col}_lo"].isna().all()


def test_the_workers_use_one_blas_thread():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas_threads():
        return [
            i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"
        ]

    with workers.one_blas_thread():
        assert set(blas_threads()) <= {1}


def test_percentile_interval_by_columns_as_numpy_over_the_first_axis():
    rng = np.random.default_rng(6)
    for shape in [(1000, 20), (7, 3), (50, 1)]:
        reps = rng.random(shape)
        reps[:, 0] = 0.5  # ties
        for probs in [None, (0.025, 0.975), stats.complement_probabilities(0.95)]:
            q = list(stats.central_probabilities(0.95) if probs is None else probs)
            lo, hi = stats.percentile_interval(reps, axis=0, probs=probs)
            want = np.quantile(reps, q, axis=0)
            np.testing.assert_array_equal(lo, want[0])
            np.testing.assert_array_equal(hi, want[1])
    reps[3, 0] = np.nan  # a NaN without omit_nan: NaN bounds in its column, as numpy gives
    lo, hi = stats.percentile_interval(reps, axis=0)
    np.testing.assert_array_equal(lo, np.quantile(reps, [0.025, 0.975], axis=0)[0])


def test_drawn_plays_against_a_frame_per_drawn_play():
    from copyscope.report.findings.literature import _drawn_plays

    rng = np.random.default_rng(7)
    h = pd.DataFrame({"model": "a", "play": rng.choice(["p", "q", "r"], 30), "item": np.arange(30),
                      "correct_insensitive": rng.integers(0, 2, 30)},
                     index=rng.permutation(30))  # fmt: skip
    h = h.astype({"play": "str"})
    plays = h["play"].unique()
    for picks in ([0], [2, 2, 1], rng.integers(len(plays), size=8)):
        want = pd.concat([h[h["play"] == plays[k]].assign(play=f"{plays[k]}#{j}")
                          for j, k in enumerate(picks)], ignore_index=True)  # fmt: skip
        pd.testing.assert_frame_equal(_drawn_plays(h, plays, picks), want)
