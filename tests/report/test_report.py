"""The report stage: summary registry, labelled inputs, one command per analysis."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from copyscope.cli import main
from copyscope.errors import InputError
from copyscope.report import (
    ANALYSES,
    analyses,
    books,
    contamination,
    loops,
    membership,
    name_cloze,
    own_benchmarks,
)
from copyscope.report import novelty as rd
from copyscope.report.summary import markdown, sections, write_summary
from support.figures import pixels

PARAMS = {
    "sampling": {"prompts": 8, "prompt_length": 8, "new_tokens": 24},
    "models": {"tokenizer": "bpe", "evaluator": "gpt2"},
    "analysis": {
        "supercopy_min": 6,
        "planted_min_copy": 4,
        "memorization": {"prompt_tokens": 8, "suffix_tokens": 8},
        "syntax": {"template_headline_n": 6},
    },
}


MEMBERSHIP_EMPTY = {f"membership_{k}": v for k, v in membership.EMPTY.items()}
OWN_EMPTY = {f"own_benchmark_{k}": v for k, v in own_benchmarks.EMPTY.items()}


def synthetic_tables() -> dict[str, pd.DataFrame]:
    """Small tables with the columns the summary sections read (values chosen by hand)."""
    nnsl = pd.DataFrame(
        {
            "model": ["human", "gpt2", "gpt2", "gpt2", "lstm"],
            "decoding": ["reference", "pure", "greedy", "pure", "pure"],
            "prompt_length": [8, 8, 8, 16, 8],
            "mean_nnsl": [2.5, 3.25, 7.125, 3.0, 2.0],
            "mean_nnsl_lo": [2.25, 3.0, 6.5, 2.5, 1.75],
            "mean_nnsl_hi": [2.75, 3.5, 7.75, 3.5, np.nan],
        }
    )
    rows = []
    for m, d, p, base in [
        ("human", "reference", 8, 0.5),
        ("gpt2", "pure", 8, 0.25),
        ("gpt2", "greedy", 8, 0.125),
        ("gpt2", "pure", 16, 0.75),
        ("lstm", "pure", 8, 0.375),
    ]:
        for n in (1, 2, 4, 8):
            rows.append(
                {"model": m, "decoding": d, "prompt_length": p, "n": n, "novelty": base * n / 4}
            )
    curves = pd.DataFrame(rows)
    curves["novelty"] = curves["novelty"].clip(upper=1.0)
    curves.loc[(curves["model"] == "lstm") & (curves["n"] == 8), "novelty"] = np.nan
    raven = pd.DataFrame(
        {
            "model": ["human", "human", "gpt2", "gpt2", "gpt2"],
            "decoding": ["reference", "reference", "pure", "pure", "greedy"],
            "source": ["union", "train", "union", "train", "union"],
            "truncated_score": [2.0, 1.5, 2.25, 1.75, 4.5],
            "novelty_1": [0.0625, 0.125, 0.03125, 0.5, 0.0],
            "novelty_4": [0.875, 0.9, 0.8125, 0.9, 0.1],
            "perplexity": [123.456, 123.456, 98.7654, 98.7654, 3.21],
        }
    )
    supercopies = pd.DataFrame(
        {"model": ["gpt2"] * 3, "decoding": ["greedy"] * 3, "text": [0, 1, 1], "length": [7, 9, 6]}
    )
    planted = pd.DataFrame(
        {
            "model": ["gpt2"] * 4,
            "decoding": ["pure"] * 4,
            "id": ["a", "b", "c", "d"],
            "copies": [1, 1, 6, 6],
            "longest_copy": [0, 5, 12, 30],
            "reproduced": [False, True, True, True],
        }
    )
    memorization = pd.DataFrame(
        {
            "model": ["gpt2", "gpt2"],
            "copies": [0, 4],
            "extraction_rate": [0.0, 0.5],
            "extraction_rate_lo": [0.0, 0.25],
            "extraction_rate_hi": [0.0, 0.75],
        }
    )
    training = pd.DataFrame(
        {
            "step": [10, 20, 30, 10, 20],
            "tokens": [100, 200, 300, 100, 200],
            "valid_loss": [5.0, 4.5, 4.25, 6.0, 5.5],
            "model": ["gpt2", "gpt2", "gpt2", "lstm", "lstm"],
        }
    )
    completion = pd.DataFrame(
        {
            "model": ["gpt2", "gpt2", "gpt2", "gpt2", "lstm"],
            "n": [4, 4, 4, 8, 4],
            "log10_count": [2, 0, 3, 1, 1],
            "loss": [1.5, 4.25, 0.5, 2.0, 3.0],
            "tokens": [10, 40, 9, 12, 30],  # the 10^3 bucket is too small for the summary
        }
    )
    novelty_rows = []
    for m, d, fam, base in [
        ("human", "reference", "human", 0.5),
        ("gpt2", "pure", "pure", 0.25),
        ("gpt2", "greedy", "greedy", 0.0),  # not pure sampling: left out
    ]:
        for unit, scale, total in [
            ("pos_sequence", 1.0, 10),
            ("constituency_structure", 0.0, 0),  # no constituency parser: left out
            ("dependency_structure", 1.5, 10),
            ("labeled_arc", 0.5, 40),
            ("labeled_path_3", 1.0, 40 if m != "gpt2" else 0),  # n/a for gpt2
        ]:
            v = base * scale if total else np.nan
            novelty_rows.append(
                {"model": m, "decoding": d, "decoding_family": fam, "unit": unit, "total": total}
                | {"novelty": v, "novelty_lo": v - 0.125, "novelty_hi": v + 0.125}
            )
    templates = pd.DataFrame(
        {
            "model": ["human", "human", "gpt2", "gpt2"],
            "decoding": ["reference", "reference", "pure", "greedy"],
            "decoding_family": ["human", "human", "pure", "greedy"],
            "n": [4, 6, 6, 6],
            "template_rate": [0.75, 0.5, 0.875, 1.0],
            "templates_per_token": [0.25, 0.125, 0.25, 1.0],
            "cr": [2.5, 2.5, 3.0, 9.0],
            "cr_pos": [4.0, 4.0, 5.0, 9.0],
        }
    )
    coverage = pd.DataFrame(
        {
            "model": ["human", "gpt2", "gpt2"],
            "decoding": ["reference", "pure", "greedy"],
            "decoding_family": ["human", "pure", "greedy"],
            "n": [6, 6, 6],
            "cut": [100, 100, 100],
            "coverage_templates": [0.5, 0.75, 1.0],
            "coverage_non_templates": [0.25, np.nan, 1.0],
            "p_value": [0.01, np.nan, 1.0],
        }
    )
    style = pd.DataFrame(
        {
            "model": ["gpt2", "gpt2"],
            "source": ["ladder", "all"],
            "stratum": ["4", "repeated"],
            "n": [4, 12],
            **{
                f"{m}{suffix}": [0.5, v + d]
                for m, v in (("exact_rate", 0.25), ("pos_rate", 0.5))
                for suffix, d in (("", 0.0), ("_lo", -0.125), ("_hi", 0.125))
            },
        }
    )
    return {
        "syntax_novelty": pd.DataFrame(novelty_rows),
        "style_memorization": style,
        "templates": templates,
        "template_coverage": coverage,
        "nnsl_samples": nnsl,
        "novelty_samples": curves,
        # a run without sampling.training_prompts: its section is left out
        "novelty_training_prompts": pd.DataFrame(
            columns=["source", "prompts", "model", "beams", "prompt_length", "n", "novelty"]
        ),
        "completion_loss_frequency": completion,
        "completion_loss_slope": pd.DataFrame(  # one row per model and n: a model was measured
            {"model": ["gpt2"], "n": [4], "tokens": [3], "texts": [2], "slope": [-0.5],
             "slope_lo": [-0.9], "slope_hi": [-0.1]}
        ),  # fmt: skip
        # no greedy samples: no loops section (tests/report/test_loops.py writes one)
        "loops": pd.DataFrame(columns=loops.COLUMNS),
        "raven_summary": raven,
        "supercopies": supercopies,
        "creativity_index": pd.DataFrame(
            {
                "model": ["human", "gpt2", "gpt2", "gpt2"],
                "decoding": ["reference", "pure", "greedy", "pure"],
                "source": ["all", "all", "all", "natural"],
                "index": [7.5, 6.0, 2.0, 7.0],
                "index_lo": [7.25, 5.5, 1.5, 6.5],
                "index_hi": [7.75, 6.5, 2.5, 7.5],
                "texts": [8, 8, 8, 8],
            }
        ),
        "planted": planted,
        "memorization": memorization,
        "training": training,
        # no planted contamination set: the membership section is empty
        **{n: pd.DataFrame(columns=c) for n, c in MEMBERSHIP_EMPTY.items()},
        # no own benchmark: that section is empty too
        **{n: pd.DataFrame(columns=c) for n, c in OWN_EMPTY.items()},
        # nothing looked up: no contamination section
        "contamination_rates": pd.DataFrame(columns=contamination.RATE_COLUMNS),
        "contamination_known": pd.DataFrame(columns=contamination.KNOWN_COLUMNS),
        "membership_books": pd.DataFrame(columns=books.COLUMNS),
    }


# summary.md of synthetic_tables() as the pre-registry summary code wrote it (commit 3e79588)
EXPECTED = """\
# copyscope summary

