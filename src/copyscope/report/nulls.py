"""The nulls of the scorecard's rules: per claim, tables drawn from the run's own data in which
no claim can be true (halves of the human text, permuted labels, shuffled counts), each a
builder ``(rng, data, params) -> tables`` (:data:`NULLS`). The null calibration
(:mod:`copyscope.report.calibration`) decides each claim on many draws of its nulls and counts
the false verdicts; the power analysis (:mod:`copyscope.report.power`) plants known effects
into the same data."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..language import label_set, language_of
from ..membership.evaluate import fast_metrics, paired_auc_difference
from ..novelty.metrics import FREQUENCY_LENGTHS, completion_aggregate, completion_frame
from ..syntax.io import read_parses
from ..syntax.style import aligned_match
from ..syntax.syntactic_novelty import (
    count_matrices,
    extract_set,
    novelty_rows,
    query_items,
    training_hits,
    units,
)
from ..syntax.templates import (
    template_summary,
    templates_in_training,
)
from . import completion_loss as completion_report
from . import creativity as creativity_report
from . import family, name_cloze, per_text
from . import findings as F
from . import membership as membership_report
from . import novelty as novelty_report
from . import raven as raven_report
from . import style as style_report
from . import template_coverage as coverage_report
from . import templates as templates_report
from .memorization import memorization_table
from .syntax_tables import template_table

HUMAN = templates_report.HUMAN
STATE: dict = {}
"""The process's state while the calibration draws: its data and parameters, and what the
nulls computed once per process (the completion points, the syntax items)."""


@dataclass(frozen=True)
class Data:
    """The per-item data the nulls are drawn from."""

    tokens: pd.DataFrame | None  # human/reference per-token L_t (tokens.parquet)
    words: pd.DataFrame | None  # human/reference per-word RAVEN scores (words.parquet)
    quality: pd.DataFrame | None  # human/reference per-text evaluator NLL (quality.csv)
    corpus_size: int  # tokens of the index the human tokens were matched against
    extraction: pd.DataFrame | None  # every model's per-passage ladder results
    membership: pd.DataFrame | None  # every model's per-item membership scores
    completion: pd.DataFrame | None = None  # every model's per-token completion losses
    cloze: pd.DataFrame | None = None  # every model's per-item name cloze results
    human_texts: list | None = None  # every human set's tagged generated texts (parses)
    training_ngrams: tuple | None = None  # (ranks, counts, cut): training POS n-grams
    syntax: tuple | None = None  # (units, novel, total): the human reference's syntax counts
    syntax_files: tuple | None = None  # (parses, training parses): where ``syntax`` comes from
    style: pd.DataFrame | None = None  # every model's per-passage style measures
    contamination: pd.DataFrame | None = None  # the looked-up items (contamination_items.csv)


Tables = dict[str, pd.DataFrame]
NullBuilder = Callable[[np.random.Generator, Data, Mapping], Tables | None]


# --------------------------------------------------------------------------- splitting
def split_windows(windows: np.ndarray, parts: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The distinct ``windows`` shuffled and dealt into ``parts`` groups of (nearly) equal
    size."""
    w = rng.permutation(np.unique(windows))
    return [np.sort(w[i::parts]) for i in range(parts)]


def _take(frame: pd.DataFrame, windows: np.ndarray) -> pd.DataFrame:
    return frame[frame["window"].isin(windows)]


def _natural(tok: pd.DataFrame) -> pd.DataFrame:
    """A per-token frame with ``L_nat`` (the natural-only L_t): its own where it has one, else
    ``L`` (text matched against a training split with nothing planted)."""
    return tok if "L_nat" in tok else tok.assign(L_nat=tok["L"])


