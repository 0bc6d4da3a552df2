"""McCoy et al. 2023 (RAVEN), supplementary materials: the two rows read from the RAVEN
contrasts (``raven_contrasts``): prompt length has no clear effect (``prompt-length-no-effect``)
and counting training-only duplication barely changes the results (``train-vs-union``), each
with its nulls (halves of the human continuations; an effect of exactly the margin planted)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ... import raven as raven_report
from ..core import FAILS, HOLDS, RAVEN, Null, Tables, ci, ci_of, claim, decided, equivalence_verdict
from ..data import NullBuilder, main_words, split_windows, take
from .ngrams import RAVEN_NGRAM


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
