"""Sampling stage helpers: prompt files and re-tokenized prompts for another tokenizer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import stream_of
from copyscope.errors import InputError
from copyscope.io import read_jsonl
from copyscope.sample import retokenize_prompts, write_prompts
from copyscope.tokenize import from_spec

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
