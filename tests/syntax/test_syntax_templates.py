"""Syntactic templates (Shaib et al. 2024) against the ``diversity`` package's own functions
(version 0.3.1) on a fixed pre-tagged input, plus each documented difference."""

from __future__ import annotations

import gzip
import importlib
import importlib.util
import random
import sys
import types
from collections import Counter

import numpy as np
import pytest

from copyscope.syntax.templates import (
    TemplateRates,
    compression_ratio,
    coverage,
    cr,
    cr_pos,
    matched_spans,
    ngram_ranks,
    non_template_ngrams,
    pos_ngram_counts,
    scaled_cut,
    template_occurrences,
    template_rate,
    template_rate_test,
    template_summary,
    templates_in_training,
    templates_per_token,
    text_words,
    top_templates,
    training_comparison,
    training_ngram_counts,
    training_rank_of,
)


def diversity(module: str):
    """A module of the installed ``diversity`` package, imported without the package's
    ``__init__`` (which loads embedding models and remote-API clients the tested functions do
    not use)."""
    if "diversity" not in sys.modules:
        spec = importlib.util.find_spec("diversity")
        assert spec is not None, "diversity==0.3.1 is not installed (requirements-reference.txt)"
        pkg = types.ModuleType("diversity")
        pkg.__path__ = list(spec.submodule_search_locations)
        sys.modules["diversity"] = pkg
    return importlib.import_module(f"diversity.{module}")


def tagged(sentence: str) -> list[tuple[str, str]]:
    """``"the/DT dog/NN"`` → ``[("the", "DT"), ("dog", "NN")]``."""
    return [tuple(tok.rsplit("/", 1)) for tok in sentence.split()]


TEXTS = [
    [
        tagged("the/DT big/JJ dog/NN ran/VBD home/NN ./."),
        tagged("a/DT small/JJ cat/NN sat/VBD down/RB ./."),
    ],
    [tagged("the/DT old/JJ man/NN ran/VBD away/RB ./.")],
    [tagged("we/PRP saw/VBD the/DT red/JJ car/NN ./."), tagged("it/PRP rained/VBD ./.")],
    [tagged("an/DT old/JJ man/NN sat/VBD ./."), tagged("she/PRP ran/VBD home/NN ./.")],
    [],
]
SENTENCES = [s for text in TEXTS for s in text]


def package_templates(n: int, top_k: int) -> dict[str, set[str]]:
    """``extract_patterns`` without its sentence splitter and tagger: the package's own
    ``token_patterns`` and ``pos_patterns`` on the given sentences and tags."""
    token_patterns = diversity("patterns.Token").token_patterns
    pos_patterns = diversity("patterns.part_of_speech").pos_patterns
    joined_pos = [" ".join(t for _, t in s) for s in SENTENCES]
    return {p: pos_patterns(SENTENCES, p) for p, _ in token_patterns(joined_pos, n, top_k)}


def ours_as_strings(spans) -> dict[str, set[str]]:
    return {" ".join(t): {" ".join(s) for s in group} for t, group in spans.items()}


@pytest.mark.parametrize(("n", "top_k"), [(2, 3), (3, 4), (3, 100), (4, 2), (5, 100)])
def test_templates_and_spans_equal_the_package(n, top_k):
    ours = top_templates(TEXTS, n, top_k)
    theirs = package_templates(n, top_k)
    assert [" ".join(t) for t, _ in ours] == list(
        theirs
    )  # same order: counts, then first occurrence
    assert ours_as_strings(matched_spans(TEXTS, [t for t, _ in ours])) == theirs


def test_ties_are_broken_by_first_occurrence():
    # n = 3: DT JJ NN (5), JJ NN VBD (4), then three n-grams of count 2 compete for two places:
    # VBD NN . (first seen in sentence 1) and NN VBD RB, VBD RB . (sentence 2)
    ours = top_templates(TEXTS, 3, 4)
    assert ours[:2] == [(("DT", "JJ", "NN"), 5), (("JJ", "NN", "VBD"), 4)]
    assert ours[2:] == [(("VBD", "NN", "."), 2), (("NN", "VBD", "RB"), 2)]