def novelty_nulls(
    sets: list[tuple[str, str, pd.DataFrame]],
    data: Data,
    params: Mapping,
    sources: tuple[str, ...] = ("all", "natural"),
) -> Tables:
    """novelty_samples, nnsl_samples and novelty_texts of the given (model, decoding, tokens)
    sets, built by the novelty report's builders, for ``sources`` (the ones the claim reads)."""
    sizes = {m: data.corpus_size for m, _, _ in sets}
    f = params["findings"]
    # the rules read novelty(n) up to findings.n_max only; the bootstrap resamples whole texts,
    # so the curve's first n_max points and their intervals are those of the full curve
    novelty = {**params["novelty"], "n_max": min(params["novelty"]["n_max"], f["n_max"])}
    sets = [(m, d, _natural(t)) for m, d, t in sets]
    curves, nnsl = novelty_report.build(
        sets, sizes, novelty, params["sampling"]["decodings"], sources=sources
    )
    texts = novelty_report.text_novelty_table(sets, params["sampling"], novelty["n_max"], sources)
    return {"novelty_samples": curves, "nnsl_samples": nnsl, "novelty_texts": texts}


def raven_nulls(sets: list[tuple[str, str, pd.DataFrame, pd.DataFrame]], params: Mapping) -> Tables:
    """raven_summary (training ∪ context, and the n-gram rows' source
    :func:`copyscope.report.findings.raven_source`: the only sources the calibrated rules
    read), raven_texts and raven_text_novelty of the given (model, decoding, words, quality)
    sets, built by the RAVEN report's builders; every set is scored by an evaluator other than
    itself."""
    sources = tuple(dict.fromkeys(("union", F.raven_source(params))))
    summary, _, _ = raven_report.build(sets, params["novelty"], params["sampling"], sources)
    summary["evaluator"] = "null-evaluator"
    texts = raven_report.text_table(sets, params["sampling"]).assign(evaluator="null-evaluator")
    novelty = raven_report.text_novelty_table(
        sets, params["sampling"], sources=(F.raven_source(params),)
    )
    return {"raven_summary": summary, "raven_texts": texts, "raven_text_novelty": novelty}


def _decoding(params: Mapping, families: tuple[str, ...]) -> str | None:
    """The first decoding of ``sampling.decodings`` in one of ``families``."""
    decodings = params["sampling"]["decodings"]
    for name in decodings:
        if family(name, decodings) in families:
            return name
    return None


# --------------------------------------------------------------------------- the nulls
def human_halves_novelty(claim: str) -> NullBuilder:
    """Two halves of the human continuations as model and human baseline (model tokens)."""

    def build(rng, data, params):
        if data.tokens is None:
            return None
        f = params["findings"]
        a, b = split_windows(data.tokens["window"].to_numpy(), 2, rng)
        ta, tb = _take(data.tokens, a), _take(data.tokens, b)
        if claim == "constrained-small-n-below-validation":
            dec = _decoding(params, ("greedy", "beam"))
            if dec is None:
                return None
            sets = [(*HUMAN, tb), ("null", dec, ta)]
        elif claim == "pure-vs-contaminated-baseline":
            sets = [(*HUMAN, tb), ("human", "contaminated", tb), ("null", f["pure_decoding"], ta)]
        elif claim == "larger-less-novel":
            zoo = params["models"]["zoo"]
            sized = sorted((F.model_size(s), m) for m, s in zoo.items() if F.model_size(s))
            if len(sized) < 2 or sized[0][0] == sized[-1][0]:
                return None
            sets = [(sized[0][1], f["pure_decoding"], ta), (sized[-1][1], f["pure_decoding"], tb)]
        else:
            sets = [(*HUMAN, tb), ("null", f["pure_decoding"], ta)]
        source = "all" if claim == "pure-vs-contaminated-baseline" else f["novelty_source"]
        return novelty_nulls(sets, data, params, (source,))

    return build


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
    sets = [("null", d, _take(data.tokens, w)) for d, w in zip(names, parts, strict=True)]
    return novelty_nulls(sets, data, params, (params["findings"]["novelty_source"],))


def _raven_sets(data: Data, groups: list[tuple[str, str, np.ndarray]]):
    return [(m, d, _take(data.words, w), _take(data.quality, w)) for m, d, w in groups]


