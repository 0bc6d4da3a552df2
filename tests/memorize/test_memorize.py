"""The memorization ladder: planting (counted with the index), the extraction test on a model
that memorized a passage by construction, the table and figure (the measures themselves:
test_extract.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import torch

from copyscope.cli import main
from copyscope.corpus import CorpusPaths, prepare_corpus
from copyscope.corpus.ladder import cut_passages, passage_spans, passage_text
from copyscope.corpus.sources import Document
from copyscope.errors import ConfigError, InputError
from copyscope.index import Index, build_index
from copyscope.lm import load_model, train_model
from copyscope.memorize import extract, extract_file
from copyscope.report.memorization import COLUMNS, memorization_table
from copyscope.tokenize import encode_split, from_spec, read_split
from support.corpora import CORPUS, LADDER, synthetic_corpus
from support.figures import pixels
from support.models import EOS, VOCAB, make_tokenizer


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """The synthetic corpus prepared with a ladder, tokenized by a BPE fitted on its training
    split, and indexed (train and valid)."""
    tmp = tmp_path_factory.mktemp("ladder")
    synthetic_corpus(tmp / "docs.jsonl")
    cfg = dict(CORPUS, path=str(tmp / "docs.jsonl"))
    manifest = prepare_corpus(cfg, CorpusPaths.in_dir(tmp / "corpus"))
    tok = from_spec({"kind": "bpe", "vocab_size": 700})
    texts = [json.loads(x)["text"] for x in (tmp / "corpus/train.jsonl").read_text().splitlines()]
    tok.fit(texts, tmp / "tok")
    indexes = {}
    for split in ("train", "valid"):
        encode_split(
            tok, tmp / f"corpus/{split}.jsonl", tmp / f"{split}.npy", tmp / f"{split}.json", "bpe"
        )
        stream, _, _ = read_split(tmp / f"{split}.npy", tmp / f"{split}.json")
        build_index(np.asarray(stream), tmp / f"index-{split}")
        indexes[split] = Index(tmp / f"index-{split}")
    return {"tmp": tmp, "cfg": cfg, "manifest": manifest, "tok": tok, "index": indexes}


# --------------------------------------------------------------------------- planting
def test_every_passage_occurs_exactly_copies_times_in_training(planted):
    passages = planted["manifest"]["ladder"]["passages"]
    assert [p["copies"] for p in passages] == [1, 1, 3, 3, 9, 9, 0, 0, 0]
    assert [p["kind"] for p in passages].count("control") == 3
    for p in passages:
        ids = planted["tok"].encode(p["text"])
        assert ids.size >= p["words"]  # a word is at least one token
        assert planted["index"]["train"].count(ids) == p["copies"], p["id"]
        assert planted["index"]["valid"].count(ids) == 0, p["id"]
        assert len(p["positions"]) == p["copies"]
        assert len(p["text"].split()) == LADDER["words"]


def test_passages_are_cut_from_held_out_text_and_removed_from_it(planted):
    tmp, passages = planted["tmp"], planted["manifest"]["ladder"]["passages"]
    valid = {
        json.loads(x)["id"]: json.loads(x)["text"] for x in (tmp / "corpus/valid.jsonl").open()
    }
    source = {json.loads(x)["id"]: json.loads(x)["text"] for x in (tmp / "docs.jsonl").open()}
    for p in passages:
        assert p["source_doc"] in ("doc4", "doc5")
        a, b = p["source_lines"]
        lines = source[p["source_doc"]].split("\n")
        assert p["text"] == passage_text(lines[a:b], LADDER["words"])
        # a 5-word stretch of the passage occurs in no validation document any more
        assert not any(
            " ".join(p["text"].split()[:5]) in " ".join(v.split()) for v in valid.values()
        )
    removed = planted["manifest"]["ladder"]["valid_words_removed"]
    assert removed >= len(passages) * LADDER["words"]
    kept = sum(len(v.split()) for v in valid.values())
    assert kept + removed == sum(len(source[d].split()) for d in ("doc4", "doc5"))


def test_planting_keeps_the_duplicates_and_reports_the_added_share(planted):
    m = planted["manifest"]
    for rec in m["injected"]:  # the duplicates' source passages are left whole
        train = {
            json.loads(x)["id"]: json.loads(x)["text"]
            for x in (planted["tmp"] / "corpus/train.jsonl").open()
        }
        assert rec["text"] in " ".join(train[rec["source_doc"]].split())
        assert sum(rec["text"] in " ".join(t.split()) for t in train.values()) == rec["occurrences"]
    lad = m["ladder"]
    assert lad["added_words"] == LADDER["words"] * 2 * (1 + 3 + 9)
    assert lad["added_share"] == pytest.approx(
        lad["added_words"] / (lad["train_words_before"] + lad["added_words"])
    )


def test_planting_is_deterministic_and_follows_the_seed(planted, tmp_path):
    prepare_corpus(planted["cfg"], CorpusPaths.in_dir(tmp_path / "a"))
    for f in ("train.jsonl", "valid.jsonl", "manifest.json"):
        assert (tmp_path / "a" / f).read_bytes() == (planted["tmp"] / "corpus" / f).read_bytes()
    cfg = json.loads(json.dumps(planted["cfg"]))
    cfg["inject"]["ladder"]["seed"] = 2
    other = prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "b"))
    assert [p["text"] for p in other["ladder"]["passages"]] != [
        p["text"] for p in planted["manifest"]["ladder"]["passages"]
    ]


def test_cutting_names_the_key_when_held_out_text_is_too_short():
    docs = [Document("v", "a b c d\ne f g h\ni j k l")]
    assert passage_spans(docs[0].text.split("\n"), 5) == [(0, 2), (1, 3)]
    passages, rest = cut_passages(docs, 1, 5, seed=0)
    assert passages[0]["text"] in ("a b c d\ne", "e f g h\ni") and rest[0].text.count("\n") == 0
    with pytest.raises(ConfigError, match=r"corpus\.inject\.ladder\.per_rung"):
        cut_passages(docs, 2, 5, seed=0)


def test_passage_lines_are_normalised_for_the_tokenizer():
    assert passage_text(["  To be,  or", "", "not to be: that"], 5) == "To be, or\n\nnot to"


# --------------------------------------------------------------------------- extraction
P, S = 8, 8


@pytest.fixture(scope="module")
def memorized(tmp_path_factory):
    """A 1-layer GPT-2 trained (train_model) until it has memorized one 20-token passage; a
    control passage of the same kind it never saw."""
    tmp = tmp_path_factory.mktemp("overfit")
    make_tokenizer(tmp / "tok")
    rng = np.random.default_rng(0)
    seen, unseen = (rng.integers(1, VOCAB, size=20) for _ in range(2))
    spec = {
        "kind": "gpt2",
        "n_layer": 1,
        "n_embd": 32,
        "n_head": 2,
        "n_ctx": 32,
        "dropout": 0.0,
        "train": {
            "tokens": 150 * 8 * 32,
            "batch_size": 8,
            "lr": 1e-2,
            "warmup": 0.05,
            "weight_decay": 0.0,
            "eval_every": 1000,
            "eval_batches": 1,
            "bf16": False,
            "grad_clip": 1.0,
            "min_lr_ratio": 0.0,
        },
    }
    torch.set_num_threads(1)
    train_model(spec, tmp / "tok", [seen] * 8, [seen], tmp / "model", seed=0, device="cpu")
    text = lambda ids: " ".join(f"w{i}" for i in ids)  # noqa: E731
    passages = [
        {"id": "ladder-8-0", "kind": "planted", "copies": 8, "text": text(seen)},
        {"id": "control-0", "kind": "control", "copies": 0, "text": text(unseen)},
    ]
    (tmp / "manifest.json").write_text(json.dumps({"ladder": {"passages": passages}}))
    return tmp, passages, seen, unseen


def test_a_memorized_passage_is_extracted_and_a_control_is_not(memorized):
    tmp, passages, seen, unseen = memorized
    model, tok = load_model(tmp / "model", "cpu")
    assert tok.eos_token_id == EOS
    frame = extract(
        model,
        tok,
        passages,
        model_name="m",
        prompt_tokens=P,
        suffix_tokens=S,
        batch_size=2,
        device="cpu",
    )
    planted, control = frame.iloc[0], frame.iloc[1]
    assert (planted["exact"], planted["match_fraction"], planted["lcp"]) == (1, 1.0, S)
    assert planted["target"] == " ".join(f"w{i}" for i in seen[P : P + S])
    assert control["exact"] == 0 and control["match_fraction"] <= 0.25  # chance: 1/49 a token
    assert control["lcp"] < S


def test_extract_command_writes_one_row_per_passage(memorized, tmp_path):
    tmp, passages, _, _ = memorized
    out = tmp_path / "m.csv"
    argv = ["memorize", "extract", "--model", str(tmp / "model"), "--model-name", "tiny"]
    argv += ["--manifest", str(tmp / "manifest.json"), "--prompt-tokens", str(P)]
    assert main([*argv, "--suffix-tokens", str(S), "--device", "cpu", "--out", str(out)]) == 0
    frame = pd.read_csv(out)
    assert frame["passage"].tolist() == ["ladder-8-0", "control-0"]
    assert frame["exact"].tolist() == [1, 0] and frame["model"].eq("tiny").all()
    # a passage shorter than P + S tokens names the passage and the key to change
    with pytest.raises(InputError, match=r"ladder-8-0: .*found 20.*corpus\.inject\.ladder\.words"):
        extract_file(
            tmp / "model",
            "tiny",
            tmp / "manifest.json",
            tmp_path / "x.csv",
            prompt_tokens=12,
            suffix_tokens=9,
            batch_size=2,
            device="cpu",
        )


# --------------------------------------------------------------------------- table, figure
def per_passage() -> pd.DataFrame:
    rows = []
    for model, exact in (
        ("a", {0: [0, 0, 0, 0], 4: [1, 1, 0, 1]}),
        ("b", {0: [0, 1, 0, 0], 4: [0, 0, 0, 0]}),
    ):
        for copies, values in exact.items():
            for i, e in enumerate(values):
                rows.append(
                    {
                        "model": model,
                        "passage": f"{copies}-{i}",
                        "copies": copies,
                        "exact": e,
                        "match_fraction": 0.5 + e / 2,
                        "lcp": 8 * e + i,
                    }
                )
    return pd.DataFrame(rows)


def test_table_rates_and_bootstrap_intervals():
    table = memorization_table(per_passage(), n_boot=500, seed=0)
    assert list(table.columns) == COLUMNS
    assert table[["model", "copies", "n"]].values.tolist() == [
        ["a", 0, 4],
        ["a", 4, 4],
        ["b", 0, 4],
        ["b", 4, 4],
    ]
    assert table["extraction_rate"].tolist() == [0.0, 0.75, 0.25, 0.0]
    assert table["lcp"].tolist() == [1.5, 7.5, 3.5, 1.5]
    assert table["match_fraction"].tolist() == [0.5, 0.875, 0.625, 0.5]
    for value, low, high in (
        ("extraction_rate", "extraction_rate_lo", "extraction_rate_hi"),
        ("lcp", "lcp_lo", "lcp_hi"),
    ):
        assert ((table[low] <= table[value]) & (table[value] <= table[high])).all()
    varied = table["extraction_rate"].between(0.01, 0.99)
    assert (table.loc[varied, "extraction_rate_lo"] < table.loc[varied, "extraction_rate_hi"]).all()
    assert table.loc[~varied, ["extraction_rate_lo", "extraction_rate_hi"]].eq(0).all().all()  # no variation, no width
    assert table["kind"].tolist() == ["control", "planted", "control", "planted"]
    same = memorization_table(per_passage(), n_boot=500, seed=0)
    pd.testing.assert_frame_equal(table, same)


def test_report_command_and_summary(tmp_path):
    frame = per_passage()
    args = []
    for model, g in frame.groupby("model"):
        g.to_csv(tmp_path / f"{model}.csv", index=False)
        args += ["--extraction", model, str(tmp_path / f"{model}.csv")]
    params = json.dumps({"prompt_tokens": 8, "suffix_tokens": 8, "bootstrap": 100, "seed": 0})
    out = ["--out-table", str(tmp_path / "t.csv"), "--out-fig", str(tmp_path / "f.png")]
    assert main(["report", "memorization", *args, "--params-json", params, *out]) == 0
    table = pd.read_csv(tmp_path / "t.csv")
    assert {
        "model",
        "copies",
        "extraction_rate",
        "extraction_rate_lo",
        "extraction_rate_hi",
        "match_fraction",
        "lcp",
        "n",
    } <= set(table)
    ladder = pixels(tmp_path / "f.png")
    lines = markdown_lines(table)
    assert "- a: controls 0 [0, 0]; 4× 0.75 [" in lines
    # no ladder: an empty table, a figure saying so, no summary section
    assert main(["report", "memorization", "--params-json", params, *out]) == 0
    assert pd.read_csv(tmp_path / "t.csv").empty
    assert "Memorization ladder" not in markdown_lines(pd.read_csv(tmp_path / "t.csv"))
    assert not np.array_equal(ladder, pixels(tmp_path / "f.png"))  # the ladder was drawn


def markdown_lines(table) -> str:
    from copyscope.report import memorization

    params = {"analysis": {"memorization": {"prompt_tokens": 8, "suffix_tokens": 8}}}
    return "\n".join(memorization.summary_section({"memorization": table}, params))
