"""An infini-gram index is a copyscope index (issue 38 §1–§2): indexes built by the
``infini_gram`` package's own indexer (offline, on corpora written here: several shards, u8,
u16 and u32 tokens, pointers of 1 to 3 bytes, documents of one token, long repeats, token ids
whose byte order differs from their numeric order) answer every query — L_t and C_t (compiled
kernels and the Python path of short queries), counts, locations with their documents and
metadata, documents, the ``query`` / ``count`` / ``trace`` commands — exactly as infini-gram's
engine, copyscope's own index of the same documents and brute force do; a damaged folder is
one clear error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from copyscope.cli import main
from copyscope.errors import InputError
from copyscope.index import build_index, core
from copyscope.index import open as open_index
from copyscope.index.infinigram import InfiniGramIndex, is_infinigram, pointer_width
from support.index import stream_of
from support.infinigram import build_infinigram
from support.workflow import ROOT

pytest.importorskip("infini_gram")
from infini_gram.engine import InfiniGramEngine  # noqa: E402

DTYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32}


def corpus(rng, vocab, n_docs, max_len, block_len, repeats):
    """Random documents over ``vocab`` (ids drawn with a skew, so n-grams repeat), documents
    of one token, and a block repeated ``repeats`` times in one document and once more in
    another (long matches)."""
    vocab = np.asarray(vocab)
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    docs = [rng.choice(vocab, size=int(rng.integers(1, max_len)), p=weights).tolist()
            for _ in range(n_docs)]  # fmt: skip
    docs += [[int(v)] for v in vocab[:3]] + [[int(vocab[-1])]]
    block = rng.choice(vocab, size=block_len, p=weights).tolist()
    docs.append(block * repeats)
    docs.append(rng.choice(vocab, size=5).tolist() + block + rng.choice(vocab, size=5).tolist())
    rng.shuffle(docs)
    return docs


U16_VOCAB = [1, 2, 3, 4, 5, 6, 7, 256, 257, 300, 511, 512, 1000, 40000, 65534]
U32_VOCAB = [1, 2, 3, 255, 256, 65535, 65536, 70000, 131071, 200000]
U8_VOCAB = list(b"abcde fghij")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """name -> (infini-gram index folder, documents, dtype) of every corpus, built by the
    package's indexer in one process."""
    rng = np.random.default_rng(38)
    corpora = {
        "u16": (corpus(rng, U16_VOCAB, 60, 40, 60, 12), "u16", 3, True),
        "u32": (corpus(rng, U32_VOCAB, 30, 30, 40, 5), "u32", 2, False),
        "u8": (corpus(rng, U8_VOCAB, 30, 40, 30, 6), "u8", 2, True),
        "big": (corpus(rng, list(range(1, 60)), 1500, 50, 300, 8), "u16", 1, True),
        "tiny": (corpus(rng, U16_VOCAB, 12, 8, 5, 3), "u16", 4, True),
    }
    root = tmp_path_factory.mktemp("infinigram")
    folders = build_infinigram(root, corpora)
    return {k: (folders[k], v[0], v[1]) for k, v in corpora.items()}


@pytest.fixture(scope="module")
def own(built, tmp_path_factory):
    """copyscope's own index of every corpus (documents in their order, ids ``d<i>``)."""
    out = {}
    for name, (_, docs, dtype) in built.items():
        folder = tmp_path_factory.mktemp(f"own-{name}") / "index"
        dt = np.uint16 if dtype == "u8" else DTYPES[dtype]
        build_index(stream_of(docs, dt), folder, doc_ids=[f"d{i}" for i in range(len(docs))])
        out[name] = open_index(folder)
    return out


def engine(folder, dtype) -> InfiniGramEngine:
    vocab = {"u8": 255, "u16": 65535, "u32": 2**32 - 1}[dtype]
    return InfiniGramEngine(index_dir=str(folder), eos_token_id=0, vocab_size=vocab,
                            token_dtype=dtype)  # fmt: skip


