"""Supercopying (RAVEN): every maximal passage of at least ``analysis.supercopy_min`` words
that a sample copies from the training data, over all settings (``supercopies.csv``), with the
source ``class`` of each passage (:mod:`copyscope.analyze.classes`); the number of supercopies
of each setting against all training text and natural text only (``supercopies_by_source.csv``)
and a figure of those counts."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from . import collect, require
from .jobs import Input, Output

fig = lazy_module("copyscope.report.figures")

NAME = "supercopies"
HELP = "supercopies of every setting in one table, counts by source and their figure"
INPUTS = {
    "supercopies": Input(("MODEL", "DECODING"), "supercopies.csv of a setting", files=lambda p: (p.settings(), p.analysis_files("supercopies.csv"))),
}
OUTPUTS = {
    "table": Output(
        "tables/supercopies.csv",
        "supercopies of all settings, labelled by model and decoding (.csv)",
        "supercopies",
        "raven",
    ),
    "counts": Output(
        "tables/supercopies_by_source.csv",
        "supercopies per setting, source all and natural (.csv)",
        "supercopies_by_source",
        "raven",
    ),
    "fig": Output(
        "figures/supercopies.png",
        "figure: supercopies per setting, all vs. natural text only (.png)",
        "supercopies_by_source",
        "raven",
    ),
}
PARAMS = None
SUMMARY_TABLES = ("supercopies",)  # read by summary_section

NATURAL_CLASSES = ("natural", "duplicate")
"""The classes of a passage that occurs as a whole in the natural text (a natural-only
supercopy); ``duplicate``: also inside a planted duplicate, its count inflated by planting."""


def is_natural(table: pd.DataFrame) -> pd.Series:
    """Whether each supercopy's whole passage occurs in the natural text (column ``class`` in
    :data:`NATURAL_CLASSES`; a table without the column: unknown, all False)."""
    if "class" not in table:
        return pd.Series(False, index=table.index)
    return table["class"].isin(NATURAL_CLASSES)


def counts(settings: list[tuple[str, str]], table: pd.DataFrame) -> pd.DataFrame:
    """Supercopies and texts with one of every setting (in the order of ``settings``), source
    ``all`` (every row of ``table``) then ``natural`` (:func:`is_natural` rows)."""
    rows = []
    for source, keep in (
        ("all", pd.Series(True, index=table.index)),
        ("natural", is_natural(table)),
    ):
        sub = table[keep]
        for model, decoding in settings:
            s = sub[(sub["model"] == model) & (sub["decoding"] == decoding)]
            rows.append(
                {
                    "model": model,
                    "decoding": decoding,
                    "source": source,
                    "supercopies": len(s),
                    "texts": int(s["text"].nunique()),
                }
            )
    return pd.DataFrame(rows)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Concatenate the settings' supercopy tables; count them by source; draw the counts."""
    require(inputs["supercopies"], "--supercopies", "setting")
    table = collect(inputs["supercopies"])
    write_csv(out["table"], table)
    c = counts([(m, d) for m, d, _ in inputs["supercopies"]], table)
    write_csv(out["counts"], c)
    fig.supercopies(c, out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """The number of supercopied passages over all settings, and of those whose passage occurs
    in the natural text, by class."""
    t = tables["supercopies"]
    lines = [
        "",
        f"Supercopies (≥ {params['analysis']['supercopy_min']} words copied from training): "
        f"{len(t)} passages over all settings.",
    ]
    if "class" in t:
        by = ", ".join(f"{k} {v}" for k, v in t["class"].value_counts().sort_index().items())
        lines[-1] += (
            f" Natural-only (the whole passage occurs in the training text before planting): "
            f"{int(is_natural(t).sum())}" + (f"; by class: {by}." if by else ".")
        )
    return lines