def human_halves_raven(claim: str) -> NullBuilder:
    """Two halves of the human continuations as model and human baseline (RAVEN's words)."""

    def build(rng, data, params):
        if data.words is None or data.quality is None:
            return None
        f = params["findings"]
        a, b = split_windows(data.words["window"].to_numpy(), 2, rng)
        if claim == "lstm-less-novel-small-n":
            zoo = params["models"]["zoo"]
            lstm = next((m for m, s in zoo.items() if s.get("kind") == "lstm"), "lstm")
            gpt = next((m for m, s in zoo.items() if s.get("kind") == "gpt2"), "gpt2")
            groups = [(lstm, f["raven_decoding"], a), (gpt, f["raven_decoding"], b)]
            params = {
                **params,
                "models": {
                    **params["models"],
                    "zoo": {lstm: {"kind": "lstm"}, gpt: {"kind": "gpt2"}},
                },
            }
        else:
            dec = f["pure_decoding"] if claim == "raven-pure-every-n" else f["raven_decoding"]
            groups = [(*HUMAN, b), ("null", dec, a)]
        return raven_nulls(_raven_sets(data, groups), params)

    return build


def human_parts_quality(rng, data, params):
    """The human continuations dealt into as many parts as the grid has decodings, each part
    playing one decoding of one model: novelty and the evaluator's perplexity are unrelated."""
    if data.words is None or data.quality is None:
        return None
    names = list(params["sampling"]["decodings"])
    parts = split_windows(data.words["window"].to_numpy(), len(names), rng)
    return raven_nulls(
        _raven_sets(data, [("null", d, w) for d, w in zip(names, parts, strict=True)]), params
    )


def permuted_copies(rng, data, params):
    """The ladder's per-passage extraction results with their copy counts permuted over the
    passages of each model (controls included)."""
    if data.extraction is None or not len(data.extraction):
        return None
    frame = data.extraction.copy()
    for _, idx in frame.groupby("model", sort=False).groups.items():
        frame.loc[idx, "copies"] = rng.permutation(frame.loc[idx, "copies"].to_numpy())
    m = params["analysis"]["memorization"]
    return {"memorization": memorization_table(frame, m["bootstrap"], m["seed"])}


def permuted_membership(rng, data, params):
    """The contamination set's per-item loss and Min-K% Prob (k = 20%) with the planted labels
    permuted among its items, per model: the detector rows the Min-K% rule reads (AUC of each,
    and Min-K%'s paired ΔAUC against the loss,
    :func:`copyscope.membership.evaluate.paired_auc_difference`, as the detector table has
    them)."""
    if data.membership is None or not len(data.membership):
        return None
    m = params["analysis"]["membership"]
    rows = []
    for model, g in data.membership[data.membership["set"] == "contamination"].groupby(
        "model", sort=False
    ):
        y = rng.permutation(g["planted"].to_numpy().astype(int))
        if y.min(initial=1) == 1 or y.max(initial=0) == 0:
            continue
        loss = membership_report._oriented(g, "loss")
        mink = membership_report._oriented(g, "min_k_20")
        d = paired_auc_difference(mink, loss, y, n_boot=m["bootstrap"], seed=m["seed"])
        base = {"model": model, "label_set": "planted"}
        rows.append(
            base
            | {"detector": "loss", "auc": fast_metrics(loss, y)[0]}
            | dict(zip(membership_report.DELTA, (0.0, 0.0, 0.0), strict=True))
        )
        rows.append(base | {"detector": "min_k_20", "auc": fast_metrics(mink, y)[0]}
                    | dict(zip(membership_report.DELTA, d, strict=True)))  # fmt: skip
    return {"membership_detectors": pd.DataFrame(rows)}


def _contamination_items(texts: pd.DataFrame, planted: np.ndarray) -> pd.DataFrame:
    """Item rows with the given planted labels, ``copies`` 0 on the unplanted ones (the
    per-copy contrasts follow the labels)."""
    return texts.assign(planted=planted, copies=np.where(planted == 1, 1, 0))


