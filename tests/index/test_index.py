"""The index against brute force, hypothesis properties, rusty-dawg, and the paper's example."""

from __future__ import annotations

import numpy as np
import pydivsufsort
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from copyscope.errors import InputError
from copyscope.index import Index, build_index, core, maximal_spans
from copyscope.index.build import shard_plan, suffix_array, token_code
from support.index import brute_count, brute_matches, stream_of


@pytest.fixture(params=["compiled", "numpy"])
def engine(request, monkeypatch):
    """Both ways an Index answers: the numba kernels, and the numpy path of
    copyscope.index.small (taken for few tokens when the kernels are not loaded)."""
    import copyscope.index.core as core

    monkeypatch.setattr(core, "use_numpy_path", lambda n: request.param == "numpy")
    return request.param


def make_index(tmp_path, docs, dtype=np.uint16, shard_tokens=None, name="idx"):
    build_index(stream_of(docs, dtype), tmp_path / name, shard_tokens=shard_tokens)
    return Index(tmp_path / name)


# ----------------------------------------------------------------------------- the paper's example
def test_paper_worked_example_characters(tmp_path):
    """Merrill et al.: C = "hello world", Q = "lloyd" → nnsl ⟨1,2,3,0,1⟩ (mean 1.4)."""
    idx = make_index(tmp_path, [[ord(c) for c in "hello world"]])
    L, C = idx.longest_matches([[ord(c) for c in "lloyd"]])[0]
    assert L.tolist() == [1, 2, 3, 0, 1]
    assert L.mean() == pytest.approx(1.4)
    # counts: "l" ×3, "ll" ×1, "llo" ×1, "y" absent → corpus size (12 with the separator), "d" ×1
    assert C.tolist() == [3, 1, 1, 12, 1]


def sorted_suffixes(seq) -> list[int]:
    """The suffix array by definition: start positions ordered by their suffixes."""
    return sorted(range(len(seq)), key=lambda i: seq[i:].tolist())


def test_suffix_array_matches_sorted_suffixes(rng):
    for dtype, hi in ((np.uint16, 5), (np.uint32, 70_000)):
        seq = rng.integers(0, hi, size=300).astype(dtype)
        assert suffix_array(seq).tolist() == sorted_suffixes(seq)


U16_MAX, U32_MAX = 2**16 - 1, 2**32 - 1


@pytest.mark.parametrize(
    "dtype, ids, width",
    [
        (np.uint16, [0, 1, 2, 254], 1),  # the separator recoded as 255: one byte per token
        (np.uint16, [0, 1, 255, 40_000, U16_MAX - 2, U16_MAX - 1], 2),
        (np.uint32, [0, 3, 70_000, 2**24 - 3], 3),
        (np.uint32, [0, 7, 2**31 - 1, 2**31, 2**31 + 1, U32_MAX - 2, U32_MAX - 1], 4),
        (np.uint32, [U32_MAX - 1], 4),
    ],
)
def test_suffix_array_of_streams_with_ids_near_the_dtype_max(rng, dtype, ids, width):
    """libdivsufsort's byte sort of the stream (ids up to the dtype's max, separator = max) gives
    the suffix array by definition, with the fewest bytes per token that keep the order."""
    sep = np.iinfo(dtype).max
    for size in (1, 2, 3, 40, 400):
        docs = [rng.choice(ids, size=rng.integers(0, size + 1)) for _ in range(3)]
        seq = stream_of(docs, dtype)
        sa = suffix_array(seq)
        assert sa.dtype == np.int32 and sa.tolist() == sorted_suffixes(seq)
        rev = np.ascontiguousarray(seq[::-1])
        assert suffix_array(rev).tolist() == sorted_suffixes(rev)
    assert token_code(stream_of([ids], dtype)) == (sep, max(ids) + 1, width)
    one = np.array([sep], dtype=dtype)
    assert suffix_array(one).tolist() == [0] and suffix_array(one[:0]).tolist() == []


