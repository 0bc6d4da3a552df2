"""Sampling stage helpers: prompt files and re-tokenized prompts for another tokenizer."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from copyscope.errors import InputError
from copyscope.io import read_jsonl
from copyscope.sample import retokenize_prompts, write_prompts
from copyscope.tokenize import from_spec
from support.index import stream_of

TEXTS = ["to be or not to be, that is the question", "out, damned spot! out, I say!"] * 30


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("toks")
    small = from_spec({"kind": "bpe", "vocab_size": 270}, "a").fit(TEXTS, tmp / "small")
    large = from_spec({"kind": "bpe", "vocab_size": 320}, "b").fit(TEXTS, tmp / "large")
    return tmp, small.hf, large.hf


def test_retokenize_prompts_keeps_text_across_tokenizers(tokenizers):
    _, small, large = tokenizers
    text = "to be or not"
    windows = [{"window": 0, "prompts": {"4": small.encode(text, add_special_tokens=False)}}]
    assert retokenize_prompts(windows, small, small) is windows  # same vocabulary: unchanged
    out = retokenize_prompts(windows, large, small)
    assert out[0]["prompts"]["4"] == large.encode(text, add_special_tokens=False)
    assert out[0]["prompts"]["4"] != windows[0]["prompts"]["4"]
    assert large.decode(out[0]["prompts"]["4"]) == text and out[0]["window"] == 0


def test_write_prompts_windows_and_human_baseline(tokenizers, tmp_path):
    tok_dir, small, _ = tokenizers
    doc = np.arange(3, 23)
    np.save(tmp_path / "v.npy", stream_of([doc, [1, 2]]))
    (tmp_path / "v.json").write_text(json.dumps({"doc_ids": ["a", "b"], "doc_lengths": [20, 2]}))
    params = {"prompt_length": 4, "prompt_lengths": [0, 2], "new_tokens": 5, "prompts": 2,
              "seed": 0}  # fmt: skip
    args = (tmp_path / "v.npy", tmp_path / "v.json", tok_dir / "small", params)
    lengths = write_prompts(*args, tmp_path / "p.jsonl", tmp_path / "h.jsonl")
    assert lengths == [0, 2, 4]
    windows = list(read_jsonl(tmp_path / "p.jsonl"))
    assert [w["start"] for w in windows] == [0, 9]  # windows of 4 + 5 tokens in document a
    assert windows[0]["prompts"] == {"0": [], "2": [5, 6], "4": [3, 4, 5, 6]}
    assert windows[0]["continuation"] == [7, 8, 9, 10, 11]
    human = list(read_jsonl(tmp_path / "h.jsonl"))
    assert len(human) == 6 and {h["prompt_length"] for h in human} == {0, 2, 4}
    assert human[0]["text"] == small.decode([7, 8, 9, 10, 11])
    with pytest.raises(InputError, match="no validation document has 4 \\+ 30 tokens"):
        write_prompts(*args[:3], {**params, "new_tokens": 30}, tmp_path / "x", tmp_path / "y")


def test_generations_stop_at_eos_and_every_analysis_runs_on_them(tokenizers, tmp_path):
    """A GPT-2 whose final layer norm is biased towards eos ends most generations early: the
    rows are shorter (some empty), no row holds the eos id or its text, the count of early stops
    is recorded, and every per-setting analysis and the novelty tables run on the rows (each
    token of a row is one position; nothing stands for the missing tail)."""
    import torch

    from copyscope.analyze import analyze_setting
    from copyscope.index import build_index
    from copyscope.io import write_json, write_jsonl
    from copyscope.lm import build_model
    from copyscope.novelty import novelty_tables
    from copyscope.report import per_text
    from copyscope.sample import generate_file, human_rows

    tok_dir, small, _ = tokenizers
    eos = small.eos_token_id
    torch.manual_seed(0)
    spec = {"kind": "gpt2", "n_layer": 1, "n_embd": 32, "n_head": 4, "n_ctx": 64, "dropout": 0.0}
    model = build_model(spec, len(small), eos).eval()
    with torch.no_grad():
        model.get_input_embeddings().weight.normal_(0.0, 0.1)
        model.transformer.ln_f.bias.copy_(10 * model.get_input_embeddings().weight[eos])
    model.save_pretrained(str(tmp_path / "model"))
    small.save_pretrained(str(tmp_path / "model"))
    docs = [small.encode(t, add_special_tokens=False) for t in TEXTS]
    windows = [
        {"window": i, "prompts": {"4": d[:4], "0": []}, "continuation": d[4:12]}
        for i, d in enumerate(docs[:12])
    ]
    write_jsonl(tmp_path / "prompts.jsonl", windows)
    kw = {"prompt_lengths": [0, 4], "new_tokens": 10, "seed": 0, "batch_size": 5}
    pure = {"kind": "sample", "temperature": 1.0}
    args = (tmp_path / "model", "m", "pure", pure, tmp_path / "prompts.jsonl", tok_dir / "small")
    n, stopped = generate_file(*args, tmp_path / "pure.jsonl", **kw, device="cpu")
    rows = list(read_jsonl(tmp_path / "pure.jsonl"))
    lengths = [len(r["ids"]) for r in rows]
    assert n == len(rows) == 24 and stopped == sum(r["stopped_at_eos"] for r in rows)
    assert 0 < stopped < n and min(lengths) == 0 and max(lengths) == 10 and len(set(lengths)) > 3
    for r in rows:
        assert eos not in r["ids"] and "<|endoftext|>" not in r["text"]
        assert len(r["logprobs"]) == len(r["ids"]) and r["text"] == small.decode(r["ids"])
        assert r["stopped_at_eos"] or len(r["ids"]) == 10
    human = human_rows(windows, [0, 4], lambda ids: small.decode(list(ids)))
    assert all(eos not in h["ids"] and not h["stopped_at_eos"] for h in human)

    # every per-setting analysis on the shortened rows
    words = from_spec({"kind": "moses"}, "w").fit(TEXTS, tmp_path / "words")
    build_index(stream_of(docs), tmp_path / "index")
    word_docs = [words.encode(t) for t in TEXTS]
    build_index(stream_of(word_docs, np.uint32), tmp_path / "word_index")
    passage = {"id": "p0", "text": TEXTS[0], "copies": 1, "occurrences": 2}
    write_json(tmp_path / "manifest.json", {"injected": [passage]})
    inputs = {
        "samples": tmp_path / "pure.jsonl",
        "tokenizer": tok_dir / "small",
        "index": tmp_path / "index",
        "word_tokenizer": tmp_path / "words",
        "word_index": tmp_path / "word_index",
        "evaluator": tmp_path / "model",
        "manifest": tmp_path / "manifest.json",
    }
    names = ("tokens", "words", "quality", "supercopies", "planted")
    ext = {"tokens": "parquet", "words": "parquet"}
    out = {k: tmp_path / f"{k}.{ext.get(k, 'csv')}" for k in names}
    analyze_setting(inputs, out, evaluator_same_tokenizer=True, supercopy_min=3, planted_min_copy=4)
    tokens = pd.read_parquet(out["tokens"])
    assert len(tokens) == sum(lengths) and eos not in set(tokens["id"])
    assert tokens.groupby("text").size().reindex(range(n), fill_value=0).tolist() == lengths
    word_frame = pd.read_parquet(out["words"])
    assert len(word_frame) == sum(len(words.encode(r["text"])) for r in rows)
    quality = pd.read_csv(out["quality"])
    assert quality["tokens"].tolist() == lengths
    assert (quality.loc[quality["tokens"] == 0, "nll_sum"] == 0).all()
    assert quality.columns[-1] == "evaluator" and (quality["evaluator"] == "model").all()
    assert len(pd.read_csv(out["planted"])) == 1
    curve, summary, _ = novelty_tables(
        per_text(tokens, "L"), 10**4, {"n_max": 12, "bootstrap": 20, "seed": 0,
        "lower_bound": {"p": 0.9, "bits_per_token": 1.8}}, {"model": "m"}
    )  # fmt: skip
    # positions with a full n-gram: a text of T tokens has max(0, T - n + 1) of them
    assert curve["total"].tolist()[:10] == [sum(max(0, t - k) for t in lengths) for k in range(10)]
    # an empty generation has no position: it is in no text count of the tables
    assert summary["tokens"].item() == sum(lengths)
    assert summary["texts"].item() == sum(t > 0 for t in lengths)
