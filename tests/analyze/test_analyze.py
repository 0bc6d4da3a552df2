"""The analyze package's own functions, each against a hand-worked example or brute force:
the queries, L_t/C_t of the generated tokens, natural-only matches and source classes,
supercopy sources, planted-passage copies, the index/tokenizer pairing check, the class
helpers of :mod:`copyscope.analyze.classes`, :func:`copyscope.analyze.analyze_setting` on a
hand-made sample file (its files, columns and values), and the evaluator's NLL and the
completion loss against a direct forward pass of a tiny random GPT-2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from copyscope.analyze import (
    MIN_ATTRIBUTED,
    check_pairing,
    natural_matches,
    planted_copies,
    supercopy_sources,
    token_matches,
    token_queries,
    word_queries,
)
from copyscope.analyze.classes import (
    natural_outside_duplicates,
    planted_lengths,
    source_classes,
    span_classes,
    text_index_counts,
    text_index_lengths,
)
from copyscope.errors import InputError
from copyscope.index import Index, build_index
from copyscope.raven import supercopies
from support.index import brute_count, brute_matches, stream_of
from support.tokenizers import tokenizer_file


def ints(text: str) -> list[int]:
    """Encode a text of integers written out ("2 3 4") as those ids: the unit of the
    hand-worked examples."""
    return [int(x) for x in text.split()]


def make_index(path, docs, dtype=np.uint16) -> Index:
    build_index(stream_of(docs, dtype), path)
    return Index(path)


def frame_of(gens, window=None, prompt_length=None) -> pd.DataFrame:
    """A samples frame (the columns the analyses read) of generations in model ids."""
    n = len(gens)
    return pd.DataFrame(
        {
            "window": window if window is not None else list(range(10, 10 + n)),
            "prompt_length": prompt_length if prompt_length is not None else [0] * n,
            "ids": [list(map(int, g)) for g in gens],
        }
    )


# ------------------------------------------------------------------------------------ queries
class SpaceWords:
    """A word tokenizer for the tests: whitespace words, ids in order of first sight."""

    def __init__(self):
        self.vocab: dict[str, int] = {}

    def encode(self, text: str) -> np.ndarray:
        return np.array([self.vocab.setdefault(w, len(self.vocab)) for w in text.split()], np.int64)


def test_token_and_word_queries_are_the_generations_in_each_unit():
    samples = frame_of([[5, 7, 5], [], [70000]]).assign(text=["a b a", "", "c"])
    got = token_queries(samples)
    assert [q.tolist() for q in got] == [[5, 7, 5], [], [70000]]
    assert all(q.dtype == np.int64 for q in got)  # an empty generation is an empty int64 array
    words = word_queries(samples, SpaceWords())
    assert [w.tolist() for w in words] == [[0, 1, 0], [], [2]]


# ----------------------------------------------------------------------------- token matches
def test_token_matches_equal_brute_force(tmp_path):
    rng = np.random.default_rng(7)
    docs = [rng.integers(0, 6, size=int(rng.integers(5, 40))) for _ in range(6)]
    index = make_index(tmp_path / "idx", docs)
    gens = []
    for _ in range(12):  # pieces of the documents and random ids (some in no document)
        d = docs[int(rng.integers(len(docs)))]
        a = int(rng.integers(len(d)))
        gens.append(np.concatenate([d[a : a + 9], rng.integers(0, 8, size=int(rng.integers(4)))]))
    gens.insert(3, np.zeros(0, np.int64))  # an empty generation has no row
    samples = frame_of(gens, prompt_length=[4, 0] * 6 + [4])
    got = token_matches(samples, index)
    assert list(got.columns) == ["text", "window", "prompt_length", "t", "id", "L", "C"]
    assert len(got) == sum(len(g) for g in gens)
    for k, g in enumerate(gens):
        rows = got[got["text"] == k]
        L, C = brute_matches(docs, g)
        assert rows["L"].tolist() == L.tolist()
        assert rows["C"].tolist() == C.tolist()
        assert rows["id"].tolist() == g.tolist()
        assert rows["t"].tolist() == list(range(len(g)))
        assert set(rows["window"]) <= {10 + k} and set(rows["prompt_length"]) <= {[4, 0][k % 2]}


# ---------------------------------------------------- natural matches and supercopy sources
# The natural text: two documents. Planting duplicated the passage "2 3 4" of N1 (two more
# copies, as their own documents) and inserted the ladder passage "20 21 22 23" into N2.
NATURAL = [[1, 2, 3, 4, 5, 6], [7, 8, 9, 1, 2]]
TRAIN = [NATURAL[0], [7, 8, 20, 21, 22, 23, 9, 1, 2], [2, 3, 4], [2, 3, 4]]
PLANTED = {"duplicate": ["2 3 4"], "ladder": ["20 21 22 23"]}
GENS = [np.array([3, 4, 20, 21, 22, 9, 1, 2, 50, 2]), np.array([8, 20, 21, 60])]
TRAIN_TOKENS = sum(len(d) + 1 for d in TRAIN)  # 25: C of an unmatched token
NATURAL_TOKENS = sum(len(d) + 1 for d in NATURAL)  # 13


@pytest.fixture(scope="module")
def planted_corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("planted")
    return make_index(tmp / "train", TRAIN), make_index(tmp / "natural", NATURAL)


def test_token_matches_hand_worked(planted_corpus):
    train, _ = planted_corpus
    got = token_matches(frame_of(GENS), train)
    assert got["L"].tolist() == [1, 2, 1, 2, 3, 1, 2, 3, 0, 1] + [1, 2, 3, 0]
    # "3" and "3 4": in N1 and both copies; "2": N1, N2 and both copies
    assert got["C"].tolist() == [3, 3, 1, 1, 1, 1, 1, 1, TRAIN_TOKENS, 4] + [1, 1, 1, TRAIN_TOKENS]
    assert got["text"].tolist() == [0] * 10 + [1] * 4
    assert got["window"].tolist() == [10] * 10 + [11] * 4


def test_natural_matches_hand_worked(planted_corpus):
    train, natural = planted_corpus
    frame = token_matches(frame_of(GENS), train)
    cols = natural_matches(frame, GENS, natural, PLANTED, ints)
    assert cols["L_nat"].tolist() == [1, 2, 0, 0, 0, 1, 2, 3, 0, 1] + [1, 0, 0, 0]
    assert cols["C_nat"].tolist() == [1, 1, *[NATURAL_TOKENS] * 3, 1, 1, 1, NATURAL_TOKENS, 2] + [
        1,
        *[NATURAL_TOKENS] * 3,
    ]
    assert cols["planted"]["duplicate"].tolist() == [1, 2, 0, 0, 0, 0, 0, 1, 0, 1] + [0] * 4
    assert cols["planted"]["ladder"].tolist() == [0, 0, 1, 2, 3, 0, 0, 0, 0, 0] + [0, 1, 2, 0]
    assert cols["source_class"].tolist() == [
        # "3", "3 4": in the natural text only inside the duplicated passage
        "duplicate",
        "duplicate",
        # "20", "20 21", "20 21 22": the ladder passage only
        "ladder",
        "ladder",
        "ladder",
        # "9", "9 1", "9 1 2": natural (the last holds "2", but the whole n-gram is natural)
        "natural",
        "natural",
        "natural",
        "none",
        # "2": in the duplicated passage, and in N2 too, outside it
        "natural",
        # "8"; "8 20", "8 20 21": across the seam between N2 and the ladder passage
        "natural",
        "mixed",
        "mixed",
        "none",
    ]
    assert cols["duplicated"] == ["2 3 4"] and cols["encode"] is ints
    # RAVEN's units (no count column): the same lengths and classes, no C_nat
    words = natural_matches(frame.rename(columns={"L": "L_train"}), GENS, natural, PLANTED, ints,
                            "L_train", None)  # fmt: skip
    assert "C_nat" not in words
    assert words["source_class"].tolist() == cols["source_class"].tolist()
    # without duplicated passages, "3" and "3 4" are natural
    only_ladder = natural_matches(frame, GENS, natural, {"ladder": PLANTED["ladder"]}, ints)
    assert only_ladder["source_class"][:2].tolist() == ["natural", "natural"]
    assert only_ladder["duplicated"] == []


def test_natural_matches_without_a_natural_index_take_the_training_matches(planted_corpus):
    train, _ = planted_corpus
    frame = token_matches(frame_of(GENS), train)
    cols = natural_matches(frame, GENS, None, {"ladder": PLANTED["ladder"]}, ints)
    assert cols["L_nat"].tolist() == frame["L"].tolist()
    assert cols["C_nat"].tolist() == frame["C"].tolist()
    # natural = all: every copied n-gram is natural
    assert set(cols["source_class"][frame["L"].to_numpy() > 0]) == {"natural"}


def test_supercopy_sources_hand_worked(planted_corpus):
    train, natural = planted_corpus
    m = train.longest_matches(GENS)
    sc = supercopies(train, GENS, m.split_lengths(), min_len=2)
    assert sc[["text", "start", "end", "count"]].values.tolist() == [
        [0, 0, 2, 3],  # "3 4"
        [0, 2, 5, 1],  # "20 21 22"
        [0, 5, 8, 1],  # "9 1 2"
        [1, 0, 3, 1],  # "8 20 21"
    ]
    frame = pd.DataFrame({"L": m.length, "C": m.count})
    cols = natural_matches(frame, GENS, natural, PLANTED, ints)
    got = supercopy_sources(sc, GENS, cols, natural)
    assert list(got.columns) == [*sc.columns, "count_nat", "class"]
    assert got["count_nat"].tolist() == [1, 0, 1, 0]
    assert got["class"].tolist() == ["duplicate", "ladder", "natural", "mixed"]
    pd.testing.assert_frame_equal(got[sc.columns], sc)  # the input is kept, not changed
    assert "class" not in sc
    # nothing planted: count_nat is the training count, and every passage natural
    cols = natural_matches(frame, GENS, None, {}, ints)
    got = supercopy_sources(sc, GENS, cols, None)
    assert got["count_nat"].tolist() == got["count"].tolist()
    assert set(got["class"]) == {"natural"}


# ---------------------------------------------------------------------------- planted copies
PASSAGES = [
    {"id": "p0", "group": 1, "copies": 2, "occurrences": 3, "text": "10 11 12 13 14 15 16 17"},
    {"id": "p1", "copies": 1, "occurrences": 2, "text": "30 31 32 33 34"},
    {"id": "p2", "group": 2, "copies": 4, "occurrences": 5, "text": "40 41 42 43 44 45"},
]


def test_planted_copies_hand_worked():
    gens = [
        [1, 11, 12, 13, 14, 15, 2],  # 5 tokens of p0
        [30, 31, 32, 5, 12, 13, 14, 15, 16, 17],  # 3 of p1 (too short to count), 6 of p0
        [],
        [41, 42, 43, 44, 9],  # exactly MIN_ATTRIBUTED tokens of p2
    ]
    assert MIN_ATTRIBUTED == 4
    got = planted_copies(frame_of(gens), PASSAGES, ints, min_copy=5)
    assert list(got.columns) == ["id", "group", "copies", "occurrences", "passage_tokens",
                                 "longest_copy", "texts_with_copy", "reproduced"]  # fmt: skip
    assert got["id"].tolist() == ["p0", "p1", "p2"]
    assert got["group"].tolist() == [1, 0, 2]  # no group: 0
    assert got["copies"].tolist() == [2, 1, 4] and got["occurrences"].tolist() == [3, 2, 5]
    assert got["passage_tokens"].tolist() == [8, 5, 6]
    assert got["longest_copy"].tolist() == [6, 0, 4]
    assert got["texts_with_copy"].tolist() == [2, 0, 0]  # copies of ≥ min_copy tokens
    assert got["reproduced"].tolist() == [True, False, False]
    strict = planted_copies(frame_of(gens), PASSAGES, ints, min_copy=6)
    assert strict["texts_with_copy"].tolist() == [1, 0, 0]
    assert strict["reproduced"].tolist() == [True, False, False]
    loose = planted_copies(frame_of(gens), PASSAGES, ints, min_copy=4)
    assert loose["texts_with_copy"].tolist() == [2, 0, 1]
    assert loose["reproduced"].tolist() == [True, False, True]
    none = planted_copies(frame_of(gens), [], ints, min_copy=4)
    assert none.empty and list(none.columns) == list(got.columns)


# ------------------------------------------------------------------------------ the pairing
TEXTS = ["to be or not to be, that is the question", "out, damned spot! out, I say!"] * 30


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory):
    """(directory, HF tokenizer) of two BPEs fitted on TEXTS with different vocabularies."""
    from copyscope.tokenize import from_spec

    tmp = tmp_path_factory.mktemp("toks")
    small = from_spec({"kind": "bpe", "vocab_size": 270}, "a").fit(TEXTS, tmp / "small")
    large = from_spec({"kind": "bpe", "vocab_size": 320}, "b").fit(TEXTS, tmp / "large")
    return {"small": (tmp / "small", small.hf), "large": (tmp / "large", large.hf)}


def test_check_pairing_names_both_tokenizers_on_a_mismatch(tokenizers, tmp_path):
    from copyscope.index.build import tokenizer_entry

    small_dir, small = tokenizers["small"]
    large_dir, large = tokenizers["large"]
    docs = [small.encode(t, add_special_tokens=False) for t in TEXTS[:2]]
    path = tmp_path / "idx"
    build_index(stream_of(docs), path, extra=tokenizer_entry(small_dir, "a", "bpe",
                                                             path / "index.json"))  # fmt: skip
    index = Index(path)
    assert check_pairing(index, small, small_dir) is None
    with pytest.raises(InputError) as err:
        check_pairing(index, large, large_dir)
    msg = str(err.value)
    assert msg.startswith(f"{path}: this index was built with the tokenizer 'a'")
    assert str(large_dir) in msg and "\n" not in msg
    # an index that names no tokenizer is not checked
    assert check_pairing(make_index(tmp_path / "bare", docs), large, large_dir) is None


# ---------------------------------------------------------------------------------- classes
def test_source_classes_hand_worked_order_and_outside():
    length = np.array([0, 2, 2, 2, 3, 3, 1])
    natural = np.array([5, 2, 2, 1, 1, 0, 1])
    planted = {
        "duplicate": np.array([0, 2, 0, 2, 1, 0, 1]),
        "ladder": np.array([0, 0, 0, 2, 3, 3, 0]),
        "contamination": np.array([0, 0, 0, 2, 3, 0, 0]),
    }
    got = source_classes(length, natural, planted).tolist()
    # position 0: nothing copied, whatever the natural match; 3: the first planted class that
    # holds the n-gram is "duplicate" (not natural: only one of its two tokens is natural)
    assert got == ["none", "duplicate", "natural", "duplicate", "ladder", "ladder", "duplicate"]
    outside = np.array([True, True, False, True, False, False, True])
    got = source_classes(length, natural, planted, outside).tolist()
    # outside only turns a natural duplicate natural; a planted-only match stays planted
    assert got == ["none", "natural", "natural", "duplicate", "ladder", "ladder", "natural"]
    # the order of the classes decides between planted classes
    swapped = {"contamination": planted["contamination"][4:6], "ladder": planted["ladder"][4:6]}
    assert source_classes(length[4:6], natural[4:6], swapped).tolist() == ["contamination", "ladder"]
    assert source_classes(length, natural, {}).tolist() == [
        "none", "natural", "natural", "mixed", "mixed", "mixed", "natural"
    ]  # fmt: skip


def test_span_classes_hand_worked():
    natural = np.array([1, 2, 3, 0, 1, 3])
    planted = {"duplicate": np.array([1, 2, 3, 0, 0, 0]), "ladder": np.array([0, 0, 0, 1, 2, 3])}
    # spans: 3 tokens ending at 2, 2 ending at 1, 3 ending at 5, 2 ending at 4, 3 ending at 4
    lengths, positions = [3, 2, 3, 2, 3], [2, 1, 5, 4, 4]
    got = span_classes(lengths, positions, natural, planted).tolist()
    assert got == ["duplicate", "duplicate", "natural", "ladder", "mixed"]
    outside = [True, False, False, False, False]
    got = span_classes(lengths, positions, natural, planted, outside).tolist()
    assert got == ["natural", "duplicate", "natural", "ladder", "mixed"]
    assert span_classes([], [], natural, planted).tolist() == []


def test_text_index_lengths_and_counts_hand_worked():
    texts = [np.array([1, 2, 1, 2]), np.array([2, 1]), np.array([], np.int64)]
    got = text_index_lengths(texts, [np.array([2, 1, 2, 2, 1, 9]), np.array([], np.int64)])
    # "2 2" would cross from the first text into the second: never a match
    assert got.tolist() == [1, 2, 3, 1, 2, 0]
    counts = text_index_counts(texts, [[1, 2], [2, 1], [2, 2], [1, 2, 1, 2], [9], [2, 1, 2, 1]])
    assert counts.tolist() == [2, 2, 0, 1, 0, 0]
    assert text_index_lengths([], [np.array([1, 2])]).tolist() == [0, 0]
    assert text_index_lengths(texts, []).tolist() == []
    assert text_index_counts([np.array([], np.int64)], [[1]]).tolist() == [0]
    assert text_index_counts(texts, []).tolist() == []
    # ids beyond 16 bits in a query only (Moses words hash unknown words to large ids)
    assert text_index_lengths(texts, [np.array([70000, 2, 1])]).tolist() == [0, 1, 2]
    assert text_index_counts(texts, [[2, 70000], [1, 2]]).tolist() == [0, 2]


def test_text_index_lengths_and_counts_equal_brute_force():
    rng = np.random.default_rng(11)
    for _ in range(5):
        texts = [rng.integers(0, 4, size=int(rng.integers(0, 12))) for _ in range(4)]
        queries = [rng.integers(0, 5, size=int(rng.integers(0, 15))) for _ in range(4)]
        want = [brute_matches(texts, q)[0] for q in queries]
        assert text_index_lengths(texts, queries).tolist() == np.concatenate(want).tolist()
        ngrams = [q[a : a + k] for q in queries for a in range(len(q)) for k in (1, 2, 3)
                  if a + k <= len(q)]  # fmt: skip
        got = text_index_counts(texts, ngrams)
        assert got.tolist() == [brute_count(texts, g) for g in ngrams]


def test_planted_lengths_hand_worked():
    planted = {"duplicate": ["1 2 3", "7 8"], "ladder": [], "contamination": ["3 4"]}
    got = planted_lengths(planted, ints, [np.array([1, 2, 3, 4]), np.array([8, 7, 8])])
    assert list(got) == ["duplicate", "ladder", "contamination"]  # the order of ``planted``
    assert got["duplicate"].tolist() == [1, 2, 3, 0, 1, 1, 2]
    assert got["ladder"].tolist() == [0] * 7  # no text: no match
    assert got["contamination"].tolist() == [0, 0, 1, 2, 0, 0, 0]


def test_natural_outside_duplicates_hand_worked():
    ngrams = [[2], [3, 4], [5], [2, 3], [9]]
    natural_count = [2, 1, 1, 2, 0]
    duplicated = [np.array([2, 3, 4]), np.array([6, 2, 3])]
    # inside the passages: [2] 2, [3 4] 1, [5] 0, [2 3] 2, [9] 0
    got = natural_outside_duplicates(ngrams, natural_count, duplicated)
    assert got.tolist() == [False, False, True, False, False]
    assert natural_outside_duplicates(ngrams, natural_count, []).tolist() == [
        True, True, True, True, False
    ]  # fmt: skip


# ------------------------------------------------------------------------- analyze_setting
A, B = TEXTS[0], TEXTS[1]


def brute_class(gram, natural, planted) -> str:
    """The source class of a copied n-gram by counting it in the natural documents and in
    each planted class's texts (one document each)."""
    count = brute_count(natural, gram)
    if count:
        inside = brute_count(planted.get("duplicate", []), gram)
        return "duplicate" if inside and count <= inside else "natural"
    return next((c for c, docs in planted.items() if brute_count(docs, gram)), "mixed")