def test_suffix_array_from_the_64_bit_sorter(rng, monkeypatch):
    """Past 2^31 - 1 bytes pydivsufsort sorts with divsufsort64 (int64 positions): forced here on
    a small stream, the int32 suffix array is the same."""
    from copyscope.index import build

    calls = []
    sort = pydivsufsort.divsufsort

    def sort64(data):
        out = sort(data, force64=True)
        calls.append(out.dtype)
        return out

    seq = stream_of([rng.integers(0, 300, size=200), [5, 6, 7] * 30, [5, 6, 7] * 30])
    expect = suffix_array(seq).tolist()
    monkeypatch.setattr(build.pydivsufsort, "divsufsort", sort64)
    sa = suffix_array(seq)
    assert calls == [np.int64] and sa.dtype == np.int32
    assert sa.tolist() == expect == sorted_suffixes(seq)


# ----------------------------------------------------------------------------- brute force
@pytest.mark.parametrize("alphabet", [2, 3, 7, 300])
def test_longest_matches_equal_brute_force(engine, tmp_path, rng, alphabet):
    docs = [rng.integers(0, alphabet, size=rng.integers(0, 40)) for _ in range(25)]
    docs += [docs[3], docs[3], docs[7]]  # duplicated documents
    idx = make_index(tmp_path, docs)
    queries = [rng.integers(0, alphabet + 1, size=rng.integers(0, 60)) for _ in range(30)]
    queries.append(np.concatenate([docs[3], docs[5]]))  # an excerpt crossing a boundary
    m = idx.longest_matches(queries)
    for i, q in enumerate(queries):
        L, C = brute_matches(docs, q)
        got_L, got_C = m[i]
        assert got_L.tolist() == L.tolist(), f"query {i}"
        assert got_C.tolist() == C.tolist(), f"query {i}"


def test_count_and_locate_equal_brute_force(engine, tmp_path, rng):
    docs = [rng.integers(0, 3, size=rng.integers(1, 30)) for _ in range(20)]
    idx = make_index(tmp_path, docs, shard_tokens=100)
    assert len(idx.shards) > 1
    for _ in range(200):
        s = int(rng.integers(0, len(docs)))
        d = docs[s]
        a = int(rng.integers(0, len(d)))
        g = d[a : a + int(rng.integers(1, 6))]
        assert idx.count(g) == brute_count(docs, g)
        found = idx.locate(g, limit=1000)
        expect = sorted(
            (j, o)
            for j, dd in enumerate(docs)
            for o in range(len(dd) - len(g) + 1)
            if list(dd[o : o + len(g)]) == list(g)
        )
        assert sorted((doc_no, off) for _, doc_no, off in found) == expect
        assert (s, a) in {(doc_no, off) for _, doc_no, off in found}
    assert idx.count([2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]) == brute_count(docs, [2] * 14)
    assert idx.count([]) == idx.n_tokens
    assert idx.locate([9, 9]) == []


def test_long_matches_beyond_lcp_cap(engine, tmp_path, rng):
    """Matches longer than 255 tokens need the exact LCP fallback; counts must stay exact."""
    base = rng.integers(0, 50, size=700)
    docs = [base, base[:600], rng.integers(0, 50, size=300), base, base[100:]]
    idx = make_index(tmp_path, docs)
    q = np.concatenate([base[:650], [7, 7, 7], base[200:500]])
    L, C = idx.longest_matches([q])[0]
    eL, eC = brute_matches(docs, q)
    assert L.tolist() == eL.tolist()
    assert C.tolist() == eC.tolist()
    assert L.max() >= 600


def test_u32_large_alphabet(engine, tmp_path, rng):
    docs = [rng.integers(0, 70_000, size=rng.integers(1, 50)) for _ in range(10)]
    docs.append(docs[0])
    idx = make_index(tmp_path, docs, dtype=np.uint32)
    assert idx.dtype == np.uint32
    qs = [np.concatenate([docs[0][:5], rng.integers(0, 70_000, size=5), docs[4]]), docs[2]]
    m = idx.longest_matches(qs)
    for i, q in enumerate(qs):
        L, C = brute_matches(docs, q)
        assert m[i][0].tolist() == L.tolist()
        assert m[i][1].tolist() == C.tolist()


