"""The training-dynamics stage: each quantity on hand-worked inputs, and every checkpoint of a
tiny trained model scored."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope import dynamics as dyn
from copyscope.errors import InputError
from copyscope.lm import train_model
from copyscope.syntax.io import write_parses
from copyscope.syntax.types import Passage, Sentence, Word
from support.models import SPECS, TRAIN, make_tokenizer, toy_corpus

PARAMS = {"bootstrap": 200, "seed": 0, "novelty_n": 2}


def by_set(rows):
    return {r["set"]: r for r in rows}


def test_mean_row_by_hand():
    r = dyn.mean_row("extraction", "copies 1", [1, 0, 1, 1], PARAMS)
    assert r["value"] == 0.75 and r["n"] == 4
    assert 0 <= r["value_lo"] <= 0.75 <= r["value_hi"] <= 1
    one = dyn.mean_row("extraction", "controls", [0], PARAMS)
    assert one["value"] == 0 and one["n"] == 1 and np.isnan(one["value_lo"])  # no interval of one
    none = dyn.mean_row("extraction", "timing late", [], PARAMS)
    assert np.isnan(none["value"]) and none["n"] == 0


def test_extraction_per_rung_controls_and_timing_group():
    frame = pd.DataFrame(
        {
            "passage": ["ladder-1-0", "ladder-1-1", "ladder-8-0", "ladder-8-1", "control-0"],
            "copies": [1, 1, 8, 8, 0],
            "exact": [1, 0, 1, 1, 0],
        }
    )
    timing = {"ladder-1-0": "early", "ladder-8-1": "late", "macbeth": "early"}
    got = by_set(dyn.extraction_rows(frame, timing, PARAMS))
    assert {k: (v["value"], v["n"]) for k, v in got.items()} == {
        "copies 1": (0.5, 2),
        "copies 8": (1.0, 2),
        "controls": (0.0, 1),
        "timing early": (1.0, 1),
        "timing late": (1.0, 1),
        "timing spread": (0.5, 2),  # ladder-1-1 (0) and ladder-8-0 (1)
    }
    # without timing no timing rows
    assert not any(k.startswith("timing") for k in by_set(dyn.extraction_rows(frame, {}, PARAMS)))


def test_nll_gap_is_unplanted_minus_planted():
    texts = [
        {"set": "contamination", "planted": 0, "li_nll": 3.0},
        {"set": "contamination", "planted": 0, "li_nll": 5.0},
        {"set": "contamination", "planted": 1, "li_nll": 1.0},
        {"set": "contamination", "planted": 1, "li_nll": 2.0},
        {"set": "clean", "planted": 0, "li_nll": 100.0},  # a baseline: not in the gap
    ]
    r = dyn.nll_gap_row(texts, PARAMS)
    assert r["value"] == pytest.approx(4.0 - 1.5) and r["n"] == 4
    assert r["value_lo"] <= 2.5 <= r["value_hi"]
    assert np.isnan(dyn.nll_gap_row(texts[:2], PARAMS)["value"])  # no planted item


def test_name_cloze_per_split_and_timing_group():
    rows = [
        {"play": "a", "split": "train", "correct_insensitive": 1},
        {"play": "a", "split": "train", "correct_insensitive": 1},
        {"play": "b", "split": "train", "correct_insensitive": 0},
        {"play": "c", "split": "train", "correct_insensitive": 1},
        {"play": "x", "split": "excerpt", "correct_insensitive": 0},
        {"play": "v", "split": "valid", "correct_insensitive": 0},
        {"play": "v", "split": "valid", "correct_insensitive": 1},
    ]
    got = by_set(dyn.cloze_rows(rows, {"a": "early", "b": "late"}, PARAMS))
    assert {k: (v["value"], v["n"]) for k, v in got.items()} == {
        "train": (0.75, 4),
        "excerpt": (0.0, 1),
        "valid": (0.5, 2),
        "timing early": (1.0, 2),
        "timing late": (0.0, 1),
        "timing spread": (1.0, 1),
    }


def test_novelty_pools_the_novel_ngrams():
    # n = 2: positions t >= 1; doc 1: L = 1 < 2 novel, L = 2 not; doc 2: L = 0 novel → 2 / 3
    r = dyn.novelty_row("greedy", [np.array([0, 1, 2]), np.array([0, 0])], PARAMS)
    assert r["value"] == pytest.approx(2 / 3) and r["n"] == 2 and r["set"] == "greedy"
    assert r["value_lo"] <= 2 / 3 <= r["value_hi"]
    assert np.isnan(dyn.novelty_row("pure", [np.array([0])], PARAMS)["value"])  # no bigram


def test_template_marks_by_hand():
    tags = ["DT", "NN", "VBZ", "DT", "NN"]
    assert dyn.template_marks(tags, {("DT", "NN")}, 2).tolist() == [1, 1, 0, 1, 1]
    assert dyn.template_marks(tags, {("NN", "VBZ", "DT")}, 3).tolist() == [0, 1, 1, 1, 0]
    assert dyn.template_marks(tags, {("JJ", "NN")}, 2).tolist() == [0] * 5
    assert dyn.template_marks(["DT"], {("DT", "NN")}, 2).tolist() == [0]


def test_template_set_and_sentences():
    def sent(tags):
        return Sentence(tuple(Word(f"w{i + 1}", t, 0, "dep") for i, t in enumerate(tags)))

    train = [Passage("train", 0, (sent(["DT", "NN", "VBZ"]), sent(["DT", "NN"])))]
    assert dyn.template_set(train, 2, 1) == {("DT", "NN")}  # 2 of 3 bigrams
    assert dyn.template_set(train, 2, 5) == {("DT", "NN"), ("NN", "VBZ")}
    valid = [Passage("valid", 0, tuple(sent(["DT"] * k) for k in (1, 2, 3, 4)))]
    got = dyn.template_sentences(valid, 2, 10, 0)
    assert [len(s.words) for s in got] == [2, 3, 4]  # too short: left out
    two = dyn.template_sentences(valid, 2, 2, 0)
    assert len(two) == 2 and all(s in got for s in two)
    assert two == dyn.template_sentences(valid, 2, 2, 0)  # seeded


def test_template_rows_and_token_alignment(tmp_path):
    make_tokenizer(tmp_path / "tok")
    from copyscope.tokenize import load_hf_tokenizer

    tok = load_hf_tokenizer(tmp_path / "tok")
    ids, word = dyn.sentence_ids(tok, ["w3", "w4", "w5"])
    assert ids.tolist() == [3, 4, 5] and word.tolist() == [0, 1, 2]
    # inside: NLL 1 and 3 → exp(2); other: NLL 5 → exp(5) (one token: no interval)
    rows = dyn.template_rows(
        [np.array([1.0, 5.0]), np.array([3.0])], [np.array([True, False]), np.array([True])], PARAMS
    )
    got = {r["set"]: r for r in rows}
    assert got["template tokens"]["value"] == pytest.approx(np.exp(2.0))
    assert got["template tokens"]["n"] == 2
    assert np.exp(1.0) <= got["template tokens"]["value_lo"] <= np.exp(2.0)
    assert got["other tokens"]["value"] == pytest.approx(np.exp(5.0))
    assert np.isnan(got["other tokens"]["value_lo"])


# --------------------------------------------------------------------------- a tiny model
@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dyn")
    make_tokenizer(tmp / "tok")
    spec = dict(SPECS["gpt2"], train=dict(TRAIN, checkpoints=3))  # 30 steps
    docs, valid = toy_corpus()
    train_model(spec, tmp / "tok", docs, valid, tmp / "m", seed=0, device="cpu")
    return tmp


def manifest(tmp):
    import json

    ten = " ".join(f"w{i}" for i in range(1, 11))
    other = " ".join(f"w{i}" for i in range(20, 40))
    passages = [
        {"id": "ladder-8-0", "kind": "planted", "copies": 8, "text": f"{ten} {ten}"},
        {"id": "ladder-8-1", "kind": "planted", "copies": 8, "text": f"{ten} {ten}"},
        {"id": "control-0", "kind": "control", "copies": 0, "text": other},
    ]
    bench = {
        "items": [
            {"id": "bench-0", "copies": 4, "text": f"{ten} {ten}"},
            {"id": "bench-1", "copies": 0, "text": other},
        ],
        "memorised": [{"text": ten}],
        "clean": [{"text": other}],
    }
    timing = {"window": 0.1, "seed": 0, "groups": {
        "early": {"plays": [], "ladder": ["ladder-8-0"], "documents": []},
        "late": {"plays": [], "ladder": [], "documents": []}}}  # fmt: skip
    m = {"valid_ids": [], "ladder": {"passages": passages}, "contamination": bench, "timing": timing}
    (tmp / "manifest.json").write_text(json.dumps(m))
    return tmp / "manifest.json"


def test_every_checkpoint_scored(trained):
    params = {
        **PARAMS, "cloze_per_play": 1, "prompts": 2, "new_tokens": 4, "batch_size": 4,
        "membership": {"li_words": 8, "seed": 0, "batch_size": 4},
        "memorization": {"prompt_tokens": 4, "suffix_tokens": 4, "batch_size": 4},
        "prompt_length": 4,
    }  # fmt: skip
    params |= {"template_headline_n": 2, "top_k": 1, "template_sentences": 4}
    words = [f"w{i}" for i in range(1, 11)]
    tags = ["DT", "NN"] * 5  # the template DT NN covers every word: no other token
    parse = [
        Passage(
            "x",
            0,
            (Sentence(tuple(Word(w, t, 0, "dep") for w, t in zip(words, tags, strict=True))),),
        )
    ]
    write_parses(parse, trained / "train.parquet")
    write_parses(parse, trained / "valid.parquet")
    out = trained / "dyn.csv"
    inputs = {
        "manifest": manifest(trained), "train_parses": trained / "train.parquet",
        "valid_parses": trained / "valid.parquet",
    }  # fmt: skip
    frame = dyn.score_file(trained / "m", "toy", inputs, params, out)
    assert list(frame.columns) == dyn.COLUMNS
    assert pd.read_csv(out).shape == frame.shape
    steps = [3, 10, 30]  # 30^(1/3), 30^(2/3), 30
    assert sorted(frame["step"].unique()) == steps
    for step in steps:
        g = frame[frame["step"] == step]
        assert set(g["quantity"]) == {"valid_loss", "extraction", "nll_gap", "template_ppl"}
        assert set(g.loc[g["quantity"] == "extraction", "set"]) == {
            "copies 8", "controls", "timing early", "timing late", "timing spread"
        }  # fmt: skip
    # the periodic toy corpus is learnt: its passages are extracted at the end, not at step 3
    ext = frame[(frame["quantity"] == "extraction") & (frame["set"] == "copies 8")]
    assert ext["value"].iloc[-1] == 1.0 and ext["value"].iloc[0] < 1.0
    loss = frame[frame["quantity"] == "valid_loss"]["value"].to_numpy()
    assert loss[-1] < loss[0]
    ppl = frame[frame["quantity"] == "template_ppl"]
    inside = ppl[ppl["set"] == "template tokens"]
    assert inside["n"].tolist() == [10] * 3  # every token of the one sentence
    assert ppl[ppl["set"] == "other tokens"]["n"].tolist() == [0] * 3
    assert inside["value"].iloc[-1] < inside["value"].iloc[0]  # the pattern is learnt
    gap = frame[frame["quantity"] == "nll_gap"]["value"].to_numpy()
    assert gap[-1] > 0  # the corpus's own pattern is more familiar than the other words


def test_a_model_without_checkpoints_is_an_error(trained, tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    with pytest.raises(InputError, match="expected checkpoints"):
        dyn.score_checkpoints(tmp_path / "m", "toy", {"manifest": manifest(trained)}, PARAMS)


def test_the_config_needs_checkpoints_for_the_dynamics():
    import yaml

    from copyscope.config import validate
    from copyscope.errors import ConfigError
    from support.workflow import ROOT

    cfg = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    assert cfg["analysis"]["dynamics"]["enabled"] and cfg["models"]["train"]["checkpoints"] == 3
    validate(cfg)
    del cfg["models"]["train"]["checkpoints"]
    with pytest.raises(ConfigError, match=r"analysis.dynamics.enabled.*checkpoints"):
        validate(cfg)


def test_the_plan_of_the_dynamics(tmp_path):
    from support.configs import plan_of

    tiny = plan_of("tiny")
    assert tiny.dynamics_models == ["gpt2-a", "gpt2-b", "lstm"]
    assert tiny.parts()["dynamics"]
    inputs = tiny.dynamics_inputs("lstm")
    assert inputs["model"] == "/r/models/lstm" and inputs["index"] == "/r/index/bpe/index.json"
    assert inputs["train_parses"] == "/r/syntax/train.parquet"
    # the name cloze: the run's candidate passages, never the names or the splits (no NER here)
    assert inputs["cloze_passages"] == "/r/membership/cloze_passages.json"
    assert not {"names", "train", "valid", "excerpts"} & set(inputs)
    args = tiny.dynamics_args(inputs)
    assert args[:4] == ["--index", "/r/index/bpe", "--prompts", "/r/prompts/prompts.jsonl"]
    assert args[-2:] == ["--cloze-passages", "/r/membership/cloze_passages.json"]
    params = tiny.dynamics_params()
    assert params["cloze_per_play"] == 2 and params["template_headline_n"] == 6
    default = plan_of("config")  # on in the default, for every trained model
    assert default.dynamics_models == ["t1x32", "t2x64", "t4x256", "lstm"]
    assert default.parts()["dynamics"] and default.dynamics_params()["cloze_per_play"] == 4
