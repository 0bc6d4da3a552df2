"""Null calibration of the scorecard's rules (copyscope.report.calibration): the false-verdict
counting (a deliberately bad rule shows a high rate), every claim's nulls, the command, the
workers."""

from __future__ import annotations

import json

import pandas as pd

from copyscope.cli import main
from copyscope.report import calibration as C
from copyscope.report import findings as F
from copyscope.report.findings import li
from support.findings import (
    CAL_PARAMS,
    cloze_items,
    completion_tokens,
    data,
    human_tokens,
)


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
    builder = F.CLAIMS["pure-more-novel-than-validation"].nulls[0].build
    monkeypatch.setitem(F.CLAIMS, "bad", bad_rule)
    bad = C.false_verdicts("bad", builder, data(), CAL_PARAMS, draws=30, seed=0)
    assert bad["false_rate"] == 1.0 and bad["holds"] + bad["does_not_hold"] == 30
    assert 0.88 < bad["false_rate_lo"] < 0.9  # Wilson interval of 30 of 30
    good = C.false_verdicts("pure-more-novel-than-validation", builder, data(), CAL_PARAMS, 30, 0)
    assert good["draws"] == 30 and good["false_rate"] < bad["false_rate"]
    assert good["holds"] + good["does_not_hold"] + good["inconclusive"] == 30


def test_the_same_seed_gives_the_same_counts():
    builder = F.CLAIMS["larger-less-novel"].nulls[0].build
    a = C.false_verdicts("larger-less-novel", builder, data(), CAL_PARAMS, 10, 3)
    assert a == C.false_verdicts("larger-less-novel", builder, data(), CAL_PARAMS, 10, 3)


def test_a_null_without_its_data_is_left_out():
    r = C.false_verdicts("extraction-duplication", li.permuted_copies, data(), CAL_PARAMS, 5, 0)
    assert r is None
    table = C.calibration_table(data(tokens=None), CAL_PARAMS)
    assert table.empty and list(table.columns) == C.COLUMNS


def test_the_command_writes_the_calibration_table(tmp_path):
    tok = tmp_path / "tokens.parquet"
    human_tokens(windows=40).to_parquet(tok)
    index = tmp_path / "index.json"
    index.write_text(json.dumps({"n_tokens": 1000}))
    out = tmp_path / "findings_calibration.csv"
    params = {**CAL_PARAMS, "findings": {**CAL_PARAMS["findings"], "calibration": {"draws": 4, "seed": 0}}}
    argv = ["report", "calibration", "--tokens", "human", "reference", str(tok)]
    argv += ["--index-manifest", "human", str(index), "--params-json", json.dumps(params)]
    assert main([*argv, "--out-csv", str(out)]) == 0
    table = pd.read_csv(out)
    assert list(table.columns) == C.COLUMNS
    assert set(table["claim"]) == {
        "pure-more-novel-than-validation",
        "pure-vs-contaminated-baseline",
        "validation-below-lower-bound",
        "larger-less-novel",
        "constrained-less-novel",
        "constrained-small-n-below-validation",
    }
    assert (table["draws"] == 4).all()
    assert (table["false_rate"] == (table["holds"] + table["does_not_hold"]) / 4).all()
    # the per-item inputs of the later nulls: name cloze items and completion losses
    cloze, comp = tmp_path / "cloze.csv", tmp_path / "completion_loss.parquet"
    cloze_items().to_csv(cloze, index=False)
    completion_tokens(texts=30).drop(columns="model").to_parquet(comp)
    more = ["--cloze", "a", str(cloze), "--completion", "m", str(comp)]
    assert main([*argv, *more, "--out-csv", str(out)]) == 0
    table = pd.read_csv(out).set_index(["claim", "null"])
    # r > 0 is decided against 0: either verdict is false on permuted overlap
    assert table.at[("cloze-overlap-correlation", "permuted overlap"), "false_verdicts"] == (
        "holds, does not hold"
    )
    assert {"mixed", "not_tested"} <= set(table.columns)
    assert ("completion-loss-in-training", "permuted in-training labels") in table.index
    assert ("cloze-training-plays", "permuted plays") in table.index


def test_the_nulls_are_declared_with_their_claims():
    """Every claim's nulls are declared with it (Claim.nulls); the calibration draws those and
    no others: one task per (claim, null), in registry order."""
    assert all(isinstance(n, F.Null) for c in F.CLAIMS.values() for n in c.nulls)
    assert sum(len(c.nulls) for c in F.CLAIMS.values()) >= len(F.CLAIMS)
    assert [c.id for c in F.CLAIMS.values() if not c.nulls] == []


def test_two_processes_draw_the_same_table():
    d = data(tokens=human_tokens(windows=30))
    params = {**CAL_PARAMS, "findings": {**CAL_PARAMS["findings"], "calibration": {"draws": 3, "seed": 0}}}
    one = C.calibration_table(d, params, processes=1)
    two = C.calibration_table(d, params, processes=2)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 6


def test_every_null_has_false_verdicts():
    for c in F.CLAIMS.values():
        for null in c.nulls:
            name, builder, false = null.name, null.build, null.false
            assert name and callable(builder) and false and set(false) <= {F.HOLDS, F.FAILS}


def test_a_dying_worker_does_not_hang_the_calibration(monkeypatch):
    """A worker killed mid-task (a native crash) breaks the executor; the tasks left are drawn
    in the calling process and the results come back complete, in task order."""
    import os

    parent = os.getpid()

    def draw(task):
        if task == ("b", 0) and os.getpid() != parent:
            os._exit(3)
        return task

    monkeypatch.setattr(C, "_draw_null", draw)
    tasks = [("a", 0), ("b", 0), ("c", 0), ("d", 1)]
    assert C._draw_all(tasks, 2) == tasks
    assert C._draw_all(tasks, 1) == tasks


def test_the_command_reads_the_human_words(tmp_path):
    """--samples (the human reference's texts) and --word-tokenizer (the training vocabulary)
    give the novel-words row its two nulls."""
    train = [f"w{a}{b}ord" for a in "abcdefgh" for b in "klmnopqr"]
    words = tmp_path / "words"
    words.mkdir()
    (words / "vocab.json").write_text(json.dumps({"kind": "moses", "words": train}))
    samples = tmp_path / "reference.jsonl"
    lines = []
    for i in range(40):
        text = [train[(7 * i + j) % len(train)] for j in range(20)]
        text += [train[i % len(train)].upper(), "qzx" + "abcdefghij"[i % 10] * (1 + i // 10)]
        lines.append(json.dumps({"text": " ".join(text), "prompt_length": 8}))
    samples.write_text("\n".join(lines) + "\n")
    tok = tmp_path / "tokens.parquet"
    human_tokens(windows=10).to_parquet(tok)
    out = tmp_path / "findings_calibration.csv"
    params = {**CAL_PARAMS, "findings": {**CAL_PARAMS["findings"], "calibration": {"draws": 4, "seed": 0}}}
    argv = ["report", "calibration", "--tokens", "human", "reference", str(tok),
            "--samples", "human", "reference", str(samples), "--word-tokenizer", "words",
            str(words), "--params-json", json.dumps(params), "--out-csv", str(out)]  # fmt: skip
    assert main(argv) == 0
    table = pd.read_csv(out).set_index(["claim", "null"])
    rows = table.loc["novel-words-well-formed"]
    assert list(rows.index) == ["human halves", "human halves, effect = margin"]
    assert (rows["draws"] == 4).all() and list(rows["false_verdicts"]) == ["does not hold", "holds"]