def permuted_placement(rng, data, params):
    """The contamination set's per-item NLLs (Li's) with the planted labels permuted among its
    items, per model: the NLL contrasts the placement rule reads
    (:func:`copyscope.report.membership.nll_delta_rows`); no set can be more familiar."""
    if data.membership is None or not len(data.membership):
        return None
    m = params["analysis"]["membership"]
    bench = data.membership[data.membership["set"] == "contamination"]
    parts = [
        _contamination_items(g, rng.permutation(g["planted"].to_numpy().astype(int)))
        for _, g in bench.groupby("model", sort=False)
    ]
    if not parts:
        return None
    texts = pd.concat(parts, ignore_index=True)
    return {"membership_nll_delta": membership_report.nll_delta_rows(texts, m["bootstrap"],
                                                                     m["seed"])}  # fmt: skip


# --------------------------------------------------------------------------- completion loss
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


def within(groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random permutation of the positions 0..n−1 that moves each position only among those
    of its own group (``groups`` sorted): ``values[within(groups, rng)]`` permutes ``values``
    inside each group."""
    return np.lexsort((rng.random(len(groups)), groups))


def derangement(groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random permutation inside each group (``groups`` sorted) that moves every position of
    a group of two or more (a random cycle through the group); a position alone in its group
    stays. ``values[derangement(groups, rng)]`` gives each position another one's value."""
    order = within(groups, rng)  # a random order inside each group
    g = groups[order]
    first = np.r_[True, g[1:] != g[:-1]]
    last = np.r_[g[1:] != g[:-1], True]
    start = np.maximum.accumulate(np.where(first, np.arange(len(g)), 0))
    nxt = np.where(last, start, np.arange(len(g)) + 1)  # the next in the cycle, wrapping
    out = np.empty(len(g), dtype=np.int64)
    out[order] = order[nxt]
    return out


def permuted_in_training(rng, data, params):
    """Merrill et al.'s completion loss with the in-training label permuted among the tokens
    of each n-gram size x, per model: at every x, which tokens complete an n-gram seen in
    training is random, so neither curve can be lower (the loss's dependence on x stays)."""
    if data.completion is None or not len(data.completion):
        return None
    pts = _completion_points(data)
    tables = []
    for model, g in pts.groupby("model", sort=False):
        curve = g["curve"].to_numpy()[within(g["x"].to_numpy(), rng)]
        tables.append(completion_aggregate(g.assign(curve=curve), model))
    return {"completion_loss": pd.concat(tables, ignore_index=True)}


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


def _completion_points(data: Data) -> pd.DataFrame:
    cached = STATE.get("completion_points")
    if cached is not None and cached[0] is data.completion:
        return cached[1]
    pts = completion_points_frame(data.completion)
    STATE["completion_points"] = (data.completion, pts)
    return pts


# --------------------------------------------------------------------------- RAVEN contrasts
def _raven_words(data: Data, params: Mapping) -> pd.DataFrame | None:
    if data.words is None or not len(data.words):
        return None
    return data.words[data.words["prompt_length"] == params["sampling"]["prompt_length"]]


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
        words = _raven_words(data, params)
        if words is None:
            return None
        main, f = params["sampling"]["prompt_length"], params["findings"]
        a, b = split_windows(words["window"].to_numpy(), 2, rng)
        k = min(len(a), len(b))
        pair = dict(zip(a[:k], b[:k], strict=True))
        other = _take(words, a[:k]).copy()
        other["window"] = other["window"].map(pair)
        other["prompt_length"] = main + 1
        if shift:
            cut = np.minimum(other["s_union"].to_numpy(float), 5)
            other["s_union"] = cut - f["prompt_length_margin"]
        frame = pd.concat([_take(words, b[:k]), other], ignore_index=True)
        sets = [("null", f["pure_decoding"], frame)]
        return {"raven_contrasts": raven_report.contrasts(sets, params["novelty"],
                                                           params["sampling"])}  # fmt: skip

    return build


def planted_context(rng, data, params):
    """The human continuations (main prompt length) as the pure samples of one model (one set:
    the rule's "every interval within the margin" is easiest to meet with one), with a context
    effect of exactly ``findings.source_margin`` planted: each word's
    training-only score is its truncated union score, lowered by one for a random share of
    the words (by max(1, 2·margin) for a share margin / that step, so the mean union − train
    difference is the margin): the least favourable case of "barely changes", where ``holds``
    is the false verdict. Contrasts by :func:`copyscope.report.raven.contrasts`."""
    words = _raven_words(data, params)
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


# --------------------------------------------------------------------------- templates
def _half_texts(data: Data, rng) -> tuple[list, list] | None:
    """Two random halves of the human sets' parsed texts (the reference and, where the run
    has it, the contaminated set's true continuations, pooled: halves as large as one set,
    the size the template rules compare; both are human text of held-out plays)."""
    if not data.human_texts:
        return None
    a, b = split_windows(np.arange(len(data.human_texts)), 2, rng)
    return [data.human_texts[i] for i in a], [data.human_texts[i] for i in b]


def human_halves_templates(rng, data, params):
    """Two halves of the human sets' parsed continuations (:func:`_half_texts`), one as the
    greedy samples of a model (the decoding the rule decides on): Shaib et al.'s template
    measures at the headline n of each half (:func:`template_tables`); None without a greedy
    decoding in ``sampling.decodings``."""
    halves = _half_texts(data, rng)
    greedy = F.greedy_decodings(params)
    if halves is None or not greedy:
        return None
    return template_tables(*halves, greedy[0], params, rng)


def template_tables(model_texts: list, human_texts: list, decoding: str, params: Mapping, rng):
    """The templates table of ``model_texts`` as the ``decoding`` samples of a model ``null``
    and ``human_texts`` as human/reference at the headline n, by the templates report's
    builders (:func:`copyscope.syntax.templates.template_summary`,
    :func:`copyscope.report.syntax_tables.template_table`,
    :func:`copyscope.report.templates.with_rate_tests`, its regroupings seeded from ``rng``)."""
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    n = s["template_headline_n"]
    tables, texts_of = [], {}
    for (model, dec), texts in zip(
        [("null", decoding), HUMAN], (model_texts, human_texts), strict=True
    ):
        summary = template_summary(texts, n, s["top_k"])
        table = template_table([(f"{model}/{dec}", summary)])
        tables.append(templates_report.labelled(table, model, dec, decodings))
        texts_of[(model, dec)] = texts
    table = pd.concat(tables, ignore_index=True)
    # the regroupings drawn afresh per draw, as a real comparison's are unrelated to its
    # data: with one fixed set of regroupings for every draw of one pool, the draws would
    # share that set's sampling error (6.3% [5.0, 8.0] in 1,000 draws, not the test's ≤ 5%)
    seed = int(rng.integers(2**31))
    return {"templates": templates_report.with_rate_tests(table, texts_of, s, seed)}


def human_halves_coverage(rng, data, params):
    """Two halves of the human sets' parsed continuations (:func:`_half_texts`), one as the
    pure samples of a model: the coverage of each half's templates within the training split's most frequent
    POS n-grams and their difference, by the template-coverage report's builders
    (:func:`copyscope.syntax.templates.templates_in_training`,
    :func:`copyscope.report.template_coverage.coverage_delta`)."""
    halves = _half_texts(data, rng)
    if halves is None or data.training_ngrams is None:
        return None
    ranks, counts, cut = data.training_ngrams
    s, decodings = params["analysis"]["syntax"], params["sampling"]["decodings"]
    n = s["template_headline_n"]
    rows, in_cut = [], {}
    for (model, decoding), texts in zip(
        [HUMAN, ("null", params["findings"]["pure_decoding"])], halves, strict=True
    ):
        table, comparison = templates_in_training(
            texts, n, ranks.get, len(ranks), cut, s["top_k"], counts.get, s["seed"]
        )
        in_cut[(model, decoding)] = table["in_cut"].astype(bool).tolist()
        rows.append({"model": model, "decoding": decoding,
                     "decoding_family": family(decoding, decodings), "n": n, **comparison})  # fmt: skip
    delta = coverage_report.coverage_delta(pd.DataFrame(rows), in_cut, s["bootstrap"], s["seed"])
    return {"template_coverage_delta": delta}


# --------------------------------------------------------------------------- syntax
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


# --------------------------------------------------------------------------- style
STYLE_MEASURES = ["word_exact", "pos_exact", "word_match", "pos_match"]


def permuted_targets(rng, data, params):
    """Shaib et al.'s style memorization with each continuation compared with the target of
    another passage of the same length (targets deranged among a model's passages with a
    training copy and the same number of target words, :func:`derangement`; a passage whose
    length no other has is left out): a continuation reproduces an unrelated target's POS
    sequence by chance only, so no style is memorized. The POS measures
    are recomputed (:func:`copyscope.syntax.style.aligned_match`); a moved target's words are
    taken as not reproduced (they are another passage's). Pooled by the style report's
    builder (:func:`copyscope.report.style.style_table`)."""
    if data.style is None or not len(data.style):
        return None
    frame = data.style[(data.style["n_target_words"] > 0) & (data.style["copies"] > 0)]
    parts = []
    for _, g in frame.groupby("model", sort=False):
        g = g.sort_values("n_target_words", kind="stable")
        length = g["n_target_words"].to_numpy()
        alone = np.r_[length[1:] != length[:-1], True] & np.r_[True, length[1:] != length[:-1]]
        g, length = g[~alone], length[~alone]  # no other target of its length to compare with
        order = derangement(length, rng)
        moved = order != np.arange(len(g))
        targets = g["target_tags"].fillna("").to_numpy()[order]
        match = [aligned_match(t.split(), str(x).split())
                 for t, x in zip(targets, g["generated_tags"].fillna(""), strict=True)]  # fmt: skip
        parts.append(g.assign(
            pos_match=[m for m, _ in match], pos_exact=[int(e) for _, e in match],
            word_exact=np.where(moved, 0, g["word_exact"]),
            word_match=np.where(moved, 0.0, g["word_match"]),
        ))  # fmt: skip
    keep = ["model", "source", "stratum", "copies", "planted", "n_target_words", *STYLE_MEASURES]
    frame = pd.concat(parts, ignore_index=True)[keep]  # only what the table reads: faster
    frame["stratum"] = frame["stratum"].astype(str)
    st = params["analysis"]["style"]
    return {"style_memorization": style_report.style_table(frame, st["bootstrap"], st["seed"])}


# --------------------------------------------------------------------------- name cloze
def _cloze_n_boot(params: Mapping) -> tuple[int, int]:
    m = params["analysis"]["membership"]
    return m["bootstrap"], m["seed"]


def permuted_plays(cloze: pd.DataFrame, splits: tuple[str, ...], rng) -> pd.DataFrame:
    """``cloze`` with the labels (``split``, ``excerpt_copies``) of its plays of ``splits``
    permuted over those plays, the same for every model (a play's membership is the play's):
    whole plays change group, their items stay together."""
    if "excerpt_copies" not in cloze:
        cloze = cloze.assign(excerpt_copies=0)
    plays = cloze[cloze["split"].isin(splits)].drop_duplicates("play")[
        ["play", "split", "excerpt_copies"]
    ]
    order = rng.permutation(len(plays))
    new = plays.assign(split=plays["split"].to_numpy()[order],
                       excerpt_copies=plays["excerpt_copies"].to_numpy()[order])  # fmt: skip
    label = new.set_index("play")
    hit = cloze["play"].isin(label.index)
    out = cloze.copy()
    out.loc[hit, "split"] = cloze.loc[hit, "play"].map(label["split"])
    out.loc[hit, "excerpt_copies"] = cloze.loc[hit, "play"].map(label["excerpt_copies"])
    return out


def _cloze(data: Data) -> pd.DataFrame | None:
    return data.cloze if data.cloze is not None and len(data.cloze) else None


def permuted_training_plays(rng, data, params):
    """Name cloze items with the training / held-out labels permuted over those plays:
    accuracy cannot be higher on the plays labelled training (the play groups and their
    play-permutation tests by the membership report's
    :func:`~copyscope.report.name_cloze.cloze_excerpt_rows`)."""
    cloze = _cloze(data)
    if cloze is None or not {"train", "valid"} <= set(cloze["split"]):
        return None
    permuted = permuted_plays(cloze, ("train", "valid"), rng)
    rows = name_cloze.cloze_excerpt_rows(permuted, *_cloze_n_boot(params))
    return {"membership_cloze_excerpts": rows}


def permuted_excerpt_plays(table: str) -> NullBuilder:
    """Name cloze items with the excerpt / held-out labels (and the excerpt copy counts)
    permuted over those plays: neither excerpts nor their copies can raise accuracy; the
    ``table`` (``membership_cloze_excerpts`` or ``membership_cloze_trend``) by the membership
    report's builder."""
    builder = {
        "membership_cloze_excerpts": name_cloze.cloze_excerpt_rows,
        "membership_cloze_trend": name_cloze.cloze_trend_rows,
    }[table]

    def build(rng, data, params):
        cloze = _cloze(data)
        if cloze is None or not {"excerpt", "valid"} <= set(cloze["split"]):
            return None
        permuted = permuted_plays(cloze, ("excerpt", "valid"), rng)
        return {table: builder(permuted, *_cloze_n_boot(params))}

    return build


def permuted_overlap(rng, data, params):
    """Name cloze items whose continuation-overlap match fractions are permuted over the
    training plays (every item of play p gets the mean match fraction of play π(p)): across
    training plays, overlap and cloze accuracy are unrelated (r by
    :func:`~copyscope.report.name_cloze.cloze_tables`)."""
    cloze = _cloze(data)
    if cloze is None or "train" not in set(cloze["split"]):
        return None
    train = cloze["split"] == "train"
    means = cloze[train].groupby("play", sort=False)["match_fraction"].mean()
    moved = pd.Series(rng.permutation(means.to_numpy()), index=means.index)
    out = cloze.copy()
    out.loc[train, "match_fraction"] = cloze.loc[train, "play"].map(moved)
    _, summary = name_cloze.cloze_tables(out, *_cloze_n_boot(params))
    return {"membership_cloze_summary": summary}


def permuted_contamination(rng, data, params):
    """The planted contamination set's looked-up items (``contamination_items``) with the
    planted / unplanted labels permuted among them: each rule flags the same share of both
    groups in expectation, so neither verdict is right."""
    from . import contamination as contamination_report

    items = data.contamination
    if items is None:
        return None
    planted = items[
        (items["benchmark"] == contamination_report.PLANTED)
        & items["group"].isin(["planted", "unplanted"])
    ].copy()
    if planted["group"].nunique() < 2:
        return None
    planted["group"] = rng.permutation(planted["group"].to_numpy())
    return {"contamination_known": contamination_report.known_rows(planted)}


def human_halves_creativity(rng, data, params):
    """Two halves of the human continuations' words (main prompt length) as a model's pure
    samples and the human baseline, their per-text Creativity Index built by the creativity
    report's own builder (:func:`copyscope.report.creativity.text_table`): neither half is the
    more creative, so "holds" is false (and "does not hold", the paper's gap excluded, right)."""
    words = _raven_words(data, params)
    if words is None:
        return None
    a, b = split_windows(words["window"].to_numpy(), 2, rng)
    sets = [(*HUMAN, _take(words, b)), ("null", params["findings"]["pure_decoding"], _take(words, a))]
    plen = params["sampling"]["prompt_length"]
    return {"creativity_texts": creativity_report.text_table(sets, plen)}


NULLS: dict[str, list[tuple[str, NullBuilder]]] = {
    "pure-more-novel-than-validation": [
        ("human halves", human_halves_novelty("pure-more-novel-than-validation"))
    ],
    "pure-vs-contaminated-baseline": [
        ("human halves", human_halves_novelty("pure-vs-contaminated-baseline"))
    ],
    "larger-less-novel": [("human halves", human_halves_novelty("larger-less-novel"))],
    "constrained-less-novel": [("human parts", human_parts_constrained)],
    "constrained-small-n-below-validation": [
        ("human halves", human_halves_novelty("constrained-small-n-below-validation"))
    ],
    "raven-top40-small-n": [("human halves", human_halves_raven("raven-top40-small-n"))],
    "raven-top40-large-n": [("human halves", human_halves_raven("raven-top40-large-n"))],
    "raven-pure-every-n": [("human halves", human_halves_raven("raven-pure-every-n"))],
    "lstm-less-novel-small-n": [("human halves", human_halves_raven("lstm-less-novel-small-n"))],
    "novelty-quality": [("human parts", human_parts_quality)],
    "completion-loss-in-training": [("permuted in-training labels", permuted_in_training)],
    "completion-loss-frequency": [("shuffled counts", shuffled_counts)],
    "prompt-length-no-effect": [
        ("human halves", human_halves_prompt_length(False), (F.FAILS,)),
        ("human halves, effect = margin", human_halves_prompt_length(True), (F.HOLDS,)),
    ],
    "train-vs-union": [("planted context, effect = margin", planted_context, (F.HOLDS,))],
    "syntax-local-less-novel": [("human halves", human_halves_syntax)],
    "more-templates": [("human halves", human_halves_templates)],
    "templates-in-training": [("human halves", human_halves_coverage, (F.HOLDS,))],
    "pos-exceeds-exact": [("permuted targets", permuted_targets, (F.HOLDS,))],
    "extraction-duplication": [("permuted copies", permuted_copies)],
    "benchmark-placement": [("permuted membership", permuted_placement)],
    "min-k-beats-loss": [("permuted membership", permuted_membership)],
    "cloze-training-plays": [("permuted plays", permuted_training_plays)],
    "cloze-excerpts": [
        ("permuted plays", permuted_excerpt_plays("membership_cloze_excerpts"))
    ],
    "cloze-excerpt-copies": [("permuted plays", permuted_excerpt_plays("membership_cloze_trend"))],
    "cloze-overlap-correlation": [("permuted overlap", permuted_overlap)],
    "contamination-lookup": [("permuted planted labels", permuted_contamination)],
    "human-more-creative": [("human halves", human_halves_creativity, (F.HOLDS,))],
}
"""claim id → its nulls (name, builder[, false verdicts]); a builder returns the claim's input
tables for one draw, or None when the run has no data for it. The false verdicts are the ones
the claim cannot deserve on that null: both ``holds`` and ``does not hold`` (the default) where
the effect is 0 by construction; for a claimed *absence* of an effect (an equivalence rule) on
a null whose effect is exactly the margin, ``holds`` alone (``does not hold`` is right there),
and on a null without effect, ``does not hold`` alone; for a rule whose ``does not hold`` also
means "an interval below the paper's effect size" (:func:`copyscope.report.findings
.effect_verdict` with a paper effect), ``holds`` alone on a null without effect, where an
effect smaller than the paper's is the truth."""
BOTH = (F.HOLDS, F.FAILS)


def null_spec(entry: tuple) -> tuple[str, NullBuilder, tuple[str, ...]]:
    """(name, builder, false verdicts) of an entry of :data:`NULLS`."""
    name, builder, *false = entry
    return name, builder, tuple(false[0]) if false else BOTH
