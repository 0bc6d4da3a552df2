"""Null calibration of the scorecard's rules: the splitting, the false-verdict counting (a
deliberately bad rule shows a high rate, the scorecard's rule a low one on the same null), the
permutation nulls and the command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from test_findings import PARAMS as FINDINGS_PARAMS

from copyscope.cli import main
from copyscope.report import calibration as C
from copyscope.report import findings as F
from copyscope.report import nulls as N

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
    parts = N.split_windows(np.repeat(np.arange(11), 3), 3, rng)
    assert sorted(np.concatenate(parts).tolist()) == list(range(11))
    assert sorted(len(p) for p in parts) == [3, 4, 4]
    again = N.split_windows(np.repeat(np.arange(11), 3), 3, np.random.default_rng(0))
    assert all((a == b).all() for a, b in zip(parts, again, strict=True))


def test_human_halves_build_the_rules_tables():
    tables = N.human_halves_novelty("pure-more-novel-than-validation")(
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
    builder = N.human_halves_novelty("pure-more-novel-than-validation")
    monkeypatch.setitem(F.CLAIMS, "bad", bad_rule)
    bad = C.false_verdicts("bad", builder, data(), PARAMS, draws=30, seed=0)
    assert bad["false_rate"] == 1.0 and bad["holds"] + bad["does_not_hold"] == 30
    assert 0.88 < bad["false_rate_lo"] < 0.9  # Wilson interval of 30 of 30
    good = C.false_verdicts("pure-more-novel-than-validation", builder, data(), PARAMS, 30, 0)
    assert good["draws"] == 30 and good["false_rate"] < bad["false_rate"]
    assert good["holds"] + good["does_not_hold"] + good["inconclusive"] == 30


def test_the_same_seed_gives_the_same_counts():
    builder = N.human_halves_novelty("larger-less-novel")
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
        {"memorization": N.memorization_table(frame, 200, 0)}, PARAMS
    )
    assert real.verdict == F.HOLDS  # the planted effect is found ...
    r = C.false_verdicts(
        "extraction-duplication", N.permuted_copies, data(extraction=frame), PARAMS, 30, 0
    )
    assert r["holds"] <= 3  # ... and rarely once the copy counts are permuted
    table = N.permuted_copies(np.random.default_rng(0), data(extraction=frame), PARAMS)
    assert sorted(table["memorization"]["n"]) == [20, 20, 20, 20]


def test_permuted_membership_rows_are_the_min_k_rule_input():
    rng = np.random.default_rng(0)
    n = 40
    planted = np.repeat([1, 0], n // 2)
    loss = rng.normal(5.0, 0.3, n) - 0.5 * planted
    texts = pd.DataFrame(
        {"model": "m", "set": "contamination", "id": range(n), "planted": planted, "loss": loss,
         "min_k_20": loss + rng.normal(0, 0.1, n)}
    )  # fmt: skip
    tables = N.permuted_membership(np.random.default_rng(1), data(membership=texts), PARAMS)
    d = tables["membership_detectors"].set_index("detector")
    assert list(d.index) == ["loss", "min_k_20"] and d.at["loss", "delta_auc_vs_loss"] == 0.0
    assert 0.2 < d.at["min_k_20", "auc"] < 0.8  # the labels no longer mean membership
    r = C.false_verdicts(
        "min-k-beats-loss", N.permuted_membership, data(membership=texts), PARAMS, 20, 0
    )
    assert r["draws"] == 20


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
        {"membership_nll_delta": N.membership_report.nll_delta_rows(texts, 200, 0)}, PARAMS
    )
    assert real.verdict == F.HOLDS  # the planted effect is found ...
    tables = N.permuted_placement(np.random.default_rng(1), data(membership=texts), PARAMS)
    d = tables["membership_nll_delta"].set_index("contrast")
    assert d.at["unplanted - planted", "n_a"] == d.at["unplanted - planted", "n_b"] == 20
    r = C.false_verdicts(
        "benchmark-placement", N.permuted_placement, data(membership=texts), PARAMS, 40, 0
    )
    assert r["holds"] + r["does_not_hold"] <= 6  # ... and rarely once the labels are permuted


def test_a_null_without_its_data_is_left_out():
    r = C.false_verdicts("extraction-duplication", N.permuted_copies, data(), PARAMS, 5, 0)
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


@pytest.mark.parametrize("claim", sorted(C.NULLS))
def test_every_null_belongs_to_a_claim(claim):
    assert claim in F.CLAIMS


def test_the_shortened_curves_equal_the_full_ones():
    """The nulls build novelty(n) only up to findings.n_max: the same values and intervals as
    the full curve's first points (the bootstrap resamples whole texts)."""
    tok = human_tokens(windows=30)
    sets = [("human", "reference", tok)]
    short = N.novelty_nulls(sets, data(), PARAMS)["novelty_samples"]
    short = short[short["source"] == "all"].reset_index(drop=True)
    full, _ = N.novelty_report.build(sets, {"human": 10**6}, PARAMS["novelty"], {})
    assert len(short) == PARAMS["findings"]["n_max"] < len(full)
    cols = ["n", "novelty", "novelty_lo", "novelty_hi"]
    pd.testing.assert_frame_equal(short[cols], full[cols].iloc[: len(short)])


