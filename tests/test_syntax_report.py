"""Report tables and figures of the syntactic analyses, from hand-built parses and tagged texts."""

from __future__ import annotations

import pytest

from copyscope.errors import InputError
from copyscope.report.syntax_figures import path_novelty, template_coverage, template_measures
from copyscope.report.syntax_tables import (
    UNIT_LABELS,
    cell,
    path_curves,
    raven_table1,
    template_listing,
    template_table,
)
from copyscope.syntax.raven import syntactic_novelty
from copyscope.syntax.templates import template_summary
from copyscope.syntax.types import Passage, Sentence, Word


def chain(words: str, generated=False) -> Sentence:
    ws = words.split()
    n = len(ws)
    return Sentence(
        tuple(Word(w, "NN", i + 2 if i + 1 < n else 0, "dep", generated) for i, w in enumerate(ws))
    )


def novelty_frame():
    gen = [
        Passage("g", i, (chain("q", True), chain("a b c", True), chain("z", True)))
        for i in range(3)
    ]
    human = [
        Passage("h", i, (chain("q", True), chain("x y", True), chain("z", True))) for i in range(3)
    ]
    train = [Passage("train", 0, (chain("x y z"),))]
    return syntactic_novelty(
        {"m/pure": gen, "human": human}, iter(train), max_path_words=3, n_boot=50
    )


def test_cell():
    assert cell(0.5, 0.25, 0.75) == "0.500 [0.250, 0.750]"
    assert cell(float("nan"), 0.1, 0.2) == "n/a"
    assert cell(0.5, float("nan"), float("nan"), digits=2) == "0.50"


def test_table1_rows_are_units_with_occurrences_and_columns_are_sets():
    t = raven_table1(novelty_frame(), ["m/pure", "human"])
    assert list(t.columns) == ["m/pure", "human"]
    assert UNIT_LABELS["constituency_structure"] not in t.index  # no trees in these parses
    assert UNIT_LABELS["cfg_rule"] not in t.index
    assert t.loc[UNIT_LABELS["unlabeled_arc"], "m/pure"].startswith("1.000")
    assert t.loc[UNIT_LABELS["unlabeled_arc"], "human"].startswith("0.500")
    with pytest.raises(InputError, match="lstm/pure"):
        raven_table1(novelty_frame(), ["lstm/pure"])


def test_path_curves_and_figure(tmp_path):
    curves = path_curves(novelty_frame())
    assert set(curves["family"]) == {"labeled_path", "unlabeled_path"}
    assert list(
        curves[(curves["set"] == "human") & (curves["family"] == "unlabeled_path")]["k"]
    ) == [1, 2, 3]
    assert (curves["total"] > 0).all()
    path_novelty(curves, tmp_path / "paths.png", human="human")
    assert (tmp_path / "paths.png").stat().st_size > 1000


TEXTS = [
    [[("the", "DT"), ("big", "JJ"), ("dog", "NN"), ("ran", "VBD")]],
    [
        [("a", "DT"), ("red", "JJ"), ("car", "NN"), ("stopped", "VBD")],
        [("it", "PRP"), ("rained", "VBD")],
    ],
]


def test_template_tables_and_figures(tmp_path):
    s = template_summary(TEXTS, 3, 2)
    table = template_table([("m/pure", s), ("human", template_summary(TEXTS[:1], 3, 2))])
    assert list(table["set"]) == ["m/pure", "human"]
    assert (
        table.loc[0, "template_rate"] == 1.0
        and table.loc[0, "templates"] == 2
        and table.loc[0, "words"] == 10
    )
    listing = template_listing(s, examples=1)
    assert list(listing["template"]) == ["DT JJ NN", "JJ NN VBD"]
    assert listing.loc[0, "spans"] == 2 and listing.loc[0, "examples"] == "a red car"
    template_measures(table, 3, tmp_path / "measures.png")
    coverage = table[["set"]].assign(
        coverage_templates=[0.8, 0.7], coverage_non_templates=[0.3, 0.4], cut=100
    )
    template_coverage(coverage, tmp_path / "coverage.png")
    assert (tmp_path / "measures.png").stat().st_size > 1000 and (
        tmp_path / "coverage.png"
    ).stat().st_size > 1000
