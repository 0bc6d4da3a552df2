"""The POS-tag index: the pos tokenizer kind, the sentence tag stream, ``count --tags``."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from copyscope.cli import main
from copyscope.errors import InputError
from copyscope.index.query import query_inputs
from copyscope.syntax.io import write_parses
from copyscope.syntax.types import Passage, Sentence, Word
from copyscope.tokenize import PTB_TAGS, PosTags, from_spec, load
from support.index import brute_count

TAGS = ["DT", "JJ", "NN", "IN", "VBZ", ".", "CUSTOM"]  # CUSTOM: a tag outside the PTB set


def test_pos_kind_vocabulary_save_load_and_unknown_tags(tmp_path):
    tok = from_spec({"kind": "pos"}, "pos").fit(["DT NN", "NN ZZ .", "AA"], tmp_path / "t")
    assert isinstance(tok, PosTags) and tok.unit == "tags"
    assert tok.tags == [*PTB_TAGS, "AA", "ZZ"]
    again = load("pos", tmp_path / "t")
    assert again.tags == tok.tags and again.vocab_size == len(PTB_TAGS) + 2
    ids = again.encode("DT  ZZ\tNOPE")
    assert ids.dtype == np.int64
    assert ids.tolist() == [PTB_TAGS.index("DT"), len(PTB_TAGS) + 1, again.vocab_size]
    assert again.decode(ids) == "DT ZZ <unk>"
    assert again.max_id == again.vocab_size < again.separator
    assert again.encode("").tolist() == []


def _random_passages(rng, n_passages=6):
    passages = []
    for p in range(n_passages):
        sents = []
        for _ in range(int(rng.integers(0, 5))):
            n = int(rng.integers(1, 9))
            tags = rng.choice(TAGS, size=n, p=[0.25, 0.1, 0.3, 0.1, 0.1, 0.1, 0.05])
            sents.append(Sentence(tuple(Word("w", str(t), 0, "dep") for t in tags)))
        passages.append(Passage("train", p, tuple(sents)))
    return passages


def _build_pos_index(tmp_path, passages):
    """The pipeline's commands: parses → tag documents → pos tokenizer → stream → index."""
    parses, docs = tmp_path / "train.parquet", tmp_path / "train-tags.jsonl"
    write_parses(passages, parses)
    tok, npy, meta = tmp_path / "tok", tmp_path / "train.npy", tmp_path / "train.json"
    idx = tmp_path / "index" / "pos"
    spec = json.dumps({"kind": "pos"})
    commands = [
        ["syntax", "tags", "--parses", parses, "--out", docs],
        ["tokenize", "fit", "--tokenizer-name", "pos", "--params-json", spec, "--train", docs,
         "--out", tok],
        ["tokenize", "encode", "--tokenizer-name", "pos", "--tokenizer-kind", "pos",
         "--tokenizer", tok, "--docs", docs, "--out-npy", npy, "--out-json", meta],
        ["index", "plan", "--meta", meta, "--shard-tokens", "40", "--out", idx / "plan.json"],
    ]  # fmt: skip
    for argv in commands:
        assert main([str(a) for a in argv]) == 0
    shards = [s["name"] for s in json.loads((idx / "plan.json").read_text())["shards"]]
    for s in shards:
        argv = ["index", "shard", "--tokens", npy, "--meta", meta, "--plan", idx / "plan.json",
                "--shard", s, "--out", idx / s]  # fmt: skip
        assert main([str(a) for a in argv]) == 0
    argv = ["index", "manifest", "--plan", idx / "plan.json", "--shards",
            *[idx / s for s in shards], "--tokenizer", tok, "--tokenizer-name", "pos",
            "--tokenizer-kind", "pos", "--out", idx / "index.json"]  # fmt: skip
    assert main([str(a) for a in argv]) == 0
    return idx, len(shards)


def _count(idx, tags, capsys) -> int:
    capsys.readouterr()
    assert main(["count", str(idx), "--tags", tags]) == 0
    return int(capsys.readouterr().out.strip())


