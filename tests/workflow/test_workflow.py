"""End-to-end: the tiny configuration through Snakemake, the report, and config errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from copyscope.config import SCHEMA_PATH, evaluator_of
from copyscope.tokenize import load_hf_tokenizer
from support.tables import interval_problems
from support.workflow import ROOT, snakemake

# every test here starts Snakemake (a dry run included) or reads the session's tiny run
pytestmark = pytest.mark.e2e

FIGURES = [
    "novelty_valid.png",
    "nnsl_hist_valid.png",
    "novelty_by_model.png",
    "completion_loss.png",
    "completion_loss_frequency.png",
    "novelty_by_decoding.png",
    "novelty_by_prompt_length.png",
    "novelty_training_prompts.png",
    "raven_novelty.png",
    "raven_by_size.png",
    "novelty_quality.png",
    "planted.png",
    "memorization.png",
    "training.png",
    "syntax_paths.png",
    "templates.png",
    "templates_by_n.png",
    "templates_vs_human.png",
    "template_ranks.png",
    "template_coverage.png",
    "style_memorization.png",
]


TINY = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())


def _brackets(frame: pd.DataFrame, value: str, low: str, high: str) -> bool:
    """low ≤ value ≤ high on every row where the value is defined (float tolerance)."""
    f = frame.dropna(subset=[value])
    return bool(((f[low] <= f[value] + 1e-9) & (f[value] <= f[high] + 1e-9)).all())


def _decodings(cfg: dict, model: str) -> list[str]:
    """Every decoding for a model of sampling.grid_models (absent: every model), else the
    shared decodings."""
    s = cfg["sampling"]
    grid = s.get("grid_models")
    if grid is None or model in grid:
        return list(s["decodings"])
    return [d for d in s["decodings"] if d in s["shared_decodings"]]


def _human_sets(cfg: dict) -> list[tuple[str, str]]:
    """The human sets: the reference, then with corpus.inject.excerpts the contaminated one."""
    excerpts = cfg["corpus"].get("inject", {}).get("excerpts")
    return [("human", "reference")] + ([("human", "contaminated")] if excerpts else [])


def _expected_settings(cfg: dict) -> set[tuple[str, str, int]]:
    """(model, decoding, prompt length) of every sample set the config asks for: every model ×
    decoding at the main prompt length, the prompt-length study's lengths for its decodings
    and models (default: the evaluator), and the human sets at every length."""
    s = cfg["sampling"]
    study = s.get("prompt_length_models") or [cfg["models"]["evaluator"]]
    lengths = {s["prompt_length"], *s["prompt_lengths"]}
    out = {(h, d, n) for h, d in _human_sets(cfg) for n in lengths}
    for m in cfg["models"]["zoo"]:
        for d in _decodings(cfg, m):
            lengths = {s["prompt_length"]}
            if d in s["prompt_length_decodings"] and m in study:
                lengths |= set(s["prompt_lengths"])
            out |= {(m, d, n) for n in lengths}
    return out


def _empty_settings(out) -> set[tuple[str, str, int]]:
    """(model, decoding, prompt length) whose every generation ended at once at eos: no token,
    so no position to measure (such a setting has no row in the tables)."""
    empty = set()
    for f in (out / "samples").glob("*/*.jsonl"):
        rows = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        for plen in {r["prompt_length"] for r in rows}:
            sub = [r for r in rows if r["prompt_length"] == plen]
            if not any(r["ids"] for r in sub):
                assert all(r["stopped_at_eos"] for r in sub), (f, plen)
                empty.add((f.parent.name, f.stem, plen))
    return empty


def check_novelty_curves(curves: pd.DataFrame, by: list[str], texts=None, length=None) -> None:
    """What the definition of novelty(n) guarantees for every curve in ``curves``.

    novelty(n) = novel(n) / total(n) with novel(n) = #{t ≥ n−1: L_t < n}, total(n) =
    #{t ≥ n−1}, pooled over texts. A position not novel at n + 1 (L_t ≥ n + 1) is not novel
    at n, so the count of non-novel positions, total − novel, never increases with n.

    The ratio itself is non-decreasing for texts of one length T: L_{t+1} ≤ L_t + 1, so each
    run of non-novel positions at n starts with an L_t = n that is novel at n + 1, hence
    N(n+1) ≤ N(n) − 1 ≤ N(n)·(T − n)/(T − n + 1) per text, with the same factor for every
    text. Pooled over texts of different lengths it can decrease (a long copied text and a
    short novel one), so it is asserted only when ``texts`` (per group, indexed by ``by``) all
    have ``length`` tokens, which the totals must then show: total(n) = texts·(length − n + 1).
    """
    assert curves["novelty"].dropna().between(0, 1).all()
    defined = curves["total"] > 0
    assert curves["novelty"].isna().eq(~defined).all()
    ratio = curves["novel"][defined] / curves["total"][defined]
    assert (ratio - curves["novelty"][defined]).abs().max() < 1e-5
    assert (curves["novel"] <= curves["total"]).all()
    assert curves["lower_bound"].between(0, 1).all()
    assert _brackets(curves, "novelty", "novelty_lo", "novelty_hi")
    for key, g in curves.groupby(by):
        g = g.sort_values("n")
        assert g["n"].tolist() == list(range(1, len(g) + 1)), key
        assert (g["total"] - g["novel"]).is_monotonic_decreasing, key
        if texts is not None:
            count = texts.loc[key]
            assert (g["total"] == count * (length - g["n"] + 1).clip(lower=0)).all(), key
            assert g["novelty"].dropna().is_monotonic_increasing, key


def check_contrasts(out, cfg: dict, union, train, pairs, empty) -> None:
    """raven_contrasts.csv: union − train for every setting (the summary's difference, never
    negative), and each prompt length of the study (and of the human reference) minus the
    main one, intervals bracketing the deltas, distinct texts at most the prompts."""
    s = cfg["sampling"]
    main = s["prompt_length"]
    con = pd.read_csv(out / "tables/raven_contrasts.csv")
    src = con[con["kind"] == "source"].set_index(["model", "decoding"])
    assert set(src.index) == pairs and (src[["a", "b"]] == ["union", "train"]).all().all()
    gap = (union["truncated_score"] - train["truncated_score"]).loc[src.index]
    np.testing.assert_allclose(src["delta"], gap, atol=2e-5)  # 6 digits in the csv
    assert (src["delta_lo"] >= -1e-12).all()
    study = s.get("prompt_length_models") or [cfg["models"]["evaluator"]]
    grid = {("human", "reference"), ("human", "contaminated")} | {
        (m, d) for m in study for d in _decodings(cfg, m) if d in s["prompt_length_decodings"]
    }
    want = {
        (m, d, a)
        for m, d in grid & pairs
        for a in s["prompt_lengths"]
        if a != main and (m, d, a) not in empty
    }
    pl = con[con["kind"] == "prompt_length"]
    assert set(zip(pl["model"], pl["decoding"], pl["a"].astype(int), strict=True)) == want
    assert (pl["b"].astype(int) == main).all()
    assert _brackets(con, "delta", "delta_lo", "delta_hi")
    for col in ("distinct_a", "distinct_b"):
        assert con[col].between(1, s["prompts"]).all(), col


def check_slopes(out, cfg: dict) -> None:
    """completion_loss_slope.csv: every model of the model tokenizer × fixed n, over the
    tokens of the frequency table, intervals bracketing the slopes."""
    from copyscope.novelty.metrics import FREQUENCY_LENGTHS

    slope = pd.read_csv(out / "tables/completion_loss_slope.csv")
    models = [m for m, spec in cfg["models"]["zoo"].items() if spec["kind"] != "pretrained"]
    expect = [[m, n] for m in models for n in FREQUENCY_LENGTHS]
    assert slope[["model", "n"]].values.tolist() == expect
    freq = pd.read_csv(out / "tables/completion_loss_frequency.csv")
    tokens = freq.groupby(["model", "n"])["tokens"].sum()
    got = slope.set_index(["model", "n"])["tokens"]
    assert (got.reindex(tokens.index) == tokens).all() and got.drop(tokens.index).eq(0).all()
    assert _brackets(slope, "slope", "slope_lo", "slope_hi")


def check_tables(out, cfg: dict) -> None:
    """The contents of a finished run's tables, checked against the config ``cfg``."""
    models = list(cfg["models"]["zoo"])
    empty = _empty_settings(out)
    settings = _expected_settings(cfg) - empty
    # every statistic against all training text, then against the natural text only
    sources = ["all", "natural"]
    settings = {(*s, src) for s in settings for src in sources}
    key = ["model", "decoding", "prompt_length", "source"]
    new_tokens = cfg["sampling"]["new_tokens"]

    nnsl = pd.read_csv(out / "tables/nnsl_samples.csv")
    assert set(nnsl[key].itertuples(index=False, name=None)) == settings
    assert len(nnsl) == len(settings) and (nnsl["texts"] > 0).all()
    assert list(nnsl.columns[-3:]) == ["source", "distinct", "tokenizer"]
    # the n-grams' tokenizer: the index's a model is measured in (the human sets: models.tokenizer)
    zoo, default = cfg["models"]["zoo"], cfg["models"]["tokenizer"]
    want = {m: zoo[m].get("index_tokenizer") or zoo[m].get("tokenizer") or default for m in zoo}
    got = set(zip(nnsl["model"], nnsl["tokenizer"], strict=True))
    assert got == {(m, want.get(m, default)) for m, _ in got}
    assert nnsl["source"].tolist() == sorted(nnsl["source"])  # the all rows first
    assert ((nnsl["distinct"] >= 1) & (nnsl["distinct"] <= nnsl["texts"])).all()
    pair = nnsl.pivot_table(index=key[:3], columns="source", values=["distinct", "tokens"])
    assert (pair["distinct"]["all"] == pair["distinct"]["natural"]).all()
    assert (pair["tokens"]["all"] == pair["tokens"]["natural"]).all()
    # a generation ends at its first eos, so a setting has at most new_tokens tokens per text;
    # human texts never contain eos and have exactly new_tokens
    assert (nnsl["tokens"] <= nnsl["texts"] * new_tokens).all()
    human = nnsl[nnsl["model"] == "human"]
    assert len(human) and (human["tokens"] == human["texts"] * new_tokens).all()
    assert (nnsl["mean_nnsl"] >= 0).all() and (nnsl["median_nnsl"] >= 0).all()

    curves = pd.read_csv(out / "tables/novelty_samples.csv")
    assert set(curves[key].itertuples(index=False, name=None)) == settings
    assert (curves.groupby(key)["n"].max() == cfg["novelty"]["n_max"]).all()
    full = nnsl[nnsl["tokens"] == nnsl["texts"] * new_tokens].set_index(key)["texts"]
    whole = curves.set_index(key).index.isin(full.index)
    check_novelty_curves(curves[whole], key, full, new_tokens)
    if (~whole).any():  # settings with generations cut at eos
        check_novelty_curves(curves[~whole], key)
    assert _brackets(nnsl, "mean_nnsl", "mean_nnsl_lo", "mean_nnsl_hi")

    raven = pd.read_csv(out / "tables/raven_summary.csv")
    main = cfg["sampling"]["prompt_length"]
    pairs = set(_human_sets(cfg)) | {(m, d) for m in models for d in _decodings(cfg, m)}
    pairs -= {(m, d) for m, d, plen in empty if plen == main}
    sources = {"train", "context", "union", "natural"}
    got = set(raven[["model", "decoding", "source"]].itertuples(index=False, name=None))
    assert got == {(m, d, s) for m, d in pairs for s in sources}
    assert (raven["prompt_length"] == cfg["sampling"]["prompt_length"]).all()
    assert raven["truncated_score"].between(1, 5).all()
    assert _brackets(raven, "truncated_score", "truncated_score_lo", "truncated_score_hi")
    for k in range(1, 11):
        col = f"novelty_{k}"
        assert raven[col].between(0, 1).all(), col
        assert _brackets(raven, col, f"{col}_lo", f"{col}_hi"), col
    union = raven[raven["source"] == "union"].set_index(["model", "decoding"])
    train = raven[raven["source"] == "train"].set_index(["model", "decoding"])
    # the union of sources can only find more: never a lower duplication score; the natural
    # training text (planted text left out) with the context never more than all of it
    assert (union["truncated_score"] >= train["truncated_score"] - 1e-12).all()
    natural = raven[raven["source"] == "natural"].set_index(["model", "decoding"])
    assert (natural["truncated_score"] <= union["truncated_score"] + 1e-12).all()
    assert np.isfinite(raven["perplexity"]).all() and (raven["perplexity"] > 1).all()
    # the evaluator (last column): never the model whose samples it scores
    assert raven.columns[-1] == "evaluator"
    for (m, _), e in union["evaluator"].items():
        assert e == evaluator_of(cfg["models"], m) and e != m, (m, e)
    check_contrasts(out, cfg, union, train, pairs, empty)
    check_slopes(out, cfg)

    trained = [m for m, spec in cfg["models"]["zoo"].items() if spec["kind"] != "pretrained"]
    for m in trained:
        log = pd.read_csv(out / "tables/training" / f"{m}.csv")
        assert len(log) > 0 and np.isfinite(log[["train_loss", "valid_loss"]]).all().all(), m

    summary = (out / "summary.md").read_text()
    for m in models:
        assert f"| {m} |" in summary, m
    assert "## RAVEN" in summary and "Planted duplicates" in summary
    # the signature line: this config's digest, the index's tokenizer, the training seed
    import copy

    from copyscope.config import validate
    from copyscope.report.signature import config_digest

    full = validate(copy.deepcopy(cfg))  # as the Snakefile validates it: defaults filled in
    sig = summary.splitlines()[2]
    assert sig.startswith("Signature: `copyscope:") and f"|seed:{full['models']['seed']}`" in sig
    assert f"|config:{config_digest(full)}|" in sig


