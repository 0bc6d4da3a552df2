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
from ..syntax.templates import (
    generated_text,
    template_rate_test,
    template_summary,
    templates_per_token,
)
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
        "shaib",
    ),
    "listing": Output(
        "tables/template_listing.csv",
        "the templates of every text set at the headline n, with matched spans (.csv)",
    ),
    "fig": Output(
        "figures/templates.png",
        "figure: template rate, templates per token and CR-POS at the headline n (.png)",
        "templates",
        "shaib",
    ),
    "vs_human": Output(
        "tables/templates_vs_human.csv",
        "template rate and templates per token of each model's greedy samples (pure beside) vs the human references, Shaib et al. Table 3 (.csv)",
        "templates_vs_human",
        "shaib",
    ),
    "fig_vs_human": Output(
        "figures/templates_vs_human.png",
        "figure: template rate and templates per token, greedy and pure samples vs human text, Shaib et al. Table 3 (.png)",
        "templates_vs_human",
        "shaib",
    ),
    "fig_by_n": Output(
        "figures/templates_by_n.png",
        "figure: template rate by n, the models' greedy samples against human text, Shaib et al. Fig. 5 (.png)",
        "templates_by_n",
        "shaib",
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
    tables, listings, texts_of, per_text = [], [], {}, {}
    for model, decoding, path in inputs["parses"]:
        texts = texts_of[(model, decoding)] = [generated_text(p) for p in read_parses(path)]
        summaries = [
            (f"{model}/{decoding}", template_summary(texts, n, s["top_k"])) for n in s["template_n"]
        ]
        tables.append(labelled(template_table(summaries), model, decoding, decodings))
        top = next(summary for _, summary in summaries if summary["n"] == headline)
        per_text[(model, decoding)] = np.asarray(templates_per_token(texts, top["spans"]), float)
        listing = template_listing(top)
        listing.insert(0, "n", headline)
        listings.append(labelled(listing, model, decoding, decodings))
    table = with_rate_tests(pd.concat(tables, ignore_index=True), texts_of, s)
    write_csv(out["table"], table)
    write_csv(out["listing"], pd.concat(listings, ignore_index=True))
    greedy = greedy_decoding(decodings)
    vs_human = vs_human_rows(per_text, table, greedy, first_of_family(decodings, "pure"),
                             headline, s["bootstrap"], s["seed"])  # fmt: skip
    write_csv(out["vs_human"], vs_human)
    syntax_figures.templates_vs_human(vs_human, out["fig_vs_human"])
    syntax_figures.template_measures(table, headline, out["fig"])
    syntax_figures.template_rate_by_n(table, greedy_decoding(decodings), out["fig_by_n"])


def greedy_decoding(decodings: Mapping) -> str | None:
    """The first decoding of ``sampling.decodings`` of the greedy family (Shaib et al.'s
    models decode greedily: their Table 3 and Fig. 5), None without one."""
    return first_of_family(decodings, "greedy")


def first_of_family(decodings: Mapping, name: str) -> str | None:
    """The first decoding of ``sampling.decodings`` of the family ``name``
    (:func:`copyscope.report.family`), None without one."""
    return next((d for d in decodings if family(d, decodings) == name), None)


VS_HUMAN_MEASURES = ("texts", "template_rate", "template_rate_lo", "template_rate_hi",
                     "templates_per_token", "templates_per_token_lo", "templates_per_token_hi")  # fmt: skip
VS_HUMAN_COLUMNS = [
    "model",
    "decoding",
    "n",
    *VS_HUMAN_MEASURES,
    "p_up",
    "p_down",
    "pure_decoding",
    *(f"pure_{m}" for m in VS_HUMAN_MEASURES),
]
"""The columns of ``templates_vs_human.csv`` (Shaib et al.'s Table 3)."""


def text_measures(tpt: np.ndarray, n_boot: int, seed: int) -> dict:
    """The Table 3 measures of one text set from its texts' templates per token ``tpt`` (one
    value per text, :func:`copyscope.syntax.templates.templates_per_token` with the set's own
    templates): ``texts``; ``template_rate``, the share of texts with a template (a text has one
    exactly when its value is above 0), with its 95% Wilson interval; ``templates_per_token``,
    the mean, with its 95% percentile bootstrap interval over the texts (``n_boot`` draws,
    ``seed``). Both intervals hold the set's templates fixed. NaNs for no text. Example: [0,
    0.1, 0.3, 0] → rate 0.5, per token 0.1."""
    from scipy.stats import binomtest

    from ..stats import bootstrap_mean_ci

    tpt = np.asarray(tpt, float)
    out = dict.fromkeys(VS_HUMAN_MEASURES, np.nan) | {"texts": len(tpt)}
    if not len(tpt):
        return out
    k = int((tpt > 0).sum())
    ci = binomtest(k, len(tpt)).proportion_ci(0.95, method="wilson")
    mean, lo, hi = bootstrap_mean_ci(tpt, n_boot=n_boot, seed=seed)
    return out | {
        "template_rate": k / len(tpt),
        "template_rate_lo": float(ci.low),
        "template_rate_hi": float(ci.high),
        "templates_per_token": float(mean),
        "templates_per_token_lo": float(lo),
        "templates_per_token_hi": float(hi),
    }


def vs_human_rows(
    per_text: Mapping,
    table: pd.DataFrame,
    greedy: str | None,
    pure: str | None,
    n: int,
    n_boot: int,
    seed: int,
) -> pd.DataFrame:
    """Shaib et al.'s Table 3 under its conditions: one row per model with samples of the
    ``greedy`` decoding (the paper's models decode greedily), its :func:`text_measures` at the
    headline ``n`` and the permutation p-values of its template rate against the human
    reference's (``p_up``, ``p_down`` of ``table``, :func:`with_rate_tests`), the model's
    ``pure`` samples beside it (``pure_*`` columns, NaN without them); then the human reference
    (``human/reference``, the true continuations of the same prompts). ``per_text``: (model,
    decoding) → the per-text templates per token at ``n``. Models in input order; no row for a
    model without greedy samples (the whole table is the human row in a run without any)."""
    rows = []
    models = dict.fromkeys(m for m, _ in per_text if m != HUMAN[0])
    for model in models:
        if (model, greedy) not in per_text:
            continue
        at = table[(table["model"] == model) & (table["decoding"] == greedy) & (table["n"] == n)]
        row = {"model": model, "decoding": greedy, "n": n}
        row |= text_measures(per_text[(model, greedy)], n_boot, seed)
        row |= {k: float(at[k].iloc[0]) if len(at) else np.nan for k in ("p_up", "p_down")}
        row["pure_decoding"] = pure if (model, pure) in per_text else ""
        pure_measures = text_measures(per_text.get((model, pure), []), n_boot, seed)
        row |= {f"pure_{k}": v for k, v in pure_measures.items()}
        rows.append(row)
    if HUMAN in per_text:
        human = {"model": HUMAN[0], "decoding": HUMAN[1], "n": n, "pure_decoding": ""}
        rows.append(human | text_measures(per_text[HUMAN], n_boot, seed))
    return pd.DataFrame(rows, columns=VS_HUMAN_COLUMNS)


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
