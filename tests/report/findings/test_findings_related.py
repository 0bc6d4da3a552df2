"""The related claims of copyscope.report.findings.related — Lu et al.'s Creativity Index and
Jagielski et al.'s forgetting — : each rule on synthetic tables whose verdict is known, its
null and its known positive (copied words; planted forgetting)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope.report import calibration as C
from copyscope.report import findings as F
from copyscope.report import power as P
from copyscope.report.findings import related as paper
from copyscope.report.findings.data import copied_words
from support.findings import (
    CAL_PARAMS,
    FAILS,
    HOLDS,
    POWER_PARAMS,
    UNCLEAR,
    data,
    decide,
    share_rows,
    with_findings,
)


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


def creativity_words(windows=120, length=40, seed=3) -> pd.DataFrame:
    """Per-word longest matches (L_train, L_nat) of ``windows`` human continuations at the main
    prompt length, i.i.d. across windows: a share of each text sits in a found span of 5..15
    words (its longest matches 1..k), the rest short matches."""
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(windows):
        L = rng.integers(0, 4, size=length)
        for start in range(0, length - 15, 15):
            if rng.random() < 0.4:
                k = int(rng.integers(5, 16))
                L[start : start + k] = np.arange(1, k + 1)
        rows.append(pd.DataFrame({"text": w, "window": w, "prompt_length": 8, "t": range(length),
                                  "L_train": L, "L_nat": L}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def test_human_halves_creativity_build_the_per_text_table():
    words = creativity_words()
    tables = paper.human_halves_creativity(np.random.default_rng(0), data(words=words), CAL_PARAMS)
    t = tables["creativity_texts"]
    assert set(zip(t["model"], t["decoding"], strict=True)) == {("human", "reference"),
                                                                  ("null", "pure")}  # fmt: skip
    assert (t.groupby(["model", "source"]).size() == 60).all() and t["index"].between(0, 8).all()
    assert paper.human_halves_creativity(np.random.default_rng(0), data(), CAL_PARAMS) is None
    # neither half is the more creative: "holds" is rare, the paper's 31% gap is excluded
    false = F.CLAIMS["human-more-creative"].nulls[0].false
    assert false == (F.HOLDS,)
    r = C.false_verdicts("human-more-creative", paper.human_halves_creativity, data(words=words),
                         CAL_PARAMS, 30, 0, false)  # fmt: skip
    assert r["holds"] <= 2 and r["does_not_hold"] >= 25, r


def test_copied_words_get_the_longest_matches_of_a_training_span():
    """Three texts of 20 words in 8-word slots (two a text, the last 4 words never copied):
    half of the 6 slots copied, the j-th word of a copied slot found with at least j + 1
    words, every other word untouched."""
    words = pd.DataFrame({"text": np.repeat([0, 1, 2], 20), "t": np.tile(np.arange(20), 3),
                          "L_train": 2, "L_nat": 0})  # fmt: skip
    out = copied_words(words, 0.5, 8, np.random.default_rng(0))
    changed = out["L_nat"].to_numpy() > 0
    assert changed.sum() == 3 * 8
    for column, before in (("L_nat", 0), ("L_train", 2)):
        L = out[column].to_numpy().reshape(3, 20)
        slots = [(r, s) for r in range(3) for s in (0, 8) if L[r, s + 7] == 8]
        assert len(slots) == 3
        for r, s in slots:
            assert L[r, s : s + 8].tolist() == np.maximum(np.arange(1, 9), before).tolist()
        assert (L[:, 16:] == before).all()
    assert (out[["text", "t"]] == words[["text", "t"]]).all().all()


def test_the_copied_words_are_found_less_creative():
    """On human words with a null between halves, the copied half at 50% is found less
    creative than the human half at the sizes measured: the rule has power on it."""
    d = data(words=creativity_words())
    copied = paper.CopiedWords(d, POWER_PARAMS, 0, [0.5])
    assert copied.max_size == 60
    build = paper.copied_vs_human(copied, 0.5)
    tables = build(np.random.default_rng(0), d, POWER_PARAMS, 10)
    t = tables["creativity_texts"]
    assert (t.groupby(["model", "source"]).size() == 10).all()
    r = P.power_at("human-more-creative", build, F.HOLDS, d, POWER_PARAMS, 30, 10, 0)
    assert r["power"] >= 0.9, r
    table = P.power_table(d, None, POWER_PARAMS)
    rows = table[table["claim"] == "human-more-creative"]
    assert set(rows["positive"]) == {"copied words 50%"} and sorted(rows["size"]) == [5, 10, 60]
    assert set(rows["observed"]) == {60}


# --------------------------------------------------------------------------- forgetting (timing)
def extraction(early, late, spread=(5, 8), controls=(0, 8), n=8) -> pd.DataFrame:
    """Extraction rows: ``early`` and ``late`` passages extracted (k of ``n``) at the end (the
    last of 8 checkpoints); the early ones were extracted at 6 of 8 right after their window."""
    early_curve = [(0, n), (0, n), (0, n), (0, n), (6, n), (6, n), (3, n), (early, n)]
    late_curve = [(0, n)] * 7 + [(late, n)]
    return share_rows("extraction", {"timing early": early_curve, "timing late": late_curve,
                                     "timing spread": spread, "controls": controls})  # fmt: skip


@pytest.mark.parametrize(
    "early, late, verdict",
    [(0, 7, HOLDS), (7, 0, FAILS), (2, 4, UNCLEAR), (3, 3, UNCLEAR)],
)
def test_forgetting_early(early, late, verdict):
    f = decide("forgetting-early", dynamics=extraction(early, late))
    assert f.verdict == verdict, f.measured
    assert f.related and f"late {late}/8" in f.measured and f"early {early}/8" in f.measured
    # the early passages just after their window (steps 0..99): the checkpoint at 178
    assert "early passages at step 178 (after their window): 6/8 = 0.75" in f.measured


def test_forgetting_early_not_tested_without_timed_passages():
    t = extraction(0, 7)
    untimed = t.assign(n=np.where(t["set"].str.startswith("timing "), 0, t["n"]))
    for table, reason in ((t.iloc[:0], "no checkpoint scored"),
                          (untimed, "corpus.inject.timing.ladder")):  # fmt: skip
        f = decide("forgetting-early", dynamics=table)
        assert f.verdict == F.NOT_TESTED and reason in f.measured, f.measured


def test_permuted_timing_and_planted_forgetting():
    """The null deals the end's extracted timed passages at random over the early and late
    ones (sizes and total kept; rarely a verdict); the positive plants complete forgetting
    at the run's rates (controls 0 of 8, spread 7 of 8): found at 40 passages a group, rarely
    at the run's 8; none where the spread passages are extracted no more than the controls."""
    t = extraction(0, 7, spread=(7, 8))
    d = data(dynamics=t)
    drawn = paper.permuted_timing(np.random.default_rng(0), d, CAL_PARAMS)["dynamics"]
    assert len(drawn) == len(t)
    end = drawn[(drawn["step"] == 1000) & drawn["set"].isin(["timing early", "timing late"])]
    assert (end["n"] == 8).all() and round((end["value"] * end["n"]).sum()) == 7
    pd.testing.assert_frame_equal(  # the other rows are the run's
        drawn[drawn["step"] < 1000].reset_index(drop=True),
        t[t["step"] < 1000].reset_index(drop=True), check_dtype=False)  # fmt: skip
    r = C.false_verdicts("forgetting-early", paper.permuted_timing, d, CAL_PARAMS, 200, 0)
    assert r["false_rate"] <= 0.1 and r["false_rate_lo"] <= 0.05
    (positive,) = paper.forgetting_positives(d, None, POWER_PARAMS, {})
    assert positive.observed == 8 and positive.sizes == [5, 8, 10]
    high = P.power_at("forgetting-early", positive.build, HOLDS, d, POWER_PARAMS, 40, 20, 0)
    assert high["power"] >= 0.9
    flat = data(dynamics=extraction(0, 7, spread=(0, 8)))
    assert paper.forgetting_positives(flat, None, POWER_PARAMS, {}) == []
    assert paper.permuted_timing(np.random.default_rng(0), data(), CAL_PARAMS) is None