Training corpus: 123,456 tokens (bpe); 8 prompts of 8 tokens, 24 new tokens per sample.

## n-gram novelty (Merrill et al.), pure sampling vs. human text

| model | mean L_t | novelty(4) | novelty(8) |
|---|---|---|---|
| human | 2.5 [2.25, 2.75] | 0.5 | 1 |
| gpt2 | 3.25 [3, 3.5] | 0.25 | 0.5 |
| lstm | 2 [1.75, n/a] | 0.375 | n/a |

Decoding (gpt2): mean L_t ranges from 3.25 (pure) to 7.12 (greedy).

Completion loss vs training count (held-out text, tokens t ≥ 1 with L_t = n, buckets of ≥ 10 \
tokens): gpt2, 4-grams: 4.25 nats at ~10^0 occurrences → 1.5 at ~10^2; gpt2, 8-grams: 2 nats \
(all at ~10^1); lstm, 4-grams: 3 nats (all at ~10^1).

## RAVEN (McCoy et al.), Moses words, training ∪ context

| model | decoding | truncated score | novelty(1) | novelty(4) | perplexity |
|---|---|---|---|---|---|
| human | reference | 2 | 0.0625 | 0.875 | 123 |
| gpt2 | pure | 2.25 | 0.0312 | 0.812 | 98.8 |

Supercopies (≥ 6 words copied from training): 3 passages over all settings.

## Creativity Index (Lu et al. 2024)

Sum of L-uniqueness over L = 5..12 words (maximum 8), pure sampling and human text, against all \
training text: human 7.5 [7.25, 7.75]; gpt2 6 [5.5, 6.5].

## Planted duplicates (passages copied m more times into training)

m = 1: 50% reproduced, mean longest copy 2.5 tokens; m = 6: 1e+02% reproduced, mean longest \
copy 21 tokens (a copy counts from 4 tokens; all models and decodings pooled).

## Memorization ladder (extraction test, Carlini et al. 2023)

Share of passages whose greedy continuation of their first 8 tokens equals their next 8 \
tokens, by the number of copies in training (95% bootstrap CI over passages; controls were \
never planted):

- gpt2: controls 0 [0, 0]; 4× 0.5 [0.25, 0.75]

## Syntactic novelty (RAVEN, McCoy et al.), against the training parses

Share of generated items absent from every training parse (95% CI over passages):

| model | decoding | POS sequence | parse structure (dependency tree of tags) | \
dependency arc (labeled) | labeled path, k = 3 |
|---|---|---|---|---|---|
| human | reference | 0.5 [0.375, 0.625] | 0.75 [0.625, 0.875] | 0.25 [0.125, 0.375] | \
0.5 [0.375, 0.625] |
| gpt2 | pure | 0.25 [0.125, 0.375] | 0.375 [0.25, 0.5] | 0.125 [0, 0.25] | n/a |

## Syntactic templates (Shaib et al.), POS 6-grams

| model | decoding | template rate | templates per token | CR | CR-POS |
|---|---|---|---|---|---|
| human | reference | 0.5 | 0.125 | 2.5 | 4 |
| gpt2 | pure | 0.875 | 0.25 | 3 | 5 |

## Templates in the training data (Shaib et al.)

Share of each setting's templates (POS 6-grams) among the training's 100 most frequent POS \
n-grams, vs. as many random non-template n-grams of the same texts; two-sided Mann–Whitney U \
on their training ranks:

| model | decoding | templates | non-templates | p |
|---|---|---|---|---|
| human | reference | 0.5 | 0.25 | 0.01 |
| gpt2 | pure | 0.75 | n/a | n/a |

