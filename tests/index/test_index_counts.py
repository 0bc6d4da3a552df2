"""Batched n-gram counts and locations (``Index.count_many`` / ``locate_many``) against brute
force and against the one-n-gram-at-a-time path they replace, with hypothesis properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from copyscope.errors import InputError
from copyscope.index import Index, build_index
from copyscope.index.small import match_interval
from support.index import brute_count, stream_of


@pytest.fixture(params=["compiled", "numpy"])
def engine(request, monkeypatch):
    """Both ways an Index answers: the batched kernel, and the numpy path of
    copyscope.index.small (taken for few tokens when the kernels are not loaded)."""
    import copyscope.index.core as core

    monkeypatch.setattr(core, "use_numpy_path", lambda n: request.param == "numpy")
    return request.param


def make_index(tmp_path, docs, shard_tokens=None, name="idx"):
    build_index(stream_of(docs), tmp_path / name, shard_tokens=shard_tokens)
    return Index(tmp_path / name)


def brute_occurrences(docs, g) -> list[tuple[int, int]]:
    """(document number, offset) of every occurrence of ``g`` inside a document."""
    g = list(map(int, g))
    return [
        (j, o)
        for j, d in enumerate(docs)
        for o in range(len(d) - len(g) + 1)
        if len(g) and list(map(int, d[o : o + len(g)])) == g
    ]


def old_locate(index: Index, g, limit: int) -> list[tuple[str, int, int]]:
    """The one-n-gram path ``locate`` had before the batched one: per shard, one binary search
    (``match_interval``), the first ``limit`` ranks still wanted, sorted by position."""
    g = np.asarray(g, dtype=np.int64)
    out, base = [], 0
    for s in index.shards:
        L, first, last = match_interval(s.tokens, s.sa, g[::-1]) if len(g) else (0, 0, -1)
        if L == len(g) and len(g) and len(out) < limit:
            ranks = np.arange(first, min(last + 1, first + limit - len(out)))
            pos = np.sort(s.n_tokens - 1 - np.asarray(s.sa[ranks], dtype=np.int64) - len(g) + 1)
            docs = np.searchsorted(s.doc_starts, pos, side="right") - 1
            for p, d in zip(pos.tolist(), docs.tolist(), strict=True):
                out.append((s.doc_ids[d], base + d, p - int(s.doc_starts[d])))
        base += int(s.meta["n_docs"])
    return out


def check_batch(index, docs, ngrams, limit=1000):
    counts = index.count_many(ngrams)
    assert counts.dtype == np.int64 and counts.shape == (len(ngrams),)
    assert counts.tolist() == [brute_count(docs, g) for g in ngrams]
    found = index.locate_many(ngrams, limit)
    assert len(found) == len(ngrams)
    for g, f in zip(ngrams, found, strict=True):
        assert f == old_locate(index, g, limit)
        expect = brute_occurrences(docs, g)
        if limit >= len(expect):
            assert sorted((d, o) for _, d, o in f) == expect
        else:
            assert len(f) == limit and {(d, o) for _, d, o in f} <= set(expect)


def test_hand_worked_counts(engine, tmp_path):
    # stream: 1 2 1 2 3 | 2 3 | 1 2 (separators between): "1 2" ×3, "2 3" ×2, "1 2 3" ×1
    docs = [[1, 2, 1, 2, 3], [2, 3], [1, 2]]
    idx = make_index(tmp_path, docs)
    ngrams = [[1, 2], [2, 3], [1, 2, 3], [3, 2], [1, 2], [], [3], [2, 3, 1], [7]]
    assert idx.count_many(ngrams).tolist() == [3, 2, 1, 0, 3, idx.n_tokens, 2, 0, 0]
    assert idx.locate_many([[1, 2], [3]], 10) == [
        [("0", 0, 0), ("0", 0, 2), ("2", 2, 0)],
        [("0", 0, 4), ("1", 1, 1)],
    ]


def test_edge_cases(engine, tmp_path, rng):
    docs = [rng.integers(0, 3, size=int(rng.integers(1, 30))) for _ in range(12)]
    idx = make_index(tmp_path, docs, shard_tokens=60)
    assert len(idx.shards) > 1
    text = np.concatenate(docs)
    ngrams = [
        [],  # empty: the corpus size, no location
        text,  # longer than any document
        np.concatenate([text, text]),  # longer than the whole text
        docs[-1],  # the last document: ends at the end of the stream
        docs[-1][-2:],  # the stream's last tokens
        docs[0][:3],  # its first tokens
        np.concatenate([docs[0][-2:], docs[1][:2]]),  # across a document boundary
        [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
        [9, 0],  # an id beyond the corpus's alphabet (but below the separator)
        [60_000],
        docs[3][:4],
        docs[3][:4],  # duplicates in one batch
    ]
    check_batch(idx, docs, ngrams)
    check_batch(idx, docs, ngrams, limit=2)
    assert idx.count_many([]).tolist() == [] and idx.locate_many([]) == []
    assert idx.count_many([[]]).tolist() == [idx.n_tokens] and idx.locate_many([[]]) == [[]]
    rows = np.stack([d[:2] for d in docs if len(d) >= 2])  # a 2-D batch: one n-gram per row
    assert idx.count_many(rows).tolist() == [brute_count(docs, r) for r in rows]
    assert idx.locate_many(rows, 4) == [old_locate(idx, r, 4) for r in rows]


def test_separator_and_negative_ids_are_rejected(engine, tmp_path):
    idx = make_index(tmp_path, [[1, 2, 3], [2, 3]])
    with pytest.raises(InputError, match=r"ngrams\[1\].*outside"):
        idx.count_many([[1, 2], [2, 65535]])
    with pytest.raises(InputError, match="outside"):
        idx.locate_many([[-1]])
    with pytest.raises(InputError, match="1-D"):
        idx.count_many([[1, 2], [[1], [2]]])
    with pytest.raises(InputError, match="ngram"):
        idx.count([3, 65535])


def test_matches_beyond_the_lcp_cap(engine, tmp_path, rng):
    """N-grams of 255 tokens or more need the exact fallback of the interval widening."""
    base = rng.integers(0, 50, size=700)
    docs = [base, base[:600], rng.integers(0, 50, size=300), base, base[100:]]
    idx = make_index(tmp_path, docs)
    ngrams = [base[:300], base[100:700], base[:650], base[50:400], base]
    check_batch(idx, docs, ngrams)


def test_many_ngrams_equal_brute_force(tmp_path, rng):
    """Thousands of n-grams (n = 1..40) in one call: the batched kernel's lanes and threads."""
    docs = [rng.integers(0, 6, size=int(rng.integers(1, 200))) for _ in range(60)]
    docs += docs[:10]
    idx = make_index(tmp_path, docs, shard_tokens=3000)
    ngrams = []
    for i in range(3000):
        n = int(rng.integers(1, 41))
        d = docs[int(rng.integers(len(docs)))]
        if i % 2 and len(d) >= n:
            a = int(rng.integers(len(d) - n + 1))
            ngrams.append(d[a : a + n])
        else:
            ngrams.append(rng.integers(0, 7, size=n))
    counts = idx.count_many(ngrams)
    assert counts.tolist() == [brute_count(docs, g) for g in ngrams]
    assert counts.tolist() == [idx.count(g) for g in ngrams]
    assert (counts > 0).mean() > 0.4  # both found and absent n-grams
    sample = ngrams[:300]
    assert idx.locate_many(sample, 3) == [old_locate(idx, g, 3) for g in sample]


