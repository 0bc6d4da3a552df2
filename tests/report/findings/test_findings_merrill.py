"""Merrill et al.'s claims (copyscope.report.findings.merrill): each rule on synthetic tables
whose verdict is known, its nulls and its known positives (the copier)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope import stats as S
from copyscope.report import calibration as C
from copyscope.report import completion_loss as completion_report
from copyscope.report import findings as F
from copyscope.report import novelty as novelty_report
from copyscope.report import power as P
from copyscope.report.findings import merrill as paper
from copyscope.report.findings.merrill import copiers
from support.findings import (
    CAL_PARAMS,
    FAILS,
    FAMILY,
    HOLDS,
    HUMAN,
    PARAMS,
    POWER_PARAMS,
    UNCLEAR,
    completion,
    completion_tokens,
    corpus,
    curves,
    data,
    decide,
    human_tokens,
    human_tokens_with_ids,
    novelty_texts,
    verdict_rule,
    with_findings,
)


def decide_novelty(claim: str, table: pd.DataFrame, params=PARAMS) -> F.Finding:
    return decide(claim, params, novelty_samples=table, novelty_texts=novelty_texts(table))


@pytest.mark.parametrize(
    "model, verdict",
    [
        ({1: 0.4, 2: 0.5, 3: 0.5, 5: 0.95}, HOLDS),  # above at some n, below at none
        ({1: 0.4, 2: 0.5, 5: 0.7}, FAILS),  # below at n = 5: not "at every n"
        ({1: 0.31, 2: 0.41, 5: 0.91}, UNCLEAR),  # no clear difference anywhere
        ({1: 0.1, 2: 0.41, 5: 0.91}, UNCLEAR),  # below at n = 1 only: BPE unigrams left out
    ],
)
def test_pure_more_novel_than_validation(model, verdict):
    table = curves({("human", "reference"): HUMAN, ("m", "pure"): model})
    # the "all" rows, another prompt length and another decoding do not count
    noise = curves({("m", "pure"): dict.fromkeys(HUMAN, 0.0)}, source="all")
    other = curves({("m", "pure"): dict.fromkeys(HUMAN, 0.0)}, prompt_length=0)
    greedy = curves({("m", "greedy"): dict.fromkeys(HUMAN, 0.0)})
    f = decide_novelty("pure-more-novel-than-validation", pd.concat([table, noise, other, greedy]))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m pure: novelty(2) ") and "2..6" in f.rule
    assert "Fig. 1" in f.where and "clean" in f.setting


def test_novelty_rows_without_a_source_column_are_all_text():
    table = curves({("human", "reference"): HUMAN, ("m", "pure"): {2: 0.5}}).drop(columns="source")
    f = decide_novelty("pure-more-novel-than-validation", table)
    assert f.measured.startswith("not measured: no 'natural' rows")
    f = decide_novelty("pure-more-novel-than-validation", table, with_findings(novelty_source="all"))
    assert f.verdict == HOLDS


@pytest.mark.parametrize(
    "model, verdict",
    [({1: 0.4, 2: 0.5}, HOLDS), ({1: 0.1, 2: 0.2}, FAILS), ({1: 0.21, 2: 0.31}, UNCLEAR)],
)
def test_pure_vs_contaminated_baseline(model, verdict):
    contaminated = {1: 0.2, 2: 0.3, 3: 0.3}
    table = curves(
        {
            ("human", "reference"): HUMAN,
            ("human", "contaminated"): contaminated,
            ("m", "pure"): model,
        },
        source="all",
    )
    f = decide_novelty("pure-vs-contaminated-baseline", table)
    assert f.verdict == verdict, f.measured
    assert "human/contaminated" in f.measured and "[clean baseline" in f.measured


def test_contaminated_baseline_missing_is_not_measured():
    table = curves({("human", "reference"): HUMAN, ("m", "pure"): HUMAN}, source="all")
    f = decide_novelty("pure-vs-contaminated-baseline", table)
    assert (f.verdict, f.measured) == (UNCLEAR, "not measured: no human/contaminated rows")


@pytest.mark.parametrize(
    "model, verdict",
    [({1: 0.1, 2: 0.2}, HOLDS), ({1: 0.4, 2: 0.5}, FAILS), ({1: 0.31, 2: 0.41}, UNCLEAR)],
)
def test_constrained_small_n_below_validation(model, verdict):
    table = curves({("human", "reference"): HUMAN, ("m", "greedy"): model, ("m", "beam_2"): model})
    # pure sampling is not constrained; a set of one distinct text is left out
    pure = curves({("m", "pure"): {1: 0.5, 2: 0.9}})
    one = curves({("o", "greedy"): {1: 0.5, 2: 0.9}}, distinct=1)
    f = decide_novelty("constrained-small-n-below-validation", pd.concat([table, pure, one]))
    assert f.verdict == verdict, f.measured
    assert "m greedy:" in f.measured and "m beam_2:" in f.measured and "o greedy" not in f.measured


def test_a_model_that_refutes_is_shown_not_hidden():
    """One model below human (holds), another above (does not hold): the claim is "mixed",
    each model's verdict in ``per_model``; one model unclear beside one that refutes stays
    "inconclusive" with the refuting model named in the row's verdict cell."""
    table = curves(
        {("human", "reference"): HUMAN, ("a", "greedy"): {2: 0.2}, ("b", "greedy"): {2: 0.6}}
    )
    f = decide_novelty("constrained-small-n-below-validation", table)
    assert (f.verdict, f.per_model) == (F.MIXED, "a: holds; b: does not hold"), f.measured
    table = curves(
        {("human", "reference"): HUMAN, ("a", "greedy"): {2: 0.41}, ("b", "greedy"): {2: 0.6}}
    )
    f = decide_novelty("constrained-small-n-below-validation", table)
    assert (f.verdict, f.per_model) == (UNCLEAR, "a: inconclusive; b: does not hold")
    card = pd.DataFrame([f.__dict__]).assign(calibration="", power="")
    assert "**inconclusive** (a: inconclusive; b: does not hold)" in F.markdown(card)


