"""Style vs exact memorization (Shaib et al. 2024, §8) by the number of training copies: the
per-passage measures of :mod:`copyscope.syntax.style` (ladder passages and repeated training
n-grams, their greedy continuations POS-tagged) pooled per model, source and copy stratum.

Per group: the share of passages whose continuation reproduces the target's words exactly
(``exact_rate``, exact memorization) and its POS sequence exactly (``pos_rate``, POS
memorization), the mean positional word and tag match (``word_match``, ``pos_match``) and the
paired difference ``pos_minus_exact`` = mean(pos_exact − word_exact), each with a 95%
percentile bootstrap interval over passages. The rows of source ``all`` and stratum
``repeated`` pool every passage with at least one training copy (both sources); the findings
scorecard decides "POS memorization exceeds exact memorization" on them.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from . import fmt
from .jobs import Input, Output, Params, per_model
from .memorization import bootstrap_cells

syntax_figures = lazy_module("copyscope.report.syntax_figures")

NAME = "style"
HELP = "style (POS) vs exact memorization by training copies (Shaib et al. §8)"
INPUTS = {
    "measures": Input(
        ("MODEL",),
        "per-passage style measures (.csv, syntax style) of a model",
        files=per_model("style/measures/{model}.csv", "models"),
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/style_memorization.csv",
        "exact vs POS memorization per model, source and copy stratum (.csv)",
        "style_memorization_table",
        "shaib",
    ),
    "fig": Output(
        "figures/style_memorization.png",
        "figure: exact vs POS memorization by training copies (.png)",
        "style_memorization",
        "shaib",
    ),
}
PARAMS = Params(
    "the config block analysis.style (bootstrap, seed)",
    of=lambda p: p.style,
)
SUMMARY_TABLES = ("style_memorization",)  # read by summary_section

MEASURES = {
    "word_exact": "exact_rate",
    "pos_exact": "pos_rate",
    "word_match": "word_match",
    "pos_match": "pos_match",
    "pos_minus_exact": "pos_minus_exact",
}
COLUMNS = [
    "model",
    "source",
    "stratum",
    "copies_min",
    "copies_max",
    "n",
    "planted_share",
    *[c for name in MEASURES.values() for c in (name, f"{name}_lo", f"{name}_hi")],
]


def group_row(g: pd.DataFrame, n_boot: int, seed: int) -> dict:
    """The measures of one group of passages (:data:`MEASURES`) with bootstrap intervals."""
    values = g.assign(pos_minus_exact=g["pos_exact"] - g["word_exact"])[list(MEASURES)]
    row = {
        "copies_min": int(g["copies"].min()),
        "copies_max": int(g["copies"].max()),
        "n": len(g),
        "planted_share": float(g["planted"].mean()),
    }
    return row | bootstrap_cells(values.to_numpy(dtype=float), MEASURES.values(), n_boot, seed)


def style_table(frame: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """One row per model (input order), source (ladder, training) and stratum (by copies),
    then per model the pooled row (source ``all``, stratum ``repeated``: copies ≥ 1). Passages
    whose target has no word are left out."""
    frame = frame[frame["n_target_words"] > 0]
    rows = []
    for model in frame["model"].drop_duplicates():
        m = frame[frame["model"] == model]
        for source in ("ladder", "training"):
            s = m[m["source"] == source]
            order = s.groupby("stratum", sort=False)["copies"].min().sort_values().index
            for stratum in order:
                g = s[s["stratum"] == stratum]
                rows.append(
                    {"model": model, "source": source, "stratum": stratum}
                    | group_row(g, n_boot, seed)
                )
        seen = m[m["copies"] > 0]
        if len(seen):
            rows.append(
                {"model": model, "source": "all", "stratum": "repeated"}
                | group_row(seen, n_boot, seed)
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Pool the models' per-passage measures into :func:`style_table`; draw it."""
    parts = [
        pd.read_csv(path, keep_default_na=False, na_values=[""]) for _, path in inputs["measures"]
    ]
    parts = [p for p in parts if len(p)]
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["model"])
    if not len(frame):
        table = pd.DataFrame(columns=COLUMNS)
    else:
        frame["stratum"] = frame["stratum"].astype(str)
        table = style_table(frame, params["bootstrap"], params["seed"])
    write_csv(out["table"], table)
    syntax_figures.style_memorization(table, out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Per model: exact vs POS memorization over every passage seen in training."""
    t = tables["style_memorization"]
    t = t[t["source"] == "all"]
    if not len(t):
        return []
    lines = [
        "",
        "## Style vs exact memorization (Shaib et al. §8)",
        "",
        "Share of passages seen in training (ladder passages and repeated training n-grams) "
        "whose greedy continuation reproduces the true continuation's words (exact) and its "
        "POS-tag sequence (POS), 95% bootstrap CI over passages:",
        "",
    ]
    for r in t.itertuples():
        lines.append(
            f"- {r.model} ({r.n} passages): exact {fmt(r.exact_rate, 2)} "
            f"[{fmt(r.exact_rate_lo, 2)}, {fmt(r.exact_rate_hi, 2)}], POS "
            f"{fmt(r.pos_rate, 2)} [{fmt(r.pos_rate_lo, 2)}, {fmt(r.pos_rate_hi, 2)}]"
        )
    return lines