def test_analyze_setting_writes_every_file(tokenizers, tmp_path):
    """A hand-made setting: the training text is A and B with the passage A planted once more
    (the natural text: A and B); one generation copies the start of A, one the start of B (after
    a prompt holding it), one is empty."""
    from copyscope.analyze import analyze_setting
    from copyscope.io import write_json, write_jsonl
    from copyscope.tokenize import from_spec

    tok_dir, tok = tokenizers["small"]

    def enc(text):
        return tok.encode(text, add_special_tokens=False)

    words = from_spec({"kind": "moses"}, "w").fit(TEXTS, tmp_path / "words")
    make_index(tmp_path / "index", [enc(A), enc(B), enc(A)])
    make_index(tmp_path / "natural", [enc(A), enc(B)])
    make_index(tmp_path / "word_index", [words.encode(t) for t in (A, B, A)], np.uint32)
    make_index(tmp_path / "natural_words", [words.encode(t) for t in (A, B)], np.uint32)
    passage = {"id": "p0", "copies": 1, "occurrences": 2, "text": A}
    write_json(tmp_path / "manifest.json", {"injected": [passage]})
    gen_a, gen_b = "to be or not to be", "out, damned spot!"
    assert enc(gen_a) == enc(A)[: len(enc(gen_a))] and enc(gen_b) == enc(B)[: len(enc(gen_b))]
    rows = [
        {"window": 3, "prompt_length": 0, "prompt": [], "text": gen_a, "ids": enc(gen_a)},
        {"window": 4, "prompt_length": 4, "prompt": enc(gen_b), "text": gen_b, "ids": enc(gen_b)},
        {"window": 5, "prompt_length": 4, "prompt": enc("out"), "text": "", "ids": []},
    ]
    write_jsonl(tmp_path / "samples.jsonl", rows)
    inputs = {
        "samples": tmp_path / "samples.jsonl",
        "tokenizer": tok_dir,
        "index": tmp_path / "index",
        "word_tokenizer": tmp_path / "words",
        "word_index": tmp_path / "word_index",
        "manifest": tmp_path / "manifest.json",
        "natural_index": tmp_path / "natural",
        "natural_word_index": tmp_path / "natural_words",
    }
    ext = {"tokens": "parquet", "words": "parquet", "supercopies": "csv", "planted": "csv"}
    out = {k: tmp_path / "out" / f"{k}.{e}" for k, e in ext.items()}
    n_a = len(enc(gen_a))
    analyze_setting(inputs, out, evaluator_same_tokenizer=True, supercopy_min=3,
                    planted_min_copy=n_a)  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        p.name for p in out.values()
    )

    tokens = pd.read_parquet(out["tokens"])
    assert list(tokens.columns) == ["text", "window", "prompt_length", "t", "id", "L", "C",
                                    "tokenizer", "L_nat", "C_nat", "source_class"]  # fmt: skip
    assert set(tokens["tokenizer"]) == {"small"}  # the name of the tokenizer's directory
    train = [enc(A), enc(B), enc(A)]
    for k, r in enumerate(rows[:2]):
        got = tokens[tokens["text"] == k]
        L, C = brute_matches(train, r["ids"])
        L_nat, C_nat = brute_matches(train[:2], r["ids"])
        assert got["L"].tolist() == L.tolist() == list(range(1, len(r["ids"]) + 1))
        assert got["C"].tolist() == C.tolist()
        assert got["L_nat"].tolist() == L_nat.tolist()
        assert got["C_nat"].tolist() == C_nat.tolist()
        assert set(got["window"]) == {r["window"]} and set(got["prompt_length"]) == {
            r["prompt_length"]
        }
    assert len(tokens) == n_a + len(enc(gen_b))  # the empty generation has no row
    want = [brute_class(r["ids"][t - L + 1 : t + 1], train[:2], {"duplicate": [enc(A)]})
            for r in rows for t, L in enumerate(range(1, len(r["ids"]) + 1))]  # fmt: skip
    assert tokens["source_class"].tolist() == want
    # the whole start of A is in the natural text only inside the planted passage; B's start
    # (nothing of it planted) is natural
    assert want[n_a - 1] == "duplicate" and set(want[n_a:]) == {"natural"}

    wframe = pd.read_parquet(out["words"])
    assert list(wframe.columns) == ["text", "window", "prompt_length", "t", "word", "L_train",
                                    "s_train", "s_context", "s_union", "L_nat",
                                    "source_class"]  # fmt: skip
    w0, w1 = wframe[wframe["text"] == 0], wframe[wframe["text"] == 1]
    assert w0["word"].tolist() == words.encode(gen_a).tolist()  # to be or not to be
    assert w0["L_train"].tolist() == [1, 2, 3, 4, 5, 6] == w0["L_nat"].tolist()
    assert w0["s_train"].tolist() == [2, 3, 4, 5, 6, 7]
    # no prompt: "to be" is found in the context at its second occurrence
    assert w0["s_context"].tolist() == [1, 1, 1, 1, 2, 3]
    assert w0["s_union"].tolist() == [2, 3, 4, 5, 6, 7]
    assert w0["source_class"].tolist() == ["duplicate"] * 6
    # out , damned spot ! after the prompt "out, damned spot!": the context holds all of it,
    # clipped to the generated prefix (j + 2)
    assert w1["L_train"].tolist() == [1, 2, 3, 4, 5]
    assert w1["s_context"].tolist() == [2, 3, 4, 5, 6] == w1["s_union"].tolist()
    assert w1["source_class"].tolist() == ["natural"] * 5

    sc = pd.read_csv(out["supercopies"])
    assert list(sc.columns) == ["text", "start", "end", "length", "count", "sources",
                                "count_nat", "class"]  # fmt: skip
    cols = ["text", "start", "end", "length", "count", "count_nat", "class"]
    assert sc[cols].values.tolist() == [
        [0, 0, 6, 6, 2, 1, "duplicate"],
        [1, 0, 5, 5, 1, 1, "natural"],
    ]
    # in A (documents 0 and 2) and B (document 1), each at its start
    assert sc["sources"].tolist() == ["0@0;2@0", "1@0"]

    planted = pd.read_csv(out["planted"])
    cols = ["id", "copies", "occurrences", "longest_copy", "texts_with_copy"]
    assert planted[cols].values.tolist() == [["p0", 1, 2, n_a, 1]]
    assert planted["passage_tokens"].tolist() == [len(enc(A))] and planted["reproduced"].all()


