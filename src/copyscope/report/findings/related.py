"""Related claims from outside the five papers that no paper module above decides: Lu et al.
2024's Creativity Index ("AI as Humanity's Salieri", ICLR 2025), with its null (halves of the
human words) and known positive (human words with a share of their spans copied). The other
related claims sit with the analysis they extend (Merrill et al.'s code, Carlini, Shi, Brown
and Xu, Chang): :data:`copyscope.report.findings.core.Claim.related` marks them all."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...corpus.timing import SPREAD as SPREAD_GROUP
from ...corpus.timing import set_name, timed_windows
from ...stats import (
    permuted_counts,
    pooled_ratio_permutation_test,
    proportions_contrast,
    relative_excess,
    wilson,
)
from .. import creativity as creativity_report
from ..creativity import text_table as creativity_texts
from .core import (
    DYNAMICS,
    DYNAMICS_COLUMNS,
    FAILS,
    HOLDS,
    JAGIELSKI,
    LU,
    NOVELTY_PERMUTATIONS,
    UNCLEAR,
    NotMeasured,
    NotTested,
    Null,
    Positive,
    Tables,
    at_step,
    ci,
    claim,
    decided,
    dynamics_rows,
    g,
    models_of,
    set_rows,
    share,
    source_rows,
    successes,
)
from .data import (
    HUMAN,
    CopiedWords,
    Data,
    copied_words_of,
    dynamics_of,
    main_words,
    projected_sizes,
    resample_windows,
    sizes_up_to,
    split_windows,
    take,
)

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


def copied_vs_human(copied: CopiedWords, share: float):
    """Builder: ``size`` texts of the half copied at ``share`` as a model's pure samples
    against ``size`` texts of the human half, each drawn with replacement."""

    def build(rng, data, params, size):
        sets = [
            ("human", "reference", resample_windows(copied.human, size, rng)),
            (
                "copier",
                params["findings"]["pure_decoding"],
                resample_windows(copied.sets[share], size, rng),
            ),
        ]
        return {"creativity_texts": creativity_texts(sets, params["sampling"]["prompt_length"])}

    return build


def copied_word_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """The copied words at the largest of ``findings.power.copier_shares`` as a model's pure
    samples against the human half (with RAVEN's training matches per word)."""
    copied = copied_words_of(data, params, shared, ("L_train", "window"))
    if copied is None:
        return []
    p = params["findings"]["power"]
    share = max(p["copier_shares"])
    return [Positive(f"copied words {share:.0%}", copied_vs_human(copied, share), HOLDS,
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


EARLY, LATE, SPREAD, CONTROLS = (set_name("early"), set_name("late"), set_name(SPREAD_GROUP),
                                 "controls")  # fmt: skip
"""The extraction sets of the dynamics table the forgetting row reads: the planted ladder
passages seen only early, only late and over the whole run, and the never-planted controls."""


def extraction_at_end(rows: pd.DataFrame, model: str) -> tuple[int, dict[str, tuple[int, int]]]:
    """``(last step, {set: (k, n)})``: the extraction sets of ``model`` at its last checkpoint
    (the end of training)."""
    last = int(rows.loc[rows["model"] == model, "step"].max())
    return last, {s: successes(at_step(rows, model, s, last)) for s in (EARLY, LATE, SPREAD,
                                                                         CONTROLS)}  # fmt: skip


def timed_extraction(data: Data) -> pd.DataFrame | None:
    """The run's extraction rows of the dynamics table with early- and late-timed passages
    (None without)."""
    rows = dynamics_of(data, "extraction")
    if rows is None:
        return None
    scored = rows[rows["n"].fillna(0) > 0]
    return rows if {EARLY, LATE} <= set(scored["set"]) else None


def extraction_row(model: str, step: int, name: str, k: int, n: int) -> dict:
    """An extraction row of a dynamics table: k of n passages extracted, its Wilson interval."""
    v, lo, hi = wilson(int(k), int(n))
    return {"model": model, "step": int(step), "quantity": "extraction", "set": name, "value": v,
            "value_lo": lo, "value_hi": hi, "n": int(n)}  # fmt: skip


def permuted_timing(rng, data, params):
    """The extraction rows with the early / late labels permuted over the timed passages at
    the end of training (their extracted passages pooled and dealt at random into groups of
    their sizes, :func:`copyscope.stats.permuted_counts`): when a passage was seen cannot
    change whether it is extracted."""
    rows = timed_extraction(data)
    if rows is None:
        return None
    out = []
    for model in pd.unique(rows["model"]):
        last, counts = extraction_at_end(rows, model)
        (ke, ne), (kl, nl) = counts[EARLY], counts[LATE]
        de, dl = permuted_counts([ke, kl], [ne, nl], rng)
        out += [
            extraction_row(model, last, EARLY, de, ne),
            extraction_row(model, last, LATE, dl, nl),
        ]
    end = rows["step"] == rows.groupby("model")["step"].transform("max")
    keep = rows[~(rows["set"].isin((EARLY, LATE)) & end)]
    return {DYNAMICS: pd.concat([keep, pd.DataFrame(out)], ignore_index=True)[DYNAMICS_COLUMNS]}


def planted_forgetting(rates: dict[str, tuple[int, float, float]]):
    """Builder: ``size`` early and ``size`` late passages per model at the end of training,
    drawn (binomial) at the rates of ``rates`` (model → (last step, early rate, late rate))."""

    def build(rng, data, params, size):
        out = []
        for model, (last, early, late) in rates.items():
            out.append(extraction_row(model, last, EARLY, rng.binomial(size, early), size))
            out.append(extraction_row(model, last, LATE, rng.binomial(size, late), size))
        return {DYNAMICS: pd.DataFrame(out, columns=DYNAMICS_COLUMNS)}

    return build


def forgetting_positives(data, index, params: Mapping, shared: dict) -> list[Positive]:
    """Complete forgetting planted at the run's own rates: the early passages extracted at the
    end as often as the never-planted controls, the late ones as often as the passages seen
    over the whole run (timing spread), ``size`` passages each, at the run's timed passages
    per group and projected sizes; none without a model whose spread passages are extracted
    more often than its controls."""
    rows = timed_extraction(data)
    if rows is None:
        return []
    rates, observed = {}, []
    for model in pd.unique(rows["model"]):
        last, counts = extraction_at_end(rows, model)
        (ks, ns), (kc, nc) = counts[SPREAD], counts[CONTROLS]
        if ns and nc and ks / ns > kc / nc:
            rates[model] = (last, kc / nc, ks / ns)
            observed.append(min(counts[EARLY][1], counts[LATE][1]))
    if not rates:
        return []
    per = int(min(observed))
    sizes = projected_sizes(params["findings"]["power"]["sizes"], per)
    return [Positive("planted forgetting (controls vs spread)", planted_forgetting(rates), HOLDS,
                     sizes, per)]  # fmt: skip


@claim(
    "forgetting-early",
    "Text seen only early in training is forgotten: at the end it is extracted less often than "
    "the same text seen late",
    JAGIELSKI,
    "abstract, the INJECT experiments (examples which appeared early in training are forgotten "
    "by the end; examples seen later are more exposed; also Tirumala et al. 2022's forgetting "
    "of memorised text)",
    "image, speech and language models (C4) with canaries inserted at a chosen point of "
    "training and attacked at its end (membership inference, extraction); nondeterministic "
    "training (deterministic training does not forget)",
    (DYNAMICS,),
    "per model, at its last checkpoint (the end of training; tables/dynamics.csv, quantity "
    "extraction): the share of the ladder passages seen only in the last "
    "corpus.inject.timing.window share of the steps that are extracted exactly (greedy) minus "
    "that of the passages seen only in the first (the same number of passages of every rung, "
    "so the same copies), k of n each, with Newcombe's (MOVER) interval at 1 − {alpha}; holds "
    "if it lies wholly above 0, does not hold if wholly below 0, else inconclusive (the early "
    "passages' extraction at the first checkpoint after their window is reported beside it); "
    "not tested here without checkpoints or timed ladder passages "
    "(corpus.inject.timing.ladder); the claim holds if every model holds, does not hold if "
    "every model does not",
    setting="the early text is seen during the learning-rate warm-up by a model that has "
    "learned little, so 'less at the end' mixes forgetting with learning less at first (the "
    "early passages' extraction right after their window is reported); a few planted passages "
    "per rung, so intervals are wide",
    related=True,
    nulls=(Null("permuted timing labels", permuted_timing),),
    positives=forgetting_positives,
)
def forgetting_early(tables: Tables, params: Mapping):
    """Jagielski et al. (2023): examples seen early in training are forgotten by its end,
    those seen late are not (extraction of the timed ladder passages)."""
    level = 1 - params["findings"]["alpha"]
    rows = dynamics_rows(tables, "extraction")
    scored = rows[rows["n"].fillna(0) > 0]
    if not {EARLY, LATE} <= set(scored["set"]):
        raise NotTested("no ladder passages timed (corpus.inject.timing.ladder)")
    parts, verdicts, models = [], [], []
    for model in pd.unique(rows["model"]):
        last, counts = extraction_at_end(rows, model)
        (ke, ne), (kl, nl) = counts[EARLY], counts[LATE]
        if not (ne and nl):
            continue
        d = proportions_contrast([kl, ke], [nl, ne], (1, -1), level)
        verdict = HOLDS if d[1] > 0 else FAILS if d[2] < 0 else UNCLEAR
        early = scored[(scored["model"] == model) & (scored["set"] == EARLY)]
        peak = ""
        window = (params.get("timing") or {}).get("window")
        if window is not None and len(early):
            end = timed_windows(last, float(window))["early"][1]
            after = early[early["step"] >= end].sort_values("step")
            if len(after):
                k, n = successes(after.iloc[0])
                step = int(after.iloc[0]["step"])
                peak = f"; early passages at step {step} (after their window): {share(k, n)}"
        parts.append(
            f"{model} (step {last}): late {share(kl, nl)} vs early {share(ke, ne)}, difference "
            f"{ci(d)} → {verdict}{peak}"
        )
        verdicts.append(verdict)
        models.append(model)
    return decided(parts, verdicts, "no model with early and late passages scored", models)
