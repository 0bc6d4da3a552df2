"""The findings scorecard: every claim's rule on synthetic tables whose verdict is known
(holds, does not hold, inconclusive — including "the interval excludes the paper's effect"),
the decision helpers, the markdown and the command."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from copyscope.cli import main
from copyscope.errors import InputError
from copyscope.report import findings as F

FAILS, HOLDS, UNCLEAR = F.FAILS, F.HOLDS, F.UNCLEAR
FINDINGS = {
    "n_max": 6,
    "n_small": 2,
    "novelty_source": "natural",
    "pure_decoding": "pure",
    "raven_decoding": "k40",
    "raven_small_max": 2,
    "raven_large_min": 3,
    "raven_n_max": 4,
    "alpha": 0.05,
    "permutation_seed": 0,
    "rho_min": 0.8,
    "trend_min_points": 3,
    "min_distinct": 10,
    "min_tokens": 20,
    "min_texts": 20,
    "prompt_length_margin": 0.25,
    "source_margin": 0.1,
    "syntax_margin": 0.1,
    "local_units": ["labeled_arc", "dependency_role", "labeled_path_3"],
    "structure_units": ["pos_sequence", "dependency_structure"],
    "coverage_effect": 0.41,
    "coverage_human_min": 0.175,
    "style_effect": 0.011,
    "creativity_effect": 0.311,
}
PARAMS = {
    "findings": FINDINGS,
    "sampling": {
        "prompt_length": 8,
        "prompt_length_decodings": ["pure"],
        "prompt_length_models": ["big"],
        "decodings": {
            "pure": {"kind": "sample", "temperature": 1.0},
            "cold": {"kind": "sample", "temperature": 0.5},
            "colder": {"kind": "sample", "temperature": 0.2},
            "k10": {"kind": "sample", "temperature": 1.0, "top_k": 10},
            "k40": {"kind": "sample", "temperature": 1.0, "top_k": 40},
            "greedy": {"kind": "greedy"},
            "beam_2": {"kind": "beam", "num_beams": 2},
        },
    },
    "models": {
        "evaluator": "big",
        "evaluators": {"big": "small"},
        "zoo": {
            "big": {"kind": "gpt2", "n_layer": 2, "n_embd": 64},
            "small": {"kind": "gpt2", "n_layer": 1, "n_embd": 32},
            "lstm": {"kind": "lstm", "n_layer": 3, "n_embd": 512},
        },
    },
    "analysis": {"syntax": {"template_headline_n": 6}},
}
FAMILY = {
    "pure": "pure",
    "cold": "temperature",
    "colder": "temperature",
    "k10": "top-k",
    "k40": "top-k",
    "greedy": "greedy",
    "beam_2": "beam",
    "reference": "human",
    "contaminated": "human",
}


def decide(claim: str, params=PARAMS, **tables) -> F.Finding:
    return F.CLAIMS[claim](tables, params)


def with_findings(**changes) -> dict:
    return {**PARAMS, "findings": {**FINDINGS, **changes}}


# --------------------------------------------------------------------------- helpers
def test_compare_intervals():
    assert F.compare((2, 1.5, 2.5), (1, 0.5, 1.4)) == 1
    assert F.compare((1, 0.5, 1.4), (2, 1.5, 2.5)) == -1
    assert F.compare((1, 0.5, 1.5), (2, 1.5, 2.5)) == 0  # touching bounds overlap
    assert F.compare((1, math.nan, 1.5), (2, 1.6, 2.5)) == 0


def test_combine_and_signs():
    assert F.combine([HOLDS, HOLDS]) == HOLDS
    assert F.combine([HOLDS, UNCLEAR]) == UNCLEAR
    assert F.combine([HOLDS, FAILS]) == F.MIXED  # the models disagree: shown, not hidden
    assert F.combine([HOLDS, F.MIXED, UNCLEAR]) == F.MIXED
    assert F.combine([FAILS, UNCLEAR]) == UNCLEAR  # every part must not hold
    assert F.combine([FAILS, FAILS]) == FAILS
    assert F.combine([]) == UNCLEAR
    assert F.per_model(["a", "a", "b"], [HOLDS, FAILS, HOLDS]) == "a: mixed; b: holds"
    assert F.signs_verdict([0, -1, -1], -1) == HOLDS
    assert F.signs_verdict([1, 0], -1) == FAILS
    assert F.signs_verdict([1, -1], -1) == UNCLEAR
    assert F.signs_verdict([0, 0], -1) == UNCLEAR
    # "at every n": one point the other way refutes it
    assert F.every_verdict([1, 0, 1], 1) == HOLDS
    assert F.every_verdict([1, -1], 1) == FAILS
    assert F.every_verdict([0, 0], 1) == UNCLEAR


def test_effect_verdict_needs_an_interval_that_excludes_the_papers_effect():
    assert F.effect_verdict((0.5, 0.1, 0.9)) == HOLDS
    assert F.effect_verdict((-0.5, -0.9, -0.1)) == FAILS
    assert F.effect_verdict((0.0, -0.2, 0.3)) == UNCLEAR  # a null result alone decides nothing
    # the paper's effect is 0.41: an interval straddling 0 but below 0.41 excludes it
    assert F.effect_verdict((0.0, -0.2, 0.3), 0.41) == FAILS
    assert F.effect_verdict((0.0, -0.2, 0.5), 0.41) == UNCLEAR
    assert F.effect_verdict((0.2, 0.1, 0.3), 0.41) == HOLDS  # smaller than the paper's, but there
    assert F.effect_verdict((0.0, math.nan, 0.3), 0.41) == UNCLEAR


def test_equivalence_verdict_bounds_an_absence():
    assert F.equivalence_verdict([(0.0, -0.1, 0.1), (0.05, -0.05, 0.2)], 0.25) == HOLDS
    assert F.equivalence_verdict([(0.0, -0.1, 0.1), (0.5, 0.3, 0.7)], 0.25) == FAILS
    assert F.equivalence_verdict([(0.0, -0.4, 0.4)], 0.25) == UNCLEAR  # too wide to bound it
    assert F.equivalence_verdict([], 0.25) == UNCLEAR
    assert F.difference_bounds((0.5, 0.4, 0.6), (0.3, 0.2, 0.4)) == pytest.approx((0.2, 0.0, 0.4))


def test_proportion_intervals():
    # Wilson 95% interval of 0/10: upper bound 0.2775 (z²/(n+z²))
    assert F.wilson(0, 10) == pytest.approx((0.0, 0.0, 0.27753), abs=1e-4)
    # Clopper–Pearson of 0/16: upper 1 − 0.025^(1/16) = 0.2059
    assert F.clopper_pearson(0, 16) == pytest.approx((0.0, 0.0, 0.20591), abs=1e-4)
    assert all(math.isnan(v) for v in F.clopper_pearson(0, 0))
    # Newcombe (1998) Table II example (method 10): 56/70 − 48/80 = 0.2, interval 0.0524–0.3339
    assert F.newcombe(56, 70, 48, 80) == pytest.approx((0.2, 0.0524, 0.3339), abs=1e-4)


def test_rank_test_exact_and_sampled():
    # 4 points in perfect order: 2 of the 24 permutations reach |rho| = 1
    assert F.rank_test([1, 2, 3, 4], [9, 7, 5, 1]) == pytest.approx((-1.0, 2 / 24))
    # ties take average ranks: ranks (1, 2.5, 2.5, 4) vs (1, 2, 3, 4)
    rho, _ = F.rank_test([1, 2, 2, 3], [1, 2, 3, 4])
    assert rho == pytest.approx(4.5 / math.sqrt(4.5 * 5))
    assert all(math.isnan(v) for v in F.rank_test([1, 1, 1], [1, 2, 3]))
    assert F.rank_test([1, 2], [2, 1]) == pytest.approx((-1.0, 1.0))
    rho, p = F.rank_test(range(12), range(12))  # 12! permutations: sampled, seeded
    assert rho == pytest.approx(1.0) and p == pytest.approx(1 / 20001)
    assert F.rank_test(range(12), range(12)) == (rho, p)


def test_sign_test():
    assert F.sign_test(6, 6) == pytest.approx(2 / 64)
    assert F.sign_test(0, 6) == pytest.approx(2 / 64)
    assert F.sign_test(3, 6) == 1.0
    assert math.isnan(F.sign_test(0, 0))


def test_trends_from_two_points_decide_nothing():
    pts = pd.DataFrame(
        {"x": [1, 2], "value": [1.0, 5.0], "value_lo": [0.9, 4.9], "value_hi": [1.1, 5.1]}
    )
    assert F.trend_verdict(pts, "x", 1, 0.8, 3)[0] == UNCLEAR
    assert F.trend_verdict(pts, "x", 1, 0.8, 2)[0] == HOLDS


# --------------------------------------------------------------------------- Merrill: novelty
def curves(sets: dict[tuple[str, str], dict[int, float]], half=0.02, source="natural", **extra):
    """novelty_samples rows: (model, decoding) → {n: novelty}, ±half intervals, one source."""
    rows = []
    for (model, dec), values in sets.items():
        for n, v in values.items():
            rows.append(
                {"model": model, "decoding": dec, "family": FAMILY[dec], "prompt_length": 8}
                | {"n": n, "novelty": v, "novelty_lo": v - half, "novelty_hi": v + half}
                | {"source": source, "distinct": 100}
                | extra
            )
    return pd.DataFrame(rows)


def novelty_texts(table: pd.DataFrame, texts=40, ngrams=1000, spread=65) -> pd.DataFrame:
    """novelty_texts rows of each (source, model, decoding) of a novelty_samples table at the
    main prompt length (8): ``texts`` texts of ``ngrams`` n-grams at every n, novel
    round(v · ngrams) ± ``spread`` in turn (less near 0 and 1), so each set's pooled
    novelty(n) is v and a difference of 0.01 is not significant, one of 0.05 is."""
    t = table[table["prompt_length"] == 8]
    t = t if "source" in t.columns else t.assign(source="all")
    rows = []
    for (source, model, dec), g in t.groupby(["source", "model", "decoding"], sort=False):
        values = dict(zip(g["n"], g["novelty"], strict=True))
        for i in range(texts):
            row = {"source": source, "model": model, "decoding": dec, "text": i}
            for n, v in values.items():
                k = round(v * ngrams)
                d = min(spread, k, ngrams - k)
                row |= {f"novel_{n}": k + (d if i % 2 else -d), f"ngrams_{n}": ngrams}
            rows.append(row)
    return pd.DataFrame(rows)


def decide_novelty(claim: str, table: pd.DataFrame, params=PARAMS) -> F.Finding:
    return decide(claim, params, novelty_samples=table, novelty_texts=novelty_texts(table))


HUMAN = {1: 0.3, 2: 0.4, 3: 0.5, 4: 0.8, 5: 0.9, 6: 0.95}


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


# --------------------------------------------------------------------------- Merrill: loss
def completion(in_training: list[float], not_in: list[float], tokens=100) -> pd.DataFrame:
    rows = [
        {"model": "m", "curve": curve, "x": x, "loss": v, "tokens": tokens}
        for curve, values in (("in training", in_training), ("not in training", not_in))
        for x, v in enumerate(values, 1)
    ]
    return pd.DataFrame(rows)


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


# --------------------------------------------------------------------------- RAVEN: n-grams
def raven(
    sets: dict[tuple[str, str], dict[int, float]], half=0.02, source="natural", **extra
) -> pd.DataFrame:
    """raven_summary rows (``source``: by default natural text ∪ context, the source the
    n-gram rows read with findings.novelty_source natural; main prompt length): (model,
    decoding) → {n: novelty}."""
    rows = []
    for (model, dec), values in sets.items():
        row = {"model": model, "decoding": dec, "family": FAMILY[dec], "prompt_length": 8}
        row |= {"source": source, "truncated_score": 2.0, "perplexity": 50.0} | extra
        for n, v in values.items():
            row |= {
                f"novelty_{n}": v,
                f"novelty_{n}_lo": v - half,
                f"novelty_{n}_hi": v + half,
            }
        rows.append(row)
    return pd.DataFrame(rows)


RH = {1: 0.06, 2: 0.4, 3: 0.8, 4: 0.9}


def text_novelty(summary: pd.DataFrame, texts=40, ngrams=100, spread=3) -> pd.DataFrame:
    """raven_text_novelty rows of each (source, model, decoding) of a raven_summary table
    (union and natural rows): ``texts`` texts of ``ngrams`` n-grams at every n, their novel
    counts round(v · ngrams) ± ``spread`` in turn (clipped to 0..ngrams), so each set's pooled
    novelty(n) is v where v is at least spread / ngrams from 0 and 1."""
    rows = []
    for _, r in summary[summary["source"].isin(["union", "natural"])].iterrows():
        ns = [int(c.split("_")[1]) for c in r.index if c.count("_") == 1 and
              c.startswith("novelty_") and pd.notna(r[c])]  # fmt: skip
        for t in range(texts):
            row = {"source": r["source"], "model": r["model"], "decoding": r["decoding"]}
            row["text"] = t
            for n in ns:
                k = round(r[f"novelty_{n}"] * ngrams) + (spread if t % 2 else -spread)
                row |= {f"novel_{n}": min(max(k, 0), ngrams), f"ngrams_{n}": ngrams}
            rows.append(row)
    return pd.DataFrame(rows)


def decide_raven(claim: str, table: pd.DataFrame, **kw) -> F.Finding:
    return decide(claim, raven_summary=table, raven_text_novelty=text_novelty(table, **kw))


@pytest.mark.parametrize(
    "model, verdict",
    [({1: 0.02, 2: 0.3}, HOLDS), ({1: 0.12, 2: 0.5}, FAILS), ({1: 0.07, 2: 0.39}, UNCLEAR)],
)
def test_raven_top40_small_n(model, verdict):
    table = raven({("human", "reference"): RH, ("m", "k40"): model | {3: 0.1, 4: 0.1}})
    # pure sampling, the "train" source and all training text ∪ context (union) do not count
    table = pd.concat([table, raven({("m", "pure"): dict.fromkeys(RH, 0.9)})])
    train = raven({("m", "k40"): dict.fromkeys(RH, 0.9)}).assign(source="train")
    union = raven(
        {("m", "k40"): dict.fromkeys(RH, 0.9), ("human", "reference"): RH}, source="union"
    )
    f = decide_raven("raven-top40-small-n", pd.concat([table, train, union]))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m k40: novelty(1) ") and "natural training text" in f.rule
    # matched against all training text (novelty_source all), the union rows decide
    g = decide("raven-top40-small-n", with_findings(novelty_source="all"),
               raven_summary=union, raven_text_novelty=text_novelty(union))  # fmt: skip
    assert g.verdict == FAILS and "all training text ∪ context" in g.rule


def test_raven_rows_without_natural_rows_are_not_measured():
    union = raven({("m", "k40"): RH, ("human", "reference"): RH}, source="union")
    f = decide_raven("raven-top40-small-n", union)
    assert f.measured == "not measured: no 'natural' rows in the RAVEN tables (re-run report raven)"


def test_novelty_rows_correct_over_every_set_of_a_claim():
    """One model's novelty(1) lies below the human one with a permutation p ≈ 0.009
    (40 texts a side, novel 446 ± 100 vs 500 ± 100 of 1,000): decided alone (Bonferroni over
    its 2 n's: p < 0.0125), but not beside a second model (over 2 sets × 2 n's: p < 0.00625),
    whose own clear difference is still decided; a rule that corrected over one set's n's
    only would say "holds" for both and err more often with every set it adds."""
    human, weak, clear = {1: 0.5, 2: 0.5}, {1: 0.446, 2: 0.5}, {1: 0.3, 2: 0.3}
    kw = {"ngrams": 1000, "spread": 100}
    one = raven({("human", "reference"): human, ("a", "k40"): weak})
    assert decide_raven("raven-top40-small-n", one, **kw).verdict == HOLDS
    two = raven({("human", "reference"): human, ("a", "k40"): weak, ("b", "k40"): clear})
    f = decide_raven("raven-top40-small-n", two, **kw)
    assert f.verdict == UNCLEAR, f.measured
    assert "a k40: novelty(1) 0.446" in f.measured and "below at n ∈ {} → inconclusive" in f.measured
    assert "b k40: novelty(1) 0.3 " in f.measured and "below at n ∈ {1, 2} → holds" in f.measured


@pytest.mark.parametrize(
    "model, verdict",
    [({3: 0.9, 4: 0.95}, HOLDS), ({3: 0.7, 4: 0.95}, FAILS), ({3: 0.81, 4: 0.9}, UNCLEAR)],
)
def test_raven_top40_large_n(model, verdict):
    table = raven({("human", "reference"): RH, ("m", "k40"): {1: 0.0, 2: 0.0} | model})
    assert decide_raven("raven-top40-large-n", table).verdict == verdict


@pytest.mark.parametrize(
    "model, verdict",
    [({1: 0.2, 2: 0.5, 3: 0.8}, HOLDS), ({1: 0.2, 2: 0.3}, FAILS), (RH, UNCLEAR)],
)
def test_raven_pure_every_n(model, verdict):
    table = raven({("human", "reference"): RH, ("m", "pure"): model})
    assert decide_raven("raven-pure-every-n", table).verdict == verdict


@pytest.mark.parametrize(
    "lstm, verdict",
    [({1: 0.01, 2: 0.2}, HOLDS), ({1: 0.2, 2: 0.4}, FAILS), ({1: 0.06, 2: 0.31}, UNCLEAR)],
)
def test_lstm_less_novel_small_n(lstm, verdict):
    table = raven({("big", "k40"): {1: 0.05, 2: 0.3}, ("lstm", "k40"): lstm})
    f = decide("lstm-less-novel-small-n", raven_summary=table)
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("lstm vs big: ")
    f = decide("lstm-less-novel-small-n", raven_summary=raven({("big", "k40"): RH}))
    assert f.measured.startswith("not measured: no lstm")


def test_lstm_row_without_an_lstm_is_not_tested_here():
    """The default zoo has no LSTM: the claim compares one with a Transformer, so the row is
    not tested here (apart from inconclusive), whatever the tables hold."""
    zoo = {k: v for k, v in PARAMS["models"]["zoo"].items() if v["kind"] != "lstm"}
    params = {**PARAMS, "models": {**PARAMS["models"], "zoo": zoo}}
    table = raven({("big", "k40"): {1: 0.05, 2: 0.3}, ("lstm", "k40"): {1: 0.01, 2: 0.2}})
    f = decide("lstm-less-novel-small-n", params, raven_summary=table)
    assert f.verdict == F.NOT_TESTED
    assert f.measured.startswith("not tested here: models.zoo has no lstm model")


def quality_tables(model, evaluator, means, per=12, item_slope=0.0, seed=0):
    """raven_summary and raven_texts of ``model``: decoding d{i} has texts whose truncated
    score averages ``means[i][0]`` and whose NLL per token averages ``means[i][1]``; within a
    decoding, a text's NLL moves with its own score by ``item_slope``."""
    rng = np.random.default_rng(seed)
    texts, summary = [], []
    for i, (score, nll) in enumerate(means):
        x = score + rng.normal(0, 0.5, per)
        y = nll + item_slope * (x - score) + rng.normal(0, 0.05, per)
        for j in range(per):
            texts.append((model, f"d{i}", j, 10 * x[j], 10, 20 * y[j], 20, evaluator))
        summary.append(
            {"model": model, "decoding": f"d{i}", "source": "union", "prompt_length": 8}
            | {"truncated_score": x.mean(), "perplexity": math.exp(y.mean())}
            | {"evaluator": evaluator, "distinct": per}
        )
    cols = ["model", "decoding", "text", "score_sum", "score_tokens", "nll_sum"]
    cols += ["nll_tokens", "evaluator"]
    return pd.DataFrame(summary), pd.DataFrame(texts, columns=cols)


