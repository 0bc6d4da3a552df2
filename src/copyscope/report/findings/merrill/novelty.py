"""Merrill et al. 2024, Figs. 1 (left) and 2, §3–4: the n-gram novelty rows: pure samples
against the clean and the contaminated held-out text (``pure-more-novel-than-validation``,
``pure-vs-contaminated-baseline``), the no-duplication lower bound
(``validation-below-lower-bound``), model size (``larger-less-novel``) and constrained decoding
(``constrained-less-novel``, ``constrained-small-n-below-validation``), each with its nulls
(:mod:`~copyscope.report.findings.merrill.nulls`) and known positives
(:mod:`~copyscope.report.findings.merrill.copiers`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

import pandas as pd

from ....stats import pooled_ratio_interval
from ... import family
from ..core import (
    FAILS,
    HOLDS,
    MERRILL,
    NOVELTY_PERMUTATIONS,
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
    enough_rows,
    g,
    main_rows,
    model_size,
    models_of,
    novelty_vs_human,
    per_model,
    set_rows,
    source_rows,
    token_ns,
    trend_verdict,
)
from ..data import HUMAN, resample_windows, sizes_up_to, split_windows, take
from .copiers import (
    Copier,
    clean_vs_copier_positives,
    constrained_copier_positives,
    copier_of,
    copier_positives,
    greedy_copier_positives,
    sized_copier_positives,
)
from .nulls import (
    constrained_half,
    human_halves,
    novelty_nulls,
    pure_half,
    pure_half_contaminated,
    sized_halves,
)

MERRILL_PURE = (
    "Pythia 70M–12B trained on the Pile; pure (naive) sampling, 1,000 new tokens; baseline: the "
    "Pile's validation text, which duplicates training n-grams (less novel than the no-"
    "duplication lower bound for n > 20); n = 1..100"
)


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
    positives=clean_vs_copier_positives,
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
    positives=constrained_copier_positives,
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
    positives=greedy_copier_positives,
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
