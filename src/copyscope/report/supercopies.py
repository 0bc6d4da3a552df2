"""Supercopying (RAVEN): every maximal passage of at least ``analysis.supercopy_min`` words
that a sample copies from the training data, over all settings (one table, no figure)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..io import write_csv
from . import collect, require

NAME = "supercopies"
HELP = "supercopies of every setting in one table"
INPUTS = {"supercopies": (("MODEL", "DECODING"), "supercopies.csv of a setting")}
OUTPUTS = {"table": "supercopies of all settings, labelled by model and decoding (.csv)"}
PARAMS = None
SUMMARY_TABLES = ("supercopies",)  # read by summary_section


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Concatenate the settings' supercopy tables."""
    require(inputs["supercopies"], "--supercopies", "setting")
    write_csv(out["table"], collect(inputs["supercopies"]))


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """The number of supercopied passages over all settings."""
    return [
        "",
        f"Supercopies (≥ {params['analysis']['supercopy_min']} words copied from training): "
        f"{len(tables['supercopies'])} passages over all settings.",
    ]
