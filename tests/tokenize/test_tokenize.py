"""Tokenizers: the kind registry, BPE training/reload, Moses words with RAVEN's escaping, split
encoding (byte-identical to the streams of the pre-registry ``Encoder``)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from copyscope import tokenize
from copyscope.errors import ConfigError, InputError
from copyscope.tokenize import (
    NEWLINE,
    Tokenizer,
    WordVocab,
    encode_split,
    from_spec,
    kinds,
    load,
    moses_words,
    read_split,
    register,
)

TEXTS = [
    "To be, or not to be: that is the question:\nWhether 'tis nobler in the mind to suffer",
    'The slings & arrows of "outrageous" fortune,\nOr to take arms against a sea of troubles',
] * 20
DOCS = ["To be, or not to be", 'Ay, there\'s the rub & "sleep"\nperchance', ""]
# the streams of DOCS written by the pre-registry Encoder (commit 3e79588) after fitting on TEXTS
EXPECTED = {
    "bpe": (
        {"kind": "bpe", "vocab_size": 300},
        np.uint16,
        [277, 271, 12, 262, 82, 272, 84, 264, 271, 65535]
        + [33, 89, 12, 273, 82, 69, 7, 83, 273, 221, 82, 85, 66, 221, 6, 221]
        + [2, 83, 76, 69, 69, 80, 2, 199, 80, 267, 67, 72, 65, 78, 67, 69, 65535, 65535],
        "720d3f02301a480b5fb57a5c4a3ae79ab4f3f37c87da02d9d154ac24d557df3a",
    ),
    "moses": (
        {"kind": "moses"},
        np.uint32,
        [12, 5, 2, 24, 23, 0, 5, 4294967295, 86531097, 2, 370278549, 55975259, 7, 561462596]
        + [8, 1, 319570553, 1, 4, 339944417, 4294967295, 4294967295],
        "e4c427cac812b7144294c7e15c38e83e9a94cb26d79e699ab1bcd38de6ee9e2d",
    ),
}
MOSES_VOCAB_SHA256 = "026d726e8f87fb49d4db06ce408cceccc5630bea3683511af5b91d5918780c9c"


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


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_streams_identical_to_pre_registry_encoder(tmp_path, kind):
    spec, dtype, ids, sha = EXPECTED[kind]
    from_spec(spec, kind).fit(TEXTS, tmp_path / "tok")
    meta = encode_split(
        load(kind, tmp_path / "tok"), _jsonl(tmp_path / "d.jsonl", DOCS), tmp_path / "s.npy",
        tmp_path / "s.json", kind,
    )  # fmt: skip
    stream = np.load(tmp_path / "s.npy")
    assert stream.dtype == dtype and stream.tolist() == ids
    assert meta["sha256"] == sha and meta["sep"] == np.iinfo(dtype).max
    assert meta["tokenizer"] == kind and meta["kind"] == kind


def test_moses_vocabulary_file_unchanged(tmp_path):
    from_spec({"kind": "moses"}, "words").fit(TEXTS, tmp_path / "w")
    assert sorted(p.name for p in (tmp_path / "w").iterdir()) == ["vocab.json"]
    data = (tmp_path / "w" / "vocab.json").read_bytes()
    assert hashlib.sha256(data).hexdigest() == MOSES_VOCAB_SHA256


def test_bpe_fit_load_roundtrip(tmp_path):
    from_spec({"kind": "bpe", "vocab_size": 300}, "bpe").fit(TEXTS, tmp_path / "tok")
    assert sorted(p.name for p in (tmp_path / "tok").iterdir()) == [
        "tokenizer.json",
        "tokenizer_config.json",
    ]
    tok = load("bpe", tmp_path / "tok")
    ids = tok.encode(TEXTS[1])
    assert tok.decode(ids) == TEXTS[1]
    assert tok.vocab_size <= 300 and tok.max_id == tok.vocab_size - 1
    assert tok.dtype == np.uint16 and tok.separator == 65535
    # training is deterministic
    from_spec({"kind": "bpe", "vocab_size": 300}, "bpe").fit(TEXTS, tmp_path / "tok3")
    assert (tmp_path / "tok" / "tokenizer.json").read_text() == (
        tmp_path / "tok3" / "tokenizer.json"
    ).read_text()


def test_encode_split_stream_layout(tmp_path):
    docs = _jsonl(tmp_path / "d.jsonl", TEXTS[:3])
    tok = from_spec({"kind": "moses"}, "words").fit(TEXTS[:2], tmp_path / "w")
    meta = encode_split(tok, docs, tmp_path / "s.npy", tmp_path / "s.json", "words")
    stream, meta2, parts = read_split(tmp_path / "s.npy", tmp_path / "s.json")
    assert meta == meta2
    assert stream.dtype == np.uint32 and meta["sep"] == 2**32 - 1
    assert (stream == meta["sep"]).sum() == 3 and stream[-1] == meta["sep"]
    assert [len(p) for p in parts] == meta["doc_lengths"]
    assert tok.decode(parts[0]).startswith("To be, or not to be")
    assert tok.max_id == tok.vocab_size + WordVocab.HASH_SPACE - 1


def test_hf_tokenizer_from_local_dir(tmp_path):
    from_spec({"kind": "bpe", "vocab_size": 300}, "bpe").fit(TEXTS, tmp_path / "tok")
    kind = f"hf:{tmp_path / 'tok'}"
    copy = from_spec({"kind": kind}, "hf").fit([], tmp_path / "copy")
    assert copy.argument == str(tmp_path / "tok") and copy.kind == kind
    assert load(kind, tmp_path / "copy").encode("to be").tolist() == (
        load("bpe", tmp_path / "tok").encode("to be").tolist()
    )
    with pytest.raises(InputError, match="expected a local Hugging Face tokenizer"):
        from_spec({"kind": f"hf:{tmp_path / 'nope'}"}, "hf").fit([], tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_hf_tokenizer_from_a_tokenizer_file(tmp_path):
    """``hf:<file>.json``: a released index's tokenizer kept as a tokenizers file gives the
    file's own ids (``Tokenizer.from_file``), without special tokens, fitted and reloaded."""
    from tokenizers import Tokenizer as RawTokenizer

    from copyscope.config.paths import check_local_tokenizer_dirs
    from support.tokenizers import tokenizer_file

    file = tokenizer_file(tmp_path / "llama" / "tokenizer.json", TEXTS, 300)
    kind = f"hf:{file}"
    fitted = from_spec({"kind": kind}, "llama").fit([], tmp_path / "fitted")
    raw = RawTokenizer.from_file(str(file))
    text = "To be, or not to be: whether 'tis nobler"
    want = raw.encode(text, add_special_tokens=False).ids
    assert fitted.encode(text).tolist() == want
    again = load(kind, tmp_path / "fitted")
    assert again.encode(text).tolist() == want and again.decode(want) == text
    assert again.vocab_size == raw.get_vocab_size(with_added_tokens=True) == 300
    assert again.fingerprint() == fitted.fingerprint()
    with pytest.raises(InputError, match="expected a tokenizer file"):
        from_spec({"kind": f"hf:{tmp_path / 'nope.json'}"}, "x").fit([], tmp_path / "x")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(InputError, match="bad.json: could not load a tokenizer from this file"):
        from_spec({"kind": f"hf:{tmp_path / 'bad.json'}"}, "x").fit([], tmp_path / "x")
    # the config's path check names a missing file as a file
    cfg = {"tokenizers": {"llama": {"kind": f"hf:{tmp_path / 'nope.json'}"}},
           "models": {"zoo": {}}}  # fmt: skip
    assert check_local_tokenizer_dirs(cfg) == [
        ("tokenizers.llama.kind",
         f"expected hf:<an existing tokenizer file>, found no file '{tmp_path / 'nope.json'}'")
    ]  # fmt: skip
    cfg["tokenizers"]["llama"]["kind"] = kind
    assert check_local_tokenizer_dirs(cfg) == []


