"""Power of the scorecard's rules on known positives: how often each rule reaches the right
verdict where the answer is known, at increasing sample sizes.

* **copier** — a synthetic sample set with a known share of copying: the held-out
  continuations of one half of the windows with a seeded share of their ``span``-token spans
  replaced by spans of training documents (:func:`copier_set`), matched against the index like
  any sample set. Against the other half's true continuations it is *less* novel, so Merrill
  et al.'s "pure samples are more novel than validation text at every n" must come out
  ``does not hold``; a copier with a larger share plays the larger of two models, so "larger
  models are less novel" must ``hold``.
* **ladder** — the memorization ladder's per-passage extraction results resampled with
  k passages per rung: extraction does grow with planted copies in the run, so "extraction
  grows with duplication" must ``hold``.
* **contamination** — k planted and k unplanted items of the contamination set resampled: the
  planted ones were trained on, so Li's placement ("contaminated items have lower
  perplexity") must ``hold``.
* **excerpt plays** — k excerpt plays of the highest copy count and the run's fully held-out
  plays of the name cloze resampled as whole plays (each with its items): a share of the
  excerpt plays' speeches was planted, so Zhang et al.'s "excerpts raise name cloze accuracy"
  must ``hold``;
* **training plays** — the same with k training plays: they were trained on, so Chang et
  al.'s "name cloze reveals books seen in training" must ``hold``;
* **templater** — k texts of one half of the parsed human continuations, a share of them
  (the largest of ``copier_shares``) given one more sentence, the same ``n``-word span of
  human text (words and tags) in each, as a model's greedy samples, against k texts of the
  other half: a syntactic pattern repeated across a share of the texts is a template of that
  set by construction, so Shaib et al.'s "models produce templated text at a higher rate than
  human references" must ``hold``;
* **copied words** — k texts of one half of the human continuations' words, a share (the
  largest of ``copier_shares``) of their ``copier_span``-word slots given the longest matches
  a verbatim training span gives them (:func:`copied_words`), as a model's pure samples,
  against k texts of the other half: copied words are covered, so Lu et al.'s "human text is
  more creative than model text" must ``hold``.

Each (claim, positive, size) is decided on ``draws`` seeded resamples (with replacement, the
bootstrap of the experiment) by the scorecard's own rule and table builders; the power is the
share of draws with the right verdict, with its 95% Wilson interval. :func:`size_for_power`
reads off the smallest size whose power reaches the target (0.8).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from . import findings as F
from .calibration import INPUTS as CALIBRATION_INPUTS
from .calibration import load
from .creativity import text_table as creativity_texts
from .jobs import Output, Params
from .membership import nll_delta_rows
from .memorization import memorization_table
from .name_cloze import cloze_excerpt_rows
from .nulls import Data, novelty_nulls, split_windows, template_tables

fig = lazy_module("copyscope.report.figures")

log = logging.getLogger(__name__)

NAME = "power"
HELP = (
    "power of the scorecard's rules on known positives (copier set, ladder, contamination set, "
    "excerpt plays) by sample size"
)
# the run's files the positives are built from: the null calibration's, the same declarations
INPUTS = {
    k: CALIBRATION_INPUTS[k]
    for k in ("tokens", "words", "index_manifest", "extraction", "membership", "cloze", "parses",
              "contaminated")
}  # fmt: skip
OUTPUTS = {
    "csv": Output(
        "tables/findings_power.csv",
        "findings_power.csv: claim, positive, size, draws, right verdict, power and interval",
        "findings_power",
        "findings",
    ),
    "fig": Output(
        "figures/findings_power.png",
        "figure: power against sample size per rule and positive (.png)",
        "findings_power",
        "findings",
    ),
}
PARAMS = Params(
    "the config blocks findings (with power), novelty, sampling, models, analysis",
    of=lambda p: {
        "findings": p.config["findings"],
        "novelty": p.config["novelty"],
        "sampling": p.config["sampling"],
        "models": {"zoo": p.config["models"]["zoo"]},
        "analysis": {k: p.config["analysis"][k] for k in ("memorization", "membership", "syntax")},
    },
)
COLUMNS = [
    "claim",
    "positive",
    "size",
    "observed",
    "draws",
    "right",
    "hits",
    "power",
    "power_lo",
    "power_hi",
]
"""``observed``: the run's own sample size for that positive; rows of a larger ``size`` are
projections (resamples with replacement of a larger experiment with the effect the run shows)."""


# --------------------------------------------------------------------------- the copier set
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


def _resample(frame: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    """``size`` windows of a per-token frame drawn with replacement, renumbered as texts."""
    windows = np.unique(frame["window"].to_numpy())
    pick = rng.choice(windows, size=size, replace=True)
    groups = dict(tuple(frame.groupby("window", sort=False)))
    return pd.concat(
        [groups[w].assign(text=i, window=i) for i, w in enumerate(pick)], ignore_index=True
    )


# --------------------------------------------------------------------------- the positives
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
            ("human", "reference", _resample(copier.human, size, rng)),
            ("copier", f["pure_decoding"], _resample(copier.sets[share], size, rng)),
        ]
        return novelty_nulls(sets, data, params, (f["novelty_source"],))

    return build


def copier_sizes(copier: Copier, low: float, high: float):
    """Builder: the copier of share ``low`` as the smaller and ``high`` as the larger of the
    two extreme gpt2 models of the zoo, both as pure sampling."""

    def build(rng, data, params, size):
        f, zoo = params["findings"], params["models"]["zoo"]
        sized = sorted((F.model_size(s), m) for m, s in zoo.items() if F.model_size(s))
        if len(sized) < 2 or sized[0][0] == sized[-1][0]:
            return None
        sets = [
            (sized[0][1], f["pure_decoding"], _resample(copier.sets[low], size, rng)),
            (sized[-1][1], f["pure_decoding"], _resample(copier.sets[high], size, rng)),
        ]
        return novelty_nulls(sets, data, params, (f["novelty_source"],))

    return build


def ladder_resample(rng, data, params, size):
    """Builder: ``size`` passages per rung (and controls) of each model's ladder, drawn with
    replacement."""
    if data.extraction is None or not len(data.extraction):
        return None
    parts = []
    for _, g in data.extraction.groupby(["model", "copies"], sort=False):
        parts.append(g.iloc[rng.integers(len(g), size=size)])
    m = params["analysis"]["memorization"]
    return {"memorization": memorization_table(pd.concat(parts), m["bootstrap"], m["seed"])}


def contamination_resample(rng, data, params, size):
    """Builder: ``size`` planted and ``size`` unplanted items of each model's contamination
    set, drawn with replacement: planted items were seen in training, so Li's placement rule
    must find them more familiar."""
    if data.membership is None or not len(data.membership):
        return None
    bench = data.membership[data.membership["set"] == "contamination"]
    parts = [g.iloc[rng.integers(len(g), size=size)]
             for _, g in bench.groupby(["model", "planted"], sort=False)]  # fmt: skip
    if not parts:
        return None
    m = params["analysis"]["membership"]
    texts = pd.concat(parts, ignore_index=True)
    return {"membership_nll_delta": nll_delta_rows(texts, m["bootstrap"], m["seed"])}


def _excerpt_groups(cloze: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """Per (model, side) the name cloze items the excerpt rule compares: ``top``, the excerpt
    plays of the highest copy count, and ``held-out``, the clean held-out plays."""
    groups = {}
    for model, g in cloze.groupby("model", sort=False):
        ex = g[g["split"] == "excerpt"]
        if "excerpt_copies" in ex and len(ex):
            groups[(model, "top")] = ex[ex["excerpt_copies"] == ex["excerpt_copies"].max()]
        groups[(model, "held-out")] = g[g["split"] == "valid"]
    return groups


def _training_groups(cloze: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """Per (model, side) the name cloze items the training-plays rule compares: ``top``, the
    training plays, and ``held-out``, the clean held-out plays."""
    groups = {}
    for model, g in cloze.groupby("model", sort=False):
        if (g["split"] == "train").any():
            groups[(model, "top")] = g[g["split"] == "train"]
        groups[(model, "held-out")] = g[g["split"] == "valid"]
    return groups


def excerpt_plays(cloze: pd.DataFrame | None, groups_of=_excerpt_groups) -> int:
    """The fewest plays of the ``top`` side of any model (the side the positive resizes; by
    default the excerpt plays of the highest copy count, :func:`_excerpt_groups`); 0: no such
    positive (no such plays or no held-out plays)."""
    if cloze is None or not len(cloze):
        return 0
    groups = groups_of(cloze)
    if len(groups) != 2 * cloze["model"].nunique():
        return 0
    if min(int(g["play"].nunique()) for g in groups.values()) == 0:
        return 0
    return min(int(g["play"].nunique()) for (_, side), g in groups.items() if side == "top")


def excerpt_resample(rng, data, params, size, groups_of=_excerpt_groups):
    """Builder: ``size`` excerpt plays of the highest copy count of each model's name cloze
    (the ``top`` side of ``groups_of``), and as many clean held-out plays as the run has,
    drawn with replacement as whole plays (a play drawn twice counts as two plays, each
    keeping all its items): the excerpt plays' planted speeches were trained on, so the
    excerpt rule must find them answered more often."""
    if not excerpt_plays(data.cloze, groups_of):
        return None
    parts = []
    for (_, side), h in groups_of(data.cloze).items():
        plays = h["play"].unique()
        n = size if side == "top" else len(plays)
        for j, k in enumerate(rng.integers(len(plays), size=n)):
            parts.append(h[h["play"] == plays[k]].assign(play=f"{plays[k]}#{j}"))
    m = params["analysis"]["membership"]
    frame = pd.concat(parts, ignore_index=True)
    return {"membership_cloze_excerpts": cloze_excerpt_rows(frame, m["bootstrap"], m["seed"])}


def training_resample(rng, data, params, size):
    """Builder: ``size`` training plays of each model's name cloze and as many clean
    held-out plays as the run has, drawn with replacement as whole plays
    (:func:`excerpt_resample` with :func:`_training_groups`): the training plays were
    trained on, so the training-plays rule must find them answered more often."""
    return excerpt_resample(rng, data, params, size, _training_groups)


def templated(texts: list, share: float, span: list, rng: np.random.Generator) -> list:
    """Copies of tagged ``texts`` (per text its sentences, each a list of (word, tag)) in which
    round(share · len(texts)) texts, drawn at random, end with one more sentence: ``span``,
    the same words and tags in each. A POS n-gram that a share of the texts holds is among
    the set's most frequent, so those texts hold a template of the set by construction."""
    chosen = set(rng.choice(len(texts), size=round(share * len(texts)), replace=False).tolist())
    return [[*t, list(span)] if i in chosen else t for i, t in enumerate(texts)]