class Brute:
    """Occurrences by scanning the documents: the end positions of a pattern, extended one
    token at a time to the left."""

    def __init__(self, docs):
        self.docs = docs
        self.stream = np.concatenate([np.append(np.asarray(d, np.int64), -1) for d in docs])
        self.starts = np.concatenate([[0], np.cumsum([len(d) + 1 for d in docs])])
        self.total = self.stream.shape[0]

    def ends(self, pattern) -> np.ndarray:
        e = np.flatnonzero(self.stream == pattern[-1])
        for h in range(1, len(pattern)):
            e = e[e - h >= 0]
            e = e[self.stream[e - h] == pattern[-1 - h]]
        return e

    def matches(self, q):
        L, C = np.zeros(len(q), np.int64), np.zeros(len(q), np.int64)
        for t in range(len(q)):
            e = np.flatnonzero(self.stream == q[t])
            length = 0
            while e.size:
                length += 1
                C[t] = e.size
                if length > t:
                    break
                e = e[e - length >= 0]
                e = e[self.stream[e - length] == q[t - length]]
            L[t] = length
            if length == 0:
                C[t] = self.total
        return L, C

    def locate(self, pattern) -> list[tuple[int, int]]:
        first = self.ends(pattern) - len(pattern) + 1
        docs = np.searchsorted(self.starts, first, side="right") - 1
        return sorted(zip(docs.tolist(), (first - self.starts[docs]).tolist(), strict=True))


def queries(rng, docs, vocab, k=25, max_len=90):
    """Pieces of documents glued together with a changed or absent token here and there."""
    absent = min(set(range(1, 300)) - set(vocab))
    out = []
    for _ in range(k):
        q = []
        while len(q) < max_len:
            d = docs[int(rng.integers(len(docs)))]
            a = int(rng.integers(len(d)))
            q += d[a : a + int(rng.integers(1, 40))]
            if rng.random() < 0.3:
                q.append(int(rng.choice(vocab)))
            if rng.random() < 0.1:
                q.append(absent)
        out.append(np.array(q[: int(rng.integers(1, max_len))], dtype=np.int64))
    out.append(np.array(max(docs, key=len) + docs[0], dtype=np.int64))  # the long repeat
    return out


@pytest.fixture(scope="module")
def cases(built):
    rng = np.random.default_rng(7)
    vocabs = {"u16": U16_VOCAB, "u32": U32_VOCAB, "u8": U8_VOCAB, "big": list(range(1, 60)),
              "tiny": U16_VOCAB}  # fmt: skip
    return {name: queries(rng, built[name][1], vocabs[name]) for name in built}


NAMES = ["u16", "u32", "u8", "big", "tiny"]


def test_built_layout(built):
    """The folders are what infini-gram's indexer writes: every shard, pointers of the
    indexer's width (1 to 3 bytes here), and they open as infini-gram indexes."""
    widths = {}
    for name, (folder, docs, dtype) in built.items():
        assert is_infinigram(folder)
        idx = open_index(folder)
        assert isinstance(idx, InfiniGramIndex)
        assert idx.manifest["dtype"] == dtype
        assert len(idx.shards) == {"u16": 3, "u32": 2, "u8": 2, "big": 1, "tiny": 4}[name]
        assert idx.n_docs == len(docs)
        assert idx.n_tokens == sum(len(d) + 1 for d in docs)
        for s in idx.shards:
            assert s.ptr_bytes == pointer_width(s.n_tokens * s.width)
            widths[s.ptr_bytes] = name
    assert {1, 2, 3} <= set(widths)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("path", ["kernels", "python"])
