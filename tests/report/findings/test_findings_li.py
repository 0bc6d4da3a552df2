"""Li's and the memorization and contamination claims (copyscope.report.findings.li): each rule
on synthetic tables whose verdict is known, its nulls and its known positives (the ladder, the
planted items)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope.report import calibration as C
from copyscope.report import findings as F
from copyscope.report import membership as membership_report
from copyscope.report import power as P
from copyscope.report.findings import li as paper
from copyscope.report.memorization import memorization_table
from support.findings import (
    CAL_PARAMS,
    FAILS,
    HOLDS,
    POWER_PARAMS,
    UNCLEAR,
    data,
    decide,
    ladder_results,
)


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


def test_permuted_copies_break_the_ladder():
    frame = ladder_results()
    real = F.CLAIMS["extraction-duplication"](
        {"memorization": memorization_table(frame, 200, 0)}, CAL_PARAMS
    )
    assert real.verdict == F.HOLDS  # the planted effect is found ...
    r = C.false_verdicts(
        "extraction-duplication", paper.permuted_copies, data(extraction=frame), CAL_PARAMS, 30, 0
    )
    assert r["holds"] <= 3  # ... and rarely once the copy counts are permuted
    table = paper.permuted_copies(np.random.default_rng(0), data(extraction=frame), CAL_PARAMS)
    assert sorted(table["memorization"]["n"]) == [20, 20, 20, 20]


def detector_texts(n: int, effect: float, noise: float) -> pd.DataFrame:
    """A contamination set of ``n`` items of one model, half planted: the loss lower by
    ``effect`` for planted items, Min-K% the loss plus normal noise of sd ``noise``."""
    rng = np.random.default_rng(0)
    planted = np.repeat([1, 0], n // 2)
    loss = rng.normal(5.0, 0.3, n) - effect * planted
    return pd.DataFrame(
        {"model": "m", "set": "contamination", "id": range(n), "planted": planted, "loss": loss,
         "min_k_20": loss + rng.normal(0, noise, n) if noise else loss}
    )  # fmt: skip


def test_permuted_membership_rows_are_the_min_k_rule_input():
    texts = detector_texts(40, 0.5, 0.1)
    tables = paper.permuted_membership(np.random.default_rng(1), data(membership=texts), CAL_PARAMS)
    d = tables["membership_detectors"].set_index("detector")
    assert list(d.index) == ["loss", "min_k_20"] and d.at["loss", "delta_auc_vs_loss"] == 0.0
    assert 0.2 < d.at["min_k_20", "auc"] < 0.8  # the labels no longer mean membership
    r = C.false_verdicts(
        "min-k-beats-loss", paper.permuted_membership, data(membership=texts), CAL_PARAMS, 20, 0
    )
    assert r["draws"] == 20


def test_shi_et_al_gain_planted_is_the_min_k_rows_known_positive():
    """The positive moves planted items above every unplanted one with the probability that
    makes Min-K%'s AUC exceed the loss's by 0.074 in expectation: over many draws the mean ΔAUC
    is that gain, the rule holds on most draws at 100 items per class, and a gain of 0 leaves
    Min-K% equal to the loss (never holds)."""
    d = data(membership=detector_texts(64, 0.3, 0.0))
    (positive,) = F.CLAIMS["min-k-beats-loss"].known_positives(d, None, POWER_PARAMS, {})
    assert positive.right == HOLDS and positive.observed == 32 and 32 in positive.sizes
    assert positive.name == "Shi et al.'s gain planted (ΔAUC 0.074)"
    gains = []
    for i in range(200):
        t = positive.build(np.random.default_rng(i), d, POWER_PARAMS, 32)["membership_detectors"]
        r = t.set_index("detector")
        gains.append(r.at["min_k_20", "auc"] - r.at["loss", "auc"])
        assert r.at["min_k_20", "delta_auc_vs_loss"] == pytest.approx(gains[-1])
    assert np.mean(gains) == pytest.approx(paper.SHI_GAIN, abs=0.01)
    assert min(gains) >= 0  # moving members up never lowers the AUC
    power = P.power_at("min-k-beats-loss", positive.build, HOLDS, d, POWER_PARAMS, 100, 20, 0)
    assert power["power"] >= 0.5
    none = paper.planted_min_k_gain(0.0)(np.random.default_rng(0), d, POWER_PARAMS, 32)
    r = none["membership_detectors"].set_index("detector")
    assert r.at["min_k_20", "auc"] == r.at["loss", "auc"]
    assert F.CLAIMS["min-k-beats-loss"](none, POWER_PARAMS).verdict != HOLDS


def contamination_texts(n=40, effect=0.5, seed=0) -> pd.DataFrame:
    """A contamination set of ``n`` items, half planted, whose planted items' Li NLL is lower
    by ``effect`` nats."""
    rng = np.random.default_rng(seed)
    planted = np.repeat([1, 0], n // 2)
    nll = rng.normal(5.0, 0.3, n) - effect * planted
    return pd.DataFrame(
        {"model": "m", "set": "contamination", "id": range(n), "planted": planted,
         "copies": np.where(planted == 1, 4, 0), "li_nll": nll, "loss": nll,
         "min_k_20": nll + rng.normal(0, 0.1, n)}
    )  # fmt: skip


def test_permuted_placement_breaks_li_placement():
    texts = contamination_texts()
    real = F.CLAIMS["benchmark-placement"](
        {"membership_nll_delta": membership_report.nll_delta_rows(texts, 200, 0)}, CAL_PARAMS
    )
    assert real.verdict == F.HOLDS  # the planted effect is found ...
    tables = paper.permuted_placement(np.random.default_rng(1), data(membership=texts), CAL_PARAMS)
    d = tables["membership_nll_delta"].set_index("contrast")
    assert d.at["unplanted - planted", "n_a"] == d.at["unplanted - planted", "n_b"] == 20
    r = C.false_verdicts(
        "benchmark-placement", paper.permuted_placement, data(membership=texts), CAL_PARAMS, 40, 0
    )
    assert r["holds"] + r["does_not_hold"] <= 6  # ... and rarely once the labels are permuted


def looked_up_items(n: int = 30) -> pd.DataFrame:
    """The planted set's looked-up items: ``n`` planted ones all flagged by both rules, ``n``
    unplanted ones none, plus memorised / clean baselines the null leaves out."""
    from copyscope.report import contamination as R

    rows = [
        {"benchmark": R.PLANTED, "group": g, "id": f"{g}-{i}",
         "dirty_ngram": int(g in ("planted", "memorised")),
         "dirty_chars": int(g in ("planted", "memorised"))}
        for g in ("planted", "unplanted", "memorised", "clean") for i in range(n)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_the_contamination_null_permutes_the_planted_labels():
    from copyscope.report import contamination as R

    items = looked_up_items()
    real = {"contamination_known": R.known_rows(items)}
    assert F.CLAIMS["contamination-lookup"](real, CAL_PARAMS).verdict == F.HOLDS
    out = paper.permuted_contamination(np.random.default_rng(0), data(contamination=items), CAL_PARAMS)
    known = out["contamination_known"]
    # only the planted / unplanted pair, the same counts of flagged items in all
    assert set(known["positive"]) == {"planted"} and set(known["rule"]) == {"ngram", "chars"}
    assert ((known["tp"] + known["fp"]) == 30).all() and ((known["tp"] + known["fn"]) == 30).all()
    false = F.CLAIMS["contamination-lookup"].nulls[0].false
    r = C.false_verdicts(
        "contamination-lookup", paper.permuted_contamination, data(contamination=items), CAL_PARAMS,
        20, 0, false,
    )
    assert r["holds"] + r["does_not_hold"] <= 3  # rarely a verdict once the labels are permuted
    assert paper.permuted_contamination(np.random.default_rng(0), data(), CAL_PARAMS) is None
    only_planted = items[items["group"] != "unplanted"]
    assert paper.permuted_contamination(np.random.default_rng(0), data(contamination=only_planted),
                                    CAL_PARAMS) is None  # fmt: skip


def test_the_planted_items_resampled_are_the_lookup_rows_known_positive():
    """The positive resamples the planted set's two groups with their own lookups: where the
    planted items are flagged and the held-out ones not, the row holds at the run's items
    (power 1); where both groups are flagged alike, it does not reach "holds" (the positive
    only carries the data's answer); without unplanted items there is no positive."""
    items = looked_up_items(n=12)
    d = data(contamination=items)
    (positive,) = F.CLAIMS["contamination-lookup"].known_positives(d, None, POWER_PARAMS, {})
    assert positive.right == HOLDS and positive.observed == 12 and 12 in positive.sizes
    tables = positive.build(np.random.default_rng(0), d, POWER_PARAMS, 12)
    known = tables["contamination_known"]
    assert ((known["tp"] + known["fn"]) == 12).all() and ((known["fp"] + known["tn"]) == 12).all()
    r = P.power_at("contamination-lookup", positive.build, HOLDS, d, POWER_PARAMS, 12, 10, 0)
    assert r["power"] == 1.0
    alike = items.assign(dirty_ngram=1, dirty_chars=1)
    r = P.power_at("contamination-lookup", positive.build, HOLDS, data(contamination=alike),
                   POWER_PARAMS, 12, 10, 0)  # fmt: skip
    assert r["power"] == 0.0
    only_planted = items[items["group"] != "unplanted"]
    assert F.CLAIMS["contamination-lookup"].known_positives(
        data(contamination=only_planted), None, POWER_PARAMS, {}
    ) == []


def test_the_ladder_resampled_keeps_its_rungs():
    frame = ladder_results(per=6)
    tables = paper.ladder_resample(np.random.default_rng(0), data(extraction=frame), POWER_PARAMS, 4)
    mem = tables["memorization"]
    assert sorted(mem["copies"]) == [0, 1, 16, 256] and (mem["n"] == 4).all()


def test_the_benchmark_resampled_finds_the_planted_items():
    texts = contamination_texts(n=60, effect=0.6)
    tables = paper.contamination_resample(np.random.default_rng(0), data(membership=texts), POWER_PARAMS, 7)
    d = tables["membership_nll_delta"].set_index("contrast")
    assert d.at["unplanted - planted", "n_a"] == d.at["unplanted - planted", "n_b"] == 7
    big = P.power_at("benchmark-placement", paper.contamination_resample, F.HOLDS,
                     data(membership=texts), POWER_PARAMS, 30, 10, 0)  # fmt: skip
    # a control: unplanted items with exactly the planted items' NLLs
    same = texts.assign(li_nll=np.tile(texts["li_nll"].to_numpy()[:30], 2))
    none = P.power_at("benchmark-placement", paper.contamination_resample, F.HOLDS,
                      data(membership=same), POWER_PARAMS, 30, 20, 0)  # fmt: skip
    assert big["power"] >= 0.9 and none["power"] <= 0.15


def test_the_ladder_is_projected_beyond_the_runs_own_size():
    d = data(extraction=ladder_results(per=6))
    params = {**POWER_PARAMS, "findings": {**POWER_PARAMS["findings"],
              "power": {**POWER_PARAMS["findings"]["power"], "sizes": [4, 12]}}}  # fmt: skip
    table = P.power_table(d, None, params)
    assert table["size"].tolist() == [4, 6, 12] and (table["observed"] == 6).all()
    # the scorecard's column: the run's own size, and the projected size reaching 0.8
    fake = table.assign(power=[0.2, 0.5, 0.9])
    text = F.power_column(["extraction-duplication"], fake).iloc[0]
    assert text == "planted ladder: 0.5 at 6; 0.8 from 12 (projected)"
    # no projected size reaches it: said, so a reader does not take more passages as the fix
    flat = table.assign(power=[0.0, 0.0, 0.1])
    text = F.power_column(["extraction-duplication"], flat).iloc[0]
    assert text == "planted ladder: 0 at 6; below 0.8 even at 12 (projected)"
    # the run's own size is the largest: nothing projected, nothing said
    own = table[table["size"] <= 6].assign(power=[0.0, 0.1])
    assert F.power_column(["extraction-duplication"], own).iloc[0] == "planted ladder: 0.1 at 6"


# -------------------------------------------------------------------- Li's per-format finding
BENCHES = (("squad", "qa", 1.0), ("xsum", "summarization", 1.0), ("plain", "text", 1.0))


def own_scores(mc_gap=0.0, per=20, seed=0, benches=BENCHES, labelled=True) -> pd.DataFrame:
    """Per-item own-benchmark scores of one model: benchmarks (name, format, gap) whose
    members' NLL is ``gap`` nats lower than their non-members' (level 4, noise 0.3), a
    multiple-choice one (level 6) whose members' is ``mc_gap`` lower, ``per`` members and
    non-members each, and the corpus baselines."""
    rng = np.random.default_rng(seed)
    rows = []
    for bench, fmt, gap in (*benches, ("mmlu", "multiple_choice", mc_gap)):
        level = 6.0 if fmt == "multiple_choice" else 4.0
        for label in (1, 0):
            for i in range(per):
                rows.append({"model": "m", "benchmark": bench, "format": fmt, "set": "benchmark",
                             "id": f"{label}-{i}", "label": label if labelled else None,
                             "li_nll": level - gap * label + rng.normal(0, 0.3)})  # fmt: skip
        for s, v in (("memorised", 2.0), ("clean", 4.0)):
            rows += [{"model": "m", "benchmark": bench, "format": fmt, "set": s, "id": f"{s}{i}",
                      "label": int(s == "memorised"), "li_nll": v + rng.normal(0, 0.3)}
                     for i in range(per)]  # fmt: skip
    frame = pd.DataFrame(rows)
    return frame.assign(label=frame["label"].astype("Int64"))


@pytest.mark.parametrize(
    "mc_gap, verdict",
    [
        (0.0, HOLDS),  # multiple choice separated less: Li's pattern
        (2.0, FAILS),  # multiple choice separated more
        (1.0, UNCLEAR),  # as well, at another NLL level
    ],
)
def test_format_memorisation(mc_gap, verdict):
    f = decide("format-memorisation", own_benchmark_scores=own_scores(mc_gap))
    assert f.verdict == verdict, f.measured
    assert f.measured.startswith("m: squad (reading comprehension) 1.0")
    assert "(p↑ 0.0002, 20 + 20 items) vs mmlu (multiple choice) " in f.measured
    assert "xsum (summarisation)" in f.measured and "plain" not in f.measured
    assert f.measured.count("vs mmlu (multiple choice)") == 2  # squad and xsum against it
    assert "§4" in f.where and "known" in f.rule and "Freedman" in f.rule


def test_format_memorisation_reads_the_items_as_the_table_has_them():
    """The scores table as read back from its .csv: labels as floats, the baselines'
    missing; an unlabelled benchmark of Li's formats is left out."""
    scores = pd.concat([own_scores(0.0, benches=BENCHES[:1]),
                        own_scores(0.0, benches=(("squad2", "qa", 1.0),), labelled=False)
                        .query("benchmark == 'squad2'")])  # fmt: skip
    scores = scores.assign(label=scores["label"].astype(float))
    f = decide("format-memorisation", own_benchmark_scores=scores)
    assert f.verdict == HOLDS and "squad2" not in f.measured, f.measured


def test_format_memorisation_needs_the_formats():
    """Without labelled own benchmarks (the tables of a run without any are empty): not
    tested here; so without multiple choice, or without reading comprehension and
    summarisation; where the reading-comprehension members are less familiar: does not
    hold."""
    empty = own_scores().iloc[:0]
    f = decide("format-memorisation", own_benchmark_scores=empty)
    assert f.verdict == F.NOT_TESTED and "analysis.membership.benchmarks" in f.measured
    no_mc = own_scores().query("format != 'multiple_choice'")
    assert decide("format-memorisation", own_benchmark_scores=no_mc).verdict == F.NOT_TESTED
    only_mc = own_scores(benches=(("plain", "text", 1.0),))
    assert decide("format-memorisation", own_benchmark_scores=only_mc).verdict == F.NOT_TESTED
    wrong = own_scores(0.0, benches=(("squad", "qa", -1.0),))
    assert decide("format-memorisation", own_benchmark_scores=wrong).verdict == FAILS
    assert decide("format-memorisation").verdict == UNCLEAR  # no tables: not measured


def test_the_format_null_and_positive():
    """Permuted labels separate no format (few false verdicts); with the multiple-choice labels
    permuted, the reading-comprehension members (1 nat apart) are separated more: holds."""
    d = data(own_scores=own_scores(mc_gap=1.0, benches=BENCHES[:1]))
    real = {"own_benchmark_scores": d.own_scores}
    assert decide("format-memorisation", CAL_PARAMS, **real).verdict == UNCLEAR  # equal gaps
    (null,) = F.CLAIMS["format-memorisation"].nulls
    r = C.false_verdicts("format-memorisation", null.build, d, CAL_PARAMS, 20, 0, null.false)
    assert r["draws"] == 20 and r["false_rate"] <= 0.15, r
    (positive,) = paper.format_positives(d, None, POWER_PARAMS, {})
    assert positive.right == HOLDS and positive.observed == 20
    tables = positive.build(np.random.default_rng(0), d, POWER_PARAMS, 20)
    assert decide("format-memorisation", POWER_PARAMS, **tables).verdict == HOLDS
    assert paper.format_positives(data(), None, POWER_PARAMS, {}) == []
    assert null.build(np.random.default_rng(0), data(), CAL_PARAMS) is None
