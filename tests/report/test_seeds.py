"""``copyscope report seeds``: verdict agreement across runs that differ only in the training
seed (hand-worked scorecards), and the ``make seeds`` commands."""

from __future__ import annotations

import subprocess

import pandas as pd
import pytest

from copyscope.cli import main
from copyscope.errors import InputError
from copyscope.report.seeds import majority_card, majority_markdown, markdown, seed_agreement
from support.workflow import ROOT

H, F, U = "holds", "does not hold", "inconclusive"


def card(*verdicts) -> pd.DataFrame:
    ids = ["a", "b", "c", "d"][: len(verdicts)]
    return pd.DataFrame(
        {
            "id": ids,
            "claim": [f"claim {i}" for i in ids],
            "paper": "P",
            "verdict": verdicts,
            "measured": [f"x = {i}" for i in range(len(verdicts))],
            "where": "x",
            "conditions": "c",
            "setting": "",
            "rule": "r",
        }
    )


def test_agreement_hand_worked():
    cards = [("0", card(H, H, H, F)), ("1", card(H, U, F, F)), ("2", card(H, U, U, H))]
    t = seed_agreement(cards)
    assert list(t["id"]) == ["a", "b", "c", "d"]
    assert list(t["seed 1"]) == [H, U, F, F]
    assert list(t["majority"]) == [H, U, U, F]  # c: a three-way tie is inconclusive
    assert list(t["agree"]) == [3, 2, 1, 2]
    assert list(t["unanimous"]) == [True, False, False, False]
    md = markdown(t)
    assert "1 of 4 claims reach the same verdict with all 3 seeds" in md
    assert "| 1 | claim a | P | holds | holds | holds | **holds** | 3/3 |" in md
    assert "## Numbers per seed" in md and "   - seed 1 (inconclusive): x = 1\n" in md


def test_the_scorecard_over_seeds_shows_the_majority_and_each_seed():
    cards = [("0", card(U, H)), ("1", card(H, H)), ("2", card(H, "not tested here"))]
    t = seed_agreement(cards)
    assert list(t["majority"]) == [H, H]
    c = majority_card(cards, t)
    assert list(c["verdict"]) == [H, H]
    assert c["per_seed"].iloc[0] == "0: inconclusive; 1: holds; 2: holds"
    assert c["measured"].iloc[0] == "[seed 0] x = 0 ‖ [seed 1] x = 0 ‖ [seed 2] x = 0"
    md = majority_markdown(c)
    assert "majority over the 3 training seeds" in md
    assert "| 1 | claim a (x) | P | **holds** (seeds 0: inconclusive; 1: holds; 2: holds) |" in md
    assert "holds: 2, does not hold: 0" in md


def test_a_tie_with_not_tested_is_inconclusive():
    t = seed_agreement([("0", card("not tested here")), ("1", card(H))])
    assert t["majority"].tolist() == [U]


def test_not_tested_by_most_seeds_is_the_majority():
    """A row no seed can decide (the run lacks a condition of its claim) stays "not tested
    here" over the seeds, not "inconclusive"; so does one that most seeds do not test."""
    N = "not tested here"
    t = seed_agreement([("0", card(N, N)), ("1", card(N, N)), ("2", card(N, H))])
    assert t["majority"].tolist() == [N, N] and t["agree"].tolist() == [3, 2]
    row = ("| 1 | claim a | P | not tested here | not tested here | not tested here | "
           "**not tested here** | 3/3 |")  # fmt: skip
    assert row in markdown(t)


def test_ties_without_inconclusive_go_to_holds_first():
    t = seed_agreement([("0", card(F)), ("1", card(H))])
    assert t["majority"].tolist() == [H] and t["agree"].tolist() == [1]


def test_scorecards_of_other_configs_are_refused():
    with pytest.raises(InputError, match="same claims as seed 0"):
        seed_agreement([("0", card(H, H)), ("1", card(H))])
    with pytest.raises(InputError, match="distinct seed labels"):
        seed_agreement([("0", card(H)), ("0", card(H))])


def test_command_reads_the_runs_and_names_a_missing_file(tmp_path):
    paths = []
    for seed, c in (("0", card(H, F)), ("1", card(H, H))):
        paths += ["--findings", seed, str(tmp_path / f"f{seed}.csv")]
        c.to_csv(tmp_path / f"f{seed}.csv", index=False)
    out = ["--out-csv", str(tmp_path / "a.csv"), "--out-md", str(tmp_path / "a.md"),
           "--out-findings", str(tmp_path / "f.md")]  # fmt: skip
    assert main(["report", "seeds", *paths, *out]) == 0
    t = pd.read_csv(tmp_path / "a.csv")
    assert t["agree"].tolist() == [2, 1] and t["seed 0"].tolist() == [H, F]
    assert (tmp_path / "a.md").read_text().startswith("# Verdicts across training seeds")
    assert (tmp_path / "f.md").read_text().startswith("# Findings scorecard")
    bad = ["--findings", "2", str(tmp_path / "missing.csv")]
    assert main(["report", "seeds", *paths, *bad, *out]) != 0


def test_make_seeds_runs_each_seed_into_its_own_folder():
    done = subprocess.run(
        ["make", "-n", "-W", ".venv/.installed", "seeds", "SEEDS=3 5", "CONFIG=config/tiny.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    text = done.stdout
    for s in ("3", "5"):
        assert f"results-tiny-seed{s}/findings.csv" in text
    assert "models={seed: $s}" in text and "results=results-tiny-seed$s" in text
    assert "--out-md results-tiny-seeds/agreement.md" in text
    assert "--out-findings results-tiny-seeds/findings.md" in text