def test_empty_and_overlong_queries(engine, tmp_path, rng):
    docs = [rng.integers(0, 4, size=10) for _ in range(3)]
    idx = make_index(tmp_path, docs)
    long_q = np.concatenate(docs * 4)
    m = idx.longest_matches([[], long_q, []])
    assert len(m) == 3
    assert m[0][0].size == 0 and m[2][0].size == 0
    assert m[1][0].max() <= 10  # never longer than a document: no match crosses a separator
    assert m[1][0].tolist() == brute_matches(docs, long_q)[0].tolist()
    assert idx.longest_matches([]).length.size == 0


def test_query_ids_outside_vocabulary_are_rejected(tmp_path):
    idx = make_index(tmp_path, [[1, 2, 3]])
    with pytest.raises(InputError, match="outside"):
        idx.longest_matches([[1, 65535]])
    with pytest.raises(InputError, match="outside"):
        idx.longest_matches([[-1]])


def test_maximal_spans():
    # L = 1 2 3 0 1 2 2 → spans ending at t=2 (len 3), t=5 (len 2), t=6 (len 2)
    assert maximal_spans(np.array([1, 2, 3, 0, 1, 2, 2]), 2) == [(0, 3), (4, 6), (5, 7)]
    assert maximal_spans(np.array([1, 2, 3, 0, 1, 2, 2]), 3) == [(0, 3)]


def test_shard_plan():
    assert shard_plan(np.array([3, 3, 3, 3]), 6) == [(0, 2), (2, 4)]
    assert shard_plan(np.array([10, 1, 1]), 5) == [(0, 1), (1, 3)]
    assert shard_plan(np.array([1]), 5) == [(0, 1)]


# ----------------------------------------------------------------------------- properties
corpora = st.lists(st.lists(st.integers(0, 3), min_size=0, max_size=25), min_size=1, max_size=12)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(docs=corpora, data=st.data())
def test_property_brute_force_and_sharding(engine, tmp_path_factory, docs, data):
    docs = docs + data.draw(st.lists(st.sampled_from(docs), max_size=3))  # repeated documents
    tmp = tmp_path_factory.mktemp("prop")
    whole = make_index(tmp, docs, name="whole")
    shard_tokens = data.draw(st.integers(1, 40))
    sharded = make_index(tmp, docs, shard_tokens=shard_tokens, name="sharded")
    queries = data.draw(
        st.lists(
            st.one_of(
                st.lists(st.integers(0, 4), max_size=30),  # fresh (4 never occurs)
                st.sampled_from(docs).map(list),  # excerpts
            ),
            min_size=1,
            max_size=5,
        )
    )
    a = whole.longest_matches(queries)
    b = sharded.longest_matches(queries)
    assert a.length.tolist() == b.length.tolist()
    assert a.count.tolist() == b.count.tolist()
    for i, q in enumerate(queries):
        L, C = brute_matches(docs, q)
        assert a[i][0].tolist() == L.tolist()
        assert a[i][1].tolist() == C.tolist()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    alphabet=st.sampled_from([2, 70_000]),
    seed=st.integers(0, 2**16),
)
def test_property_alphabets_u32(engine, tmp_path_factory, alphabet, seed):
    rng = np.random.default_rng(seed)
    docs = [rng.integers(0, alphabet, size=rng.integers(1, 20)) for _ in range(8)]
    docs.append(docs[0])
    idx = make_index(tmp_path_factory.mktemp("u32"), docs, dtype=np.uint32)
    q = np.concatenate([docs[1], rng.integers(0, alphabet, size=4), docs[0][:3]])
    L, C = idx.longest_matches([q])[0]
    eL, eC = brute_matches(docs, q)
    assert L.tolist() == eL.tolist()
    assert C.tolist() == eC.tolist()


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    segment=st.integers(1, 9),
    keep=st.integers(1, 4),
    probe=st.integers(0, 4),
    cap=st.integers(1, 6),
    seed=st.integers(0, 2**16),
)
def test_property_segments_and_kept_occurrences(tmp_path_factory, segment, keep, probe, cap, seed):
    """Queries cut into short segments (a segment restarts the matching statistics inside a
    query), few kept occurrences (matches with more occurrences are searched again), short
    probe windows (segments handed to the batched searches early; 0: never) and low caps of
    the batched searches (matches reaching the cap answered again by matching statistics) give
    the same L_t and C_t as brute force; duplicated documents make counts above ``keep``."""
    rng = np.random.default_rng(seed)
    docs = [rng.integers(0, 3, size=rng.integers(1, 40)) for _ in range(10)]
    docs += [docs[0], docs[0], docs[1]]
    idx = make_index(tmp_path_factory.mktemp("seg"), docs)
    queries = [np.concatenate([docs[0], rng.integers(0, 4, size=6), docs[1][::-1], docs[2]])]
    queries.append(rng.integers(0, 3, size=25))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(core, "SEGMENT_TOKENS", segment)
        mp.setattr(core, "KEEP_OCCURRENCES", keep)
        mp.setattr(core, "PROBE", probe)
        mp.setattr(core, "BATCH_CAP", cap)
        m = idx.longest_matches(queries)
    for i, q in enumerate(queries):
        L, C = brute_matches(docs, q)
        assert m[i][0].tolist() == L.tolist()
        assert m[i][1].tolist() == C.tolist()