## Style vs exact memorization (Shaib et al. §8)

Share of passages seen in training (ladder passages and repeated training n-grams) whose \
greedy continuation reproduces the true continuation's words (exact) and its POS-tag sequence \
(POS), 95% bootstrap CI over passages:

- gpt2 (12 passages): exact 0.25 [0.12, 0.38], POS 0.5 [0.38, 0.62]

## Models

lstm: validation loss 5.5 nats/token; gpt2: validation loss 4.25 nats/token.
"""


def test_registry_sections_reproduce_the_summary():
    assert list(sections()) == [
        "novelty",
        "training-prompts",
        "completion-loss",
        "loops",
        "raven",
        "supercopies",
        "creativity",
        "planted",
        "memorization",
        "syntax-novelty",
        "templates",
        "template-coverage",
        "style",
        "membership",
        "own-benchmarks",
        "contamination",
        "books",
        "training",
    ]
    assert markdown(synthetic_tables(), 123456, PARAMS) == EXPECTED


def test_sections_without_planted_passages_or_trained_models_are_left_out():
    tables = synthetic_tables()
    tables["planted"] = tables["planted"].iloc[:0]
    tables["memorization"] = tables["memorization"].iloc[:0]
    for name in ("syntax_novelty", "templates", "template_coverage", "style_memorization"):
        tables[name] = tables[name].iloc[:0]
    tables["training"] = pd.DataFrame()
    text = markdown(tables, 10, PARAMS)
    assert text == EXPECTED[: EXPECTED.index("\n## Planted")].replace("123,456", "10")


def test_completion_loss_summary_without_large_buckets():
    tables = synthetic_tables()
    tables["completion_loss_frequency"] = tables["completion_loss_frequency"].assign(tokens=9)
    text = markdown(tables, 10, PARAMS)
    assert (
        "\nCompletion loss vs training count (held-out text, tokens t ≥ 1 with L_t = n): no bucket "
        "of n ∈ {4, 8, 16, 32, 64, 128} has ≥ 10 tokens.\n" in text
    )


def test_completion_loss_summary_without_a_model():
    from copyscope.report.completion_loss import NO_MODEL

    tables = synthetic_tables()
    tables["completion_loss_frequency"] = tables["completion_loss_frequency"].iloc[:0]
    tables["completion_loss_slope"] = tables["completion_loss_slope"].iloc[:0]
    text = markdown(tables, 10, PARAMS)
    head = "\nCompletion loss vs training count (held-out text, tokens t ≥ 1 with L_t = n)"
    assert f"{head}: not measured: {NO_MODEL}.\n" in text


def test_completion_loss_summary_of_a_measured_model_without_fixed_n_tokens():
    tables = synthetic_tables()  # a model measured (slope rows), no token at any fixed n
    tables["completion_loss_frequency"] = tables["completion_loss_frequency"].iloc[:0]
    text = markdown(tables, 10, PARAMS)
    assert "no bucket of n ∈ {4, 8, 16, 32, 64, 128} has ≥ 10 tokens." in text
    assert "not measured" not in text


def test_completion_loss_command_without_a_model(tmp_path):
    """A run whose models all have tokenizers other than the index's (Pythia against the Pile's
    Llama-2 index): no --losses at all; the three tables are headers only, the figures say
    why (the command used to fail, and with it the Merrill paper configuration)."""
    from copyscope.novelty.metrics import COMPLETION_COLUMNS, FREQUENCY_COLUMNS, SLOPE_COLUMNS

    flags = {"t": "table", "fig": "fig", "f": "frequency", "ff": "fig-frequency", "s": "slope"}
    out = {k: tmp_path / f"{k}.{'png' if 'fig' in k else 'csv'}" for k in flags}
    argv = ["report", "completion-loss", "--params-json", '{"novelty": {"bootstrap": 5}}']
    for k, flag in flags.items():
        argv += [f"--out-{flag}", str(out[k])]
    assert main(argv) == 0
    for k, cols in (("t", COMPLETION_COLUMNS), ("f", FREQUENCY_COLUMNS), ("s", SLOPE_COLUMNS)):
        table = pd.read_csv(out[k])
        assert list(table.columns) == list(cols) and table.empty, k
    for k in ("fig", "ff"):
        assert pixels(out[k]).std() > 0, k  # the reason is drawn


def test_summary_reads_only_its_tables_through_the_command(tmp_path):
    tables = synthetic_tables()
    args = []
    for name, frame in tables.items():
        path = tmp_path / f"{name}.csv"
        if name == "training":  # one log per model, labelled on the command line
            for model, g in frame.groupby("model", sort=False):
                g.drop(columns="model").to_csv(tmp_path / f"{model}.csv", index=False)
                args += ["--training-log", model, str(tmp_path / f"{model}.csv")]
        else:
            frame.to_csv(path, index=False)
            args += ["--table", name, str(path)]
    (tmp_path / "index.json").write_text('{"n_tokens": 123456}')
    out = tmp_path / "summary.md"
    params = '{"sampling": {"prompts": 8, "prompt_length": 8, "new_tokens": 24}, '
    params += '"models": {"tokenizer": "bpe", "evaluator": "gpt2"}, '
    params += '"analysis": {"supercopy_min": 6, "planted_min_copy": 4, '
    params += '"memorization": {"prompt_tokens": 8, "suffix_tokens": 8}, '
    params += '"syntax": {"template_headline_n": 6}}}'
    argv = ["report", "summary", *args, "--index-manifest", str(tmp_path / "index.json")]
    assert main([*argv, "--params-json", params, "--out", str(out)]) == 0
    assert out.read_text() == EXPECTED


def test_summary_names_a_missing_table(tmp_path):
    path = tmp_path / "x.csv"
    synthetic_tables()["planted"].to_csv(path, index=False)
    (tmp_path / "index.json").write_text('{"n_tokens": 5}')
    with pytest.raises(InputError, match="nnsl_samples"):
        write_summary([("planted", path)], [], tmp_path / "index.json", PARAMS, tmp_path / "s.md")


def test_every_analysis_module_declares_its_command():
    assert [m.__name__.rsplit(".", 1)[1] for m in analyses()] == list(ANALYSES)
    for m in analyses():
        assert m.NAME and m.HELP and m.INPUTS and m.OUTPUTS and callable(m.run)
        for spec in m.INPUTS.values():
            assert spec.labels and spec.help
        assert hasattr(m, "summary_section") == hasattr(m, "SUMMARY_TABLES")


def test_labelled_inputs_keep_their_order_and_labels(tmp_path):
    """``report supercopies`` concatenates per-setting tables in command-line order."""
    argv = ["report", "supercopies"]
    for model, decoding, n in (("human", "reference", 1), ("gpt2", "pure", 2), ("gpt2", "beam", 0)):
        path = tmp_path / f"{model}_{decoding}.csv"
        pd.DataFrame({"text": range(n), "length": [7] * n}).to_csv(path, index=False)
        argv += ["--supercopies", model, decoding, str(path)]
    out = tmp_path / "supercopies.csv"
    more = ["--out-counts", str(tmp_path / "by_source.csv"), "--out-fig", str(tmp_path / "s.png")]
    assert main([*argv, "--out-table", str(out), *more]) == 0
    table = pd.read_csv(out)
    assert list(table.columns) == ["model", "decoding", "text", "length"]
    assert table[["model", "decoding"]].values.tolist() == [
        ["human", "reference"],
        ["gpt2", "pure"],
        ["gpt2", "pure"],
    ]


def test_novelty_tables_label_each_setting_and_prompt_length():
    tokens = pd.DataFrame(
        {"text": [0, 0, 0, 1, 1, 2], "prompt_length": [0, 0, 0, 0, 0, 4], "L": [1, 2, 0, 1, 1, 3]}
    )
    novelty = {
        "n_max": 3,
        "bootstrap": 10,
        "seed": 0,
        "lower_bound": {"p": 0.9, "bits_per_token": 1.8},
    }
    decodings = {"pure": {"kind": "sample", "temperature": 1.0}, "greedy": {"kind": "greedy"}}
    curves, nnsl = rd.build(
        [("human", "reference", tokens), ("m", "greedy", tokens)],
        {"human": 10, "m": 20},
        novelty,
        decodings,
    )
    assert nnsl[["model", "decoding", "family", "prompt_length"]].values.tolist() == [
        ["human", "reference", "human", 0],
        ["human", "reference", "human", 4],
        ["m", "greedy", "greedy", 0],
        ["m", "greedy", "greedy", 4],
    ]
    # mean L_t over the tokens of the prompt-length-0 texts: (1 + 2 + 0 + 1 + 1) / 5
    assert nnsl["mean_nnsl"].iloc[0] == pytest.approx(1.0)
    assert nnsl["corpus_tokens"].tolist() == [10, 10, 20, 20]
    # novelty(1) at prompt length 0: one of five tokens has L_t < 1
    first = curves[(curves["model"] == "human") & (curves["prompt_length"] == 0)]
    assert first.set_index("n")["novelty"][1] == pytest.approx(0.2)
    assert len(curves) == 4 * novelty["n_max"]


def test_completion_loss_command_on_hand_made_frames(tmp_path):
    """``report completion-loss`` on two models' per-token frames (text, L, C, loss): the
    curves table, the loss-vs-frequency table and both figures."""
    rng = np.random.default_rng(0)
    argv = ["report", "completion-loss"]
    for model, shift in (("big", 0.0), ("small", 1.0)):
        rows = []
        for text in range(40):
            L = np.array([0, 1, 2, 3, 4, 4, 8, 1])
            C = np.array([10**6, 5000, 300, 30, 20, 400, 3, 9000])
            loss = 5.0 - 0.5 * np.log10(C) + shift + rng.normal(0, 0.1, size=8)
            rows.append(pd.DataFrame({"text": text, "t": range(8), "L": L, "C": C, "loss": loss}))
        path = tmp_path / f"{model}.parquet"
        pd.concat(rows).to_parquet(path)
        argv += ["--losses", model, str(path)]
    keys = ("t", "fig", "f", "ff", "s")
    out = {k: tmp_path / f"{k}.{'png' if 'fig' in k else 'csv'}" for k in keys}
    params = '{"novelty": {"bootstrap": 50, "seed": 0}}'
    argv += ["--params-json", params, "--out-table", str(out["t"]), "--out-fig", str(out["fig"])]
    argv += ["--out-frequency", str(out["f"]), "--out-fig-frequency", str(out["ff"])]
    assert main([*argv, "--out-slope", str(out["s"])]) == 0
    curves = pd.read_csv(out["t"])
    assert list(dict.fromkeys(curves["model"])) == ["big", "small"]
    big = curves[(curves["model"] == "big") & (curves["curve"] == "in training")]
    assert big.set_index("x")["tokens"].to_dict() == {1: 80, 2: 40, 3: 40, 4: 80, 8: 40}
    freq = pd.read_csv(out["f"])
    # L = 4 at C 20 (→ 1) and 400 (→ 3), L = 8 at C 3 (→ 0); L = 1, 2, 3 are not fixed sizes
    assert freq[freq["model"] == "big"][
        ["n", "log10_count", "tokens", "texts"]
    ].values.tolist() == [
        [4, 1, 40, 40],
        [4, 3, 40, 40],
        [8, 0, 40, 40],
    ]
    small = freq[freq["model"] == "small"].set_index(["n", "log10_count"])["loss"]
    assert small[(4, 1)] > small[(4, 3)]  # the planted frequency effect
    assert ((freq["loss_lo"] <= freq["loss"]) & (freq["loss"] <= freq["loss_hi"])).all()
    # the figures draw the tables: with the two models' frames swapped, other pixels
    assert (argv[3], argv[6]) == ("big", "small")
    again = {str(p): str(p.with_name(f"{p.stem}2{p.suffix}")) for p in out.values()}
    swapped = [again.get(a, a) for a in argv]
    swapped[4], swapped[7] = argv[7], argv[4]
    assert main([*swapped, "--out-slope", again[str(out["s"])]]) == 0
    for k in ("fig", "ff"):
        assert not np.array_equal(pixels(out[k]), pixels(again[str(out[k])]))
    slope = pd.read_csv(out["s"]).set_index(["model", "n"])
    # loss = 5 − 0.5 log10 C (+ noise) at L = 4 (C 20, 400); L = 8 has one count (3)
    assert slope.loc[("big", 4), "tokens"] == 80 and slope.loc[("big", 4), "texts"] == 40
    assert abs(slope.loc[("small", 4), "slope"] + 0.5) < 0.1
    assert slope.loc[("big", 4), "slope_lo"] < -0.4 and slope.loc[("big", 4), "slope_hi"] < 0
    assert np.isnan(slope.loc[("big", 8), "slope"]) and slope.loc[("big", 16), "tokens"] == 0


def test_raven_contrasts_by_hand():
    """Setting g/greedy at prompt lengths 0 and 8 (main 8), two windows; m/pure at 8 only.

    At 0 both windows generate the same words [5, 6] (union scores 1, 2): one distinct text,
    score 1.5. At 8: window 0 [5, 7] (union 3, 3; train 2, 1), window 1 [9] (union 6 → 5;
    train 1): two distinct texts, union score 11/3, train 4/3."""
    from copyscope.report.raven import CONTRAST_COLUMNS, contrasts, distinct_texts

    def words(plen, window, ids, union, train):
        n = len(ids)
        return pd.DataFrame(
            {"window": window, "prompt_length": plen, "t": range(n), "word": ids,
             "s_union": union, "s_train": train}
        )  # fmt: skip

    parts = [
        words(0, 0, [5, 6], [1, 2], [1, 1]),
        words(0, 1, [5, 6], [1, 2], [1, 1]),
        words(8, 0, [5, 7], [3, 3], [2, 1]),
        words(8, 1, [9], [6], [1]),
    ]
    g = pd.concat(parts, ignore_index=True)
    g["text"] = np.repeat([0, 1, 2, 3], [2, 2, 2, 1])
    m = pd.concat(parts[2:], ignore_index=True)
    m["text"] = np.repeat([0, 1], [2, 1])
    assert distinct_texts(g[g["prompt_length"] == 0]) == 1 and distinct_texts(m) == 2
    sampling = {"prompt_length": 8}
    t = contrasts([("g", "greedy", g), ("m", "pure", m)], {"bootstrap": 0, "seed": 0}, sampling)
    assert list(t.columns) == CONTRAST_COLUMNS
    rows = t[["kind", "model", "a", "b", "distinct_a", "distinct_b"]].values.tolist()
    assert rows == [
        ["prompt_length", "g", 0, 8, 1, 2],
        ["source", "g", "union", "train", 2, 2],
        ["source", "m", "union", "train", 2, 2],
    ]
    assert t["delta"].tolist() == pytest.approx([1.5 - 11 / 3, 11 / 3 - 4 / 3, 11 / 3 - 4 / 3])
    assert t["delta_lo"].isna().all()
    b = contrasts([("g", "greedy", g)], {"bootstrap": 200, "seed": 1}, sampling)
    again = contrasts([("g", "greedy", g)], {"bootstrap": 200, "seed": 1}, sampling)
    assert b.equals(again)
    assert (b["delta_lo"] <= b["delta"] + 1e-12).all() and (
        b["delta"] <= b["delta_hi"] + 1e-12
    ).all()
    # union ≥ train on every token: no resample of the texts can make the difference negative
    assert b.loc[b["kind"] == "source", "delta_lo"].iloc[0] > 0
    # paired over windows: window 0 alone gives 1.5 − 3, window 1 alone 1.5 − 5
    pl = b[b["kind"] == "prompt_length"].iloc[0]
    assert pl["delta_lo"] >= 1.5 - 5 - 1e-12 and pl["delta_hi"] <= 1.5 - 3 + 1e-12


def test_membership_summary_section():
    place = pd.DataFrame(
        [
            ("m", "contamination_planted", 0.9, 0.7, 1.1),
            ("m", "contamination_unplanted", 0.1, -0.1, 0.3),
            ("m", "clean", 0.0, 0.0, 0.0),
        ],
        columns=["model", "set", "position", "position_lo", "position_hi"],
    )
    det = pd.DataFrame(
        [("m", "planted", "loss", 0.6, 0.5, 0.7), ("m", "planted", "min_k_20", 0.8, 0.7, 0.9)],
        columns=["model", "label_set", "detector", "auc", "auc_lo", "auc_hi"],
    )
    summ = pd.DataFrame(
        [("m", "train", 0.5, 0.1), ("m", "valid", 0.2, 0.1)],
        columns=["model", "split", "acc_insensitive", "chance"],
    )
    tables = {
        "membership_placement": place,
        "membership_detectors": det,
        "membership_cloze_summary": summ,
    }
    (line,) = [x for x in membership.summary_section(tables, {}) if x.startswith("- m:")]
    assert "contamination_planted 0.9 [0.7, 1.1]" in line and "clean" not in line
    assert "AUC min_k_20 0.8 [0.7, 0.9]" in line and "cloze valid 0.2 (chance 0.1)" in line


def test_membership_report_without_cloze_items(tmp_path):
    """Texts scored but no cloze item fits the context: empty cloze tables with headers."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(24):
        s = ("contamination", "memorised", "clean")[i % 3]
        planted = int(s == "memorised" or (s == "contamination" and i % 2 == 0))
        copies = (1 + 3 * (i % 4 == 0)) * planted  # planted items: 1 or 4 copies
        row = {"model": "m", "set": s, "id": f"{s}-{i}", "planted": planted, "copies": copies}
        row["n_params"] = 10
        row |= {k: float(rng.random()) + 0.1 for k in membership.MEMBER_SIGN if k != "reference"}
        row["li_nll"] = float(rng.random()) + 1
        rows.append(row)
    texts = tmp_path / "texts.csv"
    pd.DataFrame(rows).to_csv(texts, index=False)
    cloze = tmp_path / "cloze.csv"
    pd.DataFrame(columns=["model", "play", "split"]).to_csv(cloze, index=False)
    # the contamination set's texts (blind baselines) and their training overlap
    keys = {"contamination": "items", "memorised": "memorised", "clean": "clean"}
    block = {k: [] for k in keys.values()}
    for r in rows:
        text = " ".join(rng.choice(["a", "b", "c", "d"], size=int(rng.integers(3, 9))))
        block[keys[r["set"]]].append({"id": r["id"], "copies": r["copies"], "text": text})
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"contamination": block}))
    ov = pd.DataFrame(
        [
            {"set": r["set"], "id": r["id"], "overlap_7": rng.random() * (1 - r["planted"])}
            for r in rows
        ]
    ).assign(overlap_13=0.0)
    ov.loc[[r["planted"] == 1 for r in rows], ["overlap_7", "overlap_13"]] = 1.0
    ov.to_csv(tmp_path / "overlap.csv", index=False)
    out = {k: tmp_path / f"{k}.csv" for k in membership.EMPTY}
    out |= {k: tmp_path / f"{k}.png" for k in membership.OUTPUTS if k.startswith("fig")}
    params = {"bootstrap": 50, "seed": 0, "reference": None}
    inputs = {"texts": [("m", texts)], "cloze": [("m", cloze)], "manifest": [("corpus", manifest)]}
    membership.run(inputs | {"overlap": [("bpe", tmp_path / "overlap.csv")]}, out, params)
    assert pd.read_csv(out["cloze_summary"]).empty
    det = pd.read_csv(out["detectors"])
    assert set(det["label_set"]) == {"planted", "training"}
    assert "reference" not in set(det["detector"])  # the only model is its own reference
    loss = det[det["detector"] == "loss"]
    assert (loss[["delta_auc_vs_loss", "delta_auc_vs_loss_lo", "delta_auc_vs_loss_hi"]] == 0).all().all()
    assert det["delta_auc_vs_loss_lo"].le(det["delta_auc_vs_loss"]).all()
    place = pd.read_csv(out["placement"]).set_index("set")
    assert place.loc["memorised", "position"] == 1.0
    planted = [s for s in place.index if s.startswith("contamination_copies_")]
    assert planted == ["contamination_copies_1", "contamination_copies_4"]
    assert place.loc["contamination_copies_4", "copies"] == 4
    assert place.loc["contamination_unplanted", "copies"] == 0
    n = place.loc[["contamination_copies_1", "contamination_copies_4"], "n"].sum()
    assert n == place.loc["contamination_planted", "n"]
    # issue 19 §4: low-FPR columns (4 and 8 non-members: 1% not estimable), blind rows
    # and margins, overlap strata, calibration/test thresholds
    assert set(det["detector"]) >= {"blind_length", "blind_bow"}
    assert det["tpr_at_1fpr"].isna().all() and (det["tpr_at_1fpr_fp"] == 0).all()
    margin = det["delta_auc_vs_blind"]
    assert np.allclose(margin, det["auc"] - det["blind_auc"], atol=1e-5)
    strata = pd.read_csv(out["strata"])
    assert set(strata["n"]) == {7, 13} and set(strata["bin"]) == {"none", "low", "mid", "high"}
    thr = pd.read_csv(out["thresholds"])
    assert set(thr["rule"]) == {"fpr_0.001", "fpr_0.01", "fpr_0.05", "zero_fp", "best_balanced"}
    assert pd.read_csv(out["overlap"])["texts"].sum() == 2 * 24  # every text, n = 7 and 13


