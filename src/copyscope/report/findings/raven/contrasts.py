"""McCoy et al. 2023 (RAVEN), supplementary materials: the two rows read from the RAVEN
contrasts (``raven_contrasts``): prompt length has no clear effect (``prompt-length-no-effect``)
and counting training-only duplication barely changes the results (``train-vs-union``), each
with its nulls (halves of the human continuations; an effect of exactly the margin planted)
and known answers (no effect; twice the margin planted)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ... import raven as raven_report
from ..core import (
    FAILS,
    HOLDS,
    RAVEN,
    Null,
    Positive,
    Tables,
    ci,
    ci_of,
    claim,
    decided,
    equivalence_verdict,
)
from ..data import Data, NullBuilder, main_words, resample_windows, sizes_up_to, split_windows, take
from .ngrams import RAVEN_NGRAM


def prompt_length_halves(rng, data, params, effect: float, size: int | None = None):
    """Two halves of the human continuations (main prompt length) as one set sampled at two
    prompt lengths: half B at the main length, half A, paired window by window with B, at
    another one (``size`` pairs drawn without replacement, or all of them); every truncated
    score of A lowered by ``effect`` × ``findings.prompt_length_margin`` (A's scores replaced
    by min(score, 5) − that, which RAVEN's truncation leaves alone). The contrast is built by
    the RAVEN report's own builder (:func:`copyscope.report.raven.contrasts`); None without
    the human words."""
    words = main_words(data, params)
    if words is None:
        return None
    main, f = params["sampling"]["prompt_length"], params["findings"]
    a, b = split_windows(words["window"].to_numpy(), 2, rng)
    k = min(len(a), len(b))
    a, b = a[:k], b[:k]
    if size is not None and size < k:
        pick = np.sort(rng.choice(k, size=size, replace=False))
        a, b = a[pick], b[pick]
    pair = dict(zip(a, b, strict=True))
    other = take(words, a).copy()
    other["window"] = other["window"].map(pair)
    other["prompt_length"] = main + 1
    if effect:
        cut = np.minimum(other["s_union"].to_numpy(float), 5)
        other["s_union"] = cut - effect * f["prompt_length_margin"]
    frame = pd.concat([take(words, b), other], ignore_index=True)
    sets = [("null", f["pure_decoding"], frame)]
    return {"raven_contrasts": raven_report.contrasts(sets, params["novelty"], params["sampling"])}


def human_halves_prompt_length(shift: bool) -> NullBuilder:
    """The null of :func:`prompt_length_halves` on all windows: with ``shift`` prompt length
    has an effect of exactly the margin, the least favourable case of the claimed absence, so
    ``holds`` is the false verdict; without it the effect is 0 and ``does not hold`` is."""

    def build(rng, data, params):
        return prompt_length_halves(rng, data, params, 1.0 if shift else 0.0)

    return build


def halves_with_effect(effect: float):
    """Builder: :func:`prompt_length_halves` of ``size`` pairs with ``effect`` × the margin."""

    def build(rng, data, params, size):
        return prompt_length_halves(rng, data, params, effect, size)

    return build


def scored_words(data: Data, params: Mapping) -> pd.DataFrame | None:
    """The human words at the main prompt length with RAVEN's union scores (None without)."""
    words = main_words(data, params)
    return words if words is not None and {"window", "s_union"} <= set(words.columns) else None


def pairs_of(data: Data, params: Mapping) -> int:
    """How many window pairs the human words' halves give (0 without them)."""
    words = scored_words(data, params)
    return 0 if words is None else len(np.unique(words["window"].to_numpy())) // 2


def prompt_length_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """Known answers of the equivalence rule: the human halves as two prompt lengths with no
    effect (the claim true: holds) and with an effect of twice the margin (does not hold)."""
    k = pairs_of(data, params)
    if k < 2:
        return []
    sizes = sizes_up_to(params["findings"]["power"]["sizes"], k)
    return [Positive("human halves, no effect", halves_with_effect(0.0), HOLDS, sizes, k),
            Positive("human halves, effect = 2 × margin", halves_with_effect(2.0), FAILS, sizes,
                     k)]  # fmt: skip


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
    positives=prompt_length_positives,
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


def context_effect(rng, data, params, effect: float, size: int | None = None):
    """The human continuations (main prompt length; ``size`` windows drawn with replacement,
    or all of them) as the pure samples of one model (one set: the rule's "every interval
    within the margin" is easiest to meet with one), with a context effect of ``effect`` ×
    ``findings.source_margin`` planted: each word's training-only score is its truncated union
    score, lowered by one for a random share of the words (by max(1, 2·margin·effect) for a
    share margin·effect / that step, so the mean union − train difference is margin·effect).
    Contrasts by :func:`copyscope.report.raven.contrasts`; None without the human words."""
    words = main_words(data, params)
    if words is None:
        return None
    if size is not None:
        words = resample_windows(words, size, rng)
    f = params["findings"]
    target = effect * f["source_margin"]
    step = max(1.0, 2 * target)
    union = np.minimum(words["s_union"].to_numpy(float), 5)
    hit = rng.random(len(union)) < target / step
    frame = words.assign(s_union=union, s_train=union - step * hit)
    sets = [("null", f["pure_decoding"], frame)]
    return {"raven_contrasts": raven_report.contrasts(sets, params["novelty"], params["sampling"])}


def planted_context(rng, data, params):
    """The null of :func:`context_effect` on all windows with a context effect of exactly
    ``findings.source_margin``: the least favourable case of "barely changes", where
    ``holds`` is the false verdict."""
    return context_effect(rng, data, params, 1.0)


def context_with_effect(effect: float):
    """Builder: :func:`context_effect` of ``size`` windows with ``effect`` × the margin."""

    def build(rng, data, params, size):
        return context_effect(rng, data, params, effect, size)

    return build


def context_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """Known answers of the equivalence rule: the human continuations with a context effect
    of half the margin (holds: "barely changes"; with none at all every difference is 0 and
    the rule could not miss) and of twice the margin (does not hold)."""
    words = scored_words(data, params)
    if words is None:
        return []
    n = len(np.unique(words["window"].to_numpy()))
    sizes = sizes_up_to(params["findings"]["power"]["sizes"], n)
    return [Positive("context effect = margin / 2", context_with_effect(0.5), HOLDS, sizes, n),
            Positive("context effect = 2 × margin", context_with_effect(2.0), FAILS, sizes, n)]  # fmt: skip


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
    positives=context_positives,
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