# ----------------------------------------------------------------------------- rusty-dawg
def test_identical_to_rusty_dawg(engine, tmp_path, rng):
    """The reference implementation of Merrill et al. gives the same L_t and C_t."""
    from rusty_dawg import Cdawg

    V = 200
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()
    docs = [rng.choice(V, size=rng.integers(1, 300), p=p) for _ in range(60)]
    docs += docs[:6]
    stream = stream_of(docs)
    cdawg = Cdawg(stream.tolist())
    cdawg.build()
    cdawg.fill_counts()
    idx = make_index(tmp_path, docs, shard_tokens=4000)
    queries = [rng.choice(V, size=200, p=p) for _ in range(10)]
    queries += [np.concatenate([docs[i][:80], rng.choice(V, size=5, p=p)]) for i in range(10)]
    m = idx.longest_matches(queries)
    for i, q in enumerate(queries):
        cs = cdawg.get_initial()
        L, C = [], []
        for tok in q.tolist():
            cs = cdawg.transition_and_count(cs, tok)
            L.append(cs.get_length())
            C.append(cdawg.get_suffix_count(cs))
        assert m[i][0].tolist() == L
        assert m[i][1].tolist() == C


# ----------------------------------------------------------------------------- bad input
def test_bad_streams(tmp_path):
    with pytest.raises(InputError, match="non-empty"):
        build_index(np.zeros(0, np.uint16), tmp_path / "a")
    with pytest.raises(InputError, match="end with the separator"):
        build_index(np.array([1, 2, 3], np.uint16), tmp_path / "b")
    with pytest.raises(InputError, match="uint16 or uint32"):
        build_index(np.array([1, 2, 3], np.int64), tmp_path / "c")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    with pytest.raises(InputError, match="expected an index directory"):
        Index(tmp_path / "missing")


def test_corrupt_index_is_reported(tmp_path):
    make_index(tmp_path, [[1, 2, 3]])
    (tmp_path / "idx" / "shard-000" / "lcp.npy").unlink()
    with pytest.raises(InputError, match="lcp.npy"):
        Index(tmp_path / "idx")


# ----------------------------------------------------------------------------- stage commands
def _split(tmp_path, docs, ids):
    """A tokenized split (stream + meta) as ``tokenize encode`` writes it."""
    import json

    np.save(tmp_path / "train.npy", stream_of(docs))
    meta = {"doc_ids": ids, "doc_lengths": [len(d) for d in docs]}
    (tmp_path / "train.json").write_text(json.dumps(meta))
    return tmp_path / "train.npy", tmp_path / "train.json"


def test_plan_shards_offsets_by_hand():
    from copyscope.index.build import plan_shards

    # documents of 2, 3, 1, 4 tokens (+1 separator each) at [0,3) [3,7) [7,9) [9,14);
    # at most 6 tokens per shard: 3 | 4 + 2 | 5
    plan = plan_shards([2, 3, 1, 4], 6)
    assert plan == {
        "shard_tokens": 6,
        "shards": [
            {"name": "shard-000", "first_doc": 0, "end_doc": 1, "start": 0, "end": 3},
            {"name": "shard-001", "first_doc": 1, "end_doc": 3, "start": 3, "end": 9},
            {"name": "shard-002", "first_doc": 3, "end_doc": 4, "start": 9, "end": 14},
        ],
    }