def test_two_processes_draw_the_same_table():
    d = data(tokens=human_tokens(windows=30))
    params = {**PARAMS, "findings": {**PARAMS["findings"], "calibration": {"draws": 3, "seed": 0}}}
    one = C.calibration_table(d, params, processes=1)
    two = C.calibration_table(d, params, processes=2)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 5


# --------------------------------------------------------------------------- the added nulls
def verdict_rule(table: str, statistic, cut: float = 0.0):
    """A deliberately bad rule: ``holds`` when ``statistic(tables[table])`` exceeds ``cut``,
    ``does not hold`` otherwise — a point estimate, no interval, so it always decides."""

    def rule(tables, params):
        v = F.HOLDS if statistic(tables[table]) > cut else F.FAILS
        return F.Finding("bad", "", "", "", "", "", "", "", v)

    return rule


def completion_tokens(texts=80, length=40, effect=1.0, slope=0.0, seed=0) -> pd.DataFrame:
    """Per-token L_t, C_t and loss of one model on ``texts`` held-out texts: a token that
    extends the previous match (it completes an n-gram seen in training) has its loss lowered
    by ``effect``; the loss falls by ``slope`` per decade of C_t."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(texts):
        L = np.ones(length, dtype=np.int64)  # a match grows by one or starts anew
        for t, grow in enumerate(rng.random(length - 1) < 0.7, start=1):
            L[t] = min(L[t - 1] + 1, 6) if grow else rng.integers(0, 3)
        C = 10 ** rng.uniform(0, 3, size=length)
        extends = np.r_[False, L[1:] == L[:-1] + 1]
        loss = 4 + rng.normal(0, 0.5, length) - effect * extends - slope * np.log10(C)
        rows.append(pd.DataFrame({"text": d, "window": d, "prompt_length": 8, "t": range(length),
                                  "L": L, "C": C, "loss": loss, "model": "m"}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def test_permuted_in_training_labels_break_the_completion_loss_gap():
    tok = completion_tokens()
    real = N.completion_report.build([("m", tok)])
    assert F.CLAIMS["completion-loss-in-training"]({"completion_loss": real}, PARAMS).verdict == (
        F.HOLDS
    )  # the planted gap is found ...
    d = data(completion=tok)
    null = N.permuted_in_training(np.random.default_rng(0), d, PARAMS)["completion_loss"]
    two = real[real["curve"].isin(["in training", "not in training"])]
    key = ["curve", "x"]
    # the labels move only among the tokens of one x: every point keeps its token count
    pd.testing.assert_frame_equal(
        two.groupby("x")["tokens"].sum().reset_index(),
        null.groupby("x")["tokens"].sum().reset_index(),
    )
    assert len(null.merge(two, on=key)) == len(two)
    r = C.false_verdicts("completion-loss-in-training", N.permuted_in_training, d, PARAMS, 30, 0)
    assert r["false_rate"] <= 0.1  # ... and rarely once the labels are permuted


def test_a_bad_completion_rule_is_caught(monkeypatch):
    def gap(t):
        c = t[t["x"] == t["x"].min()].set_index("curve")["loss"]
        return c["not in training"] - c["in training"]

    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("completion_loss", gap))
    d = data(completion=completion_tokens(texts=30))
    r = C.false_verdicts("bad", N.permuted_in_training, d, PARAMS, 20, 0)
    assert r["false_rate"] == 1.0


def test_shuffled_counts_break_the_frequency_slope(monkeypatch):
    tok = completion_tokens(effect=0.0, slope=0.5)
    novelty = PARAMS["novelty"]
    real = N.completion_report.build_slope([("m", tok)], novelty)
    table = {"completion_loss_slope": real}
    assert F.CLAIMS["completion-loss-frequency"](table, PARAMS).verdict == F.HOLDS
    d = data(completion=tok)
    null = N.shuffled_counts(np.random.default_rng(0), d, PARAMS)["completion_loss_slope"]
    pd.testing.assert_series_equal(null["tokens"], real["tokens"])  # the same tokens ...
    assert abs(null.loc[null["n"] == 4, "slope"].iloc[0]) < 0.2  # ... no slope left
    r = C.false_verdicts("completion-loss-frequency", N.shuffled_counts, d, PARAMS, 30, 0)
    assert r["false_rate"] <= 0.1
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("completion_loss_slope",
                                                      lambda t: -t["slope"].iloc[0]))  # fmt: skip
    assert C.false_verdicts("bad", N.shuffled_counts, d, PARAMS, 20, 0)["false_rate"] == 1.0


def test_shuffled_counts_move_counts_only_among_tokens_of_one_length():
    tok = completion_tokens(texts=10)
    out = N.shuffled_counts(np.random.default_rng(3), data(completion=tok), PARAMS)
    assert out is not None
    L, C0 = tok["L"].to_numpy(), tok["C"].to_numpy()
    # rebuild the permuted counts the builder used, with the same generator
    rng = np.random.default_rng(3)
    used = np.flatnonzero(tok["text"].duplicated().to_numpy() & np.isin(L, (4, 8, 16, 32)))
    by = used[np.argsort(L[used], kind="stable")]
    moved = C0.copy()
    moved[by] = C0[by[N.within(L[by], rng)]]
    first = ~tok["text"].duplicated().to_numpy()
    assert (moved[first] == C0[first]).all()  # token 0 of a text is never used nor moved
    for n in (4, 8):
        assert sorted(moved[L == n]) == sorted(C0[L == n])


def test_within_permutes_inside_groups_only():
    groups = np.array([1, 1, 1, 2, 2, 5])
    order = N.within(groups, np.random.default_rng(0))
    assert sorted(order) == list(range(6)) and (groups[order] == groups).all()


def human_words(windows=120, length=30, seed=2) -> pd.DataFrame:
    """Per-word RAVEN scores of ``windows`` human continuations at the main prompt length."""
    rng = np.random.default_rng(seed)
    rows = []
    for w in range(windows):
        s = np.minimum(rng.geometric(0.45, size=length), 8)
        rows.append(pd.DataFrame({"text": w, "window": w, "prompt_length": 8, "t": range(length),
                                  "word": rng.integers(0, 10**6, length), "s_train": s,
                                  "s_union": s + (rng.random(length) < 0.05)}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def delta_of(kind):
    def stat(t):
        return float(t.loc[t["kind"] == kind, "delta"].iloc[0])

    return stat


def test_prompt_length_nulls_have_the_effect_they_state(monkeypatch):
    d = data(words=human_words())
    margin = PARAMS["findings"]["prompt_length_margin"]
    flat = N.human_halves_prompt_length(False)(np.random.default_rng(4), d, PARAMS)
    shifted = N.human_halves_prompt_length(True)(np.random.default_rng(4), d, PARAMS)
    a = flat["raven_contrasts"].set_index("kind").loc["prompt_length"]
    b = shifted["raven_contrasts"].set_index("kind").loc["prompt_length"]
    assert a["model"] == "null" and a["distinct_a"] == a["distinct_b"] == 60
    assert b["delta"] == pytest.approx(a["delta"] - margin)  # the same halves, shifted
    claim = "prompt-length-no-effect"
    shift = C.false_verdicts(claim, N.human_halves_prompt_length(True), d, PARAMS, 30, 0,
                             (F.HOLDS,))  # fmt: skip
    assert shift["holds"] <= 3 and shift["does_not_hold"] >= 1
    zero = C.false_verdicts(claim, N.human_halves_prompt_length(False), d, PARAMS, 30, 0,
                            (F.FAILS,))  # fmt: skip
    assert zero["does_not_hold"] <= 3 and zero["holds"] >= 20  # the absence is found
    # a rule that reads the point estimate only says "no effect" half the time at the margin
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("raven_contrasts",
                                                      delta_of("prompt_length"), -margin))  # fmt: skip
    bad = C.false_verdicts("bad", N.human_halves_prompt_length(True), d, PARAMS, 30, 0,
                           (F.HOLDS,))  # fmt: skip
    assert bad["false_rate"] > 0.25


def test_planted_context_has_the_margin_as_its_effect(monkeypatch):
    d = data(words=human_words())
    margin = PARAMS["findings"]["source_margin"]
    deltas = [
        N.planted_context(np.random.default_rng(i), d, PARAMS)["raven_contrasts"]
        .query("kind == 'source'")["delta"]
        .to_numpy()
        for i in range(20)
    ]
    assert np.mean(deltas) == pytest.approx(margin, abs=0.01)
    r = C.false_verdicts("train-vs-union", N.planted_context, d, PARAMS, 30, 0, (F.HOLDS,))
    assert r["holds"] <= 2
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("raven_contrasts",
                                                      lambda t: margin - delta_of("source")(t)))  # fmt: skip
    bad = C.false_verdicts("bad", N.planted_context, d, PARAMS, 30, 0, (F.HOLDS,))
    assert bad["false_rate"] > 0.25


SYNTAX = {"template_headline_n": 3, "top_k": 5, "bootstrap": 200, "seed": 0}
SYNTAX_PARAMS = {**PARAMS, "analysis": {**PARAMS["analysis"], "syntax": SYNTAX}}


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
    t = N.human_halves_templates(np.random.default_rng(0), d, SYNTAX_PARAMS)["templates"]
    # the half that plays the model plays its greedy samples: the decoding the rule decides on
    assert list(t["model"]) == ["null", "human"] and list(t["decoding"]) == ["greedy", "reference"]
    no_greedy = {**SYNTAX_PARAMS, "sampling": {**SYNTAX_PARAMS["sampling"], "decodings": {
        k: v for k, v in SYNTAX_PARAMS["sampling"]["decodings"].items()
        if v["kind"] != "greedy"}}}  # fmt: skip
    assert N.human_halves_templates(np.random.default_rng(0), d, no_greedy) is None
    assert (t["texts"] == 40).all() and (t["n"] == 3).all()
    r = C.false_verdicts("more-templates", N.human_halves_templates, d, SYNTAX_PARAMS, 30, 0)
    assert r["false_rate"] <= 0.1
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule(
        "templates", lambda t: t["templates_per_token"].iloc[0] - t["templates_per_token"].iloc[1]
    ))  # fmt: skip
    bad = C.false_verdicts("bad", N.human_halves_templates, d, SYNTAX_PARAMS, 20, 0)
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
    t = N.human_halves_coverage(np.random.default_rng(0), d, SYNTAX_PARAMS)
    delta = t["template_coverage_delta"]
    assert list(delta["model"]) == ["null"] and delta["cut"].iloc[0] == 10
    r = C.false_verdicts("templates-in-training", N.human_halves_coverage, d, SYNTAX_PARAMS, 20,
                         0, (F.HOLDS,))  # fmt: skip
    assert r["false_rate"] <= 0.1
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("template_coverage_delta",
                                                      lambda t: t["delta"].iloc[0], -1.0))  # fmt: skip
    bad = C.false_verdicts("bad", N.human_halves_coverage, d, SYNTAX_PARAMS, 20, 0, (F.HOLDS,))
    assert bad["false_rate"] == 1.0


def cloze_items(seed=0, per=8) -> pd.DataFrame:
    """Name cloze items of two models on 12 training, 12 held-out and 6 excerpt plays (copies
    1, 4, 16): training plays and excerpts with more copies are answered more often, and a
    training play's overlap tracks its accuracy."""
    rng = np.random.default_rng(seed)
    plays = [("train", 0, 0.5)] * 12 + [("valid", 0, 0.05)] * 12
    plays += [("excerpt", c, p) for c, p in ((1, 0.1), (4, 0.3), (16, 0.6)) for _ in range(2)]
    rows = []
    for model in ("a", "b"):
        for i, (split, copies, p) in enumerate(plays):
            q = np.clip(p + rng.normal(0, 0.25), 0, 1) if split == "train" else p
            for j in range(per * 3 if split == "train" else per):
                ok = int(rng.random() < q)
                rows.append({"model": model, "play": f"p{i}", "split": split,
                             "excerpt_copies": copies, "item": j, "n_candidates": 10,
                             "correct_insensitive": ok, "correct_sensitive": ok,
                             "match_fraction": q / 2 + rng.normal(0, 0.01), "lcp": 0,
                             "exact": 0})  # fmt: skip
    return pd.DataFrame(rows)


