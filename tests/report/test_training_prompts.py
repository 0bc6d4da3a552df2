"""The training-prompt analysis (Merrill et al. Fig. 3): hand-worked novelty values, the
table's conditions, the report job of the tiny config and the figure."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from copyscope.report import training_prompts as tp
from support.configs import plan_of, report_flags, report_job
from support.figures import pixels

NOVELTY = {
    "n_max": 4, "bootstrap": 50, "seed": 0, "lower_bound": {"p": 0.9, "bits_per_token": 1.8},
}  # fmt: skip
DECODINGS = {"greedy": {"kind": "greedy"}, "beam_4": {"kind": "beam", "num_beams": 4}}
SAMPLING = {"prompt_length": 8, "decodings": DECODINGS}


def tokens(per_text: dict[int, list[list[int]]]) -> pd.DataFrame:
    """A tokens.parquet frame: prompt length → the L_t of each of its texts (L_nat = L)."""
    rows, text = [], 0
    for plen, texts in per_text.items():
        for L in texts:
            for t, v in enumerate(L):
                rows.append({"text": text, "prompt_length": plen, "t": t, "id": t, "L": v,
                             "L_nat": min(v, 1)})  # fmt: skip
            text += 1
    return pd.DataFrame(rows)


@pytest.fixture
def table():
    # Merrill et al.'s worked example: L = <1,2,3,0,1> ("lloyd" against "hello world"):
    # novelty(1) = 1/5, novelty(2) = 2/4, novelty(3) = 2/3, novelty(4) = 2/2
    greedy = tokens({1: [[1, 2, 3, 0, 1]], 10: [[1, 2, 3, 4, 5]]})
    beam = tokens({1: [[0, 1, 2], [1, 2, 3]], 10: [[0, 0, 0]]})
    human = tokens({8: [[0, 0, 1, 2]], 0: [[9, 9, 9, 9]]})
    sizes = {"m": 1000, "human": 1000}
    return tp.build_table(
        [("m", "greedy", greedy), ("m", "beam_4", beam)], human, sizes, {}, NOVELTY, SAMPLING
    )


def curve(table, **where) -> list[float]:
    sub = table
    for k, v in where.items():
        sub = sub[sub[k] == v]
    return sub.sort_values("n")["novelty"].round(6).tolist()


def test_hand_worked_novelty_values(table):
    every = table[table["source"] == "all"]
    assert curve(every, decoding="greedy", prompt_length=1) == [0.2, 0.5, round(2 / 3, 6), 1.0]
    assert curve(every, decoding="greedy", prompt_length=10) == [0.0, 0.0, 0.0, 0.0]
    # <0,1,2> and <1,2,3>: n=1: L<1 at 1 of 6; n=2: positions t>=2 (1,2 | 2,3): 1 of 4;
    # n=3: (2 | 3): 1 of 2; n=4: none (no text has 4 tokens)
    beam = curve(every, decoding="beam_4", prompt_length=1)
    assert beam[:3] == [round(1 / 6, 6), 0.25, 0.5] and np.isnan(beam[3])
    at10 = curve(every, decoding="beam_4", prompt_length=10)  # <0,0,0>: all novel
    assert at10[:3] == [1.0, 1.0, 1.0] and np.isnan(at10[3])
    # the human reference at sampling.prompt_length only: <0,0,1,2>: n=1: 2 of 4; n=2
    # (t >= 2: 0,1,2): 2 of 3; n=3 (1,2): 2 of 2; n=4 (2): 1 of 1
    assert curve(every, model="human") == [0.5, round(2 / 3, 6), 1.0, 1.0]
    # natural source: L_nat = min(L, 1), so every n >= 2 is novel
    natural = table[table["source"] == "natural"]
    assert curve(natural, decoding="greedy", prompt_length=1)[1:] == [1.0, 1.0, 1.0]


def test_the_table_holds_every_condition_labelled(table):
    assert list(table.columns[:6]) == list(tp.COLUMNS)
    conditions = table[["source", "prompts", "model", "decoding", "beams", "prompt_length"]]
    keys = ["/".join(map(str, r)) for r in conditions.drop_duplicates().itertuples(index=False)]
    assert keys == [
        "all/training/m/greedy/1/1", "all/training/m/greedy/1/10",
        "all/training/m/beam_4/4/1", "all/training/m/beam_4/4/10",
        "all/held-out/human/reference/<NA>/8",
        "natural/training/m/greedy/1/1", "natural/training/m/greedy/1/10",
        "natural/training/m/beam_4/4/1", "natural/training/m/beam_4/4/10",
        "natural/held-out/human/reference/<NA>/8",
    ]  # fmt: skip
    assert (table.groupby(list(tp.COLUMNS[:4]) + ["prompt_length"], dropna=False).size() == 4).all()
    assert {"novelty_lo", "novelty_hi", "lower_bound", "novel", "total"} <= set(table.columns)


def test_beam_size_of_a_decoding():
    assert tp.beam_size({"kind": "greedy"}) == 1
    assert tp.beam_size({"kind": "beam", "num_beams": 8}) == 8


def test_the_report_job_of_the_tiny_config():
    plan = plan_of("tiny")
    job = report_job(plan, "training-prompts")
    assert job.inputs["tokens"] == (
        "tokens", [("gpt2-b", "greedy"), ("gpt2-b", "beam_2")], plan.training_token_files()
    )
    assert job.inputs["human"][2] == ["/r/analysis/human/reference/tokens.parquet"]
    assert job.outputs["fig"] == (
        "/r/figures/novelty_training_prompts.png",
        "novelty_training_prompts",
        "Merrill et al. (n-gram novelty)",
    )
    assert job.params["sampling"]["training_prompts"]["lengths"] == [1, 10, 32]
    flags = report_flags(plan, "training-prompts")
    assert flags[:8] == ["--tokens", "gpt2-b", "greedy", plan.training_token_files()[0],
                         "--tokens", "gpt2-b", "beam_2", plan.training_token_files()[1]]  # fmt: skip
    off = plan_of("tiny", lambda c: c["sampling"].pop("training_prompts"))
    job = report_job(off, "training-prompts")
    assert job.inputs["tokens"][1:] == ([], []) and job.outputs["fig"][1:] == (None, None)


def test_run_writes_the_table_and_a_figure_that_draws_it(tmp_path):
    def write(name, frame):
        frame.to_parquet(tmp_path / f"{name}.parquet")
        return tmp_path / f"{name}.parquet"

    (tmp_path / "index.json").write_text(json.dumps({"n_tokens": 5000}))
    rng = np.random.default_rng(0)

    def sets(scale):
        return {p: [list(rng.integers(0, scale * p, 30)) for _ in range(6)] for p in (1, 10)}

    inputs = {
        "tokens": [("m", "greedy", write("g", tokens(sets(2)))),
                   ("m", "beam_4", write("b", tokens(sets(4))))],
        "human": [("human", "reference", write("h", tokens({8: [[0, 1, 2, 0, 1]] * 4})))],
        "index_manifest": [("m", tmp_path / "index.json"), ("human", tmp_path / "index.json")],
    }  # fmt: skip
    params = {"novelty": {**NOVELTY, "n_max": 12}, "sampling": SAMPLING}
    out = {"table": tmp_path / "t.csv", "fig": tmp_path / "f.png"}
    tp.run(inputs, out, params)
    table = pd.read_csv(out["table"])
    assert set(table["prompt_length"]) == {1, 8, 10} and set(table["beams"].dropna()) == {1, 4}
    first = pixels(out["fig"])
    inputs["tokens"] = inputs["tokens"][:1]  # one beam size fewer: another figure
    tp.run(inputs, {"table": tmp_path / "t2.csv", "fig": tmp_path / "f2.png"}, params)
    second = pixels(tmp_path / "f2.png")
    assert first.shape != second.shape or not np.array_equal(first, second)


def test_run_without_training_sets_says_so(tmp_path):
    human = tokens({8: [[0, 1, 2, 0, 1]]})
    human.to_parquet(tmp_path / "h.parquet")
    (tmp_path / "index.json").write_text(json.dumps({"n_tokens": 5000}))
    inputs = {
        "tokens": [],
        "human": [("human", "reference", tmp_path / "h.parquet")],
        "index_manifest": [("human", tmp_path / "index.json")],
    }
    out = {"table": tmp_path / "t.csv", "fig": tmp_path / "f.png"}
    tp.run(inputs, out, {"novelty": NOVELTY, "sampling": SAMPLING})
    assert set(pd.read_csv(out["table"])["prompts"]) == {"held-out"}
    assert pixels(out["fig"]).shape[0] < 400  # the one-line "not measured" figure


def test_summary_section_reads_novelty_at_n_10(tmp_path):
    rows = [
        {"source": "all", "prompts": "training", "model": "m", "decoding": d, "beams": b,
         "prompt_length": p, "n": n, "novelty": v}
        for d, b, base in (("greedy", 1, 0.6), ("beam_4", 4, 0.2))
        for p, shift in ((1, 0.0), (10, -0.1))
        for n, v in ((9, 0.99), (10, base + shift))
    ] + [{"source": "all", "prompts": "held-out", "model": "human", "decoding": "reference",
          "beams": None, "prompt_length": 8, "n": 10, "novelty": 0.75},
         {"source": "natural", "prompts": "held-out", "model": "human",
          "decoding": "reference", "beams": None, "prompt_length": 8, "n": 10, "novelty": 0.9}]  # fmt: skip
    table = pd.DataFrame(rows)
    lines = tp.summary_section({"novelty_training_prompts": table}, {})
    assert "| model | beams | prompt 1 | prompt 10 |" in lines
    assert "| m | 1 | 0.6 | 0.5 |" in lines and "| m | 4 | 0.2 | 0.1 |" in lines
    assert lines[-1] == "Held-out human text: novelty(10) = 0.75."
    held_out = table[table["prompts"] == "held-out"]
    assert tp.summary_section({"novelty_training_prompts": held_out}, {}) == []
