"""Shaib et al.'s claims (copyscope.report.findings.shaib): each rule on synthetic tables
whose verdict is known, its nulls and its known positive (the templater)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from copyscope.report import calibration as C
from copyscope.report import findings as F
from copyscope.report import power as P
from copyscope.report import style as style_report
from copyscope.report.findings import shaib as paper
from support.findings import (
    CAL_PARAMS,
    FAILS,
    FAMILY,
    HOLDS,
    PARAMS,
    POWER_PARAMS,
    STEPS,
    SYNTAX,
    UNCLEAR,
    data,
    decide,
    ppl_rows,
    share_rows,
    verdict_rule,
    with_findings,
)


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


SYNTAX_PARAMS = {**CAL_PARAMS, "analysis": {**CAL_PARAMS["analysis"], "syntax": SYNTAX}}


def tagged_texts(texts=80, seed=5, tags="ABCDE") -> list:
    """``texts`` tagged texts of two sentences of random (word, tag) pairs."""
    rng = np.random.default_rng(seed)
    return [
        [[(f"w{rng.integers(10**6)}", str(rng.choice(list(tags)))) for _ in range(8)]
         for _ in range(2)]
        for _ in range(texts)
    ]  # fmt: skip


def test_human_halves_templates_build_the_template_table(monkeypatch):
    d = data(human_texts=tagged_texts())
    t = paper.human_halves_templates(np.random.default_rng(0), d, SYNTAX_PARAMS)["templates"]
    # the half that plays the model plays its greedy samples: the decoding the rule decides on
    assert list(t["model"]) == ["null", "human"] and list(t["decoding"]) == ["greedy", "reference"]
    no_greedy = {**SYNTAX_PARAMS, "sampling": {**SYNTAX_PARAMS["sampling"], "decodings": {
        k: v for k, v in SYNTAX_PARAMS["sampling"]["decodings"].items()
        if v["kind"] != "greedy"}}}  # fmt: skip
    assert paper.human_halves_templates(np.random.default_rng(0), d, no_greedy) is None
    assert (t["texts"] == 40).all() and (t["n"] == 3).all()
    r = C.false_verdicts("more-templates", paper.human_halves_templates, d, SYNTAX_PARAMS, 30, 0)
    assert r["false_rate"] <= 0.1
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule(
        "templates", lambda t: t["templates_per_token"].iloc[0] - t["templates_per_token"].iloc[1]
    ))  # fmt: skip
    bad = C.false_verdicts("bad", paper.human_halves_templates, d, SYNTAX_PARAMS, 20, 0)
    assert bad["false_rate"] == 1.0


def test_human_halves_coverage_build_the_coverage_delta(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    tags = tmp_path / "train-tags.jsonl"
    tags.write_text("".join(json.dumps({"text": " ".join(rng.choice(list("ABCDE"), 12))}) + "\n"
                            for _ in range(300)))  # fmt: skip
    ranks, counts, cut = C.training_ngrams(tags, 3)
    assert ranks and cut >= 1 and set(counts) == set(ranks)
    # analysis.syntax.coverage_cut sets the list's length (the paper's 50K scaled: 100 here)
    assert (cut, C.training_ngrams(tags, 3, cut=7)[2]) == (100, 7)
    d = data(human_texts=tagged_texts(), training_ngrams=(ranks, counts, 10))
    t = paper.human_halves_coverage(np.random.default_rng(0), d, SYNTAX_PARAMS)
    delta = t["template_coverage_delta"]
    assert list(delta["model"]) == ["null"] and delta["cut"].iloc[0] == 10
    r = C.false_verdicts("templates-in-training", paper.human_halves_coverage, d, SYNTAX_PARAMS, 20,
                         0, (F.HOLDS,))  # fmt: skip
    assert r["false_rate"] <= 0.1
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("template_coverage_delta",
                                                      lambda t: t["delta"].iloc[0], -1.0))  # fmt: skip
    bad = C.false_verdicts("bad", paper.human_halves_coverage, d, SYNTAX_PARAMS, 20, 0, (F.HOLDS,))
    assert bad["false_rate"] == 1.0


def style_measures(n=60, seed=9) -> pd.DataFrame:
    """Per-passage style measures of one model: every passage has a training copy; a third
    of the continuations reproduce their target's tags but not its words (style only)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        target = " ".join(rng.choice(list("NVDJ"), 6))
        style = i % 3 == 0
        generated = target if style else " ".join(rng.choice(list("NVDJ"), 6))
        rows.append({"model": "m", "source": "ladder", "passage": f"p{i}", "kind": "planted",
                     "copies": 4, "stratum": "4", "planted": 1, "token_exact": 0,
                     "n_target_words": 6, "n_generated_words": 6, "word_exact": 0,
                     "word_match": 0.1, "pos_exact": int(style), "pos_match": 1.0 if style else 0.3,
                     "target_tags": target, "generated_tags": generated})  # fmt: skip
    return pd.DataFrame(rows)