@pytest.mark.parametrize(
    "nll, verdict",
    [([5, 4, 3, 2, 1], HOLDS), ([1, 2, 3, 4, 5], FAILS), ([3, 3, 3, 3, 3], UNCLEAR)],
)
def test_novelty_quality(nll, verdict):
    means = list(zip([1, 2, 3, 4, 5], nll, strict=True))
    summary, texts = quality_tables("m", "e", means)
    # other sources, the human reference and a model scored by itself are left out
    other, other_texts = quality_tables("e", "e", [(s, -y) for s, y in means])
    rows = pd.concat([summary, summary.assign(source="train", truncated_score=0.0), other])
    f = decide("novelty-quality", raven_summary=rows,
               raven_texts=pd.concat([texts, other_texts]))  # fmt: skip
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m (scored by e): ") and "5 decodings, 60 texts" in f.measured


def test_novelty_quality_is_not_fooled_by_texts_that_covary():
    """Texts that copy more have a lower NLL, but the decodings do not differ: their means
    still line up (ρ = −1 here), a correlation of means would say "holds", the regrouping
    test stays inconclusive; with such texts and a real decoding effect it holds."""
    summary, texts = quality_tables("m", "e", [(3, 3)] * 5, per=4, item_slope=-2.0, seed=3)
    assert F.rank_test(summary["truncated_score"], summary["perplexity"])[0] < -0.8
    f = decide("novelty-quality", raven_summary=summary, raven_texts=texts)
    assert f.verdict == UNCLEAR, f.measured
    means = [(1, 5), (2, 4), (3, 3), (4, 2), (5, 1)]
    summary, texts = quality_tables("m", "e", means, per=12, item_slope=-2.0, seed=3)
    assert decide("novelty-quality", raven_summary=summary, raven_texts=texts).verdict == HOLDS


