"""McCoy et al. 2023 (RAVEN) §7, Tables 2–4: the novel-words row
(``novel-words-well-formed``): a model's novel words are well-formed nearly as often as the
human baseline's; its nulls (halves of the human texts, one with an effect of exactly the
margin) and its known positive (pairs of words run together)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ....stats import newcombe
from ... import novel_words as novel_words_report
from ..core import (
    FAILS,
    HOLDS,
    RAVEN,
    NotMeasured,
    NotTested,
    Null,
    Positive,
    Tables,
    ci,
    claim,
    decided,
    effect_verdict,
    models_of,
    set_rows,
)
from ..data import HUMAN, Data, NullBuilder, sizes_up_to, split_windows


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
            beside = f" ({f['pure_decoding']}: {int(p['well_formed'])}/{int(p['novel_types'])})"
        parts.append(
            f"{model} {f['raven_decoding']}: {k}/{n} novel types well-formed vs human "
            f"{kh}/{nh}, difference {ci(d)}{beside} → {verdict}"
        )
        verdicts.append(verdict)
        names.append(model)
    return decided(parts, verdicts, f"no {f['raven_decoding']} set with novel words", names)