@pytest.mark.parametrize("kind", ["sentencepiece", "hf", "hf:", "bpe:300", ""])
def test_unknown_or_malformed_kind_names_the_key(kind):
    with pytest.raises(ConfigError, match=r"tokenizers\.x\.kind.*bpe, hf:<dir>, moses"):
        from_spec({"kind": kind}, "x")


def test_kinds_lists_the_registered_names():
    assert kinds() == ["bpe", "hf", "moses", "pos"]


@pytest.fixture
def toy_kind():
    """A kind registered by one class (the recipe of the module docstring); unregistered after."""

    @register("chars")
    class Chars(Tokenizer):
        unit = "characters"

        def learn(self, texts):
            self.alphabet = sorted({c for t in texts for c in t})

        def save(self, directory):
            directory.mkdir()
            (directory / "alphabet.json").write_text(json.dumps(self.alphabet))

        @classmethod
        def load(cls, directory, kind=None):
            tok = cls(kind)
            tok.alphabet = json.loads((directory / "alphabet.json").read_text())
            return tok

        def encode(self, text):
            return np.array([self.alphabet.index(c) for c in text], dtype=np.int64)

        def decode(self, ids):
            return "".join(self.alphabet[i] for i in ids)

        @property
        def vocab_size(self):
            return len(self.alphabet)

    yield Chars
    del tokenize.registry._KINDS["chars"]


def test_a_new_kind_plugs_in_by_registering_one_class(tmp_path, toy_kind):
    assert "chars" in kinds()
    from_spec({"kind": "chars"}, "c").fit(["abba", "cab"], tmp_path / "c")
    tok = load("chars", tmp_path / "c")
    meta = encode_split(
        tok,
        _jsonl(tmp_path / "d.jsonl", ["cab", "b"]),
        tmp_path / "s.npy",
        tmp_path / "s.json",
        "c",
    )
    assert np.load(tmp_path / "s.npy").tolist() == [2, 0, 1, 65535, 1, 65535]
    assert meta["kind"] == "chars" and meta["dtype"] == "uint16"
    with pytest.raises(ValueError, match="registered twice"):
        register("chars")(type("Other", (toy_kind,), {}))