def check_syntax_tables(out, cfg: dict) -> None:
    """The syntactic analyses' tables: one block of rows per text set (every model × decoding
    and the human reference), counts and rates consistent, intervals bracketing the values."""
    from copyscope.syntax.syntactic_novelty import BASE_UNITS, units

    s = yaml.safe_load(SCHEMA_PATH.read_text())
    defaults = s["properties"]["analysis"]["properties"]["syntax"]["properties"]
    syn = {k: v["default"] for k, v in defaults.items()} | cfg["analysis"].get("syntax", {})
    models = list(cfg["models"]["zoo"])
    sets = _human_sets(cfg) + [(m, d) for m in models for d in _decodings(cfg, m)]
    names = [f"{m}/{d}" for m, d in sets]

    nov = pd.read_csv(out / "tables/syntax_novelty.csv")
    assert list(nov[["model", "decoding"]].drop_duplicates().itertuples(index=False)) == sets
    unit_names = list(units(syn["max_path_words"]))
    for name, g in nov.groupby("set", sort=False):
        assert g["unit"].tolist() == unit_names, name
        assert g["passages"].nunique() == 1 and g["passages"].iloc[0] > 0, name
    assert ((nov["novel"] >= 0) & (nov["novel"] <= nov["total"])).all()
    assert nov["novelty"].isna().eq(nov["total"] == 0).all()
    assert nov["novelty"].dropna().between(0, 1).all()
    assert _brackets(nov, "novelty", "novelty_lo", "novelty_hi")
    if cfg["syntax"]["backend"] == "spacy":  # no constituency: the dependency tree stands in
        trees = nov["unit"].isin(["constituency_structure", "cfg_rule"])
        assert (nov.loc[trees, "total"] == 0).all()
    human = nov[nov["set"] == "human/reference"].set_index("unit")
    assert human.loc["dependency_structure", "total"] > 0
    # a sentence's words each have one path, so paths of k nodes never outnumber those of k-1
    for (name, fam), g in nov[nov["family"] != "unit"].groupby(["set", "family"]):
        assert g.sort_values("k")["total"].is_monotonic_decreasing, (name, fam)
    table1 = pd.read_csv(out / "tables/syntax_table1.csv")
    f = cfg["findings"]  # the paper's top-40 (tiny: top_k_10), then pure sampling, then human
    main = [f"{m}/{d}" for m in models for d in _decodings(cfg, m) if d == f["raven_decoding"]]
    pure = [f"{m}/{d}" for m in models for d in _decodings(cfg, m) if d == "pure"]
    assert list(table1.columns) == ["unit", *main, *pure, "human/reference"]
    assert len(table1) <= len(BASE_UNITS)

    tpl = pd.read_csv(out / "tables/templates.csv")
    assert list(tpl["set"]) == [x for x in names for _ in syn["template_n"]]
    assert list(tpl["n"]) == list(syn["template_n"]) * len(names)
    assert tpl["template_rate"].between(0, 1).all() and (tpl["templates_per_token"] >= 0).all()
    assert (tpl["templates"] <= syn["top_k"]).all()
    for col in ("cr", "cr_pos"):  # undefined only for a set without any generated word
        assert tpl[col].isna().eq(tpl["words"] == 0).all() and (tpl[col].dropna() > 0).all()
    passages = nov.groupby("set", sort=False)["passages"].first()
    assert (tpl.set_index("set")["texts"] == passages.reindex(tpl["set"]).to_numpy()).all()

    cov = pd.read_csv(out / "tables/template_coverage.csv")
    assert list(cov["set"]) == names and (cov["n"] == syn["template_headline_n"]).all()
    assert (cov["cut"] >= 100).all() and cov["cut"].nunique() == 1
    # a set without a sentence of n generated words (e.g. every generation ended at eos) has no
    # templates, so no coverage
    has = cov["templates"] > 0
    for col in ("coverage_templates", "found_templates"):
        assert cov.loc[has, col].between(0, 1).all() and cov.loc[~has, col].isna().all(), col
    assert (cov.loc[has, "coverage_templates"] <= cov.loc[has, "found_templates"] + 1e-12).all()
    per_template = pd.read_csv(out / "tables/template_training.csv")
    counts = per_template.groupby(["model", "decoding"], sort=False).size()
    counts = counts.reindex(pd.MultiIndex.from_tuples(sets), fill_value=0)
    assert (counts.to_numpy() == cov["templates"].to_numpy()).all()
    found = per_template["training_rank"].notna()
    assert found.eq(per_template["training_count"] > 0).all()
    assert (per_template["in_cut"] == (per_template["training_rank"] <= cov["cut"].iloc[0])).all()
    assert _brackets(cov, "coverage_templates", "coverage_templates_lo", "coverage_templates_hi")
    delta = pd.read_csv(out / "tables/template_coverage_delta.csv")
    model_sets = [x for x in sets if x[0] != "human"]  # the human sets are the baseline
    assert list(delta[["model", "decoding"]].itertuples(index=False, name=None)) == model_sets
    c = cov.set_index("set")["coverage_templates"]
    own = c.loc[[f"{m}/{d}" for m, d in model_sets]].to_numpy()
    np.testing.assert_allclose(delta["coverage_model"], own)
    np.testing.assert_allclose(delta["coverage_human"], c.loc["human/reference"])
    np.testing.assert_allclose(delta["delta"], own - c.loc["human/reference"], atol=2e-5)
    assert _brackets(delta, "delta", "delta_lo", "delta_hi")