def test_token_queries_encode_the_texts_again_in_the_index_tokenizer(tokenizers, tmp_path):
    from copyscope.tokenize import load_hf_tokenizer

    index_tok = load_hf_tokenizer(tokenizer_file(tmp_path / "idx" / "tokenizer.json", TEXTS, 300))
    _, model_tok = tokenizers["large"]
    texts = ["to be or not to be", "", "out, damned spot!"]
    samples = frame_of([model_tok.encode(t, add_special_tokens=False) for t in texts])
    samples["text"] = texts
    got = token_queries(samples, index_tok)
    want = [index_tok.encode(t, add_special_tokens=False) for t in texts]
    assert [q.tolist() for q in got] == want and want[1] == []
    assert all(q.dtype == np.int64 for q in got)
    # the two tokenizers give other ids: the sampled ids are not what is queried
    assert [q.tolist() for q in token_queries(samples)] != want


def test_analyze_setting_in_the_index_tokenizer_from_a_tokenizer_file(tokenizers, tmp_path):
    """The model's tokenizer is one BPE, the index is in another one's tokens, kept as a
    tokenizer.json file (``hf:<file>.json``): the generations are encoded again in the
    index's ids, their L_t/C_t are brute force's in those ids, the planted passage is found in
    them, and tokens.parquet names the index's tokenizer."""
    from copyscope.analyze import analyze_setting
    from copyscope.index.build import tokenizer_entry
    from copyscope.io import write_json, write_jsonl
    from copyscope.tokenize import from_spec, load_hf_tokenizer

    model_dir, model_tok = tokenizers["large"]
    file = tokenizer_file(tmp_path / "released" / "tokenizer.json", TEXTS, 290)
    index_dir = tmp_path / "tokenizers" / "llama"
    from_spec({"kind": f"hf:{file}"}, "llama").fit([], index_dir)  # as tokenizer_fit does
    index_tok = load_hf_tokenizer(index_dir)

    def enc(text):
        return index_tok.encode(text, add_special_tokens=False)

    assert enc(A) != model_tok.encode(A, add_special_tokens=False)
    words = from_spec({"kind": "moses"}, "w").fit(TEXTS, tmp_path / "words")
    train = [enc(A), enc(B), enc(A)]
    path = tmp_path / "index"
    build_index(stream_of(train), path,
                extra=tokenizer_entry(index_dir, "llama", f"hf:{file}", path / "index.json"))  # fmt: skip
    make_index(tmp_path / "natural", train[:2])
    make_index(tmp_path / "word_index", [words.encode(t) for t in (A, B, A)], np.uint32)
    passage = {"id": "p0", "copies": 1, "occurrences": 2, "text": A}
    write_json(tmp_path / "manifest.json", {"injected": [passage]})
    gens = ["to be or not to be", "out, damned spot! out"]
    rows = [
        {"window": w, "prompt_length": 0, "prompt": [], "text": g,
         "ids": model_tok.encode(g, add_special_tokens=False)}
        for w, g in enumerate(gens)
    ]  # fmt: skip
    write_jsonl(tmp_path / "samples.jsonl", rows)
    inputs = {
        "samples": tmp_path / "samples.jsonl",
        "tokenizer": model_dir,
        "index_tokenizer": index_dir,
        "index": path,
        "natural_index": tmp_path / "natural",
        "word_tokenizer": tmp_path / "words",
        "word_index": tmp_path / "word_index",
        "manifest": tmp_path / "manifest.json",
    }
    ext = {"tokens": "parquet", "words": "parquet", "supercopies": "csv", "planted": "csv"}
    out = {k: tmp_path / "out" / f"{k}.{e}" for k, e in ext.items()}
    analyze_setting(inputs, out, evaluator_same_tokenizer=True, supercopy_min=3,
                    planted_min_copy=4, ngram_tokenizer="llama")  # fmt: skip
    tokens = pd.read_parquet(out["tokens"])
    assert set(tokens["tokenizer"]) == {"llama"}
    for k, g in enumerate(gens):
        got = tokens[tokens["text"] == k]
        assert got["id"].tolist() == enc(g)
        L, C = brute_matches(train, enc(g))
        L_nat, _ = brute_matches(train[:2], enc(g))
        assert got["L"].tolist() == L.tolist() and got["C"].tolist() == C.tolist()
        assert got["L_nat"].tolist() == L_nat.tolist()
    want = [brute_class(enc(g)[t - L + 1 : t + 1], train[:2], {"duplicate": [enc(A)]})
            for k, g in enumerate(gens)
            for t, L in enumerate(tokens[tokens["text"] == k]["L"])]  # fmt: skip
    assert tokens["source_class"].tolist() == want and "duplicate" in want
    # the index's tokenizer is checked against the one the index records: the model's is not it
    with pytest.raises(InputError, match="differs from the model's tokenizer"):
        analyze_setting({**inputs, "index_tokenizer": model_dir}, out,
                        evaluator_same_tokenizer=True, supercopy_min=3, planted_min_copy=4)  # fmt: skip


