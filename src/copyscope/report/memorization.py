"""The memorization ladder: extraction rate against the number of copies in training, per model
(Carlini et al. 2023, "Quantifying Memorization Across Neural Language Models"; the per-passage
measures are those of :mod:`copyscope.memorize`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from ..stats import bootstrap_mean_ci, complement_probabilities
from . import fmt
from .jobs import Input, Output, Params

fig = lazy_module("copyscope.report.figures")

NAME = "memorization"
HELP = "extraction rate vs. copies in training (the memorization ladder)"
INPUTS = {
    "extraction": Input(("MODEL",), "per-passage extraction (.csv) of a model", files=lambda p: (p.ladder_models, p.ladder_files())),
}
OUTPUTS = {
    "table": Output(
        "tables/memorization.csv",
        "extraction rate, match fraction and LCP per model and copies (.csv)",
        "memorization_table",
        "related",
    ),
    "fig": Output(
        "figures/memorization.png",
        "figure: extraction rate vs. copies (.png)",
        "memorization",
        "related",
    ),
}
PARAMS = Params(
    "the config block analysis.memorization (bootstrap, seed, prompt/suffix tokens)",
    of=lambda p: p.memorization,
)
SUMMARY_TABLES = ("memorization",)  # read by summary_section

MEASURES = {"exact": "extraction_rate", "match_fraction": "match_fraction", "lcp": "lcp"}
COLUMNS = [
    "model",
    "kind",
    "copies",
    "n",
    "extraction_rate",
    "extraction_rate_lo",
    "extraction_rate_hi",
    "match_fraction",
    "match_fraction_lo",
    "match_fraction_hi",
    "lcp",
    "lcp_lo",
    "lcp_hi",
]


def bootstrap_means(values: np.ndarray, n_boot: int, seed: int, level: float = 0.95):
    """Column means of ``values`` (passages × measures) and their percentile bootstrap CI,
    resampling passages (rows) with replacement (:func:`copyscope.stats.bootstrap_mean_ci`);
    NaN bounds when ``n_boot`` is 0."""
    values = np.asarray(values, dtype=float)
    if n_boot <= 0 or not len(values):
        nan = np.full(values.shape[1], np.nan)
        return values.mean(axis=0), nan, nan
    probs = complement_probabilities(level)
    return bootstrap_mean_ci(values, n_boot=n_boot, seed=seed, probs=probs, allow_nan=True)


def bootstrap_cells(values, names, n_boot: int, seed: int, bounds: Mapping | None = None) -> dict:
    """The cells of one table row for the measures in the columns of ``values`` (passages ×
    measures), named ``names``: ``{name: mean, name_lo: …, name_hi: …}`` per measure
    (:func:`bootstrap_means`); ``bounds`` maps a name to other names of its two bounds."""
    point, low, high = bootstrap_means(values, n_boot, seed)
    cells = {}
    for j, name in enumerate(names):
        low_name, high_name = (bounds or {}).get(name, (f"{name}_lo", f"{name}_hi"))
        cells |= {name: point[j], low_name: low[j], high_name: high[j]}
    return cells


def memorization_table(frame: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """One row per model (in input order) and copies (controls, copies 0, first): the number
    of passages ``n``, the extraction rate (share of exact extractions), the mean match
    fraction and the mean LCP (tokens), each with a 95% bootstrap CI over the passages."""
    rows = []
    for model in frame["model"].drop_duplicates():
        g = frame[frame["model"] == model]
        for copies, h in g.groupby("copies", sort=True):
            row = {
                "model": model,
                "kind": "control" if copies == 0 else "planted",
                "copies": int(copies),
                "n": len(h),
            }
            cells = bootstrap_cells(
                h[list(MEASURES)].to_numpy(),
                MEASURES.values(),
                n_boot,
                seed,
                bounds={"extraction_rate": ("extraction_rate_lo", "extraction_rate_hi")},
            )
            rows.append(row | cells)
    return pd.DataFrame(rows, columns=COLUMNS)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Pool the models' per-passage extractions into :func:`memorization_table`; draw the
    extraction rate against the copies (:func:`copyscope.report.figures.memorization`)."""
    parts = [pd.read_csv(path) for _, path in inputs["extraction"]]
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["model"])
    table = memorization_table(frame, params["bootstrap"], params["seed"])
    write_csv(out["table"], table)
    fig.memorization(table, out["fig"], params["suffix_tokens"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Per model: the extraction rate (95% CI) at every rung and of the controls; nothing
    without a ladder."""
    table = tables["memorization"]
    if not len(table):
        return []
    m = params["analysis"]["memorization"]
    lines = [
        "",
        "## Memorization ladder (extraction test, Carlini et al. 2023)",
        "",
        f"Share of passages whose greedy continuation of their first {m['prompt_tokens']} "
        f"tokens equals their next {m['suffix_tokens']} tokens, by the number of copies in "
        "training (95% bootstrap CI over passages; controls were never planted):",
        "",
    ]
    for model, g in table.groupby("model", sort=False):
        parts = [
            f"{'controls' if r.copies == 0 else f'{r.copies}×'} {fmt(r.extraction_rate, 2)} "
            f"[{fmt(r.extraction_rate_lo, 2)}, {fmt(r.extraction_rate_hi, 2)}]"
            for r in g.itertuples()
        ]
        lines.append(f"- {model}: " + "; ".join(parts))
    return lines
