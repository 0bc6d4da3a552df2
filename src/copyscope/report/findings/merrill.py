"""Merrill, Smith & Elazar 2024, "Evaluating n-Gram Novelty of Language Models Using
Rusty-DAWG" (EMNLP): the claims on n-gram novelty against the training data and the
validation text, and on the completion loss (with the authors' analysis code's loss by
training frequency, a related claim). Each claim: its statement, rule and decision, its nulls
(halves and parts of the human continuations, permuted in-training labels, shuffled counts)
and its known positives (the copier sets: human continuations with a share of their spans
copied from training documents)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...novelty.metrics import FREQUENCY_LENGTHS, completion_aggregate, completion_frame
from ...stats import pooled_ratio_interval, sign_test, within, z_signs
from .. import completion_loss as completion_report
from .. import family, per_text
from .. import novelty as novelty_report
from .core import (
    FAILS,
    HOLDS,
    MERRILL,
    NOVELTY_PERMUTATIONS,
    UNCLEAR,
    ZERO,
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
    enough_rows,
    g,
    main_rows,
    model_size,
    models_of,
    novelty_vs_human,
    p_verdict,
    per_model,
    set_rows,
    source_rows,
    token_ns,
    trend_verdict,
)
from .data import (
    HUMAN,
    STATE,
    Data,
    NullBuilder,
    first_decoding,
    natural_tokens,
    resample_windows,
    sizes_up_to,
    split_windows,
    take,
)

MERRILL_PURE = (
    "Pythia 70M–12B trained on the Pile; pure (naive) sampling, 1,000 new tokens; baseline: the "
    "Pile's validation text, which duplicates training n-grams (less novel than the no-"
    "duplication lower bound for n > 20); n = 1..100"
)


def novelty_nulls(
    sets: list[tuple[str, str, pd.DataFrame]],
    data: Data,
    params: Mapping,
    sources: tuple[str, ...] = ("all", "natural"),
    full: bool = False,
) -> Tables:
    """novelty_samples, nnsl_samples and novelty_texts of the given (model, decoding, tokens)
    sets, built by the novelty report's builders, for ``sources`` (the ones the claim reads);
    up to ``findings.n_max``, or with ``full`` up to ``novelty.n_max`` (the workflow's)."""
    sizes = {m: data.corpus_size for m, _, _ in sets}
    f = params["findings"]
    # most rules read novelty(n) up to findings.n_max only; the bootstrap resamples whole
    # texts, so the curve's first n_max points and their intervals are those of the full curve
    n_max = params["novelty"]["n_max"] if full else min(params["novelty"]["n_max"], f["n_max"])
    novelty = {**params["novelty"], "n_max": n_max}
    sets = [(m, d, natural_tokens(t)) for m, d, t in sets]
    curves, nnsl = novelty_report.build(
        sets, sizes, novelty, params["sampling"]["decodings"], sources=sources
    )
    texts = novelty_report.text_novelty_table(sets, params["sampling"], novelty["n_max"], sources)
    return {"novelty_samples": curves, "nnsl_samples": nnsl, "novelty_texts": texts}


def human_halves(sets_of, all_text: bool = False, full: bool = False) -> NullBuilder:
    """A null of two halves of the human continuations (model tokens): ``sets_of(a, b,
    params)`` deals the halves' tokens into the claim's (model, decoding, tokens) sets (None:
    no such null in this run); matched against all training text with ``all_text``, else
    ``findings.novelty_source``'s; the whole curves with ``full`` (:func:`novelty_nulls`)."""

    def build(rng, data, params):
        if data.tokens is None:
            return None
        f = params["findings"]
        a, b = split_windows(data.tokens["window"].to_numpy(), 2, rng)
        sets = sets_of(take(data.tokens, a), take(data.tokens, b), params)
        if sets is None:
            return None
        source = "all" if all_text else f["novelty_source"]
        return novelty_nulls(sets, data, params, (source,), full)

    return build


def pure_half(ta, tb, params):
    """Half A as a model's pure samples, half B as the human baseline."""
    return [(*HUMAN, tb), ("null", params["findings"]["pure_decoding"], ta)]


def pure_half_contaminated(ta, tb, params):
    """Half A as a model's pure samples, half B as both human baselines (clean and
    contaminated)."""
    return [(*HUMAN, tb), ("human", "contaminated", tb),
            ("null", params["findings"]["pure_decoding"], ta)]  # fmt: skip


def sized_halves(ta, tb, params):
    """The halves as the pure samples of the smallest and the largest gpt2 model of the zoo
    (None without two sizes)."""
    zoo, pure = params["models"]["zoo"], params["findings"]["pure_decoding"]
    sized = sorted((model_size(s), m) for m, s in zoo.items() if model_size(s))
    if len(sized) < 2 or sized[0][0] == sized[-1][0]:
        return None
    return [(sized[0][1], pure, ta), (sized[-1][1], pure, tb)]


def constrained_half(ta, tb, params):
    """Half A as a model's first greedy or beam decoding, half B as the human baseline (None
    without such a decoding)."""
    dec = first_decoding(params, ("greedy", "beam"))
    return None if dec is None else [(*HUMAN, tb), ("null", dec, ta)]


def copier_set(
    continuations: list[np.ndarray],
    documents: list[np.ndarray],
    share: float,
    span: int,
    rng: np.random.Generator,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Copies of ``continuations`` in which round(share · slots) of the ``span``-token slots
    (each continuation cut into whole slots from its start, a shorter rest never copied),
    drawn at random over all continuations, are replaced by a random ``span``-token span of a
    random training document (of at least ``span`` tokens). Returns the texts and, per text,
    a boolean mask of the copied tokens."""
    long_docs = [d for d in documents if len(d) >= span]
    if not long_docs:
        raise ValueError(f"no training document has {span} tokens")
    slots = [(i, s) for i, c in enumerate(continuations) for s in range(0, len(c) - span + 1, span)]
    chosen = rng.choice(len(slots), size=round(share * len(slots)), replace=False)
    texts = [np.array(c, copy=True) for c in continuations]
    masks = [np.zeros(len(c), dtype=bool) for c in continuations]
    for k in np.sort(chosen):
        i, s = slots[k]
        doc = long_docs[rng.integers(len(long_docs))]
        start = rng.integers(len(doc) - span + 1)
        texts[i][s : s + span] = doc[start : start + span]
        masks[i][s : s + span] = True
    return texts, masks


def copier_tokens(texts: list[np.ndarray], windows: np.ndarray, index, plen: int) -> pd.DataFrame:
    """Per-token L_t of the copier texts matched against ``index`` (the frame the novelty
    builder reads: text, window, prompt_length, t, id, L, C, and L_nat = L)."""
    m = index.longest_matches(texts)
    parts = []
    for i, (text, w) in enumerate(zip(texts, windows, strict=True)):
        L, C = m[i]
        parts.append(
            pd.DataFrame(
                {"text": i, "window": w, "prompt_length": plen, "t": np.arange(len(text)),
                 "id": text, "L": L, "C": C, "L_nat": L}
            )
        )  # fmt: skip
    return pd.concat(parts, ignore_index=True)


class Copier:
    """The copier sets of one run: one per share, built from half of the human windows; the
    other half is the human baseline."""

    def __init__(self, data: Data, index, params: Mapping, seed: int):
        p = params["findings"]["power"]
        plen = params["sampling"]["prompt_length"]
        tok = data.tokens[data.tokens["prompt_length"] == plen]
        rng = np.random.default_rng([seed, 1])
        windows = rng.permutation(np.unique(tok["window"].to_numpy()))
        self.human_windows = np.sort(windows[1::2])
        copy_windows = np.sort(windows[::2])
        # the copier is matched against the whole training split, so both sides use L_t of it
        # for either source (a copied span may come from planted text)
        self.human = tok[tok["window"].isin(self.human_windows)].assign(L_nat=lambda t: t["L"])
        src = tok[tok["window"].isin(copy_windows)]
        conts = [g["id"].to_numpy() for _, g in src.groupby("window", sort=True)]
        docs = [index.document(d) for d in range(min(int(index.manifest["n_docs"]), 10_000))]
        self.sets, self.masks = {}, {}
        for share in p["copier_shares"]:
            texts, masks = copier_set(conts, docs, share, p["copier_span"], rng)
            self.sets[share] = copier_tokens(texts, np.sort(copy_windows), index, plen)
            self.masks[share] = masks
        self.max_size = min(len(copy_windows), len(self.human_windows))


def copier_vs_human(copier: Copier, share: float):
    """Builder: the copier of ``share`` as a model's pure sampling vs the human half."""

    def build(rng, data, params, size):
        f = params["findings"]
        sets = [
            ("human", "reference", resample_windows(copier.human, size, rng)),
            ("copier", f["pure_decoding"], resample_windows(copier.sets[share], size, rng)),
        ]
        return novelty_nulls(sets, data, params, (f["novelty_source"],))

    return build


def copier_of(data, index, params: Mapping, shared: dict) -> Copier | None:
    """The run's :class:`Copier` (built once, kept in ``shared``); None without the human
    reference's tokens or the index."""
    if data.tokens is None or index is None:
        return None
    if "copier" not in shared:
        shared["copier"] = Copier(data, index, params, params["findings"]["power"]["seed"])
    return shared["copier"]


def copier_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """One copier per ``findings.power.copier_shares`` as a model's pure samples against the
    human half: less novel, so "more novel than validation text" must not hold."""
    copier = copier_of(data, index, params, shared)
    if copier is None:
        return []
    p = params["findings"]["power"]
    sizes = sizes_up_to(p["sizes"], copier.max_size)
    return [Positive(f"copier {share:.0%}", copier_vs_human(copier, share), FAILS, sizes,
                     copier.max_size) for share in sorted(p["copier_shares"])]  # fmt: skip


def sized_copier_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The copier of the smallest share as the smaller, and of the largest share as the larger
    of two models (with two shares or more): the larger copies more, so must be less novel."""
    copier = copier_of(data, index, params, shared)
    p = params["findings"]["power"]
    shares = sorted(p["copier_shares"])
    if copier is None or len(shares) < 2:
        return []
    return [Positive(f"copier {shares[0]:.0%} vs {shares[-1]:.0%}",
                     copier_sizes(copier, shares[0], shares[-1]), HOLDS,
                     sizes_up_to(p["sizes"], copier.max_size), copier.max_size)]  # fmt: skip


def copier_sizes(copier: Copier, low: float, high: float):
    """Builder: the copier of share ``low`` as the smaller and ``high`` as the larger of the
    two extreme gpt2 models of the zoo, both as pure sampling."""

    def build(rng, data, params, size):
        f, zoo = params["findings"], params["models"]["zoo"]
        sized = sorted((model_size(s), m) for m, s in zoo.items() if model_size(s))
        if len(sized) < 2 or sized[0][0] == sized[-1][0]:
            return None
        sets = [
            (sized[0][1], f["pure_decoding"], resample_windows(copier.sets[low], size, rng)),
            (sized[-1][1], f["pure_decoding"], resample_windows(copier.sets[high], size, rng)),
        ]
        return novelty_nulls(sets, data, params, (f["novelty_source"],))

    return build


@claim(
    "pure-more-novel-than-validation",
    "With pure sampling, LM text is more novel than held-out validation text at every n",
    MERRILL,
    "Fig. 1 (left), §3",
    MERRILL_PURE,
    ("novelty_samples", "novelty_texts"),
    "pure sampling ({pure_decoding}) of each model vs the true continuations of clean held-out "
    "windows (human/reference), main prompt length, model tokens, matched against the "
    "{novelty_source} training text: at each n in 2..{n_max} (n = 1 of BPE tokens is left out: "
    "every token occurs in the training text its tokenizer was fit on) the difference in pooled "
    "novelty(n) is tested by regrouping the two sets' texts (" + str(NOVELTY_PERMUTATIONS) + " "
    "random regroupings, sizes kept; two-sided, all n of all models at once, Bonferroni over "
    "every model's n's, α = {alpha}); a model holds if it is above at some n and below at none, "
    "does not hold if it is below at some n (an interval excluding 'more novel' there), else "
    "inconclusive; the claim holds if every model holds, does not hold if every model does not",
    setting="copyscope's held-out plays are clean (they share no planted or split-crossing "
    "text with training), unlike the Pile's validation set: the authors' own explanation "
    "predicts that pure samples are NOT more novel than a clean baseline, so 'does not hold' "
    "here is the explanation's prediction (next row: the contaminated baseline)",
    nulls=(Null("human halves", human_halves(pure_half)),),
    positives=copier_positives,
)
def pure_more_novel_than_validation(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 1 (left): pure samples are more novel than validation text."""
    f = params["findings"]
    t = main_rows(source_rows(tables["novelty_samples"], f["novelty_source"]), params)
    counts = source_rows(tables["novelty_texts"], f["novelty_source"])
    parts, verdicts, models = novelty_vs_human(
        t, counts, params, [f["pure_decoding"]], token_ns(f["n_max"]), 1
    )
    return decided(parts, verdicts, "no pure-sampling rows at the main prompt length", models)


@claim(
    "pure-vs-contaminated-baseline",
    "The authors' explanation of Fig. 1: validation text that duplicates training n-grams is "
    "less novel than pure samples, so against a contaminated held-out baseline pure samples "
    "are more novel at every n",
    MERRILL,
    "§3 (on Fig. 1 left)",
    MERRILL_PURE,
    ("novelty_samples", "novelty_texts"),
    "as the row above, against the true continuations of windows from held-out plays whose "
    "excerpts are planted in training (human/contaminated, corpus.inject.excerpts), matched "
    "against all training text (planted included); holds if every model is above at some n in "
    "2..{n_max} and below at none, does not hold if every model is below at some n; the clean "
    "baseline's comparison is reported beside it",
    setting="the contamination is planted (a share of the speeches of a few held-out plays, "
    "copied 1–16 times), not the Pile's natural train–validation overlap",
    nulls=(Null("human halves", human_halves(pure_half_contaminated, all_text=True)),),
)
def pure_vs_contaminated_baseline(tables: Tables, params: Mapping):
    """Merrill et al. 2024 §3: the order of pure samples and validation text depends on the
    validation text duplicating training n-grams."""
    f = params["findings"]
    t = main_rows(source_rows(tables["novelty_samples"], "all"), params)
    counts = source_rows(tables["novelty_texts"], "all")
    ns, pure = token_ns(f["n_max"]), [f["pure_decoding"]]
    parts, verdicts, models = novelty_vs_human(t, counts, params, pure, ns, 1, human="contaminated")
    try:
        clean, _, _ = novelty_vs_human(t, counts, params, pure, ns, 1)
        parts += [f"[clean baseline, all text: {p}]" for p in clean]
    except NotMeasured:
        pass
    return decided(parts, verdicts, "no human/contaminated or no pure-sampling rows", models)


LOWER_BOUND_N_MIN = 21
"""The smallest n of the lower-bound diagnostic: Merrill et al. (§3, Fig. 1 left) find the
Pile's validation text less novel than the no-duplication lower bound "for n > 20"."""
LOWER_BOUND_DRAWS = 10_000
"""Bootstrap resamples of the texts behind each interval of the lower-bound row: its
Bonferroni level over some 80 n's puts each tail at about 3 · 10⁻⁴, which 1,000 resamples
cannot resolve."""


def bound_sides(texts: pd.DataFrame, bound: Mapping[int, float], alpha: float, seed: int):
    """Where one set's pooled novelty(n) lies against the lower bound ``bound`` (n → LB(n)):
    n → −1 (below: the interval's upper end < LB(n)), +1 (at or above: its lower end ≥
    LB(n), the interval excludes "below"), 0 (neither), with the point and the interval per n.
    The intervals are percentile bootstraps over the texts
    (:func:`copyscope.stats.pooled_ratio_interval`, :data:`LOWER_BOUND_DRAWS` resamples seeded
    with ``seed``, the texts' ``novel_<n>`` / ``ngrams_<n>`` counts) at the Bonferroni level
    over the n's (each side at ``alpha`` / (2 · n's)); an n without n-grams is left out."""
    ns = [n for n in sorted(bound) if f"novel_{n}" in texts and texts[f"ngrams_{n}"].sum() > 0]
    if not ns:
        return {}, {}
    novel = texts[[f"novel_{n}" for n in ns]].to_numpy(float)
    total = texts[[f"ngrams_{n}" for n in ns]].to_numpy(float)
    lo, hi = pooled_ratio_interval(
        novel, total, n_boot=LOWER_BOUND_DRAWS, seed=seed, level=1 - alpha / len(ns)
    )
    point = novel.sum(0) / total.sum(0)
    sides = {n: -1 if h < bound[n] else 1 if lo_ >= bound[n] else 0
             for n, lo_, h in zip(ns, lo, hi, strict=True)}  # fmt: skip
    values = {n: (p, lo_, h) for n, p, lo_, h in zip(ns, point, lo, hi, strict=True)}
    return sides, values


def spans(ns) -> str:
    """A set of n as runs: ``{}``, ``{21–40, 45}``."""
    runs: list[list[int]] = []
    for n in sorted(int(n) for n in ns):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return "{" + ", ".join(f"{a}–{b}" if b > a else str(a) for a, b in runs) + "}"


def _bound_part(label: str, sides: dict, values: dict, bound: Mapping[int, float]) -> str:
    n0 = min(values)
    below = [n for n, s in sides.items() if s < 0]
    above = [n for n, s in sides.items() if s > 0]
    return (
        f"{label}: novelty({n0}) {ci(values[n0])} vs LB({n0}) = {bound[n0]:.6f}; below the "
        f"bound at n ∈ {spans(below)}, at or above it at n ∈ {spans(above)} of {len(sides)} n's"
    )


def contaminated_half(ta, tb, params):
    """Half A (clean held-out text: nothing of it is planted) as the contaminated held-out set
    (human/contaminated), half B as the clean one."""
    return [(*HUMAN, tb), ("human", "contaminated", ta)]


def copier_as_contaminated(copier: Copier, share: float):
    """Builder: the copier of ``share`` as the contaminated held-out set (human/contaminated)
    beside the human half as the clean one, matched against all training text, whole curves."""

    def build(rng, data, params, size):
        sets = [
            ("human", "reference", resample_windows(copier.human, size, rng)),
            ("human", "contaminated", resample_windows(copier.sets[share], size, rng)),
        ]
        return novelty_nulls(sets, data, params, ("all",), full=True)

    return build


def lower_bound_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The copier of the smallest of ``findings.power.copier_shares`` (the least copying: the
    hardest of them; one, as each draw builds whole curves) as the contaminated held-out set:
    its copied spans (``findings.power.copier_span`` tokens, more than 20) occur in training,
    so it must be below the lower bound at some n > 20 (spans shorter than 21 tokens cannot
    be: no positive then)."""
    p = params["findings"]["power"]
    if p["copier_span"] < LOWER_BOUND_N_MIN:
        return []
    copier = copier_of(data, index, params, shared)
    if copier is None:
        return []
    share = min(p["copier_shares"])
    return [Positive(f"copier {share:.0%}", copier_as_contaminated(copier, share), HOLDS,
                     sizes_up_to(p["sizes"], copier.max_size), copier.max_size)]  # fmt: skip


@claim(
    "validation-below-lower-bound",
    "Held-out text that duplicates training n-grams is less novel than the no-duplication "
    "lower bound at large n (n > 20): the bound diagnoses overlap between the splits",
    MERRILL,
    "§3 (Fig. 1 left, the lower bound)",
    "the Pile's validation split against its training split (Pythia's tokens); LB(n) = "
    "max(0, 1 − |C|·2^(n·(log2 p − ℓ))) with p = 0.9, ℓ = 1.8 bits per token; the validation "
    "text lies below it for n > 20",
    ("novelty_samples", "novelty_texts"),
    "the true continuations of windows from held-out plays whose excerpts are planted in "
    "training (human/contaminated, corpus.inject.excerpts), main prompt length, model tokens, "
    "matched against all training text (planted included), at each n from "
    + str(LOWER_BOUND_N_MIN)
    + " to the curves' largest: pooled novelty(n) with its percentile bootstrap interval over "
    "texts (" + f"{LOWER_BOUND_DRAWS:,}" + " resamples; Bonferroni over the n's, each side at "
    "{alpha}/(2·n's)) against the table's LB(n) (novelty.lower_bound, |C| the index's tokens); "
    "holds if the interval lies below LB(n) at some n, does not hold if it lies at or above "
    "LB(n) at every n (no n > 20 at which the text could be below the bound), else "
    "inconclusive; the clean held-out windows (human/reference) are reported beside it, the "
    "text the bound must not flag",
    setting="the overlap is planted (a share of the speeches of a few held-out plays, copied "
    "1–16 times), not the Pile's natural duplication between its splits; for a corpus of about "
    "a million tokens LB(n) ≈ 1 from n ≈ 15 on, so \"below the bound\" says that some n-grams "
    "of length n occur in training",
    nulls=(Null("human halves", human_halves(contaminated_half, all_text=True, full=True),
                (HOLDS,)),),  # fmt: skip
    positives=lower_bound_positives,
)
def validation_below_lower_bound(tables: Tables, params: Mapping):
    """Merrill et al. 2024 §3: the Pile's validation text is less novel than the
    no-duplication lower bound for n > 20, which the authors read as duplication between the
    Pile's splits. Known answer here: the held-out plays whose excerpts are planted."""
    f = params["findings"]
    t = main_rows(source_rows(tables["novelty_samples"], "all"), params)
    counts = source_rows(tables["novelty_texts"], "all")
    counts = counts[counts["model"] == "human"]
    if "lower_bound" not in t.columns:
        raise NotMeasured("no lower_bound column in novelty_samples")
    if not len(set_rows(t, "human", "contaminated")) or not len(
        set_rows(counts, "human", "contaminated")
    ):
        if len(set_rows(t, *HUMAN)):
            raise NotTested(
                "no held-out text shares n-grams with training (no human/contaminated set: "
                "corpus.inject.excerpts plants nothing), the condition the bound diagnoses"
            )
        raise NotMeasured("no human sets in the novelty tables")
    parts, verdict = [], UNCLEAR
    for decoding in ("contaminated", "reference"):
        rows = set_rows(t, "human", decoding)
        bound = {int(n): float(b) for n, b in zip(rows["n"], rows["lower_bound"], strict=True)
                 if n >= LOWER_BOUND_N_MIN}  # fmt: skip
        sides, values = bound_sides(
            set_rows(counts, "human", decoding), bound, f["alpha"], f["permutation_seed"]
        )
        if not sides:
            if decoding == "contaminated":
                raise NotMeasured(f"no novelty(n) of human/contaminated at n ≥ {LOWER_BOUND_N_MIN}")
            continue
        part = _bound_part(f"human/{decoding}", sides, values, bound)
        if decoding == "contaminated":
            s = set(sides.values())
            verdict = HOLDS if -1 in s else FAILS if s == {1} else UNCLEAR
            parts.append(f"{part} → {verdict}")
        else:
            parts.append(f"[clean baseline {part}]")
    return "; ".join(parts), verdict


@claim(
    "larger-less-novel",
    "Larger models generate less novel text than smaller ones (same decoding)",
    MERRILL,
    "Fig. 1 (left)",
    "Pythia 70M, 160M, 410M, 1B, 1.4B, 2.8B, 6.9B, 12B (one training run on the Pile); pure "
    "sampling",
    ("nnsl_samples",),
    "pure sampling ({pure_decoding}), main prompt length, {novelty_source} training text; the "
    "gpt2 models of models.zoo ordered by 12·n_layer·n_embd² (other kinds are not compared): "
    "for each pair of consecutive sizes, holds if the larger model's mean L_t 95% CI lies above "
    "the smaller's (less novel), does not hold if below, else inconclusive; the claim holds if "
    "every pair holds",
    setting="two GPT-2 sizes two orders of magnitude smaller than Pythia's, trained on ~1M "
    "tokens; McCoy et al. (RAVEN §5, Fig. 3) found the size effect inconsistent across GPT-2 "
    "sizes",
    nulls=(Null("human halves", human_halves(sized_halves)),),
    positives=sized_copier_positives,
)
def larger_less_novel(tables: Tables, params: Mapping):
    """Merrill et al. 2024: larger LMs generate less novel text (higher mean L_t)."""
    f = params["findings"]
    t = enough_rows(
        main_rows(source_rows(tables["nnsl_samples"], f["novelty_source"]), params), params
    )
    t = t[t["decoding"] == f["pure_decoding"]].rename(columns={"mean_nnsl": "value", "mean_nnsl_lo": "value_lo", "mean_nnsl_hi": "value_hi"})
    zoo = params["models"]["zoo"]
    sized = sorted(
        (model_size(zoo[m]), m) for m in models_of(t) if m in zoo and model_size(zoo[m]) is not None
    )
    pairs = [(a, b) for a, b in itertools.pairwise(sized) if b[0] > a[0]]
    if not pairs:
        raise NotMeasured("fewer than two gpt2 models of different sizes with pure sampling")
    row = {m: t[t["model"] == m].iloc[0] for _, m in sized}
    parts, verdicts, labels = [], [], []
    for (_, small), (_, large) in pairs:
        s = compare(ci_of(row[large]), ci_of(row[small]))
        verdicts.append(HOLDS if s > 0 else FAILS if s < 0 else UNCLEAR)
        labels.append(f"{large} vs {small}")
        parts.append(
            f"mean L_t {large} {ci(ci_of(row[large]))} vs {small} {ci(ci_of(row[small]))} "
            f"→ {verdicts[-1]}"
        )
    return decided(parts, verdicts, "no pair of sizes", labels)


CONSTRAINT = {"temperature": "temperature", "top-k": "top_k", "top-p": "top_p"}
"""Sampling family → its parameter (a smaller value constrains the decoding more)."""


UNCONSTRAINED = {"temperature": 1.0, "top_k": math.inf, "top_p": 1.0}
"""The value of each parameter that pure sampling has."""


def _constraint_parts(rows: pd.DataFrame, params: Mapping):
    """(text, verdict) per decoding family of one model's rows (``value`` = mean L_t), after
    (pure sampling's mean L_t, None) when the model has pure sampling."""
    f = params["findings"]
    decodings = params["sampling"]["decodings"]
    pure = rows[rows["decoding"] == f["pure_decoding"]]
    parts = []
    for fam, key in CONSTRAINT.items():
        sub = rows[rows["family"] == fam]
        if not len(sub) or not len(pure):
            continue
        pts = pd.concat([sub, pure.iloc[:1]])
        pts["x"] = [
            UNCONSTRAINED[key] if d == f["pure_decoding"] else float(decodings[d][key])
            for d in pts["decoding"]
        ]
        if len(pts) < f["trend_min_points"]:
            continue  # two points give ρ = ±1 whatever they are: no trend is decided
        verdict, rho = trend_verdict(pts, "x", -1, f["rho_min"], f["trend_min_points"])
        parts.append((f"{fam} ρ = {g(rho)} ({len(pts)} decodings) → {verdict}", verdict))
    for fam in ("greedy", "beam"):
        for _, r in rows[rows["family"] == fam].iterrows():
            if len(pure):
                s = compare(ci_of(r), ci_of(pure.iloc[0]))
                verdict = HOLDS if s > 0 else FAILS if s < 0 else UNCLEAR
                parts.append((f"{r['decoding']} {ci(ci_of(r))} → {verdict}", verdict))
    if len(pure):
        parts.insert(0, (f"pure {ci(ci_of(pure.iloc[0]))}", None))
    return parts


def human_parts_constrained(rng, data, params):
    """As many parts of the human continuations as a model has decodings in the
    constrained-decoding rule (pure sampling, the temperature family, greedy, beam): the parts
    play the decodings of one model."""
    if data.tokens is None:
        return None
    decodings = params["sampling"]["decodings"]
    names = [
        d for d in decodings if family(d, decodings) in ("pure", "temperature", "greedy", "beam")
    ]
    if len(names) < 2:
        return None
    parts = split_windows(data.tokens["window"].to_numpy(), len(names), rng)
    sets = [("null", d, take(data.tokens, w)) for d, w in zip(names, parts, strict=True)]
    return novelty_nulls(sets, data, params, (params["findings"]["novelty_source"],))


@claim(
    "constrained-less-novel",
    "Less stochastic decoding (smaller k or p, lower temperature, beam search) decreases novelty",
    MERRILL,
    "Fig. 2, §4",
    "Pythia-12B; top-k, top-p and temperature grids, greedy and beam search (beam 8: 3% novel "
    "10-grams vs 71% at temperature 0.5)",
    ("nnsl_samples",),
    "mean L_t (95% CI), main prompt length, {novelty_source} training text, per model: within "
    "each sampling family with at least {trend_min_points} decodings (pure sampling counted as "
    "temperature 1, k = ∞, p = 1) Spearman ρ between the parameter and mean L_t; a family holds "
    "if ρ ≤ −{rho_min} and the most constrained decoding's CI lies above the least "
    "constrained's (does not hold: ρ ≥ {rho_min} and below; else inconclusive); greedy and "
    "each beam decoding hold if their CI lies above pure sampling's (does not hold: below); "
    "sets with fewer than {min_distinct} distinct texts are left out; the claim holds if every "
    "family of every model holds, does not hold if every one does not",
    nulls=(Null("human parts", human_parts_constrained),),
)
def constrained_less_novel(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 2: more constrained decoding decreases novelty (raises L_t)."""
    f = params["findings"]
    nnsl = enough_rows(
        main_rows(source_rows(tables["nnsl_samples"], f["novelty_source"]), params), params
    )
    nnsl = nnsl.rename(columns={"mean_nnsl": "value", "mean_nnsl_lo": "value_lo", "mean_nnsl_hi": "value_hi"})
    texts, verdicts, models = [], [], []
    for model in models_of(nnsl):
        parts = _constraint_parts(nnsl[nnsl["model"] == model], params)
        if len(parts) > 1:
            texts.append(f"{model}: " + ", ".join(t for t, _ in parts))
            verdicts += [v for _, v in parts if v is not None]
            models += [model for _, v in parts if v is not None]
    if not verdicts:
        raise NotMeasured("no model has pure sampling and a more constrained decoding")
    return "; ".join(texts), combine(verdicts), per_model(models, verdicts)


@claim(
    "constrained-small-n-below-validation",
    "Constrained decoding (greedy, beam search) makes small n-grams less novel than "
    "validation text",
    MERRILL,
    "Fig. 2, §4",
    "Pythia-12B; greedy and beam decoding against the Pile's validation text",
    ("novelty_samples", "novelty_texts"),
    "greedy and beam decodings of each model vs the true continuations of clean held-out "
    "windows (human/reference), main prompt length, {novelty_source} training text: at each "
    "n in 2..{n_small} the difference in pooled novelty(n) is tested by regrouping the two "
    "sets' texts (" + str(NOVELTY_PERMUTATIONS) + " random regroupings, sizes kept; two-sided, "
    "all n of all sets at once, Bonferroni over every set's n's, α = {alpha}); a set holds if "
    "it is below "
    "human at some n and above at none, does not hold if above at some n; sets with fewer than "
    "{min_distinct} distinct texts are left out; the claim holds if every set holds, does not hold if every set does not",
    nulls=(Null("human halves", human_halves(constrained_half)),),
)
def constrained_small_n_below_validation(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 2: greedy and beam text reuses short n-grams more than
    validation text does."""
    f = params["findings"]
    t = enough_rows(
        main_rows(source_rows(tables["novelty_samples"], f["novelty_source"]), params), params
    )
    constrained = list(pd.unique(t.loc[t["family"].isin(["greedy", "beam"]), "decoding"]))
    counts = source_rows(tables["novelty_texts"], f["novelty_source"])
    ns = token_ns(f["n_small"])
    parts, verdicts, models = novelty_vs_human(t, counts, params, constrained, ns, -1)
    return decided(parts, verdicts, "no greedy or beam sets with enough distinct texts", models)


def _curves(table: pd.DataFrame, min_tokens: int) -> dict[str, pd.DataFrame]:
    """model → completion-loss rows, one column per curve (``in training``, ``not in
    training``), indexed by x, only the points with at least ``min_tokens`` tokens."""
    t = table[table["tokens"] >= min_tokens]
    return {
        m: rows.pivot_table(index="x", columns="curve", values="loss")
        for m, rows in t.groupby("model", sort=False)
    }


def completion_points_frame(completion: pd.DataFrame) -> pd.DataFrame:
    """The tokens of the two completion-loss curves the rule compares (``in training``,
    ``not in training``, :func:`copyscope.novelty.metrics.completion_frame`) of every model,
    as a frame (model, curve, x, loss) sorted by model and x (stable)."""
    parts = []
    for model, f in completion.groupby("model", sort=False):
        pts = completion_frame(per_text(f, "L"), per_text(f, "loss"))
        pts = pts[pts["curve"].isin(["in training", "not in training"])]
        parts.append(pts.assign(model=model).sort_values("x", kind="stable"))
    return pd.concat(parts, ignore_index=True)[["model", "curve", "x", "loss"]]


def _completion_points(data: Data) -> pd.DataFrame:
    cached = STATE.get("completion_points")
    if cached is not None and cached[0] is data.completion:
        return cached[1]
    pts = completion_points_frame(data.completion)
    STATE["completion_points"] = (data.completion, pts)
    return pts


def permuted_in_training(rng, data, params):
    """Merrill et al.'s completion loss with the in-training label permuted among the tokens
    of each n-gram size x, per model: at every x, which tokens complete an n-gram seen in
    training is random, so neither curve can be lower (the loss's dependence on x stays)."""
    if data.completion is None or not len(data.completion):
        return None
    pts = _completion_points(data)
    tables = []
    for model, grp in pts.groupby("model", sort=False):
        curve = grp["curve"].to_numpy()[within(grp["x"].to_numpy(), rng)]
        tables.append(completion_aggregate(grp.assign(curve=curve), model))
    return {"completion_loss": pd.concat(tables, ignore_index=True)}


@claim(
    "completion-loss-in-training",
    "The loss of the token completing an n-gram of validation text is lower when that n-gram "
    "occurs in training, across n",
    MERRILL,
    "Fig. 1 (right)",
    "Pythia models on the Pile's validation text; per-token loss grouped by n",
    ("completion_loss",),
    "per model, over the n-gram lengths x where both curves have at least {min_tokens} tokens: "
    "k of m points have the lower loss on the in-training curve; two-sided sign test "
    "(binomial, p = 1/2): holds if k > m/2 with p < {alpha}, does not hold if k < m/2 with "
    "p < {alpha}, else inconclusive; the claim holds if every model holds, "
    "does not hold if every model does not",
    nulls=(Null("permuted in-training labels", permuted_in_training),),
)
def completion_loss_in_training(tables: Tables, params: Mapping):
    """Merrill et al. 2024 Fig. 1 (right): tokens that complete an n-gram seen in training have
    a lower loss than tokens that complete a novel n-gram of the same length."""
    f = params["findings"]
    parts, verdicts, models = [], [], []
    for model, c in _curves(tables["completion_loss"], f["min_tokens"]).items():
        if not {"in training", "not in training"} <= set(c.columns):
            continue
        both = c.dropna(subset=["in training", "not in training"])
        k, m = int((both["in training"] < both["not in training"]).sum()), len(both)
        p = sign_test(k, m)
        verdict = p_verdict(k - m / 2, p, +1, f["alpha"])
        gap = (both["not in training"] - both["in training"]).mean()
        parts.append(
            f"{model}: lower at {k} of {m} lengths (p = {g(p)}), mean gap {g(gap)} nats → {verdict}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(
        parts,
        verdicts,
        f"no model has both curves with ≥ {f['min_tokens']} tokens per point",
        models,
    )


def shuffled_counts(rng, data, params):
    """The loss-vs-frequency tokens (t ≥ 1, L_t one of the fixed n of
    :data:`copyscope.novelty.metrics.FREQUENCY_LENGTHS`) with their training counts C_t
    shuffled among the tokens of the same L_t, per model: the slope of loss on log10 C_t is 0
    by construction; the slope table is built by the report's own builder
    (:func:`copyscope.report.completion_loss.build_slope`)."""
    if data.completion is None or not len(data.completion):
        return None
    frames = []
    for model, f in data.completion.groupby("model", sort=False):
        L, C = f["L"].to_numpy(), f["C"].to_numpy().copy()
        used = np.flatnonzero(f["text"].duplicated().to_numpy() & np.isin(L, FREQUENCY_LENGTHS))
        by_length = used[np.argsort(L[used], kind="stable")]
        C[by_length] = C[by_length[within(L[by_length], rng)]]
        frames.append((model, f.assign(C=C)))
    return {"completion_loss_slope": completion_report.build_slope(frames, params["novelty"])}


@claim(
    "completion-loss-frequency",
    "For a fixed n-gram length, n-grams that occur more often in training are completed with "
    "lower loss",
    MERRILL,
    "released analysis code (loss by training frequency)",
    "Pythia on the Pile's validation text; tokens with L_t = L for fixed L, bucketed by "
    "log10 count",
    ("completion_loss_slope",),
    "per model and n-gram length L with at least {min_tokens} tokens from at least {min_texts} "
    "texts: the slope of token loss on log10 C_t over the tokens with L_t = L, with its 95% "
    "bootstrap CI over texts; every "
    "(model, L) at once (z from the 95% CIs, Bonferroni over the (model, L), α = {alpha}): a "
    "(model, L) holds if the slope is below 0, does not hold if above 0, else inconclusive; "
    "the claim holds if every (model, L) holds, does not hold if every (model, L) does not",
    setting="the papers' text does not state this; it is what the authors' analysis code plots",
    related=True,
    nulls=(Null("shuffled counts", shuffled_counts),),
)
def completion_loss_frequency(tables: Tables, params: Mapping):
    """Merrill et al. 2024 (analysis code): for a fixed length L, more frequent training
    n-grams are completed with lower loss (negative slope of loss on log10 count)."""
    f, t = params["findings"], tables["completion_loss_slope"]
    t = t[(t["tokens"] >= f["min_tokens"]) & (t["texts"] >= f["min_texts"])]
    t = t[np.isfinite(t["slope"].astype(float))]
    slopes = [ci_of(r, "slope", "slope_lo", "slope_hi") for _, r in t.iterrows()]
    # all (model, L) at once: four 95% intervals would err one in ten times together
    signs = z_signs(slopes, [ZERO] * len(slopes), f["alpha"])
    parts, verdicts, models = [], [], []
    for (_, r), v, sign in zip(t.iterrows(), slopes, signs, strict=True):
        verdict = HOLDS if sign < 0 else FAILS if sign > 0 else UNCLEAR
        parts.append(
            f"{r['model']} L={int(r['n'])}: slope {ci(v)} nats per decade "
            f"({int(r['tokens'])} tokens, {int(r['texts'])} texts) → {verdict}"
        )
        verdicts.append(verdict)
        models.append(r["model"])
    return decided(
        parts,
        verdicts,
        f"no length L with ≥ {f['min_tokens']} tokens from ≥ {f['min_texts']} texts and a slope",
        models,
    )