class Templater:
    """The halves of the parsed human continuations the templater positive draws from: a span
    of ``n`` words of a sentence of the model half (the one its texts repeat) is drawn per
    resample."""

    def __init__(self, data: Data, params: Mapping, seed: int):
        self.n = params["analysis"]["syntax"]["template_headline_n"]
        texts = data.human_texts
        a, b = split_windows(np.arange(len(texts)), 2, np.random.default_rng([seed, 2]))
        self.model, self.human = [texts[i] for i in a], [texts[i] for i in b]
        self.sentences = [s for t in self.model for s in t if len(s) >= self.n]
        self.max_size = min(len(self.model), len(self.human))


def templater_vs_human(templater: Templater, share: float):
    """Builder: ``size`` texts of the model half drawn with replacement, a ``share`` of them
    ending with the same ``n``-word span (:func:`templated`), as a model's greedy samples,
    against ``size`` texts of the human half."""

    def build(rng, data, params, size):
        greedy = F.greedy_decodings(params)
        if not greedy or not templater.sentences:
            return None
        sentence = templater.sentences[rng.integers(len(templater.sentences))]
        start = rng.integers(len(sentence) - templater.n + 1)
        span = sentence[start : start + templater.n]
        model = [templater.model[i] for i in rng.integers(len(templater.model), size=size)]
        human = [templater.human[i] for i in rng.integers(len(templater.human), size=size)]
        return template_tables(templated(model, share, span, rng), human, greedy[0], params, rng)

    return build


