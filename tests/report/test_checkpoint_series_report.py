"""The checkpoint series table (copyscope.report.checkpoints): hand-worked rows from a small
nnsl_samples table, and its command run on files."""

from __future__ import annotations

import pandas as pd

from copyscope.report.checkpoints import COLUMNS, checkpoint_table

ROWS = [
    {"model": "p", "checkpoint": "p@step0", "step": 0, "path": "/c/0"},
    {"model": "p", "checkpoint": "p@step10", "step": 10, "path": "/c/10"},
    {"model": "p", "checkpoint": "p", "step": None, "path": "/p"},
]


def nnsl(rows) -> pd.DataFrame:
    cols = ["model", "decoding", "prompt_length", "source", "mean_nnsl", "mean_nnsl_lo", "mean_nnsl_hi",
            "tokenizer"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def test_checkpoint_table_hand_worked():
    table = nnsl(
        [
            ["p@step0", "greedy", 8, "all", 1.5, 1.0, 2.0, "llama2"],
            ["p@step0", "greedy", 8, "natural", 1.1, 1.0, 1.2, "llama2"],  # not source all
            ["p@step0", "greedy", 4, "all", 9.0, 9.0, 9.0, "llama2"],  # another prompt length
            ["p@step10", "greedy", 8, "all", 2.5, 2.0, 3.0, "llama2"],
            ["p@step10", "pure", 8, "all", 1.25, 1.0, 1.5, "llama2"],
            ["q", "greedy", 8, "all", 7.0, 7.0, 7.0, "llama2"],  # no series
        ]
    )
    got = checkpoint_table(ROWS, table, 8)
    assert list(got.columns) == COLUMNS
    assert got[["checkpoint", "step", "decoding", "mean_nnsl"]].astype(object).where(
        got[["checkpoint", "step", "decoding", "mean_nnsl"]].notna(), None
    ).values.tolist() == [
        ["p@step0", 0, "greedy", 1.5],
        ["p@step10", 10, "greedy", 2.5],
        ["p@step10", 10, "pure", 1.25],
        ["p", None, None, None],  # the model without sampled sets keeps its row
    ]
    assert got["path"].tolist() == ["/c/0", "/c/10", "/c/10", "/p"]
    assert got.loc[0, ["mean_nnsl_lo", "mean_nnsl_hi"]].tolist() == [1.0, 2.0]
    assert got["tokenizer"].tolist()[:3] == ["llama2"] * 3


def test_checkpoints_command_writes_the_table(tmp_path):
    from copyscope.cli import main
    from copyscope.plan import as_json

    path = tmp_path / "nnsl_samples.csv"
    nnsl([["p@step10", "greedy", 8, "all", 2.5, 2.0, 3.0, "gpt2"]]).to_csv(path, index=False)
    params = {"checkpoints": ROWS[1:2], "sampling": {"prompt_length": 8}}
    out = tmp_path / "checkpoints.csv"
    main(["report", "checkpoints", "--nnsl", "nnsl_samples", str(path),
          "--params-json", as_json(params), "--out-table", str(out)])  # fmt: skip
    got = pd.read_csv(out)
    assert got[["model", "checkpoint", "step", "decoding", "mean_nnsl"]].values.tolist() == [
        ["p", "p@step10", 10, "greedy", 2.5]
    ]
