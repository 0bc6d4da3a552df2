"""McCoy et al. 2023, "How Much Do Language Models Copy From Their Training Data? Evaluating
Linguistic Novelty in Text Generation Using RAVEN" (TACL): the claims on word n-gram novelty
against the human baseline, the LSTM, quality, prompt length, context and syntactic novelty,
each with its nulls (halves and parts of the human continuations, an effect of exactly the
margin planted for the claimed absences)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...language import label_set, language_of
from ...stats import difference_bounds, newcombe, split_half_trend
from ...syntax.io import read_parses
from ...syntax.syntactic_novelty import (
    count_matrices,
    extract_set,
    novelty_rows,
    query_items,
    training_hits,
    units,
)
from .. import family
from .. import novel_words as novel_words_report
from .. import raven as raven_report
from .core import (
    FAILS,
    HOLDS,
    NOVELTY_PERMUTATIONS,
    RAVEN,
    UNCLEAR,
    NotMeasured,
    NotTested,
    Null,
    Positive,
    Tables,
    ci,
    ci_of,
    claim,
    combine,
    compare,
    decided,
    effect_verdict,
    enough_rows,
    equivalence_verdict,
    evaluator_of,
    every_verdict,
    g,
    judge_of,
    main_rows,
    models_of,
    n_range,
    novelty_vs_human,
    set_rows,
    signs_verdict,
)
from .data import (
    HUMAN,
    STATE,
    Data,
    NullBuilder,
    main_words,
    sizes_up_to,
    split_windows,
    take,
)

RAVEN_NGRAM = (
    "LSTM, Transformer and Transformer-XL trained on Wikitext-103, GPT-2 (WebText); Moses "
    "words; duplication w.r.t. training ∪ context; baseline: the true continuations of the "
    "prompts"
)


RAVEN_NATURAL = (
    "matched, as Merrill et al.'s rows are, against the {novelty_source} training text "
    "(findings.novelty_source; natural: the training text before any planting) ∪ context: "
    "the papers' training data holds no planted passages"
)


RAVEN_SOURCES = {"natural": "natural", "all": "union"}
"""``findings.novelty_source`` → the RAVEN source its n-gram rows read: the natural training
text ∪ context (as Merrill et al.'s rows match natural text only), or all training text ∪
context."""


def raven_source(params: Mapping) -> str:
    """The RAVEN source of the n-gram rows (:data:`RAVEN_SOURCES` of
    ``findings.novelty_source``)."""
    return RAVEN_SOURCES[params["findings"]["novelty_source"]]


def _raven_rows(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    """The rows of :func:`raven_source` of a RAVEN table (column ``source``; a text table
    without it holds ``union`` rows only)."""
    source = raven_source(params)
    if "source" not in table.columns:
        if source == "union":
            return table
        raise NotMeasured(f"no {source!r} rows (source column) in the RAVEN tables")
    if not (table["source"] == source).any() and len(table):
        raise NotMeasured(f"no {source!r} rows in the RAVEN tables (re-run report raven)")
    return table[table["source"] == source]


def _raven_curves(table: pd.DataFrame, params: Mapping) -> pd.DataFrame:
    """raven_summary (the source of :func:`raven_source`, main prompt length) as long rows:
    model, decoding, family, n, novelty, novelty_lo, novelty_hi."""
    t = enough_rows(main_rows(_raven_rows(table, params), params), params)
    rows = []
    for _, r in t.iterrows():
        for n in range(1, params["findings"]["raven_n_max"] + 1):
            if f"novelty_{n}" in t.columns:
                rows.append(
                    {
                        "model": r["model"],
                        "decoding": r["decoding"],
                        "family": r["family"],
                        "n": n,
                        "novelty": r[f"novelty_{n}"],
                        "novelty_lo": r[f"novelty_{n}_lo"],
                        "novelty_hi": r[f"novelty_{n}_hi"],
                    }
                )
    cols = ["model", "decoding", "family", "n", "novelty", "novelty_lo", "novelty_hi"]
    return pd.DataFrame(rows, columns=cols)


def _raven_vs_human(
    tables: Tables, params: Mapping, decoding_key: str, lo: int, hi: int, sign: int
) -> tuple[str, str]:
    """A RAVEN n-gram row: the samples of decoding ``findings[decoding_key]`` of each model
    against human/reference at n in lo..hi (:func:`novelty_vs_human`: texts regrouped, from
    ``raven_text_novelty``), ``sign`` the claimed side (−1 below, +1 above). Bootstrap
    intervals compared as z scores erred here in 13 of 200 draws of the null calibration's
    human halves at n ≥ 7, where a few texts hold most of the copied n-grams."""
    decoding = params["findings"][decoding_key]
    t = _raven_curves(tables["raven_summary"], params)
    counts = _raven_rows(tables["raven_text_novelty"], params)
    parts, verdicts, models = novelty_vs_human(
        t, counts, params, [decoding], range(lo, hi + 1), sign
    )
    return decided(parts, verdicts, f"no {decoding} samples in the RAVEN summary", models)


def raven_nulls(sets: list[tuple[str, str, pd.DataFrame, pd.DataFrame]], params: Mapping) -> Tables:
    """raven_summary (training ∪ context, and the n-gram rows' source
    :func:`raven_source`: the only sources the calibrated rules
    read), raven_texts and raven_text_novelty of the given (model, decoding, words, quality)
    sets, built by the RAVEN report's builders; every set is scored by an evaluator other than
    itself."""
    sources = tuple(dict.fromkeys(("union", raven_source(params))))
    summary, _, _ = raven_report.build(sets, params["novelty"], params["sampling"], sources)
    summary["evaluator"] = "null-evaluator"
    texts = raven_report.text_table(sets, params["sampling"]).assign(evaluator="null-evaluator")
    novelty = raven_report.text_novelty_table(
        sets, params["sampling"], sources=(raven_source(params),)
    )
    return {"raven_summary": summary, "raven_texts": texts, "raven_text_novelty": novelty}


def _raven_sets(data: Data, groups: list[tuple[str, str, np.ndarray]]):
    return [(m, d, take(data.words, w), take(data.quality, w)) for m, d, w in groups]


def human_halves(groups_of) -> NullBuilder:
    """A null of two halves of the human continuations (RAVEN's words): ``groups_of(a, b,
    params)`` deals the halves' windows into the claim's (model, decoding, windows) groups and
    returns them with the parameters to decide on."""

    def build(rng, data, params):
        if data.words is None or data.quality is None:
            return None
        a, b = split_windows(data.words["window"].to_numpy(), 2, rng)
        groups, params = groups_of(a, b, params)
        return raven_nulls(_raven_sets(data, groups), params)

    return build


def half_as(decoding_key: str):
    """Half A as a model's samples of the decoding ``findings[decoding_key]``, half B as the
    human baseline."""

    def groups_of(a, b, params):
        return [(*HUMAN, b), ("null", params["findings"][decoding_key], a)], params

    return groups_of


def lstm_and_gpt_halves(a, b, params):
    """Half A as the LSTM's and half B as the gpt2 model's samples of the RAVEN decoding (the
    zoo's first of each kind, or one named so), a zoo of those two."""
    f, zoo = params["findings"], params["models"]["zoo"]
    lstm = next((m for m, s in zoo.items() if s.get("kind") == "lstm"), "lstm")
    gpt = next((m for m, s in zoo.items() if s.get("kind") == "gpt2"), "gpt2")
    groups = [(lstm, f["raven_decoding"], a), (gpt, f["raven_decoding"], b)]
    models = {**params["models"], "zoo": {lstm: {"kind": "lstm"}, gpt: {"kind": "gpt2"}}}
    return groups, {**params, "models": models}


@claim(
    "raven-top40-small-n",
    "With top-40 sampling, models are less novel than the human baseline for small n (n < 6)",
    RAVEN,
    "§5, Fig. 1",
    RAVEN_NGRAM + "; top-40 sampling (Wikitext: 6% novel bigrams vs 2–3% for the models)",
    ("raven_summary", "raven_text_novelty"),
    "the {raven_decoding} samples of each model vs human/reference, RAVEN's word novelty "
    "({novelty_source} training text ∪ context), main prompt length: at each n in "
    "1..{raven_small_max}, the "
    "difference in pooled novelty(n) tested by regrouping the two sets' texts "
    "(" + str(NOVELTY_PERMUTATIONS) + " random regroupings, sizes kept; two-sided, Bonferroni "
    "over every model's n's, α = {alpha}); a model holds if below at some n and above at "
    "none, does not hold if above at some n; the claim holds if every model holds, does not "
    "hold if every model does not",
    setting=RAVEN_NATURAL,
    nulls=(Null("human halves", human_halves(half_as("raven_decoding"))),),
)
def raven_top40_small_n(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §5: top-40 samples reuse short n-grams more than human text."""
    f = params["findings"]
    return _raven_vs_human(tables, params, "raven_decoding", 1, f["raven_small_max"], -1)


@claim(
    "raven-top40-large-n",
    "With top-40 sampling, models are more novel than the human baseline for n > 6",
    RAVEN,
    "§5, Fig. 1",
    RAVEN_NGRAM + "; top-40 sampling",
    ("raven_summary", "raven_text_novelty"),
    "as the row above at each n in {raven_large_min}..{raven_n_max}: a model holds if above "
    "human at some n and below at none, does not hold if below at some n",
    setting=RAVEN_NATURAL,
    nulls=(Null("human halves", human_halves(half_as("raven_decoding"))),),
)
def raven_top40_large_n(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §5: for larger n, top-40 samples are more novel than human text."""
    f = params["findings"]
    return _raven_vs_human(
        tables, params, "raven_decoding", f["raven_large_min"], f["raven_n_max"], 1
    )


@claim(
    "raven-pure-every-n",
    "With pure sampling, models are more novel than the human baseline at every n",
    RAVEN,
    "§5, Fig. 1",
    RAVEN_NGRAM + "; pure sampling",
    ("raven_summary", "raven_text_novelty"),
    "the {pure_decoding} samples of each model vs human/reference, RAVEN's word novelty "
    "({novelty_source} training text ∪ context), main prompt length, n in 1..{raven_n_max} "
    "(the texts regrouped, all n at once, as above): a model holds if above at some n and "
    "below at none, does not hold if below at some n; the claim holds if every model holds, "
    "does not hold if every model does not",
    setting=RAVEN_NATURAL,
    nulls=(Null("human halves", human_halves(half_as("pure_decoding"))),),
)
def raven_pure_every_n(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §5: pure samples are more novel than human text at every n."""
    f = params["findings"]
    return _raven_vs_human(tables, params, "pure_decoding", 1, f["raven_n_max"], 1)


@claim(
    "lstm-less-novel-small-n",
    "The LSTM is less novel than the Transformer for small n (recurrence)",
    RAVEN,
    "§5, Fig. 1",
    RAVEN_NGRAM + "; LSTM vs Transformer of Wikitext-103, top-40 sampling",
    ("raven_summary",),
    "the {raven_decoding} samples of each lstm model vs each gpt2 model of models.zoo, RAVEN's "
    "word novelty ({novelty_source} training text ∪ context), main prompt length, n in "
    "1..{raven_small_max}: a pair "
    "holds if the LSTM is below at some n and above at none, does not hold if above at some n; "
    "the claim holds if every pair holds, does not hold if every pair does not; not tested "
    "here without an lstm and a gpt2 model in models.zoo",
    setting=RAVEN_NATURAL,
    nulls=(Null("human halves", human_halves(lstm_and_gpt_halves)),),
)
def lstm_less_novel_small_n(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §5: the recurrent LSTM copies short n-grams more than the
    Transformer."""
    f, zoo = params["findings"], params["models"]["zoo"]
    kinds = {s.get("kind") for s in zoo.values()}
    if not {"lstm", "gpt2"} <= kinds:
        raise NotTested(
            f"models.zoo has no {'lstm' if 'lstm' not in kinds else 'gpt2'} model: the claim "
            "compares a recurrent LSTM with a Transformer trained on the same text"
        )
    t = _raven_curves(tables["raven_summary"], params)
    t = t[t["decoding"] == f["raven_decoding"]]
    present = set(t["model"])
    lstms = [m for m, s in zoo.items() if s.get("kind") == "lstm" and m in present]
    gpts = [m for m, s in zoo.items() if s.get("kind") == "gpt2" and m in present]
    parts, verdicts, models = [], [], []
    ns = range(1, f["raven_small_max"] + 1)
    for lstm, gpt in itertools.product(lstms, gpts):
        a = t[t["model"] == lstm].set_index("n").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
        b = t[t["model"] == gpt].set_index("n").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
        signs = {
            n: compare(ci_of(a.loc[n]), ci_of(b.loc[n]))
            for n in ns
            if n in a.index and n in b.index
        }
        if not signs:
            continue
        verdict = every_verdict(list(signs.values()), -1)
        verdicts.append(verdict)
        models.append(f"{lstm} vs {gpt}")
        parts.append(
            f"{lstm} vs {gpt}: below at n ∈ {n_range([n for n, s in signs.items() if s < 0])}, "
            f"above at n ∈ {n_range([n for n, s in signs.items() if s > 0])} → {verdict}"
        )
    return decided(
        parts, verdicts, f"no lstm and gpt2 model both sampled with {f['raven_decoding']}", models
    )


def human_parts_quality(rng, data, params):
    """The human continuations dealt into as many parts as the grid has decodings, each part
    playing one decoding of one model: novelty and the judged perplexity are unrelated."""
    if data.words is None or data.quality is None:
        return None
    names = list(params["sampling"]["decodings"])
    parts = split_windows(data.words["window"].to_numpy(), len(names), rng)
    return raven_nulls(
        _raven_sets(data, [("null", d, w) for d, w in zip(names, parts, strict=True)]), params
    )


def planted_tradeoff(rng, data, params, size):
    """Builder: the human continuations (main prompt length) as one model's samples under
    every decoding of the grid, ``size`` texts per decoding drawn with replacement, the
    decodings in a random order; the i-th of k made more novel and harder to predict by
    i/(k − 1) of one standard deviation of the human texts' own values: every truncated
    duplication score lowered (min(s, 5) − i/(k − 1)·sd, as the prompt-length null shifts
    it) and every token's judged NLL raised (i/(k − 1)·sd per token). A monotone tradeoff
    across the decodings, of one standard deviation from first to last, is planted: the
    rule must find it ``holds``. Built by the RAVEN report's builders (:func:`raven_nulls`)."""
    words, quality = main_words(data, params), data.quality
    names = list(params["sampling"]["decodings"])
    if words is None or quality is None or len(names) < 2:
        return None
    q = quality[quality["prompt_length"] == params["sampling"]["prompt_length"]]
    windows = np.intersect1d(pd.unique(words["window"]), pd.unique(q["window"]))
    if len(windows) < 2:
        return None
    score_sd, nll_sd = _text_spreads(words, q)
    by_window = dict(tuple(words.groupby("window", sort=False)))
    q = q.drop_duplicates("window").set_index("window")
    sets = []
    for i, name in enumerate(rng.permutation(names)):
        step = i / (len(names) - 1)
        pick = rng.choice(windows, size=size, replace=True)
        w = pd.concat(
            [by_window[x].assign(text=j, window=j) for j, x in enumerate(pick)], ignore_index=True
        )
        w["s_union"] = np.minimum(w["s_union"].to_numpy(float), 5) - step * score_sd
        t = q.loc[pick].reset_index(drop=True)
        t["text"] = t["window"] = np.arange(size)
        t["nll_sum"] = t["nll_sum"] + step * nll_sd * t["tokens"]
        sets.append(("planted", str(name), w, t))
    return raven_nulls(sets, params)


def _text_spreads(words: pd.DataFrame, quality: pd.DataFrame) -> tuple[float, float]:
    """The standard deviations over texts of the mean truncated duplication score (min(s, 5)
    of ``s_union``) and of the mean NLL per token (``nll_sum`` / ``tokens``)."""
    score = np.minimum(words["s_union"].to_numpy(float), 5)
    per_text = pd.Series(score).groupby(words["window"].to_numpy()).mean()
    nll = quality["nll_sum"].to_numpy(float) / np.maximum(quality["tokens"].to_numpy(float), 1)
    return float(per_text.std()), float(np.std(nll, ddof=1))


def tradeoff_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The planted tradeoff (:func:`planted_tradeoff`) at the power sizes up to the run's
    own number of human texts (larger ones would repeat texts more than the run has)."""
    words = main_words(data, params)
    if words is None or data.quality is None or len(params["sampling"]["decodings"]) < 2:
        return []
    per = int(words["window"].nunique())
    sizes = sizes_up_to(params["findings"]["power"]["sizes"], per)
    return [Positive("planted tradeoff (1 sd)", planted_tradeoff, HOLDS, sizes, per)]


def judge_note(judge: str, params: Mapping) -> str:
    """Who judged a model's samples, as the row shows it: ``models.judge`` (a model outside
    the zoo) or a model of the zoo (trained here on the same text, when it is trained)."""
    if judge == judge_of(params):
        return f"judged by {judge}, models.judge: outside the zoo"
    zoo = params["models"].get("zoo", {})
    if zoo.get(judge, {}).get("kind") in ("gpt2", "lstm"):
        return f"judged by {judge}, a zoo model trained here on the same text; no models.judge"
    return f"judged by {judge}, a model of the zoo; no models.judge"


@claim(
    "novelty-quality",
    "Decoding methods trade novelty against quality: decodings that produce more novel text "
    "produce text of lower quality (higher perplexity under a different model)",
    RAVEN,
    "§5, Fig. 2",
    "12 decodings (top-k, top-p, temperature grids, pure sampling); quality = perplexity under "
    "another model (GPT-2 scored the Wikitext models, Transformer-XL scored GPT-2)",
    ("raven_summary", "raven_texts"),
    "per model, across its decodings at the main prompt length (training ∪ context), only sets "
    "with at least {min_distinct} distinct texts judged by a model other than the model itself "
    "(models.judge when set, else models.evaluator / models.evaluators), from at least "
    "{trend_min_points} decodings: Kendall's τ over the decodings of each decoding's truncated "
    "duplication score (higher = less novel) and its judged NLL per token (the log of its "
    "perplexity) — the monotone trend across decodings that RAVEN reads off Fig. 2 (more "
    "novel, higher perplexity: τ < 0), one decoding far from the others weighing no more than "
    "any other — each decoding's score from one half of its texts and its NLL from the other "
    "(the texts in prompt order, alternately), since texts that copy more are also easier to "
    "predict and the means of the same texts would line up without any decoding effect; τ "
    "tested against its exact null distribution (independent halves: the pairing is random "
    "without a decoding effect); holds if τ < 0 with one-sided p < {alpha}/(2m), does not hold "
    "if τ > 0 with one-sided p < {alpha}/(2m) (Bonferroni over the m models decided), else "
    "inconclusive; not tested here when no model has such sets; the claim holds if every "
    "model holds",
    setting="quality is the perplexity under models.judge when the config sets one (a model "
    "outside the zoo, e.g. SmolLM2-135M, the judge: block config/config.yaml shows commented "
    "out: about 29 CPU minutes on the default's sets on 2 cores, so the default keeps the "
    "trained evaluators), else under the zoo's models.evaluator(s), small models trained on "
    "the same plays, whose perplexity rewards closeness to the training text as well as "
    "fluency; the measured column names each model's judge",
    nulls=(Null("human parts", human_parts_quality),),
    positives=tradeoff_positives,
)
def novelty_quality(tables: Tables, params: Mapping):
    """McCoy et al. 2023 Fig. 2: more novel decodings give higher perplexity under a
    different model, as a monotone trend across the decodings."""
    f = params["findings"]
    r = tables["raven_summary"]
    r = enough_rows(
        main_rows(r[(r["source"] == "union") & (r["model"] != "human")], params), params
    )
    if not len(r):
        raise NotMeasured("no model's sets at the main prompt length in the RAVEN summary")
    if "evaluator" not in r.columns:
        r = r.assign(evaluator=r["model"].map(lambda m: evaluator_of(m, params)))
    r = r[r["evaluator"].astype(str) != r["model"].astype(str)]
    texts = tables["raven_texts"]
    groups = []
    for model, rows in r.groupby("model", sort=False):
        t = texts[(texts["model"] == model) & texts["decoding"].isin(rows["decoding"])]
        t = t[(t["score_tokens"] > 0) & (t["nll_tokens"] > 0)]
        if t["decoding"].nunique() >= f["trend_min_points"]:
            groups.append((model, rows, t))
    if not groups:
        raise NotTested(
            f"no model has ≥ {f['trend_min_points']} decodings judged by another model: the "
            "claim is a trend across a grid of decodings, judged by a model that did not "
            "write the text"
        )
    level = f["alpha"] / (2 * len(groups))  # per direction, Bonferroni over the models
    parts, verdicts, models = [], [], []
    for model, rows, t in groups:
        tau, lower, upper, k = split_half_trend(
            t["decoding"], t["text"], t["score_sum"], t["score_tokens"], t["nll_sum"],
            t["nll_tokens"],
        )  # fmt: skip
        verdict = trend_p_verdict(tau, lower, upper, level)
        judge = ",".join(dict.fromkeys(rows["evaluator"].astype(str)))
        parts.append(
            f"{model} ({judge_note(judge, params)}): τ of the decodings' halves = "
            f"{g(tau)} (p↓ = {g(lower)}, p↑ = {g(upper)} against {g(level)}; {k} decodings, "
            f"{len(t)} texts) → {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "", models)


def trend_p_verdict(tau: float, lower: float, upper: float, level: float) -> str:
    """A claimed negative trend τ from its one-sided p-values: ``holds`` if τ < 0 with
    P(τ* ≤ τ) < ``level``, ``does not hold`` if τ > 0 with P(τ* ≥ τ) < ``level``, else
    ``inconclusive`` (also for NaN)."""
    if not np.isfinite(tau):
        return UNCLEAR
    if tau < 0 and lower < level:
        return HOLDS
    if tau > 0 and upper < level:
        return FAILS
    return UNCLEAR


def human_halves_prompt_length(shift: bool) -> NullBuilder:
    """Two halves of the human continuations (main prompt length) as one set sampled at two
    prompt lengths: half B at the main length, half A, paired window by window with B, at
    another one. With ``shift`` every truncated score of A is lowered by
    ``findings.prompt_length_margin`` (A's scores replaced by min(score, 5) − margin, which
    RAVEN's truncation leaves alone): prompt length then has an effect of exactly the
    margin, the least favourable case of the claimed absence, so ``holds`` is the false
    verdict; without it the effect is 0 and ``does not hold`` is. The contrast is built by
    the RAVEN report's own builder (:func:`copyscope.report.raven.contrasts`)."""

    def build(rng, data, params):
        words = main_words(data, params)
        if words is None:
            return None
        main, f = params["sampling"]["prompt_length"], params["findings"]
        a, b = split_windows(words["window"].to_numpy(), 2, rng)
        k = min(len(a), len(b))
        pair = dict(zip(a[:k], b[:k], strict=True))
        other = take(words, a[:k]).copy()
        other["window"] = other["window"].map(pair)
        other["prompt_length"] = main + 1
        if shift:
            cut = np.minimum(other["s_union"].to_numpy(float), 5)
            other["s_union"] = cut - f["prompt_length_margin"]
        frame = pd.concat([take(words, b[:k]), other], ignore_index=True)
        sets = [("null", f["pure_decoding"], frame)]
        return {"raven_contrasts": raven_report.contrasts(sets, params["novelty"],
                                                           params["sampling"])}  # fmt: skip

    return build


@claim(
    "prompt-length-no-effect",
    "Prompt length has no clear effect on the novelty of the generated text",
    RAVEN,
    "supplementary materials (prompt length)",
    RAVEN_NGRAM + "; prompts of several lengths",
    ("raven_contrasts",),
    "per (model, decoding) of the prompt-length study: the paired difference of RAVEN's "
    "truncated duplication score (training ∪ context) between each prompt length and the main "
    "one, with its 95% bootstrap CI over windows; prompt lengths whose samples have fewer than "
    "{min_distinct} distinct texts are left out; a set holds (no large effect) if every CI lies "
    "within ±{prompt_length_margin} (copyscope's margin: the paper gives no size for \"no "
    'clear effect"), does not hold if some CI lies wholly outside it, else inconclusive; the '
    "claim holds if every set holds, does not hold if every set does not",
    setting="Merrill et al.'s Fig. 3 varies training-text prompts for beam search and states no "
    "trend either; neither paper claims that novelty falls with prompt length; the margin "
    "±{prompt_length_margin} on the truncated score (1..5) is copyscope's, not a number of the "
    'paper, so "holds" reads "no effect larger than copyscope\'s margin"',
    nulls=(
        Null("human halves", human_halves_prompt_length(False), (FAILS,)),
        Null("human halves, effect = margin", human_halves_prompt_length(True), (HOLDS,)),
    ),
)
def prompt_length_no_effect(tables: Tables, params: Mapping):
    """McCoy et al. 2023 (supplement): prompt length has no clear effect on novelty."""
    f = params["findings"]
    c = tables["raven_contrasts"]
    c = c[(c["kind"] == "prompt_length") & (c["model"] != "human")]
    enough = (c["distinct_a"].fillna(0) >= f["min_distinct"]) & (
        c["distinct_b"].fillna(0) >= f["min_distinct"]
    )
    left_out = c[~enough]
    parts, verdicts, models = [], [], []
    for (model, decoding), rows in c[enough].groupby(["model", "decoding"], sort=False):
        deltas = [ci_of(r, "delta", "delta_lo", "delta_hi") for _, r in rows.iterrows()]
        verdict = equivalence_verdict(deltas, f["prompt_length_margin"])
        verdicts.append(verdict)
        models.append(model)
        diffs = ", ".join(
            f"{r['a']} − {r['b']}: {ci(ci_of(r, 'delta', 'delta_lo', 'delta_hi'))}"
            for _, r in rows.iterrows()
        )
        parts.append(f"{model} {decoding}: {diffs} → {verdict}")
    for _, r in left_out.iterrows():
        parts.append(
            f"{r['model']} {r['decoding']} {r['a']} vs {r['b']}: left out "
            f"({int(r['distinct_a'])} and {int(r['distinct_b'])} distinct texts)"
        )
    return decided(
        parts, verdicts, "no set of the prompt-length study with enough distinct texts", models
    )


def planted_context(rng, data, params):
    """The human continuations (main prompt length) as the pure samples of one model (one set:
    the rule's "every interval within the margin" is easiest to meet with one), with a context
    effect of exactly ``findings.source_margin`` planted: each word's
    training-only score is its truncated union score, lowered by one for a random share of
    the words (by max(1, 2·margin) for a share margin / that step, so the mean union − train
    difference is the margin): the least favourable case of "barely changes", where ``holds``
    is the false verdict. Contrasts by :func:`copyscope.report.raven.contrasts`."""
    words = main_words(data, params)
    if words is None:
        return None
    f = params["findings"]
    step = max(1.0, 2 * f["source_margin"])
    union = np.minimum(words["s_union"].to_numpy(float), 5)
    hit = rng.random(len(union)) < f["source_margin"] / step
    frame = words.assign(s_union=union, s_train=union - step * hit)
    sets = [("null", f["pure_decoding"], frame)]  # one set: "every CI" is easiest with one
    table = raven_report.contrasts(sets, params["novelty"], params["sampling"])
    return {"raven_contrasts": table}


@claim(
    "train-vs-union",
    "Results barely change when only training-set duplication is counted instead of "
    "training ∪ context",
    RAVEN,
    "supplementary materials (sources of duplication)",
    RAVEN_NGRAM + "; the paper's main decodings",
    ("raven_contrasts",),
    "per model under {pure_decoding} and {raven_decoding}, main prompt length: the paired "
    "difference of the truncated duplication score, training ∪ context minus training only, "
    "with its 95% bootstrap CI; holds (no large effect) if every CI lies within "
    '±{source_margin} (copyscope\'s margin: the paper gives no size for "barely change"), '
    "does not hold if some CI lies wholly outside it, else inconclusive",
    setting="the margin ±{source_margin} on the truncated score (1..5) is copyscope's, not a "
    'number of the paper, so "holds" reads "no effect larger than copyscope\'s margin"',
    nulls=(Null("planted context, effect = margin", planted_context, (HOLDS,)),),
)
def train_vs_union(tables: Tables, params: Mapping):
    """McCoy et al. 2023 (supplement): copying from the context adds little to copying from
    training."""
    f = params["findings"]
    c = tables["raven_contrasts"]
    c = c[(c["kind"] == "source") & (c["model"] != "human")]
    c = c[c["decoding"].isin([f["pure_decoding"], f["raven_decoding"]])]
    parts, verdicts, models = [], [], []
    for model, rows in c.groupby("model", sort=False):
        deltas = [ci_of(r, "delta", "delta_lo", "delta_hi") for _, r in rows.iterrows()]
        verdict = equivalence_verdict(deltas, f["source_margin"])
        verdicts.append(verdict)
        models.append(model)
        diffs = ", ".join(
            f"{r['decoding']} {ci(ci_of(r, 'delta', 'delta_lo', 'delta_hi'))}"
            for _, r in rows.iterrows()
        )
        parts.append(f"{model}: union − train {diffs} → {verdict}")
    return decided(
        parts, verdicts, "no union-vs-training contrast for the compared decodings", models
    )


def _unit_signs(model: pd.DataFrame, human: pd.DataFrame, units: Sequence[str]) -> dict:
    """unit → (:func:`compare` of the model's novelty interval with the human one, model
    interval, human interval), for the units with generated occurrences in both."""
    m = model[model["total"] > 0].set_index("unit").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
    h = human[human["total"] > 0].set_index("unit").rename(columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"})
    return {
        u: (compare(ci_of(m.loc[u]), ci_of(h.loc[u])), ci_of(m.loc[u]), ci_of(h.loc[u]))
        for u in units
        if u in m.index and u in h.index
    }


def _unit_names(signs: dict, want: int) -> str:
    return "{" + ", ".join(u for u, (s, _, _) in signs.items() if s == want) + "}"


def human_halves_syntax(rng, data, params):
    """Two halves of the human reference's parsed passages, one as the top-40 samples of a
    model: RAVEN's syntactic novelty of each half against the training parses, by the syntax
    report's builder (:func:`copyscope.syntax.syntactic_novelty.novelty_rows` of
    :func:`~copyscope.syntax.syntactic_novelty.novelty_table`; each passage's counts found once for all
    draws)."""
    syntax = _syntax(data, params)
    if syntax is None:
        return None
    names, novel, total = syntax
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    a, b = split_windows(np.arange(len(novel)), 2, rng)
    frames = []
    for (model, decoding), half in zip(
        [("null", params["findings"]["raven_decoding"]), HUMAN], (a, b), strict=True
    ):
        name = f"{model}/{decoding}"
        t = novelty_rows(name, names, novel[half], total[half], s["bootstrap"], s["seed"])
        frames.append(t.assign(model=model, decoding=decoding,
                               decoding_family=family(decoding, decodings)))  # fmt: skip
    return {"syntax_novelty": pd.concat(frames, ignore_index=True)}


def _syntax(data: Data, params: Mapping) -> tuple | None:
    """``data.syntax``, or the counts of ``data.syntax_files`` (:func:`syntax_items`), found
    once per process: in the worker that draws the syntax null, while the others draw theirs
    (not before every worker starts)."""
    if data.syntax is not None or data.syntax_files is None:
        return data.syntax
    cached = STATE.get("syntax")
    if cached is None or cached[0] != data.syntax_files:
        cached = STATE["syntax"] = (data.syntax_files, syntax_items(*data.syntax_files, params))
    return cached[1]


def syntax_items(parses, training, params: Mapping) -> tuple:
    """(unit names, novel, total): the human reference's per-passage counts of every unit
    (:func:`copyscope.syntax.syntactic_novelty.count_matrices`), by the syntactic-novelty report's steps
    (:func:`copyscope.syntax.syntactic_novelty.syntactic_novelty`: extraction, one streaming pass over the
    training parses)."""
    labels = label_set(params["syntax"]["backend"], language_of(params["syntax"]))
    k = params["analysis"]["syntax"]["max_path_words"]
    parsed = extract_set("human/reference", read_parses(parses), labels, k)
    query, words = query_items([parsed])
    hits = training_hits(read_parses(training), query, words, labels, k)
    names = units(k)
    return (names, *count_matrices(parsed, hits, names))


@claim(
    "syntax-local-less-novel",
    "Local syntactic structure (dependency arcs, roles) of model text is far less novel than "
    "the baseline's, while whole-sentence structure differs little",
    RAVEN,
    "§6, Table 1, Fig. 5",
    "top-40 sampling; Wikitext-103 models and GPT-2; benepar constituency and Stanford "
    "Dependencies parses; baseline: the true continuations",
    ("syntax_novelty",),
    "the {raven_decoding} samples of each model vs human/reference, 95% CIs of syntactic "
    "novelty (bootstrap over passages): local units {local_units} hold if the model is below "
    "human at some unit and above at none (does not hold: above at some and below at none); "
    "whole-sentence units {structure_units} hold if every unit's difference (bounded by the two "
    "CIs) lies within ±{syntax_margin} (no large difference; copyscope's margin: the paper "
    'gives no size for "little difference") (does not hold: some unit\'s bounds lie wholly '
    "outside); "
    "a model holds if both parts hold and does not hold if either does not; the claim holds if "
    "every model holds",
    setting="the margin ±{syntax_margin} on whole-sentence novelty is copyscope's, not a "
    "number of the paper; parses come from spaCy (ClearNLP labels for English, UD for French; no "
    "constituency: the dependency-tree structure stands in for it); arcs and roles contain "
    "words, and small BPE models write "
    "non-words, which inflates their novelty (RAVEN §7: 96% of GPT-2's novel words are "
    "well-formed)",
    nulls=(Null("human halves", human_halves_syntax),),
)
def syntax_local_less_novel(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §6: generated text is less syntactically novel than human text in
    local structure, while sentence-level structure is about as novel."""
    f = params["findings"]
    t = tables["syntax_novelty"]
    human = set_rows(t, "human", "reference")
    if not len(human):
        raise NotMeasured("no human/reference rows in the syntactic novelty table")
    parts, verdicts, models = [], [], []
    for model in models_of(t):
        rows = set_rows(t, model, f["raven_decoding"])
        local = _unit_signs(rows, human, f["local_units"])
        whole = _unit_signs(rows, human, f["structure_units"])
        if not local or not whole:
            continue
        local_v = signs_verdict([s for s, _, _ in local.values()], -1)
        whole_v = equivalence_verdict(
            [difference_bounds(a, b) for _, a, b in whole.values()], f["syntax_margin"]
        )
        verdict = FAILS if FAILS in (local_v, whole_v) else combine([local_v, whole_v])
        verdicts.append(verdict)
        models.append(model)
        spread = ", ".join(f"{u} {g(a[0])} vs {g(b[0])}" for u, (_, a, b) in whole.items())
        parts.append(
            f"{model} {f['raven_decoding']}: local below human at {_unit_names(local, -1)}, "
            f"above at {_unit_names(local, 1)} → {local_v}; whole-sentence {spread} → {whole_v}; "
            f"→ {verdict}"
        )
    return decided(
        parts, verdicts, f"no {f['raven_decoding']} set with local and whole-sentence units", models
    )


def _word_sets(data: Data, params: Mapping):
    """(Moses words of each human reference text at the main prompt length, the training
    vocabulary, the judge) of the run, or None without them."""
    if data.human_words is None:
        return None
    by_length, vocab, judge = data.human_words
    texts = by_length.get(params["sampling"]["prompt_length"])
    return (texts, vocab, judge) if texts and len(texts) >= 2 else None


def _word_table(sets, vocab) -> Tables:
    """The novel-words table (raven_novel_words) of (model, decoding, texts, judge) sets,
    built by the novel-words report's builder (:func:`copyscope.report.novel_words.set_of`)."""
    rows = [novel_words_report.set_of(m, d, texts, vocab, j)[0] for m, d, texts, j in sets]
    return {"raven_novel_words": pd.DataFrame(rows, columns=novel_words_report.TABLE_COLUMNS)}


def well_formed_halves(at_margin: bool) -> NullBuilder:
    """A null of two halves of the human continuations' texts (Moses words): half A as a
    model's ``findings.raven_decoding`` samples, half B as the human baseline, each half's
    novel words listed and judged by the novel-words report's builders. No effect (both are
    human text: "does not hold" is false); with ``at_margin``, half A's share is lowered by
    exactly ``findings.well_formed_margin``: round(margin · novel types) of its novel types
    are judged not well-formed in turn, at random, the least favourable case of "nearly as
    well-formed", where "holds" is false."""

    def build(rng, data, params):
        words = _word_sets(data, params)
        if words is None:
            return None
        texts, vocab, judge = words
        a, b = split_windows(np.arange(len(texts)), 2, rng)
        half_a, judge_a = [texts[i] for i in a], judge
        if at_margin:
            listed = novel_words_report.word_list("null", "", novel_words_report.novel_words(
                half_a, vocab), judge)  # fmt: skip
            judge_a = _judged_as(_lowered(listed, params["findings"]["well_formed_margin"], rng),
                                 judge)  # fmt: skip
        dec = params["findings"]["raven_decoding"]
        sets = [("null", dec, half_a, judge_a), (*HUMAN, [texts[i] for i in b], judge)]
        return _word_table(sets, vocab)

    return build


def _lowered(listed: pd.DataFrame, margin: float, rng) -> set[str]:
    """round(``margin`` · novel types) of the well-formed words of a word list, at random:
    judged not well-formed, they lower the list's well-formed share by ``margin``."""
    good = listed.loc[listed["well_formed"], "word"].to_numpy()
    k = min(len(good), round(margin * len(listed)))
    return set(rng.choice(good, size=k, replace=False)) if k else set()


def _judged_as(bad: set[str], judge):
    """``judge`` with the words of ``bad`` judged not well-formed."""
    return lambda w: (False, "none", "") if w in bad else judge(w)


def run_together(words: list[str], every: int, rng) -> list[str]:
    """``words`` with one pair of adjacent words with letters per ``every`` words (at a random
    place of each block) run together into one word, the first in lower case and the second in
    upper case (``hisGONZALO``, as small models write them): a word whose case changes inside
    it, which the novel-words rule never finds well-formed (``mixed``) and which is a new
    word (a training word has no such case change)."""
    out = list(words)
    for start in range(0, max(0, len(out) - 1), every):
        ends = min(start + every, len(out)) - 1
        pairs = [i for i in range(start, ends)
                 if any(c.isalpha() for c in out[i]) and any(c.isalpha() for c in out[i + 1])
                 and out[i] and out[i + 1]]  # fmt: skip
        if pairs:
            i = pairs[rng.integers(len(pairs))]
            out[i : i + 2] = [out[i].lower() + out[i + 1].upper()]
    return out


class RunTogether:
    """The known positive of the novel-words row: half of the human texts (Moses words) with
    one pair of words per ``findings.power.copier_span`` words run together
    (:func:`run_together`), the other half as the human baseline: the first half's novel words
    are well-formed clearly less often than the human text's (beyond the paper's gap)."""

    def __init__(self, texts: list[list[str]], params: Mapping):
        p = params["findings"]["power"]
        rng = np.random.default_rng([p["seed"], 2])
        a, b = split_windows(np.arange(len(texts)), 2, rng)
        self.runs = [run_together(texts[i], p["copier_span"], rng) for i in a]
        self.human = [texts[i] for i in b]
        self.max_size = min(len(self.runs), len(self.human))

    def build(self, rng, data, params, size):
        words = _word_sets(data, params)
        if words is None:
            return None
        _, vocab, judge = words
        dec = params["findings"]["raven_decoding"]
        pick = [rng.integers(len(self.runs), size=size), rng.integers(len(self.human), size=size)]
        return _word_table([("run-together", dec, [self.runs[i] for i in pick[0]], judge),
                            (*HUMAN, [self.human[i] for i in pick[1]], judge)], vocab)  # fmt: skip


def run_together_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """:class:`RunTogether` resampled at each ``findings.power.sizes`` (texts per side):
    "does not hold" is the right verdict."""
    words = _word_sets(data, params)
    if words is None:
        return []
    runs = RunTogether(words[0], params)
    sizes = sizes_up_to(params["findings"]["power"]["sizes"], runs.max_size)
    return [Positive("run-together words", runs.build, FAILS, sizes, runs.max_size)]


@claim(
    "novel-words-well-formed",
    "Most of a model's novel words are well-formed, nearly as often as the human baseline's "
    "(GPT-2: 96% vs 99%)",
    RAVEN,
    "§7 (Tables 2–4)",
    "GPT-2's top-40 samples against WebText's held-out text; the novel words (not in the "
    "training data) judged by hand",
    ("raven_novel_words",),
    "per model, its {raven_decoding} samples vs the human continuations (human/reference), "
    "main prompt length: the share of novel word types (Moses words with a letter, not in the "
    "training vocabulary) that are well-formed by the rule of raven_novel_words, model minus "
    "human, with Newcombe's 95% interval; holds if it lies wholly above −{well_formed_margin} "
    "(the paper's gap: 96% vs 99%), does not hold if it lies wholly below it (a gap larger than "
    "the paper's), else inconclusive; the pure samples' share is reported beside it; the claim "
    "holds if every model holds, does not hold if every model does not",
    setting="a fixed rule of form against the training vocabulary instead of the paper's "
    "judgement by hand: an unseen real word or name (the held-out plays' characters) is not "
    "well-formed, so the human share is far below the paper's 99%; the margin "
    "{well_formed_margin} is the paper's own gap (99% − 96%)",
    nulls=(
        Null("human halves", well_formed_halves(False), (FAILS,)),
        Null("human halves, effect = margin", well_formed_halves(True), (HOLDS,)),
    ),
    positives=run_together_positives,
)
def novel_words_well_formed(tables: Tables, params: Mapping):
    """McCoy et al. 2023 §7: GPT-2's novel words are mostly well-formed (96%), nearly as often
    as the human baseline's (99%); decided on the share of well-formed novel types."""
    f = params["findings"]
    t = tables["raven_novel_words"]
    human = set_rows(t, *HUMAN)
    if not len(human) or not int(human["novel_types"].iloc[0]):
        raise NotMeasured("no novel words of human/reference")
    h = human.iloc[0]
    kh, nh = int(h["well_formed"]), int(h["novel_types"])
    models = models_of(t)
    if models and not (t.loc[t["model"] != "human", "decoding"] == f["raven_decoding"]).any():
        raise NotTested(
            f"no model sampled under {f['raven_decoding']} (findings.raven_decoding: top-40, "
            "the paper's decoding)"
        )
    parts, verdicts, names = [], [], []
    for model in models:
        rows = set_rows(t, model, f["raven_decoding"])
        if not len(rows) or not int(rows["novel_types"].iloc[0]):
            continue
        r = rows.iloc[0]
        k, n = int(r["well_formed"]), int(r["novel_types"])
        d = newcombe(k, n, kh, nh)
        margin = f["well_formed_margin"]
        verdict = effect_verdict((d[0] + margin, d[1] + margin, d[2] + margin))
        pure = set_rows(t, model, f["pure_decoding"])
        beside = ""
        if f["pure_decoding"] != f["raven_decoding"] and len(pure) and pure["novel_types"].iloc[0]:
            p = pure.iloc[0]
            beside = f" [{f['pure_decoding']}: {int(p['well_formed'])}/{int(p['novel_types'])}]"
        parts.append(
            f"{model} {f['raven_decoding']}: {k}/{n} novel types well-formed vs human "
            f"{kh}/{nh}, difference {ci(d)}{beside} → {verdict}"
        )
        verdicts.append(verdict)
        names.append(model)
    return decided(parts, verdicts, f"no {f['raven_decoding']} set with novel words", names)