def nnsl(rows: list[tuple], source="natural", distinct=100) -> pd.DataFrame:
    """(model, decoding, prompt length, mean L_t, half-width) → nnsl_samples rows."""
    return pd.DataFrame(
        [
            {"model": m, "decoding": d, "family": FAMILY[d], "prompt_length": p}
            | {"mean_nnsl": v, "mean_nnsl_lo": v - h, "mean_nnsl_hi": v + h}
            | {"source": source, "distinct": distinct}
            for m, d, p, v, h in rows
        ]
    )


@pytest.mark.parametrize(
    "big, small, verdict", [(3.0, 2.0, HOLDS), (2.0, 3.0, FAILS), (2.1, 2.0, UNCLEAR)]
)
def test_larger_less_novel(big, small, verdict):
    # table order is not the size order; the LSTM is not compared by size; "all" rows ignored
    table = nnsl([("big", "pure", 8, big, 0.1), ("lstm", "pure", 8, 9.0, 0.1)])
    table = pd.concat(
        [
            table,
            nnsl([("small", "pure", 8, small, 0.1), ("big", "pure", 0, 0, 0)]),
            nnsl([("big", "pure", 8, 0.0, 0.1)], source="all"),
        ]
    )
    f = decide("larger-less-novel", nnsl_samples=table)
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("mean L_t big ")


def test_model_size_orders_gpt2_models_only():
    assert F.model_size({"kind": "gpt2", "n_layer": 2, "n_embd": 64}) == 12 * 2 * 64**2
    assert F.model_size({"kind": "lstm", "n_layer": 2, "n_embd": 64}) is None
    f = decide("larger-less-novel", nnsl_samples=nnsl([("big", "pure", 8, 3.0, 0.1)]))
    assert f.verdict == UNCLEAR and f.measured.startswith("not measured: fewer than two")


