"""The findings job: the markdown of a scorecard, the calibration and power columns, the
command."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from copyscope.cli import main
from copyscope.errors import InputError
from copyscope.report import findings as F
from support.findings import (
    CALIBRATION_COLUMNS,
    FAILS,
    HOLDS,
    HUMAN,
    PARAMS,
    UNCLEAR,
    completion,
    curves,
    novelty_texts,
)


def test_markdown_of_a_scorecard():
    card = pd.DataFrame(
        [
            F.Finding("a", "x is y", "P 2024", "Fig. 1", "big models", "small here", "1 [0, 2] | 3",
                      "rule a", HOLDS).__dict__,
            F.Finding("b", "z", "Q", "§2", "any", "", "not measured: none", "rule b",
                      UNCLEAR).__dict__,
        ]
    )  # fmt: skip
    cal = pd.DataFrame(
        [("a", "halves", 200, 3, 1, 196, 0.02, 0.008, 0.05)], columns=CALIBRATION_COLUMNS
    )
    power = pd.DataFrame(
        [("a", "copier", 10, 0.5), ("a", "copier", 50, 0.96)],
        columns=["claim", "positive", "size", "power"],
    )
    card = pd.concat(
        [card, F.calibration_columns(["a", "b"], cal), F.power_column(["a", "b"], power)], axis=1
    )
    md = F.markdown(card)
    assert "holds: 1, does not hold: 0, mixed: 0, inconclusive: 1, not tested here: 0." in md
    assert (
        "| 1 | x is y (Fig. 1) | P 2024 | **holds** | 1 [0, 2] \\| 3 | "
        "2.0% [0.8%, 5.0%] on halves (200 draws) | copier: 0.96 at 50 |\n" in md
    )
    assert (
        "| 2 | z (§2) | Q | **inconclusive** | not measured: none | no null in this run | "
        "no known positive in this run |\n" in md
    )
    assert md.endswith(
        "1. `a` — the paper's conditions: big models.\n"
        "   - copyscope's setting: small here.\n"
        "   - rule: rule a.\n"
        "2. `b` — the paper's conditions: any.\n"
        "   - rule: rule b.\n"
    )


def test_markdown_counts_not_tested_apart_and_lists_related_claims():
    """"not tested here" is counted apart from "inconclusive"; a related claim (outside the
    five papers) is listed in its own section, numbered R1, and not counted with them."""
    rows = [
        F.Finding("a", "x", "P", "§1", "c", "", "m", "r", HOLDS),
        F.Finding("b", "y", "P", "§2", "c", "", "not tested here: no LSTM", "r", F.NOT_TESTED),
        F.Finding("c", "z", "Q", "§3", "c", "", "m", "r", FAILS, related=True),
    ]
    card = pd.DataFrame([f.__dict__ for f in rows]).assign(calibration="", power="")
    md = F.markdown(card)
    main, related = md.split("## Related claims")
    assert "holds: 1, does not hold: 0, mixed: 0, inconclusive: 0, not tested here: 1." in main
    assert "**not tested here** | not tested here: no LSTM" in main and "| z (§3)" not in main
    assert "holds: 0, does not hold: 1, mixed: 0, inconclusive: 0, not tested here: 0." in related
    assert "| R1 | z (§3) | Q | **does not hold** |" in related
    assert "R1. `c` — the paper's conditions: c." in related
    assert F.row_numbers(card) == ["1", "2", "R1"]


def test_a_null_on_which_the_rule_is_never_tested_says_so():
    cal = pd.DataFrame([("a", "halves", 200, 0, 0, 0, 0, 200, 0.0, 0.0, 0.02)],
                       columns=[*CALIBRATION_COLUMNS[:6], "mixed", "not_tested",
                                *CALIBRATION_COLUMNS[6:]])  # fmt: skip
    assert F.calibration_columns(["a"], cal)["calibration"].iloc[0] == (
        "not tested on halves (200 draws)"
    )


def test_the_worst_null_of_a_rule_is_shown():
    cal = pd.DataFrame(
        [
            ("a", "one", 100, 1, 0, 99, 0.01, 0.0, 0.05),
            ("a", "two", 100, 5, 5, 90, 0.1, 0.05, 0.17),
        ],
        columns=CALIBRATION_COLUMNS,
    )
    cols = F.calibration_columns(["a", "b"], cal)
    assert cols["null_false_rate"].iloc[0] == 0.1 and math.isnan(cols["null_false_rate"].iloc[1])
    assert cols["calibration"].iloc[0] == "10.0% [5.0%, 17.0%] on two (100 draws)"


def test_the_command_writes_one_row_per_claim(tmp_path):
    samples = curves({("human", "reference"): HUMAN, ("m", "pure"): {2: 0.5}})
    tables = {
        "novelty_samples": samples,
        "novelty_texts": novelty_texts(samples),
        "completion_loss": completion([1, 2, 3, 4, 5, 6], [2, 3, 4, 5, 6, 7]),
    }
    argv = ["report", "findings"]
    for name, frame in tables.items():
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        argv += ["--table", name, str(tmp_path / f"{name}.csv")]
    out_csv, out_md = tmp_path / "findings.csv", tmp_path / "findings.md"
    argv += ["--params-json", json.dumps(PARAMS), "--out-csv", str(out_csv)]
    assert main([*argv, "--out-md", str(out_md)]) == 0
    card = pd.read_csv(out_csv, keep_default_na=False).set_index("id")
    assert list(card.index) == list(F.CLAIMS)
    assert list(card.columns) == [
        "claim", "paper", "where", "conditions", "setting", "measured", "rule", "verdict",
        "per_model", "related", "null_false_rate", "calibration", "power",
    ]  # fmt: skip
    expected = {"pure-more-novel-than-validation": HOLDS, "completion-loss-in-training": HOLDS}
    assert card["verdict"].to_dict() == {c: expected.get(c, UNCLEAR) for c in F.CLAIMS}
    assert out_md.read_text() == F.markdown(card.reset_index())


def test_the_command_rejects_a_table_no_claim_reads(tmp_path):
    path = tmp_path / "x.csv"
    pd.DataFrame({"a": [1]}).to_csv(path, index=False)
    out = {"csv": tmp_path / "f.csv", "md": tmp_path / "f.md"}
    with pytest.raises(InputError, match="planted"):
        F.run({"table": [("planted", str(path))]}, out, PARAMS)
