"""The planted benchmarks of Li's three formats (corpus.inject.format_benchmarks) on a synthetic
corpus: items built as the module says, members in training exactly ``copies`` times as
formatted, no item in the validation split, the files readable as labelled own benchmarks, the
plan's own benchmarks and the config's errors."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import yaml

from copyscope.config import validate
from copyscope.corpus import CorpusPaths, planted_texts, prepare_corpus
from copyscope.corpus.format_benchmarks import (
    ANSWER,
    CUE,
    DISTRACTORS,
    LEAD,
    benchmark_name,
    build_item,
    check_spec,
)
from copyscope.errors import ConfigError
from copyscope.membership.own_benchmarks import read_benchmark
from support.corpora import CORPUS, synthetic_corpus
from support.workflow import ROOT

SPEC = {"formats": ["qa", "summarization", "multiple_choice"], "items": 6, "words": 20,
        "planted_share": 0.5, "copies": [2, 5], "seed": 1}  # fmt: skip


def read(path) -> dict[str, str]:
    return {json.loads(x)["id"]: json.loads(x)["text"] for x in open(path)}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("formats")
    synthetic_corpus(tmp / "docs.jsonl")
    cfg = copy.deepcopy(dict(CORPUS, path=str(tmp / "docs.jsonl")))
    cfg["inject"]["contamination"] = {"items": 6, "words": 16, "planted_share": 0.5,
                                      "copies": [1, 4], "seed": 2}  # fmt: skip
    cfg["inject"]["format_benchmarks"] = SPEC
    out = CorpusPaths.in_dir(tmp / "corpus", SPEC["formats"])
    manifest = prepare_corpus(cfg, out)
    return {
        "out": out,
        "manifest": manifest,
        "train": read(out.train),
        "valid": read(out.valid),
        "natural": read(out.natural),
    }


def test_each_format_has_its_items_half_of_them_members(planted):
    items = planted["manifest"]["format_benchmarks"]["items"]
    for fmt in SPEC["formats"]:
        mine = [it for it in items if it["format"] == fmt]
        assert [it["label"] for it in mine] == [1, 1, 1, 0, 0, 0]
        assert [it["copies"] for it in mine] == [2, 5, 2, 0, 0, 0]
        assert [it["id"] for it in mine] == [f"planted-{fmt}-{i}" for i in range(6)]
    added = planted["manifest"]["format_benchmarks"]["added_words"]
    assert added == sum(len(it["text"].split()) * it["copies"] for it in items) > 0


def test_members_are_in_training_as_formatted_copies_times_and_nothing_else_is(planted):
    train = planted["train"]
    for it in planted["manifest"]["format_benchmarks"]["items"]:
        docs = [d for d, text in train.items() if text == it["text"]]
        assert sorted(docs) == sorted(it["documents"]), it["id"]
        assert len(docs) == it["copies"]
        inside = sum(text.count(it["text"]) for text in train.values())
        assert inside == it["copies"], it["id"]  # no copy inside another document
    assert planted_texts(planted["manifest"])["benchmark"] == [
        it["text"] for it in planted["manifest"]["format_benchmarks"]["items"] if it["label"]
    ]


def test_no_item_source_line_is_left_in_validation_or_found_in_natural_text(planted):
    valid = " \n ".join(planted["valid"].values())
    natural = " \n ".join(planted["natural"].values())
    for it in planted["manifest"]["format_benchmarks"]["items"]:
        source = it["fields"].get("passage") or it["fields"].get("document")
        if source is None:  # multiple choice: its question's cue
            source = it["fields"]["question"].split('"')[1]
        for line in source.split("\n"):
            if len(line.split()) >= 3:
                assert line not in valid, it["id"]
                assert line not in natural, it["id"]
    # the contamination set is untouched by the cut that follows it
    for p in planted["manifest"]["contamination"]["items"]:
        assert sum(t.count(p["text"]) for t in planted["train"].values()) == p["copies"]


def test_items_are_built_as_the_module_says(planted):
    within = 0  # items whose cue and answer lie inside one line (where a line is long enough)
    for it in planted["manifest"]["format_benchmarks"]["items"]:
        f = it["fields"]
        if it["format"] == "summarization":
            assert f["summary"] == " ".join(f["document"].split()[:LEAD])
            assert it["text"] == f"{f['document']}\n\nSummary: {f['summary']}"
            continue
        cue = f["question"].split('"')[1]
        assert len(cue.split()) == CUE
        if it["format"] == "qa":
            span = f"{cue} {f['answer']}"
            long = any(len(x.split()) >= CUE + ANSWER for x in f["passage"].split("\n"))
            assert span in (f["passage"] if long else " ".join(f["passage"].split()))
            within += long
            assert len(f["answer"].split()) == ANSWER
            assert it["text"].endswith(f"\nQuestion: {f['question']}\nAnswer: {f['answer']}")
            continue
        assert len(f["choices"]) == DISTRACTORS + 1 == len(set(f["choices"]))
        right = f["choices"][f["answer"]]
        assert len(right.split()) == ANSWER
        assert it["text"].endswith(f"Answer: {'ABCD'[f['answer']]}. {right}")
    answers = [it["fields"]["answer"] for it in planted["manifest"]["format_benchmarks"]["items"]
               if it["format"] == "multiple_choice"]  # fmt: skip
    assert len(set(answers)) > 1  # the right choice is not always in the same place
    assert within > 0


def test_the_files_are_labelled_own_benchmarks(planted):
    for fmt, path in planted["out"].benchmarks.items():
        assert path.name == f"{benchmark_name(fmt)}.jsonl"
        rows, labelled = read_benchmark(path, fmt)
        assert labelled
        items = [it for it in planted["manifest"]["format_benchmarks"]["items"] if it["format"] == fmt]
        assert [r["id"] for r in rows] == [it["id"] for it in items]
        assert [r["text"] for r in rows] == [it["text"] for it in items]
        assert [r["label"] for r in rows] == [it["label"] for it in items]


def test_a_multiple_choice_item_never_offers_its_answer_twice():
    rng = np.random.default_rng(0)
    text = "a b c d e f g h"
    others = ["e f g h", "e f g h", "x y z w", "p q r s", "k l m n"]
    fields = build_item("multiple_choice", text, others, rng)
    assert fields["choices"][fields["answer"]] == "e f g h"
    assert sorted(fields["choices"]) == sorted(["e f g h", "x y z w", "p q r s", "k l m n"])
    with pytest.raises(ConfigError, match="distinct distractors"):
        build_item("multiple_choice", text, others[:3], rng)


@pytest.mark.parametrize(
    "change, key",
    [({"words": 6}, "words"), ({"items": 3}, "items"), ({"formats": ["qa", "qa"]}, "formats"),
     ({"planted_share": 0.05}, "planted_share"), ({"planted_share": 0.95}, "planted_share")],
)
def test_settings_no_benchmark_can_be_built_from_name_their_key(change, key):
    with pytest.raises(ConfigError) as exc:
        check_spec(dict(SPEC, **change))
    assert exc.value.key == f"corpus.inject.format_benchmarks.{key}"
    assert exc.value.expected.startswith("expected ")
    cfg = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    cfg["corpus"]["inject"]["format_benchmarks"] |= change
    with pytest.raises(ConfigError) as exc:  # the config check says it before any job runs
        validate(cfg)
    assert f"corpus.inject.format_benchmarks.{key}" in str(exc.value)


def test_output_files_must_match_the_formats(tmp_path):
    synthetic_corpus(tmp_path / "docs.jsonl")
    cfg = copy.deepcopy(dict(CORPUS, path=str(tmp_path / "docs.jsonl")))
    cfg["inject"]["format_benchmarks"] = SPEC
    with pytest.raises(ConfigError, match="one output file per format"):
        prepare_corpus(cfg, CorpusPaths.in_dir(tmp_path / "corpus", ["qa"]))
    assert not (tmp_path / "corpus" / "train.jsonl").exists()  # nothing half-written


def test_the_plan_scores_them_as_own_benchmarks_and_the_config_refuses_a_clash():
    from copyscope.plan import Plan

    cfg = validate(yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text()))
    plan = Plan(cfg)
    r = cfg["results"]
    assert plan.own_benchmarks == {
        f"planted-{f}": {"path": f"{r}/corpus/planted-{f}.jsonl", "format": f}
        for f in ("qa", "summarization", "multiple_choice")
    }
    assert plan.planted_benchmark_args()[:3] == ["--out-benchmark", "qa", f"{r}/corpus/planted-qa.jsonl"]
    raw = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    raw["analysis"].setdefault("membership", {})["benchmarks"] = {
        "planted-qa": {"path": "x.jsonl", "format": "qa"}
    }
    with pytest.raises(ConfigError, match="analysis.membership.benchmarks.planted-qa"):
        validate(raw)
