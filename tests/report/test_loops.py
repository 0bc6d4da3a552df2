"""The loops report (copyscope.report.loops): per sample set, the continuations ending in a loop
(copyscope.sample.loops) with a Wilson interval, hand-counted; the summary line; the command on
small sample files (the table and the figure)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from copyscope.report.loops import COLUMNS, loop_table, set_rows, summary_section
from copyscope.stats import wilson

L = 4
LOOP = [1, 2, 3, 3, 3, 3, 3]  # period 1
LOOP3 = [5, 1, 2, 3, 1, 2, 3, 1]  # period 3: the last 4 (1 2 3 1) repeat the 3 before them
PLAIN = [1, 2, 3, 4, 5, 6, 7]
SHORT = [3, 3, 3, 3]  # too short: at most L tokens
DECODINGS = {"greedy": {"kind": "greedy"}, "pure": {"kind": "sample"}}
PARAMS = {"loop_length": L, "prompt_length": 8, "new_tokens": 8, "decodings": DECODINGS}


def rec(ids, prompt_length=8):
    return {"prompt_length": prompt_length, "ids": ids}


def test_a_sets_rows_by_hand():
    """Prompt length 8: four texts, two loop (periods 1 and 3): share 2/4 with Wilson's interval,
    median period 2. Prompt length 0: one text, looping. Only 8 when asked."""
    records = [rec(LOOP), rec(PLAIN), rec(LOOP3), rec(SHORT), rec(LOOP, 0)]
    label = {"prompts": "held-out", "model": "m", "decoding": "greedy", "family": "greedy"}
    rows = set_rows(label, records, L)
    assert [r["prompt_length"] for r in rows] == [0, 8]
    zero, eight = rows
    assert (zero["texts"], zero["looping"], zero["median_period"]) == (1, 1, 1.0)
    assert (eight["texts"], eight["looping"], eight["median_period"]) == (4, 2, 2.0)
    share, lo, hi = wilson(2, 4)
    assert eight["loop_share"] == 0.5 == share
    assert (eight["loop_share_lo"], eight["loop_share_hi"]) == (lo, hi)
    assert 0.1 < lo < 0.5 < hi < 0.9
    (only,) = set_rows(label, records, L, prompt_length=8)
    assert only == eight
    (none,) = set_rows(label, [rec(PLAIN), rec(SHORT)], L)
    assert none["looping"] == 0 and none["loop_share"] == 0 and pd.isna(none["median_period"])


def test_the_table_labels_every_set():
    """Held-out sets at the main prompt length (the human reference's family ``human``), then
    the training-prompt sets at each of their prompt lengths."""
    held = [("human", "reference", [rec(PLAIN), rec(PLAIN, 0)]),
            ("m", "greedy", [rec(LOOP), rec(LOOP3), rec(PLAIN, 0)]),
            ("m", "pure", [rec(PLAIN), rec(LOOP)])]  # fmt: skip
    training = [("m", "greedy", [rec(LOOP, 1), rec(PLAIN, 10), rec(LOOP, 10)])]
    t = loop_table(held, training, PARAMS)
    assert list(t.columns) == COLUMNS
    got = t[["prompts", "model", "decoding", "family", "prompt_length", "texts", "looping"]]
    assert got.values.tolist() == [
        ["held-out", "human", "reference", "human", 8, 1, 0],
        ["held-out", "m", "greedy", "greedy", 8, 2, 2],
        ["held-out", "m", "pure", "pure", 8, 2, 1],
        ["training", "m", "greedy", "greedy", 1, 1, 1],
        ["training", "m", "greedy", "greedy", 10, 2, 1],
    ]


def test_the_summary_line():
    held = [("human", "reference", [rec(PLAIN)] * 3),
            ("a", "greedy", [rec(LOOP)] * 3 + [rec(PLAIN)]),
            ("a", "pure", [rec(LOOP)])]  # fmt: skip
    tables = {"loops": loop_table(held, [], PARAMS)}
    params = {"analysis": {"loop_length": L}, "sampling": {"new_tokens": 8}}
    lines = summary_section(tables, params)
    assert lines[1] == "## Loops"
    lo, hi = wilson(3, 4)[1:]
    assert f"a 0.75 [{lo:.2g}, {hi:.2g}]" in lines[-1] and "human 0 [0, " in lines[-1]
    assert "None can loop" not in lines[-1]
    params["sampling"]["new_tokens"] = L
    assert summary_section(tables, params)[-1].endswith("(sampling.new_tokens).")
    pure_only = {"loops": loop_table(held[2:], [], PARAMS)}
    assert summary_section(pure_only, params) == []


def test_loops_command(tmp_path):
    """Two held-out sets and one training-prompt set through ``copyscope report loops``."""
    from copyscope.cli import main

    def write(name, rows):
        p = tmp_path / f"{name}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return str(p)

    argv = ["report", "loops",
            "--samples", "human", "reference", write("h", [rec(PLAIN), rec(PLAIN, 0)]),
            "--samples", "m", "greedy", write("g", [rec(LOOP), rec(PLAIN)]),
            "--training", "m", "greedy", write("t", [rec(LOOP3, 1)]),
            "--params-json", json.dumps(PARAMS),
            "--out-table", str(tmp_path / "loops.csv"),
            "--out-fig", str(tmp_path / "loops.png")]  # fmt: skip
    assert main(argv) == 0
    t = pd.read_csv(tmp_path / "loops.csv")
    assert t[["model", "prompts", "texts", "looping"]].values.tolist() == [
        ["human", "held-out", 1, 0], ["m", "held-out", 2, 1], ["m", "training", 1, 1]
    ]  # fmt: skip
    assert t["loop_share"].tolist() == pytest.approx([0.0, 0.5, 1.0])
    assert (tmp_path / "loops.png").stat().st_size > 1000
