"""Planted ground truth: how much of each passage planted m more times into the training data
(``corpus.inject.duplicates``) the samples of every setting reproduce."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from . import collect, fmt, require
from .jobs import Input, Output

fig = lazy_module("copyscope.report.figures")

NAME = "planted"
HELP = "reproduction of the planted passages by every setting"
INPUTS = {
    "planted": Input(("MODEL", "DECODING"), "planted.csv of a setting", files=lambda p: (p.own_settings(), p.analysis_files("planted.csv", own=True))),
}
OUTPUTS = {
    "table": Output(
        "tables/planted.csv",
        "longest copy of each planted passage per setting (.csv)",
        "planted_table",
        "related",
    ),
    "fig": Output(
        "figures/planted.png",
        "figure: reproduction vs. duplication (.png)",
        "planted",
        "related",
    ),
}
PARAMS = None
SUMMARY_TABLES = ("planted",)  # read by summary_section


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Concatenate the settings' planted tables; draw reproduction against duplication."""
    require(inputs["planted"], "--planted", "setting")
    planted = collect(inputs["planted"])
    write_csv(out["table"], planted)
    fig.planted(planted, out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Share of planted passages reproduced and mean longest copy, per number of copies m
    (all models and decodings pooled); nothing when no passage was planted."""
    planted = tables["planted"]
    if not len(planted):
        return []
    by_m = planted.groupby("copies").agg(
        reproduced=("reproduced", "mean"), longest=("longest_copy", "mean")
    )
    parts = [
        f"m = {m}: {fmt(100 * r['reproduced'], 2)}% reproduced, mean longest copy "
        f"{fmt(r['longest'])} tokens"
        for m, r in by_m.iterrows()
    ]
    return [
        "",
        "## Planted duplicates (passages copied m more times into training)",
        "",
        "; ".join(parts) + f" (a copy counts from {params['analysis']['planted_min_copy']} "
        "tokens; all models and decodings pooled).",
    ]