@pytest.mark.parametrize(
    "values, verdict",
    [
        ({"pure": 2.0, "cold": 3.0, "colder": 4.0, "greedy": 5.0}, HOLDS),
        ({"pure": 2.0, "cold": 1.0, "colder": 0.5, "greedy": 1.2}, FAILS),
        ({"pure": 2.0, "cold": 2.05, "colder": 2.02, "greedy": 2.1}, UNCLEAR),
    ],
)
def test_constrained_less_novel(values, verdict):
    rows = [("m", d, 8, v, 0.1) for d, v in values.items()] + [("human", "reference", 8, 9, 1)]
    # a family of two points (pure + k10) is no trend: it is left out whatever it shows
    rows.append(("m", "k10", 8, 0.1, 0.01))
    f = decide("constrained-less-novel", nnsl_samples=nnsl(rows))
    assert f.verdict == verdict, f.measured
    assert "temperature ρ = " in f.measured and "top-k" not in f.measured


def test_constrained_sets_with_one_distinct_text_are_left_out():
    rows = [("m", "pure", 8, 2.0, 0.1)]
    table = pd.concat([nnsl(rows), nnsl([("m", "greedy", 8, 0.5, 0.1)], distinct=1)])
    f = decide("constrained-less-novel", nnsl_samples=table)
    assert f.measured.startswith("not measured"), f.measured


@pytest.mark.parametrize(
    "ins, nots, verdict",
    [
        ([1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, 7], HOLDS),
        ([2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6], FAILS),
        ([1, 2, 3, 5, 6, 7], [2, 3, 4, 4, 5, 6], UNCLEAR),  # 3 of 6
    ],
)
def test_completion_loss_in_training(ins, nots, verdict):
    table = completion(ins, nots)
    # a point with too few tokens going the other way is left out
    rare = pd.DataFrame(
        [{"model": "m", "curve": c, "x": 9, "loss": v, "tokens": 3} for c, v in
         (("in training", 9.0), ("not in training", 0.0))]
    )  # fmt: skip
    f = decide("completion-loss-in-training", completion_loss=pd.concat([table, rare]))
    assert f.verdict == verdict, f.measured
    assert "of 6 lengths" in f.measured


@pytest.mark.parametrize(
    "slope, verdict",
    [((-0.5, -0.8, -0.2), HOLDS), ((0.5, 0.2, 0.8), FAILS), ((-0.1, -0.5, 0.3), UNCLEAR)],
)
def test_completion_loss_frequency(slope, verdict):
    cols = ["model", "n", "tokens", "texts", "slope", "slope_lo", "slope_hi"]
    rows = [("m", 4, 500, 80, *slope), ("m", 8, 5, 3, 9.0, 8.0, 10.0)]  # L = 8: too few tokens
    rows += [("m", 16, 500, 12, 9.0, 8.0, 10.0)]  # L = 16: too few texts
    f = decide("completion-loss-frequency", completion_loss_slope=pd.DataFrame(rows, columns=cols))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m L=4: slope ") and "L=8" not in f.measured
    assert "L=16" not in f.measured


def test_completion_loss_frequency_corrects_for_its_many_slopes():
    """Four (model, L) slopes, each just below 0 at 95% (z ≈ 2.2): one alone holds, but
    together (Bonferroni over 4, z > 2.50 needed) none is decided; a clear slope still is."""
    cols = ["model", "n", "tokens", "texts", "slope", "slope_lo", "slope_hi"]
    weak = (-0.45, -0.85, -0.05)  # half-width 0.4 ≈ 1.96 se: z = 0.45 / 0.204 = 2.2
    one = pd.DataFrame([("m", 4, 500, 80, *weak)], columns=cols)
    assert decide("completion-loss-frequency", completion_loss_slope=one).verdict == HOLDS
    four = pd.DataFrame([(m, n, 500, 80, *weak) for m in "ab" for n in (4, 8)], columns=cols)
    assert decide("completion-loss-frequency", completion_loss_slope=four).verdict == UNCLEAR
    clear = four.assign(slope=-2.0, slope_lo=-2.4, slope_hi=-1.6)
    assert decide("completion-loss-frequency", completion_loss_slope=clear).verdict == HOLDS


def test_human_halves_build_the_rules_tables():
    tables = F.CLAIMS["pure-more-novel-than-validation"].nulls[0].build(
        np.random.default_rng(0), data(), CAL_PARAMS
    )
    t = tables["novelty_samples"]
    assert set(t["source"]) == {"natural"}  # only the source the claim reads
    assert set(zip(t["model"], t["decoding"], strict=True)) == {
        ("human", "reference"),
        ("null", "pure"),
    }
    nnsl = tables["nnsl_samples"]
    assert sorted(nnsl["texts"]) == [60, 60]