def test_novelty_quality_corrects_over_its_models():
    """A weak decoding effect (p↓ ≈ 0.02), decided for one model alone (p < 0.05/2), is not
    decided when a second model is judged too (each at 0.05/4); the second model's clear
    effect still is."""
    means = [(s, 3.2 - 0.006 * i) for i, s in enumerate([1, 2, 3, 4, 5])]
    a, a_texts = quality_tables("a", "e", means, per=12, seed=1)
    lower = F.group_permutation_test(
        a_texts["decoding"], a_texts["score_sum"], a_texts["score_tokens"],
        a_texts["nll_sum"], a_texts["nll_tokens"], F.QUALITY_PERMUTATIONS, 0,
    )[1]  # fmt: skip
    assert 0.05 / 4 < lower < 0.05 / 2
    assert decide("novelty-quality", raven_summary=a, raven_texts=a_texts).verdict == HOLDS
    b, b_texts = quality_tables("b", "e", [(1, 5), (2, 4), (3, 3), (4, 2), (5, 1)])
    f = decide("novelty-quality", raven_summary=pd.concat([a, b]),
               raven_texts=pd.concat([a_texts, b_texts]))  # fmt: skip
    assert f.verdict == UNCLEAR, f.measured
    assert f.measured.split("; ")[1].endswith("→ holds"), f.measured


def test_novelty_quality_needs_another_evaluator_and_three_decodings():
    big, big_texts = quality_tables("big", "big", [(1, 5), (2, 4), (3, 3), (4, 2), (5, 1)])
    small, small_texts = quality_tables("small", "big", [(1, 1), (2, 2)])
    rows, texts = pd.concat([big, small]), pd.concat([big_texts, small_texts])
    f = decide("novelty-quality", raven_summary=rows, raven_texts=texts)
    assert f.measured.startswith("not measured: no model with ≥ 3 decodings scored by another")
    # without an evaluator column the config says who scores whom: big is scored by small
    f = decide("novelty-quality", raven_summary=rows.drop(columns="evaluator"), raven_texts=texts)
    assert f.verdict == HOLDS and f.measured.startswith("big (scored by small)"), f.measured