def test_count_tags_equals_brute_force_within_sentences(tmp_path, rng, capsys):
    passages = _random_passages(rng)
    idx, n_shards = _build_pos_index(tmp_path, passages)
    assert n_shards >= 2
    sentences = [list(s.tags) for p in passages for s in p.sentences]
    meta = json.loads((tmp_path / "train.json").read_text())
    assert meta["n_docs"] == len(sentences)  # one document (separator) per sentence
    queries = {" ".join(s[i : i + n]) for s in sentences for n in (1, 2, 3, 5)
               for i in range(len(s) - n + 1)}  # fmt: skip
    queries |= {"NN NN NN NN NN NN", "CUSTOM DT", "DT NOT-A-TAG", "VBZ . DT"}
    for q in sorted(queries):
        assert _count(idx, q, capsys) == brute_count(sentences, q.split()), q
    # a tag n-gram never spans two sentences: the last tag of one and the first of the next
    a, b = sentences[0], sentences[1]
    pair = f"{a[-1]} {b[0]}"
    assert _count(idx, pair, capsys) == brute_count(sentences, pair.split())


def test_query_with_tags_gives_per_tag_matches(tmp_path, capsys):
    s = Sentence(tuple(Word("w", t, 0, "dep") for t in "DT JJ NN IN DT NN".split()))
    idx, _ = _build_pos_index(tmp_path, [Passage("train", 0, (s, s))])
    capsys.readouterr()
    assert main(["query", str(idx), "--tags", "DT NN IN VB", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["piece"] for r in rows] == ["DT", "NN", "IN", "VB"]
    assert [r["L"] for r in rows] == [1, 2, 2, 0]
    assert [r["C"] for r in rows][:3] == [4, 2, 2]


def test_tags_need_a_pos_index(tmp_path, capsys):
    idx, _ = _build_pos_index(tmp_path, _random_passages(np.random.default_rng(1), 2))
    manifest = json.loads((idx / "index.json").read_text())
    bpe = from_spec({"kind": "bpe", "vocab_size": 260}, "bpe").fit(["ab ab ab"], tmp_path / "bpe")
    assert bpe.kind == "bpe"
    argv = ["count", str(idx), "--tags", "DT", "--tokenizer", str(tmp_path / "bpe"),
            "--tokenizer-kind", "bpe"]  # fmt: skip
    assert main(argv) == 2  # another tokenizer than the index's: named by its fingerprint
    err = capsys.readouterr().err
    assert "not the tokenizer this index was built with" in err and "'pos'" in err
    assert manifest["tokenizer_kind"] == "pos"
    # --tags with a tokenizer that is not a POS-tag tokenizer
    args = SimpleNamespace(ids=None, tags="DT", batch=None, text=None, file=None)
    with pytest.raises(InputError, match="a POS-tag index"):
        query_inputs(args, bpe, idx)


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_template_training_counts_from_the_index_equal_the_counter(tmp_path, rng, n):
    """Template coverage's training POS n-grams (Shaib et al. §6) from the POS-tag index's
    batched count: the same ranks (ties by first occurrence), counts and cut as the counter
    over the tag documents, across shards."""
    from copyscope.report.template_coverage import training_pos_ngrams

    passages = _random_passages(rng, 12)
    idx, n_shards = _build_pos_index(tmp_path, passages)
    assert n_shards >= 2
    docs = tmp_path / "train-tags.jsonl"
    by_counter = training_pos_ngrams(docs, n)
    by_index = training_pos_ngrams(docs, n, idx)
    assert list(by_index[1].items()) == list(by_counter[1].items())
    assert by_index[0] == by_counter[0] and by_index[2] == by_counter[2]
    assert list(by_index[0].items()) == list(by_counter[0].items())


def test_template_training_counts_need_a_pos_index(tmp_path, rng):
    from copyscope.report.template_coverage import training_pos_ngrams

    passages = _random_passages(rng, 3)
    _build_pos_index(tmp_path, passages)
    other = tmp_path / "words"
    from copyscope.index import build_index

    build_index(np.array([1, 2, 3, 65535, 4, 5, 65535], dtype=np.uint16), other)
    with pytest.raises(InputError, match="kind pos"):
        training_pos_ngrams(tmp_path / "train-tags.jsonl", 2, other)
