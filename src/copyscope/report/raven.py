"""RAVEN (McCoy et al. 2023) across settings, in Moses words, at the main prompt length.

Per setting and source (training, context, their union, and ``natural``: the natural training
text, before any planting, ∪ context, :func:`with_natural`): the truncated pointwise duplication
score with its bootstrap interval, supercopy rates and novelty(1..10) (``raven_summary.csv``,
joined to the evaluator's perplexity of the samples), and the curves novelty(n) = 1 − dup(n)
(``raven_novelty.csv``, with 95% bootstrap intervals over texts, :func:`curve_frame`); see
:mod:`copyscope.raven` for the definitions. Figures: the novelty curves (RAVEN Fig. 1: the
models' ``findings.raven_decoding`` samples, top-40 by default, and their
``findings.pure_decoding`` ones against the human continuations, :func:`figure_curves`), the
novelty–quality tradeoff (RAVEN Fig. 2) and novelty by model size (RAVEN Fig. 3: the trained
models by parameter count, :func:`size_table`, ``raven_by_size.csv``). The summary's
last column, ``evaluator``, names the model that scored each setting's perplexity (RAVEN scores
each model's text with a different model, see :func:`copyscope.config.evaluator_of`).

Contrasts with paired bootstrap intervals (``raven_contrasts.csv``, :func:`contrasts`): the
truncated score (training ∪ context) at each prompt length of the prompt-length study minus at
the main one, paired over prompt windows, and union minus training at the main prompt length,
paired over texts, each with the number of distinct generated texts behind it. Per text at the
main prompt length: its truncated score and evaluator NLL (``raven_texts.csv``) and, per
source (``union`` and ``natural``), its novel and all n-grams for n = 1..10
(``raven_text_novelty.csv``), the items of the scorecard's tests that regroup texts.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io import read_json, write_csv
from ..lazy import lazy_module
from ..novelty import bootstrap_mean_difference, bootstrap_novelty
from ..raven import dup_curve, raven_tables, text_counts, truncated_values
from . import family, fmt, per_text, require, text_counts_table
from .jobs import Input, Output, Params

fig = lazy_module("copyscope.report.figures")

NAME = "raven"
HELP = "RAVEN scores, novelty curves and novelty-quality of every setting (Moses words)"
INPUTS = {
    "words": Input(
        ("MODEL", "DECODING"),
        "words.parquet of a setting (per-word RAVEN scores)",
        files=lambda p: (p.settings(), p.analysis_files("words.parquet")),
    ),
    "quality": Input(
        ("MODEL", "DECODING"),
        "quality.csv of a setting (evaluator NLL per text)",
        files=lambda p: (p.own_settings(), p.analysis_files("quality.csv", own=True)),
    ),
    "models": Input(
        ("MODEL",),
        "a trained model's directory (its train_summary.json gives the parameter count)",
        files=lambda p: (p.trained, [p.model_dir(m) for m in p.trained]),
    ),
}
OUTPUTS = {
    "summary": Output(
        "tables/raven_summary.csv",
        "RAVEN summary per setting and source (.csv)",
        "raven_summary",
        "raven",
    ),
    "curves": Output(
        "tables/raven_novelty.csv",
        "RAVEN novelty curves per setting and source (.csv)",
    ),
    "fig_novelty": Output(
        "figures/raven_novelty.png",
        "figure: novelty curves, top-40 and pure sampling vs. human text (RAVEN Fig. 1) (.png)",
        "raven_novelty",
        "raven",
    ),
    "by_size": Output(
        "tables/raven_by_size.csv",
        "novelty(n) at a few n per trained model with its parameter count (.csv)",
        "raven_by_size_table",
        "raven",
    ),
    "fig_size": Output(
        "figures/raven_by_size.png",
        "figure: novelty by model size, one line per n (RAVEN Fig. 3) (.png)",
        "raven_by_size",
        "raven",
    ),
    "fig_quality": Output(
        "figures/novelty_quality.png",
        "figure: duplication score vs. evaluator perplexity (.png)",
        "novelty_quality",
        "raven",
    ),
    "contrasts": Output(
        "tables/raven_contrasts.csv",
        "prompt-length and source contrasts of the truncated score (.csv)",
        "raven_contrasts",
        "raven",
    ),
    "texts": Output(
        "tables/raven_texts.csv",
        "per text at the main prompt length: truncated score and evaluator NLL (.csv)",
    ),
    "text_novelty": Output(
        "tables/raven_text_novelty.csv",
        "per text at the main prompt length: novel and all n-grams, n = 1..10 (.csv)",
    ),
}
PARAMS = Params(
    "the config blocks novelty and sampling, the figures' decodings (findings.raven_decoding "
    "and findings.pure_decoding), and unscored: the <model>/<decoding> sets without a quality "
    "file (generations from outside; perplexity n/a)",
    of=lambda p: {
        "novelty": p.config["novelty"],
        "sampling": p.config["sampling"],
        "figures": {
            "raven_decoding": p.config["findings"]["raven_decoding"],
            "pure_decoding": p.config["findings"]["pure_decoding"],
        },
        **p.unscored(),
    },
)
SUMMARY_TABLES = ("raven_summary",)  # read by summary_section
SOURCES = ("train", "context", "union", "natural")
"""The sources of the summary and curves: RAVEN's three and ``natural`` (:func:`with_natural`)."""