def test_group_permutation_test_by_hand():
    # two groups of two items, x = y: the observed grouping {0, 1 | 2, 3} is the most extreme
    # of the 6 equally likely ones (with its mirror image {2, 3 | 0, 1})
    groups, x, w = [0, 0, 1, 1], [0.0, 1.0, 2.0, 3.0], [1.0] * 4
    cov, lower, upper = F.group_permutation_test(groups, x, w, x, w, 3000, 0)
    assert cov == pytest.approx(1.0)  # group means 0.5 and 2.5: ((1)(1) + (−1)(−1)) / 2
    assert upper == pytest.approx(2 / 6, abs=0.03) and lower == pytest.approx(1.0)


def test_z_signs_correct_for_many_comparisons():
    a, b = (0.30, 0.20, 0.40), (0.10, 0.0, 0.20)  # z = 0.2 / (0.1·√2 / 1.96) = 2.77
    assert F.z_signs([a], [b], 0.05) == [1]  # above Φ⁻¹(1 − 0.025) = 1.96
    assert F.z_signs([b], [a], 0.05) == [-1]
    assert F.z_signs([a] * 20, [b] * 20, 0.05) == [0] * 20  # below Φ⁻¹(1 − 0.025/20) = 3.02
    # the side facing the other value: a skewed interval with a long upper tail
    assert F.z_signs([(0.30, 0.29, 0.9)], [(0.10, 0.09, 0.11)], 0.05) == [1]
    assert F.z_signs([(0.30, 0.0, 0.31)], [(0.10, 0.09, 0.11)], 0.05) == [0]
    assert F.z_signs([(0.3, 0.3, 0.3)], [(0.1, 0.1, 0.1)], 0.05) == [1]  # collapsed intervals
    assert F.z_signs([(0.3, math.nan, 0.4)], [b], 0.05) == [0]
    assert F.z_signs([], [], 0.05) == []


def contrasts(rows: list[tuple]) -> pd.DataFrame:
    cols = ["kind", "model", "decoding", "a", "b", "delta", "delta_lo", "delta_hi"]
    cols += ["distinct_a", "distinct_b"]
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.parametrize(
    "deltas, verdict",
    [
        ([(0.05, -0.05, 0.15), (-0.1, -0.2, 0.0)], HOLDS),
        ([(0.05, -0.05, 0.15), (0.6, 0.4, 0.8)], FAILS),  # a clear effect at one length
        ([(0.05, -0.3, 0.4), (0.0, -0.1, 0.1)], UNCLEAR),  # too wide to bound
    ],
)
def test_prompt_length_no_effect(deltas, verdict):
    rows = [
        ("prompt_length", "big", "pure", a, 8, *d, 100, 100)
        for a, d in zip((0, 16), deltas, strict=True)
    ]
    # greedy of an empty prompt: one distinct text, left out whatever it shows
    rows.append(("prompt_length", "big", "greedy", 0, 8, 3.0, 2.9, 3.1, 1, 100))
    rows.append(("prompt_length", "human", "reference", 0, 8, 3.0, 2.9, 3.1, 100, 100))
    f = decide("prompt-length-no-effect", raven_contrasts=contrasts(rows))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("big pure: 0 − 8: ") and "left out (1 and 100" in f.measured
    assert "human" not in f.measured


def test_train_vs_union():
    rows = [
        ("source", "m", d, "union", "train", 0.05, 0.02, 0.08, 100, 100) for d in ("pure", "k40")
    ]
    rows.append(
        ("source", "m", "greedy", "union", "train", 2.0, 1.8, 2.2, 100, 100)
    )  # not compared
    assert decide("train-vs-union", raven_contrasts=contrasts(rows)).verdict == HOLDS
    rows[1] = ("source", "m", "k40", "union", "train", 0.5, 0.3, 0.7, 100, 100)
    assert decide("train-vs-union", raven_contrasts=contrasts(rows)).verdict == FAILS
    rows[1] = ("source", "m", "k40", "union", "train", 0.1, 0.0, 0.2, 100, 100)
    assert decide("train-vs-union", raven_contrasts=contrasts(rows)).verdict == UNCLEAR


# --------------------------------------------------------------------------- RAVEN: syntax
def syntax_novelty(model: dict[str, float], human: dict[str, float], half=0.02) -> pd.DataFrame:
    """Syntactic-novelty rows (unit → novelty) of the human reference and of model m's top-40
    sampling, each with a ±half interval; m's pure sampling, which the claim must ignore."""
    rows = []
    for name, dec, values in (
        ("human", "reference", human),
        ("m", "k40", model),
        ("m", "pure", dict.fromkeys(model, 0.0)),
    ):
        for unit, v in values.items():
            rows.append(
                {"model": name, "decoding": dec, "decoding_family": FAMILY[dec], "unit": unit}
                | {"novelty": v, "novelty_lo": v - half, "novelty_hi": v + half, "total": 50}
            )
    return pd.DataFrame(rows)


LOCAL = {"labeled_arc": 0.3, "dependency_role": 0.1, "labeled_path_3": 0.4, "labeled_path_1": 0.1}
WHOLE = {"pos_sequence": 0.9, "dependency_structure": 0.95}


@pytest.mark.parametrize(
    "model, verdict",
    [
        # local below human (path_1, the word itself, is not a local unit), whole within 0.1
        ({"labeled_arc": 0.2, "dependency_role": 0.05, "labeled_path_3": 0.3}
         | {"labeled_path_1": 0.9, "pos_sequence": 0.92, "dependency_structure": 0.97}, HOLDS),
        # local below but whole-sentence structure far below
        ({"labeled_arc": 0.2, "dependency_role": 0.05, "labeled_path_3": 0.3}
         | {"pos_sequence": 0.6, "dependency_structure": 0.95}, FAILS),
        # local above human, whole equal
        ({"labeled_arc": 0.4, "dependency_role": 0.1, "labeled_path_3": 0.4} | WHOLE, FAILS),
        # local below, whole differs by 0.1 ± 0.04: neither bounded within 0.1 nor outside
        ({"labeled_arc": 0.2, "dependency_role": 0.05, "labeled_path_3": 0.3}
         | {"pos_sequence": 0.8, "dependency_structure": 0.95}, UNCLEAR),
    ],
)  # fmt: skip
def test_syntax_local_less_novel(model, verdict):
    f = decide("syntax-local-less-novel", syntax_novelty=syntax_novelty(model, LOCAL | WHOLE))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m k40: local below human at {")
    assert "labeled_path_1" not in f.measured


def test_syntax_units_are_read_from_the_config():
    model = {
        "labeled_arc": 0.2,
        "dependency_role": 0.05,
        "labeled_path_3": 0.3,
        "labeled_path_1": 0.9,
    }
    table = syntax_novelty(model | WHOLE, LOCAL | WHOLE)
    assert decide("syntax-local-less-novel", syntax_novelty=table).verdict == HOLDS
    params = with_findings(local_units=["labeled_arc", "labeled_path_1"])
    assert decide("syntax-local-less-novel", params, syntax_novelty=table).verdict == UNCLEAR


def test_syntax_units_without_occurrences_are_not_compared():
    """A unit with total 0 (no generated sentence) counts neither way; with no whole-sentence
    unit measured the model is left out and the claim is not measured."""
    table = syntax_novelty({"labeled_arc": 0.1, "pos_sequence": 0.1}, LOCAL | WHOLE)
    table.loc[table["unit"] == "pos_sequence", "total"] = 0
    f = decide("syntax-local-less-novel", syntax_novelty=table)
    assert (f.verdict, f.measured.startswith("not measured")) == (UNCLEAR, True)


# --------------------------------------------------------------------------- Shaib et al.
def templates(model_rate: float, human_rate: float, p=(0.5, 0.5), texts=100) -> pd.DataFrame:
    """The templates table: human/reference, m/greedy (the deciding set: ``model_rate``,
    ``p``) and m/pure (the described extra: the opposite rate and p-values, which must not
    decide)."""
    rows = []
    sets = (("human", "reference", human_rate, (math.nan, math.nan)),
            ("m", "greedy", model_rate, p), ("m", "pure", 1 - model_rate, p[::-1]))  # fmt: skip
    for name, dec, rate, (up, down) in sets:
        base = {"model": name, "decoding": dec, "decoding_family": FAMILY[dec], "texts": texts}
        base |= {"templates_per_token": 0.1, "cr_pos": 3.0}
        rows.append(base | {"n": 6, "template_rate": rate, "p_up": up, "p_down": down})
        # another n: ignored
        rows.append(base | {"n": 4, "template_rate": 1.0 - rate, "p_up": 0.0, "p_down": 0.0})
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "model, human, p, verdict",
    [
        (0.9, 0.4, (0.001, 1.0), HOLDS),
        (0.3, 0.8, (1.0, 0.001), FAILS),
        (0.5, 0.45, (0.2, 0.8), UNCLEAR),
        # the binomial interval alone would say "holds"; the regrouping test decides
        (0.9, 0.4, (0.03, 0.97), UNCLEAR),
    ],
)
def test_more_templates(model, human, p, verdict):
    f = decide("more-templates", templates=templates(model, human, p))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith(f"m greedy n=6: template rate {model:g} ")
    assert "regrouping p↑ = " in f.measured and "[pure, not deciding: template rate" in f.measured
    assert "greedy decoding" in f.conditions and "Table 3" in f.where