def test_permuted_targets_leave_chance_style_only(monkeypatch):
    st = style_measures()
    params = {**CAL_PARAMS, "analysis": {**CAL_PARAMS["analysis"],
                                     "style": {"bootstrap": 200, "seed": 0}}}  # fmt: skip
    real = style_report.style_table(st, 200, 0)
    assert F.CLAIMS["pos-exceeds-exact"]({"style_memorization": real}, params).verdict == F.HOLDS
    d = data(style=st)
    t = paper.permuted_targets(np.random.default_rng(0), d, params)["style_memorization"]
    pooled = t[t["source"] == "all"].iloc[0]
    assert pooled["n"] == 60 and pooled["pos_minus_exact"] < 0.1  # only chance matches left
    r = C.false_verdicts("pos-exceeds-exact", paper.permuted_targets, d, params, 20, 0, (F.HOLDS,))
    assert r["holds"] <= 2
    # a rule that takes any POS match above the exact rate as style memorization
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule(
        "style_memorization", lambda t: t["pos_match"].iloc[-1] - t["exact_rate"].iloc[-1]
    ))  # fmt: skip
    assert C.false_verdicts("bad", paper.permuted_targets, d, params, 20, 0, (F.HOLDS,))[
        "false_rate"
    ] == 1.0


def test_the_planted_style_share_is_the_style_rows_known_positive():
    """The positive plants the paper's style-only share (1.1%) on deranged targets, at the
    run's passages with a training copy; a larger share planted holds on every draw, none
    planted (chance matches of 6 tags out of 4 only) never does, and the power at the
    paper's share grows with the passages (a style-only passage appears at all)."""
    st = style_measures()
    params = {**POWER_PARAMS, "analysis": {**POWER_PARAMS["analysis"],
                                       "style": {"bootstrap": 200, "seed": 0}}}  # fmt: skip
    d = data(style=st)
    (positive,) = F.CLAIMS["pos-exceeds-exact"].known_positives(d, None, params, {})
    assert positive.right == F.HOLDS and positive.observed == 60 and 60 in positive.sizes
    assert positive.name == "paper's style-only share planted (1.1%)"
    tables = paper.planted_style(0.2)(np.random.default_rng(0), d, params, 60)
    pooled = tables["style_memorization"].query("source == 'all'").iloc[0]
    assert pooled["n"] == 60 and 0.05 < pooled["pos_minus_exact"] < 0.4
    big = P.power_at("pos-exceeds-exact", paper.planted_style(0.2), F.HOLDS, d, params, 60, 10, 0)
    none = P.power_at("pos-exceeds-exact", paper.planted_style(0.0), F.HOLDS, d, params, 60, 10, 0)
    assert big["power"] == 1.0 and none["power"] == 0.0
    small = P.power_at("pos-exceeds-exact", positive.build, F.HOLDS, d, params, 8, 20, 0)
    large = P.power_at("pos-exceeds-exact", positive.build, F.HOLDS, d, params, 400, 20, 0)
    assert small["power"] < large["power"]


def test_the_templater_repeats_one_span_in_a_share_of_the_texts():
    texts = tagged_texts(10)
    span = [("a", "X"), ("b", "Y"), ("c", "Z")]
    out = paper.templated(texts, 0.3, span, np.random.default_rng(0))
    assert sum(t[-1] == span for t in out) == 3 and texts == tagged_texts(10)  # copies
    assert sum(len(t) for t in out) == sum(len(t) for t in texts) + 3