def _cloze_frame(plays: dict[str, tuple[str, int, list[int], list[float]]]) -> pd.DataFrame:
    """Cloze rows of model m: play → (split, excerpt copies, correctness per item, match
    fraction per item)."""
    rows = []
    for play, (split, copies, correct, match) in plays.items():
        for i, (c, f) in enumerate(zip(correct, match, strict=True)):
            rows.append(
                {
                    "model": "m",
                    "play": play,
                    "split": split,
                    "excerpt_copies": copies,
                    "item": f"{play}-{i}",
                    "n_candidates": 4,
                    "correct_insensitive": c,
                    "correct_sensitive": c,
                    "match_fraction": f,
                    "lcp": 0,
                    "exact": 0,
                }
            )
    return pd.DataFrame(rows)


CLOZE_PLAYS = {
    # training plays: accuracy and overlap rise together (r = 1 within training)
    "t1": ("train", 0, [1, 0, 0, 0], [0.25] * 4),
    "t2": ("train", 0, [1, 1, 0, 0], [0.5] * 4),
    "t3": ("train", 0, [1, 1, 1, 0], [0.75] * 4),
    "t4": ("train", 0, [1, 1, 1, 1], [1.0] * 4),
    # a held-out play with high overlap and no correct item: would lower r if pooled
    "v": ("valid", 0, [0, 0, 0, 1], [1.0] * 4),
    "e2": ("excerpt", 2, [1, 0], [0.0] * 2),
    "e8": ("excerpt", 8, [1, 1], [0.0] * 2),
}


