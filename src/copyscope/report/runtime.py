"""Runtime of a run: wall-clock seconds and peak memory per rule, from Snakemake's
``benchmark:`` files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..io import write_csv


def runtime_table(folder) -> pd.DataFrame:
    """One row per rule (jobs, summed and longest seconds, peak RSS), slowest first, from the
    benchmark files under ``folder`` (``<rule>.tsv`` or ``<rule>/<job>.tsv``, where the job may
    be a path itself, e.g. ``shard_matches/<text set>/<shard>.tsv``)."""
    rows = []
    for f in sorted(Path(folder).rglob("*.tsv")):
        b = pd.read_csv(f, sep="\t")
        parts = f.relative_to(folder).with_suffix("").parts
        rows.append(
            {
                "rule": parts[0],
                "job": "/".join(parts[1:]) or parts[0],
                "seconds": float(b["s"].iloc[-1]),
                "max_rss_mb": float(b["max_rss"].iloc[-1]) if "max_rss" in b else np.nan,
            }
        )
    jobs = pd.DataFrame(rows)
    if jobs.empty:
        return jobs
    per_rule = (
        jobs.groupby("rule")
        .agg(
            jobs=("job", "count"),
            seconds=("seconds", "sum"),
            max_seconds=("seconds", "max"),
            max_rss_mb=("max_rss_mb", "max"),
        )
        .reset_index()
    )
    return per_rule.sort_values("seconds", ascending=False)


def write_runtime(folder, out) -> pd.DataFrame:
    """:func:`runtime_table` of ``folder`` written to ``out``."""
    table = runtime_table(folder)
    write_csv(out, table)
    return table
