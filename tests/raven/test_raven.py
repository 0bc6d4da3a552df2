"""RAVEN n-gram novelty (McCoy et al. 2023): hand-worked cases and brute-force references."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copyscope.index import Index, build_index
from copyscope.novelty.metrics import novelty_curve
from copyscope.raven import (
    context_lengths,
    context_lengths_batch,
    dup_curve,
    pointwise_scores,
    raven_tables,
    score_texts,
    supercopies,
    supercopy_rate,
    truncated_score,
)
from support.index import brute_matches, stream_of


def make_index(tmp_path, docs, name="idx", **kw):
    build_index(stream_of(docs), tmp_path / name, **kw)
    return Index(tmp_path / name)


def brute_context(seq) -> list[int]:
    """O(n^3) reference: longest suffix of seq[..i] equal to some seq[e-L+1..e] with e < i."""
    s = list(map(int, seq))
    out = []
    for i in range(len(s)):
        best = 0
        for L in range(1, i + 1):
            gram = s[i - L + 1 : i + 1]
            if any(s[e - L + 1 : e + 1] == gram for e in range(L - 1, i)):
                best = L
            else:
                break  # a suffix not found has no longer found suffix
        out.append(best)
    return out


def quadratic_context(seq) -> np.ndarray:
    """O(n^2) reference for longer sequences: common-suffix DP over pairs (e, i), e < i."""
    s = np.asarray(seq, dtype=np.int64)
    n = len(s)
    out = np.zeros(n, dtype=np.int64)
    prev = np.zeros(n, dtype=np.int64)  # prev[e] = common suffix length of s[..e-1], s[..i-1]
    for i in range(n):
        cur = np.zeros(n, dtype=np.int64)
        eq = s[:i] == s[i]
        cur[:i][eq] = 1 + np.concatenate([[0], prev[: i - 1]])[eq]
        out[i] = cur[:i].max() if i else 0
        prev = cur
    return out


# ----------------------------------------------------------------------------- context lengths
def test_context_lengths_by_hand():
    a, b, c, d = 7, 3, 11, 5
    # a b a b a: a(2) repeats a(0) → 1; b(3): "a b" at 0..1 → 2; a(4): "a b a" at 0..2 → 3
    assert context_lengths([a, b, a, b, a]).tolist() == [0, 0, 1, 2, 3]
    # a a a a: at i the earlier occurrence of the i-gram ends at i-1 (overlap allowed) → i
    assert context_lengths([a, a, a, a]).tolist() == [0, 1, 2, 3]
    # a b c a b d a b c: a(3)→1, b(4): "a b" → 2 ("c a b" ends at 4 itself), d → 0,
    # a(6) → 1 ("d a" new), b(7) → 2, c(8): "a b c" at 0..2 → 3 ("d a b c" new)
    assert context_lengths([a, b, c, a, b, d, a, b, c]).tolist() == [0, 0, 0, 1, 2, 0, 1, 2, 3]
    assert context_lengths([]).tolist() == []
    assert context_lengths([a]).tolist() == [0]


def test_context_lengths_vs_brute_force():
    rng = np.random.default_rng(0)
    for alphabet in (2, 3, 5, 1000):
        for base in (0, 2**30, 2**32 - 1000):
            for _ in range(15):
                n = int(rng.integers(0, 60))
                seq = base + rng.integers(0, alphabet, size=n)
                assert context_lengths(seq).tolist() == brute_context(seq), (alphabet, base)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=40), st.sampled_from([0, 2**30, 2**31 - 5]))
def test_context_lengths_property(xs, base):
    seq = np.array(xs, dtype=np.int64) + base
    assert context_lengths(seq).tolist() == brute_context(seq)


def test_context_lengths_long_and_batch():
    rng = np.random.default_rng(1)
    seqs = [
        rng.integers(0, 2, size=700),  # long repeats, many clones
        np.tile(rng.integers(0, 50, size=37), 20),  # periodic: lengths grow to n - 37
        2**31 + rng.integers(0, 300, size=800),
        np.array([], dtype=np.int64),
        np.array([4], dtype=np.int64),
    ]
    expect = [quadratic_context(s) for s in seqs]
    for s, e in zip(seqs, expect, strict=True):
        assert np.array_equal(context_lengths(s), e)
    got = context_lengths_batch(seqs)
    assert len(got) == len(seqs)
    for g, e in zip(got, expect, strict=True):
        assert np.array_equal(g, e)
    assert context_lengths(seqs[1])[-1] == 37 * 19  # whole text but the first period
    assert context_lengths_batch([]) == []


def test_context_lengths_rejects_bad_ids():
    with pytest.raises(ValueError):
        context_lengths([1, -1])
    with pytest.raises(ValueError):
        context_lengths([2**32])
    with pytest.raises(ValueError):
        context_lengths(np.zeros((2, 2), dtype=np.int64))


# ----------------------------------------------------------------------------- pointwise scores
# Training documents (separate documents: "5 6" spans a boundary and is NOT found)
DOCS = [[1, 2, 3, 4, 5], [6, 7, 8, 9]]
PROMPT = [5, 6, 7]
GEN = [8, 9, 1, 2, 5, 6, 7, 8, 10]
# train, generation alone (L_j; score = 1 + L_j):
#   j0 8 → "8" L1 | j1 9 → "8 9" L2 | j2 1 → "9 1" new, "1" L1 | j3 2 → "1 2" L2
#   j4 5 → "2 5" new, L1 | j5 6 → "5 6" crosses documents, L1 | j6 7 → "6 7" L2
#   j7 8 → "6 7 8" L3 | j8 10 → unseen, L0
TRAIN = [2, 3, 2, 3, 2, 2, 3, 4, 1]
# context, S = 5 6 7 8 9 1 2 5 6 7 8 10 (gen j at position j + 3): only 5 6 7 8 repeat,
#   at j4..j7 with ℓ = 1..4 ("5", "5 6", "5 6 7", "5 6 7 8" from positions 0..3); clip j + 2
#   = 6..9 does not bind → 1 + ℓ; every other token is new in S → 1
CONTEXT = [1, 1, 1, 1, 2, 3, 4, 5, 1]
UNION = [2, 3, 2, 3, 2, 3, 4, 5, 1]


def test_pointwise_scores_by_hand(tmp_path):
    idx = make_index(tmp_path, DOCS)
    L = idx.longest_matches([GEN]).split_lengths()[0]
    sc = pointwise_scores(L, np.array(PROMPT), np.array(GEN))
    assert sc["train"].tolist() == TRAIN
    assert sc["context"].tolist() == CONTEXT
    assert sc["union"].tolist() == UNION
    # whole generated prefix found in training: j0, j1 get exactly j + 2
    assert sc["train"][:2].tolist() == [0 + 2, 1 + 2]


def test_train_score_is_clipped_full_text_query(tmp_path):
    """Querying the generation alone = querying S and clipping at j + 2 (docstring claim)."""
    idx = make_index(tmp_path, DOCS)
    full = idx.longest_matches([PROMPT + GEN]).split_lengths()[0][len(PROMPT) :]
    # unclipped, S = 5 6 7 | 8 9 …: j0 "6 7 8" (ℓ 3 → 4), j1 "6 7 8 9" (ℓ 4 → 5)
    assert (1 + full)[:2].tolist() == [4, 5]
    clipped = np.minimum(1 + full, np.arange(len(GEN)) + 2)
    assert clipped.tolist() == TRAIN


def test_context_clipping_and_empty_prompt():
    no_train = np.zeros(2, dtype=np.int64)
    # prompt a b x a, gen b c: S = a b x a b c; "a b" (ℓ 2 → 3) reaches into the prompt,
    # clipped to j + 2 = 2; c is new → 1
    sc = pointwise_scores(no_train, np.array([1, 2, 9, 1]), np.array([2, 3]))
    assert sc["context"].tolist() == [2, 1]
    assert sc["union"].tolist() == [2, 1]
    assert sc["train"].tolist() == [1, 1]
    # empty prompt, gen a b a b a: ℓ = 0 0 1 2 3 → 1 1 2 3 4 (RAVEN's code would give 2 first)
    sc = pointwise_scores(np.zeros(5, np.int64), np.array([], np.int64), np.array([1, 2, 1, 2, 1]))
    assert sc["context"].tolist() == [1, 1, 2, 3, 4]
    # empty prompt, a a a: ℓ = 0 1 2 → 1 2 3 (clip 2 3 4 does not bind; RAVEN's code: 2 3 4)
    sc = pointwise_scores(np.zeros(3, np.int64), np.array([], np.int64), np.array([4, 4, 4]))
    assert sc["context"].tolist() == [1, 2, 3]
    # whole generated prefix found in the context: prompt 4 4 4, gen 4 4: S = 4 4 4 4 4,
    # ℓ = 3, 4 → 4, 5; clip j + 2 → 2, 3
    sc = pointwise_scores(np.zeros(2, np.int64), np.array([4, 4, 4]), np.array([4, 4]))
    assert sc["context"].tolist() == [2, 3]
    with pytest.raises(ValueError):
        pointwise_scores(np.zeros(3, np.int64), np.array([1]), np.array([4, 4]))


def raven_code_context(prompt, generation) -> list[int]:
    """The context scores of the generated tokens as RAVEN's code computes them
    (src/analysis/pointwise_annotation_context.py, re-implemented on token lists), then clipped
    at j + 2 as in its analyses: at position i of S = prompt + generation, the n-grams ending at
    i are tried for n = 1..i against S[:i] (token-aligned); the first one not found gives the
    score n, and if all are found (always at i = 0) the score is i + 2."""
    S = [int(x) for x in (*prompt, *generation)]

    def found(gram, ctx):
        return any(ctx[e : e + len(gram)] == gram for e in range(len(ctx) - len(gram) + 1))

    out = []
    for i in range(len(prompt), len(S)):
        score = next((n for n in range(1, i + 1) if not found(S[i - n + 1 : i + 1], S[:i])), i + 2)
        out.append(min(score, i - len(prompt) + 2))
    return out


def test_raven_code_differs_on_the_opening_run_only():
    """The documented difference (module docstring, docs/methods/raven.md): with an empty prompt RAVEN's code
    scores the opening run of the generation one higher; nowhere else do the two differ."""
    a, b = 4, 7
    empty = np.array([], np.int64)
    gen = np.array([a, a, a, b])
    assert raven_code_context(empty, gen) == [2, 3, 4, 1]
    assert pointwise_scores(np.zeros(4, np.int64), empty, gen)["context"].tolist() == [1, 2, 3, 1]
    # a b a b a: only the first token differs (its run has length 1)
    gen = np.array([a, b, a, b, a])
    assert raven_code_context(empty, gen) == [2, 1, 2, 3, 4]
    assert pointwise_scores(np.zeros(5, np.int64), empty, gen)["context"].tolist() == [
        1,
        1,
        2,
        3,
        4,
    ]
    rng = np.random.default_rng(5)
    for _ in range(300):
        p = rng.integers(0, 3, size=int(rng.integers(0, 4)))
        g = rng.integers(0, 3, size=int(rng.integers(1, 12)))
        ours = pointwise_scores(np.zeros(len(g), np.int64), p, g)["context"]
        diff = np.array(raven_code_context(p, g)) - ours
        run = len(g) if (g == g[0]).all() else int(np.argmax(g != g[0]))
        expect = np.zeros(len(g), np.int64)
        if len(p) == 0:
            expect[:run] = 1
        assert diff.tolist() == expect.tolist(), (p, g)


def test_pointwise_scores_vs_brute_force(tmp_path):
    rng = np.random.default_rng(3)
    docs = [rng.integers(0, 6, size=int(rng.integers(1, 30))).tolist() for _ in range(12)]
    idx = make_index(tmp_path, docs)
    prompts = [rng.integers(0, 7, size=int(rng.integers(0, 8))) for _ in range(25)]
    gens = [rng.integers(0, 7, size=int(rng.integers(0, 25))) for _ in range(25)]
    train_len = idx.longest_matches(gens).split_lengths()
    batch = score_texts(train_len, prompts, gens)
    for k, (p, g) in enumerate(zip(prompts, gens, strict=True)):
        S = np.concatenate([p, g])
        j = np.arange(len(g))
        ell_train = brute_matches(docs, S)[0][len(p) :]
        ell_ctx = np.array(brute_context(S), dtype=np.int64)[len(p) :]
        train = np.minimum(1 + ell_train, j + 2)
        context = np.minimum(1 + ell_ctx, j + 2)
        sc = pointwise_scores(train_len[k], p, g)
        assert sc["train"].tolist() == train.tolist()
        assert sc["context"].tolist() == context.tolist()
        assert sc["union"].tolist() == np.maximum(train, context).tolist()
        for src in sc:
            assert batch[src][k].tolist() == sc[src].tolist()


# ----------------------------------------------------------------------------- aggregates
def test_truncated_score_by_hand():
    # min(s, 5): [1 2 5] [5 3] → 16 / 5 tokens (pooled over tokens, not texts)
    assert truncated_score([np.array([1, 2, 7]), np.array([9, 3])]) == pytest.approx(16 / 5)
    assert truncated_score([np.array([1, 2, 7])], cap=2) == pytest.approx(5 / 3)
    assert truncated_score([np.array(UNION)]) == pytest.approx(25 / 9)
    assert np.isnan(truncated_score([]))


def test_dup_curve_by_hand():
    scores = [np.array([1, 2, 3]), np.array([2, 1])]
    # n=1: s ≥ 2 → 3 of (3 + 2); n=2: s ≥ 3 → 1 of (2 + 1); n=3: s ≥ 4 → 0 of (1 + 0);
    # n=4: no 4-gram → NaN
    novelty, dup = dup_curve(scores, n_max=4)
    assert dup[:3].tolist() == pytest.approx([3 / 5, 1 / 3, 0.0])
    assert novelty[:3].tolist() == pytest.approx([2 / 5, 2 / 3, 1.0])
    assert np.isnan(dup[3]) and np.isnan(novelty[3])


def test_dup_from_train_scores_is_one_minus_index_novelty(tmp_path):
    rng = np.random.default_rng(4)
    docs = [rng.integers(0, 8, size=int(rng.integers(5, 80))) for _ in range(20)]
    idx = make_index(tmp_path, docs)
    gens = [rng.integers(0, 9, size=int(rng.integers(0, 40))) for _ in range(30)]
    prompts = [rng.integers(0, 9, size=5) for _ in gens]
    train_len = idx.longest_matches(gens).split_lengths()
    train = score_texts(train_len, prompts, gens)["train"]
    novelty, dup = dup_curve(train, n_max=12)
    with np.errstate(invalid="ignore"):
        merrill = novelty_curve(train_len, 12)
    np.testing.assert_allclose(dup, 1 - merrill)
    np.testing.assert_allclose(novelty, merrill)


# ----------------------------------------------------------------------------- supercopies
def test_supercopies_planted(tmp_path):
    rng = np.random.default_rng(5)
    docs = [rng.integers(0, 1000, size=300) for _ in range(8)]
    passage = docs[3][50:170].copy()  # 120 words
    docs[5][20:140] = passage  # a second training occurrence, in another shard
    ids = [f"doc{i}" for i in range(8)]
    build_index(stream_of(docs), tmp_path / "idx", doc_ids=ids, shard_tokens=700)
    idx = Index(tmp_path / "idx")
    assert len(idx.shards) > 1
    # generations use ids ≥ 2000, never in training, around the planted passage
    g0 = np.concatenate([2000 + rng.integers(0, 500, 10), passage, 2000 + rng.integers(0, 500, 7)])
    g1 = 2000 + rng.integers(0, 500, 60)
    gens = [g0, g1]
    train_len = idx.longest_matches(gens).split_lengths()

    table = supercopies(idx, gens, train_len)
    assert table.to_dict("records") == [
        {
            "text": 0,
            "start": 10,
            "end": 130,
            "length": 120,
            "count": 2,
            "sources": "doc3@50;doc5@20",
        }
    ]
    assert supercopies(idx, gens, train_len, min_len=100, limit=1)["sources"].tolist() == [
        "doc3@50"
    ]
    assert supercopies(idx, gens, train_len, min_len=121).empty
    assert list(supercopies(idx, gens, train_len, min_len=121).columns) == [
        "text",
        "start",
        "end",
        "length",
        "count",
        "sources",
    ]

    # train score of passage token k is k + 2 (k + 1 words found); ≥ 101 for k = 99..119
    train = score_texts(train_len, [np.array([], np.int64)] * 2, gens)["train"]
    assert train[0][10:130].tolist() == list(range(2, 122))
    tok_rate, text_rate = supercopy_rate(train)
    assert tok_rate == pytest.approx(21 / (len(g0) + len(g1)))
    assert text_rate == 0.5
    assert supercopy_rate(train, min_score=200) == (0.0, 0.0)


# ----------------------------------------------------------------------------- tables
def test_raven_tables(tmp_path):
    idx = make_index(tmp_path, DOCS)
    gens = [np.array(GEN), np.array([1, 2, 3, 1, 2, 3])]
    prompts = [np.array(PROMPT), np.array([], np.int64)]
    scores = score_texts(idx.longest_matches(gens).split_lengths(), prompts, gens)
    a = raven_tables(scores, {"model": "m", "decoding": "greedy"})
    b = raven_tables(scores, {"model": "m", "decoding": "top_p"}, n_boot=50)
    assert a["source"].tolist() == ["train", "context", "union"]
    for src in ("train", "context", "union"):
        row = a.set_index("source").loc[src]
        assert row["truncated_score"] == pytest.approx(truncated_score(scores[src]))
        novelty, _ = dup_curve(scores[src], 10)
        got = row[[f"novelty_{n}" for n in range(1, 11)]].to_numpy(float)
        np.testing.assert_allclose(got, novelty)
        assert row["tokens"] == 15 and row["texts"] == 2
    assert a["supercopy_token_rate"].tolist() == [0.0, 0.0, 0.0]
    assert np.isnan(a["truncated_score_lo"]).all()
    both = pd.concat([a, b], ignore_index=True)
    assert len(both) == 6 and set(both["decoding"]) == {"greedy", "top_p"}
    lo, hi = b["truncated_score_lo"], b["truncated_score_hi"]
    assert ((lo <= b["truncated_score"]) & (b["truncated_score"] <= hi)).all()
    assert "novelty_1_lo" in b.columns
