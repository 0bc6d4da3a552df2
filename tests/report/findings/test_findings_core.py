"""The scorecard's machinery: the verdict helpers, the claim registry (every claim names where
and under which conditions, is decided on empty tables) and the data splitting of the nulls."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from copyscope import stats as S
from copyscope.report import findings as F
from copyscope.report.findings import data as D
from support.findings import (
    CALIBRATION_COLUMNS,
    FAILS,
    HOLDS,
    PARAMS,
    UNCLEAR,
)


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
    assert S.difference_bounds((0.5, 0.4, 0.6), (0.3, 0.2, 0.4)) == pytest.approx((0.2, 0.0, 0.4))


def test_trends_from_two_points_decide_nothing():
    pts = pd.DataFrame(
        {"x": [1, 2], "value": [1.0, 5.0], "value_lo": [0.9, 4.9], "value_hi": [1.1, 5.1]}
    )
    assert F.trend_verdict(pts, "x", 1, 0.8, 3)[0] == UNCLEAR
    assert F.trend_verdict(pts, "x", 1, 0.8, 2)[0] == HOLDS


def test_claims_outside_the_five_papers_are_related():
    card = F.scorecard({}, PARAMS)
    related = set(card.loc[card["related"], "id"])
    assert related == {"completion-loss-frequency", "extraction-duplication", "min-k-beats-loss",
                       "cloze-training-plays", "contamination-lookup",
                       "human-more-creative", "forgetting-early"}  # fmt: skip
    papers = {F.MERRILL, F.RAVEN, F.SHAIB, F.LI, F.ZHANG}
    assert card.loc[~card["related"], "paper"].isin(papers).all()


def test_every_claim_names_where_and_under_which_conditions():
    card = F.scorecard({}, PARAMS)
    assert card["where"].str.len().min() >= 2 and card["conditions"].str.len().min() > 10
    assert (
        card["paper"]
        .isin([F.MERRILL, F.RAVEN, F.SHAIB, F.LI, F.CARLINI, F.SHI, F.CHANG, F.ZHANG,
               F.BROWN_XU, F.LU, F.JAGIELSKI])
        .all()
    )
    assert set(card["verdict"]) == {UNCLEAR}
    # the rules' texts give the smallest n of the token novelty rows as the code does
    rules = card.set_index("id")["rule"]
    assert f"at each n in {F.TOKEN_N_MIN}..6" in rules["pure-more-novel-than-validation"]
    assert f"n in {F.TOKEN_N_MIN}..2 " in rules["constrained-small-n-below-validation"]


COLUMNS = {
    "novelty_samples": ["model", "decoding", "family", "prompt_length", "n", "novelty", "source",
                        "lower_bound"],  # fmt: skip
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
    "raven_novel_words": ["model", "decoding", "texts", "novel_types", "well_formed"],
    "own_benchmark_scores": ["model", "benchmark", "format", "set", "id", "label", "li_nll"],
    "dynamics": ["model", "step", "quantity", "set", "value", "value_lo", "value_hi", "n"],
    "findings_calibration": CALIBRATION_COLUMNS,
    "findings_power": ["claim", "positive", "size", "power"],
}


EMPTY_NOT_TESTED = {"format-memorisation"}
"""The claims whose condition is the table's rows themselves: an empty own-benchmark table is a
run without labelled benchmarks of Li's formats, not tested there."""

TRAINING_HISTORY = {"templates-early", "cloze-late-sudden", "forgetting-early"}
"""The claims on the training history: an empty dynamics table is a run without checkpoints."""


def test_every_claim_is_decided_on_empty_tables():
    """With every table present but empty, each claim is inconclusive, not measured; a claim
    on the training history is not tested here (the run kept no checkpoint), nor one of
    EMPTY_NOT_TESTED."""
    assert set(COLUMNS) == F.TABLES
    card = F.scorecard({name: pd.DataFrame(columns=COLUMNS[name]) for name in F.TABLES}, PARAMS)
    history = card["id"].isin(TRAINING_HISTORY)
    other = ~history & ~card["id"].isin(EMPTY_NOT_TESTED)
    assert set(card.loc[other, "verdict"]) == {UNCLEAR}
    measured = card.loc[other, "measured"]
    assert measured.str.startswith("not measured: ").all(), measured.tolist()
    assert set(card.loc[history, "id"]) == TRAINING_HISTORY
    assert set(card.loc[history, "verdict"]) == {F.NOT_TESTED}
    assert card.loc[history, "measured"].str.contains("no checkpoint scored").all()
    assert {c for c in F.CLAIMS if "dynamics" in F.CLAIMS[c].tables} == TRAINING_HISTORY
    assert set(card.loc[card["id"].isin(EMPTY_NOT_TESTED), "verdict"]) == {F.NOT_TESTED}


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


