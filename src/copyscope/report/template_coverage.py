"""Templates in the training data (Shaib et al. 2024, §6): for every text set, its templates
(the most frequent POS n-grams of its generated words, at the headline n) looked up among the
POS n-grams of the training sentences, against as many random non-template POS n-grams of the
same texts (:func:`copyscope.syntax.templates.templates_in_training`).

The training n-grams come from the training split's POS-tag documents (one per sentence, the
documents of the POS-tag index), counted within sentences and ranked by frequency: by the
POS-tag index's batched count (:func:`copyscope.index.ngrams.ngram_counts`) where the run
builds that index (a tokenizer of kind ``pos``), else by a counter over the documents (the same
counts in the same order; :func:`training_pos_ngrams`). The paper's
cut — the 50K most frequent POS 6-grams of a 10B-token sample — is scaled linearly to the
training words (:func:`copyscope.syntax.templates.scaled_cut`, at least 100), or set by
``analysis.syntax.coverage_cut``.

Outputs: per set the coverage of templates and of non-templates within the cut and anywhere
in training, their median ranks and a Mann–Whitney U test on the ranks, and a bootstrap interval
of the template coverage over the set's templates (``template_coverage.csv``); every template
with its training rank and count (``template_training.csv``); per model set its template
coverage minus the human reference's (same n and cut), with a bootstrap interval resampling
each side's templates independently (``template_coverage_delta.csv``, Shaib §6's 76% of model
templates vs 35% of human text in the pre-training data); a figure of the two coverages per set;
and Fig. 4's ranks drawn: the distribution of the training ranks of the templates of each
model's greedy samples (the paper's decoding) and of the human text
(:func:`copyscope.report.syntax_figures.template_ranks`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io import read_jsonl, write_csv
from ..lazy import lazy_module
from ..novelty import bootstrap_mean, bootstrap_mean_difference
from ..sample.external import reference_decoding
from ..syntax.io import read_parses
from ..syntax.templates import (
    generated_text,
    ngram_ranks,
    scaled_cut,
    templates_in_training,
    training_ngram_counts,
)
from . import family, fmt, require
from .jobs import Input, Output, Params, fixed
from .templates import greedy_decoding, labelled

syntax_figures = lazy_module("copyscope.report.syntax_figures")

NAME = "template-coverage"
HELP = "templates (Shaib et al.) in the training data vs. random non-template POS n-grams"
INPUTS = {
    "parses": Input(
        ("MODEL", "DECODING"),
        "parse file (.parquet) of a setting's prompts + texts",
        files=lambda p: (p.settings(), p.parse_files()),
    ),
    "training_tags": Input(
        ("SPLIT",),
        "POS-tag documents (.jsonl, one per sentence) of the training split",
        files=fixed("train", "syntax/train-tags.jsonl"),
    ),
    "pos_index": Input(
        ("SPLIT",),
        "index directory of the training split's POS tags (optional: counts its n-grams)",
        files=lambda p: (["train"] * len(p.pos_index), p.pos_index),
        directory=True,
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/template_coverage.csv",
        "coverage of templates vs. non-templates and Mann-Whitney U per text set (.csv)",
        "template_coverage_table",
        "shaib",
    ),
    "training": Output(
        "tables/template_training.csv",
        "every template with its training rank and count (.csv)",
    ),
    "fig": Output(
        "figures/template_coverage.png",
        "figure: coverage of templates vs. non-templates per text set (.png)",
        "template_coverage",
        "shaib",
    ),
    "delta": Output(
        "tables/template_coverage_delta.csv",
        "template coverage of each model set minus the human reference's (.csv)",
        "template_coverage_delta",
        "shaib",
    ),
    "fig_ranks": Output(
        "figures/template_ranks.png",
        "figure: training frequency ranks of the greedy samples' and the human text's templates, Shaib et al. Fig. 4 (.png)",
        "template_ranks",
        "shaib",
    ),
}
PARAMS = Params(
    "the config blocks analysis (syntax) and sampling (decodings)",
    of=lambda p: p.syntax_block(),
)
SUMMARY_TABLES = ("template_coverage",)  # read by summary_section


def training_tag_sequences(path) -> list[list[str]]:
    """The tag sequence of every training sentence (the ``text`` of each tag document)."""
    return [row["text"].split() for row in read_jsonl(path)]


def training_pos_ngrams(
    tags_path, n: int, pos_index=None, cut: int | None = None
) -> tuple[dict, Mapping, int]:
    """(ranks, counts, cut) of the training split's POS n-grams at ``n``: every n-gram within
    a sentence of the tag documents at ``tags_path`` with its count, in order of first
    occurrence (:func:`copyscope.syntax.templates.ngram_ranks` breaks ties by it), and the
    cut: ``cut`` (``analysis.syntax.coverage_cut``) or, None, the scaled cut
    (:func:`copyscope.syntax.templates.scaled_cut`) of the training tags. With
    ``pos_index`` (the index directory built on those documents) the counts come from the
    index's batched path (:func:`copyscope.index.ngrams.ngram_counts`), its ids read back as
    tags; without, from a counter over the documents
    (:func:`copyscope.syntax.templates.training_ngram_counts`): the same mapping."""
    sequences = training_tag_sequences(tags_path)
    cut = scaled_cut(sum(len(x) for x in sequences)) if cut is None else int(cut)
    if pos_index is None:
        counts = training_ngram_counts(sequences, n)
    else:
        from ..index.ngrams import ngram_counts
        from ..index.query import open_with_tokenizer

        index, tokenizer = open_with_tokenizer(pos_index)
        tags = getattr(tokenizer, "tags", None)
        if tags is None:
            raise InputError(pos_index, "expected an index built with a tokenizer of kind pos")
        counts = Counter(
            {tuple(tags[i] for i in g): c for g, c in ngram_counts(index, n).items()}
        )
    return ngram_ranks(counts), counts, cut


def _as_units(in_cut: Sequence[bool]) -> list[np.ndarray]:
    """One unit (a one-value array) per template: 1.0 within the cut, 0.0 not."""
    return [np.array([float(bool(x))]) for x in in_cut]


def coverage_interval(in_cut: Sequence[bool], n_boot: int, seed: int) -> tuple[float, float]:
    """95% percentile bootstrap interval of a set's template coverage (the share of its
    templates within the training cut, ``in_cut`` one flag per template), resampling the
    templates (:func:`copyscope.novelty.bootstrap_mean` with one template per unit); NaN for
    no templates or ``n_boot`` 0."""
    _, lo, hi = bootstrap_mean(_as_units(in_cut), n_boot, seed)
    return lo, hi


DELTA_COLUMNS = [
    "model",
    "decoding",
    "decoding_family",
    "n",
    "cut",
    "coverage_model",
    "coverage_human",
    "delta",
    "delta_lo",
    "delta_hi",
]


def coverage_delta(
    coverage: pd.DataFrame, in_cut: Mapping[tuple[str, str], Sequence[bool]], n_boot: int, seed: int
) -> pd.DataFrame:
    """Per model set, its template coverage minus the human reference's (Shaib et al. §6:
    76% of model templates vs 35% of human text found in the pre-training data); a set of
    generations from outside with references is compared with its own references (the human
    set ``human/<model>+<decoding>``), every other set with the first human set.

    ``coverage``: rows of ``template_coverage.csv`` (``model``, ``decoding``,
    ``decoding_family``, ``n``, ``cut``), the human reference's with model ``human``;
    ``in_cut``: (model, decoding) → one within-cut flag per template of that set. delta =
    mean(model flags) − mean(human flags) at the same n and cut, with a 95% percentile
    bootstrap interval resampling each side's templates independently
    (:func:`copyscope.novelty.bootstrap_mean_difference`, ``n_boot`` draws, ``seed``); NaN
    where a side has no templates. Columns :data:`DELTA_COLUMNS`, rows in the order of
    ``coverage``. Example: model flags [1, 1, 0, 1], human [1, 0] → 0.75 − 0.5 = 0.25.
    """
    human = coverage[coverage["model"] == "human"]
    if human.empty:
        raise InputError("--parses", "the human reference's parse file (--parses human reference)")
    h = human.iloc[0]
    own = set(human["decoding"])  # a set of generations from outside: its own references
    rows = []
    for r in coverage[coverage["model"] != "human"].itertuples(index=False):
        if (r.n, r.cut) != (h["n"], h["cut"]):
            raise ValueError(f"{r.model}/{r.decoding}: n, cut {r.n}, {r.cut} differ from human's")
        ref = reference_decoding(r.model, r.decoding)
        human_flags = _as_units(in_cut[("human", ref if ref in own else h["decoding"])])
        flags = _as_units(in_cut[(r.model, r.decoding)])
        delta, lo, hi = bootstrap_mean_difference(flags, human_flags, n_boot, seed)
        rows.append(
            {
                "model": r.model,
                "decoding": r.decoding,
                "decoding_family": r.decoding_family,
                "n": r.n,
                "cut": r.cut,
                "coverage_model": bootstrap_mean(flags, 0)[0],
                "coverage_human": bootstrap_mean(human_flags, 0)[0],
                "delta": delta,
                "delta_lo": lo,
                "delta_hi": hi,
            }
        )
    return pd.DataFrame(rows, columns=DELTA_COLUMNS)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Rank the training POS n-grams once, then each setting's templates against them."""
    require(inputs["parses"], "--parses", "parse file")
    require(inputs["training_tags"], "--training-tags", "training tag documents")
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    n = s["template_headline_n"]
    pos_index = inputs.get("pos_index") or []
    ranks, counts, cut = training_pos_ngrams(
        inputs["training_tags"][0][1], n, pos_index[0][1] if pos_index else None,
        s.get("coverage_cut"),
    )  # fmt: skip
    rows, per_template, in_cut = [], [], {}
    for model, decoding, path in inputs["parses"]:
        texts = [generated_text(p) for p in read_parses(path)]
        table, comparison = templates_in_training(
            texts, n, ranks.get, len(ranks), cut, s["top_k"], counts.get, s["seed"]
        )
        in_cut[(model, decoding)] = table["in_cut"].astype(bool).tolist()
        lo, hi = coverage_interval(in_cut[(model, decoding)], s["bootstrap"], s["seed"])
        rows.append(
            {
                "model": model,
                "decoding": decoding,
                "decoding_family": family(decoding, decodings),
                "set": f"{model}/{decoding}",
                "n": n,
                **comparison,
                "coverage_templates_lo": lo,
                "coverage_templates_hi": hi,
            }
        )
        table.insert(0, "n", n)
        per_template.append(labelled(table, model, decoding, decodings))
    frame = pd.DataFrame(rows)
    write_csv(out["table"], frame)
    write_csv(out["training"], pd.concat(per_template, ignore_index=True))
    write_csv(out["delta"], coverage_delta(frame, in_cut, s["bootstrap"], s["seed"]))
    syntax_figures.template_coverage(frame, out["fig"])
    per_template = pd.concat(per_template, ignore_index=True)
    syntax_figures.template_ranks(per_template, frame, greedy_decoding(decodings), len(ranks),
                                  out["fig_ranks"])  # fmt: skip


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