def test_the_shortened_curves_equal_the_full_ones():
    """The nulls build novelty(n) only up to findings.n_max: the same values and intervals as
    the full curve's first points (the bootstrap resamples whole texts)."""
    tok = human_tokens(windows=30)
    sets = [("human", "reference", tok)]
    short = paper.novelty_nulls(sets, data(), CAL_PARAMS)["novelty_samples"]
    short = short[short["source"] == "all"].reset_index(drop=True)
    full, _ = novelty_report.build(sets, {"human": 10**6}, CAL_PARAMS["novelty"], {})
    assert len(short) == CAL_PARAMS["findings"]["n_max"] < len(full)
    cols = ["n", "novelty", "novelty_lo", "novelty_hi"]
    pd.testing.assert_frame_equal(short[cols], full[cols].iloc[: len(short)])


def test_permuted_in_training_labels_break_the_completion_loss_gap():
    tok = completion_tokens()
    real = completion_report.build([("m", tok)])
    assert F.CLAIMS["completion-loss-in-training"]({"completion_loss": real}, CAL_PARAMS).verdict == (
        F.HOLDS
    )  # the planted gap is found ...
    d = data(completion=tok)
    null = paper.permuted_in_training(np.random.default_rng(0), d, CAL_PARAMS)["completion_loss"]
    two = real[real["curve"].isin(["in training", "not in training"])]
    key = ["curve", "x"]
    # the labels move only among the tokens of one x: every point keeps its token count
    pd.testing.assert_frame_equal(
        two.groupby("x")["tokens"].sum().reset_index(),
        null.groupby("x")["tokens"].sum().reset_index(),
    )
    assert len(null.merge(two, on=key)) == len(two)
    r = C.false_verdicts("completion-loss-in-training", paper.permuted_in_training, d, CAL_PARAMS, 30, 0)
    assert r["false_rate"] <= 0.1  # ... and rarely once the labels are permuted


def test_the_planted_completion_gap_is_the_rows_known_positive():
    """The positive plants the gap on permuted labels: no gap in the data (effect 0) and the
    row holds on the positive's tables at the data's texts (power measured); a gap planted the
    wrong way round makes the row fail, so the verdict comes from the planted gap alone; each
    drawn point keeps the null's token counts per x."""
    from copyscope.report.findings.merrill import completion

    tok = completion_tokens(texts=40, effect=0.0)
    d = data(completion=tok)
    shared = {}
    (positive,) = F.CLAIMS["completion-loss-in-training"].known_positives(d, None, POWER_PARAMS, shared)
    assert positive.right == HOLDS and positive.observed == 40
    assert positive.name == "in-training completions 0.5 nats easier"
    assert 40 in positive.sizes and "completion_texts" in shared
    real = completion_report.build([("m", tok)])
    assert F.CLAIMS["completion-loss-in-training"]({"completion_loss": real}, CAL_PARAMS).verdict != HOLDS
    tables = positive.build(np.random.default_rng(0), d, POWER_PARAMS, 40)
    assert F.CLAIMS["completion-loss-in-training"](tables, POWER_PARAMS).verdict == HOLDS
    r = P.power_at("completion-loss-in-training", positive.build, HOLDS, d, POWER_PARAMS, 40, 10, 0)
    assert r["power"] >= 0.8 and r["draws"] == 10
    texts = completion.completion_text_points(d, shared)
    backwards = completion.planted_gap(texts, -completion.PLANTED_GAP)
    f = F.CLAIMS["completion-loss-in-training"](
        backwards(np.random.default_rng(0), d, POWER_PARAMS, 40), POWER_PARAMS
    )
    assert f.verdict == FAILS, f.measured
    # the same texts drawn, the same tokens per x as the plain table of those texts
    drawn = tables["completion_loss"]
    assert set(drawn["curve"]) == {"in training", "not in training"}
    assert (drawn.groupby("x")["tokens"].sum() > 0).all()


