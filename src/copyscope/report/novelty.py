"""n-gram novelty of the samples in model tokens (Merrill et al. 2024, Rusty-DAWG units).

For every setting (model, decoding) and prompt length: the novelty curve novelty(n) with its
bootstrap interval and the no-duplication lower bound (``novelty_samples.csv``), and the mean
non-novel suffix length L_t with its interval (``nnsl_samples.csv``); see
:func:`copyscope.novelty.novelty_tables` for the definitions. Both tables hold each statistic
twice, column ``source``: ``all`` (L_t against the whole training split) and then ``natural``
(the natural-only L_t, ``L_nat``: against the training text before any planting), and the
number of ``distinct`` generated texts of the set; per text at the main prompt length, its
novel and all n-grams (``novelty_texts.csv``, :func:`text_novelty_table`). Figures: novelty by model (pure sampling vs.
human text, natural-only dashed), by decoding family and by prompt length (for the evaluator
model; source ``all``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from ..novelty import novelty_tables
from ..novelty.metrics import count_matrix, distinct_sequences
from . import corpus_sizes, family, fmt, per_text, require, text_counts_table
from .jobs import Input, Output, Params

fig = lazy_module("copyscope.report.figures")

NAME = "novelty"
HELP = "n-gram novelty curves and mean L_t of the samples (model tokens)"
INPUTS = {
    "tokens": Input(
        ("MODEL", "DECODING"),
        "tokens.parquet of a setting (per-token L_t)",
        files=lambda p: (p.settings(), p.analysis_files("tokens.parquet")),
    ),
    "index_manifest": Input(
        ("MODEL",),
        "index.json of the index MODEL's samples were matched against (its corpus size)",
        files=lambda p: (
            p.index_models(), [p.index_file(p.index_tokenizer(m)) for m in p.index_models()]
        ),
    ),
    "natural_index_manifest": Input(
        ("MODEL",),
        "index.json of the natural text's index of MODEL's tokens (its size; default: "
        "--index-manifest's)",
        files=lambda p: (
            p.index_models(),
            [p.index_file(p.natural_index(p.index_tokenizer(m))) for m in p.index_models()],
        ),
    ),
}
SOURCES = {"all": "L", "natural": "L_nat"}
"""Column ``source`` of the tables → the per-token column its statistics are computed on."""
OUTPUTS = {
    "curves": Output(
        "tables/novelty_samples.csv",
        "novelty curves of every setting and prompt length (.csv)",
        "novelty_samples",
        "merrill",
    ),
    "nnsl": Output(
        "tables/nnsl_samples.csv",
        "mean L_t of every setting and prompt length (.csv)",
        "nnsl_samples",
        "merrill",
    ),
    "fig_models": Output(
        "figures/novelty_by_model.png",
        "figure: pure sampling of each model vs. human text (.png)",
        "novelty_by_model",
        "merrill",
    ),
    "fig_decoding": Output(
        "figures/novelty_by_decoding.png",
        "figure: novelty by decoding family, evaluator model (.png)",
        "novelty_by_decoding",
        "merrill",
    ),
    "fig_prompt_length": Output(
        "figures/novelty_by_prompt_length.png",
        "figure: novelty by prompt length, evaluator model (.png)",
        "novelty_by_prompt_length",
        "merrill",
    ),
    "texts": Output(
        "tables/novelty_texts.csv",
        "per source, setting and text at the main prompt length: novel and all n-grams (.csv)",
    ),
}
PARAMS = Params(
    "the config blocks novelty, sampling and models (only models.evaluator is read)",
    of=lambda p: {
        "novelty": p.config["novelty"],
        "sampling": p.config["sampling"],
        "models": {"evaluator": p.config["models"]["evaluator"]},
    },
)
SUMMARY_TABLES = ("novelty_samples", "nnsl_samples")  # read by summary_section


def _each_source(settings: list, sources: tuple[str, ...]):
    """(source, its per-token column, model, decoding, frame) of every setting whose frame has
    the column, source by source in :data:`SOURCES` order, for the sources in ``sources``."""
    for source, column in SOURCES.items():
        if source in sources:
            for model, decoding, tok in settings:
                if column in tok:
                    yield source, column, model, decoding, tok


def ngram_tokenizer(frame: pd.DataFrame) -> str:
    """The tokenizer of a tokens.parquet's ids and n-grams (its column ``tokenizer``: a model
    measured against a released index in another tokenizer than its own has the index's);
    empty for an analysis from before the column."""
    if "tokenizer" not in frame or not len(frame):
        return ""
    return str(frame["tokenizer"].iloc[0])


def build(
    settings: Iterable[tuple[str, str, pd.DataFrame]],
    sizes: Mapping[str, int],
    novelty: Mapping,
    decodings: Mapping,
    natural_sizes: Mapping[str, int] | None = None,
    sources: tuple[str, ...] = tuple(SOURCES),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Novelty curves and mean nnsl of every (source, model, decoding, prompt length).

    ``settings``: (model, decoding, per-token frame with ``text``, ``prompt_length``, ``id``,
    ``L`` and ``L_nat``); ``sizes``: model → size of the training corpus its tokens were
    matched against, ``natural_sizes`` the same for the natural text (default: ``sizes``);
    ``novelty``: the config's ``novelty`` block; ``decodings``: ``sampling.decodings``.
    The rows of source ``all`` (L) come first, then those of ``natural`` (L_nat; only for the
    frames that have it); ``distinct`` counts the distinct token-id sequences of the texts
    (empty without an ``id`` column) and ``tokenizer`` names the tokenizer of the n-grams
    (:func:`ngram_tokenizer`). ``sources`` limits the tables to some of them.
    """
    settings = list(settings)
    corpus = {"all": sizes, "natural": {**sizes, **(natural_sizes or {})}}
    curves, summaries = [], []
    for source, column, model, decoding, tok in _each_source(settings, sources):
        for plen, g in tok.groupby("prompt_length", sort=True):
            label = {
                "model": model,
                "decoding": decoding,
                "family": family(decoding, decodings),
                "prompt_length": int(plen),
            }
            size = corpus[source][model]
            curve, summary, _ = novelty_tables(per_text(g, column), size, novelty, label)
            distinct = distinct_sequences(per_text(g, "id")) if "id" in g else None
            extra = {"source": source, "distinct": distinct, "tokenizer": ngram_tokenizer(g)}
            curves.append(curve.assign(**extra))
            summaries.append(summary.assign(**extra))
    return pd.concat(curves, ignore_index=True), pd.concat(summaries, ignore_index=True)