def test_tiny_run_tables(tiny_run):
    """Table contents: every configured setting present, values in range, CIs bracketing the
    estimates, novelty monotone where its definition makes it so."""
    check_tables(tiny_run, TINY)
    check_syntax_tables(tiny_run, TINY)
    valid = pd.read_csv(tiny_run / "tables/novelty_valid.csv")
    assert set(valid["tokenizer"]) == set(TINY["novelty"]["tokenizers"])
    check_novelty_curves(valid, ["tokenizer"])
    for _, g in valid.groupby("tokenizer"):
        assert g.dropna(subset=["novelty"])["novelty"].iloc[-1] > 0.9  # held-out text is novel
    summary = pd.read_csv(tiny_run / "tables/nnsl_valid.csv")
    assert (summary["mean_nnsl"] > 1).all() and (summary["mean_nnsl"] < 10).all()


def check_memorization(out, cfg: dict) -> None:
    """The ladder of a finished run: every passage occurs in the models' training index
    exactly ``copies`` times (0 for controls), and the table has every model × rung."""
    from copyscope.index import Index
    from copyscope.tokenize import load_hf_tokenizer

    ladder = cfg["corpus"]["inject"]["ladder"]
    passages = json.loads((out / "corpus/manifest.json").read_text())["ladder"]["passages"]
    tok_name = cfg["models"]["tokenizer"]
    tok = load_hf_tokenizer(out / "tokenizers" / tok_name)
    index = Index(out / "index" / tok_name)
    for p in passages:
        assert index.count(tok.encode(p["text"], add_special_tokens=False)) == p["copies"], p["id"]
    table = pd.read_csv(out / "tables/memorization.csv")
    rungs = [0, *sorted(ladder["copies"])]
    assert table[["model", "copies"]].values.tolist() == [
        [m, c] for m in cfg["models"]["zoo"] for c in rungs
    ]
    n = [ladder["controls"], *[ladder["per_rung"]] * len(ladder["copies"])]
    assert table["n"].tolist() == n * len(cfg["models"]["zoo"])
    assert _brackets(table, "extraction_rate", "extraction_rate_lo", "extraction_rate_hi")
    assert table["lcp"].between(0, cfg["analysis"]["memorization"]["suffix_tokens"]).all()


