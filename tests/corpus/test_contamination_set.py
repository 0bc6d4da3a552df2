"""The planted contamination set (corpus.inject.contamination) on a synthetic corpus: ground
truth in the manifest, exact copy counts in training, no overlap with the ladder or the validation split,
the two baselines, the config block and its errors."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from copyscope.config import validate
from copyscope.corpus import CorpusPaths, prepare_corpus
from copyscope.corpus.contamination_set import shifted_forbidden
from copyscope.errors import ConfigError
from support.corpora import CORPUS, synthetic_corpus
from support.workflow import ROOT

BENCH = {"items": 10, "words": 16, "planted_share": 0.6, "copies": [1, 4], "seed": 2}


def read(path) -> dict[str, str]:
    return {json.loads(x)["id"]: json.loads(x)["text"] for x in open(path)}


def flat(text: str) -> str:
    return " ".join(text.split())


def occurrences(text: str, docs: dict[str, str]) -> int:
    return sum(d.count(text) for d in docs.values())


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bench")
    synthetic_corpus(tmp / "docs.jsonl")
    cfg = copy.deepcopy(dict(CORPUS, path=str(tmp / "docs.jsonl")))
    cfg["inject"]["contamination"] = BENCH
    manifest = prepare_corpus(cfg, CorpusPaths.in_dir(tmp / "corpus"))
    return {
        "tmp": tmp,
        "cfg": cfg,
        "manifest": manifest,
        "train": read(tmp / "corpus/train.jsonl"),
        "valid": read(tmp / "corpus/valid.jsonl"),
    }


def test_manifest_records_which_items_are_planted_and_how_often(bench):
    items = bench["manifest"]["contamination"]["items"]
    assert [p["copies"] for p in items] == [1, 4, 1, 4, 1, 4, 0, 0, 0, 0]
    assert [p["planted"] for p in items] == [True] * 6 + [False] * 4
    assert len({p["id"] for p in items}) == 10
    for p in items:
        assert len(p["text"].split()) == BENCH["words"]
        assert p["source_doc"] in ("doc4", "doc5")
        assert len(p["positions"]) == p["copies"]
    added = bench["manifest"]["contamination"]["added_words"]
    assert added == BENCH["words"] * (3 * 1 + 3 * 4)


def test_items_occur_copies_times_in_training_and_never_in_validation(bench):
    for p in bench["manifest"]["contamination"]["items"]:
        assert occurrences(p["text"], bench["train"]) == p["copies"], p["id"]
        five = " ".join(p["text"].split()[:5])
        assert not any(five in " ".join(v.split()) for v in bench["valid"].values()), p["id"]


def test_the_ladder_and_the_duplicates_stay_intact(bench):
    m = bench["manifest"]
    for p in m["ladder"]["passages"]:
        assert occurrences(p["text"], bench["train"]) == p["copies"], p["id"]
    for rec in m["injected"]:
        assert rec["text"] in " ".join(bench["train"][rec["source_doc"]].split())
    content = {
        line
        for p in m["ladder"]["passages"]
        for line in p["text"].split("\n")
        if len(line.split()) > 2
    }
    for p in m["contamination"]["items"] + m["contamination"]["clean"]:
        assert not content & set(p["text"].split("\n")), p["id"]


def test_baselines_memorised_in_training_clean_held_out(bench):
    b = bench["manifest"]["contamination"]
    assert len(b["memorised"]) == len(b["clean"]) == BENCH["items"]
    for p in b["memorised"]:
        assert p["source_doc"] in ("doc0", "doc1", "doc2", "doc3")
        # whitespace-normalised like every passage (the synthetic lines are indented)
        assert occurrences(flat(p["text"]), {k: flat(v) for k, v in bench["train"].items()}) >= 1
        assert occurrences(flat(p["text"]), {k: flat(v) for k, v in bench["valid"].items()}) == 0
    items = {p["text"] for p in b["items"]}
    for p in b["clean"]:
        assert occurrences(p["text"], bench["train"]) == 0
        assert occurrences(flat(p["text"]), {k: flat(v) for k, v in bench["valid"].items()}) == 1
        assert p["text"] not in items


def test_contamination_set_is_reproducible_and_absent_when_unconfigured(bench, tmp_path):
    again = prepare_corpus(bench["cfg"], CorpusPaths.in_dir(tmp_path / "a"))
    assert again["contamination"] == bench["manifest"]["contamination"]
    cfg = copy.deepcopy(bench["cfg"])
    del cfg["inject"]["contamination"]
    assert "contamination" not in prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "b"))


def test_too_many_items_name_the_config_key(bench, tmp_path):
    cfg = copy.deepcopy(bench["cfg"])
    cfg["inject"]["contamination"]["items"] = 500
    with pytest.raises(ConfigError, match=r"corpus\.inject\.contamination\.items"):
        prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "c"))


def test_shifted_forbidden_moves_spans_past_ladder_insertions():
    ladder = {
        "passages": [
            {"text": "a\nb", "positions": [["d", 2], ["d", 10]]},
            {"text": "c", "positions": [["d", 2]]},
        ]
    }
    out = shifted_forbidden({"d": [(0, 2), (4, 6)], "e": [(1, 3)]}, ladder)
    # 3 lines inserted at boundary 2 (new lines 2..4), 2 at boundary 10 (new 13..14)
    assert sorted(out["d"]) == [(0, 2), (2, 5), (7, 9), (13, 15)]
    assert out["e"] == [(1, 3)]


def test_config_block_defaults():
    cfg = yaml.safe_load((ROOT / "config/tiny.yaml").read_text())
    cfg["corpus"]["inject"]["contamination"] = {}
    cfg = validate(cfg)
    b = cfg["corpus"]["inject"]["contamination"]
    assert b == {"items": 40, "words": 64, "planted_share": 0.5, "copies": [1, 4], "seed": 0}