def test_permuted_plays_move_whole_plays():
    cloze = cloze_items()
    out = N.permuted_plays(cloze, ("train", "valid"), np.random.default_rng(0))
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
        ("cloze-training-plays", N.permuted_training_plays, None),
        ("cloze-excerpts", N.permuted_excerpt_plays("membership_cloze_excerpts"), None),
        ("cloze-excerpt-copies", N.permuted_excerpt_plays("membership_cloze_trend"), None),
        ("cloze-overlap-correlation", N.permuted_overlap, None),
    ],
)
def test_cloze_nulls_break_the_planted_effects(claim, builder, table):
    cloze = cloze_items()
    m = PARAMS["analysis"]["membership"]
    plays, summary = N.membership_report.cloze_tables(cloze, m["bootstrap"], m["seed"])
    real = {
        "membership_cloze_summary": summary,
        "membership_cloze_excerpts": N.membership_report.cloze_excerpt_rows(cloze, 200, 0),
        "membership_cloze_trend": N.membership_report.cloze_trend_rows(cloze, 200, 0),
    }
    assert F.CLAIMS[claim](real, PARAMS).verdict == F.HOLDS  # the planted effect is found ...
    false = C.null_spec(next(e for e in C.NULLS[claim]))[2]
    r = C.false_verdicts(claim, builder, data(cloze=cloze), PARAMS, 20, 0, false)
    assert r["holds"] <= 2  # ... and rarely once the labels are permuted