def test_cloze_excerpt_groups_trend_and_within_training_r():
    cloze = _cloze_frame(CLOZE_PLAYS)
    ex = name_cloze.cloze_excerpt_rows(cloze, n_boot=200, seed=0)
    assert list(ex.columns) == [
        "model", "group", "copies", "plays", "items",
        "acc_insensitive", "acc_insensitive_lo", "acc_insensitive_hi", "p_up", "p_down",
    ]  # fmt: skip
    assert ex["p_up"].isna().tolist() == [False, True, False, False, False]
    # excerpt-pooled (e2, e8: 3 of 4) vs held-out v (1 of 4): the 3 relabellings of 3 plays
    pooled = ex.set_index("group").loc["excerpt-pooled"]
    assert pooled["p_up"] == pytest.approx(1 / 3, abs=0.08) and pooled["p_down"] == 1.0
    got = ex[["group", "copies", "plays", "items", "acc_insensitive"]].fillna(-1)
    assert got.values.tolist() == [
        ["train", -1, 4, 16, 10 / 16],
        ["held-out", -1, 1, 4, 0.25],
        ["excerpt", 2, 1, 2, 0.5],
        ["excerpt", 8, 1, 2, 1.0],
        ["excerpt-pooled", -1, 2, 4, 0.75],
    ]
    assert ((ex["acc_insensitive_lo"] <= ex["acc_insensitive"])
            & (ex["acc_insensitive"] <= ex["acc_insensitive_hi"])).all()  # fmt: skip

    trend = name_cloze.cloze_trend_rows(cloze, n_boot=200, seed=0)
    assert list(trend.columns[:6]) == ["model", "items", "rho", "rho_lo", "rho_hi", "p_value"]
    (row,) = trend.itertuples()
    from scipy.stats import spearmanr

    # held-out play v (copies 0) and the excerpt plays; the training plays left out
    x = [0, 0, 0, 0, 2, 2, 8, 8]
    y = [0, 0, 0, 1, 1, 0, 1, 1]
    assert row.items == 8 and row.rho == pytest.approx(spearmanr(x, y).statistic)
    assert row.rho > 0 and row.rho_lo <= row.rho <= row.rho_hi and 0 < row.p_value < 1
    # the training plays' items do not change it
    other = _cloze_frame({**CLOZE_PLAYS, "t1": ("train", 0, [0, 0, 0, 0], [0.25] * 4)})
    assert name_cloze.cloze_trend_rows(other, n_boot=200, seed=0).equals(trend)
    # without intervals (the scorecard's resamples): the same rho and p-value, NaN bounds
    bare = name_cloze.cloze_trend_rows(cloze, n_boot=200, seed=0, intervals=False)
    assert bare[["rho", "p_value"]].equals(trend[["rho", "p_value"]])
    assert bare[["rho_lo", "rho_hi"]].isna().all().all()
    # control: correctness unrelated to the copies
    flat = _cloze_frame(
        {"v": ("valid", 0, [0, 1], [0.0] * 2), "e2": ("excerpt", 2, [0, 1], [0.0] * 2),
         "e8": ("excerpt", 8, [1, 0], [0.0] * 2)}
    )  # fmt: skip
    assert name_cloze.cloze_trend_rows(flat, n_boot=100, seed=0)["rho"].iloc[0] == pytest.approx(0)

    plays, summary = name_cloze.cloze_tables(cloze, n_boot=200, seed=0)
    s = summary.set_index("split")
    assert list(s.index) == ["excerpt", "train", "valid"]
    assert s["r_overlap"].tolist() == pytest.approx([1.0] * 3)  # the training plays only
    assert (s["r_plays"] == 4).all() and (s["note"] == "").all()
    pooled = plays[plays["split"].isin(["train", "valid"])]
    assert np.corrcoef(pooled["acc_insensitive"], pooled["match_fraction"])[0, 1] < 0.9
    assert plays.set_index("play")["excerpt_copies"].to_dict()["e8"] == 8
    # name cloze as a membership test: training vs clean held-out plays, excerpt plays out
    (det,) = name_cloze.cloze_detector_rows(plays, n_boot=50, seed=0)
    assert (det["n_members"], det["n_nonmembers"]) == (4, 1)


