"""Tables of the syntactic analyses, shaped for the report from the library's outputs:

* :func:`raven_table1` — RAVEN Table 1 (McCoy et al. 2023): rows = syntactic units, columns =
  text sets (each model's pure sampling, the human baseline), cells = novelty with its
  bootstrap interval, from the rows of :func:`copyscope.syntax.syntactic_novelty.syntactic_novelty`;
* :func:`path_curves` — RAVEN Fig. 5: novelty of dependency paths by their length k;
* :func:`template_table` / :func:`template_listing` — Shaib et al.'s template measures per text
  set and n, and the templates of one set with example matched spans, from
  :func:`copyscope.syntax.templates.template_summary`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError
from ..syntax.syntactic_novelty import BASE_UNITS

UNIT_LABELS = {
    "pos_sequence": "POS sequence",
    "constituency_structure": "parse structure (constituency)",
    "dependency_structure": "parse structure (dependency tree of tags; no constituency)",
    "cfg_rule": "CFG rule",
    "labeled_arc": "dependency arc (labeled)",
    "unlabeled_arc": "dependency arc (unlabeled)",
    "dependency_role": "dependency role",
    "argument_structure": "argument structure",
}
"""Row labels of :func:`raven_table1`, in RAVEN Table 1's vocabulary."""


def cell(novelty: float, lo: float, hi: float, digits: int = 3) -> str:
    """``"0.123 [0.101, 0.140]"``; ``n/a`` without occurrences; no bracket without an interval."""
    if novelty is None or np.isnan(novelty):
        return "n/a"
    if lo is None or hi is None or np.isnan(lo) or np.isnan(hi):
        return f"{novelty:.{digits}f}"
    return f"{novelty:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def raven_table1(novelty: pd.DataFrame, sets: Sequence[str], digits: int = 3) -> pd.DataFrame:
    """One row per unit of :data:`BASE_UNITS` that occurs in at least one of ``sets`` (a unit the
    backend cannot give, e.g. constituency with spaCy, is left out), one column per set in the
    given order, formatted by :func:`cell`. ``novelty``: rows with ``set``, ``unit``,
    ``novelty``, ``novelty_lo``, ``novelty_hi``, ``total``."""
    missing = [s for s in sets if s not in set(novelty["set"])]
    if missing:
        raise InputError("syntactic novelty table", f"rows for the text sets {missing}")
    rows = novelty[novelty["unit"].isin(BASE_UNITS) & novelty["set"].isin(sets)]
    present = [u for u in BASE_UNITS if rows.loc[rows["unit"] == u, "total"].sum() > 0]
    out = pd.DataFrame(index=pd.Index([UNIT_LABELS[u] for u in present], name="unit"))
    for s in sets:
        g = rows[rows["set"] == s].set_index("unit")
        out[s] = [
            cell(g.at[u, "novelty"], g.at[u, "novelty_lo"], g.at[u, "novelty_hi"], digits) for u in present
        ]
    return out


def path_curves(novelty: pd.DataFrame) -> pd.DataFrame:
    """The dependency-path rows (``family`` = ``labeled_path`` / ``unlabeled_path``) with
    occurrences: ``set``, ``family``, ``k``, ``novelty``, ``novelty_lo``, ``novelty_hi``, ``total``."""
    rows = novelty[(novelty["family"] != "unit") & (novelty["total"] > 0)]
    cols = ["set", "family", "k", "novelty", "novelty_lo", "novelty_hi", "novel", "total"]
    return rows[cols].sort_values(["set", "family", "k"], kind="stable").reset_index(drop=True)


def template_table(summaries: Iterable[tuple[str, Mapping]]) -> pd.DataFrame:
    """One row per (text set, n): ``template_rate``, ``templates_per_token``, ``cr``,
    ``cr_pos``, ``templates``, ``texts``, ``words``."""
    keys = ("template_rate", "templates_per_token", "cr", "cr_pos", "texts", "words")
    rows = [
        {"set": name, "n": s["n"], **{k: s[k] for k in keys}, "templates": len(s["templates"])}
        for name, s in summaries
    ]
    return pd.DataFrame(rows, columns=["set", "n", *keys[:4], "templates", *keys[4:]])


def template_listing(summary: Mapping, examples: int = 3) -> pd.DataFrame:
    """The templates of one set and n: ``rank``, ``template`` (tags), ``count``, ``spans`` (number
    of distinct matched spans) and ``examples`` (the first ``examples`` spans in sorted order)."""
    rows = []
    for rank, (tags, count) in enumerate(summary["templates"], start=1):
        spans = sorted(" ".join(s) for s in summary["spans"][tags])
        rows.append(
            {
                "rank": rank,
                "template": " ".join(tags),
                "count": count,
                "spans": len(spans),
                "examples": " | ".join(spans[:examples]),
            }
        )
    return pd.DataFrame(rows, columns=["rank", "template", "count", "spans", "examples"])