# ---------------------------------------------------------------- evaluator and completion loss
@pytest.fixture(scope="module")
def tiny_lm(tokenizers):
    """A random one-layer GPT-2 over the small BPE's vocabulary with a context of 16."""
    import torch

    from copyscope.lm import build_model

    _, tok = tokenizers["small"]
    torch.manual_seed(0)
    spec = {"kind": "gpt2", "n_layer": 1, "n_embd": 16, "n_head": 2, "n_ctx": 16, "dropout": 0.0}
    return build_model(spec, len(tok), tok.eos_token_id).eval()


def direct_logprobs(model, eos, context, gen) -> np.ndarray:
    """Reference: log p of each token of ``gen`` after ``<eos> + context``, from one forward
    pass of the whole row."""
    import torch

    ids = torch.tensor([[eos, *context, *gen]])
    with torch.no_grad():
        lp = torch.log_softmax(model(ids).logits[0].double(), dim=-1)
    start = 1 + len(context)
    return np.array([lp[j - 1, ids[0, j]].item() for j in range(start, ids.shape[1])])


def test_quality_is_the_evaluators_nll_of_each_generation(tokenizers, tiny_lm):
    from copyscope.analyze import quality

    _, tok = tokenizers["small"]
    eos = tok.eos_token_id

    def enc(text):
        return tok.encode(text, add_special_tokens=False)

    long_text = "that is the question, out damned spot"  # more than 15 tokens
    rows = pd.DataFrame(
        {
            "window": [0, 1, 2],
            "prompt_length": [2, 2, 0],
            "prompt": [enc("to")[:2], enc("I say")[:2], []],
            "ids": [enc(" be or"), enc("!"), []],
            "text": [" be or", "!", long_text],
        }
    )
    got = quality(rows, tiny_lm, tok, True, 2, "cpu", "ev")
    assert list(got.columns) == ["text", "window", "prompt_length", "tokens", "nll_sum",
                                 "evaluator"]  # fmt: skip
    pairs = zip(rows["prompt"], rows["ids"], strict=True)
    want = [-direct_logprobs(tiny_lm, eos, p, g).sum() for p, g in pairs]
    assert got["nll_sum"].tolist() == pytest.approx(want, abs=1e-4)
    assert got["tokens"].tolist() == [len(g) for g in rows["ids"]]
    assert got["nll_sum"].iloc[2] == 0 and (got["evaluator"] == "ev").all()
    # another tokenizer: the text re-encoded, scored without its prompt, cut to the context
    other = quality(rows, tiny_lm, tok, False, 2, "cpu", "ev")
    assert len(enc(long_text)) > 15
    texts = [enc(t)[:15] for t in rows["text"]]
    assert other["tokens"].tolist() == [len(t) for t in texts]
    want = [-direct_logprobs(tiny_lm, eos, [], t).sum() for t in texts]
    assert other["nll_sum"].tolist() == pytest.approx(want, abs=1e-4)