def test_rate_and_templates_per_token_equal_the_package():
    template = diversity("template")
    data = [" ".join(text_words(t)) for t in TEXTS]
    for n, top_k in [(2, 3), (3, 4), (4, 2)]:
        spans = matched_spans(TEXTS, [t for t, _ in top_templates(TEXTS, n, top_k)])
        package = package_templates(n, top_k)
        assert template_rate(TEXTS, spans) == template.template_rate(data, package)
        assert templates_per_token(TEXTS, spans) == template.templates_per_token(data, package)


def test_spans_are_matched_on_words_not_inside_longer_words():
    """Documented difference: the package finds the span "a cat sat" inside "santa cat sat"."""
    texts = [[tagged("a/DT cat/NN sat/VBD ./.")], [tagged("santa/NNP cat/NN sat/VBD ./.")]]
    spans = matched_spans(texts, [("DT", "NN", "VBD")])
    data = [" ".join(text_words(t)) for t in texts]
    template = diversity("template")
    package = ours_as_strings(spans)
    assert template.templates_per_token(data, package) == [1 / 4, 1 / 4]
    assert templates_per_token(texts, spans) == [1 / 4, 0.0]
    assert template_rate(texts, spans) == 0.5
    assert template.template_rate(data, package) == 1.0


def test_occurrences_overlap_and_count_once_per_position():
    spans = {("A", "A"): frozenset({("x", "x")}), ("B", "B"): frozenset({("x", "x"), ("x", "y")})}
    assert template_occurrences(["x", "x", "x", "y"], spans) == 3
    assert template_occurrences([], spans) == 0


def test_empty_inputs():
    assert template_rate([], {}) == 0.0
    assert template_rate(TEXTS, {("DT",): frozenset()}) == 0.0
    assert templates_per_token([[]], {("DT",): frozenset({("the",)})}) == [0.0]
    assert np.isnan(compression_ratio([]))
    # texts without words are left out of CR and CR-POS: none at all gives NaN
    assert np.isnan(cr([[], []])) and np.isnan(cr_pos([[], [[]]]))
    assert cr([*TEXTS, []]) == cr(TEXTS) and cr_pos([[], *TEXTS]) == cr_pos(TEXTS)


def test_compression_is_single_gzip_and_differs_from_the_package_only_on_tiny_inputs():
    compression = diversity("compression")
    tiny = ["the dog ran home ."]
    raw = tiny[0].encode()
    assert compression_ratio(tiny) == len(raw) / len(gzip.compress(raw))
    assert compression.compression_ratio(tiny) < round(compression_ratio(tiny), 3)  # double gzip
    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(300)]
    big = [" ".join(rng.choice(vocab) for _ in range(60)) for _ in range(400)]
    ours, theirs = compression_ratio(big), compression.compression_ratio(big)
    assert ours != theirs and abs(ours - theirs) / ours < 0.005


def test_cr_and_cr_pos_compress_words_and_tags():
    # the last text of TEXTS is empty: left out (the package would add a separating space)
    assert cr(TEXTS) == compression_ratio([" ".join(text_words(t)) for t in TEXTS[:-1]])
    tags = [" ".join(tag for s in t for _, tag in s) for t in TEXTS[:-1]]
    assert cr_pos(TEXTS) == compression_ratio(tags)
    compression = diversity("compression")
    assert round(cr_pos(TEXTS), 1) >= round(compression.compression_ratio(tags), 1)


def test_summary():
    s = template_summary(TEXTS, 3, 4)
    assert s["n"] == 3 and len(s["templates"]) == 4 and s["texts"] == 5 and s["words"] == 36
    assert s["template_rate"] == pytest.approx(4 / 5)
    assert s["templates_per_token"] == pytest.approx(
        np.mean(templates_per_token(TEXTS, s["spans"]))
    )


# --- templates in the training data ------------------------------------------------------------


def test_ranks_follow_frequency_then_first_occurrence():
    counts = Counter({("A",): 1, ("B",): 3, ("C",): 3})
    assert ngram_ranks(counts) == {("B",): 1, ("C",): 2, ("A",): 3}
    rank_of, distinct = training_rank_of([["DT", "NN", "VBD"], ["DT", "NN"], ["NN", "VBD"]], 2)
    assert distinct == 2 and rank_of(("DT", "NN")) == 1 and rank_of(("NN", "VBD")) == 2
    assert rank_of(("VBD", "DT")) is None


def test_pos_ngrams_stay_within_sentences():
    counts = pos_ngram_counts(TEXTS, 2)
    assert (".", "DT") not in counts and (".", "PRP") not in counts