def text_novelty_table(
    settings: Iterable[tuple[str, str, pd.DataFrame]],
    sampling: Mapping,
    n_max: int,
    sources: tuple[str, ...] = tuple(SOURCES),
) -> pd.DataFrame:
    """Per source, setting and text at ``sampling.prompt_length``: the text's novel n-grams
    ``novel_n`` (positions with L_t < n) and all its n-grams ``ngrams_n`` for n = 1..``n_max``
    (:func:`copyscope.novelty.metrics.count_matrix`), the items whose pooled ratios are
    ``novelty_samples``' novelty(n): for the scorecard's permutation tests that regroup the
    texts of two sets. Columns: source, model, decoding, text, novel_1.., ngrams_1.."""
    plen, parts = sampling["prompt_length"], []
    for source, column, model, decoding, tok in _each_source(list(settings), sources):
        g = tok[tok["prompt_length"] == plen]
        if len(g):
            novel, total = count_matrix(per_text(g, column), n_max)
            label = {"source": source, "model": model, "decoding": decoding}
            parts.append((label, g, novel, total))
    return text_counts_table(parts, ("source", "model", "decoding"), n_max)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each setting's tokens.parquet, write the two tables and three figures."""
    require(inputs["tokens"], "--tokens", "setting")
    settings = [(m, d, pd.read_parquet(path)) for m, d, path in inputs["tokens"]]
    curves, nnsl = build(
        settings,
        corpus_sizes(inputs["index_manifest"]),
        params["novelty"],
        params["sampling"]["decodings"],
        corpus_sizes(inputs.get("natural_index_manifest", [])),
    )
    write_csv(out["curves"], curves)
    write_csv(out["nnsl"], nnsl)
    write_csv(
        out["texts"],
        text_novelty_table(settings, params["sampling"], int(params["novelty"]["n_max"])),
    )
    focus, main = params["models"]["evaluator"], params["sampling"]["prompt_length"]
    fig.novelty_by_model(curves, main, out["fig_models"])
    every = curves[curves["source"] == "all"]
    fig.novelty_by_decoding(every, focus, main, out["fig_decoding"])
    decodings = params["sampling"]["prompt_length_decodings"]
    fig.novelty_by_prompt_length(every, focus, decodings, out["fig_prompt_length"])