def test_a_bad_completion_rule_is_caught(monkeypatch):
    def gap(t):
        c = t[t["x"] == t["x"].min()].set_index("curve")["loss"]
        return c["not in training"] - c["in training"]

    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("completion_loss", gap))
    d = data(completion=completion_tokens(texts=30))
    r = C.false_verdicts("bad", paper.permuted_in_training, d, CAL_PARAMS, 20, 0)
    assert r["false_rate"] == 1.0


def test_shuffled_counts_break_the_frequency_slope(monkeypatch):
    tok = completion_tokens(effect=0.0, slope=0.5)
    novelty = CAL_PARAMS["novelty"]
    real = completion_report.build_slope([("m", tok)], novelty)
    table = {"completion_loss_slope": real}
    assert F.CLAIMS["completion-loss-frequency"](table, CAL_PARAMS).verdict == F.HOLDS
    d = data(completion=tok)
    null = paper.shuffled_counts(np.random.default_rng(0), d, CAL_PARAMS)["completion_loss_slope"]
    pd.testing.assert_series_equal(null["tokens"], real["tokens"])  # the same tokens ...
    assert abs(null.loc[null["n"] == 4, "slope"].iloc[0]) < 0.2  # ... no slope left
    r = C.false_verdicts("completion-loss-frequency", paper.shuffled_counts, d, CAL_PARAMS, 30, 0)
    assert r["false_rate"] <= 0.1
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("completion_loss_slope",
                                                      lambda t: -t["slope"].iloc[0]))  # fmt: skip
    assert C.false_verdicts("bad", paper.shuffled_counts, d, CAL_PARAMS, 20, 0)["false_rate"] == 1.0


def test_the_planted_slope_is_the_frequency_rows_known_positive():
    """On data with no slope the positive's tables hold (the planted −0.25 nats per decade
    on shuffled counts), a slope planted the other way does not, and texts drawn twice count
    twice (the slope table's texts are the drawn ones)."""
    from copyscope.report.findings.merrill import completion

    tok = completion_tokens(texts=40, effect=0.0, slope=0.0)
    d = data(completion=tok)
    real = completion_report.build_slope([("m", tok)], CAL_PARAMS["novelty"])
    assert F.CLAIMS["completion-loss-frequency"]({"completion_loss_slope": real}, CAL_PARAMS).verdict != HOLDS
    shared = {}
    (positive,) = F.CLAIMS["completion-loss-frequency"].known_positives(d, None, POWER_PARAMS, shared)
    assert positive.right == HOLDS and positive.observed == 40
    assert positive.name == "slope −0.25 nats per decade planted"
    tables = positive.build(np.random.default_rng(0), d, POWER_PARAMS, 40)
    assert F.CLAIMS["completion-loss-frequency"](tables, POWER_PARAMS).verdict == HOLDS
    assert (tables["completion_loss_slope"]["texts"] <= 40).all()
    r = P.power_at("completion-loss-frequency", positive.build, HOLDS, d, POWER_PARAMS, 40, 10, 0)
    assert r["power"] >= 0.8
    texts = completion.completion_text_frames(d, shared)
    backwards = completion.planted_slope(texts, -completion.PLANTED_SLOPE)
    f = F.CLAIMS["completion-loss-frequency"](
        backwards(np.random.default_rng(0), d, POWER_PARAMS, 40), POWER_PARAMS
    )
    assert f.verdict == FAILS, f.measured


def test_shuffled_counts_move_counts_only_among_tokens_of_one_length():
    tok = completion_tokens(texts=10)
    out = paper.shuffled_counts(np.random.default_rng(3), data(completion=tok), CAL_PARAMS)
    assert out is not None
    L, C0 = tok["L"].to_numpy(), tok["C"].to_numpy()
    # rebuild the permuted counts the builder used, with the same generator
    rng = np.random.default_rng(3)
    used = np.flatnonzero(tok["text"].duplicated().to_numpy() & np.isin(L, (4, 8, 16, 32)))
    by = used[np.argsort(L[used], kind="stable")]
    moved = C0.copy()
    moved[by] = C0[by[S.within(L[by], rng)]]
    first = ~tok["text"].duplicated().to_numpy()
    assert (moved[first] == C0[first]).all()  # token 0 of a text is never used nor moved
    for n in (4, 8):
        assert sorted(moved[L == n]) == sorted(C0[L == n])