def test_the_cloze_overlap_null_keeps_the_accuracy():
    cloze = cloze_items()
    out = N.permuted_overlap(np.random.default_rng(0), data(cloze=cloze), PARAMS)
    s = out["membership_cloze_summary"]
    _, real = N.membership_report.cloze_tables(cloze, 200, 0)
    pd.testing.assert_series_equal(s["acc_insensitive"], real["acc_insensitive"])
    assert abs(s["r_overlap"].iloc[0]) < abs(real["r_overlap"].iloc[0])


def test_every_null_has_false_verdicts():
    for entries in C.NULLS.values():
        for entry in entries:
            name, builder, false = C.null_spec(entry)
            assert name and callable(builder) and false and set(false) <= {F.HOLDS, F.FAILS}


def parsed_passages(n=60, seed=7, generated=True, set_name="human/reference") -> list:
    """``n`` parsed passages of four chain-shaped sentences (each word headed by the next) of
    random words, tags and labels (RAVEN counts the middle two of generated text)."""
    from copyscope.syntax.types import Passage, Sentence, Word

    rng = np.random.default_rng(seed)
    out = []
    for p in range(n):
        sents = []
        for _ in range(4):
            k = int(rng.integers(3, 7))
            words = tuple(
                Word(f"w{rng.integers(40)}", str(rng.choice(list("NVDJ"))),
                     i + 2 if i + 1 < k else 0, str(rng.choice(["nsubj", "dobj", "amod"])),
                     generated)
                for i in range(k)
            )  # fmt: skip
            sents.append(Sentence(words))
        out.append(Passage(set_name, p, tuple(sents)))
    return out