def test_split_windows_partitions_them():
    rng = np.random.default_rng(0)
    parts = D.split_windows(np.repeat(np.arange(11), 3), 3, rng)
    assert sorted(np.concatenate(parts).tolist()) == list(range(11))
    assert sorted(len(p) for p in parts) == [3, 4, 4]
    again = D.split_windows(np.repeat(np.arange(11), 3), 3, np.random.default_rng(0))
    assert all((a == b).all() for a, b in zip(parts, again, strict=True))


def test_the_registry_is_the_paper_modules_in_order():
    """Each paper module registers its claims together; the registry (the scorecard's rows)
    is the modules in registry.PAPER_MODULES order, each module's claims as written there."""
    from copyscope.report.findings import registry

    by_module = [registry.claims_of(m) for m in registry.PAPERS]
    assert [m.__name__.rsplit(".", 1)[1] for m in registry.PAPERS] == list(registry.PAPER_MODULES)
    assert all(by_module) and sum(by_module, []) == list(F.CLAIMS)
    assert by_module[0][0] == "pure-more-novel-than-validation"
    assert registry.claims_of(registry.PAPERS[4])[0] == "cloze-training-plays"


def test_a_paper_package_registers_its_parts_in_order():
    """Merrill et al.'s and McCoy et al.'s claims live in packages of a few modules: each
    module's claims are registered together, the modules in the order of the package's PARTS,
    and they are the package's claims."""
    from copyscope.report.findings import merrill, raven, registry

    for package in (merrill, raven):
        parts = [registry.claims_of(m) for m in package.MODULES]
        assert [m.__name__.rsplit(".", 1)[1] for m in package.MODULES] == list(package.PARTS)
        assert all(parts) and sum(parts, []) == registry.claims_of(package)
    assert registry.claims_of(merrill.MODULES[-1]) == [
        "completion-loss-in-training", "completion-loss-frequency"]  # fmt: skip
    assert registry.claims_of(raven.MODULES[1]) == ["novelty-quality"]


def test_a_claim_is_one_unit_and_registered_once(monkeypatch):
    """A claim carries its statement, rule, decision, nulls and positives; registering an id
    twice is refused (two claims cannot share a row)."""
    monkeypatch.setattr(F.core, "CLAIMS", dict(F.CLAIMS))
    c = F.CLAIMS["extraction-duplication"]
    assert isinstance(c, F.Claim) and c.nulls and callable(c.positives) and c.related
    assert c.paper == F.CARLINI and "memorization" in c.tables
    with pytest.raises(ValueError, match="registered twice"):
        F.claim("extraction-duplication", "t", F.CARLINI, "w", "c", (), "r")(lambda t, p: None)
    new = F.claim("a-new-claim", "t", F.CARLINI, "w", "c", ("memorization",), "rule {alpha}",
                  nulls=(F.Null("n", lambda rng, data, params: None),))(
        lambda tables, params: ("measured", F.HOLDS))  # fmt: skip
    assert F.core.CLAIMS["a-new-claim"] is new and new.nulls[0].false == F.BOTH
    found = new({"memorization": None}, PARAMS)
    assert (found.verdict, found.rule, found.measured) == (F.HOLDS, "rule 0.05", "measured")
    assert new({}, PARAMS).measured == "not measured: no memorization table in this run"
    assert new.known_positives(None, None, PARAMS, {}) == []


def test_resample_windows_against_a_frame_per_window():
    """The drawn windows' rows, in their order, renumbered: the same frame as concatenating
    one copy of each drawn window's rows (the reference), for the same generator."""
    from copyscope.report.findings.data import resample_windows

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"text": rng.integers(0, 9, 300), "t": np.arange(300),
                          "window": rng.choice([3, 7, 11, 40, 41], 300), "L": rng.random(300)})  # fmt: skip
    for size in (1, 4, 12):
        got = resample_windows(frame, size, np.random.default_rng(size))
        pick = np.random.default_rng(size).choice(np.unique(frame["window"]), size=size)
        want = pd.concat([frame[frame["window"] == w].assign(text=i, window=i)
                          for i, w in enumerate(pick)], ignore_index=True)  # fmt: skip
        pd.testing.assert_frame_equal(got, want)