def test_the_templater_is_found_more_templated():
    """Shaib et al.'s positive: greedy samples whose texts repeat one span of human text in
    half of them have a higher template rate than the other half of the human text; with a
    share of 0 (nothing repeated) the rule finds no difference."""
    params = {**POWER_PARAMS, "analysis": {**POWER_PARAMS["analysis"], "syntax": {**SYNTAX, "bootstrap": 100}}}
    d = data(human_texts=tagged_texts(120, tags="ABCDEFGHIJKLMNOP"))
    templater = paper.Templater(d, params, 0)
    assert templater.max_size == 60
    tables = paper.templater_vs_human(templater, 0.5)(np.random.default_rng(0), d, params, 40)
    t = tables["templates"]
    assert list(t["decoding"].unique()) == ["greedy", "reference"] and (t["texts"] == 40).all()
    strong = P.power_at("more-templates", paper.templater_vs_human(templater, 0.5), F.HOLDS, d,
                        params, 40, 10, 0)  # fmt: skip
    none = P.power_at("more-templates", paper.templater_vs_human(templater, 0.0), F.HOLDS, d,
                      params, 40, 10, 0)  # fmt: skip
    assert strong["power"] >= 0.8 and none["power"] == 0.0
    table = P.power_table(d, None, {**params, "findings": {**params["findings"], "power": {
        **params["findings"]["power"], "draws": 2}}})  # fmt: skip
    assert set(table["positive"]) == {"templater 50%"} and (table["observed"] == 60).all()


# --------------------------------------------------------------------------- templates early (§6.1)
LOWER = [300.0 * 0.9**i for i in range(len(STEPS))]
OTHER = [600.0 * 0.9**i for i in range(len(STEPS))]


@pytest.mark.parametrize(
    "template, verdict",
    [
        (LOWER, HOLDS),  # half the others' perplexity at every checkpoint
        # learned, but not by the first checkpoint: no refutation either
        ([OTHER[0], *LOWER[1:]], UNCLEAR),
        # clearly higher at one checkpoint: an interval that excludes "lower" there
        ([*LOWER[:5], OTHER[5] * 1.5, *LOWER[6:]], FAILS),
        (OTHER, UNCLEAR),
        # 13% higher at one checkpoint: z ≈ 2.3 > 1.96 alone, not with Bonferroni over 8
        ([*OTHER[:3], OTHER[3] * math.exp(0.1226), *OTHER[4:]], UNCLEAR),
    ],
)
def test_templates_early(template, verdict):
    f = decide("templates-early", dynamics=ppl_rows(template, OTHER))
    assert f.verdict == verdict, f.measured
    assert "first checkpoint (step 2 of 1000)" in f.measured and "(8 checkpoints)" in f.measured
    if verdict == FAILS:
        assert "higher at steps {178}" in f.measured


def test_templates_early_without_checkpoints_is_not_tested_here():
    """An empty dynamics table (no model kept checkpoints) is "not tested here" with the
    reason; a table without template rows is not measured; each model decides alone."""
    empty = pd.DataFrame(columns=ppl_rows(LOWER, OTHER).columns)
    f = decide("templates-early", dynamics=empty)
    assert f.verdict == F.NOT_TESTED and "no checkpoint scored" in f.measured
    other = share_rows("extraction", {"controls": (0, 4)})
    assert decide("templates-early", dynamics=other).measured.startswith("not measured")
    two = pd.concat([ppl_rows(LOWER, OTHER), ppl_rows(OTHER, LOWER, model="b")])
    f = decide("templates-early", dynamics=two)
    assert f.verdict == F.MIXED and f.per_model == "m: holds; b: does not hold"


def test_no_template_effect_is_a_null_and_the_papers_ratio_is_found():
    """The null draws both sets around the other tokens' perplexity with each row's own noise
    (rarely a verdict); the positive plants the paper's 200/500 at every checkpoint: found at
    the run's 300 template tokens, hardly from 4."""
    d = data(dynamics=ppl_rows(LOWER, OTHER))
    drawn = paper.no_template_effect(np.random.default_rng(0), d, CAL_PARAMS)["dynamics"]
    assert len(drawn) == 16 and set(drawn["set"]) == {"template tokens", "other tokens"}
    t = drawn[drawn["set"] == "template tokens"]["value"].to_numpy()
    assert np.median(t / np.array(OTHER)) == pytest.approx(1.0, abs=0.1)
    r = C.false_verdicts("templates-early", paper.no_template_effect, d, CAL_PARAMS, 200, 0)
    assert r["false_rate"] <= 0.1 and r["false_rate_lo"] <= 0.05
    assert paper.no_template_effect(np.random.default_rng(0), data(), CAL_PARAMS) is None
    (positive,) = paper.template_ratio_positives(d, None, POWER_PARAMS, {})
    assert positive.observed == 300 and positive.sizes == [5, 10, 300]
    assert P.power_at("templates-early", positive.build, HOLDS, d, POWER_PARAMS, 300, 20, 0)[
        "power"] == 1.0  # fmt: skip
    assert P.power_at("templates-early", positive.build, HOLDS, d, POWER_PARAMS, 5, 20, 0)[
        "power"] < 0.5  # fmt: skip
    assert paper.template_ratio_positives(data(), None, POWER_PARAMS, {}) == []