def test_human_halves_syntax_build_the_syntax_table(monkeypatch):
    from copyscope.syntax.syntactic_novelty import (
        count_matrices,
        extract_set,
        novelty_table,
        query_items,
        training_hits,
        units,
    )

    syntax = {**SYNTAX, "max_path_words": 3}
    params = {**PARAMS, "analysis": {**PARAMS["analysis"], "syntax": syntax}}
    parsed = extract_set("human/reference", parsed_passages(), "clearnlp", 3)
    query, words = query_items([parsed])
    train = parsed_passages(200, seed=8, generated=False, set_name="train")
    hits = training_hits(train, query, words, "clearnlp", 3)
    names = units(3)
    d = data(syntax=(names, *count_matrices(parsed, hits, names)))
    # rows of a subset of the counted passages are the table of that subset of passages
    whole = novelty_table(parsed, hits, 3, 200, 0)
    pd.testing.assert_frame_equal(N.novelty_rows("human/reference", names, *d.syntax[1:], 200, 0),
                                  whole)  # fmt: skip
    t = N.human_halves_syntax(np.random.default_rng(0), d, params)["syntax_novelty"]
    assert set(zip(t["model"], t["decoding"], strict=True)) == {("null", "k40"),
                                                                 ("human", "reference")}  # fmt: skip
    assert (t["passages"] == 30).all() and (t.loc[t["unit"] == "labeled_arc", "total"] > 0).all()
    r = C.false_verdicts("syntax-local-less-novel", N.human_halves_syntax, d, params, 20, 0)
    assert r["false_rate"] <= 0.1

    def local_gap(t):
        u = t[t["unit"] == "labeled_arc"].set_index("model")["novelty"]
        return u["human"] - u["null"]

    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule("syntax_novelty", local_gap))
    assert C.false_verdicts("bad", N.human_halves_syntax, d, params, 20, 0)["false_rate"] == 1.0


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
    params = {**PARAMS, "analysis": {**PARAMS["analysis"],
                                     "style": {"bootstrap": 200, "seed": 0}}}  # fmt: skip
    real = N.style_report.style_table(st, 200, 0)
    assert F.CLAIMS["pos-exceeds-exact"]({"style_memorization": real}, params).verdict == F.HOLDS
    d = data(style=st)
    t = N.permuted_targets(np.random.default_rng(0), d, params)["style_memorization"]
    pooled = t[t["source"] == "all"].iloc[0]
    assert pooled["n"] == 60 and pooled["pos_minus_exact"] < 0.1  # only chance matches left
    r = C.false_verdicts("pos-exceeds-exact", N.permuted_targets, d, params, 20, 0, (F.HOLDS,))
    assert r["holds"] <= 2
    # a rule that takes any POS match above the exact rate as style memorization
    monkeypatch.setitem(F.CLAIMS, "bad", verdict_rule(
        "style_memorization", lambda t: t["pos_match"].iloc[-1] - t["exact_rate"].iloc[-1]
    ))  # fmt: skip
    assert C.false_verdicts("bad", N.permuted_targets, d, params, 20, 0, (F.HOLDS,))[
        "false_rate"
    ] == 1.0


