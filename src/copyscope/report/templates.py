"""Syntactic templates (Shaib et al. 2024, "Detection and Measurement of Syntactic Templates in
Generated Text") of every text set: the measures of
:func:`copyscope.syntax.templates.template_summary` for each configured n, over the generated
words of each passage (:func:`copyscope.syntax.templates.generated_text`; the prompt is not
part of the text).

Outputs: template rate, templates-per-token, CR and CR-POS per set and n (``templates.csv``;
at the headline n each model set's permutation p-values against the human reference,
``p_up`` / ``p_down``, :func:`with_rate_tests`),
the templates of every set at the headline n with example matched spans
(``template_listing.csv``), and a figure of the three template measures at the headline n.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from ..syntax.io import read_parses
from ..syntax.templates import generated_text, template_rate_test, template_summary
from . import family, fmt, require
from .jobs import Input, Output, Params
from .syntax_tables import template_listing, template_table

syntax_figures = lazy_module("copyscope.report.syntax_figures")

NAME = "templates"
HELP = "syntactic templates (Shaib et al.) of every text set: rate, per token, CR, CR-POS"
INPUTS = {
    "parses": Input(
        ("MODEL", "DECODING"),
        "parse file (.parquet) of a setting's prompts + texts",
        files=lambda p: (p.settings(), p.parse_files()),
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/templates.csv",
        "template measures per text set and n (.csv)",
        "templates_table",
        "syntax",
    ),
    "listing": Output(
        "tables/template_listing.csv",
        "the templates of every text set at the headline n, with matched spans (.csv)",
    ),
    "fig": Output(
        "figures/templates.png",
        "figure: template rate, templates per token and CR-POS at the headline n (.png)",
        "templates",
        "syntax",
    ),
    "fig_by_n": Output(
        "figures/templates_by_n.png",
        "figure: template rate by n, the models' greedy samples against human text, Shaib et al. Fig. 5 (.png)",
        "templates_by_n",
        "syntax",
    ),
}
PARAMS = Params(
    "the config blocks analysis (syntax) and sampling (decodings)",
    of=lambda p: p.syntax_block(),
)
SUMMARY_TABLES = ("templates",)  # read by summary_section


def labelled(frame: pd.DataFrame, model: str, decoding: str, decodings: Mapping) -> pd.DataFrame:
    """``frame`` with ``model``, ``decoding`` and ``decoding_family`` columns first."""
    frame = frame.copy()
    frame.insert(0, "decoding_family", family(decoding, decodings))
    frame.insert(0, "decoding", decoding)
    frame.insert(0, "model", model)
    return frame


HUMAN = ("human", "reference")


def with_rate_tests(
    table: pd.DataFrame, texts_of: Mapping, syntax: Mapping, seed: int | None = None
) -> pd.DataFrame:
    """``table`` with ``p_up`` / ``p_down``: at the headline n, for every model set, the
    permutation test of its template rate against the human reference's
    (:func:`copyscope.syntax.templates.template_rate_test`, ``syntax["bootstrap"]``
    regroupings seeded with ``seed``, by default ``syntax["seed"]``); NaN for human sets,
    other n, or a run without the human reference."""
    table = table.assign(p_up=np.nan, p_down=np.nan)
    human = texts_of.get(HUMAN)
    if human is None:
        return table
    n = syntax["template_headline_n"]
    for (model, decoding), texts in texts_of.items():
        if model == HUMAN[0]:
            continue
        _, up, down = template_rate_test(
            texts, human, n, syntax["top_k"], syntax["bootstrap"],
            syntax["seed"] if seed is None else seed,
        )  # fmt: skip
        row = (table["model"] == model) & (table["decoding"] == decoding) & (table["n"] == n)
        table.loc[row, ["p_up", "p_down"]] = up, down
    return table


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Template summaries of every setting for every n; listing and figure at the headline n."""
    require(inputs["parses"], "--parses", "parse file")
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    headline = s["template_headline_n"]
    tables, listings, texts_of = [], [], {}
    for model, decoding, path in inputs["parses"]:
        texts = texts_of[(model, decoding)] = [generated_text(p) for p in read_parses(path)]
        summaries = [
            (f"{model}/{decoding}", template_summary(texts, n, s["top_k"])) for n in s["template_n"]
        ]
        tables.append(labelled(template_table(summaries), model, decoding, decodings))
        top = next(summary for _, summary in summaries if summary["n"] == headline)
        listing = template_listing(top)
        listing.insert(0, "n", headline)
        listings.append(labelled(listing, model, decoding, decodings))
    table = with_rate_tests(pd.concat(tables, ignore_index=True), texts_of, s)
    write_csv(out["table"], table)
    write_csv(out["listing"], pd.concat(listings, ignore_index=True))
    syntax_figures.template_measures(table, headline, out["fig"])
    syntax_figures.template_rate_by_n(table, greedy_decoding(decodings), out["fig_by_n"])


def greedy_decoding(decodings: Mapping) -> str | None:
    """The first decoding of ``sampling.decodings`` of the greedy family (Shaib et al.'s
    models decode greedily: their Table 3 and Fig. 5), None without one."""
    return next((d for d in decodings if family(d, decodings) == "greedy"), None)


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Template rate, templates per token, CR and CR-POS at the headline n, for pure sampling
    and human text."""
    n = params["analysis"]["syntax"]["template_headline_n"]
    t = tables["templates"]
    t = t[(t["n"] == n) & t["decoding_family"].isin(["pure", "human"])]
    if not len(t):
        return []
    lines = [
        "",
        f"## Syntactic templates (Shaib et al.), POS {n}-grams",
        "",
        "| model | decoding | template rate | templates per token | CR | CR-POS |",
        "|---|---|---|---|---|---|",
    ]
    for r in t.itertuples():
        lines.append(
            f"| {r.model} | {r.decoding} | {fmt(r.template_rate)} | "
            f"{fmt(r.templates_per_token)} | {fmt(r.cr)} | {fmt(r.cr_pos)} |"
        )
    return lines