def test_non_template_ngrams_exclude_templates_and_are_seeded():
    templates = [t for t, _ in top_templates(TEXTS, 3, 4)]
    pool = [g for g in pos_ngram_counts(TEXTS, 3) if g not in templates]
    drawn = non_template_ngrams(TEXTS, 3, templates, 3, seed=5)
    assert len(drawn) == 3 and len(set(drawn)) == 3 and set(drawn) <= set(pool)
    assert drawn == non_template_ngrams(TEXTS, 3, templates, 3, seed=5)
    assert non_template_ngrams(TEXTS, 3, templates, 1000) == pool


def test_coverage_and_mann_whitney():
    ranks = {("A",): 1, ("B",): 2, ("C",): 3, ("D",): 50}
    rank_of = ranks.get
    templates = [("A",), ("B",), ("C",)]
    others = [("D",), ("E",), ("F",)]  # E, F absent from training
    assert coverage(templates, rank_of, 2) == pytest.approx(2 / 3)
    assert coverage(others, rank_of, None) == pytest.approx(1 / 3)
    assert np.isnan(coverage([], rank_of, 2))
    out = training_comparison(templates, others, rank_of, distinct=100, cut=3)
    assert out["coverage_templates"] == 1.0 and out["coverage_non_templates"] == 0.0
    assert out["median_rank_non_templates"] == 101  # absences rank behind every training n-gram
    assert out["mannwhitney_u"] == 0.0  # every template ranks before every non-template
    assert out["p_value"] < 0.2


def test_scaled_cut():
    assert scaled_cut(10_000_000_000) == 50_000
    assert scaled_cut(1_000_000_000) == 5_000
    assert scaled_cut(1_000_000) == 100  # the minimum


def test_templates_in_training_lists_ranks_and_counts():
    training = [["DT", "JJ", "NN", "VBD"], ["DT", "JJ", "NN"], ["PRP", "VBD", "."]]
    counts = training_ngram_counts(training, 3)
    rank_of, distinct = training_rank_of(training, 3)
    table, summary = templates_in_training(
        TEXTS, 3, rank_of, distinct, cut=1, top_k=2, count_of=counts.get
    )
    assert list(table["template"]) == ["DT JJ NN", "JJ NN VBD"]
    assert list(table["training_rank"]) == [1, 2] and list(table["training_count"]) == [2, 1]
    assert list(table["in_cut"]) == [True, False]
    assert summary["templates"] == 2 and summary["non_templates"] == 2
    assert summary["coverage_templates"] == 0.5 and summary["found_templates"] == 1.0


def _random_tagged(rng, texts, words="abcdef", tags="ABCD"):
    """Random tagged texts: 1-3 sentences of 0-9 (word, tag) pairs (a tag mostly follows
    its word, so word spans and POS n-grams correlate)."""
    out = []
    for _ in range(texts):
        text = []
        for _ in range(int(rng.integers(1, 4))):
            ws = rng.choice(list(words), size=int(rng.integers(0, 10)))
            text.append([(str(w), tags[(ord(w) + int(rng.integers(0, 2))) % len(tags)])
                         for w in ws])  # fmt: skip
        out.append(text)
    return out


@pytest.mark.parametrize("n, top_k", [(1, 2), (2, 3), (3, 100), (2, 1)])
def test_template_rates_of_any_subset_equal_template_summary(n, top_k):
    """TemplateRates.rate (every subset's own templates, recomputed) is the rate of
    template_summary on that subset: same top-k with first-occurrence ties, same spans."""
    rng = np.random.default_rng(n * 10 + top_k)
    texts = _random_tagged(rng, 30)
    rates = TemplateRates(texts, n, top_k)
    for _ in range(40):
        mask = rng.random(len(texts)) < rng.uniform(0.1, 0.9)
        subset = [t for t, keep in zip(texts, mask, strict=True) if keep]
        want = template_summary(subset, n, top_k)["template_rate"]
        assert rates.rate(mask) == pytest.approx(want, abs=1e-12)
    assert rates.rate(np.zeros(len(texts), dtype=bool)) == 0.0