def test_completion_losses_join_the_loss_to_the_tokens(tokenizers, tiny_lm, tmp_path):
    from copyscope.analyze import completion_loss_file, completion_losses
    from copyscope.io import write_jsonl

    _, tok = tokenizers["small"]
    eos = tok.eos_token_id

    def enc(text):
        return tok.encode(text, add_special_tokens=False)

    rows = [
        {"window": 0, "prompt_length": 2, "prompt": enc("to")[:2], "ids": enc(" be or not")},
        {"window": 0, "prompt_length": 0, "prompt": [], "ids": enc("to be")},
        {"window": 1, "prompt_length": 2, "prompt": enc("ou")[:2], "ids": enc("t, damned")},
    ]
    samples = pd.DataFrame(rows)
    tokens = token_matches(samples, make_index(tmp_path / "idx", [enc(A), enc(B)]))
    got = completion_losses(tiny_lm, eos, samples, tokens, 2, "cpu")
    assert list(got.columns) == [*tokens.columns, "loss"]
    assert got["text"].unique().tolist() == [0, 2]  # the rows at prompt length 2 only
    pd.testing.assert_frame_equal(got.drop(columns="loss"), tokens[tokens["text"] != 1])
    want = [-direct_logprobs(tiny_lm, eos, r["prompt"], r["ids"]) for r in (rows[0], rows[2])]
    assert got["loss"].tolist() == pytest.approx(np.concatenate(want).tolist(), abs=1e-4)
    # the file: the same frame, from the model's directory and the two files
    tiny_lm.save_pretrained(str(tmp_path / "model"))
    tok.save_pretrained(str(tmp_path / "model"))
    write_jsonl(tmp_path / "s.jsonl", rows)
    tokens.to_parquet(tmp_path / "tokens.parquet", index=False)
    out = tmp_path / "loss.parquet"
    completion_loss_file(tmp_path / "model", tmp_path / "s.jsonl", tmp_path / "tokens.parquet",
                         2, "cpu", out)  # fmt: skip
    written = pd.read_parquet(out)
    assert written["loss"].tolist() == pytest.approx(got["loss"].tolist(), abs=1e-5)
    assert written["L"].tolist() == got["L"].tolist()