def test_the_copied_share_is_recovered_exactly(tmp_path):
    rng = np.random.default_rng(0)
    documents, index = corpus(tmp_path, rng)
    # fresh continuations from ids the corpus never uses: no token of them is in training
    conts = [rng.integers(6000, 9000, size=40) for _ in range(25)]  # 5 slots of 8 each
    texts, masks = paper.copier_set(conts, documents, 0.3, 8, np.random.default_rng(1))
    assert sum(m.sum() for m in masks) == round(0.3 * 25 * 5) * 8
    m = index.longest_matches(texts)
    for i, mask in enumerate(masks):
        L, _ = m[i]
        assert (L[~mask] == 0).all()  # fresh tokens are novel
        for s in np.flatnonzero(mask[::8]) * 8:  # each copied slot: L grows 1..8 inside it
            assert (L[s : s + 8] >= np.arange(1, 9)).all()
            assert L[s + 7] >= 8
        assert all((t[~k] == c[~k]).all() for t, c, k in zip(texts, conts, masks, strict=True))


def test_the_copier_is_less_novel_than_human_text(tmp_path):
    rng = np.random.default_rng(0)
    _, index = corpus(tmp_path, rng)
    d = data(tokens=human_tokens_with_ids(rng))
    copier = paper.Copier(d, index, POWER_PARAMS, seed=0)
    assert copier.max_size == 20 and set(copier.sets) == {0.1, 0.5}
    build = paper.copier_vs_human(copier, 0.5)
    tables = build(np.random.default_rng(0), d, POWER_PARAMS, 20)
    f = F.CLAIMS["pure-more-novel-than-validation"](tables, POWER_PARAMS)
    assert f.verdict == F.FAILS, f.measured  # the right verdict on this positive
    r = P.power_at("pure-more-novel-than-validation", build, F.FAILS, d, POWER_PARAMS, 10, 10, 0)
    assert r["power"] == 1.0 and r["draws"] == 10


# --------------------------------------------------------------------- the lower-bound diagnostic
LB_N = range(19, 31)  # n = 19, 20 lie below the paper's n > 20 and are not read


def bound_tables(contaminated: float | None, reference=1.0, bound=0.99, ns=LB_N, **extra):
    """novelty_samples (source all, the bound ``bound`` at every n) of the clean and, unless
    None, the contaminated human set, and their novelty_texts; below n = 21 the contaminated
    set lies far above the bound (those n are not read)."""
    sets = {("human", "reference"): dict.fromkeys(ns, reference)}
    if contaminated is not None:
        sets[("human", "contaminated")] = {n: 1.0 if n < 21 else contaminated for n in ns}
    table = curves(sets, source="all", lower_bound=bound, **extra)
    return {"novelty_samples": table, "novelty_texts": novelty_texts(table)}


@pytest.mark.parametrize(
    "contaminated, verdict",
    [
        (0.9, HOLDS),  # below the bound at every n > 20
        (1.0, FAILS),  # every n-gram novel: at or above the bound at every n > 20
        (0.985, UNCLEAR),  # 0.985 ± 0.008 (texts of 0.97 and 1.0) straddles 0.99
    ],
)
def test_validation_below_lower_bound(contaminated, verdict):
    f = F.CLAIMS["validation-below-lower-bound"](bound_tables(contaminated), PARAMS)
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("human/contaminated: novelty(21) ")
    assert "of 10 n's" in f.measured  # n = 21..30
    assert "[clean baseline human/reference" in f.measured
    assert "n > 20" in f.claim and "§3" in f.where and "planted" in f.setting


def test_below_the_bound_at_some_large_n_is_enough():
    """Copied spans of 25 tokens: below the bound at n = 21..25, all novel beyond (at or
    above it): the curve dips under the bound at large n, the claim holds."""
    tables = bound_tables(0.9)
    t = tables["novelty_samples"]
    long = (t["decoding"] == "contaminated") & (t["n"] > 25)
    t.loc[long, ["novelty", "novelty_lo", "novelty_hi"]] = 1.0
    tables["novelty_texts"] = novelty_texts(t)
    f = F.CLAIMS["validation-below-lower-bound"](tables, PARAMS)
    assert f.verdict == HOLDS, f.measured
    assert "below the bound at n ∈ {21–25}, at or above it at n ∈ {26–30}" in f.measured