def check_style(out, cfg: dict) -> None:
    """Style vs exact memorization: per model the ladder's passages (every rung and the
    controls) and the sampled training n-grams (counts exact, within their strata, at most
    per_stratum each); a continuation reproducing the target's tokens reproduces its words and
    tags; the table
    has one pooled row per model, intervals bracketing the values."""
    from copyscope.index import Index
    from copyscope.syntax.style import strata_labels

    s = yaml.safe_load(SCHEMA_PATH.read_text())
    defaults = s["properties"]["analysis"]["properties"]["style"]["properties"]
    st = {k: v["default"] for k, v in defaults.items()} | cfg["analysis"].get("style", {})
    ladder = cfg["corpus"]["inject"]["ladder"]
    index = Index(out / "index" / cfg["models"]["tokenizer"])
    labels = strata_labels(st["strata"])
    for model in cfg["models"]["zoo"]:
        rep = pd.read_csv(out / f"style/repeats/{model}.csv", dtype={"stratum": str})
        assert rep.groupby("stratum").size().max() <= st["per_stratum"]
        assert set(rep["stratum"]) <= set(labels) and rep["position"].is_unique
        tokens = np.concatenate([np.asarray(x.tokens) for x in index.shards])
        n = st["prompt_tokens"] + st["suffix_tokens"]
        for r in rep.head(5).itertuples():
            assert index.count(tokens[r.position : r.position + n]) == r.copies
        m = pd.read_csv(out / f"style/measures/{model}.csv", dtype={"stratum": str})
        lad = m[m["source"] == "ladder"]
        assert len(lad) == ladder["controls"] + ladder["per_rung"] * len(ladder["copies"])
        assert (m["source"] == "training").sum() == len(rep)
        exact = m["token_exact"] == 1  # the same text after the same prompt: the same tags
        assert (m.loc[exact, "word_exact"] == 1).all() and (m.loc[exact, "pos_exact"] == 1).all()
        for col in ("word_match", "pos_match"):
            assert m[col].dropna().between(0, 1).all()
    table = pd.read_csv(out / "tables/style_memorization.csv", dtype={"stratum": str})
    pooled = table[table["source"] == "all"]
    assert pooled["model"].tolist() == list(cfg["models"]["zoo"])
    for name in ("exact_rate", "pos_rate", "pos_minus_exact"):
        assert _brackets(table, name, f"{name}_lo", f"{name}_hi"), name


def check_natural(out) -> None:
    """Planted vs natural copying: the natural text is the training split before planting; the
    natural-only L_t is the longest match in its index; every match has a source class; the
    supercopies are counted by source."""
    from copyscope.analyze.classes import source_classes
    from copyscope.index import Index

    natural = [json.loads(x) for x in (out / "corpus/natural.jsonl").read_text().splitlines()]
    train = {json.loads(x)["id"] for x in (out / "corpus/train.jsonl").read_text().splitlines()}
    assert {d["id"] for d in natural} < train  # the duplicates' documents are added after
    index = Index(out / "index/bpe-natural")
    tokens = pd.read_parquet(out / "analysis/gpt2-b/pure/tokens.parquet")
    assert (tokens["L_nat"] <= tokens["L"]).mean() > 0.99  # seams aside, natural ⊂ training
    for _, g in list(tokens.groupby("text"))[:3]:
        m = index.longest_matches([g["id"].to_numpy()])
        assert m.length.tolist() == g["L_nat"].tolist()
        assert m.count.tolist() == g["C_nat"].tolist()
    classes = {"none", "natural", "duplicate", "ladder", "contamination", "excerpt", "benchmark",
               "mixed"}  # fmt: skip
    for f in ("tokens", "words"):
        frame = pd.read_parquet(out / f"analysis/gpt2-b/greedy/{f}.parquet")
        assert set(frame["source_class"]) <= classes
    nat = tokens[tokens["source_class"] == "natural"]
    assert (nat["L_nat"] >= nat["L"]).all()
    assert source_classes([0], [0], {}).tolist() == ["none"]
    sc = pd.read_csv(out / "tables/supercopies.csv")
    assert list(sc.columns[-2:]) == ["count_nat", "class"]
    by = pd.read_csv(out / "tables/supercopies_by_source.csv")
    assert by["source"].tolist() == sorted(by["source"]) and set(by["source"]) == {"all", "natural"}
    assert (out / "figures/supercopies.png").stat().st_size > 5_000
    assert "Natural-only" in (out / "summary.md").read_text()


