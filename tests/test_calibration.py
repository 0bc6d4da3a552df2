"""Null calibration of the scorecard's rules: the splitting, the false-verdict counting (a
deliberately bad rule shows a high rate, the scorecard's rule a low one on the same null), the
permutation nulls and the command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from copyscope.cli import main
from copyscope.report import calibration as C
from copyscope.report import findings as F
from test_findings import PARAMS as FINDINGS_PARAMS

PARAMS = {
    **FINDINGS_PARAMS,
    "findings": {**FINDINGS_PARAMS["findings"], "calibration": {"draws": 30, "seed": 0}},
    "novelty": {
        "n_max": 10,
        "bootstrap": 200,
        "seed": 0,
        "lower_bound": {"p": 0.9, "bits_per_token": 1.8},
    },
    "analysis": {
        **FINDINGS_PARAMS["analysis"],
        "memorization": {"bootstrap": 200, "seed": 0},
        "membership": {"bootstrap": 200, "seed": 0},
    },
}


def human_tokens(windows=120, length=40, seed=1) -> pd.DataFrame:
    """Per-token L_t of ``windows`` human continuations, i.i.d. across windows (a true null
    for any split), at the main prompt length."""
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(windows):
        L = np.minimum(rng.geometric(0.35, size=length), np.arange(1, length + 1))
        rows.append(
            pd.DataFrame({"text": w, "window": w, "prompt_length": 8, "t": range(length), "L": L})
        )
    return pd.concat(rows, ignore_index=True)


def data(**kw) -> C.Data:
    base = {
        "tokens": human_tokens(),
        "words": None,
        "quality": None,
        "corpus_size": 10**6,
        "extraction": None,
        "membership": None,
    }
    return C.Data(**(base | kw))


def test_split_windows_partitions_them():
    rng = np.random.default_rng(0)
    parts = C.split_windows(np.repeat(np.arange(11), 3), 3, rng)
    assert sorted(np.concatenate(parts).tolist()) == list(range(11))
    assert sorted(len(p) for p in parts) == [3, 4, 4]
    again = C.split_windows(np.repeat(np.arange(11), 3), 3, np.random.default_rng(0))
    assert all((a == b).all() for a, b in zip(parts, again, strict=True))


def test_human_halves_build_the_rules_tables():
    tables = C.human_halves_novelty("pure-more-novel-than-validation")(
        np.random.default_rng(0), data(), PARAMS
    )
    t = tables["novelty_samples"]
    assert set(t["source"]) == {"natural"}  # only the source the claim reads
    assert set(zip(t["model"], t["decoding"], strict=True)) == {
        ("human", "reference"),
        ("null", "pure"),
    }
    nnsl = tables["nnsl_samples"]
    assert sorted(nnsl["texts"]) == [60, 60]


def bad_rule(tables, params):
    """A deliberately bad rule: "holds" whenever the model's point estimate of novelty(1)
    exceeds the human one, "does not hold" otherwise — no interval at all."""
    t = tables["novelty_samples"]
    t = t[t["n"] == 1]
    model = t.loc[t["model"] != "human", "novelty"].iloc[0]
    human = t.loc[t["model"] == "human", "novelty"].iloc[0]
    verdict = F.HOLDS if model > human else F.FAILS
    return F.Finding("bad", "", "", "", "", "", "", "", verdict)


def test_a_bad_rule_shows_a_high_false_verdict_rate(monkeypatch):
    builder = C.human_halves_novelty("pure-more-novel-than-validation")
    monkeypatch.setitem(F.CLAIMS, "bad", bad_rule)
    bad = C.false_verdicts("bad", builder, data(), PARAMS, draws=30, seed=0)
    assert bad["false_rate"] == 1.0 and bad["holds"] + bad["does_not_hold"] == 30
    assert 0.88 < bad["false_lo"] < 0.9  # Wilson interval of 30 of 30
    good = C.false_verdicts("pure-more-novel-than-validation", builder, data(), PARAMS, 30, 0)
    assert good["draws"] == 30 and good["false_rate"] < bad["false_rate"]
    assert good["holds"] + good["does_not_hold"] + good["inconclusive"] == 30


def test_the_same_seed_gives_the_same_counts():
    builder = C.human_halves_novelty("larger-less-novel")
    a = C.false_verdicts("larger-less-novel", builder, data(), PARAMS, 10, 3)
    assert a == C.false_verdicts("larger-less-novel", builder, data(), PARAMS, 10, 3)


def ladder_results(copies=(0, 1, 16, 256), per=20, seed=0) -> pd.DataFrame:
    """Per-passage extraction results whose exact extraction grows with the copies."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in copies:
        p = {0: 0.0, 1: 0.0, 16: 0.3, 256: 0.9}[c]
        for i in range(per):
            e = int(rng.random() < p)
            rows.append({"model": "m", "passage": f"p{c}-{i}", "copies": c, "exact": e}
                        | {"match_fraction": e, "lcp": 32 * e})  # fmt: skip
    return pd.DataFrame(rows)


def test_permuted_copies_break_the_ladder():
    frame = ladder_results()
    real = F.CLAIMS["extraction-duplication"](
        {"memorization": C.memorization_table(frame, 200, 0)}, PARAMS
    )
    assert real.verdict == F.HOLDS  # the planted effect is found ...
    r = C.false_verdicts(
        "extraction-duplication", C.permuted_copies, data(extraction=frame), PARAMS, 30, 0
    )
    assert r["holds"] <= 3  # ... and rarely once the copy counts are permuted
    table = C.permuted_copies(np.random.default_rng(0), data(extraction=frame), PARAMS)
    assert sorted(table["memorization"]["n"]) == [20, 20, 20, 20]


