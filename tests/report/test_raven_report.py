"""The tables RAVEN's figures draw (McCoy et al. 2023): Fig. 1 (novelty by n with intervals
over texts; top-40 and pure sampling against the human continuations) and Fig. 3 (novelty by
model size), from small hand-worked tables; the figures' tests (tests/report/test_figures.py)
draw :func:`curves_table`."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from copyscope.errors import InputError
from copyscope.report.raven import (
    curve_frame,
    figure_curves,
    figure_decodings,
    model_sizes,
    size_table,
)

NOVELTY = {"n_max": 3, "bootstrap": 200, "seed": 0}


def test_curve_by_hand_with_an_interval_over_texts():
    """Two texts with union scores [1, 2, 1] and [1, 3] (L = score − 1): n = 1: 3 of 5 words
    novel; n = 2: 2 of 3 bigrams (text 0 both, text 1 none); n = 3: 1 of 1. Resampling whole
    texts, novelty(2) ranges over {1, 2/3, 0}; novelty(3) is 1 whenever defined."""
    c = curve_frame([np.array([1, 2, 1]), np.array([1, 3])], NOVELTY, {"model": "m"})
    assert list(c.columns) == ["model", "n", "novelty", "novelty_lo", "novelty_hi", "dup", "texts"]
    assert c["novelty"].tolist() == pytest.approx([3 / 5, 2 / 3, 1.0])
    assert (c["texts"] == 2).all()
    assert (c["novelty_lo"] <= c["novelty"]).all() and (c["novelty"] <= c["novelty_hi"]).all()
    assert c.loc[1, "novelty_lo"] == pytest.approx(0.0)
    assert c.loc[1, "novelty_hi"] == pytest.approx(1.0)
    assert c.loc[2, ["novelty_lo", "novelty_hi"]].tolist() == [1.0, 1.0]


def curves_table():
    """Curves of every source for two models under three decodings and two human sets."""
    rows = []
    sets = [(m, d) for m in ("gpt2-medium", "gpt2-small") for d in ("pure", "top_k_40", "greedy")]
    sets += [("human", "reference"), ("human", "contaminated")]
    for m, d in sets:
        for source in ("train", "union"):
            for n in (1, 2, 3, 4, 5, 10):
                v = min(1.0, n / (4 if d == "top_k_40" else 3))
                rows.append({"model": m, "decoding": d, "prompt_length": 32, "source": source,
                             "n": n, "novelty": v, "novelty_lo": v - 0.02, "novelty_hi": v,
                             "texts": 100})  # fmt: skip
    return pd.DataFrame(rows)


def test_figure_draws_top40_then_pure_union_and_the_human_reference_only():
    figs = {"raven_decoding": "top_k_40", "pure_decoding": "pure"}
    assert figure_decodings(figs, ["pure", "top_k_40", "greedy"]) == ["top_k_40", "pure"]
    assert figure_decodings(figs, ["pure", "greedy"]) == ["pure"]  # a run without top-40
    assert figure_decodings({"raven_decoding": "pure", "pure_decoding": "pure"}, ["pure"]) == [
        "pure"
    ]
    sub = figure_curves(curves_table(), ["top_k_40", "pure"])
    assert set(sub["source"]) == {"union"}
    assert set(map(tuple, sub[["model", "decoding"]].drop_duplicates().values)) == {
        ("gpt2-medium", "top_k_40"), ("gpt2-medium", "pure"), ("gpt2-small", "top_k_40"),
        ("gpt2-small", "pure"), ("human", "reference"),
    }  # fmt: skip


def test_size_table_orders_models_by_parameters_then_human():
    t = size_table(curves_table(), {"gpt2-medium": 5_000, "gpt2-small": 800}, ["top_k_40"],
                   ns=(1, 4))  # fmt: skip
    assert list(t.columns) == ["decoding", "model", "params", "n", "novelty", "novelty_lo",
                               "novelty_hi", "texts"]  # fmt: skip
    assert t["model"].tolist() == ["gpt2-small"] * 2 + ["gpt2-medium"] * 2 + ["human"] * 2
    assert set(t["decoding"]) == {"top_k_40"} and t["n"].tolist() == [1, 4] * 3
    assert t["novelty"].tolist() == pytest.approx([0.25, 1.0] * 2 + [1 / 3, 1.0])
    assert t["params"].tolist()[:4] == [800, 800, 5000, 5000] and t["params"][4:].isna().all()
    assert size_table(curves_table(), {}, []).empty


def test_model_sizes_read_the_training_summary(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "train_summary.json").write_text(json.dumps({"summary": {"params": 123}}))
    assert model_sizes([("a", str(tmp_path / "a"))]) == {"a": 123}
    (tmp_path / "b").mkdir()
    with pytest.raises(InputError, match="train_summary.json"):
        model_sizes([("b", str(tmp_path / "b"))])