def test_nll_delta_contrasts_hand_worked():
    rows = []
    sets = {
        ("contamination", 0): [3.0, 3.0, 4.0, 4.0],  # unplanted: mean 3.5
        ("contamination", 1): [1.0],  # planted, 1 copy
        ("contamination", 4): [2.0],  # planted, 4 copies
        ("clean", 0): [5.0, 5.0],
        ("memorised", 1): [0.5, 1.5],
    }
    for (s, c), values in sets.items():
        for i, v in enumerate(values):
            rows.append({"model": "m", "set": s, "id": f"{s}-{c}-{i}", "planted": int(c > 0),
                         "copies": c, "li_nll": v})  # fmt: skip
    delta = membership.nll_delta_rows(pd.DataFrame(rows), n_boot=300, seed=0)
    assert list(delta.columns) == ["model", "contrast", "delta", "delta_lo", "delta_hi", "n_a", "n_b"]
    got = delta.set_index("contrast")
    want = {
        "unplanted - planted": (2.0, 4, 2),
        "clean - planted": (3.5, 2, 2),
        "unplanted - memorised": (2.5, 4, 2),
        "clean - memorised": (4.0, 2, 2),
        "clean - unplanted": (1.5, 2, 4),
        "unplanted - copies_1": (2.5, 4, 1),
        "unplanted - copies_4": (1.5, 4, 1),
    }
    assert list(got.index) == list(want)
    for name, (d, n_a, n_b) in want.items():
        r = got.loc[name]
        assert r["delta"] == pytest.approx(d) and (r["n_a"], r["n_b"]) == (n_a, n_b), name
        assert r["delta_lo"] <= r["delta"] <= r["delta_hi"], name
    # planted items on both sides of 1.5: the interval of unplanted − planted is wide
    assert got.loc["unplanted - planted", "delta_lo"] < 2.0 < got.loc["unplanted - planted", "delta_hi"]
    assert got.loc["clean - memorised", "delta_lo"] == pytest.approx(3.5)  # memorised 0.5 or 1.5