def check_timing(out, cfg: dict) -> None:
    """Known-answer timing of the ladder (corpus.inject.timing): the manifest times ``ladder``
    passages of every rung per group, each copy a document of its own; the dynamics table has
    their extraction per group at every checkpoint; the scorecard decides the forgetting row on
    them and leaves the late-play row not tested (no play timed)."""
    timing = cfg["corpus"]["inject"]["timing"]
    rungs = cfg["corpus"]["inject"]["ladder"]["copies"]
    groups = json.loads((out / "corpus/manifest.json").read_text())["timing"]["groups"]
    for group in ("early", "late"):
        assert len(groups[group]["ladder"]) == timing["ladder"] * len(rungs)
        assert len(groups[group]["documents"]) == timing["ladder"] * sum(rungs)
        assert groups[group]["plays"] == []
    dyn = pd.read_csv(out / "tables/dynamics.csv")
    ex = dyn[(dyn["quantity"] == "extraction") & dyn["set"].isin(["timing early", "timing late"])]
    assert (ex["n"] == timing["ladder"] * len(rungs)).all()
    assert len(ex) == 2 * dyn[["model", "step"]].drop_duplicates().shape[0]
    card = pd.read_csv(out / "findings.csv").set_index("id")
    models, last = len(cfg["models"]["zoo"]), int(dyn["step"].max())
    assert card.at["forgetting-early", "verdict"] != "not tested here"
    assert card.at["forgetting-early", "measured"].count(f"(step {last}): late ") == models
    assert card.at["cloze-late-sudden", "measured"].endswith(
        "no training play seen only late (corpus.inject.timing.plays)"
    )
    checkpoints = cfg["models"]["train"]["checkpoints"]
    assert card.at["templates-early", "measured"].count(f"({checkpoints} checkpoints)") == models


def check_cloze_passages(out) -> None:
    """The name cloze's candidate passages are built once per run (membership_passages) and
    every probe and dynamics job draws its items from them, never running the recognizer (its
    per-play log line, ``candidates; {rejections}``, is only in the passages job's log)."""
    plays = json.loads((out / "membership/cloze_passages.json").read_text())["plays"]
    assert plays and all(p["rejected"]["accepted"] == len(p["passages"]) for p in plays)
    assert "candidates; {" in (out / "logs/membership_passages.log").read_text()
    drawn = re.compile(r"cloze (\S+): \d+ items of (\d+) accepted passages")
    want = {p["play"]: len(p["passages"]) for p in plays}
    logs = [*(out / "logs/probe").glob("*.log"), *(out / "logs/dynamics").glob("*.log")]
    assert len(logs) == 2 * len(TINY["models"]["zoo"])  # every model trains checkpoints
    for log in logs:
        text = log.read_text()
        assert "candidates; {" not in text, log
        assert {play: int(n) for play, n in drawn.findall(text)} == want, log


def check_excerpts(out, cfg: dict) -> None:
    """corpus.inject.excerpts of a finished run: the excerpt plays held out whole (not in the
    validation split, their planted speeches c times in training), the contaminated human set
    cut from them and the clean human reference never, the membership tables' columns."""
    from copyscope.corpus.excerpts import paragraphs

    spec = cfg["corpus"]["inject"]["excerpts"]
    manifest = json.loads((out / "corpus/manifest.json").read_text())

    def docs(name: str) -> dict[str, str]:
        lines = (out / f"corpus/{name}.jsonl").read_text().splitlines()
        return {r["id"]: r["text"] for r in map(json.loads, lines)}

    train, valid, excerpts = docs("train"), docs("valid"), docs("excerpts")
    plays = {p["play"]: p for p in manifest["excerpts"]["plays"]}
    assert sorted(p["copies"] for p in plays.values()) == sorted(
        c for c in spec["copies"] for _ in range(spec["plays_per_count"])
    )
    assert set(excerpts) == set(plays) and set(valid).isdisjoint(plays)
    assert set(valid) == set(manifest["valid_ids"]) and set(train).isdisjoint(plays)
    counts: dict[str, int] = {}
    for text in train.values():
        for para in paragraphs(text):
            counts[para] = counts.get(para, 0) + 1
    for p in plays.values():
        for s in p["planted"]:  # at least c: a short speech may also occur in a training play
            assert counts.get(s["text"], 0) >= p["copies"], (p["play"], s["index"])
    ladder = [q["source_doc"] for q in manifest["ladder"]["passages"]]
    assert set(ladder + [q["source_doc"] for q in manifest["contamination"]["items"]]).isdisjoint(plays)

    def flat(text: str) -> str:
        return " ".join(text.split())

    clean, dirty = [flat(t) for t in valid.values()], [flat(t) for t in excerpts.values()]
    for name, own, other in (("reference", clean, dirty), ("contaminated", dirty, clean)):
        lines = (out / f"samples/human/{name}.jsonl").read_text().splitlines()
        rows = [json.loads(x) for x in lines]
        assert rows and {r["decoding"] for r in rows} == {name}
        for r in rows:
            text = flat(r["text"])
            assert any(text in d for d in own) and not any(text in d for d in other), name

    tables = {
        "membership_cloze_excerpts": [
            "model", "group", "copies", "plays", "items",
            "acc_insensitive", "acc_insensitive_lo", "acc_insensitive_hi", "p_up", "p_down",
        ],
        "membership_cloze_trend": ["model", "items", "rho", "rho_lo", "rho_hi", "p_value"],
        "membership_nll_delta": ["model", "contrast", "delta", "delta_lo", "delta_hi", "n_a", "n_b"],
        "membership_overlap": [
            "tokenizer", "label_set", "member", "n", "texts", "mean", "min", "max",
            "bin_none", "bin_low", "bin_mid", "bin_high",
        ],
        "membership_strata": [
            "model", "label_set", "n", "bin", "detector", "n_members", "n_nonmembers", "auc",
        ],
        "membership_thresholds": [
            "model", "label_set", "detector", "rule", "target_fpr", "threshold",
            "cal_members", "cal_nonmembers", "cal_tpr", "cal_fpr", "test_members",
            "test_nonmembers", "test_tp", "test_fp", "test_tpr", "test_tpr_lo", "test_tpr_hi",
            "test_fpr", "test_fpr_lo", "test_fpr_hi", "note",
        ],
    }  # fmt: skip
    for name, columns in tables.items():
        t = pd.read_csv(out / f"tables/{name}.csv")
        assert list(t.columns[: len(columns)]) == columns, name
    delta = pd.read_csv(out / "tables/membership_nll_delta.csv")
    models = list(cfg["models"]["zoo"])
    assert set(delta["model"]) == set(models)
    assert set(delta[delta["model"] == models[0]]["contrast"]) >= {
        "unplanted - planted",
        "clean - planted",
        "unplanted - memorised",
    }
    assert _brackets(delta, "delta", "delta_lo", "delta_hi")
    ex = pd.read_csv(out / "tables/membership_cloze_excerpts.csv")
    assert set(ex["group"]) <= {"train", "held-out", "excerpt", "excerpt-pooled"}
    assert ex.loc[ex["group"] != "excerpt", "copies"].isna().all()
    summary = pd.read_csv(out / "tables/membership_cloze_summary.csv")
    assert "r_plays" in summary.columns
    # issue 19 §4: TPR at low FPR, blind baselines and margins, overlap with training
    det = pd.read_csv(out / "tables/membership_detectors.csv")
    assert {"blind_length", "blind_bow"} <= set(det["detector"])
    low = [f"tpr_at_{x}fpr{s}" for x in ("0p1", "1", "5") for s in ("", "_lo", "_hi", "_fp")]
    blind = ["blind_detector", "blind_auc", "delta_auc_vs_blind", "delta_auc_vs_blind_lo"]
    assert set(low + blind) <= set(det.columns)
    few = det["n_nonmembers"] < 1000  # 0.1% FPR allows no false positive: not estimable
    assert (
        det.loc[few, "tpr_at_0p1fpr"].isna().all() and (det.loc[few, "tpr_at_0p1fpr_fp"] == 0).all()
    )
    scored = det[det["label_set"] != "plays"]
    margin = scored["auc"] - scored["blind_auc"]
    assert np.allclose(scored["delta_auc_vs_blind"], margin, atol=1e-5)  # 6 digits in the csv
    ov = pd.read_csv(out / "tables/membership_overlap.csv")
    assert set(ov["tokenizer"]) == {cfg["models"]["tokenizer"]}
    assert (ov.loc[ov["member"] == 1, "mean"] > 0.8).all()  # members are training text


