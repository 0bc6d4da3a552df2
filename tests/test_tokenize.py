"""Tokenizers: BPE training/reload, Moses words with RAVEN's escaping, split encoding."""

from __future__ import annotations

import json

import numpy as np
import pytest

from copyscope.errors import ConfigError, InputError
from copyscope.tokenize import NEWLINE, Encoder, WordVocab, encode_split, moses_words, read_split

TEXTS = [
    "To be, or not to be: that is the question:\nWhether 'tis nobler in the mind to suffer",
    'The slings & arrows of "outrageous" fortune,\nOr to take arms against a sea of troubles',
] * 20


def _jsonl(path, texts):
    path.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts))
    )
    return path


def test_moses_escaping_and_newlines():
    words = moses_words('It\'s "here" & there\nnext')
    assert words == ["It", "&apos;s", "&quot;", "here", "&quot;", "&amp;", "there", NEWLINE, "next"]


def test_word_vocab_frequency_order_and_hashed_unknowns():
    v = WordVocab.build([["b", "a", "b"], ["c", "b", "a"]])
    assert v.words == ["b", "a", "c"]
    unk = v.id("zebra")
    assert unk >= 3 and unk == v.id("zebra") and unk != v.id("yak")


def test_bpe_fit_encode_roundtrip(tmp_path):
    enc = Encoder("bpe", {"kind": "bpe", "vocab_size": 300}, tmp_path / "tok")
    enc.fit(TEXTS)
    enc2 = Encoder("bpe", {"kind": "bpe"}, tmp_path / "tok")
    ids = enc2.encode(TEXTS[1])
    assert enc2.decode(ids) == TEXTS[1]
    assert enc2.vocab_size <= 300 and enc2.dtype == np.uint16
    # training is deterministic
    enc3 = Encoder("bpe", {"kind": "bpe", "vocab_size": 300}, tmp_path / "tok3")
    enc3.fit(TEXTS)
    assert (tmp_path / "tok" / "tokenizer.json").read_text() == (
        tmp_path / "tok3" / "tokenizer.json"
    ).read_text()


def test_encode_split_stream_layout(tmp_path):
    docs = _jsonl(tmp_path / "d.jsonl", TEXTS[:3])
    enc = Encoder("words", {"kind": "moses"}, tmp_path / "w")
    enc.fit(TEXTS[:2])
    meta = encode_split(enc, docs, tmp_path / "s.npy", tmp_path / "s.json")
    stream, meta2, parts = read_split(tmp_path / "s.npy", tmp_path / "s.json")
    assert meta == meta2
    assert stream.dtype == np.uint32 and meta["sep"] == 2**32 - 1
    assert (stream == meta["sep"]).sum() == 3 and stream[-1] == meta["sep"]
    assert [len(p) for p in parts] == meta["doc_lengths"]
    assert enc.decode(parts[0]).startswith("To be, or not to be")


def test_hf_tokenizer_from_local_dir(tmp_path):
    Encoder("bpe", {"kind": "bpe", "vocab_size": 300}, tmp_path / "tok").fit(TEXTS)
    enc = Encoder("hf", {"kind": f"hf:{tmp_path / 'tok'}"}, tmp_path / "copy")
    enc.fit([])
    assert (
        enc.encode("to be").tolist()
        == Encoder("b", {"kind": "bpe"}, tmp_path / "tok").encode("to be").tolist()
    )
    with pytest.raises(InputError, match="expected a local Hugging Face tokenizer"):
        Encoder("hf", {"kind": f"hf:{tmp_path / 'nope'}"}, tmp_path / "x").fit([])
    with pytest.raises(ConfigError, match="tokenizers.x.kind"):
        Encoder("x", {"kind": "sentencepiece"}, tmp_path / "x")