def test_more_templates_without_greedy_samples_is_not_tested_here():
    """Shaib et al. compare greedy outputs with human text; sampling lowers the template rate,
    so pure samples alone (even clearly below human) decide nothing."""
    t = templates(0.9, 0.4, (1.0, 0.001))
    f = decide("more-templates", templates=t[t["decoding"] != "greedy"])
    assert f.verdict == F.NOT_TESTED, f.measured
    assert f.measured.startswith("not tested here: no greedy samples")
    decodings = {k: v for k, v in PARAMS["sampling"]["decodings"].items() if v["kind"] != "greedy"}
    no_greedy = {**PARAMS, "sampling": {**PARAMS["sampling"], "decodings": decodings}}
    assert decide("more-templates", no_greedy, templates=t).verdict == F.NOT_TESTED


def test_greedy_sets_too_short_for_a_template_are_left_out():
    """A small model's greedy samples can be blank lines: 8 texts of 4 words in all cannot
    hold a 6-word template, so the set decides nothing (the tiny run's greedy sets)."""
    t = templates(0.0, 1.0, (1.0, 0.001), texts=8).assign(words=100)
    t.loc[t["decoding"] == "greedy", "words"] = 4
    f = decide("more-templates", templates=t)
    assert f.verdict == UNCLEAR
    assert f.measured == (
        "not measured: m greedy: left out (4 words in 8 texts, fewer than 6 a text)"
    )


def test_more_templates_needs_the_regrouping_test():
    f = decide("more-templates", templates=templates(0.9, 0.4).drop(columns=["p_up", "p_down"]))
    assert f.verdict == UNCLEAR and "no p_up, p_down" in f.measured


def creativity_texts(sets: dict[tuple[str, str], float], texts=40, spread=1.0, seed=0,
                     source="natural") -> pd.DataFrame:
    """creativity_texts of sets whose texts' Creativity Index is spread evenly (±``spread``)
    around the given mean, in a seeded random order."""
    rng = np.random.default_rng(seed)
    rows = []
    for (model, decoding), mean in sets.items():
        values = mean + np.linspace(-spread, spread, texts)
        for i, v in enumerate(rng.permutation(values)):
            rows.append({"model": model, "decoding": decoding, "source": source, "text": i,
                         "words": 100, "index": v})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("human", "model", "texts", "spread", "verdict"),
    [
        (6.0, 3.0, 10, 1.5, HOLDS),  # human 100% higher, far apart
        (3.0, 6.0, 10, 1.5, FAILS),  # the model's texts are the more creative
        (4.0, 4.0, 40, 0.2, FAILS),  # no gap: the interval excludes the paper's 31.1%
        (4.0, 3.9, 40, 0.2, HOLDS),  # 2.6% higher and clearly so: the direction holds
        (4.0, 3.4, 10, 1.5, UNCLEAR),  # 18% higher, neither significant nor excluding 31.1%
    ],
)
def test_human_more_creative(human, model, texts, spread, verdict):
    t = creativity_texts({("human", "reference"): human, ("m", "pure"): model}, texts, spread)
    f = decide("human-more-creative", creativity_texts=t)
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith(f"m pure: index {model:g} vs human {human:g} ({texts} vs {texts}")
    assert f.related and f.paper == F.LU and "66.2%" in f.claim and f.per_model == f"m: {verdict}"


def test_human_more_creative_reads_the_configured_source_and_combines_models():
    sets = {("human", "reference"): 6.0, ("a", "pure"): 3.0, ("b", "pure"): 9.0}
    t = pd.concat([creativity_texts(sets, 10), creativity_texts({**sets, ("b", "pure"): 3.0}, 10,
                                                                source="all")])  # fmt: skip
    f = decide("human-more-creative", creativity_texts=t)
    assert (f.verdict, f.per_model) == (F.MIXED, f"a: {HOLDS}; b: {FAILS}"), f.measured
    assert "against 0.0125" in f.measured  # α / (2 · 2 models)
    f = decide("human-more-creative", with_findings(novelty_source="all"), creativity_texts=t)
    assert f.verdict == HOLDS, f.measured


def test_human_more_creative_without_sampled_text_is_not_tested_here():
    """Lu et al. compare sampled LLM text with human writing: greedy samples alone, or a
    pure_decoding that is not sampling, decide nothing."""
    t = creativity_texts({("human", "reference"): 6.0, ("m", "greedy"): 1.0}, 10)
    f = decide("human-more-creative", creativity_texts=t)
    assert f.verdict == F.NOT_TESTED and f.measured.startswith("not tested here: no pure samples")
    t = creativity_texts({("human", "reference"): 6.0, ("m", "greedy"): 1.0}, 10)
    f = decide("human-more-creative", with_findings(pure_decoding="greedy"), creativity_texts=t)
    assert f.verdict == F.NOT_TESTED
    t = creativity_texts({("m", "pure"): 1.0}, 10)
    f = decide("human-more-creative", creativity_texts=t)
    assert f.verdict == UNCLEAR and "no human/reference" in f.measured


def test_relative_excess_by_hand():
    assert F.relative_excess([3, 3], [2, 2], 100, 0) == (0.5, 0.5, 0.5)
    v, lo, hi = F.relative_excess([1, 2, 3, 4], [1, 1, 2, 2], 500, 0)
    assert v == pytest.approx(2 / 3) and lo < v < hi
    assert all(math.isnan(x) for x in F.relative_excess([1, 2], [0, 0], 50, 0))


def coverage_delta(delta, human=None) -> pd.DataFrame:
    """template_coverage_delta: m/pure with ``delta`` (the human coverage 0.7 − delta unless
    given), and m/greedy, which is not compared."""
    cols = ["model", "decoding", "decoding_family", "n", "cut", "coverage_model"]
    cols += ["coverage_human", "delta", "delta_lo", "delta_hi"]
    human = 0.7 - delta[0] if human is None else human
    rows = [("m", "pure", "pure", 6, 100, human + delta[0], human, *delta)]
    rows.append(("m", "greedy", "greedy", 6, 100, 0.0, 0.9, -0.9, -1.0, -0.8))  # not compared
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.parametrize(
    "delta, verdict",
    [
        ((0.4, 0.2, 0.6), HOLDS),
        ((-0.3, -0.5, -0.1), FAILS),
        ((0.05, -0.1, 0.2), FAILS),  # straddles 0 but excludes the paper's 41 points
        ((0.2, -0.1, 0.5), UNCLEAR),
    ],
)
def test_templates_in_training(delta, verdict):
    f = decide("templates-in-training", template_coverage_delta=coverage_delta(delta))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m: coverage 0.7 vs human ") and "greedy" not in f.measured
    assert f.where.startswith("Abstract (§6.2") and "§6.2" not in f.measured