def copied_words(words: pd.DataFrame, share: float, span: int, rng) -> pd.DataFrame:
    """A per-word frame (columns text, L_train, L_nat, in word order within a text) in which
    round(share · slots) of the ``span``-word slots (each text cut into whole slots from its
    start), drawn at random over all texts, are copied from training: the j-th word of a
    copied slot (j = 0..span−1) gets a longest match of at least j + 1 words in both columns
    (``max(L, j + 1)``), what a verbatim training span gives it against the index (the bound
    :func:`copier_set`'s test checks on a real index; the words before the slot can only
    lengthen the match)."""
    out = words.copy()
    texts = out["text"].to_numpy()
    starts = np.flatnonzero(np.r_[True, texts[1:] != texts[:-1]])
    ends = np.r_[starts[1:], len(texts)]
    slots = [s + k for s, e in zip(starts, ends, strict=True) for k in range(0, e - s - span + 1, span)]
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
            ("human", "reference", _resample(copied.human, size, rng)),
            ("copier", params["findings"]["pure_decoding"], _resample(copied.model, size, rng)),
        ]
        return {"creativity_texts": creativity_texts(sets, params["sampling"]["prompt_length"])}

    return build


# --------------------------------------------------------------------------- power
def power_at(claim, builder, right, data, params, size, draws, seed) -> dict | None:
    """The share of ``draws`` resamples of ``size`` on which ``claim`` reaches the ``right``
    verdict, with its 95% Wilson interval; None without data."""
    decide, hits = F.CLAIMS[claim], 0
    for i in range(draws):
        tables = builder(np.random.default_rng([seed, size, i]), data, params, size)
        if tables is None:
            return None
        hits += decide(tables, params).verdict == right
    p, lo, hi = F.wilson(hits, draws)
    return {"draws": draws, "right": right, "hits": hits, "power": p, "power_lo": lo,
            "power_hi": hi}  # fmt: skip


