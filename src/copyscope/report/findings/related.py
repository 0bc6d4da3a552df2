"""Related claims from outside the five papers that no paper module above decides: Lu et al.
2024's Creativity Index ("AI as Humanity's Salieri", ICLR 2025), with its null (halves of the
human words) and known positive (human words with a share of their spans copied). The other
related claims sit with the analysis they extend (Merrill et al.'s code, Carlini, Shi, Brown
and Xu, Chang): :data:`copyscope.report.findings.core.Claim.related` marks them all."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...stats import pooled_ratio_permutation_test, relative_excess
from .. import creativity as creativity_report
from ..creativity import text_table as creativity_texts
from .core import (
    FAILS,
    HOLDS,
    LU,
    NOVELTY_PERMUTATIONS,
    UNCLEAR,
    NotMeasured,
    NotTested,
    Null,
    Positive,
    Tables,
    ci,
    claim,
    decided,
    g,
    models_of,
    set_rows,
    source_rows,
)
from .data import HUMAN, Data, main_words, resample_windows, sizes_up_to, split_windows, take

CREATIVITY_BOOTSTRAP = 2000  # human-more-creative: resamples of the relative excess's interval


def human_halves_creativity(rng, data, params):
    """Two halves of the human continuations' words (main prompt length) as a model's pure
    samples and the human baseline, their per-text Creativity Index built by the creativity
    report's own builder (:func:`copyscope.report.creativity.text_table`): neither half is the
    more creative, so "holds" is false (and "does not hold", the paper's gap excluded, right)."""
    words = main_words(data, params)
    if words is None:
        return None
    a, b = split_windows(words["window"].to_numpy(), 2, rng)
    sets = [(*HUMAN, take(words, b)), ("null", params["findings"]["pure_decoding"], take(words, a))]
    plen = params["sampling"]["prompt_length"]
    return {"creativity_texts": creativity_report.text_table(sets, plen)}


def copied_words(words: pd.DataFrame, share: float, span: int, rng) -> pd.DataFrame:
    """A per-word frame (columns text, L_train, L_nat, in word order within a text) in which
    round(share · slots) of the ``span``-word slots (each text cut into whole slots from its
    start), drawn at random over all texts, are copied from training: the j-th word of a
    copied slot (j = 0..span−1) gets a longest match of at least j + 1 words in both columns
    (``max(L, j + 1)``), what a verbatim training span gives it against the index (the bound
    :func:`copyscope.report.findings.merrill.copier_set`'s test checks on a real index; the words before the slot can only
    lengthen the match)."""
    out = words.copy()
    texts = out["text"].to_numpy()
    starts = np.flatnonzero(np.r_[True, texts[1:] != texts[:-1]])
    ends = np.r_[starts[1:], len(texts)]
    slots = [
        s + k for s, e in zip(starts, ends, strict=True) for k in range(0, e - s - span + 1, span)
    ]
    chosen = rng.choice(len(slots), size=round(share * len(slots)), replace=False)
    ramp = np.arange(1, span + 1)
    for column in ("L_train", "L_nat"):
        if column not in out:
            continue
        L = out[column].to_numpy(np.int64).copy()
        for k in chosen:
            L[slots[k] : slots[k] + span] = np.maximum(L[slots[k] : slots[k] + span], ramp)
        out[column] = L
    return out


class CopiedWords:
    """The halves of the human continuations' words (main prompt length) the copied-words
    positive draws from: one copied at ``share`` (:func:`copied_words`), the other the human
    baseline."""

    def __init__(self, data: Data, params: Mapping, seed: int, share: float):
        p = params["findings"]["power"]
        words = data.words[data.words["prompt_length"] == params["sampling"]["prompt_length"]]
        words = words.sort_values(["text", "t"], kind="stable")
        a, b = split_windows(words["window"].to_numpy(), 2, np.random.default_rng([seed, 3]))
        self.human = words[words["window"].isin(b)]
        model = words[words["window"].isin(a)]
        self.model = copied_words(model, share, p["copier_span"], np.random.default_rng([seed, 4]))
        self.max_size = min(len(a), len(b))


def copied_vs_human(copied: CopiedWords):
    """Builder: ``size`` texts of the copied half as a model's pure samples against ``size``
    texts of the human half, each drawn with replacement."""

    def build(rng, data, params, size):
        sets = [
            ("human", "reference", resample_windows(copied.human, size, rng)),
            (
                "copier",
                params["findings"]["pure_decoding"],
                resample_windows(copied.model, size, rng),
            ),
        ]
        return {"creativity_texts": creativity_texts(sets, params["sampling"]["prompt_length"])}

    return build


def copied_word_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The copied words at the largest of ``findings.power.copier_shares`` as a model's pure
    samples against the human half (with RAVEN's training matches per word)."""
    if data.words is None or not {"L_train", "window"} <= set(data.words.columns):
        return []
    p = params["findings"]["power"]
    share = max(p["copier_shares"])
    copied = CopiedWords(data, params, p["seed"], share)
    if not copied.max_size:
        return []
    return [Positive(f"copied words {share:.0%}", copied_vs_human(copied), HOLDS,
                     sizes_up_to(p["sizes"], copied.max_size), copied.max_size)]  # fmt: skip


@claim(
    "human-more-creative",
    "Human text is more creative than model text: the Creativity Index (the share of a text's "
    "words in no span of at least L words found in the reference corpus, summed over L = "
    "5..12) of human authors is far higher than that of LLMs (66.2% higher on average)",
    LU,
    "abstract, §3 (human authors vs LLMs; 52.2% higher for novels, 31.1% for poetry, 115.3% "
    "for speeches, exact matches)",
    "professional human writing (novel snippets, modern poems, speech transcripts) against "
    "LLM text written for the same prompts by sampling (not greedy or beam search), both "
    "matched verbatim against web corpora (Dolma, RedPajama, the Pile) with the human texts' "
    "own exact copies removed from the corpus",
    ("creativity_texts",),
    "the {pure_decoding} samples of each model vs the true continuations of clean held-out "
    "windows (human/reference), main prompt length, Moses words matched against the "
    "{novelty_source} training text: the difference in mean Creativity Index (human minus "
    "model) tested by regrouping the two sets' texts (" + str(NOVELTY_PERMUTATIONS) + " "
    "random regroupings, sizes kept), one-sided at {alpha}/(2m) each way (Bonferroni over the "
    "m models decided); a model holds if the human text is higher, does not hold if the "
    "model's is higher, or if the 95% bootstrap interval of the human excess (human mean / "
    "model mean − 1) lies below the paper's smallest domain gap of {creativity_effect} "
    "(poetry), else inconclusive; not tested here without {pure_decoding} samples of kind "
    "sample (the paper compares sampled LLM text); the claim holds if every model holds, does "
    "not hold if every model does not",
    setting="copyscope's reference corpus is the models' own training split (the paper's is "
    "web text standing in for unknown training data), its human text held-out play "
    "continuations and its models small ones trained here, not instruction-tuned LLMs",
    related=True,
    nulls=(Null("human halves", human_halves_creativity, (HOLDS,)),),
    positives=copied_word_positives,
)
def human_more_creative(tables: Tables, params: Mapping):
    """Lu et al. (2024): human authors' Creativity Index is far higher than LLMs'."""
    f = params["findings"]
    decoding = f["pure_decoding"]
    spec = params["sampling"]["decodings"].get(decoding, {})
    t = tables["creativity_texts"]
    t = source_rows(t, f["novelty_source"])
    if not len(t):
        raise NotMeasured("no texts in creativity_texts")
    if spec.get("kind") != "sample" or not (t["decoding"] == decoding).any():
        raise NotTested(
            f"no {decoding} samples of kind sample in creativity_texts: Lu et al. compare "
            "sampled LLM text with human writing, and constrained decoding (greedy, beam) "
            "copies more"
        )
    human = set_rows(t, "human", "reference")["index"].to_numpy(float)
    if not len(human):
        raise NotMeasured("no human/reference texts in creativity_texts")
    sets = [(m, set_rows(t, m, decoding)["index"].to_numpy(float)) for m in models_of(t)]
    sets = [(m, x) for m, x in sets if len(x)]
    level = f["alpha"] / (2 * max(1, len(sets)))
    parts, verdicts, models = [], [], []
    for model, x in sets:
        _, up, down = pooled_ratio_permutation_test(
            human[:, None], np.ones((len(human), 1)), x[:, None], np.ones((len(x), 1)),
            draws=NOVELTY_PERMUTATIONS, seed=f["permutation_seed"],
        )  # fmt: skip
        up, down = float(up[0]), float(down[0])
        excess = relative_excess(human, x, CREATIVITY_BOOTSTRAP, f["permutation_seed"])
        below = np.isfinite(excess[2]) and excess[2] < f["creativity_effect"]
        verdict = HOLDS if up < level else FAILS if down < level or below else UNCLEAR
        parts.append(
            f"{model} {decoding}: index {g(x.mean())} vs human {g(human.mean())} ({len(x)} vs "
            f"{len(human)} texts), human excess {ci(excess)}, regrouping p↑ = {g(up)}, p↓ = "
            f"{g(down)} against {g(level)} → {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, f"no model with {decoding} samples", models)