def test_templates_in_training_reports_the_non_template_contrast():
    cov = pd.DataFrame([{"model": "m", "decoding": "pure", "coverage_templates": 0.7,
                         "coverage_non_templates": 0.3, "p_value": 0.01}])  # fmt: skip
    f = decide("templates-in-training", template_coverage_delta=coverage_delta((0.4, 0.2, 0.6)),
               template_coverage=cov)  # fmt: skip
    assert f.verdict == HOLDS
    assert "[§6.2: templates 0.7 vs non-templates 0.3, Mann–Whitney p = 0.01]" in f.measured


@pytest.mark.parametrize("delta", [(0.4, 0.2, 0.6), (-0.03, -0.06, 0.0)])
def test_templates_in_training_on_a_floor_is_not_tested_here(delta):
    """A human arm that finds 3% of its templates in the training list (the paper's: 35%):
    the list is too short to make the paper's contrast, whatever the difference."""
    f = decide("templates-in-training", template_coverage_delta=coverage_delta(delta, 0.03))
    assert f.verdict == F.NOT_TESTED, f.measured
    assert "found among the training split's top 100 POS 6-grams 0.03 of the time" in f.measured
    f = decide("templates-in-training", with_findings(coverage_human_min=0.02),
               template_coverage_delta=coverage_delta(delta, 0.03))  # fmt: skip
    assert f.verdict != F.NOT_TESTED


def style(rows: list[tuple]) -> pd.DataFrame:
    cols = ["model", "source", "stratum", "n", "exact_rate", "pos_rate", "pos_minus_exact"]
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.parametrize(
    "n, exact, pos, verdict",
    [
        (400, 0.05, 0.07, HOLDS),  # 8 of 400 style-only: [0.0087, 0.039] above 0
        (1000, 0.05, 0.05, FAILS),  # 0 of 1000: upper bound 0.0037 < the paper's 0.011
        (144, 0.1, 0.1, UNCLEAR),  # 0 of 144: upper bound 0.025 still allows the paper's 0.011
    ],
)
def test_pos_exceeds_exact(n, exact, pos, verdict):
    rows = [("m", "all", "repeated", n, exact, pos, pos - exact)]
    rows.append(("m", "ladder", "repeated", 10, 0.0, 1.0, 1.0))  # another source: ignored
    f = decide("pos-exceeds-exact", style_memorization=style(rows))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith(f"m ({n} passages): ")


# --------------------------------------------------------------------------- memorization
def ladder(rates: dict[int, tuple[float, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"model": "m", "copies": c, "extraction_rate": v, "extraction_rate_lo": lo, "extraction_rate_hi": hi}
            | {"match_fraction": v, "lcp": 1.0, "n": 10}
            for c, (v, lo, hi) in rates.items()
        ]
    )


@pytest.mark.parametrize(
    "rates, verdict",
    [
        ({0: 0.0, 1: 0.1, 4: 0.5, 16: 0.9}, HOLDS),
        ({0: 0.6, 1: 0.3, 16: 0.0}, FAILS),  # falls with the copies
        ({0: 0.0, 1: 0.9, 16: 0.1}, UNCLEAR),  # up then down: no trend over the rungs
        ({0: 0.0, 1: 0.0, 16: 0.0}, UNCLEAR),  # nothing extracted: no outcome varies
        ({0: 0.0, 16: 0.3}, UNCLEAR),  # 3 of 20, all on the top rung: p = 0.105
    ],
)
def test_extraction_duplication(rates, verdict):
    table = ladder({c: (v, v, v) for c, v in rates.items()})
    f = decide("extraction-duplication", memorization=table)
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m: control: 0/10 = 0 [0, 0.308]") or rates[0] > 0


def test_trend_test_by_hand_and_against_brute_force():
    import itertools

    from scipy import stats

    # two groups: Fisher's exact test. 2 successes among 4 passages, both in the upper group:
    # 1 of the C(4, 2) = 6 equally likely placements
    assert F.trend_test([0, 1], [2, 2], [0, 2]) == pytest.approx((1 / 6, 1.0))
    for k in ([1, 4], [3, 1], [2, 2]):
        n = [5, 6]
        table = [[n[0] - k[0], k[0]], [n[1] - k[1], k[1]]]
        up, down = F.trend_test([0, 1], n, k)
        assert up == pytest.approx(stats.fisher_exact(table, alternative="greater")[1])
        assert down == pytest.approx(stats.fisher_exact(table, alternative="less")[1])
    # three groups against every placement of the successes
    scores, n, k = [0, 1, 2], [3, 2, 3], [0, 1, 2]
    labels = [s for s, m in zip(scores, n, strict=True) for _ in range(m)]
    observed = sum(s * x for s, x in zip(scores, k, strict=True))
    sums = [sum(labels[i] for i in c) for c in itertools.combinations(range(8), sum(k))]
    up = sum(t >= observed for t in sums) / len(sums)
    down = sum(t <= observed for t in sums) / len(sums)
    assert F.trend_test(scores, n, k) == pytest.approx((up, down))
    assert F.trend_test([0, 1], [3, 3], [0, 0]) == (1.0, 1.0)
    assert F.trend_test([0, 1], [3, 3], [3, 3]) == (1.0, 1.0)


def test_extraction_without_the_memorization_table_is_not_measured():
    f = decide("extraction-duplication")
    assert (f.verdict, f.measured) == (UNCLEAR, "not measured: no memorization table in this run")


def nll_delta(delta) -> pd.DataFrame:
    cols = ["model", "contrast", "delta", "delta_lo", "delta_hi", "n_a", "n_b"]
    rows = [
        ("m", "unplanted - planted", *delta, 20, 20),
        ("m", "clean − planted", -9, -10, -8, 20, 20),
    ]
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.parametrize(
    "delta, verdict",
    [((0.3, 0.1, 0.5), HOLDS), ((-0.3, -0.5, -0.1), FAILS), ((0.05, -0.1, 0.2), UNCLEAR)],
)
def test_benchmark_placement(delta, verdict):
    f = decide("benchmark-placement", membership_nll_delta=nll_delta(delta))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m: unplanted − planted NLL ")


def detectors(**deltas):
    """Detector rows of model m on planted items: ``det=(auc, delta, lo, hi)``."""
    cols = ["model", "label_set", "detector", "auc", "delta_auc_vs_loss", "delta_auc_vs_loss_lo"]
    rows = [("m", "planted", d, *v) for d, v in deltas.items()]
    rows.append(("m", "training", "min_k_20", 0.99, -0.3, -0.4, -0.2))  # another label set
    return {"membership_detectors": pd.DataFrame(rows, columns=[*cols, "delta_auc_vs_loss_hi"])}


LOSS = (0.8, 0.0, 0.0, 0.0)


@pytest.mark.parametrize(
    "deltas, verdict",
    [
        # overlapping AUC intervals, yet the paired difference excludes 0: holds
        ({"loss": LOSS, "min_k_20": (0.85, 0.05, 0.01, 0.1), "reference": (0.8, 0.0, -0.1, 0.1)},
         HOLDS),
        ({"loss": LOSS, "min_k_20": (0.7, -0.1, -0.2, -0.02)}, FAILS),
        ({"loss": LOSS, "min_k_20": (0.8, 0.0, -0.1, 0.1)}, UNCLEAR),
    ],
)  # fmt: skip
def test_min_k_beats_loss(deltas, verdict):
    f = decide("min-k-beats-loss", **detectors(**deltas))
    assert f.verdict == verdict, f.measured


# --------------------------------------------------------------------------- name cloze
def cloze_summary(train, valid, r):
    cols = ["model", "split", "acc_insensitive", "acc_insensitive_lo", "acc_insensitive_hi"]
    frame = pd.DataFrame([("m", "train", *train), ("m", "valid", *valid)], columns=cols)
    frame["r_overlap"], frame["r_overlap_lo"], frame["r_overlap_hi"] = r
    frame["r_plays"] = 10
    return {"membership_cloze_summary": frame}