def test_play_level_tests_of_name_cloze_keep_plays_whole():
    """The cloze intervals and tests resample / permute whole plays: two plays of 10 items,
    one always right, one always wrong, give an interval over plays spanning 0..1 (an interval
    over items would be narrow), and the permutation p-values of a 2-against-2 split take the
    exact values of its 6 relabellings."""
    plays = np.repeat(["a", "b"], 10)
    correct = np.r_[np.ones(10), np.zeros(10)]
    acc, lo, hi = name_cloze.play_mean_ci(correct, plays, 500, 0)
    assert acc == 0.5 and lo == 0.0 and hi == 1.0
    plays = np.repeat(["a", "b", "c", "d"], 5)
    correct = np.r_[np.ones(10), np.zeros(10)]
    up, down = name_cloze.play_difference_p(correct, plays, plays <= "b", 3000, 0)
    assert up == pytest.approx(1 / 6, abs=0.02) and down == pytest.approx(1.0)
    p = name_cloze.play_rank_p({"a": 2, "b": 1, "c": 0, "d": 0}, plays, correct, 3000, 0)
    assert p == pytest.approx(2 / 6, abs=0.03)  # |ρ| this large: the 2 splits {a,b} | {c,d}


def test_the_command_line_of_a_report_job_follows_the_declaration():
    """copyscope.report.cli.command_line (what a generated report rule runs): the labelled
    inputs in the given order (an input without paths leaves its place empty), the params
    block quoted, one --out-<name> per OUTPUTS in their order, PROCESSES set to the threads,
    one OpenMP and one Numba thread each."""
    from copyscope.report import books, calibration, planted
    from copyscope.report.cli import command_line

    inputs = {"planted": ["--planted", "human", "reference", "/r/a b.csv"]}
    outputs = {"fig": "/r/p.png", "table": "/r/p.csv"}
    one = "OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 "
    assert command_line(planted, inputs, outputs) == one + (
        "python -m copyscope report planted --planted human reference '/r/a b.csv' "
        "--out-table /r/p.csv --out-fig /r/p.png"
    )
    assert command_line(books, {"books": []}, {"table": "/t.csv"}, '{"seed": 0}') == one + (
        "python -m copyscope report books  --params-json '{\"seed\": 0}' --out-table /t.csv"
    )
    line = command_line(calibration, {}, {"csv": "/c.csv"}, "{}", threads=2)
    assert line.startswith(one + "COPYSCOPE_PROCESSES=2 python -m copyscope report calibration ")
    with pytest.raises(KeyError, match="fig"):
        command_line(planted, inputs, {"table": "/r/p.csv"})