def test_longest_matches(built, own, cases, name, path, monkeypatch):
    """L_t and C_t of every position: the kernels (segments of 7 tokens, so most start
    inside their query) and the Python path agree with infini-gram's engine (infgram_prob:
    the longest suffix with a count and its count), copyscope's own index and brute force."""
    folder, docs, dtype = built[name]
    idx = open_index(folder)
    qs = cases[name]
    if path == "kernels":
        from copyscope.index import infinigram_kernels  # noqa: F401  (loads the kernels)

        monkeypatch.setattr(core, "SEGMENT_TOKENS", 7)
        got = idx.longest_matches(qs)
    else:
        monkeypatch.setattr(core, "use_numpy_path", lambda n: True)
        qs = qs[:8]
        got = idx.longest_matches(qs)
    mine = own[name].longest_matches(qs)
    np.testing.assert_array_equal(got.length, mine.length)
    np.testing.assert_array_equal(got.count, mine.count)
    eng = engine(folder, dtype)
    brute = Brute(docs) if name != "big" else None
    for i, q in enumerate(qs):
        L, C = got[i]
        # the engine (a few ms a call): every position of 10 queries, 60 of the long one
        check = range(len(q)) if i < 10 else range(0, len(q), max(1, len(q) // 60))
        for t in check if i < 10 or i == len(qs) - 1 else ():
            # the last L_t + 1 tokens decide it: a longer match would show as L_t + 1
            window = q[max(0, t - int(L[t])) : t + 1].tolist()
            r = eng.infgram_prob(prompt_ids=window, cont_id=0)
            assert (L[t], C[t]) == (r["suffix_len"], r["prompt_cnt"]), (i, t)
        if brute is not None and len(q) <= 150:  # the long repeat: engine and own index
            bl, bc = brute.matches(q)
            np.testing.assert_array_equal(L, bl)
            np.testing.assert_array_equal(C, bc)


@pytest.mark.parametrize("name", NAMES)
def test_counts(built, own, name, monkeypatch):
    """count / count_many / count_and_key of n-grams of every length (present, absent,
    empty, the long repeat), batched (kernels) and one by one (Python path): infini-gram's
    count, copyscope's own index and brute force."""
    folder, docs, dtype = built[name]
    idx = open_index(folder)
    rng = np.random.default_rng(11)
    grams = []
    for _ in range(300):
        d = docs[int(rng.integers(len(docs)))]
        a = int(rng.integers(len(d)))
        g = list(d[a : a + int(rng.integers(1, 12))])
        if rng.random() < 0.3:
            g[int(rng.integers(len(g)))] = int(rng.choice(docs[0]))
        grams.append(g)
    grams += [[], max(docs, key=len)[:100], max(docs, key=len)]
    eng = engine(folder, dtype)
    want = [eng.count(input_ids=g)["count"] for g in grams]
    np.testing.assert_array_equal(idx.count_many(grams), want)
    np.testing.assert_array_equal(own[name].count_many(grams), want)
    brute = Brute(docs)
    for g, c in zip(grams[:60], want, strict=False):
        assert c == (len(brute.ends(g)) if g else brute.total)
    assert [idx.count(g) for g in grams[:40]] == want[:40]
    count, key = idx.count_and_key(grams)  # keys name n-grams of one length
    np.testing.assert_array_equal(count, want)
    for i in range(len(grams)):
        for j in range(i + 1, min(len(grams), i + 30)):
            if count[i] and count[j] and len(grams[i]) == len(grams[j]):
                assert (key[i] == key[j]) == (grams[i] == grams[j])
    monkeypatch.setattr(core, "use_numpy_path", lambda n: True)
    np.testing.assert_array_equal(idx.count_many(grams[:50]), want[:50])


@pytest.mark.parametrize("name", NAMES)
def test_locate_documents_metadata(built, own, name):
    """locate / locate_many: every occurrence (a limit above the count) as brute force and
    copyscope's own index find them; with a smaller limit, the first ranks of each shard in
    turn, as infini-gram's find gives them; documents and metadata as its get_doc_by_ix."""
    folder, docs, dtype = built[name]
    idx = open_index(folder)
    eng = engine(folder, dtype)
    brute = Brute(docs)
    rng = np.random.default_rng(5)
    grams = []
    for _ in range(40):
        d = docs[int(rng.integers(len(docs)))]
        a = int(rng.integers(len(d)))
        grams.append(list(d[a : a + int(rng.integers(1, 6))]))
    found = idx.locate_many(grams, limit=10**6)
    for g, occ in zip(grams, found, strict=True):
        # infini-gram numbers its documents by shard: compare occurrences by their documents
        want = sorted((tuple(docs[d]), o) for d, o in brute.locate(g))
        assert sorted((tuple(idx.document(d).tolist()), o) for _, d, o in occ) == want
        mine = own[name].locate(g, limit=10**6)
        assert sorted((tuple(docs[int(i[1:])]), o) for i, _, o in mine) == want
        for i, d, _ in occ:  # ids: the corpus's own (metadata), else the document number
            assert (docs[int(i[1:])] == idx.document(d).tolist()) if name != "u32" else i == str(d)
    for g in grams[:20]:
        limit = 3
        seg = eng.find(input_ids=g)["segment_by_shard"]
        want, left = [], limit
        for s, (a, b) in enumerate(seg):
            for r in range(a, min(b, a + max(left, 0))):
                doc = eng.get_doc_by_rank(s=s, rank=r, max_disp_len=10**6)
                want.append((doc["doc_ix"], doc["needle_offset"]))
            left -= b - a
        assert [(d, o) for _, d, o in idx.locate(g, limit=limit)] == sorted(want)
    for k in range(idx.n_docs):
        doc = eng.get_doc_by_ix(doc_ix=k, max_disp_len=10**6)
        assert idx.document(k).tolist() == doc["token_ids"]
        meta = idx.metadata(k)
        assert meta == (json.loads(doc["metadata"]) if doc["metadata"] else None)
        if meta is not None:
            assert docs[int(meta["metadata"]["id"][1:])] == doc["token_ids"]
            assert meta["metadata"]["source"] == f"s{int(meta['metadata']['id'][1:]) % 3}"


def run(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("name", ["u16", "u32"])
def test_commands(built, capsys, name):
    """``copyscope query / count / trace`` on the folder itself: the rows of longest_matches,
    the count, the copied spans with their sources (the explorer's ``trace --format json``
    rows as well)."""
    folder, docs, dtype = built[name]
    idx = open_index(folder)
    q = max(docs, key=len)[:30] + [min(set(range(1, 300)) - set(sum(docs, [])))] + docs[0]
    ids = ",".join(map(str, q))
    rc, out, _ = run(capsys, "query", folder, "--ids", ids, "--format", "json")
    assert rc == 0
    L, C = idx.longest_matches([np.array(q)])[0]
    assert [(r["L"], r["C"]) for r in json.loads(out)] == [
        (int(x), int(c)) for x, c in zip(L, C, strict=True)
    ]
    rc, out, _ = run(capsys, "count", folder, "--ids", " ".join(map(str, q[:4])),
                     "--token-dtype", dtype)  # fmt: skip
    assert rc == 0 and int(out) == idx.count(q[:4]) > 0
    rc, out, _ = run(capsys, "trace", folder, "--ids", ids, "--min-len", "3", "--plain")
    assert rc == 0
    for s, e in core.maximal_spans(L, 3):
        where = idx.locate(np.array(q[s:e]), limit=3)
        assert f"{where[0][0]}@{where[0][2]}" in out
    rc, out, err = run(capsys, "count", folder, "--ids", "1", "--token-dtype", "u8")
    assert rc == 2 and "table." in err and err.count("\n") == 1


@pytest.mark.parametrize("name", ["u16", "u32"])
def test_trace_span_options(built, own, name):
    """The trace's span options on an infini-gram folder: documents per span as brute force
    lists them (one occurrence in each of up to N distinct documents), and the options'
    spans, counts and unigram log-prob sums those of copyscope's own index of the corpus."""
    folder, docs, _ = built[name]
    idx = open_index(folder)
    brute = Brute(docs)
    rng = np.random.default_rng(11)
    for _ in range(20):
        d = docs[int(rng.integers(len(docs)))]
        a = int(rng.integers(len(d)))
        g = list(d[a : a + int(rng.integers(1, 4))])
        (found,) = idx.locate_documents([g], 3)
        seen = {tuple(docs[d2]) for d2, _ in brute.locate(g)}
        listed = [tuple(idx.document(k).tolist()) for _, k, _ in found]
        assert len(set(listed)) == len(listed) == min(3, len({d2 for d2, _ in brute.locate(g)}))
        assert set(listed) <= seen
    from copyscope.index import query as q
    from copyscope.index.spans import SpanOptions

    ids = np.array(max(docs, key=len)[:40] + docs[1])
    options = SpanOptions(50, 0.2, "unigram_logprob_sum", 2)
    mine = q.trace(idx, None, ids, 2, 3, options)["spans"]
    theirs = q.trace(own[name], None, ids, 2, 3, options)["spans"]
    keys = ("start", "end", "count")
    assert mine and [[s[k] for k in keys] for s in mine] == [[s[k] for k in keys] for s in theirs]
    assert all(s["count"] <= 50 and len(s["where"]) <= 2 for s in mine)
    # the sums: ln(count / N) over the span's tokens, N each index's own size
    for s in mine:
        counts = idx.count_many([[t] for t in ids[s["start"] : s["end"]]])
        want = float(np.log(np.asarray(counts) / idx.n_tokens).sum())
        assert s["unigram_logprob_sum"] == pytest.approx(want)


@pytest.fixture
def damaged(built, tmp_path):
    """A copy of an index folder to damage."""

    made = []

    def copy(name):
        made.append(name)
        dst = tmp_path / f"{name}-{len(made)}"
        shutil.copytree(built[name][0], dst)
        return dst

    return copy


def _rewrite(path, offset, data: bytes):
    raw = bytearray(path.read_bytes())
    raw[offset : offset + len(data)] = data
    path.write_bytes(bytes(raw))


def test_damage_at_opening(damaged):
    """Sizes that do not fit, offsets off the separators, a table entry outside the stream,
    suffixes out of order, a shard's file missing: one InputError naming the file."""
    f = damaged("u16")
    (f / "table.1").write_bytes((f / "table.1").read_bytes()[:-1])
    with pytest.raises(InputError, match=r"table\.1: its size"):
        open_index(f)
    f = damaged("u32")
    (f / "offset.0").write_bytes((f / "offset.0").read_bytes()[:-3])
    with pytest.raises(InputError, match=r"offset\.0: its \d+ bytes are not u64"):
        open_index(f)
    f = damaged("u8")
    _rewrite(f / "offset.1", 8, (int.from_bytes((f / "offset.1").read_bytes()[8:16], "little")
                                 + 1).to_bytes(8, "little"))  # fmt: skip
    with pytest.raises(InputError, match=r"offset\.1: corrupt .* separator"):
        open_index(f)
    f = damaged("tiny")
    p = open_index(f).shards[0].ptr_bytes
    _rewrite(f / "table.0", 0, b"\xff" * p)
    with pytest.raises(InputError, match=r"table\.0: corrupt .* rank 0 is not the byte offset"):
        open_index(f)
    f = damaged("tiny")
    table = (f / "table.0").read_bytes()  # the tiny shard's every rank is sampled
    _rewrite(f / "table.0", 0, table[p : 2 * p] + table[:p])
    with pytest.raises(InputError, match=r"table\.0: corrupt .* out of order"):
        open_index(f)
    f = damaged("u16")
    (f / "table.2").unlink()
    with pytest.raises(InputError, match=r"table\.2: expected one table file per tokenized"):
        open_index(f)
    f = damaged("u16")
    (f / "metaoff.1").unlink()
    with pytest.raises(InputError, match=r"metaoff\.1: file not found"):
        open_index(f)
    f = damaged("u16")
    with pytest.raises(InputError, match="token width 'u64'"):
        InfiniGramIndex(f, "u64")


def test_damage_in_queries(built, damaged, monkeypatch):
    """A table entry outside the stream met by a query (kernels, the Python path, locate) and a
    metadata line that is not JSON: an InputError naming the file, never a crash."""
    from copyscope.index import infinigram_kernels  # noqa: F401

    idx = open_index(built["u16"][0])
    shard = idx.shards[1]
    monkeypatch.setattr(shard, "sa", np.full(shard.sa.shape, 0xFF, dtype=np.uint8))
    q = np.array(built["u16"][1][0] * 3)
    with pytest.raises(InputError, match=r"table\.1: corrupt .*not the byte offset"):
        idx.longest_matches([q])
    with pytest.raises(InputError, match=r"table\.1: corrupt"):
        idx.count_many([q[:2], q[:3]])
    monkeypatch.setattr(core, "use_numpy_path", lambda n: True)
    with pytest.raises(InputError, match=r"table\.1: corrupt"):
        idx.longest_matches([q])
    f = damaged("u8")
    _rewrite(f / "metadata.0", 0, b"\xff{")
    idx = open_index(f)
    with pytest.raises(InputError, match=r"metadata\.0: corrupt .* not JSON"):
        idx.locate_many([idx.document(0)[:1]], limit=10**6)


def test_damage_cli_one_line(damaged):
    """From outside, as a user runs it: one ``copyscope: error:`` line naming the file."""
    f = damaged("tiny")
    _rewrite(f / "table.0", 0, b"\xff")
    proc = subprocess.run(
        [sys.executable, "-m", "copyscope", "query", str(f), "--ids", "1,2,3"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("copyscope: error: ") and "table.0" in lines[0]


def test_link(built, tmp_path, capsys):
    """``copyscope index link --format infini-gram`` (the workflow's ``tokenizers.<name>.index:
    {format: infini-gram, path}``): an ``index.json`` that opens the folder in place with the
    workflow's tokenizer, so ``query --text`` answers as the folder does for the ids; a
    tokenizer whose ids do not fit the token width, and a link whose folder moved, are refused
    with one error naming the file."""
    from copyscope.tokenize import from_spec, load

    tok_dir = tmp_path / "tok"
    from_spec({"kind": "bpe", "vocab_size": 300}).fit(["to be or not to be"] * 50, tok_dir)
    tok = load("bpe", tok_dir)
    texts = ["to be or not to be, that is it", "not to be", "or not"]
    source = build_infinigram(tmp_path, {"ig": ([tok.encode(t).tolist() for t in texts],
                                                 "u16", 2, True)})["ig"]  # fmt: skip
    out = tmp_path / "linked" / "index.json"
    rc, _, err = run(capsys, "index", "link", "--index", source, "--out", out, "--tokenizer",
                     tok_dir, "--tokenizer-kind", "bpe", "--format", "infini-gram")  # fmt: skip
    assert rc == 0, err
    manifest = json.loads(out.read_text())
    assert manifest["format"] == "infini-gram" and manifest["source_index"] == str(source)
    linked = open_index(out.parent)
    assert isinstance(linked, InfiniGramIndex) and linked.path == out.parent
    assert linked.manifest["tokenizer_kind"] == "bpe"
    ids = tok.encode("to be or not")
    rc, text, err = run(capsys, "query", out.parent, "--text", "to be or not", "--format", "json")
    assert rc == 0, err
    L, C = open_index(source).longest_matches([ids])[0]
    assert [(r["L"], r["C"]) for r in json.loads(text)] == list(
        zip(L.tolist(), C.tolist(), strict=True)
    )
    batch = tmp_path / "texts.jsonl"
    batch.write_text(json.dumps({"id": "a", "text": "to be or not to be"}) + "\n")
    rc, text, err = run(capsys, "trace", out.parent, "--batch", batch, "--format", "json",
                        "--min-len", "1")  # fmt: skip
    assert rc == 0, err
    (row,) = json.loads(text)  # the explorer's rows: spans with their sources
    assert row["copied"]
    ids = tok.encode("to be or not to be")
    L = open_index(source).longest_matches([ids]).length
    assert row["L"] == L.tolist()
    for span in row["copied"]:
        g = ids[span["start"] : span["end"]]
        assert span["count"] == open_index(source).count(g)
        assert span["where"] == [f"{i}@{o}" for i, _, o in open_index(source).locate(g, 3)]
    rc, _, err = run(capsys, "query", source, "--text", "to be")
    assert rc == 2 and "an infini-gram index records no tokenizer" in err
    rc, _, err = run(capsys, "index", "verify", source)
    assert rc == 2 and "records no checksums" in err
    rc, _, err = run(capsys, "index", "link", "--index", built["u8"][0], "--out",
                     tmp_path / "u8" / "index.json", "--tokenizer", tok_dir, "--tokenizer-kind",
                     "bpe", "--format", "infini-gram")  # fmt: skip
    assert rc == 2 and "ids below 255" in err and err.count("\n") == 1
    source.rename(tmp_path / "moved")
    rc, _, err = run(capsys, "count", out.parent, "--ids", "1")
    assert rc == 2 and "linked/index.json: it links the infini-gram index" in err