def test_sharded_commands_equal_build_index(tmp_path):
    """index plan → shard (one job each) → manifest gives the index of ``index build``."""
    import json

    from copyscope.cli import main

    docs = [[1, 2], [2, 3, 1], [4], [1, 2, 3, 4]]
    ids = ["a", "b", "c", "d"]
    npy, meta = _split(tmp_path, docs, ids)
    out = tmp_path / "idx"
    assert main(["index", "plan", "--meta", str(meta), "--shard-tokens", "6",
                 "--out", str(out / "plan.json")]) == 0  # fmt: skip
    names = [s["name"] for s in json.loads((out / "plan.json").read_text())["shards"]]
    for name in reversed(names):
        assert main(["index", "shard", "--tokens", str(npy), "--meta", str(meta), "--plan",
                     str(out / "plan.json"), "--shard", name, "--out", str(out / name)]) == 0  # fmt: skip
    shards = [str(out / n) for n in reversed(names)]  # any order: the plan orders them
    assert main(["index", "manifest", "--plan", str(out / "plan.json"), "--shards", *shards,
                 "--out", str(out / "index.json")]) == 0  # fmt: skip
    manifest = json.loads((out / "index.json").read_text())
    assert manifest["shards"] == names == ["shard-000", "shard-001", "shard-002"]
    assert "tokenizer_kind" not in manifest
    ref = build_index(stream_of(docs), tmp_path / "ref", doc_ids=ids, shard_tokens=6)
    assert {k: manifest[k] for k in ("n_tokens", "n_docs", "dtype", "sep")} == {
        k: ref[k] for k in ("n_tokens", "n_docs", "dtype", "sep")
    }
    idx, whole = Index(out), Index(tmp_path / "ref")
    assert idx.locate([2, 3], 5) == whole.locate([2, 3], 5)
    assert idx.locate([1, 2], 5) == [("a", 0, 0), ("d", 3, 0)]
    # "1" ×3, "1 2" ×2 (a, d), "1 2 3", "1 2 3 4" ×1 (d), "9" absent → corpus size 14
    L, C = idx.longest_matches([[1, 2, 3, 4, 9]])[0]
    assert L.tolist() == [1, 2, 3, 4, 0] and C.tolist() == [3, 2, 1, 1, 14]


def test_manifest_rejects_shards_not_in_the_plan(tmp_path):
    from copyscope.cli import main
    from copyscope.index.build import planned_shard_dirs

    npy, meta = _split(tmp_path, [[1, 2], [3]], ["a", "b"])
    main(
        [
            "index",
            "plan",
            "--meta",
            str(meta),
            "--shard-tokens",
            "3",
            "--out",
            str(tmp_path / "p.json"),
        ]
    )
    with pytest.raises(
        InputError, match=r"expected the shard directories \['shard-000', 'shard-001'\]"
    ):
        planned_shard_dirs(tmp_path / "p.json", [tmp_path / "shard-000"])
    assert main(["index", "shard", "--tokens", str(npy), "--meta", str(meta), "--plan",
                 str(tmp_path / "p.json"), "--shard", "shard-009", "--out", str(tmp_path / "s")]) == 2  # fmt: skip


