"""A run without training-data ground truth (a pretrained model whose training data is unknown,
nothing planted, config/pretrained.yaml): the name cloze alone (analysis.membership.cloze),
its accuracy per genre and against an offline popularity proxy, and a scorecard of only the
claims that need no ground truth."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from copyscope.report import findings as F
from copyscope.report import membership, name_cloze


def cloze_rows(plays: dict[str, tuple[str, list[int]]]) -> pd.DataFrame:
    """Cloze rows of model m: play → (answer name, correctness per item); 4 candidates."""
    rows = []
    for play, (answer, correct) in plays.items():
        for i, c in enumerate(correct):
            rows.append(
                {
                    "model": "m",
                    "play": play,
                    "split": "train",
                    "excerpt_copies": 0,
                    "item": f"{play}-{i}",
                    "answer": answer,
                    "predicted": answer if c else "Other",
                    "n_candidates": 4,
                    "correct_insensitive": c,
                    "correct_sensitive": c,
                    "match_fraction": 0.5 * c,
                    "lcp": c,
                    "exact": 0,
                }
            )
    return pd.DataFrame(rows)


PLAYS = {
    # famous names answered more often: accuracy rises with the proxy
    "hamlet": ("Hamlet", [1, 1, 1, 1]),
    "macbeth": ("Macbeth", [1, 1, 1, 0]),
    "cymbeline": ("Cymbeline", [1, 0, 0, 0]),
    "winter": ("Leontes", [0, 0, 0, 0]),
}
GENRE = {"hamlet": "tragedies", "macbeth": "tragedies", "cymbeline": "romances"}


def test_name_popularity_is_the_median_zipf_frequency_of_the_answers():
    from wordfreq import zipf_frequency

    assert name_cloze.name_popularity(["Hamlet"]) == zipf_frequency("Hamlet", "en") == 3.65
    # distinct names, median: Hamlet 3.65, Leontes 1.88, Parolles 0.0 -> 1.88
    assert name_cloze.name_popularity(["Hamlet", "Hamlet", "Leontes", "Parolles"]) == 1.88
    assert np.isnan(name_cloze.name_popularity([]))


def test_cloze_alone_fills_the_cloze_tables_and_leaves_the_ground_truth_empty(tmp_path):
    """The membership report of a run with cloze tables and no text scored (no contamination set):
    accuracy per play with genre and popularity, per genre (hand-worked), Spearman's rho
    with the proxy; every planted-ground-truth table empty with its header."""
    texts = tmp_path / "texts.csv"
    pd.DataFrame(columns=["model", "set", "id", "planted"]).to_csv(texts, index=False)
    cloze = tmp_path / "cloze.csv"
    cloze_rows(PLAYS).to_csv(cloze, index=False)
    manifest = tmp_path / "manifest.json"
    documents = {p: {"title": p.title(), "genre": g} for p, g in GENRE.items()}
    manifest.write_text(json.dumps({"documents": documents}))  # winter: no genre
    out = {k: tmp_path / f"{k}.csv" for k in membership.EMPTY}
    out |= {k: tmp_path / f"{k}.png" for k in membership.OUTPUTS if k.startswith("fig")}
    inputs = {"texts": [("m", texts)], "cloze": [("m", cloze)], "manifest": [("c", manifest)]}
    membership.run(inputs, out, {"bootstrap": 50, "seed": 0, "reference": None})

    plays = pd.read_csv(out["cloze"]).set_index("play")
    assert plays.loc["hamlet", "acc_insensitive"] == 1.0 and plays.loc["winter", "n"] == 4
    assert plays["genre"].to_dict() == {**GENRE, "winter": "unknown"}
    assert plays.loc["hamlet", "popularity"] == 3.65 and plays.loc["winter", "popularity"] == 1.88
    genre = pd.read_csv(out["cloze_genre"]).set_index("genre")
    assert genre.loc["tragedies", ["plays", "n"]].tolist() == [2, 8]
    assert genre.loc["tragedies", "acc_insensitive"] == pytest.approx(7 / 8)
    assert genre.loc["romances", "acc_insensitive"] == pytest.approx(1 / 4)
    assert genre.loc["tragedies", "chance"] == 0.25
    assert genre.loc["tragedies", "match_fraction"] == pytest.approx(0.5 * 7 / 8)
    assert set(genre.index) == {"tragedies", "romances", "unknown"}
    assert set(genre["split"]) == {"train"}  # every play of this run is a training play
    # Table 1: every play pooled, 8 of 16 items
    models = pd.read_csv(out["cloze_models"])
    assert models[["model", "plays", "items"]].values.tolist() == [["m", 4, 16]]
    assert models["acc_insensitive"].iloc[0] == pytest.approx(0.5)
    # accuracy 1, .75, .25, 0 against popularity 3.65, 3.32, 2.01, 1.88: rho = 1
    pop = pd.read_csv(out["cloze_popularity"])
    assert pop["plays"].tolist() == [4] and pop["rho"].iloc[0] == pytest.approx(1.0)
    assert pop["rho_lo"].iloc[0] <= 1.0
    summary = pd.read_csv(out["cloze_summary"])
    assert summary["n"].tolist() == [16] and summary["plays"].tolist() == [4]
    for name in ("placement", "detectors", "nll_delta", "overlap", "strata", "thresholds"):
        frame = pd.read_csv(out[name])
        assert frame.empty and list(frame.columns) == membership.EMPTY[name], name
    for name in ("fig_cloze", "fig_cloze_models", "fig_cloze_genre", "fig_cloze_overlap",
                 "fig_cloze_popularity"):  # fmt: skip
        assert out[name].stat().st_size > 0, name


def test_scorecard_without_ground_truth_keeps_only_the_claims_that_need_none():
    params = {
        "findings": {},
        "models": {"zoo": {}, "evaluator": "x", "evaluators": {}},
        "sampling": {},
        "analysis": {"syntax": {}},
    }
    full = F.scored_claims(params)
    assert full == list(F.CLAIMS) and len(full) > len(F.NO_GROUND_TRUTH)
    only = F.scored_claims({**params, "ground_truth": False})
    assert only == ["more-templates", "cloze-overlap-correlation"]
    assert set(F.NO_GROUND_TRUTH) <= set(F.CLAIMS)  # the names are registered claims


def test_scorecard_file_without_ground_truth_says_so(tmp_path):
    """The findings command with ground_truth false: two rows (not measured: no tables) and
    the note in the markdown."""
    from copyscope.report import findings

    params = {
        "findings": _findings_defaults(),
        "models": {"zoo": {"p": {"kind": "pretrained"}}, "evaluator": "p", "evaluators": {}},
        "sampling": {"decodings": {}},
        "analysis": {"syntax": {}},
        "ground_truth": False,
    }
    out = {"csv": tmp_path / "f.csv", "md": tmp_path / "f.md"}
    findings.run({"table": []}, out, params)
    card = pd.read_csv(out["csv"])
    assert card["id"].tolist() == list(F.NO_GROUND_TRUTH)
    assert (card["verdict"] == F.UNCLEAR).all()
    md = out["md"].read_text()
    assert F.NO_GROUND_TRUTH_NOTE in md and "benchmark-placement" not in md


def _findings_defaults() -> dict:
    """The findings block of the pretrained config, every default of the schema filled in."""
    from copyscope.config import check_file
    from support.workflow import ROOT

    return check_file(ROOT / "config/pretrained.yaml")["findings"]