def with_natural(words: pd.DataFrame) -> pd.DataFrame:
    """``words`` with ``s_natural``: RAVEN's pointwise score against the natural training text
    (before any planting) ∪ the context, max(1 + L_nat, s_context) — ``1 + L_nat`` is the
    training score against the natural text's index (L_nat is computed on the generation
    alone, so it is already clipped as :func:`copyscope.raven.pointwise_scores`'s training
    score is), ``s_context`` the clipped context score. The natural text is what Merrill et
    al.'s rows match against (``findings.novelty_source``): planted passages are no part of
    the text the papers' models were trained on. A frame without ``L_nat`` (nothing planted:
    natural = all) gets ``s_union``. Example: L_nat 0, 2 and s_context 3, 1 → 3, 3."""
    if "s_natural" in words:
        return words
    if "L_nat" not in words:
        return words.assign(s_natural=words["s_union"])
    train = 1 + words["L_nat"].to_numpy(np.int64)
    return words.assign(s_natural=np.maximum(train, words["s_context"].to_numpy(np.int64)))


def build(
    settings: Iterable[tuple[str, str, pd.DataFrame, pd.DataFrame]],
    novelty: Mapping,
    sampling: Mapping,
    sources: tuple[str, ...] = SOURCES,
    curves: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """RAVEN per setting at ``sampling.prompt_length``: summary rows, novelty curves and the
    evaluator perplexity (exp of the token-weighted mean NLL), of each source of ``sources``
    (each source's rows the same whichever others are built: every interval is seeded by
    itself). ``curves`` False leaves the curves out (an empty frame: the scorecard's draws
    read the summary alone, and each curve's bootstrap costs as much as the summary's).

    ``settings``: (model, decoding, per-word frame with ``text``, ``prompt_length``,
    ``s_train``/``s_context``/``s_union`` (and ``L_nat``, :func:`with_natural`), per-text frame
    with ``prompt_length``, ``tokens``,
    ``nll_sum``, ``evaluator``); ``novelty``: the config's ``novelty`` block (bootstrap, seed,
    n_max). The summary's last column ``evaluator`` names the scoring model(s) of the setting.
    """
    plen = sampling["prompt_length"]
    rows, curve_frames, quality = [], [], []
    for model, decoding, w, q in settings:
        w = with_natural(w[w["prompt_length"] == plen])
        label = {
            "model": model,
            "decoding": decoding,
            "family": family(decoding, sampling["decodings"]),
            "prompt_length": plen,
        }
        scores = {src: per_text(w, f"s_{src}") for src in sources}
        rows.append(raven_tables(scores, label, n_boot=novelty["bootstrap"], seed=novelty["seed"]))
        for src, texts in scores.items() if curves else ():
            curve_frames.append(curve_frame(texts, novelty, {**label, "source": src}))
        if q is None:  # a set without model scores (generations from outside)
            quality.append({**label, "evaluator_nll": np.nan, "evaluator": ""})
            continue
        q = q[q["prompt_length"] == plen]
        quality.append(
            {
                **label,
                "evaluator_nll": q["nll_sum"].sum() / q["tokens"].sum(),
                "evaluator": ",".join(dict.fromkeys(q["evaluator"].astype(str))),
            }
        )
    quality = pd.DataFrame(quality)
    quality["perplexity"] = np.exp(quality["evaluator_nll"])
    summary = pd.concat(rows, ignore_index=True).merge(
        quality[["model", "decoding", "evaluator_nll", "perplexity", "evaluator"]],
        on=["model", "decoding"],
    )
    curve_table = pd.concat(curve_frames, ignore_index=True) if curves else pd.DataFrame()
    return summary, curve_table, quality


def curve_frame(texts: list[np.ndarray], novelty: Mapping, label: Mapping) -> pd.DataFrame:
    """RAVEN's curve novelty(n) = 1 − dup(n), n = 1..``novelty.n_max``, of one set's per-text
    scores (:func:`copyscope.raven.dup_curve`), with its 95% percentile bootstrap interval
    over texts (``novelty_lo``/``novelty_hi``: the pooled ratio novel / all n-grams with whole texts
    resampled, ``novelty.bootstrap`` draws, ``novelty.seed``;
    :func:`copyscope.novelty.metrics.bootstrap_novelty`) and ``texts``, the number of texts
    with words; ``label``'s keys first. NaN where no text has n words."""
    nov, dup = dup_curve(texts, novelty["n_max"])
    novel, total = text_counts(texts, novelty["n_max"])
    with warnings.catch_warnings():  # n with no full n-gram: all-NaN quantiles
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = bootstrap_novelty(novel, total, novelty["bootstrap"], novelty["seed"])
    return pd.DataFrame(
        {
            **label,
            "n": np.arange(1, len(nov) + 1),
            "novelty": nov,
            "novelty_lo": lo,
            "novelty_hi": hi,
            "dup": dup,
            "texts": len(texts),
        }
    )


TEXT_COLUMNS = [
    "model",
    "decoding",
    "text",
    "score_sum",
    "score_tokens",
    "nll_sum",
    "nll_tokens",
    "evaluator",
]


def text_table(
    settings: Iterable[tuple[str, str, pd.DataFrame, pd.DataFrame]], sampling: Mapping
) -> pd.DataFrame:
    """Per setting and text at ``sampling.prompt_length``: the sum of the text's truncated
    pointwise duplication scores (training ∪ context, :func:`copyscope.raven.truncated_values`)
    and its number of generated words, and the evaluator's NLL sum and token count: the items
    whose pooled ratios are the summary's truncated score and perplexity, for tests that
    regroup texts (the novelty–quality rule of the scorecard). Texts without a quality row, and
    sets without model scores (``q`` None: generations from outside), are left out."""
    plen = sampling["prompt_length"]
    rows = []
    for model, decoding, w, q in settings:
        if q is None:
            continue
        w = w[w["prompt_length"] == plen]
        texts = sorted(pd.unique(w["text"]))
        values = truncated_values(per_text(w, "s_union"))
        q = q[q["prompt_length"] == plen].set_index("text")
        if not q.index.is_unique:
            raise InputError(
                f"quality of {model}/{decoding}",
                f"one row per text at prompt length {plen}, found a text with several",
            )
        at = q.index.get_indexer(texts)  # each text's row (−1: none), not q.loc per text
        nll, tokens = q["nll_sum"].to_numpy(), q["tokens"].to_numpy()
        evaluator = q["evaluator"].to_numpy()
        for text, v, i in zip(texts, values, at, strict=True):
            if i < 0:
                continue
            rows.append(
                (model, decoding, int(text), float(v.sum()), len(v), float(nll[i]),
                 int(tokens[i]), str(evaluator[i]))
            )  # fmt: skip
    return pd.DataFrame(rows, columns=TEXT_COLUMNS)


TEXT_NOVELTY_N = 10  # n = 1..10, as raven_summary's novelty_n


def text_novelty_table(
    settings: Iterable[tuple[str, str, pd.DataFrame, pd.DataFrame | None]],
    sampling: Mapping,
    n_max: int = TEXT_NOVELTY_N,
    sources: tuple[str, ...] = ("union", "natural"),
) -> pd.DataFrame:
    """Per source of ``sources`` (``union``: training ∪ context; ``natural``: the natural
    training text ∪ context, :func:`with_natural`), setting and text at
    ``sampling.prompt_length`` (every text with words, scored by a model or not): its novel
    n-grams ``novel_n`` and all n-grams ``ngrams_n`` for n = 1..``n_max``
    (:func:`copyscope.raven.text_counts`): the items whose pooled ratios are the summary's
    ``novelty_n``, for the scorecard's permutation tests that regroup texts between two
    sets. Columns: source, model, decoding, text, novel_1.., ngrams_1.."""
    plen, parts = sampling["prompt_length"], []
    settings = list(settings)
    for source in sources:
        for model, decoding, w, _ in settings:
            w = with_natural(w[w["prompt_length"] == plen])
            if len(w):
                novel, total = text_counts(per_text(w, f"s_{source}"), n_max)
                label = {"source": source, "model": model, "decoding": decoding}
                parts.append((label, w, novel, total))
    return text_counts_table(parts, ("source", "model", "decoding"), n_max)


CONTRAST_COLUMNS = [
    "kind",
    "model",
    "decoding",
    "a",
    "b",
    "delta",
    "delta_lo",
    "delta_hi",
    "distinct_a",
    "distinct_b",
]


def distinct_texts(words: pd.DataFrame) -> int:
    """The number of distinct generated texts (sequences of Moses word ids, ``word`` in ``t``
    order) of a per-word frame: 100 identical greedy samples of an empty prompt are one. A text
    without words has no rows, so it is not counted."""
    return len({tuple(g.sort_values("t")["word"]) for _, g in words.groupby("text")})


def window_scores(words: pd.DataFrame, windows, column: str = "s_union") -> list[np.ndarray]:
    """Per prompt window of ``windows`` (in that order), the ``column`` scores of its text(s)
    in ``words`` (one prompt length), truncated (:func:`copyscope.raven.truncated_values`);
    an empty array for a window without words."""
    by = {w: g[column].to_numpy() for w, g in words.groupby("window")}
    return truncated_values([by.get(w, np.zeros(0, np.int64)) for w in windows])


def contrasts(
    settings: Iterable[tuple[str, str, pd.DataFrame]], novelty: Mapping, sampling: Mapping
) -> pd.DataFrame:
    """Contrasts of RAVEN's truncated pointwise duplication score (McCoy et al. 2023), with
    95% paired percentile bootstrap intervals (``novelty.bootstrap`` draws, ``novelty.seed``;
    :func:`copyscope.novelty.bootstrap_mean_difference`).

    ``settings``: (model, decoding, per-word frame with ``text``, ``window``,
    ``prompt_length``, ``t``, ``word``, ``s_train``, ``s_union``). Rows (columns
    :data:`CONTRAST_COLUMNS`):

    * ``kind=prompt_length`` — for every setting sampled at more than one prompt length (the
      prompt-length study and the human reference), per other length ``a``: score(union) at
      ``a`` minus score(union) at ``b`` = ``sampling.prompt_length``, resampling the prompt
      windows (the same window index at both lengths; a window without words at one length
      adds nothing to that side);
    * ``kind=source`` — per setting at the main prompt length, ``a=union`` minus ``b=train``,
      resampling texts (both sources score the same tokens).

    ``distinct_a``/``distinct_b``: :func:`distinct_texts` of the texts behind each side.
    Prompt-length rows first (settings in the given order, lengths ascending), then source
    rows.
    """
    main, n_boot, seed = sampling["prompt_length"], novelty["bootstrap"], novelty["seed"]
    lengths, sources = [], []
    for model, decoding, w in settings:
        label = {"model": model, "decoding": decoding}
        at = {p: g for p, g in w.groupby("prompt_length")}
        if main not in at:  # no words at the main length (every generation ended at once)
            continue
        for a in sorted(p for p in at if p != main):
            windows = sorted(set(at[a]["window"]) | set(at[main]["window"]))
            delta, lo, hi = bootstrap_mean_difference(
                window_scores(at[a], windows),
                window_scores(at[main], windows),
                n_boot,
                seed,
                paired=True,
            )
            lengths.append(
                {
                    "kind": "prompt_length",
                    **label,
                    "a": a,
                    "b": main,
                    "delta": delta,
                    "delta_lo": lo,
                    "delta_hi": hi,
                    "distinct_a": distinct_texts(at[a]),
                    "distinct_b": distinct_texts(at[main]),
                }
            )
        m = at[main]
        delta, lo, hi = bootstrap_mean_difference(
            truncated_values(per_text(m, "s_union")),
            truncated_values(per_text(m, "s_train")),
            n_boot,
            seed,
            paired=True,
        )
        k = distinct_texts(m)
        sources.append(
            {
                "kind": "source",
                **label,
                "a": "union",
                "b": "train",
                "delta": delta,
                "delta_lo": lo,
                "delta_hi": hi,
                "distinct_a": k,
                "distinct_b": k,
            }
        )
    return pd.DataFrame(lengths + sources, columns=CONTRAST_COLUMNS)


FIGURE_SOURCE = "union"
"""The source RAVEN's figures draw: training ∪ context (the paper's headline)."""
HUMAN_SET = ("human", "reference")
"""The human baseline of RAVEN's figures: the true continuations of the prompts."""
SIZE_N = (1, 2, 3, 5, 10)
"""The n of RAVEN Fig. 3's analog (one line each)."""


def figure_decodings(figures: Mapping, decodings: Iterable[str]) -> list[str]:
    """The decodings RAVEN Fig. 1 draws, one panel each: ``figures.raven_decoding`` (the
    paper's main panel, top-40 sampling) and then ``figures.pure_decoding`` (pure sampling),
    those of ``decodings`` (the run's) only, each once."""
    have = set(decodings)
    wanted = [figures["raven_decoding"], figures["pure_decoding"]]
    return [d for d in dict.fromkeys(wanted) if d in have]


def figure_curves(curves: pd.DataFrame, decodings: Iterable[str]) -> pd.DataFrame:
    """The rows of ``raven_novelty.csv`` RAVEN Fig. 1 draws: source training ∪ context
    (:data:`FIGURE_SOURCE`), every model's sets under ``decodings`` and the human
    continuations (:data:`HUMAN_SET`), in the table's order."""
    decodings = list(decodings)
    human = (curves["model"] == HUMAN_SET[0]) & (curves["decoding"] == HUMAN_SET[1])
    model = (curves["model"] != HUMAN_SET[0]) & curves["decoding"].isin(decodings)
    return curves[(curves["source"] == FIGURE_SOURCE) & (human | model)]


def model_sizes(dirs: Iterable[tuple[str, str]]) -> dict[str, int]:
    """Model → its parameter count, from each trained model's ``train_summary.json``
    (``summary.params``, written by :func:`copyscope.lm.train`); ``dirs``: (model, directory)."""
    out = {}
    for model, d in dirs:
        path = os.path.join(d, "train_summary.json")
        try:
            out[model] = int(read_json(path)["summary"]["params"])
        except (OSError, KeyError, TypeError, ValueError) as e:
            raise InputError(path, f"a training summary with summary.params ({e})") from e
    return out


SIZE_COLUMNS = ["decoding", "model", "params", "n", "novelty", "novelty_lo", "novelty_hi", "texts"]


def size_table(
    curves: pd.DataFrame,
    sizes: Mapping[str, int],
    decodings: Iterable[str],
    ns: Iterable[int] = SIZE_N,
) -> pd.DataFrame:
    """RAVEN Fig. 3's table: novelty(n) (training ∪ context) with its interval at each n of
    ``ns``, per decoding of ``decodings`` and per model of ``sizes`` (those sampled under it),
    the models ordered by parameter count (``params``), then the human continuations (``params``
    NaN, ``decoding`` as the model rows'). Columns :data:`SIZE_COLUMNS`."""
    ns = list(ns)
    sub = curves[(curves["source"] == FIGURE_SOURCE) & curves["n"].isin(ns)]
    ranked = sorted(sizes, key=lambda m: (sizes[m], m))
    human = sub[(sub["model"] == HUMAN_SET[0]) & (sub["decoding"] == HUMAN_SET[1])]
    rows = []
    for decoding in decodings:
        for model in ranked:
            g = sub[(sub["model"] == model) & (sub["decoding"] == decoding)]
            rows.append(g.assign(params=sizes[model]))
        if len(human):
            rows.append(human.assign(decoding=decoding, params=np.nan))
    if not rows:
        return pd.DataFrame(columns=SIZE_COLUMNS)
    return pd.concat(rows, ignore_index=True)[SIZE_COLUMNS]


def _paired(words, quality, unscored=()):
    """(model, decoding, words frame, quality frame) per setting, in the order of ``words``;
    the quality frame is None for the sets named ``<model>/<decoding>`` in ``unscored``
    (generations from outside: no model scores), which must have no quality file."""
    q = {(m, d): path for m, d, path in quality}
    for m, d, path in words:
        if f"{m}/{d}" in unscored:
            if (m, d) in q:
                raise InputError("--quality", f"no quality file for {m} {d} (no model scores)")
            yield m, d, pd.read_parquet(path), None
            continue
        if (m, d) not in q:
            raise InputError("--quality", f"a quality file for {m} {d} (given words for it)")
        frame = pd.read_csv(q[(m, d)])
        if "evaluator" not in frame.columns:
            raise InputError(
                "--quality", f"an evaluator column in {q[(m, d)]} (re-run analyze for {m} {d})"
            )
        yield m, d, pd.read_parquet(path), frame


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each setting's words.parquet and quality.csv and the trained models' parameter
    counts, write six tables and three figures."""
    require(inputs["words"], "--words", "setting")
    settings = list(_paired(inputs["words"], inputs["quality"], params.get("unscored", ())))
    summary, curves, _ = build(settings, params["novelty"], params["sampling"])
    write_csv(out["summary"], summary)
    write_csv(out["curves"], curves)
    pairs = [(m, d, w) for m, d, w, _ in settings]
    write_csv(out["contrasts"], contrasts(pairs, params["novelty"], params["sampling"]))
    write_csv(out["texts"], text_table(settings, params["sampling"]))
    write_csv(out["text_novelty"], text_novelty_table(settings, params["sampling"]))
    decodings = figure_decodings(params["figures"], params["sampling"]["decodings"])
    fig.raven_novelty(figure_curves(curves, decodings), decodings, out["fig_novelty"])
    fig.novelty_quality(summary, out["fig_quality"])
    by_size = size_table(curves, model_sizes(inputs.get("models", [])), decodings)
    write_csv(out["by_size"], by_size)
    fig.raven_by_size(by_size, out["fig_size"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Truncated score, novelty(1), novelty(4) and perplexity (training ∪ context) of pure
    sampling and human text."""
    raven = tables["raven_summary"]
    lines = ["", "## RAVEN (McCoy et al.), Moses words, training ∪ context", ""]
    lines.append("| model | decoding | truncated score | novelty(1) | novelty(4) | perplexity |")
    lines.append("|---|---|---|---|---|---|")
    u = raven[(raven["source"] == "union") & raven["decoding"].isin(["pure", "reference"])]
    for _, r in u.iterrows():
        lines.append(
            f"| {r['model']} | {r['decoding']} | {fmt(r['truncated_score'])} | "
            f"{fmt(r['novelty_1'])} | {fmt(r['novelty_4'])} | {fmt(r['perplexity'])} |"
        )
    return lines