def test_tiny_run_outputs(tiny_run):
    out = tiny_run
    for f in (
        "corpus/manifest.json",
        "index/bpe/index.json",
        "index/words/index.json",
        "tables/runtime.csv",
        "tables/supercopies.csv",
    ):
        assert (out / f).stat().st_size > 0, f
    for f in FIGURES:
        assert (out / "figures" / f).stat().st_size > 10_000, f
    check_natural(out)
    loss = pd.read_csv(out / "tables/completion_loss.csv")
    assert set(loss["curve"]) == {"in training", "not in training", "in training, extended match"}
    assert np.isfinite(loss["loss"]).all() and (loss["loss"] > 0).all()
    freq = pd.read_csv(out / "tables/completion_loss_frequency.csv")
    assert set(freq["n"]) <= {4, 8, 16, 32, 64, 128} and (freq["log10_count"] >= 0).all()
    assert "Completion loss vs training count" in (out / "summary.md").read_text()
    # generations end at eos and never record it; human continuations never contain it
    eos_id = load_hf_tokenizer(out / "tokenizers/bpe").eos_token_id
    for path in (out / "samples").rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            assert eos_id not in row["ids"] and len(row["logprobs"]) in (0, len(row["ids"]))
            assert row["stopped_at_eos"] or len(row["ids"]) == TINY["sampling"]["new_tokens"]
            assert not (row["model"] == "human" and row["stopped_at_eos"])
    planted = pd.read_csv(out / "tables/planted.csv")
    assert set(planted["copies"]) == {d["m"] for d in TINY["corpus"]["inject"]["duplicates"]}
    check_memorization(out, TINY)
    check_style(out, TINY)
    check_excerpts(out, TINY)
    check_timing(out, TINY)
    check_cloze_passages(out)
    # several index shards were built as separate jobs (tiny shard size)
    assert len(list((out / "index/bpe").glob("shard-*"))) > 1
    assert len(list((out / "benchmarks").rglob("*.tsv"))) >= 10


def test_tiny_run_training_prompt_sets(tiny_run):
    """sampling.training_prompts (Merrill et al. Fig. 3): every window is training text held
    whole by the training index, and no planted passage; each set continues each window at
    each prompt length; the table holds every (beam size, prompt length) and the human text."""
    from copyscope.corpus import planted_texts
    from copyscope.index import open as open_index
    from copyscope.io import read_jsonl

    block = TINY["sampling"]["training_prompts"]
    model = TINY["models"]["evaluator"]  # no models given: the evaluator
    windows = list(read_jsonl(tiny_run / "training_prompts/prompts.jsonl"))
    assert len(windows) == block["prompts"]
    index = open_index(tiny_run / "index/bpe")
    slots = [np.asarray(w["prompts"][str(max(block["lengths"]))]) for w in windows]
    assert (index.count_many(slots) > 0).all()
    # the passages planted from outside the natural text (a duplicate's original is natural)
    tok = load_hf_tokenizer(tiny_run / "tokenizers/bpe")
    planted = planted_texts(json.loads((tiny_run / "corpus/manifest.json").read_text()))
    starts = [" ".join(t.split()[:8]) for c in ("ladder", "contamination", "excerpt", "benchmark")
              for t in planted.get(c, [])]  # fmt: skip
    assert starts
    for w in windows:
        text = " ".join(tok.decode(w["prompts"][str(max(block["lengths"]))]).split())
        assert not any(start in text for start in starts)
    for d in block["decodings"]:
        rows = list(read_jsonl(tiny_run / f"training_prompts/samples/{model}/{d}.jsonl"))
        assert sorted((r["window"], r["prompt_length"]) for r in rows) == sorted(
            (i, p) for i in range(len(windows)) for p in block["lengths"]
        )
        assert all(r["prompt"] == windows[r["window"]]["prompts"][str(r["prompt_length"])]
                   for r in rows)  # fmt: skip
    table = pd.read_csv(tiny_run / "tables/novelty_training_prompts.csv")
    ours = table[(table["prompts"] == "training") & (table["source"] == "all")]
    beams = {d: TINY["sampling"]["decodings"][d].get("num_beams", 1) for d in block["decodings"]}
    assert set(zip(ours["decoding"], ours["beams"], ours["prompt_length"], strict=True)) == {
        (d, b, p) for d, b in beams.items() for p in block["lengths"]
    }
    human = table[table["prompts"] == "held-out"]
    assert set(human["prompt_length"]) == {TINY["sampling"]["prompt_length"]}
    assert _brackets(ours, "novelty", "novelty_lo", "novelty_hi")