def test_permuted_membership_rows_are_the_min_k_rule_input():
    rng = np.random.default_rng(0)
    n = 40
    planted = np.repeat([1, 0], n // 2)
    loss = rng.normal(5.0, 0.3, n) - 0.5 * planted
    texts = pd.DataFrame(
        {"model": "m", "set": "benchmark", "id": range(n), "planted": planted, "loss": loss,
         "min_k_20": loss + rng.normal(0, 0.1, n)}
    )  # fmt: skip
    tables = C.permuted_membership(np.random.default_rng(1), data(membership=texts), PARAMS)
    d = tables["membership_detectors"].set_index("detector")
    assert list(d.index) == ["loss", "min_k_20"] and d.at["loss", "delta_auc_vs_loss"] == 0.0
    assert 0.2 < d.at["min_k_20", "auc"] < 0.8  # the labels no longer mean membership
    r = C.false_verdicts(
        "min-k-beats-loss", C.permuted_membership, data(membership=texts), PARAMS, 20, 0
    )
    assert r["draws"] == 20


def benchmark_texts(n=40, effect=0.5, seed=0) -> pd.DataFrame:
    """A contamination set of ``n`` items, half planted, whose planted items' Li NLL is lower
    by ``effect`` nats."""
    rng = np.random.default_rng(seed)
    planted = np.repeat([1, 0], n // 2)
    nll = rng.normal(5.0, 0.3, n) - effect * planted
    return pd.DataFrame(
        {"model": "m", "set": "benchmark", "id": range(n), "planted": planted,
         "copies": np.where(planted == 1, 4, 0), "li_nll": nll, "loss": nll,
         "min_k_20": nll + rng.normal(0, 0.1, n)}
    )  # fmt: skip


def test_permuted_placement_breaks_li_placement():
    texts = benchmark_texts()
    real = F.CLAIMS["benchmark-placement"](
        {"membership_nll_delta": C.membership_report.nll_delta_rows(texts, 200, 0)}, PARAMS
    )
    assert real.verdict == F.HOLDS  # the planted effect is found ...
    tables = C.permuted_placement(np.random.default_rng(1), data(membership=texts), PARAMS)
    d = tables["membership_nll_delta"].set_index("contrast")
    assert d.at["unplanted - planted", "n_a"] == d.at["unplanted - planted", "n_b"] == 20
    r = C.false_verdicts(
        "benchmark-placement", C.permuted_placement, data(membership=texts), PARAMS, 40, 0
    )
    assert r["holds"] + r["does_not_hold"] <= 6  # ... and rarely once the labels are permuted


def test_a_null_without_its_data_is_left_out():
    r = C.false_verdicts("extraction-duplication", C.permuted_copies, data(), PARAMS, 5, 0)
    assert r is None
    table = C.calibration_table(data(tokens=None), PARAMS)
    assert table.empty and list(table.columns) == C.COLUMNS


def test_the_command_writes_the_calibration_table(tmp_path):
    tok = tmp_path / "tokens.parquet"
    human_tokens(windows=40).to_parquet(tok)
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"n_tokens": 1000}))
    out = tmp_path / "findings_calibration.csv"
    params = {**PARAMS, "findings": {**PARAMS["findings"], "calibration": {"draws": 4, "seed": 0}}}
    argv = ["report", "calibration", "--tokens", "human", "reference", str(tok)]
    argv += ["--index-manifest", "human", str(index), "--params-json", json.dumps(params)]
    assert main([*argv, "--out-csv", str(out)]) == 0
    table = pd.read_csv(out)
    assert list(table.columns) == C.COLUMNS
    assert set(table["claim"]) == {
        "pure-more-novel-than-validation",
        "pure-vs-contaminated-baseline",
        "larger-less-novel",
        "constrained-less-novel",
        "constrained-small-n-below-validation",
    }
    assert (table["draws"] == 4).all()
    assert (table["false_rate"] == (table["holds"] + table["does_not_hold"]) / 4).all()


@pytest.mark.parametrize("claim", sorted(C.NULLS))
def test_every_null_belongs_to_a_claim(claim):
    assert claim in F.CLAIMS


def test_the_shortened_curves_equal_the_full_ones():
    """The nulls build novelty(n) only up to findings.n_max: the same values and intervals as
    the full curve's first points (the bootstrap resamples whole texts)."""
    tok = human_tokens(windows=30)
    sets = [("human", "reference", tok)]
    short = C.novelty_nulls(sets, data(), PARAMS)["novelty_samples"]
    short = short[short["source"] == "all"].reset_index(drop=True)
    full, _ = C.rusty_dawg.build(sets, {"human": 10**6}, PARAMS["novelty"], {})
    assert len(short) == PARAMS["findings"]["n_max"] < len(full)
    cols = ["n", "novelty", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(short[cols], full[cols].iloc[: len(short)])


def test_two_processes_draw_the_same_table():
    d = data(tokens=human_tokens(windows=30))
    params = {**PARAMS, "findings": {**PARAMS["findings"], "calibration": {"draws": 3, "seed": 0}}}
    one = C.calibration_table(d, params, processes=1)
    two = C.calibration_table(d, params, processes=2)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 5