def test_the_bound_rows_without_their_conditions():
    f = F.CLAIMS["validation-below-lower-bound"](bound_tables(None), PARAMS)
    assert f.verdict == F.NOT_TESTED and "corpus.inject.excerpts" in f.measured
    tables = bound_tables(0.9)
    tables["novelty_samples"] = tables["novelty_samples"].drop(columns="lower_bound")
    f = F.CLAIMS["validation-below-lower-bound"](tables, PARAMS)
    assert f.verdict == UNCLEAR and f.measured == (
        "not measured: no lower_bound column in novelty_samples"
    )
    f = F.CLAIMS["validation-below-lower-bound"](bound_tables(0.9, ns=range(1, 21)), PARAMS)
    assert f.verdict == UNCLEAR and "at n ≥ 21" in f.measured
    # natural-only rows are not read: the overlap is planted text
    natural = bound_tables(0.9)["novelty_samples"].assign(source="natural")
    f = F.CLAIMS["validation-below-lower-bound"](
        {"novelty_samples": natural, "novelty_texts": novelty_texts(natural)}, PARAMS
    )
    assert f.verdict == UNCLEAR and f.measured.startswith("not measured")


def test_bound_sides_and_spans():
    texts = pd.DataFrame({"novel_21": [10, 10, 9, 10], "ngrams_21": [10] * 4,
                          "novel_22": [10] * 4, "ngrams_22": [10] * 4,
                          "novel_23": [0] * 4, "ngrams_23": [0] * 4})  # fmt: skip
    sides, values = paper.bound_sides(texts, {21: 0.999, 22: 0.999, 23: 0.5}, 0.05, 0)
    # n = 21: one text of four holds the copy, a resample without it is likely: neither side;
    # n = 22: every n-gram novel, [1, 1] lies above 0.999; n = 23: no n-grams, left out
    assert sides == {21: 0, 22: 1} and values[21][0] == pytest.approx(39 / 40)
    assert paper.spans([21, 22, 23, 25, 30, 31]) == "{21–23, 25, 30–31}"
    assert paper.spans([]) == "{}"


LB_PARAMS = {**CAL_PARAMS, "novelty": {**CAL_PARAMS["novelty"], "n_max": 30}}


def test_the_lower_bound_null_is_two_halves_of_clean_text():
    """Both halves are clean held-out text: "below the bound" (holds) is the false verdict,
    "does not hold" the right one."""
    build = F.CLAIMS["validation-below-lower-bound"].nulls[0].build
    tables = build(np.random.default_rng(0), data(), LB_PARAMS)
    t = tables["novelty_samples"]
    assert set(t["source"]) == {"all"} and t["n"].max() == 30  # the whole curves
    assert set(zip(t["model"], t["decoding"], strict=True)) == {
        ("human", "reference"), ("human", "contaminated")}  # fmt: skip
    null = F.CLAIMS["validation-below-lower-bound"].nulls[0]
    assert null.false == (HOLDS,)
    r = C.false_verdicts("validation-below-lower-bound", null.build, data(), LB_PARAMS, 10, 0,
                         null.false)  # fmt: skip
    assert r["holds"] == 0 and r["does_not_hold"] == 10


def test_the_copier_is_below_the_lower_bound(tmp_path):
    """A copier of 24-token spans as the contaminated held-out set is below the bound at
    n = 21..24 (its known positive); 8-token spans cannot be (no positive)."""
    rng = np.random.default_rng(0)
    _, index = corpus(tmp_path, rng)
    d = data(tokens=human_tokens_with_ids(rng))
    short = {**POWER_PARAMS, "novelty": LB_PARAMS["novelty"]}
    assert paper.lower_bound_positives(d, index, short, {}) == []
    power = {**short, "findings": {**short["findings"],
                                   "power": {**short["findings"]["power"], "copier_span": 24}}}  # fmt: skip
    (positive,) = paper.lower_bound_positives(d, index, power, {})
    assert positive.name == "copier 10%" and positive.right == HOLDS
    copier = paper.Copier(d, index, power, seed=0)
    tables = paper.copier_as_contaminated(copier, 0.5)(np.random.default_rng(0), d, power, 20)
    f = F.CLAIMS["validation-below-lower-bound"](tables, power)
    assert f.verdict == HOLDS and "below the bound at n ∈ {21–24}" in f.measured, f.measured