def of_source(table: pd.DataFrame, source: str) -> pd.DataFrame:
    """The rows of ``table`` of column ``source`` == ``source`` (a table without the column
    holds ``all`` only)."""
    if "source" not in table:
        return table if source == "all" else table.iloc[:0]
    return table[table["source"] == source]


def write_of_source(table_csv, source: str, out) -> int:
    """Write the rows of source ``source`` of a novelty table (:func:`of_source`) to ``out``
    without the columns ``source``, ``distinct`` and ``tokenizer`` (the table as it was before them); returns
    the number of rows."""
    table = of_source(pd.read_csv(table_csv), source)
    write_csv(out, table.drop(columns=["source", "distinct", "tokenizer"], errors="ignore"))
    return len(table)


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Mean L_t and novelty(4), novelty(8) of pure sampling and human text at the main prompt
    length, against all training text and natural text only, and the range of mean L_t over
    the evaluator model's decodings."""
    nnsl, curves = tables["nnsl_samples"], tables["novelty_samples"]
    main = params["sampling"]["prompt_length"]
    lines = ["", "## n-gram novelty (Merrill et al.), pure sampling vs. human text", ""]
    sources = [s for s in SOURCES if len(of_source(nnsl, s))]  # tables of old runs: all only
    head = ["mean L_t", "novelty(4)", "novelty(8)"]
    if "natural" in sources:
        head += ["natural-only mean L_t", "natural novelty(4)", "natural novelty(8)"]
    lines.append("| model | " + " | ".join(head) + " |")
    lines.append("|---" * (len(head) + 1) + "|")

    def row_of(table, source, r):
        t = of_source(table, source)
        return t[
            (t["model"] == r["model"])
            & (t["decoding"] == r["decoding"])
            & (t["prompt_length"] == main)
        ]

    every = of_source(nnsl, "all")
    pure = every[(every["prompt_length"] == main) & every["decoding"].isin(["pure", "reference"])]
    for _, r in pure.iterrows():
        cells = [f"{r['model']}"]
        for source in sources:
            s = row_of(nnsl, source, r)
            c = row_of(curves, source, r).set_index("n")["novelty"]
            if not len(s):
                cells += ["n/a"] * 3
                continue
            s = s.iloc[0]
            cells += [
                f"{fmt(s['mean_nnsl'])} [{fmt(s['mean_nnsl_lo'])}, {fmt(s['mean_nnsl_hi'])}]",
                fmt(c.get(4)),
                fmt(c.get(8)),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    if "natural" in sources:
        lines += [
            "",
            "Natural-only: L_t against the training text before any planting (duplicated "
            "passages, ladder, contamination set); novelty_samples.csv / nnsl_samples.csv, column "
            "source.",
        ]
    focus = params["models"]["evaluator"]
    sub = every[(every["model"] == focus) & (every["prompt_length"] == main)].sort_values(
        "mean_nnsl"
    )
    if len(sub):
        lo, hi = sub.iloc[0], sub.iloc[-1]
        lines += [
            "",
            f"Decoding ({focus}): mean L_t ranges from {fmt(lo['mean_nnsl'])} "
            f"({lo['decoding']}) to {fmt(hi['mean_nnsl'])} ({hi['decoding']}).",
        ]
    return lines