@pytest.fixture(scope="module")
def word_index(tmp_path_factory):
    """An index of Moses words built with the stage commands, its tokenizer in index.json."""
    from copyscope.cli import main
    from copyscope.tokenize import encode_split, from_spec

    tmp = tmp_path_factory.mktemp("words")
    docs = tmp / "train.jsonl"
    docs.write_text(
        '{"id": "ham", "text": "to be or not to be"}\n{"id": "mac", "text": "out damned spot"}\n'
    )
    tok = from_spec({"kind": "moses"}, "words").fit(
        ["to be or not to be", "out damned spot"], tmp / "tok"
    )
    encode_split(tok, docs, tmp / "train.npy", tmp / "train.json", "words")
    idx = tmp / "index"
    main(["index", "plan", "--meta", str(tmp / "train.json"), "--shard-tokens", "100",
          "--out", str(idx / "plan.json")])  # fmt: skip
    main(["index", "shard", "--tokens", str(tmp / "train.npy"), "--meta", str(tmp / "train.json"),
          "--plan", str(idx / "plan.json"), "--shard", "shard-000", "--out", str(idx / "shard-000")])  # fmt: skip
    main(["index", "manifest", "--plan", str(idx / "plan.json"), "--shards", str(idx / "shard-000"),
          "--tokenizer", str(tmp / "tok"), "--tokenizer-name", "words", "--tokenizer-kind", "moses",
          "--out", str(idx / "index.json")])  # fmt: skip
    return idx


def test_manifest_records_the_tokenizer(word_index):
    import json

    m = json.loads((word_index / "index.json").read_text())
    assert m["tokenizer_kind"] == "moses" and m["tokenizer"] == "words"
    assert m["tokenizer_dir"] == "../tok"


def test_query_loads_the_index_tokenizer_through_the_registry(word_index, capsys):
    import json

    from copyscope.cli import main
    from copyscope.index.query import open_with_tokenizer

    _, tok = open_with_tokenizer(word_index)
    assert tok.kind == "moses" and tok.joiner == " "
    assert main(["query", str(word_index), "--json", "--text", "not to be damned"]) == 0
    rows = json.loads(capsys.readouterr().out)
    # "not to be" occurs once in "to be or not to be"; "damned" once; "be damned" never
    assert [r["piece"] for r in rows] == ["not", "to", "be", "damned"]
    assert [(r["L"], r["C"]) for r in rows] == [(1, 1), (2, 1), (3, 1), (1, 1)]
    assert main(["count", str(word_index), "--text", "to be"]) == 0
    assert capsys.readouterr().out.strip() == "2"
    assert main(["query", str(word_index), "--ids", "0 1"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["t", "token", "piece", "L_t", "C_t"]
    assert table[1].split() == ["0", "0", "'be'", "1", "2"]  # be, to: 2 each; ties by text


def test_trace_shows_spans_and_sources(word_index, capsys):
    from copyscope.cli import main

    assert main(["trace", str(word_index), "--plain", "--min-len", "3",
                 "--text", "I say not to be and out damned spot"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    # words never seen in training decode as <unk>
    assert out.splitlines()[0] == "<unk> <unk> not to be <unk> out damned spot "
    assert "2 maximal copied span(s) of ≥ 3 tokens (67% of tokens covered)" in out
    assert "[2:5) len 3, 1 occurrence(s): 'not to be'\n      in ham@3" in out
    assert "[6:9) len 3, 1 occurrence(s): 'out damned spot'\n      in mac@0" in out


def test_query_without_a_tokenizer_needs_ids(tmp_path, capsys):
    from copyscope.cli import main

    build_index(stream_of([[1, 2, 3]]), tmp_path / "i")
    assert main(["count", str(tmp_path / "i"), "--text", "x"]) == 2
    assert "pass --tokenizer or --ids" in capsys.readouterr().err
    assert main(["count", str(tmp_path / "i"), "--ids", "2,3"]) == 0
    assert capsys.readouterr().out.strip() == "1"


def test_short_query_process_never_starts_numba(word_index):
    """An ad-hoc `copyscope query` / `count` / `trace` on a few tokens takes the numpy path:
    numba is never imported (its start-up is most of a second), the answers are the kernels'."""
    import json
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from copyscope.cli import main\n"
        f"for args in (['query', {str(word_index)!r}, '--json', '--text', 'not to be damned'],\n"
        f"             ['count', {str(word_index)!r}, '--text', 'to be'],\n"
        f"             ['trace', {str(word_index)!r}, '--plain', '--text', 'not to be']):\n"
        "    assert main(args) == 0\n"
        "print('numba' in sys.modules, 'copyscope.index.kernels' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "False False"
    rows = json.loads(lines[0])
    assert [(r["L"], r["C"]) for r in rows] == [(1, 1), (2, 1), (3, 1), (1, 1)]  # as above
    assert lines[1] == "2"