def test_tiny_run_interval_columns(tiny_run):
    """Every table the tiny run writes names its intervals <quantity>_lo / <quantity>_hi
    (docs/architecture.md, "Interval columns")."""
    import pyarrow.parquet as pq

    tables = sorted(tiny_run.rglob("*.csv")) + sorted(tiny_run.rglob("*.parquet"))
    assert len(tables) > 30
    bad = {}
    for path in tables:
        if path.suffix == ".csv":
            cols = pd.read_csv(path, nrows=0).columns
        else:
            cols = pq.read_schema(path).names
        if problems := interval_problems(cols):
            bad[str(path.relative_to(tiny_run))] = problems
    assert bad == {}


def test_tiny_run_cli_on_built_index(tiny_run):
    env = dict(os.environ)
    idx = tiny_run / "index" / "bpe"
    q = subprocess.run(
        [
            sys.executable,
            "-m",
            "copyscope",
            "query",
            str(idx),
            "--json",
            "--text",
            "Is this a dagger which I see before me",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert q.returncode == 0, q.stderr
    rows = pd.read_json(__import__("io").StringIO(q.stdout))
    assert rows["L"].iloc[-1] >= 5  # Macbeth is in the tiny training split
    t = subprocess.run(
        [
            sys.executable,
            "-m",
            "copyscope",
            "trace",
            str(idx),
            "--plain",
            "--min-len",
            "5",
            "--text",
            "Is this a dagger which I see before me",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert t.returncode == 0, t.stderr
    assert "macbeth@" in t.stdout


def test_report_contains_figures(tiny_run, tmp_path):
    report = tmp_path / "report.html"
    proc = snakemake(
        "--configfile",
        "config/tiny.yaml",
        "--config",
        f"results={tiny_run}",
        "--report",
        str(report),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = report.read_text(errors="replace")
    for f in FIGURES:
        assert f in html, f
    assert f"{tiny_run}/explorer/index.html" in html  # the explorer, linked (rules/explore.smk)
    # grouped by paper as docs/papers/ (copyscope.report.jobs.CATEGORIES); each figure's
    # caption ends with its conditions, rendered from the config (no Jinja left)
    from copyscope.report.jobs import CATEGORIES

    for title in CATEGORIES.values():
        assert title in html, title
    assert "Conditions." in html and "snakemake.config" not in html


def _write_config(tmp_path, mutate):
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    mutate(cfg)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c["index"].update(shard_tokns=5), "shard_tokns"),
        (lambda c: c["index"].update(shard_tokens="many"), "many"),
        (lambda c: c["corpus"].update(source="web"), "web"),
        (lambda c: c["novelty"].update(tokenizers=["nope"]), "novelty.tokenizers"),
    ],
)
def test_bad_config_is_reported(tmp_path, mutate, message):
    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, mutate)))
    assert proc.returncode != 0
    assert message in proc.stdout + proc.stderr


def test_pretrained_model_is_paired_with_its_own_index(tmp_path):
    """A local Hugging Face model brings its tokenizer; the DAG indexes the corpus with it."""
    from copyscope.lm import build_model
    from copyscope.tokenize import from_spec

    path = tmp_path / "my-lm"
    from_spec({"kind": "bpe", "vocab_size": 300}).fit(["to be or not to be"] * 50, path)
    build_model(
        {"kind": "gpt2", "n_layer": 1, "n_embd": 16, "n_head": 2, "n_ctx": 64}, 300, 0
    ).save_pretrained(path)

    def mutate(c):
        c["tokenizers"]["mine"] = {"kind": f"hf:{path}"}
        c["models"]["zoo"]["mine"] = {"kind": "pretrained", "path": str(path), "tokenizer": "mine"}

    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, mutate)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "index/mine/index.json" in out and "samples/mine/pure.jsonl" in out
    assert "models/mine" not in out.replace(str(path), "")  # never trained

    def bad(c):
        mutate(c)
        c["models"]["zoo"]["mine"]["tokenizer"] = "bpe"

    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, bad)))
    assert proc.returncode != 0
    assert "models.zoo.mine.tokenizer" in proc.stdout + proc.stderr


def test_external_index_is_verified_and_linked(tmp_path):
    """tokenizers.<name>.index: the workflow checks an index built elsewhere (every file's
    sha256, the tokenizer's fingerprint) and queries it instead of building one; a damaged
    copy stops the run at that job with the damaged file named."""
    from copyscope.cli import main
    from copyscope.tokenize import encode_split, from_spec, load

    tok_dir = tmp_path / "hf-tok"
    from_spec({"kind": "bpe", "vocab_size": 300}).fit(["to be or not to be"] * 50, tok_dir)
    docs = tmp_path / "other.jsonl"
    docs.write_text(json.dumps({"id": "a", "text": "to be or not to be, that is it"}) + "\n")
    tok = load(f"hf:{tok_dir}", tok_dir)
    encode_split(tok, docs, tmp_path / "other.npy", tmp_path / "other.json", "mine")
    ext = tmp_path / "external-index"
    assert main(["index", "build", str(tmp_path / "other.npy"), str(ext), "--tokenizer",
                 str(tok_dir), "--tokenizer-kind", f"hf:{tok_dir}"]) == 0  # fmt: skip

    def mutate(c):
        c["results"] = str(tmp_path / "results")
        c["tokenizers"]["mine"] = {"kind": f"hf:{tok_dir}", "index": str(ext)}
        c["novelty"]["tokenizers"].append("mine")  # the validation text's novelty against it

    config = str(_write_config(tmp_path, mutate))
    proc = snakemake("-n", "--configfile", config)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "index_link" in proc.stdout
    assert "logs/index_plan/bpe.log" in proc.stdout  # the other tokenizers' indexes are built
    assert "logs/index_plan/mine" not in proc.stdout  # this one is not
    target = tmp_path / "results" / "index" / "mine" / "index.json"
    proc = snakemake("--cores", "1", str(target), "--configfile", config)
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads(target.read_text())
    assert manifest["source_index"] == str(ext.resolve())
    assert manifest["n_tokens"] == json.loads((ext / "index.json").read_text())["n_tokens"]

    target.unlink()
    sa = ext / "shard-000" / "sa.npy"
    sa.write_bytes(sa.read_bytes()[:-4] + bytes(b ^ 0xFF for b in sa.read_bytes()[-4:]))
    proc = snakemake("--cores", "1", str(target), "--configfile", config)
    assert proc.returncode != 0 and not target.exists()
    assert f"{sa} (MISMATCH)" in proc.stderr

    def fanout(c):
        mutate(c)
        c["index"]["query_fanout"] = True

    proc = snakemake("-n", "-p", "--configfile", str(_write_config(tmp_path, fanout)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"--shard {ext / 'shard-000'} --queries" in proc.stdout  # fan-out reads it in place

    def missing(c):
        mutate(c)
        c["tokenizers"]["mine"]["index"] = str(tmp_path / "nowhere")

    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, missing)))
    assert proc.returncode != 0
    assert (
        "config key 'tokenizers.mine.index': expected an index directory (with index.json, from "
        f"`copyscope index build`), found nothing there: '{tmp_path / 'nowhere'}'"
    ) in proc.stdout + proc.stderr


