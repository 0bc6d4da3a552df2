"""Style vs exact memorization (Shaib et al. §8): the word/tag measures on hand-worked inputs,
a planted style-only memorization and a control through the tagging path (a lexicon backend,
no tagger), the repeated-n-gram sampler against brute-force counts, the table and the claim."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from copyscope.index import Index, build_index
from copyscope.index.ngrams import ngram_counts, window_counts
from copyscope.report.findings import CLAIMS, FAILS, HOLDS, MIXED, UNCLEAR
from copyscope.report.style import style_table
from copyscope.syntax.style import (
    aligned_match,
    planted_mask,
    repeat_spans,
    sample_repeats,
    strata_labels,
    stratified_sample,
    stratum_of,
    style_measures,
    style_rows,
    touches,
)
from copyscope.syntax.types import Sentence, Word
from support.index import brute_count, stream_of

SEP = int(np.iinfo(np.uint16).max)


# ---------------------------------------------------------------- the measures
@pytest.mark.parametrize(
    "target, generated, fraction, exact",
    [
        ("DT NN VBZ", "DT NN VBZ", 1.0, True),
        ("DT NN VBZ", "DT NN VBD .", 2 / 3, False),  # one miss; the extra tag is ignored
        ("DT NN VBZ", "DT NN VBZ . CC", 1.0, True),  # longer generation: first W compared
        ("DT NN VBZ", "DT", 1 / 3, False),  # shorter generation: absent positions miss
        ("DT NN VBZ", "", 0.0, False),
        ("DT NN VBZ JJ", "NN DT VBZ JJ", 0.5, False),  # positional, not a bag of tags
    ],
)
def test_aligned_match_hand_worked(target, generated, fraction, exact):
    f, e = aligned_match(target.split(), generated.split())
    assert f == pytest.approx(fraction) and e is exact


def test_aligned_match_empty_target():
    f, e = aligned_match([], ["DT"])
    assert math.isnan(f) and e is False


def test_style_measures_pos_without_words():
    """Same tags, other words: POS memorized, not exact."""
    m = style_measures(
        ["the", "king", "is", "dead"],
        ["DT", "NN", "VBZ", "JJ"],
        ["a", "queen", "was", "dead", "."],
        ["DT", "NN", "VBD", "JJ", "."],
    )
    assert m["word_match"] == pytest.approx(0.25) and m["word_exact"] == 0
    assert m["pos_match"] == pytest.approx(0.75) and m["pos_exact"] == 0
    m = style_measures(["the", "king"], ["DT", "NN"], ["a", "queen"], ["DT", "NN"])
    assert (m["word_exact"], m["pos_exact"], m["word_match"], m["pos_match"]) == (0, 1, 0.0, 1.0)
    assert (m["n_target_words"], m["n_generated_words"]) == (2, 2)


# ---------------------------------------------------------------- tagging path, no tagger
LEXICON = {
    "the": "DT", "a": "DT", "king": "NN", "queen": "NN", "dog": "NN", "is": "VBZ",
    "was": "VBD", "dead": "JJ", "alive": "JJ", "run": "VB", "quickly": "RB", "to": "TO",
    "O": "UH", "prompt": "NN", "words": "NNS", "here": "RB", ".": ".",
}  # fmt: skip


class LexiconBackend:
    """A backend whose tags come from :data:`LEXICON` (one sentence per text, words split at
    spaces, flat heads): the measures are tested without a statistical tagger."""

    name = "lexicon"

    def parse(self, pieces):
        out = []
        for text, boundary in pieces:
            words, pos = [], 0
            for token in text.split():
                start = text.index(token, pos)
                pos = start + len(token)
                words.append(Word(token, LEXICON[token], 0, "dep", pos > boundary))
            out.append([Sentence(tuple(words))])
        return out


PARAMS = {"max_sentence_words": 1000, "chunk_chars": 3000}


def extraction_frame(rows):
    return pd.DataFrame(
        [
            {"model": "m", "passage": f"p{i}", "kind": kind, "copies": c, "exact": int(t == g),
             "prompt": "prompt words here", "target": t, "generated": g}
            for i, (kind, c, t, g) in enumerate(rows)
        ]
    )  # fmt: skip


def test_planted_style_memorization_and_control():
    """A planted passage continued with the same tags but other words is POS-memorized and
    not exactly memorized; a control continued with other tags is neither; an exact copy is
    both. Only the continuation's words are compared (the prompt's are not)."""
    frame = extraction_frame(
        [
            ("planted", 8, " the king is dead .", " a queen was alive ."),  # VBZ vs VBD
            ("planted", 8, " the king is dead .", " a dog is alive ."),  # same tags
            ("planted", 64, " the king is dead .", " the king is dead ."),
            ("control", 0, " the king is dead .", " O run quickly to ."),
        ]
    )
    out = style_rows(frame, "ladder", LexiconBackend(), PARAMS)
    assert out["n_target_words"].tolist() == [5, 5, 5, 5]
    assert out["word_exact"].tolist() == [0, 0, 1, 0]
    assert out["pos_exact"].tolist() == [0, 1, 1, 0]
    assert out["pos_match"].tolist() == pytest.approx([0.8, 1.0, 1.0, 0.2])
    assert out["word_match"].tolist() == pytest.approx([0.2, 0.4, 1.0, 0.2])
    assert out["target_tags"].iloc[0] == "DT NN VBZ JJ ."
    assert out["stratum"].tolist() == ["8", "8", "64", "control"]
    assert out["planted"].tolist() == [1, 1, 1, 0]


# ---------------------------------------------------------------- the sampler
DOCS = [
    [1, 2, 3, 4, 5, 1, 2, 3, 4, 6],
    [1, 2, 3, 4, 5, 7, 7, 7, 7],
    [9, 1, 2, 3, 4, 5],
    [8, 8],
    [1, 2, 3],
]


def brute_ngram_counts(docs, n):
    """position in the stream → occurrences of its n-gram (n-grams inside documents)."""
    counts = Counter(tuple(d[i : i + n]) for d in docs for i in range(len(d) - n + 1))
    out, base = {}, 0
    for d in docs:
        for i in range(len(d) - n + 1):
            out[base + i] = counts[tuple(d[i : i + n])]
        base += len(d) + 1
    return out


def stream_index(tmp_path, docs, shard_tokens=None):
    build_index(stream_of(docs), tmp_path / "idx", shard_tokens=shard_tokens)
    return Index(tmp_path / "idx")


def sampled(tmp_path, docs, n, bounds, per_stratum, seed, excluded=None, shard_tokens=None):
    counts, keys = window_counts(stream_index(tmp_path, docs, shard_tokens), n)
    return sample_repeats(counts, keys, n, bounds, per_stratum, seed, excluded)


@pytest.mark.parametrize("shard_tokens", [None, 9])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 6])
def test_window_counts_brute_force(tmp_path, n, shard_tokens):
    index = stream_index(tmp_path, DOCS, shard_tokens)
    counts, keys = window_counts(index, n)
    brute = brute_ngram_counts(DOCS, n)
    valid = keys >= 0
    assert {int(i): int(c) for i, c in enumerate(counts) if valid[i]} == brute
    assert (counts[~valid] == 0).all()
    tokens = stream_of(DOCS)
    grams = [tuple(tokens[p : p + n]) for p in brute]
    named = {(g, int(keys[p])) for g, p in zip(grams, brute, strict=True)}
    assert len(named) == len(set(grams)) == len({k for _, k in named})  # a key per n-gram


def old_sample_repeats(tokens, n, sep, bounds, per_stratum, seed, excluded=None):
    """The sampler before the batched index counts: n-grams named and counted by a rolling
    polynomial hash of the stream (the reference the new counting must reproduce; the draw
    from the strata is the production one, :func:`stratified_sample`)."""
    t = np.asarray(tokens, dtype=np.uint64)
    m = len(t) - n + 1
    h, bad = np.zeros(m, np.uint64), np.zeros(m, bool)
    with np.errstate(over="ignore"):
        for j in range(n):
            h = h * np.uint64(0x9E3779B97F4A7C15) + (t[j : j + m] + np.uint64(1))
            bad |= np.asarray(tokens)[j : j + m] == sep
    valid = ~bad
    counts = np.zeros(m, np.int64)
    _, inverse, per = np.unique(h[valid], return_inverse=True, return_counts=True)
    counts[valid] = per[inverse]
    if excluded is not None:
        cut = np.concatenate([[0], np.cumsum(np.asarray(excluded, dtype=np.int64))])
        valid &= (cut[n : n + m] - cut[:m]) == 0
    pos = np.flatnonzero(valid)
    _, first = np.unique(h[pos], return_index=True)
    return stratified_sample(np.sort(pos[first]), counts, bounds, per_stratum, seed)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sample_repeats_brute_force(tmp_path, seed):
    n, bounds = 3, [1, 2, 3]
    tokens = stream_of(DOCS)
    brute = brute_ngram_counts(DOCS, n)
    spans = sampled(tmp_path, DOCS, n, bounds, 2, seed)
    grams = [tuple(tokens[p : p + n]) for p in spans["position"]]
    assert len(set(grams)) == len(grams)  # distinct n-grams
    for p, c, k in spans[["position", "count", "stratum"]].itertuples(index=False):
        assert brute[p] == c and stratum_of(c, bounds) == k
        assert SEP not in tokens[p : p + n]
        # taken at its first occurrence
        assert min(q for q in brute if tuple(tokens[q : q + n]) == tuple(tokens[p : p + n])) == p
    distinct = {}
    for p, c in brute.items():
        distinct.setdefault(tuple(tokens[p : p + n]), c)
    for k in range(len(bounds)):
        available = sum(stratum_of(c, bounds) == k for c in distinct.values())
        assert (spans["stratum"] == k).sum() == min(2, available)
    assert spans.equals(old_sample_repeats(tokens, n, SEP, bounds, 2, seed))  # the old sampler


@pytest.mark.parametrize("seed", [0, 1])
def test_sample_repeats_equal_the_hash_sampler(tmp_path, seed):
    """On a larger stream with repeated documents, across shards, with an excluded region:
    the same spans as the rolling-hash sampler it replaces."""
    rng = np.random.default_rng(seed)
    docs = [list(rng.integers(0, 4, size=int(rng.integers(1, 40)))) for _ in range(40)]
    docs += [docs[i] for i in rng.integers(0, 40, size=15)]
    tokens = stream_of(docs)
    excluded = np.zeros(len(tokens), bool)
    excluded[100:180] = True
    for n in (2, 5, 9):
        spans = sampled(tmp_path / str(n), docs, n, [1, 2, 4], 5, seed, excluded, 300)
        assert spans.equals(old_sample_repeats(tokens, n, SEP, [1, 2, 4], 5, seed, excluded))


def test_sample_repeats_excluded(tmp_path):
    """No sampled span holds an excluded token; the counts stay the training counts."""
    tokens = stream_of(DOCS)
    excluded = np.zeros(len(tokens), bool)
    excluded[0:10] = True  # the first document
    spans = sampled(tmp_path, DOCS, 4, [1, 2], 10, 0, excluded)
    assert not touches(excluded, spans["position"], 4).any()
    brute = brute_ngram_counts(DOCS, 4)
    assert [brute[p] for p in spans["position"]] == spans["count"].tolist()
    # (1 2 3 4) occurs 3 times; its first occurrence outside document 0 is taken
    assert 11 in spans["position"].tolist()


def test_strata_labels():
    assert strata_labels([1, 2, 4, 16]) == ["1", "2-3", "4-15", "16+"]
    assert [stratum_of(c, [1, 2, 4]) for c in (0, 1, 2, 3, 4, 99)] == [-1, 0, 1, 1, 2, 2]


class WordCodes:
    """A tokenizer of space-separated integers (the index's ids)."""

    @staticmethod
    def encode(text):
        return [int(x) for x in text.split()]


def test_repeat_spans_on_index(tmp_path):
    """Exact counts come from the index (also across shards) and agree with brute force;
    spans in planted text are flagged, and left out with exclude_planted."""
    planted = [20, 21, 22, 23, 24, 25, 26, 27]
    docs = [[1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6], planted, [1, 2, 3, 4, 5, 6, 9], planted]
    docs += [[30 + i, 31 + i, 32 + i, 33 + i, 34 + i] for i in range(4)]
    build_index(stream_of(docs), tmp_path / "idx", shard_tokens=12)
    index = Index(tmp_path / "idx")
    assert len(index.shards) > 1
    manifest = {"injected": [{"text": " ".join(map(str, planted))}]}
    params = {
        "prompt_tokens": 2, "suffix_tokens": 2, "strata": [1, 2], "per_stratum": 50, "seed": 0,
        "exclude_planted": "none",
    }  # fmt: skip
    spans, ids = repeat_spans(index, params, WordCodes.encode, manifest)
    for (_, r), x in zip(spans.iterrows(), ids, strict=True):
        assert r["copies"] == brute_count(docs, x) and r["prefix_copies"] == brute_count(
            docs, x[:2]
        )
        assert r["stratum"] == ("1" if r["copies"] == 1 else "2+")
        assert r["planted"] == int(set(x.tolist()) <= set(planted))
    assert spans["planted"].any()
    params["exclude_planted"] = "all"
    spans, ids = repeat_spans(index, params, WordCodes.encode, manifest)
    assert not spans["planted"].any() and len(spans)
    mask = planted_mask(index, WordCodes.encode, [" ".join(map(str, planted))])
    assert mask.sum() == 2 * len(planted)


# ---------------------------------------------------------------- table and claim
def passages(model, pairs, source="ladder"):
    """Per-passage rows: (copies, word_exact, pos_exact)."""
    return pd.DataFrame(
        [
            {"model": model, "source": source, "passage": i, "kind": "k", "copies": c,
             "stratum": str(c), "planted": int(c > 0), "token_exact": w, "n_target_words": 4,
             "n_generated_words": 4, "word_match": w, "word_exact": w, "pos_match": p,
             "pos_exact": p}
            for i, (c, w, p) in enumerate(pairs)
        ]
    )  # fmt: skip


def test_style_table_and_claim():
    style_only = [(1, 0, 1)] * 10 + [(4, 1, 1)] * 4 + [(0, 0, 1)] * 3
    same = [(1, 0, 0)] * 200 + [(4, 1, 1)] * 200 + [(0, 0, 0)] * 2
    nothing = [(1, 0, 0)] * 6 + [(0, 0, 0)] * 2
    mixed = [(1, 0, 1), (1, 0, 0), (4, 1, 1), (4, 0, 0), (1, 0, 0)]
    frame = pd.concat(
        [
            passages("a", style_only),
            passages("b", same),
            passages("c", mixed, "training"),
            passages("d", nothing),
        ]
    )
    table = style_table(frame, 500, 0)
    pooled = table[table["source"] == "all"].set_index("model")
    assert pooled.loc["a", "n"] == 14  # controls (0 copies) are not pooled
    assert pooled.loc["a", "pos_minus_exact"] == pytest.approx(10 / 14)
    assert pooled.loc["a", "pos_minus_exact_lo"] > 0
    assert (
        pooled.loc["b", "pos_minus_exact_lo"] == pooled.loc["b", "pos_minus_exact_hi"] == 0
    )
    a = table[(table["model"] == "a") & (table["source"] == "ladder")]
    assert a["stratum"].tolist() == ["0", "1", "4"]
    assert a["exact_rate"].tolist() == pytest.approx([0, 0, 1])
    decide = CLAIMS["pos-exceeds-exact"]
    params = {"findings": {"style_effect": 0.011}}  # Shaib et al. §8: 6.4% − 5.3%

    def verdict(models):
        return decide({"style_memorization": table[table["model"].isin(models)]}, params).verdict

    assert verdict(["a"]) == HOLDS
    # 0 of 400 passages reproduce the tags without the words: the exact interval [0, 0.0092]
    # excludes the paper's style-only share of 1.1 points
    assert verdict(["b"]) == FAILS
    assert verdict(["c"]) == HOLDS  # one style-only passage of five: [0.005, 0.72]
    assert verdict(["d"]) == UNCLEAR  # 0 of 6: [0, 0.46] allows the paper's share
    assert verdict(["a", "b"]) == MIXED  # one model holds, the other does not
    none = decide({"style_memorization": table.iloc[:0]}, params)
    assert none.verdict == UNCLEAR and none.measured.startswith("not measured")


@pytest.mark.parametrize("shard_tokens", [None, 9])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_ngram_counts_is_the_counter_of_the_documents(tmp_path, n, shard_tokens):
    """Same n-grams, same counts, same (first-occurrence) order as a Counter over the
    documents, none across a document boundary; across shards too."""
    index = stream_index(tmp_path, DOCS, shard_tokens)
    counter: Counter = Counter()
    for d in DOCS:
        counter.update(tuple(int(x) for x in d[i : i + n]) for i in range(len(d) - n + 1))
    got = ngram_counts(index, n)
    assert list(got.items()) == list(counter.items())
