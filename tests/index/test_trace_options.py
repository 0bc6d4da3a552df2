"""The trace's span options (copyscope.index.spans, after OLMoTrace): each on a hand-worked
index, against a brute-force reference of OLMoTrace's own definition on random corpora, and
off by default (every maximal span and its first occurrences, as before)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from copyscope.cli import main
from copyscope.index import Index, build_index, maximal_spans
from copyscope.index.query import batch_rows, trace, trace_batch_rows, traced_spans
from copyscope.index.spans import (
    SpanOptions,
    distinct_documents,
    logprob_sum,
    ranked,
    rare,
    select_spans,
    span_cap,
    unigram_logprob,
)
from support.index import brute_count, stream_of

# N = 7 + 7 + 4 = 18 tokens with the separators; token 9 never occurs
DOCS = [[1, 1, 1, 1, 1, 1], [5, 6, 2, 3, 2, 3], [2, 3, 4]]
N = 18
QUERY = np.array([1, 1, 1, 1, 9, 5, 6, 9, 2, 3, 4, 9])
# its maximal spans of >= 2 tokens: "1 1 1 1" 3x (all in document 0), "5 6" 1x, "2 3 4" 1x
SPANS = [(0, 4), (5, 7), (8, 11)]
# unigram ln p: 1 -> ln(6/18), 5, 6, 4 -> ln(1/18), 2, 3 -> ln(3/18)
SUMS = [4 * math.log(6 / 18), 2 * math.log(1 / 18), 2 * math.log(3 / 18) + math.log(1 / 18)]


def make_index(tmp_path, docs, shard_tokens=None, name="idx"):
    build_index(stream_of(docs), tmp_path / name, shard_tokens=shard_tokens)
    return Index(tmp_path / name)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return make_index(tmp_path_factory.mktemp("trace"), DOCS)


def shown(index, options, min_len=2, limit=3, query=QUERY):
    return [
        (s["start"], s["end"], s["count"], s["where"])
        for s in trace(index, None, query, min_len, limit, options)["spans"]
    ]


# ----------------------------------------------------------------------------- pure functions
def test_rare_keeps_counts_up_to_the_maximum():
    assert rare([3, 1, 1], 1).tolist() == [False, True, True]
    assert rare([3, 1, 1], 3).tolist() == [True, True, True]
    assert rare([3, 1, 1], None).tolist() == [True, True, True]


def test_span_cap_is_the_ceiling_of_density_times_tokens():
    assert span_cap(12, 0.1) == 2  # ceil(1.2)
    assert span_cap(12, 0.05) == 1  # ceil(0.6)
    assert span_cap(594, 0.05) == 30  # OLMoTrace's PR #41 example: 594 tokens
    assert span_cap(100, 0.07) == 7  # the decimal 0.07, not 7.000000000000001 (8)
    assert 100 * 0.07 > 7  # why: floating point would give 8
    assert span_cap(0, 0.5) == 0 and span_cap(12, None) is None


def test_unigram_logprob_and_its_sum():
    lp = unigram_logprob([6, 1, 3, 0], 18)
    assert lp[:3] == pytest.approx([math.log(1 / 3), math.log(1 / 18), math.log(1 / 6)])
    assert lp[3] == -math.inf
    assert logprob_sum(lp, 0, 3) == pytest.approx(math.log(1 / 3 * 1 / 18 * 1 / 6))
    assert logprob_sum([0.1, 0.2, 0.3], 0, 3) == logprob_sum([0.3, 0.1, 0.2], 0, 3)  # exact


def test_ranking_by_length_or_by_unigram_logprob_sum():
    assert ranked(SPANS, "length") == [0, 2, 1]
    assert ranked(SPANS, "unigram_logprob_sum", SUMS) == [2, 1, 0]
    assert ranked([(0, 2), (3, 5), (6, 7)], "length") == [0, 1, 2]  # ties: the earlier first
    assert ranked([(0, 2), (3, 5)], "unigram_logprob_sum", [-1.0, -1.0]) == [0, 1]


def test_select_spans_filters_then_caps_in_text_order():
    counts = [3, 1, 1]
    pick = lambda **kw: select_spans(SPANS, counts, 12, SpanOptions(**kw), SUMS)  # noqa: E731
    assert pick() == [0, 1, 2]
    assert pick(max_count=1) == [1, 2]
    assert pick(max_density=0.1) == [0, 2]  # the two longest
    assert pick(max_density=0.1, rank_by="unigram_logprob_sum") == [1, 2]  # the two rarest
    assert pick(max_density=0.05) == [0]
    assert pick(max_density=0.05, rank_by="unigram_logprob_sum") == [2]
    assert pick(max_density=0.05, max_count=2) == [2]  # "2 3 4": the longest of the rare
    assert pick(max_density=1) == [0, 1, 2]


def test_distinct_documents_lists_each_document_once_by_position():
    occ = [("b", 1, 4), ("b", 1, 2), ("c", 2, 0), ("a", 0, 9)]
    assert distinct_documents(occ, 2) == [("b", 1, 4), ("c", 2, 0)]
    assert distinct_documents(occ, 9) == [("a", 0, 9), ("b", 1, 4), ("c", 2, 0)]
    assert distinct_documents(iter(occ), 1) == [("b", 1, 4)]  # reads no further


@pytest.mark.parametrize(
    "kw, flag",
    [
        ({"max_count": 0}, "--max-span-count"),
        ({"docs_per_span": -1}, "--docs-per-span"),
        ({"max_density": 0}, "--max-span-density"),
        ({"max_density": float("nan")}, "--max-span-density"),
        ({"rank_by": "count"}, "--rank-spans-by"),
    ],
)
def test_bad_options_name_their_flag(kw, flag):
    from copyscope.errors import FlagError

    with pytest.raises(FlagError, match=f"flag {flag}: expected"):
        SpanOptions(**kw)


# ----------------------------------------------------------------------------- the hand-worked index
def test_each_option_on_the_hand_worked_index(index):
    assert index.n_tokens == N
    off = shown(index, SpanOptions())
    assert off == [(0, 4, 3, ["0@0", "0@1", "0@2"]), (5, 7, 1, ["1@0"]), (8, 11, 1, ["2@0"])]
    assert shown(index, SpanOptions(max_count=1)) == off[1:]
    assert shown(index, SpanOptions(max_density=0.1)) == [off[0], off[2]]
    assert shown(index, SpanOptions(max_density=0.1, rank_by="unigram_logprob_sum")) == off[1:]
    assert shown(index, SpanOptions(max_density=0.05, rank_by="unigram_logprob_sum")) == off[2:]
    # the one document of "1 1 1 1", at its first occurrence by suffix-array rank (offset 0)
    assert shown(index, SpanOptions(docs_per_span=3))[0] == (0, 4, 3, ["0@0"])
    ranked_trace = trace(index, None, QUERY, 2, 3, SpanOptions(rank_by="unigram_logprob_sum"))
    sums = [s["unigram_logprob_sum"] for s in ranked_trace["spans"]]
    assert sums == pytest.approx(SUMS)
    assert "unigram_logprob_sum" not in trace(index, None, QUERY, 2, 3)["spans"][0]


def test_documents_per_span_lists_different_documents(index):
    """ "2 3" occurs at 1@2, 1@4 and 2@0; by suffix-array rank of the reversed stream (what
    precedes each occurrence) 1@4 (after "3 2"), 1@2 (after "6"), 2@0 (after a separator):
    the first two occurrences are in one document, the first two documents are 1 and 2."""
    q = np.array([2, 3, 9])
    assert shown(index, SpanOptions(), limit=2, query=q) == [(0, 2, 3, ["1@2", "1@4"])]
    assert shown(index, SpanOptions(docs_per_span=2), query=q) == [(0, 2, 3, ["1@4", "2@0"])]
    assert shown(index, SpanOptions(docs_per_span=1), query=q) == [(0, 2, 3, ["1@4"])]


def test_covered_and_batch_rows_count_the_spans_shown(index):
    opts = SpanOptions(max_count=1)
    t = trace(index, None, QUERY, 2, 3, opts)
    assert t["covered"].tolist() == [False] * 5 + [True] * 2 + [False] + [True] * 3 + [False]
    row = batch_rows(index, "trace", [("q", QUERY)], 2, opts)[0]
    assert row == {"id": "q", "tokens": 12, "spans": 2, "covered": 5 / 12}
    rows = trace_batch_rows(index, None, [("q", QUERY)], 2, 3, opts)
    assert [(c["start"], c["end"]) for c in rows[0]["copied"]] == [(5, 7), (8, 11)]
    assert rows[0]["spans"] == 2 and len(rows[0]["L"]) == 12  # L_t of every token, as before


# ----------------------------------------------------------------------------- off by default
def before(index, ids, min_len, limit):
    """What trace listed before the options: every maximal span, its count and its first
    ``limit`` occurrences (the index's locate)."""
    L, _ = index.longest_matches([ids])[0]
    return [
        (s, e, index.count(ids[s:e]), [f"{d}@{o}" for d, _, o in index.locate(ids[s:e], limit)])
        for s, e in maximal_spans(L, min_len)
    ]


def test_the_defaults_give_the_output_of_before(index, capsys):
    for min_len, limit in ((1, 1), (2, 3), (3, 10)):
        assert shown(index, SpanOptions(), min_len, limit) == before(index, QUERY, min_len, limit)
    # every option off but the ranking: nothing is dropped, the order is the text's
    ranked_off = trace(index, None, QUERY, 2, 3, SpanOptions(rank_by="unigram_logprob_sum"))
    assert [(s["start"], s["end"]) for s in ranked_off["spans"]] == SPANS
    # the command line: options that drop nothing list the same spans, the heading names them
    ids = ",".join(map(str, QUERY.tolist()))
    argv = ["trace", str(index.path), "--ids", ids, "--min-len", "2", "--plain"]
    capsys.readouterr()
    assert main(argv) == 0
    plain = capsys.readouterr().out
    loose = ["--max-span-count", "1000", "--max-span-density", "1", "--rank-spans-by", "length"]
    assert main([*argv, *loose]) == 0
    named = capsys.readouterr().out
    assert "\n3 maximal copied span(s) of ≥ 2 tokens (75% of tokens covered):\n" in plain
    assert plain.split("covered):")[1] == named.split("covered):")[1]
    heading = " ".join(named.split("covered):")[0].split())  # rich wraps at 80 columns
    assert "at most 1000 occurrence(s) each; at most 1 per token (longest first)" in heading


def test_the_command_line_takes_the_options(index, capsys):
    ids = ",".join(map(str, QUERY.tolist()))
    capsys.readouterr()
    argv = ["trace", str(index.path), "--ids", ids, "--min-len", "2", "--plain"]
    assert main([*argv, "--max-span-density", "0.05", "--rank-spans-by",
                 "unigram_logprob_sum", "--docs-per-span", "2"]) == 0  # fmt: skip
    out = " ".join(capsys.readouterr().out.split())  # rich wraps at 80 columns
    assert "1 maximal copied span(s) of ≥ 2 tokens, at most 0.05 per token (lowest unigram" in out
    assert f"[8:11) len 3, 1 occurrence(s), unigram log-prob sum {SUMS[2]:.2f}" in out
    assert "up to 2 document(s) per span (25% of tokens covered)" in out
    assert main([*argv, "--max-span-count", "0"]) == 2
    assert "flag --max-span-count: expected a positive integer, found 0" in capsys.readouterr().err


# ----------------------------------------------------------------------------- brute force
def olmotrace_spans(docs, query, min_len, max_count):
    """OLMoTrace's interesting spans by enumeration (infini-gram's ``attribute``): from each
    start l the longest prefix found in a document, kept when it has ≥ min_len tokens and at
    most max_count occurrences, then in order of l only those ending after every kept one."""
    out, last_r = [], 0
    for left in range(len(query)):
        r = left
        while r < len(query) and brute_count(docs, query[left : r + 1]) > 0:
            r += 1
        count = brute_count(docs, query[left:r])
        if r - left >= min_len and (max_count is None or count <= max_count) and r > last_r:
            last_r = r
            out.append((left, r, count))
    return out


def brute_select(docs, query, min_len, options):
    """OLMoTrace's selection by enumeration: :func:`olmotrace_spans`, ranked by length or by
    the sum of ln(count / N) of the tokens (counted in the documents), the first
    ceil(D · n) kept, listed in text order; with the sums."""
    spans = olmotrace_spans(docs, query, min_len, options.max_count)
    total = sum(len(d) + 1 for d in docs)
    sums = [
        math.fsum(math.log(brute_count(docs, [t]) / total) for t in query[s:e]) for s, e, _ in spans
    ]
    if options.max_density is not None:
        cap = math.ceil(Fraction(str(options.max_density)) * len(query))
        if options.rank_by == "length":
            order = sorted(range(len(spans)), key=lambda i: (spans[i][0] - spans[i][1], i))
        else:
            order = sorted(range(len(spans)), key=lambda i: (sums[i], i))
        keep = sorted(order[:cap])
        spans, sums = [spans[i] for i in keep], [sums[i] for i in keep]
    return spans, sums


def brute_documents(docs, shard_docs, ngram, limit):
    """One occurrence in each of the first ``limit`` documents, occurrences read shard by
    shard in suffix-array order of the reversed stream (by the tokens before each occurrence,
    read backwards; the separator the largest id), each shard's listed by position."""
    sep = np.iinfo(np.uint16).max
    out, base, seen = [], 0, set()
    for n in shard_docs:
        part = docs[base : base + n]
        stream = [t for d in part for t in (*map(int, d), sep)]
        starts = np.cumsum([0] + [len(d) + 1 for d in part]).tolist()
        occ = []
        for k, d in enumerate(part):
            for o in range(len(d) - len(ngram) + 1):
                if list(d[o : o + len(ngram)]) == list(ngram):
                    end = starts[k] + o + len(ngram)
                    occ.append((tuple(reversed(stream[:end])), base + k, o))
        picked = []
        for _, doc, o in sorted(occ):
            if doc not in seen and len(seen) < limit:
                seen.add(doc)
                picked.append((doc, o))
        out += sorted(picked)
        base += n
    return [f"{doc}@{o}" for doc, o in out]


corpora = st.lists(st.lists(st.integers(0, 3), min_size=0, max_size=20), min_size=1, max_size=10)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(docs=corpora, data=st.data())
def test_the_options_against_olmotraces_definition(tmp_path_factory, docs, data):
    docs = docs + data.draw(st.lists(st.sampled_from(docs), max_size=3))  # repeated documents
    tmp = tmp_path_factory.mktemp("brute")
    shard_tokens = data.draw(st.sampled_from([None, 5, 17]))
    index = make_index(tmp, docs, shard_tokens=shard_tokens)
    query = np.array(
        data.draw(
            st.one_of(
                st.lists(st.integers(0, 4), min_size=1, max_size=30),  # 4 never occurs
                st.sampled_from(docs).filter(len).map(list),
            )
        )
    )
    options = SpanOptions(
        max_count=data.draw(st.one_of(st.none(), st.integers(1, 6))),
        max_density=data.draw(st.one_of(st.none(), st.sampled_from([0.05, 0.1, 0.25, 0.5, 2]))),
        rank_by=data.draw(st.sampled_from(["length", "unigram_logprob_sum"])),
    )
    min_len = data.draw(st.integers(1, 4))
    L, C = index.longest_matches([query])[0]
    spans, sums = traced_spans(index, query, L, C, min_len, options)
    ref, ref_sums = brute_select(docs, query.tolist(), min_len, options)
    assert [(s, e, int(C[e - 1])) for s, e in spans] == ref
    if options.rank_by == "unigram_logprob_sum":
        assert sums == pytest.approx(ref_sums)
    # documents per span: one occurrence in each of the first documents, in rank order
    limit = data.draw(st.integers(1, 4))
    shard_docs = [int(s.meta["n_docs"]) for s in index.shards]
    found = index.locate_documents([query[s:e] for s, e in spans], limit)
    for (s, e), where in zip(spans, found, strict=True):
        assert [f"{d}@{o}" for d, _, o in where] == brute_documents(
            docs, shard_docs, query[s:e].tolist(), limit
        )
        assert len({n for _, n, _ in where}) == len(where)
    assert index.locate_documents([[4], []], 2) == [[], []]  # absent, empty


def test_trace_batch_json_with_options_is_the_trace_of_each_text(index):
    opts = SpanOptions(max_density=0.1, rank_by="unigram_logprob_sum", docs_per_span=1)
    items = [("a", QUERY), ("b", np.array([2, 3, 9, 1, 1, 1]))]
    rows = trace_batch_rows(index, None, items, 2, 3, opts)
    for row, (_, ids) in zip(rows, items, strict=True):
        assert row["copied"] == trace(index, None, ids, 2, 3, opts)["spans"]
    assert json.loads(json.dumps(rows)) == rows


@pytest.mark.parametrize("shard_tokens", [None, 30])
def test_documents_beyond_the_first_ranks_are_read(tmp_path, shard_tokens):
    """Token 7 occurs 40 times in document 0, all first in rank order (read backwards, what
    precedes them is 7s and the stream's start); then 3@1 (after "7", a separator), 2@0 (after
    a separator, "2") and 3@0 (after a separator, "7"): a second document needs 41 ranks,
    past the first batch of 16; in two shards document 0 is the first shard alone."""
    docs = [[7] * 40, [1, 2], [7], [7, 7, 3]]
    index = make_index(tmp_path, docs, shard_tokens=shard_tokens)
    shard_docs = [int(s.meta["n_docs"]) for s in index.shards]
    assert shard_docs == ([4] if shard_tokens is None else [1, 3])
    for limit in (1, 2, 3, 5):
        found = index.locate_documents([[7], [7, 7]], limit)
        for ngram, where in zip([[7], [7, 7]], found, strict=True):
            assert [f"{d}@{o}" for d, _, o in where] == brute_documents(
                docs, shard_docs, ngram, limit
            )
    assert [f"{d}@{o}" for d, _, o in index.locate_documents([[7]], 2)[0]] == ["0@0", "3@1"]
    assert [f"{d}@{o}" for d, _, o in index.locate_documents([[7]], 3)[0]] == [
        "0@0", "2@0", "3@1"]  # fmt: skip