def test_infinigram_index_in_the_config(tmp_path):
    """tokenizers.<name>.index: {format: infini-gram, path}: the workflow checks an infini-gram
    index folder (written by infini-gram's own indexer) and the validation text's novelty is
    measured against it in place, L_t as the folder itself answers; the fan-out and a wrong
    path are config errors."""
    pytest.importorskip("infini_gram")
    from copyscope.index import open as open_index
    from copyscope.tokenize import from_spec, load
    from support.infinigram import build_infinigram

    tok_dir = tmp_path / "hf-tok"
    from_spec({"kind": "bpe", "vocab_size": 300}).fit(["to be or not to be"] * 50, tok_dir)
    tok = load(f"hf:{tok_dir}", tok_dir)
    texts = ["to be or not to be, that is it", "not to be", "the play is the thing"]
    docs = [tok.encode(t).tolist() for t in texts]
    ig = build_infinigram(tmp_path, {"ig": (docs, "u16", 2, True)})["ig"]

    def mutate(c):
        c["results"] = str(tmp_path / "results")
        c["tokenizers"]["mine"] = {
            "kind": f"hf:{tok_dir}",
            "index": {"format": "infini-gram", "path": str(ig)},
        }
        c["novelty"]["tokenizers"].append("mine")

    config = str(_write_config(tmp_path, mutate))
    proc = snakemake("-n", "-p", "--configfile", config)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"--index {ig} --tokenizer" in proc.stdout and "--format infini-gram" in proc.stdout
    assert "logs/index_plan/mine" not in proc.stdout
    target = tmp_path / "results" / "novelty" / "mine" / "valid_matches.parquet"
    proc = snakemake("--cores", "1", str(target), "--configfile", config)
    assert proc.returncode == 0, proc.stderr[-3000:]
    manifest = json.loads((tmp_path / "results" / "index" / "mine" / "index.json").read_text())
    assert manifest["format"] == "infini-gram" and manifest["source_index"] == str(ig.resolve())
    assert manifest["n_tokens"] == sum(len(d) + 1 for d in docs)
    frame = pd.read_parquet(target).sort_values(["text", "t"])
    assert len(frame) > 0 and frame["L"].max() > 0
    queries = [g["token"].to_numpy() for _, g in frame.groupby("text", sort=True)]
    m = open_index(ig).longest_matches(queries)  # the folder itself
    np.testing.assert_array_equal(m.length, frame["L"].to_numpy())
    np.testing.assert_array_equal(m.count, frame["C"].to_numpy())

    def fanout(c):
        mutate(c)
        c["index"]["query_fanout"] = True

    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, fanout)))
    assert proc.returncode != 0
    assert "index.query_fanout: false" in proc.stdout + proc.stderr

    def missing(c):
        mutate(c)
        c["tokenizers"]["mine"]["index"]["path"] = str(tmp_path / "nowhere")

    proc = snakemake("-n", "--configfile", str(_write_config(tmp_path, missing)))
    assert proc.returncode != 0
    assert "'tokenizers.mine.index.path': expected an infini-gram index folder" in (
        proc.stdout + proc.stderr
    )


def test_query_fanout_is_byte_identical(tiny_run, tmp_path):
    """index.query_fanout: one job per (query set, shard) plus a merge job give the very same
    novelty and analysis files as the single-process queries."""
    from support.workflow import fanout_differences, fanout_rerun

    fan = tmp_path / "fanout"
    proc = snakemake("--cores", "2", *fanout_rerun(tiny_run, fan))
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "shard_matches" in proc.stdout + proc.stderr
    assert fanout_differences(tiny_run, fan) == []


def test_a_changed_report_parameter_reruns_its_report_jobs(tiny_run):
    """After the tiny run, nothing is left to do; a changed findings key (its rules' level)
    re-runs the scorecard and the reports that read the findings block, and nothing upstream
    of them (the report jobs' command lines are derived from their files, which Snakemake
    does not compare: the plain ``config`` param is)."""
    base = ("-n", "--configfile", "config/tiny.yaml", "--config", f"results={tiny_run}")
    same = snakemake(*base)
    assert same.returncode == 0, same.stderr[-2000:]
    assert "Nothing to be done" in same.stdout + same.stderr
    changed = snakemake(*base, "findings={alpha: 0.01}")
    assert changed.returncode == 0, changed.stderr[-2000:]
    jobs = set(re.findall(r"^(?:local)?rule (\w+):", changed.stdout, re.MULTILINE))
    assert "report_findings" in jobs and "report_calibration" in jobs, jobs
    assert not jobs & {"train_model", "sample", "analyze", "probe", "parse"}, jobs


def test_a_missing_intermediate_file_is_rebuilt(tiny_run):
    """An interrupted ``--forcerun sample`` leaves a model's samples removed while everything
    downstream is still there (issue 41): the next plain run rebuilds them and what reads them,
    not "Nothing to be done"."""
    base = ("-n", "--configfile", "config/tiny.yaml", "--config", f"results={tiny_run}")
    samples = tiny_run / "samples" / "gpt2-b"
    aside = tiny_run.parent / "gpt2-b-aside"
    samples.rename(aside)
    try:
        proc = snakemake(*base)
    finally:
        aside.rename(samples)
    assert proc.returncode == 0, proc.stderr[-2000:]
    jobs = set(re.findall(r"^(?:local)?rule (\w+):", proc.stdout, re.MULTILINE))
    assert {"sample", "analyze", "report_novelty"} <= jobs, jobs
    again = snakemake(*base)
    assert "Nothing to be done" in again.stdout + again.stderr
