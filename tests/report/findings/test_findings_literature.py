"""The name cloze claims (copyscope.report.findings.literature): each rule on synthetic tables
whose verdict is known, its nulls and its known positives (excerpt and training plays)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from copyscope.report import calibration as C
from copyscope.report import findings as F
from copyscope.report import membership as membership_report
from copyscope.report import power as P
from copyscope.report.findings import literature as paper
from support.findings import (
    CAL_PARAMS,
    FAILS,
    HOLDS,
    PARAMS,
    POWER_PARAMS,
    UNCLEAR,
    cloze_items,
    data,
    decide,
    share_rows,
)


def power_with_and_without(claim, build, cloze, split, size):
    """The power of ``claim``'s positive ``build`` at ``size`` on the name cloze items, and on
    the same items with every item of the plays of ``split`` answered wrong (no effect)."""
    flat = cloze.assign(correct_insensitive=np.where(cloze["split"] == split, 0,
                                                     cloze["correct_insensitive"]))  # fmt: skip
    return tuple(P.power_at(claim, build, F.HOLDS, data(cloze=c), POWER_PARAMS, size, 10, 0)["power"]
                 for c in (cloze, flat))  # fmt: skip


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


def test_permuted_plays_move_whole_plays():
    cloze = cloze_items()
    out = paper.permuted_plays(cloze, ("train", "valid"), np.random.default_rng(0))
    per_play = out.groupby(["model", "play"])["split"].nunique()
    assert (per_play == 1).all()  # a play's items stay together
    counts = [t.groupby("play")["split"].first().value_counts().sort_index() for t in (out, cloze)]
    pd.testing.assert_series_equal(*counts)
    a = out[out["model"] == "a"].drop_duplicates("play").set_index("play")["split"]
    b = out[out["model"] == "b"].drop_duplicates("play").set_index("play")["split"]
    assert (a == b).all()  # the same labels for every model
    ex = out[cloze["split"] == "excerpt"]
    assert (ex["split"] == "excerpt").all()  # plays outside the permuted splits stay


@pytest.mark.parametrize(
    ("claim", "builder", "table"),
    [
        ("cloze-training-plays", paper.permuted_training_plays, None),
        ("cloze-excerpts", paper.permuted_excerpt_plays("membership_cloze_excerpts"), None),
        ("cloze-excerpt-copies", paper.permuted_excerpt_plays("membership_cloze_trend"), None),
        ("cloze-overlap-correlation", paper.permuted_overlap, None),
    ],
)
def test_cloze_nulls_break_the_planted_effects(claim, builder, table):
    cloze = cloze_items()
    m = CAL_PARAMS["analysis"]["membership"]
    plays, summary = membership_report.cloze_tables(cloze, m["bootstrap"], m["seed"])
    real = {
        "membership_cloze_summary": summary,
        "membership_cloze_excerpts": membership_report.cloze_excerpt_rows(cloze, 200, 0),
        "membership_cloze_trend": membership_report.cloze_trend_rows(cloze, 200, 0),
    }
    assert F.CLAIMS[claim](real, CAL_PARAMS).verdict == F.HOLDS  # the planted effect is found ...
    false = F.CLAIMS[claim].nulls[0].false
    r = C.false_verdicts(claim, builder, data(cloze=cloze), CAL_PARAMS, 20, 0, false)
    assert r["holds"] <= 2  # ... and rarely once the labels are permuted


def test_the_cloze_overlap_null_keeps_the_accuracy():
    cloze = cloze_items()
    out = paper.permuted_overlap(np.random.default_rng(0), data(cloze=cloze), CAL_PARAMS)
    s = out["membership_cloze_summary"]
    _, real = membership_report.cloze_tables(cloze, 200, 0)
    pd.testing.assert_series_equal(s["acc_insensitive"], real["acc_insensitive"])
    assert abs(s["r_overlap"].iloc[0]) < abs(real["r_overlap"].iloc[0])


def test_the_excerpt_plays_resampled_as_whole_plays():
    cloze = cloze_items()
    # the excerpt rule's sides: 2 plays at the highest copy count (16), 12 held-out plays
    assert paper.excerpt_plays(cloze) == 2
    assert paper.excerpt_plays(cloze[cloze["split"] != "valid"]) == 0  # no held-out side
    tables = paper.excerpt_resample(np.random.default_rng(0), data(cloze=cloze), POWER_PARAMS, 9)
    t = tables["membership_cloze_excerpts"].set_index(["model", "group"])
    assert (t.xs("held-out", level="group")["plays"] == 12).all()  # the run's own held-out
    assert (t.xs("excerpt", level="group")["copies"] == 16).all()
    assert (t.xs("excerpt-pooled", level="group")["plays"] == 9).all()
    # the planted effect is found at a size above the run's own; a control without it is not
    strong, none = power_with_and_without(
        "cloze-excerpts", paper.excerpt_resample, cloze, "excerpt", 16
    )
    assert strong >= 0.8 and none == 0.0
    # no excerpt positive without excerpt plays
    assert paper.excerpt_plays(cloze[cloze["split"] != "excerpt"]) == 0
    table = P.power_table(data(cloze=cloze), None, POWER_PARAMS)
    others = ["training plays", "planted agreement (r = 0.77)",
              "training plays as the most-copied plays"]  # fmt: skip
    table = table[~table["positive"].isin(others)]
    assert set(table["positive"]) == {"planted excerpt plays (highest copies)"}
    assert table["size"].tolist() == [2, 5, 10] and (table["observed"] == 2).all()


def test_the_training_plays_resampled_as_whole_plays():
    """Chang et al.'s positive: k training plays (trained on, answered more often) against
    the run's held-out plays, by the training-plays rule's whole-play permutation test."""
    cloze = cloze_items()
    assert paper.excerpt_plays(cloze, paper._training_groups) == 12
    tables = paper.training_resample(np.random.default_rng(0), data(cloze=cloze), POWER_PARAMS, 5)
    t = tables["membership_cloze_excerpts"].set_index(["model", "group"])
    assert (t.xs("train", level="group")["plays"] == 5).all()
    assert (t.xs("held-out", level="group")["plays"] == 12).all()
    strong, none = power_with_and_without(
        "cloze-training-plays", paper.training_resample, cloze, "train", 10
    )
    assert strong >= 0.8 and none == 0.0
    table = P.power_table(data(cloze=cloze), None, POWER_PARAMS)
    rows = table[table["positive"] == "training plays"]
    assert set(rows["claim"]) == {"cloze-training-plays"} and (rows["observed"] == 12).all()


def test_the_training_plays_as_the_most_copied_plays():
    """Zhang et al.'s popularity trend: k training plays (seen whole, answered more often)
    labelled with the highest excerpt copy count against the held-out plays at 0 copies, by the
    trend rule's play-permutation test; training plays answered like held-out ones give no
    trend."""
    cloze = cloze_items()
    tables = paper.trend_resample(np.random.default_rng(0), data(cloze=cloze), POWER_PARAMS, 5)
    rows = tables["membership_cloze_trend"]
    assert rows["model"].tolist() == ["a", "b"] and (rows["rho"] > 0).all()
    # per model: its 12 held-out plays (8 items each) and 5 training plays (24 items each)
    assert (rows["items"] == 12 * 8 + 5 * 24).all()
    # a table without copy counts (excerpt plays unnumbered): the training plays at 1 copy
    bare = cloze.drop(columns="excerpt_copies", errors="ignore")
    bare_rows = paper.trend_resample(np.random.default_rng(0), data(cloze=bare), POWER_PARAMS, 5)
    assert (bare_rows["membership_cloze_trend"]["items"] == 12 * 8 + 5 * 24).all()
    strong, none = power_with_and_without(
        "cloze-excerpt-copies", paper.trend_resample, cloze, "train", 10
    )
    assert strong >= 0.8 and none == 0.0
    table = P.power_table(data(cloze=cloze), None, POWER_PARAMS)
    rows = table[table["positive"] == "training plays as the most-copied plays"]
    assert set(rows["claim"]) == {"cloze-excerpt-copies"} and (rows["observed"] == 12).all()
    # no positive without held-out plays to set them against
    assert paper.trend_resample(np.random.default_rng(0),
                                data(cloze=cloze[cloze["split"] != "valid"]), POWER_PARAMS,
                                5) is None  # fmt: skip


# --------------------------------------------------------------------------- timing (OLMo checkpoints)
def of(*k: int, n: int = 60) -> list[tuple[int, int]]:
    return [(x, n) for x in k]


HELD = [6, 7, 8, 9, 10, 11, 13, 14]  # what every play gains: the model learns the task
STEADY = [6, 10, 15, 19, 24, 28, 34, 38]  # + 0.4 · i / 7 over the held-out plays
SUDDEN = [6, 7, 8, 9, 10, 11, 13, 44]  # the held-out plays', + 0.5 after the late window


def cloze_curves(late=SUDDEN, excerpt=STEADY, held=HELD, **extra) -> pd.DataFrame:
    curves = {"timing late": of(*late), "excerpt": of(*excerpt), "valid": of(*held)}
    return share_rows("name_cloze", curves | extra)


@pytest.mark.parametrize(
    "late, excerpt, held, verdict",
    [
        (SUDDEN, STEADY, HELD, HOLDS),
        # in the late window the held-out plays rise and the plays seen then do not
        ([*SUDDEN[:7], 14], STEADY, [*HELD[:7], 40], FAILS),
        # a small late rise (5 items against the held-out plays' 1): undecided
        ([*SUDDEN[:7], 18], STEADY, HELD, UNCLEAR),
        # every play rises alike (the task learned): the held-out plays' gain is subtracted
        (STEADY, STEADY, STEADY, UNCLEAR),
        # the excerpts rise late too: no steady rise, and no interval that excludes one
        (SUDDEN, SUDDEN, HELD, UNCLEAR),
    ],
)
def test_cloze_late_sudden(late, excerpt, held, verdict):
    f = decide("cloze-late-sudden", dynamics=cloze_curves(late, excerpt, held))
    assert f.verdict == verdict, f.measured
    assert "(steps 2, 422, 1000; late window after 422)" in f.measured
    assert "late plays 2 6/60 = 0.1" in f.measured and "steady rise beyond held-out" in f.measured


def test_cloze_late_sudden_not_tested_without_timing_or_excerpts():
    """No checkpoints, no name cloze over them, no play timed late (corpus.inject.timing.plays
    0: its rows have no items) or no excerpt plays: not tested here, each with its reason;
    without the window or with one checkpoint before it: not measured."""
    t = cloze_curves()
    cases = {
        "no checkpoint scored": t.iloc[:0],
        "no name cloze at any checkpoint": share_rows("extraction", {"controls": (0, 4)}),
        "corpus.inject.timing.plays": cloze_curves(late=[0] * 8).assign(
            n=lambda x: np.where(x["set"] == "timing late", 0, x["n"])),
        "corpus.inject.excerpts": t[t["set"] != "excerpt"],
    }  # fmt: skip
    for reason, table in cases.items():
        f = decide("cloze-late-sudden", dynamics=table)
        assert f.verdict == F.NOT_TESTED and reason in f.measured, f.measured
    f = decide("cloze-late-sudden", {**PARAMS, "timing": None}, dynamics=t)
    assert f.measured.startswith("not measured: m: left out (no corpus.inject.timing.window")
    f = decide("cloze-late-sudden", dynamics=t[t["step"].isin([2, 1000])])
    assert "1 checkpoint(s) before the late window (step 900 of 1000)" in f.measured


def test_permuted_cloze_labels_deal_the_items_and_planted_timing_is_found():
    """The null deals each checkpoint's correct answers of the late, excerpt and held-out
    plays at random over their items (sizes and totals kept; rarely a verdict); the positive
    plants the run's own gains with the claimed timing: found at the run's 60 items a set,
    hardly at 5; no positive where the training plays gain nothing."""
    table = cloze_curves(**{"timing spread": of(*[40] * 8)})
    d = data(dynamics=table)
    drawn = paper.permuted_cloze_labels(np.random.default_rng(0), d, CAL_PARAMS)["dynamics"]
    key = ["model", "step", "set"]
    merged = drawn.merge(table, on=key, suffixes=("", "_run"))
    assert len(merged) == len(table) and (merged["n"] == merged["n_run"]).all()
    correct = merged.assign(k=merged["value"] * merged["n"], k_run=merged["value_run"] * merged["n"])
    sums = correct.groupby("step")[["k", "k_run"]].sum()
    assert np.allclose(sums["k"], sums["k_run"])
    assert not np.allclose(correct["k"], correct["k_run"])
    r = C.false_verdicts("cloze-late-sudden", paper.permuted_cloze_labels, d, CAL_PARAMS, 200, 0)
    assert r["false_rate"] <= 0.1 and r["false_rate_lo"] <= 0.05
    (positive,) = paper.cloze_timing_positives(d, None, POWER_PARAMS, {})
    assert positive.observed == 60 and positive.sizes == [5, 10, 60]
    high = P.power_at("cloze-late-sudden", positive.build, HOLDS, d, POWER_PARAMS, 60, 20, 0)
    low = P.power_at("cloze-late-sudden", positive.build, HOLDS, d, POWER_PARAMS, 5, 20, 0)
    assert high["power"] >= 0.8 and low["power"] <= 0.2
    flat = cloze_curves(**{"timing spread": of(*HELD)})
    assert paper.cloze_timing_positives(data(dynamics=flat), None, POWER_PARAMS, {}) == []
    # excerpt plays that end at the held-out rate: the training plays' gain rises steadily
    quiet = cloze_curves(excerpt=HELD, **{"timing spread": of(*[40] * 8)})
    plan = paper.planted_timing(paper.cloze_timing_sets(data(dynamics=quiet)), POWER_PARAMS)
    run = paper.planted_timing(table, POWER_PARAMS)
    assert plan["m"]["excerpt"] == plan["m"]["late"] == run["m"]["late"] > 0
    assert run["m"]["excerpt"] != run["m"]["late"]  # the run's own excerpt gain where it has one
    assert paper.permuted_cloze_labels(np.random.default_rng(0), data(), CAL_PARAMS) is None


def test_the_planted_agreement_is_found_and_needs_varying_accuracy():
    """Overlap unrelated to accuracy in the data; the pilot's r planted over the training
    plays (drawn with replacement) is found (holds) at the projected size, and the power grows
    with the plays; without variation in accuracy there is nothing to plant."""
    cloze = cloze_items()
    rng = np.random.default_rng(4)
    cloze["match_fraction"] = rng.random(len(cloze))  # no agreement left in the data
    d = data(cloze=cloze)
    (positive,) = F.CLAIMS["cloze-overlap-correlation"].known_positives(d, None, POWER_PARAMS, {})
    assert positive.name == "planted agreement (r = 0.77)" and positive.right == HOLDS
    assert positive.observed == 12 and positive.sizes == [5, 10, 12]
    tables = positive.build(np.random.default_rng(0), d, POWER_PARAMS, 40)
    s = tables["membership_cloze_summary"]
    assert (s.loc[s["split"] == "train", "r_plays"] == 40).all()
    assert F.CLAIMS["cloze-overlap-correlation"](tables, POWER_PARAMS).verdict == HOLDS
    big = P.power_at("cloze-overlap-correlation", positive.build, HOLDS, d, POWER_PARAMS, 40, 10, 0)
    small = P.power_at("cloze-overlap-correlation", positive.build, HOLDS, d, POWER_PARAMS, 5, 10, 0)
    assert big["power"] >= 0.8 and small["power"] < big["power"], (small, big)
    flat = data(cloze=cloze.assign(correct_insensitive=0))
    assert F.CLAIMS["cloze-overlap-correlation"].known_positives(flat, None, POWER_PARAMS, {}) == []
