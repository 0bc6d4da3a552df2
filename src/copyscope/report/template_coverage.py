"""Templates in the training data (Shaib et al. 2024, §6): for every text set, its templates
(the most frequent POS n-grams of its generated words, at the headline n) looked up among the
POS n-grams of the training sentences, against as many random non-template POS n-grams of the
same texts (:func:`copyscope.syntax.templates.templates_in_training`).

The training n-grams come from the training split's POS-tag documents (one per sentence, the
documents of the POS-tag index), counted within sentences and ranked by frequency. The paper's
cut — the 50K most frequent POS 6-grams of a 10B-token sample — is scaled linearly to the
training words (:func:`copyscope.syntax.templates.scaled_cut`, at least 100).

Outputs: per set the coverage of templates and of non-templates within the cut and anywhere
in training, their median ranks and a Mann–Whitney U test on the ranks
(``template_coverage.csv``); every template with its training rank and count
(``template_training.csv``); a figure of the two coverages per set.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..io import read_jsonl, write_csv
from ..syntax.io import read_parses
from ..syntax.templates import (
    generated_text,
    ngram_ranks,
    scaled_cut,
    templates_in_training,
    training_ngram_counts,
)
from . import family, fmt, require
from .syntax_figures import template_coverage
from .templates import labelled

NAME = "template-coverage"
HELP = "templates (Shaib et al.) in the training data vs. random non-template POS n-grams"
INPUTS = {
    "parses": (("MODEL", "DECODING"), "parse file (.parquet) of a setting's prompts + texts"),
    "training_tags": (
        ("SPLIT",),
        "POS-tag documents (.jsonl, one per sentence) of the training split",
    ),
}
OUTPUTS = {
    "table": "coverage of templates vs. non-templates and Mann-Whitney U per text set (.csv)",
    "training": "every template with its training rank and count (.csv)",
    "fig": "figure: coverage of templates vs. non-templates per text set (.png)",
}
PARAMS = "the config blocks analysis (syntax) and sampling (decodings)"
SUMMARY_TABLES = ("template_coverage",)  # read by summary_section


def training_tag_sequences(path) -> list[list[str]]:
    """The tag sequence of every training sentence (the ``text`` of each tag document)."""
    return [row["text"].split() for row in read_jsonl(path)]


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Rank the training POS n-grams once, then each setting's templates against them."""
    require(inputs["parses"], "--parses", "parse file")
    require(inputs["training_tags"], "--training-tags", "training tag documents")
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    n = s["template_headline_n"]
    sequences = training_tag_sequences(inputs["training_tags"][0][1])
    counts = training_ngram_counts(sequences, n)
    ranks = ngram_ranks(counts)
    cut = scaled_cut(sum(len(x) for x in sequences))
    rows, per_template = [], []
    for model, decoding, path in inputs["parses"]:
        texts = [generated_text(p) for p in read_parses(path)]
        table, comparison = templates_in_training(
            texts, n, ranks.get, len(ranks), cut, s["top_k"], counts.get, s["seed"]
        )
        rows.append(
            {
                "model": model,
                "decoding": decoding,
                "decoding_family": family(decoding, decodings),
                "set": f"{model}/{decoding}",
                "n": n,
                **comparison,
            }
        )
        table.insert(0, "n", n)
        per_template.append(labelled(table, model, decoding, decodings))
    frame = pd.DataFrame(rows)
    write_csv(out["table"], frame)
    write_csv(out["training"], pd.concat(per_template, ignore_index=True))
    template_coverage(frame, out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Coverage of templates vs. non-templates and the Mann–Whitney p-value, for pure
    sampling and human text."""
    t = tables["template_coverage"]
    t = t[t["decoding_family"].isin(["pure", "human"])]
    if not len(t):
        return []
    lines = [
        "",
        "## Templates in the training data (Shaib et al.)",
        "",
        f"Share of each setting's templates (POS {int(t['n'].iloc[0])}-grams) among the training's "
        f"{int(t['cut'].iloc[0])} most frequent POS n-grams, vs. as many random non-template "
        "n-grams of the same texts; two-sided Mann–Whitney U on their training ranks:",
        "",
        "| model | decoding | templates | non-templates | p |",
        "|---|---|---|---|---|",
    ]
    for r in t.itertuples():
        lines.append(
            f"| {r.model} | {r.decoding} | {fmt(r.coverage_templates)} | "
            f"{fmt(r.coverage_non_templates)} | {fmt(r.p_value)} |"
        )
    return lines