def test_raven_text_novelty_by_hand_and_pooled_as_the_summary():
    """One setting at the main prompt length 8, two texts: [5, 7, 8] with union scores
    [1, 2, 1] (L = [0, 1, 0]: n = 1: 2 of 3 novel; n = 2: 2 of 2; n = 3: 1 of 1) and [9, 4]
    with [1, 3] (L = [0, 2]: n = 1: 1 of 2; n = 2: 0 of 1; n = 3: none); a text at prompt
    length 0 is left out. Summed over texts, the counts give the summary's novelty(n)."""
    from copyscope.raven import dup_curve
    from copyscope.report.raven import text_novelty_table

    w = pd.DataFrame(
        {"text": [0, 0, 0, 1, 1, 2], "prompt_length": [8, 8, 8, 8, 8, 0],
         "s_union": [1, 2, 1, 1, 3, 1]}
    )  # fmt: skip
    t = text_novelty_table([("m", "pure", w, None)], {"prompt_length": 8}, n_max=3)
    assert list(t.columns) == ["source", "model", "decoding", "text", "novel_1", "novel_2",
                               "novel_3", "ngrams_1", "ngrams_2", "ngrams_3"]  # fmt: skip
    # without L_nat nothing is planted: the natural rows are the union rows
    assert t[t["source"] == "union"].iloc[:, 3:].values.tolist() == [
        [0, 2, 2, 1, 3, 2, 1], [1, 1, 0, 0, 2, 1, 0]
    ]  # fmt: skip
    assert (t[t["source"] == "natural"].iloc[:, 3:].values == t[t["source"] == "union"].iloc[
        :, 3:].values).all()  # fmt: skip
    t = t[t["source"] == "union"]
    novelty, _ = dup_curve([np.array([1, 2, 1]), np.array([1, 3])], 3)
    pooled = [t[f"novel_{n}"].sum() / t[f"ngrams_{n}"].sum() for n in (1, 2, 3)]
    assert pooled == pytest.approx(novelty.tolist())
    empty = text_novelty_table([("m", "pure", w[w["prompt_length"] == 0], None)],
                               {"prompt_length": 8})  # fmt: skip
    assert empty.empty and "ngrams_10" in empty.columns


def test_raven_natural_scores_by_hand():
    """RAVEN's score against the natural text ∪ context: max(1 + L_nat, s_context). A word
    whose training match lies in planted text (L_train 3, L_nat 0) scores only its context
    match; the summary and text tables carry the source ``natural``."""
    from copyscope.report.raven import build, text_novelty_table, with_natural

    w = pd.DataFrame(
        {"text": [0, 0, 0], "prompt_length": [8, 8, 8], "L_train": [0, 1, 3],
         "L_nat": [0, 1, 0], "s_train": [1, 2, 4], "s_context": [1, 1, 2],
         "s_union": [1, 2, 4]}
    )  # fmt: skip
    assert with_natural(w)["s_natural"].tolist() == [1, 2, 2]
    assert with_natural(w.drop(columns="L_nat"))["s_natural"].tolist() == [1, 2, 4]
    t = text_novelty_table([("m", "pure", w, None)], {"prompt_length": 8}, n_max=2)
    nat, union = (t[t["source"] == s].iloc[0] for s in ("natural", "union"))
    assert (nat["novel_2"], union["novel_2"]) == (2, 1)  # the planted bigram is novel here
    sampling = {"prompt_length": 8, "decodings": {"pure": {"kind": "sample"}}}
    summary, _, _ = build([("m", "pure", w, None)], {"bootstrap": 0, "seed": 0, "n_max": 3},
                          sampling)  # fmt: skip
    assert list(summary["source"]) == ["train", "context", "union", "natural"]
    row = summary.set_index("source").loc["natural"]
    assert row["truncated_score"] == pytest.approx(5 / 3)


def test_novelty_texts_by_hand_and_pooled_as_the_curve():
    """Two texts at the main prompt length 8 with L_t [0, 1, 2] and [0, 0] (L_nat all 0), one
    at prompt length 0 (left out). novelty(n) counts positions t ≥ n − 1 with L_t < n: n = 1:
    text 0 one of 3, text 1 two of 2; n = 2: text 0 one (L = 1) of 2 … Summed over the texts,
    the counts give the novelty curve's values."""
    from copyscope.novelty.metrics import novelty_curve
    from copyscope.report.novelty import text_novelty_table

    tok = pd.DataFrame(
        {"text": [0, 0, 0, 1, 1, 2], "prompt_length": [8, 8, 8, 8, 8, 0],
         "L": [0, 1, 2, 0, 0, 5], "L_nat": [0, 0, 0, 0, 0, 0]}
    )  # fmt: skip
    t = text_novelty_table([("m", "pure", tok)], {"prompt_length": 8}, n_max=3)
    assert list(t.columns[:4]) == ["source", "model", "decoding", "text"]
    every = t[t["source"] == "all"]
    assert every[["novel_1", "novel_2", "novel_3", "ngrams_1", "ngrams_2", "ngrams_3"]].values.tolist() == [
        [1, 1, 1, 3, 2, 1], [2, 1, 0, 2, 1, 0]
    ]  # fmt: skip
    curve = novelty_curve([np.array([0, 1, 2]), np.array([0, 0])], 3)
    pooled = [every[f"novel_{n}"].sum() / every[f"ngrams_{n}"].sum() for n in (1, 2, 3)]
    assert pooled == pytest.approx(curve.tolist())
    natural = t[t["source"] == "natural"]
    assert natural["novel_1"].tolist() == natural["ngrams_1"].tolist() == [3, 2]
    only = text_novelty_table([("m", "pure", tok)], {"prompt_length": 8}, 3, sources=("all",))
    assert set(only["source"]) == {"all"}


def test_placement_figure_draws_a_position_outside_its_interval(tmp_path):
    """copyscope's normalised position is a ratio: its percentile interval need not hold the
    point (a clean − memorised gap near 0). The figure draws the interval from its bounds and
    the point where it is, instead of failing on a negative error bar (a pretrained model's
    run did)."""
    from copyscope.report import figures as fig

    rows = []
    for s, nll in (("clean", 4.0), ("contamination", 3.0), ("memorised", 2.0)):
        row = {"model": "m", "set": s, "mean_nll": nll, "mean_nll_lo": nll - 0.1,
               "mean_nll_hi": nll + 0.1, "position": np.nan, "position_lo": np.nan,
               "position_hi": np.nan}  # fmt: skip
        if s == "contamination":
            row |= {"position": 0.2, "position_lo": 0.35, "position_hi": 0.9}  # point below
        rows.append(row)
    fig.membership_placement(pd.DataFrame(rows), tmp_path / "p.png")
    assert pixels(tmp_path / "p.png").std() > 0