@pytest.mark.parametrize(
    "r, verdict",
    [
        ((0.7, 0.4, 0.9), HOLDS),
        ((0.1, -0.4, 0.8), UNCLEAR),
        # straddles 0, below the pilot's 0.77: not a refutation (0.77 came from four books,
        # its own interval reaches below 0); only an interval below 0 refutes r > 0
        ((0.1, -0.3, 0.5), UNCLEAR),
        ((-0.5, -0.8, -0.2), FAILS),
    ],
)
def test_cloze_overlap_correlation(r, verdict):
    t = cloze_summary((0.8, 0.7, 0.9), (0.2, 0.1, 0.3), r)
    f = decide("cloze-overlap-correlation", **t)
    assert f.verdict == verdict and "10 plays" in f.measured
    assert "below the paper's" not in f.rule  # 0.77 is no effect size to exclude
    t = cloze_summary((0.1, 0.0, 0.2), (0.8, 0.7, 0.9), (float("nan"),) * 3)
    assert decide("cloze-overlap-correlation", **t).measured.startswith("not measured")


@pytest.mark.parametrize(
    "train, p, verdict",
    [
        ((0.4, 0.3, 0.5), (0.001, 1.0), HOLDS),
        ((0.05, 0.0, 0.1), (1.0, 0.001), FAILS),
        ((0.15, 0.05, 0.25), (0.3, 0.7), UNCLEAR),
        # intervals over plays apart, but whole plays permuted do not make it rare
        ((0.4, 0.3, 0.5), (0.04, 0.97), UNCLEAR),
    ],
)
def test_cloze_training_plays(train, p, verdict):
    """Chang et al.'s claim, decided by permuting whole plays between training and held-out
    (the test of the excerpt row), not by comparing two intervals over items."""
    t = excerpts((0.4, 0.3, 0.5), (0.1, 0.0, 0.2), (1.0, 0.001))
    columns = ["acc_insensitive", "acc_insensitive_lo", "acc_insensitive_hi", "p_up", "p_down"]
    t.loc[t["group"] == "train", columns] = [*train, *p]
    f = decide("cloze-training-plays", membership_cloze_excerpts=t)
    assert f.verdict == verdict, f.measured
    assert "(100 items, 10 plays) vs held-out" in f.measured and "play-permutation" in f.measured
    assert f.related


def excerpts(excerpt, held_out, p=(0.5, 0.5)) -> pd.DataFrame:
    """The excerpt table: the highest copy count (16) has ``excerpt`` and ``p``; a lower count
    and the pooled plays carry the opposite p-values, which the rule must not read."""
    cols = ["model", "group", "copies", "plays", "items", "acc_insensitive"]
    cols += ["acc_insensitive_lo", "acc_insensitive_hi", "p_up", "p_down"]
    rows = [
        ("m", "train", None, 10, 100, 0.9, 0.8, 1.0, 0.001, 1.0),
        ("m", "held-out", None, 6, 60, *held_out, math.nan, math.nan),
        ("m", "excerpt", 1, 2, 30, *held_out, *p[::-1]),
        ("m", "excerpt", 16, 2, 20, *excerpt, *p),
        ("m", "excerpt-pooled", None, 4, 50, *held_out, *p[::-1]),
    ]
    return pd.DataFrame(rows, columns=cols)


@pytest.mark.parametrize(
    "excerpt, held_out, p, verdict",
    [
        ((0.4, 0.3, 0.5), (0.1, 0.0, 0.2), (0.001, 1.0), HOLDS),
        ((0.1, 0.0, 0.2), (0.4, 0.3, 0.5), (1.0, 0.001), FAILS),
        ((0.15, 0.05, 0.25), (0.1, 0.0, 0.2), (0.3, 0.7), UNCLEAR),
        # intervals apart, but whole plays permuted do not make it rare: no verdict
        ((0.4, 0.3, 0.5), (0.1, 0.0, 0.2), (0.04, 0.97), UNCLEAR),
    ],
)
def test_cloze_excerpts(excerpt, held_out, p, verdict):
    f = decide("cloze-excerpts", membership_cloze_excerpts=excerpts(excerpt, held_out, p))
    assert f.verdict == verdict, f.measured
    assert "excerpt plays at 16 copies" in f.measured and "(20 items, 2 plays)" in f.measured
    assert "(60 items, 6 plays)" in f.measured and "every excerpt play pooled" in f.measured


@pytest.mark.parametrize(
    "rho, p, verdict",
    [
        ((0.3, 0.1, 0.5), 0.01, HOLDS),
        ((-0.3, -0.5, -0.1), 0.01, FAILS),
        ((0.1, -0.1, 0.3), 0.3, UNCLEAR),
        ((0.3, 0.1, 0.5), 0.2, UNCLEAR),  # the items' CI excludes 0, the plays' test does not
    ],
)
def test_cloze_excerpt_copies(rho, p, verdict):
    cols = ["model", "items", "rho", "rho_lo", "rho_hi", "p_value"]
    t = pd.DataFrame([("m", 120, *rho, p)], columns=cols)
    f = decide("cloze-excerpt-copies", membership_cloze_trend=t)
    assert f.verdict == verdict and f"p = {p:g}" in f.measured


# --------------------------------------------------------------------------- outputs
def test_markdown_of_a_scorecard():
    card = pd.DataFrame(
        [
            F.Finding("a", "x is y", "P 2024", "Fig. 1", "big models", "small here", "1 [0, 2] | 3",
                      "rule a", HOLDS).__dict__,
            F.Finding("b", "z", "Q", "§2", "any", "", "not measured: none", "rule b",
                      UNCLEAR).__dict__,
        ]
    )  # fmt: skip
    cal = pd.DataFrame(
        [("a", "halves", 200, 3, 1, 196, 0.02, 0.008, 0.05)], columns=CALIBRATION_COLUMNS
    )
    power = pd.DataFrame(
        [("a", "copier", 10, 0.5), ("a", "copier", 50, 0.96)],
        columns=["claim", "positive", "size", "power"],
    )
    card = pd.concat(
        [card, F.calibration_columns(["a", "b"], cal), F.power_column(["a", "b"], power)], axis=1
    )
    md = F.markdown(card)
    assert "holds: 1, does not hold: 0, mixed: 0, inconclusive: 1, not tested here: 0." in md
    assert (
        "| 1 | x is y (Fig. 1) | P 2024 | **holds** | 1 [0, 2] \\| 3 | "
        "2.0% [0.8%, 5.0%] on halves (200 draws) | copier: 0.96 at 50 |\n" in md
    )
    assert (
        "| 2 | z (§2) | Q | **inconclusive** | not measured: none | no null in this run | "
        "no known positive in this run |\n" in md
    )
    assert md.endswith(
        "1. `a` — the paper's conditions: big models.\n"
        "   - copyscope's setting: small here.\n"
        "   - rule: rule a.\n"
        "2. `b` — the paper's conditions: any.\n"
        "   - rule: rule b.\n"
    )


CALIBRATION_COLUMNS = [
    "claim", "null", "draws", "holds", "does_not_hold", "inconclusive", "false_rate", "false_rate_lo",
    "false_rate_hi",
]  # fmt: skip


def test_markdown_counts_not_tested_apart_and_lists_related_claims():
    """"not tested here" is counted apart from "inconclusive"; a related claim (outside the
    five papers) is listed in its own section, numbered R1, and not counted with them."""
    rows = [
        F.Finding("a", "x", "P", "§1", "c", "", "m", "r", HOLDS),
        F.Finding("b", "y", "P", "§2", "c", "", "not tested here: no LSTM", "r", F.NOT_TESTED),
        F.Finding("c", "z", "Q", "§3", "c", "", "m", "r", FAILS, related=True),
    ]
    card = pd.DataFrame([f.__dict__ for f in rows]).assign(calibration="", power="")
    md = F.markdown(card)
    main, related = md.split("## Related claims")
    assert "holds: 1, does not hold: 0, mixed: 0, inconclusive: 0, not tested here: 1." in main
    assert "**not tested here** | not tested here: no LSTM" in main and "| z (§3)" not in main
    assert "holds: 0, does not hold: 1, mixed: 0, inconclusive: 0, not tested here: 0." in related
    assert "| R1 | z (§3) | Q | **does not hold** |" in related
    assert "R1. `c` — the paper's conditions: c." in related
    assert F.row_numbers(card) == ["1", "2", "R1"]


