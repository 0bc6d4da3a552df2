"""The training-dynamics stage: each quantity on hand-worked inputs, and every checkpoint of a
tiny trained model scored."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope import dynamics as dyn
from copyscope.errors import InputError
from copyscope.lm import train_model
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
        {"set": "benchmark", "planted": 0, "li_nll": 3.0},
        {"set": "benchmark", "planted": 0, "li_nll": 5.0},
        {"set": "benchmark", "planted": 1, "li_nll": 1.0},
        {"set": "benchmark", "planted": 1, "li_nll": 2.0},
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
    m = {"valid_ids": [], "ladder": {"passages": passages}, "benchmark": bench, "timing": timing}
    (tmp / "manifest.json").write_text(json.dumps(m))
    return tmp / "manifest.json"


def test_every_checkpoint_scored(trained):
    params = {
        **PARAMS, "cloze_per_play": 1, "prompts": 2, "new_tokens": 4, "batch_size": 4,
        "membership": {"li_words": 8, "seed": 0, "batch_size": 4},
        "memorization": {"prompt_tokens": 4, "suffix_tokens": 4, "batch_size": 4},
        "prompt_length": 4,
    }  # fmt: skip
    out = trained / "dyn.csv"
    frame = dyn.score_file(trained / "m", "toy", {"manifest": manifest(trained)}, params, out)
    assert list(frame.columns) == dyn.COLUMNS
    assert pd.read_csv(out).shape == frame.shape
    steps = [3, 10, 30]  # 30^(1/3), 30^(2/3), 30
    assert sorted(frame["step"].unique()) == steps
    for step in steps:
        g = frame[frame["step"] == step]
        assert set(g["quantity"]) == {"valid_loss", "extraction", "nll_gap"}
        assert set(g.loc[g["quantity"] == "extraction", "set"]) == {
            "copies 8", "controls", "timing early", "timing late", "timing spread"
        }  # fmt: skip
    # the periodic toy corpus is learnt: its passages are extracted at the end, not at step 3
    ext = frame[(frame["quantity"] == "extraction") & (frame["set"] == "copies 8")]
    assert ext["value"].iloc[-1] == 1.0 and ext["value"].iloc[0] < 1.0
    loss = frame[frame["quantity"] == "valid_loss"]["value"].to_numpy()
    assert loss[-1] < loss[0]
    gap = frame[frame["quantity"] == "nll_gap"]["value"].to_numpy()
    assert gap[-1] > 0  # the corpus's own pattern is more familiar than the other words


def test_a_model_without_checkpoints_is_an_error(trained, tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    with pytest.raises(InputError, match="expected checkpoints"):
        dyn.score_checkpoints(tmp_path / "m", "toy", {"manifest": manifest(trained)}, PARAMS)
