"""McCoy et al. 2023 (RAVEN) §5, Fig. 1: the word n-gram novelty rows, the models' top-40
and pure samples against the human baseline (``raven-top40-small-n``, ``raven-top40-large-n``,
``raven-pure-every-n``) and the LSTM against the Transformer (``lstm-less-novel-small-n``), with
what the RAVEN rows share: the source the n-gram rows read (:func:`raven_source`), the RAVEN
tables of a null's sets (:func:`raven_nulls`) and the nulls of two halves of the human
continuations (:func:`human_halves`)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ... import raven as raven_report
from ..core import (
    FAILS,
    HOLDS,
    NOVELTY_PERMUTATIONS,
    RAVEN,
    NotMeasured,
    NotTested,
    Null,
    Positive,
    Tables,
    ci_of,
    claim,
    compare,
    decided,
    enough_rows,
    every_verdict,
    main_rows,
    n_range,
    novelty_vs_human,
)
from ..data import (
    HUMAN,
    CopiedWords,
    Data,
    NullBuilder,
    copied_words_of,
    resample_windows,
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
    summary, _, _ = raven_report.build(
        sets, params["novelty"], params["sampling"], sources, curves=False
    )
    summary["evaluator"] = "null-evaluator"
    texts = raven_report.text_table(sets, params["sampling"]).assign(evaluator="null-evaluator")
    novelty = raven_report.text_novelty_table(
        sets, params["sampling"], sources=(raven_source(params),)
    )
    return {"raven_summary": summary, "raven_texts": texts, "raven_text_novelty": novelty}


def raven_sets(data: Data, groups: list[tuple[str, str, np.ndarray]]):
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
        return raven_nulls(raven_sets(data, groups), params)

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


RAVEN_WORDS = ("text", "t", "window", "prompt_length", "L_train", "s_train", "s_union")
"""The columns of the human continuations' words the copied-words positives need."""


def raven_copier_of(data: Data, params: Mapping, shared: dict) -> CopiedWords | None:
    """The run's :class:`~copyscope.report.findings.data.CopiedWords` (their RAVEN scores
    raised with the copied matches); None without the human words' RAVEN scores
    (:data:`RAVEN_WORDS`)."""
    return copied_words_of(data, params, shared, RAVEN_WORDS)


def copied_as(copier: CopiedWords, share: float, decoding_key: str):
    """Builder: the copied words of ``share`` as a model's samples of the decoding
    ``findings[decoding_key]`` against the human half (``size`` texts each, drawn with
    replacement)."""

    def build(rng, data, params, size):
        sets = [
            (*HUMAN, resample_windows(copier.human, size, rng), None),
            ("copier", params["findings"][decoding_key],
             resample_windows(copier.sets[share], size, rng), None),
        ]  # fmt: skip
        return raven_nulls(sets, params)

    return build


def copied_positives(decoding_key: str, pick, right: str):
    """The known positive of a RAVEN n-gram row: the copied words of the share ``pick`` takes
    from ``findings.power.copier_shares`` as a model's samples of ``findings[decoding_key]``
    against the human half; they copy training spans, so they are less novel at every n (the
    small-n row must hold, the rows of "more novel" must not)."""

    def positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
        copier = raven_copier_of(data, params, shared)
        if copier is None:
            return []
        p = params["findings"]["power"]
        share = pick(p["copier_shares"])
        dec = params["findings"][decoding_key]
        return [Positive(f"copied words {share:.0%} as {dec}", copied_as(copier, share, decoding_key),
                         right, sizes_up_to(p["sizes"], copier.max_size), copier.max_size)]  # fmt: skip

    return positives


def copied_lstm_and_gpt(copier: CopiedWords, low: float, high: float):
    """Builder: the copied words of share ``high`` as the LSTM's and of ``low`` as the gpt2
    model's samples of the RAVEN decoding (the zoo's first of each kind)."""

    def build(rng, data, params, size):
        f, zoo = params["findings"], params["models"]["zoo"]
        lstm = next((m for m, s in zoo.items() if s.get("kind") == "lstm"), None)
        gpt = next((m for m, s in zoo.items() if s.get("kind") == "gpt2"), None)
        if lstm is None or gpt is None:
            return None
        sets = [
            (lstm, f["raven_decoding"], resample_windows(copier.sets[high], size, rng), None),
            (gpt, f["raven_decoding"], resample_windows(copier.sets[low], size, rng), None),
        ]
        return raven_nulls(sets, params)

    return build


def copied_lstm_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The copied words of the largest share as the LSTM's samples and of the smallest as the
    Transformer's (with two shares or more, and an lstm and a gpt2 model in the zoo): the
    LSTM copies more, so it must be the less novel at small n (holds)."""
    copier = raven_copier_of(data, params, shared)
    p = params["findings"]["power"]
    shares = sorted(p["copier_shares"])
    kinds = {s.get("kind") for s in params["models"]["zoo"].values()}
    if copier is None or len(shares) < 2 or not {"lstm", "gpt2"} <= kinds:
        return []
    return [Positive(f"copied words {shares[-1]:.0%} (lstm) vs {shares[0]:.0%} (gpt2)",
                     copied_lstm_and_gpt(copier, shares[0], shares[-1]), HOLDS,
                     sizes_up_to(p["sizes"], copier.max_size), copier.max_size)]  # fmt: skip


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
    positives=copied_positives("raven_decoding", max, HOLDS),
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
    positives=copied_positives("raven_decoding", min, FAILS),
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
    positives=copied_positives("pure_decoding", min, FAILS),
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
    positives=copied_lstm_positives,
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
        a = (
            t[t["model"] == lstm]
            .set_index("n")
            .rename(
                columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"}
            )
        )
        b = (
            t[t["model"] == gpt]
            .set_index("n")
            .rename(
                columns={"novelty": "value", "novelty_lo": "value_lo", "novelty_hi": "value_hi"}
            )
        )
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