def test_derangement_moves_every_position_of_a_group():
    groups = np.array([1, 1, 2, 2, 2, 3, 4, 4, 4, 4])
    for seed in range(20):
        order = N.derangement(groups, np.random.default_rng(seed))
        assert sorted(order) == list(range(10)) and (groups[order] == groups).all()
        moved = order != np.arange(10)
        assert moved[groups != 3].all() and not moved[groups == 3].any()


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
    assert F.CLAIMS["contamination-lookup"](real, PARAMS).verdict == F.HOLDS
    out = N.permuted_contamination(np.random.default_rng(0), data(contamination=items), PARAMS)
    known = out["contamination_known"]
    # only the planted / unplanted pair, the same counts of flagged items in all
    assert set(known["positive"]) == {"planted"} and set(known["rule"]) == {"ngram", "chars"}
    assert ((known["tp"] + known["fp"]) == 30).all() and ((known["tp"] + known["fn"]) == 30).all()
    false = C.null_spec(C.NULLS["contamination-lookup"][0])[2]
    r = C.false_verdicts(
        "contamination-lookup", N.permuted_contamination, data(contamination=items), PARAMS,
        20, 0, false,
    )
    assert r["holds"] + r["does_not_hold"] <= 3  # rarely a verdict once the labels are permuted
    assert N.permuted_contamination(np.random.default_rng(0), data(), PARAMS) is None
    only_planted = items[items["group"] != "unplanted"]
    assert N.permuted_contamination(np.random.default_rng(0), data(contamination=only_planted),
                                    PARAMS) is None  # fmt: skip


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
    tables = N.human_halves_creativity(np.random.default_rng(0), data(words=words), PARAMS)
    t = tables["creativity_texts"]
    assert set(zip(t["model"], t["decoding"], strict=True)) == {("human", "reference"),
                                                                  ("null", "pure")}  # fmt: skip
    assert (t.groupby(["model", "source"]).size() == 60).all() and t["index"].between(0, 8).all()
    assert N.human_halves_creativity(np.random.default_rng(0), data(), PARAMS) is None
    # neither half is the more creative: "holds" is rare, the paper's 31% gap is excluded
    false = C.null_spec(C.NULLS["human-more-creative"][0])[2]
    assert false == (F.HOLDS,)
    r = C.false_verdicts("human-more-creative", N.human_halves_creativity, data(words=words),
                         PARAMS, 30, 0, false)  # fmt: skip
    assert r["holds"] <= 2 and r["does_not_hold"] >= 25, r