def _numpy_rate(rates: TemplateRates, mask: np.ndarray) -> float:
    """The template rate of one subset in numpy array passes (the steps TemplateRates.rate
    took before its compiled kernel): top n-grams by the distinct keys count·(T + 1) − first."""
    size = int(mask.sum())
    if not size or not rates.n_pos:
        return 0.0
    pair = rates.trip_t * rates.n_pos + rates.trip_g
    uniq, first = np.unique(pair, return_index=True)
    first = first[np.lexsort((first, uniq % rates.n_pos))]  # in the pairs' order
    m = mask[rates.pair_t]
    g, first = rates.pair_g[m], first[m]
    if not len(g):
        return 0.0
    lead = np.r_[True, g[1:] != g[:-1]]
    g, first = g[lead], first[lead]
    count = np.bincount(rates.pair_g[m], weights=rates.pair_count[m], minlength=rates.n_pos)
    key = count[g].astype(np.int64) * (len(rates.trip_t) + 1) - first
    k = min(rates.top_k, len(g))
    is_top = np.zeros(rates.n_pos, dtype=bool)
    is_top[g[np.argpartition(-key, k - 1)[:k]]] = True
    spans = np.zeros(rates.n_spans, dtype=bool)
    spans[rates.trip_w[mask[rates.trip_t] & is_top[rates.trip_g]]] = True
    has = np.zeros(rates.n_texts, dtype=bool)
    has[rates.pos_t[mask[rates.pos_t] & spans[rates.pos_w]]] = True
    return float(has.sum()) / size


@pytest.mark.parametrize("n, top_k", [(1, 2), (2, 3), (3, 100), (2, 1), (12, 5)])
def test_compiled_rates_of_many_subsets_are_rate_bit_for_bit(n, top_k):
    """TemplateRates.rates (one compiled call for many subsets) gives exactly the floats of
    the numpy steps on each subset, empty and full subsets included, and whatever subsets
    came before it in the batch (its work arrays are reset); rate is its one-subset call."""
    rng = np.random.default_rng(100 + n * 10 + top_k)
    texts = _random_tagged(rng, 40)
    rates = TemplateRates(texts, n, top_k)
    masks = rng.random((60, len(texts))) < rng.uniform(0.05, 0.95, size=(60, 1))
    masks[0], masks[1] = False, True
    want = np.array([_numpy_rate(rates, m) for m in masks])
    assert [rates.rate(m) for m in masks] == want.tolist()
    got = rates.rates(masks)
    assert got.tobytes() == want.tobytes()
    assert rates.rates(masks[::-1]).tobytes() == want[::-1].tobytes()
    if n == 12:  # no sentence this long: no POS n-grams, every rate 0
        assert rates.n_pos == 0 and not got.any()


def test_template_rate_test_detects_a_templated_set_and_is_calibrated_on_halves():
    rng = np.random.default_rng(3)
    human = _random_tagged(rng, 60, words="abcdefghijklmnop", tags="ABCDEFGH")
    templated = [[[("the", "A"), ("cat", "B"), ("sat", "C")], *t] for t in
                 _random_tagged(rng, 60, words="abcdefghijklmnop", tags="ABCDEFGH")]  # fmt: skip
    d, up, down = template_rate_test(templated, human, 3, 5, 200, 0)
    assert d > 0 and up < 0.01 and down > 0.9
    d, up, down = template_rate_test(human, templated, 3, 5, 200, 0)
    assert d < 0 and down < 0.01
    # which set a text came from, or its place in its set, does not change the statistic
    mixed = _random_tagged(rng, 80, words="abc", tags="AB")  # many ties among n-grams
    a, b = mixed[:40], mixed[40:]
    want = template_rate_test(a, b, 2, 2, 100, 1)
    assert template_rate_test(a[::-1], b[::-1], 2, 2, 100, 1) == want
    assert template_rate_test(b, a, 2, 2, 100, 1)[0] == pytest.approx(-want[0])
    # two halves of one population: the one-sided p-values are (about) uniform
    pool = _random_tagged(rng, 400, words="abcdefghij", tags="ABCDE")
    ps = []
    for i in range(40):
        order = np.random.default_rng(i).permutation(len(pool))
        a, b = [pool[j] for j in order[:50]], [pool[j] for j in order[50:100]]
        ps.append(template_rate_test(a, b, 3, 5, 99, i)[1])
    assert 0.25 < np.mean(ps) < 0.75
    assert np.mean(np.array(ps) < 0.05) <= 0.15
