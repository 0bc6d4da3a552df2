"""Planted excerpts of held-out plays (corpus.inject.excerpts) on a synthetic corpus: exact copy
counts, the plays held out whole, seeded, disjoint from the ladder and the contamination set; the
contaminated human set; the config block and its errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from test_contamination_set import BENCH

from copyscope.config import validate
from copyscope.corpus import CorpusPaths, prepare_corpus
from copyscope.corpus.excerpts import paragraphs, pick_plays, pick_speeches
from copyscope.errors import ConfigError
from copyscope.io import read_jsonl
from copyscope.sample import write_prompts
from copyscope.tokenize import encode_split, from_spec
from support.configs import TINY, problems
from support.corpora import CORPUS, synthetic_corpus

HELD = ["doc4", "doc5", "doc6", "doc7"]
EXCERPTS = {"copies": [1, 3], "plays_per_count": 1, "share": 0.4, "seed": 5}


def read(path) -> dict[str, str]:
    return {r["id"]: r["text"] for r in read_jsonl(path)}


def corpus_cfg(path, excerpts=EXCERPTS) -> dict:
    cfg = copy.deepcopy(dict(CORPUS, path=str(path)))
    cfg["split"] = {"valid_ids": HELD}
    cfg["inject"]["contamination"] = BENCH
    cfg["inject"]["excerpts"] = excerpts
    return cfg


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("excerpts")
    synthetic_corpus(tmp / "docs.jsonl", n_docs=8)
    cfg = corpus_cfg(tmp / "docs.jsonl")
    out = CorpusPaths.in_dir(tmp / "corpus")
    manifest = prepare_corpus(cfg, out)
    return {
        "tmp": tmp,
        "cfg": cfg,
        "out": out,
        "manifest": manifest,
        "source": read(tmp / "docs.jsonl"),
        "train": read(out.train),
        "valid": read(out.valid),
        "excerpts": read(out.excerpts),
    }


def paragraph_counts(docs: dict[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for text in docs.values():
        for p in paragraphs(text):
            counts[p] = counts.get(p, 0) + 1
    return counts


# --------------------------------------------------------------------------- pure functions
def test_paragraphs_are_blank_line_separated_blocks():
    text = "\nA:\nline one\nline two\n\n  \nB:\nthree\n\n\nC:\nfour\n"
    assert paragraphs(text) == ["A:\nline one\nline two", "B:\nthree", "C:\nfour"]
    assert paragraphs("\n \n") == []


def test_pick_plays_is_seeded_disjoint_and_keeps_a_clean_play():
    ids = [f"p{i}" for i in range(7)]
    got = pick_plays(ids, [1, 4, 16], 2, seed=0)
    assert len(got) == 6 and sorted(got.values()) == [1, 1, 4, 4, 16, 16]
    assert got == pick_plays(list(reversed(ids)), [1, 4, 16], 2, seed=0)  # order-free
    assert any(pick_plays(ids, [1, 4, 16], 2, seed=s) != got for s in range(1, 5))
    with pytest.raises(ConfigError) as err:
        pick_plays(ids[:6], [1, 4, 16], 2, seed=0)  # 6 excerpt plays, no clean one left
    assert err.value.key == "corpus.inject.excerpts.plays_per_count"


def test_pick_speeches_rounds_the_share_and_keeps_at_least_one():
    rng = np.random.default_rng(0)
    assert len(pick_speeches(10, 0.3, rng)) == 3
    assert len(pick_speeches(10, 0.01, rng)) == 1
    picked = pick_speeches(10, 1.0, rng)
    assert picked == list(range(10))
    assert pick_speeches(0, 0.5, rng) == []


# --------------------------------------------------------------------------- corpus stage
def test_excerpt_plays_are_held_out_whole_and_recorded(planted):
    m, source = planted["manifest"], planted["source"]
    plays = {p["play"]: p for p in m["excerpts"]["plays"]}
    assert sorted(p["copies"] for p in plays.values()) == [1, 3]
    assert set(plays) <= set(HELD)
    # whole, as cut from the source, in excerpts.jsonl; not in the validation split
    assert planted["excerpts"] == {d: source[d] for d in plays}
    assert set(planted["valid"]).isdisjoint(plays) and set(m["valid_ids"]).isdisjoint(plays)
    assert set(m["valid_ids"]) == set(HELD) - set(plays)
    assert m["splits"]["excerpts"]["documents"] == 2
    # the training split holds c excerpt documents per play and no excerpt play itself
    assert set(planted["train"]).isdisjoint(HELD)
    excerpt_docs = [d for d in planted["train"] if d.startswith("excerpt-")]
    assert len(excerpt_docs) == 1 + 3
    for play, p in plays.items():
        n = len(paragraphs(source[play]))
        assert p["speeches"] == n and len(p["planted"]) == round(EXCERPTS["share"] * n)
        assert p["added_words"] == p["copies"] * sum(len(s["text"].split()) for s in p["planted"])
    assert m["excerpts"]["added_words"] == sum(p["added_words"] for p in plays.values())


def test_each_planted_speech_occurs_copies_times_and_the_rest_never(planted):
    counts = paragraph_counts(planted["train"])
    for p in planted["manifest"]["excerpts"]["plays"]:
        speeches = paragraphs(planted["source"][p["play"]])
        planted_idx = {s["index"] for s in p["planted"]}
        for s in p["planted"]:
            assert speeches[s["index"]] == s["text"]
            assert counts.get(s["text"], 0) == p["copies"], (p["play"], s["index"])
        # the full text is not in training: every other speech (at least 3 lines of random
        # words, never in another play) occurs nowhere
        for i, text in enumerate(speeches):
            if i not in planted_idx and text.count("\n") >= 3:
                assert text not in "\n\n".join(planted["train"].values()), (p["play"], i)


def test_ladder_and_contamination_set_are_cut_from_the_clean_plays_only(planted):
    m = planted["manifest"]
    excerpt_plays = {p["play"] for p in m["excerpts"]["plays"]}
    clean = set(m["valid_ids"])
    sources = [p["source_doc"] for p in m["ladder"]["passages"]]
    sources += [p["source_doc"] for p in m["contamination"]["items"] + m["contamination"]["clean"]]
    assert set(sources) <= clean and set(sources).isdisjoint(excerpt_plays)
    # no ladder or contamination-set text inside an excerpt play, hence none in a planted excerpt
    whole = " ".join(" ".join(planted["excerpts"].values()).split())
    for p in m["ladder"]["passages"] + m["contamination"]["items"]:
        assert " ".join(p["text"].split()[4:12]) not in whole, p.get("id")


def test_excerpts_are_seeded(planted, tmp_path):
    again = prepare_corpus(planted["cfg"], CorpusPaths.in_dir(tmp_path / "a"))
    assert again["excerpts"] == planted["manifest"]["excerpts"]
    assert again["splits"]["train"]["sha256"] == planted["manifest"]["splits"]["train"]["sha256"]
    other = prepare_corpus(
        corpus_cfg(planted["tmp"] / "docs.jsonl", dict(EXCERPTS, seed=6)),
        CorpusPaths.in_dir(tmp_path / "b"),
    )
    assert other["excerpts"]["plays"] != planted["manifest"]["excerpts"]["plays"]


def test_without_excerpts_nothing_changes(planted, tmp_path):
    cfg = corpus_cfg(planted["tmp"] / "docs.jsonl", None)
    out = CorpusPaths.in_dir(tmp_path / "off")
    m = prepare_corpus(cfg, out)
    assert "excerpts" not in m and m["valid_ids"] == HELD
    assert out.excerpts.read_text() == "" and m["splits"]["excerpts"]["documents"] == 0
    assert not any(d.startswith("excerpt-") for d in read(out.train))


def test_too_few_held_out_documents_name_the_key(planted, tmp_path):
    cfg = corpus_cfg(planted["tmp"] / "docs.jsonl", dict(EXCERPTS, plays_per_count=2))
    with pytest.raises(ConfigError) as err:
        prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "x"))
    assert err.value.key == "corpus.inject.excerpts.plays_per_count"


# --------------------------------------------------------------------------- human sets
def test_contaminated_windows_come_only_from_the_excerpt_plays(planted):
    tmp, out = planted["tmp"], planted["out"]
    tok = from_spec({"kind": "bpe", "vocab_size": 700})
    tok.fit(planted["train"].values(), tmp / "tok")
    for split, path in (("valid", out.valid), ("excerpts", out.excerpts)):
        encode_split(tok, path, tmp / f"{split}.npy", tmp / f"{split}.json", "bpe")
    params = {"prompt_length": 8, "prompt_lengths": [0, 4], "new_tokens": 12, "prompts": 30,
              "seed": 0}  # fmt: skip
    lengths = write_prompts(
        tmp / "valid.npy",
        tmp / "valid.json",
        tmp / "tok",
        params,
        tmp / "prompts.jsonl",
        tmp / "reference.jsonl",
        (tmp / "excerpts.npy", tmp / "excerpts.json"),
        tmp / "contaminated.jsonl",
    )
    ref, con = (list(read_jsonl(tmp / f"{n}.jsonl")) for n in ("reference", "contaminated"))
    assert {r["decoding"] for r in ref} == {"reference"}
    assert {r["decoding"] for r in con} == {"contaminated"}
    assert {r["model"] for r in ref + con} == {"human"}
    assert {r["prompt_length"] for r in con} == set(lengths) == {0, 4, 8}
    assert len(con) == params["prompts"] * len(lengths) and len(ref) == len(con)
    assert set(ref[0]) == set(con[0])  # the same record format
    assert all(len(r["ids"]) == params["new_tokens"] for r in ref + con)

    def flat(text: str) -> str:
        return " ".join(text.split())

    clean = [flat(t) for t in planted["valid"].values()]
    excerpt = [flat(t) for t in planted["excerpts"].values()]
    for rows, own, other in ((ref, clean, excerpt), (con, excerpt, clean)):
        for r in rows:
            text = flat(r["text"])
            assert any(text in d for d in own), text
            assert not any(text in d for d in other), text
    windows = list(read_jsonl(tmp / "prompts.jsonl"))  # the prompts: the clean windows only
    assert len(windows) == params["prompts"]
    first = {(w["window"], tuple(w["continuation"])) for w in windows}
    assert first == {(r["window"], tuple(r["ids"])) for r in ref}


# --------------------------------------------------------------------------- config
def test_shipped_configs_enable_excerpts():
    cfg = validate(copy.deepcopy(TINY))
    assert cfg["corpus"]["inject"]["excerpts"]["copies"] == [2, 8]
    off = copy.deepcopy(TINY)
    off["corpus"]["inject"]["excerpts"] = None
    assert validate(off)["corpus"]["inject"]["excerpts"] is None
    partial = copy.deepcopy(TINY)
    partial["corpus"]["inject"]["excerpts"] = {"copies": [4]}
    filled = validate(partial)["corpus"]["inject"]["excerpts"]
    assert filled == {"copies": [4], "plays_per_count": 1, "share": 0.3, "seed": 0}


def _excerpts(**kw):
    return lambda c: c["corpus"]["inject"]["excerpts"].update(kw)


@pytest.mark.parametrize(
    "mutate, line",
    [
        (
            _excerpts(copies=[0, 8]),
            "config key 'corpus.inject.excerpts.copies[0]': expected an integer >= 1, found 0",
        ),
        (
            _excerpts(copies=[]),
            "config key 'corpus.inject.excerpts.copies': expected a list of at least 1 item(s), "
            "found an empty list",
        ),
        (
            _excerpts(share=0),
            "config key 'corpus.inject.excerpts.share': expected a number > 0, found 0",
        ),
        (
            _excerpts(share=1.5),
            "config key 'corpus.inject.excerpts.share': expected a number <= 1, found 1.5",
        ),
        (
            _excerpts(plays_per_count=0),
            "config key 'corpus.inject.excerpts.plays_per_count': expected an integer >= 1, "
            "found 0",
        ),
        (
            _excerpts(plays=2),
            "config key 'corpus.inject.excerpts.plays': expected one of copies, "
            "plays_per_count, seed, share, found an unknown key",
        ),
        (
            _excerpts(plays_per_count=2),
            "config key 'corpus.inject.excerpts.plays_per_count': expected plays_per_count × "
            "len(copies) (4) < the held-out documents of corpus.split.valid_ids (3: one must "
            "stay clean), found 2",
        ),
        (
            lambda c: c["corpus"]["split"].update(valid_ids=[], valid_fraction=0),
            "config key 'corpus.inject.excerpts': expected held-out documents to draw the "
            "excerpt plays from (corpus.split.valid_ids or valid_fraction > 0), found "
            "valid_fraction 0",
        ),
    ],
)
def test_excerpt_config_errors_name_the_key(mutate, line):
    assert line in problems(mutate)


def test_contaminated_set_needs_its_tokens_and_its_path(tmp_path):
    from copyscope.errors import InputError

    with pytest.raises(InputError, match="contaminated set's path together"):
        write_prompts("v.npy", "v.json", "tok", {}, "p", "h", ("e.npy", "e.json"), None)
    with pytest.raises(InputError, match="contaminated set's path together"):
        write_prompts("v.npy", "v.json", "tok", {}, "p", "h", ("e.npy", None), "c.jsonl")