def test_claims_outside_the_five_papers_are_related():
    card = F.scorecard({}, PARAMS)
    related = set(card.loc[card["related"], "id"])
    assert related == {"completion-loss-frequency", "extraction-duplication", "min-k-beats-loss",
                       "cloze-training-plays", "contamination-lookup",
                       "human-more-creative"}  # fmt: skip
    papers = {F.MERRILL, F.RAVEN, F.SHAIB, F.LI, F.ZHANG}
    assert card.loc[~card["related"], "paper"].isin(papers).all()


def test_a_null_on_which_the_rule_is_never_tested_says_so():
    cal = pd.DataFrame([("a", "halves", 200, 0, 0, 0, 0, 200, 0.0, 0.0, 0.02)],
                       columns=[*CALIBRATION_COLUMNS[:6], "mixed", "not_tested",
                                *CALIBRATION_COLUMNS[6:]])  # fmt: skip
    assert F.calibration_columns(["a"], cal)["calibration"].iloc[0] == (
        "not tested on halves (200 draws)"
    )


def test_the_worst_null_of_a_rule_is_shown():
    cal = pd.DataFrame(
        [
            ("a", "one", 100, 1, 0, 99, 0.01, 0.0, 0.05),
            ("a", "two", 100, 5, 5, 90, 0.1, 0.05, 0.17),
        ],
        columns=CALIBRATION_COLUMNS,
    )
    cols = F.calibration_columns(["a", "b"], cal)
    assert cols["null_false_rate"].iloc[0] == 0.1 and math.isnan(cols["null_false_rate"].iloc[1])
    assert cols["calibration"].iloc[0] == "10.0% [5.0%, 17.0%] on two (100 draws)"


def test_every_claim_names_where_and_under_which_conditions():
    card = F.scorecard({}, PARAMS)
    assert card["where"].str.len().min() >= 2 and card["conditions"].str.len().min() > 10
    assert (
        card["paper"]
        .isin([F.MERRILL, F.RAVEN, F.SHAIB, F.LI, F.CARLINI, F.SHI, F.CHANG, F.ZHANG,
               F.BROWN_XU, F.LU])
        .all()
    )
    assert set(card["verdict"]) == {UNCLEAR}
    # the rules' texts give the smallest n of the token novelty rows as the code does
    rules = card.set_index("id")["rule"]
    assert f"at each n in {F.TOKEN_N_MIN}..6" in rules["pure-more-novel-than-validation"]
    assert f"n in {F.TOKEN_N_MIN}..2 " in rules["constrained-small-n-below-validation"]


def test_the_command_writes_one_row_per_claim(tmp_path):
    samples = curves({("human", "reference"): HUMAN, ("m", "pure"): {2: 0.5}})
    tables = {
        "novelty_samples": samples,
        "novelty_texts": novelty_texts(samples),
        "completion_loss": completion([1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, 7]),
    }
    argv = ["report", "findings"]
    for name, frame in tables.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        argv += ["--table", name, str(tmp_path / f"{name}.csv")]
    out_csv, out_md = tmp_path / "findings.csv", tmp_path / "findings.md"
    argv += ["--params-json", json.dumps(PARAMS), "--out-csv", str(out_csv)]
    assert main([*argv, "--out-md", str(out_md)]) == 0
    card = pd.read_csv(out_csv, keep_default_na=False).set_index("id")
    assert list(card.index) == list(F.CLAIMS)
    assert list(card.columns) == [
        "claim", "paper", "where", "conditions", "setting", "measured", "rule", "verdict",
        "per_model", "related", "null_false_rate", "calibration", "power",
    ]  # fmt: skip
    expected = {"pure-more-novel-than-validation": HOLDS, "completion-loss-in-training": HOLDS}
    assert card["verdict"].to_dict() == {c: expected.get(c, UNCLEAR) for c in F.CLAIMS}
    assert out_md.read_text() == F.markdown(card.reset_index())


def test_the_command_rejects_a_table_no_claim_reads(tmp_path):
    path = tmp_path / "x.csv"
    pd.DataFrame({"a": [1]}).to_csv(path, index=False)
    out = {"csv": tmp_path / "f.csv", "md": tmp_path / "f.md"}
    with pytest.raises(InputError, match="planted"):
        F.run({"table": [("planted", str(path))]}, out, PARAMS)


COLUMNS = {
    "novelty_samples": ["model", "decoding", "family", "prompt_length", "n", "novelty", "source"],
    "nnsl_samples": ["model", "decoding", "family", "prompt_length", "mean_nnsl", "source"],
    "raven_summary": ["model", "decoding", "family", "source", "prompt_length", "truncated_score"],
    "raven_contrasts": ["kind", "model", "decoding", "a", "b", "delta", "distinct_a", "distinct_b"],
    "raven_texts": ["model", "decoding", "text", "score_sum", "score_tokens", "nll_sum",
                    "nll_tokens", "evaluator"],  # fmt: skip
    "raven_text_novelty": ["source", "model", "decoding", "text", "novel_1", "ngrams_1"],
    "novelty_texts": ["source", "model", "decoding", "text", "novel_1", "ngrams_1"],
    "completion_loss": ["model", "curve", "x", "loss", "tokens"],
    "completion_loss_slope": ["model", "n", "tokens", "texts", "slope", "slope_lo", "slope_hi"],
    "memorization": ["model", "copies", "extraction_rate", "extraction_rate_lo", "extraction_rate_hi"],
    "syntax_novelty": ["model", "decoding", "decoding_family", "unit", "novelty", "total"],
    "templates": ["model", "decoding", "decoding_family", "n", "template_rate", "cr_pos",
                  "p_up", "p_down"],  # fmt: skip
    "template_coverage_delta": ["model", "decoding", "n", "delta", "delta_lo", "delta_hi"],
    "template_coverage": ["model", "decoding", "coverage_templates", "coverage_non_templates"],
    "membership_nll_delta": ["model", "contrast", "delta", "delta_lo", "delta_hi"],
    "membership_detectors": ["model", "label_set", "detector", "auc", "delta_auc_vs_loss"],
    "contamination_known": ["benchmark", "positive", "rule", "tp", "fn", "fp", "tn"],
    "membership_cloze_summary": ["model", "split", "acc_insensitive", "r_overlap"],
    "membership_cloze_excerpts": ["model", "group", "copies", "items", "acc_insensitive"],
    "membership_cloze_trend": ["model", "items", "rho", "rho_lo", "rho_hi"],
    "style_memorization": ["model", "source", "stratum", "n", "pos_minus_exact"],
    "creativity_texts": ["model", "decoding", "source", "text", "words", "index"],
    "findings_calibration": CALIBRATION_COLUMNS,
    "findings_power": ["claim", "positive", "size", "power"],
}


def test_every_claim_is_decided_on_empty_tables():
    """With every table present but empty, each claim is inconclusive, not measured."""
    assert set(COLUMNS) == F.TABLES
    card = F.scorecard({name: pd.DataFrame(columns=COLUMNS[name]) for name in F.TABLES}, PARAMS)
    assert set(card["verdict"]) == {UNCLEAR}
    assert card["measured"].str.startswith("not measured: ").all(), card["measured"].tolist()


def test_combine_keeps_the_parts_false_verdict_rate():
    """Parts that each err 4% one way and 4% the other (independently, as two models on a
    null): "does not hold" from one failing part would err ≈ 8%; requiring every part keeps
    the claim's false-verdict rate below the part's."""
    rng = np.random.default_rng(0)
    draws = rng.choice([HOLDS, FAILS, UNCLEAR], p=[0.04, 0.04, 0.92], size=(20000, 2))
    claim = [F.combine(list(d)) for d in draws]
    any_fails = [FAILS in d and HOLDS not in d for d in draws]
    assert np.mean([v != UNCLEAR for v in claim]) < 0.01
    assert np.mean(any_fails) > 0.07  # the old rule: what the symmetric one removes