def _sizes(sizes, largest: int) -> list[int]:
    return sorted({s for s in sizes if s <= largest} | {largest})


def _projected(sizes, observed: int) -> list[int]:
    """Every configured size and the run's own one: the larger ones are projections."""
    return sorted(set(sizes) | {observed})


def power_table(data: Data, index, params: Mapping) -> pd.DataFrame:
    """One row per (claim, positive, size) this run has data for (``findings.power``)."""
    p = params["findings"]["power"]
    draws, seed, rows = p["draws"], p["seed"], []
    positives = []
    if data.tokens is not None and index is not None:
        copier = Copier(data, index, params, seed)
        shares = sorted(p["copier_shares"])
        sizes = _sizes(p["sizes"], copier.max_size)
        for share in shares:
            positives.append(
                ("pure-more-novel-than-validation", f"copier {share:.0%}",
                 copier_vs_human(copier, share), F.FAILS, sizes, copier.max_size)
            )  # fmt: skip
        if len(shares) > 1:
            positives.append(
                ("larger-less-novel", f"copier {shares[0]:.0%} vs {shares[-1]:.0%}",
                 copier_sizes(copier, shares[0], shares[-1]), F.HOLDS, sizes, copier.max_size)
            )  # fmt: skip
    # the ladder and the contamination set are also projected to larger sizes (§3: which
    # budget would power the rule at the effect this run shows)
    if data.extraction is not None and len(data.extraction):
        per = int(data.extraction.groupby(["model", "copies"]).size().max())
        positives.append(
            ("extraction-duplication", "planted ladder", ladder_resample, F.HOLDS,
             _projected(p["sizes"], per), per)
        )  # fmt: skip
    if data.membership is not None and (data.membership["set"] == "contamination").any():
        bench = data.membership[data.membership["set"] == "contamination"]
        per = int(bench.groupby(["model", "planted"]).size().min())
        positives.append(
            ("benchmark-placement", "planted contamination items", contamination_resample, F.HOLDS,
             _projected(p["sizes"], per), per)
        )  # fmt: skip
    if per := excerpt_plays(data.cloze):
        positives.append(
            ("cloze-excerpts", "planted excerpt plays (highest copies)", excerpt_resample, F.HOLDS,
             _projected(p["sizes"], per), per)
        )  # fmt: skip
    syntax = params["analysis"].get("syntax")
    if data.human_texts and syntax and F.greedy_decodings(params):
        templater = Templater(data, params, seed)
        share = max(p["copier_shares"])
        positives.append(
            ("more-templates", f"templater {share:.0%}", templater_vs_human(templater, share),
             F.HOLDS, _sizes(p["sizes"], templater.max_size), templater.max_size)
        )  # fmt: skip
    if per := excerpt_plays(data.cloze, _training_groups):
        positives.append(
            ("cloze-training-plays", "training plays", training_resample, F.HOLDS,
             _projected(p["sizes"], per), per)
        )  # fmt: skip
    if data.words is not None and {"L_train", "window"} <= set(data.words.columns):
        share = max(p["copier_shares"])
        copied = CopiedWords(data, params, seed, share)
        if copied.max_size:
            positives.append(
                ("human-more-creative", f"copied words {share:.0%}", copied_vs_human(copied),
                 F.HOLDS, _sizes(p["sizes"], copied.max_size), copied.max_size)
            )  # fmt: skip
    for claim, name, builder, right, sizes, observed in positives:
        for size in sizes:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                r = power_at(claim, builder, right, data, params, size, draws, seed)
            if r is None:
                continue
            log.info("%s, %s, size %d: power %.2f", claim, name, size, r["power"])
            rows.append({"claim": claim, "positive": name, "size": size, "observed": observed,
                         **r})  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS)


def size_for_power(table: pd.DataFrame, target: float = 0.8) -> pd.DataFrame:
    """Per (claim, positive): the smallest size whose power reaches ``target`` (NaN when no
    size does)."""
    out = []
    for (claim, positive), g in table.groupby(["claim", "positive"], sort=False):
        ok = g.loc[g["power"] >= target, "size"]
        out.append({"claim": claim, "positive": positive,
                    "size_for_power": float(ok.min()) if len(ok) else np.nan})  # fmt: skip
    return pd.DataFrame(out, columns=["claim", "positive", "size_for_power"])


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Measure every positive this run has data for; write the power table and its figure."""
    from .. import index as index_stage

    data = load(inputs)
    manifests = inputs.get("index_manifest") or []
    index = index_stage.open(manifests[0][-1]) if manifests else None
    table = power_table(data, index, params)
    write_csv(out["csv"], table)
    fig.power(table, params["findings"]["power"]["target"], out["fig"])