corpora = st.lists(st.lists(st.integers(0, 3), min_size=0, max_size=25), min_size=1, max_size=12)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(docs=corpora, data=st.data())
def test_property_batched_counts_and_locations(engine, tmp_path_factory, docs, data):
    docs = docs + data.draw(st.lists(st.sampled_from(docs), max_size=3))  # repeated documents
    tmp = tmp_path_factory.mktemp("prop")
    shard_tokens = data.draw(st.one_of(st.none(), st.integers(1, 40)))
    idx = make_index(tmp, docs, shard_tokens=shard_tokens)

    def excerpt(d, a, n):
        return list(d[a : a + n])

    ngrams = data.draw(
        st.lists(
            st.one_of(
                st.lists(st.integers(0, 4), max_size=12),  # fresh (4 never occurs)
                st.builds(excerpt, st.sampled_from(docs), st.integers(0, 25), st.integers(0, 30)),
            ),
            max_size=12,
        )
    )
    ngrams += data.draw(st.lists(st.sampled_from(ngrams), max_size=3)) if ngrams else []
    check_batch(idx, docs, ngrams, limit=data.draw(st.integers(0, 6)))


# ----------------------------------------------------------------------------- the analyses
def test_planted_copies_attribution_equals_brute_force():
    """copyscope.analyze.planted_copies (batched locations of every copied span) against
    brute force: a span is attributed to every passage holding it."""
    import pandas as pd

    from copyscope.analyze import MIN_ATTRIBUTED, planted_copies
    from copyscope.index import maximal_spans
    from support.index import brute_matches

    rng = np.random.default_rng(3)
    passages = [rng.integers(0, 5, size=30) for _ in range(4)]
    passages.append(passages[0][5:25])  # one passage inside another
    planted = [
        {"id": f"p{i}", "copies": 1, "occurrences": 1, "text": " ".join(map(str, p))}
        for i, p in enumerate(passages)
    ]
    gens = [np.concatenate([p[a : a + k], rng.integers(0, 5, size=6)]) for p, a, k in (
        (passages[0], 3, 12), (passages[1], 0, 20), (passages[2], 10, 5), (passages[3], 0, 2),
    )] + [rng.integers(0, 5, size=40)]  # fmt: skip
    samples = pd.DataFrame({"ids": [g.tolist() for g in gens]})
    got = planted_copies(samples, planted, lambda t: [int(x) for x in t.split()], 8)
    best = np.zeros(len(passages), int)
    texts = [set() for _ in passages]
    for i, g in enumerate(gens):
        L, _ = brute_matches(passages, g)
        for s, e in maximal_spans(L, MIN_ATTRIBUTED):
            for d, _ in brute_occurrences(passages, g[s:e]):
                best[d] = max(best[d], e - s)
                if e - s >= 8:
                    texts[d].add(i)
    assert got["longest_copy"].tolist() == best.tolist()
    assert got["texts_with_copy"].tolist() == [len(t) for t in texts]
    assert best[0] >= 12 and best[1] >= 20  # the planted copies are found