# ------------------------------------------------ known positives of rows 2, 5 and 6 (the copier)
@pytest.mark.parametrize(
    "claim, name",
    [
        ("pure-vs-contaminated-baseline", "clean text vs copier 10%"),
        ("constrained-less-novel", "copier 10% pure vs 50% greedy"),
        ("constrained-small-n-below-validation", "copier 50% as greedy"),
    ],
)
def test_the_copier_positives_of_the_contamination_and_decoding_rows(tmp_path, claim, name):
    """Each row's copier positive reaches the row's verdict (holds) on the run's data: clean
    text against a copier as the contaminated baseline (row 2), the copier of the larger share
    as a greedy decoding against the smaller as pure samples (row 5) or against the human half
    (row 6); the power is measured on it."""
    rng = np.random.default_rng(0)
    _, index = corpus(tmp_path, rng)
    d = data(tokens=human_tokens_with_ids(rng))
    (positive,) = F.CLAIMS[claim].known_positives(d, index, POWER_PARAMS, {})
    assert positive.name == name and positive.right == HOLDS
    assert positive.sizes == [5, 10, 20] and positive.observed == 20
    tables = positive.build(np.random.default_rng(0), d, POWER_PARAMS, 20)
    f = F.CLAIMS[claim](tables, POWER_PARAMS)
    assert f.verdict == HOLDS, f.measured
    r = P.power_at(claim, positive.build, HOLDS, d, POWER_PARAMS, 20, 10, 0)
    assert r["power"] >= 0.5 and r["draws"] == 10  # 10% copied, 20 texts: 0.6 for row 2


def test_the_copier_positive_of_the_decoding_row_the_wrong_way_round(tmp_path):
    """The copier of the smaller share as the greedy decoding and of the larger as pure
    samples: the greedy text copies less, so the decoding row must not hold there (the
    positive's verdict comes from the copying, not from the set labels)."""
    rng = np.random.default_rng(0)
    _, index = corpus(tmp_path, rng)
    d = data(tokens=human_tokens_with_ids(rng))
    copier = paper.Copier(d, index, POWER_PARAMS, seed=0)
    build = copiers.copier_as_decodings(copier, 0.5, 0.1, "greedy")
    f = F.CLAIMS["constrained-less-novel"](build(np.random.default_rng(0), d, POWER_PARAMS, 20), POWER_PARAMS)
    assert f.verdict == F.FAILS, f.measured


def test_a_copier_positive_needs_a_constrained_decoding_and_the_index(tmp_path):
    rng = np.random.default_rng(0)
    _, index = corpus(tmp_path, rng)
    d = data(tokens=human_tokens_with_ids(rng))
    sampling = {**POWER_PARAMS["sampling"],
                "decodings": {k: v for k, v in POWER_PARAMS["sampling"]["decodings"].items()
                              if v["kind"] == "sample"}}  # fmt: skip
    params = {**POWER_PARAMS, "sampling": sampling}
    for claim in ("constrained-less-novel", "constrained-small-n-below-validation"):
        assert F.CLAIMS[claim].known_positives(d, index, params, {}) == []
        assert F.CLAIMS[claim].known_positives(d, None, POWER_PARAMS, {}) == []
    one = {**POWER_PARAMS, "findings": {**POWER_PARAMS["findings"], "power": {
        **POWER_PARAMS["findings"]["power"], "copier_shares": [0.3]}}}  # fmt: skip
    assert F.CLAIMS["constrained-less-novel"].known_positives(d, index, one, {}) == []
    assert F.CLAIMS["pure-vs-contaminated-baseline"].known_positives(d, None, one, {}) == []
