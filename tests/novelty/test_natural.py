"""Planted vs natural copying: the natural text of the corpus stage, natural-only L/C and the
source class of every match against brute force on a planted synthetic corpus, supercopy
classes, and the source/distinct columns of the novelty tables."""

from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest

from copyscope.analyze import natural_matches, supercopy_sources
from copyscope.analyze.classes import source_classes, span_classes, text_index_lengths
from copyscope.corpus import CorpusPaths, planted_texts, plants_anything, prepare_corpus
from copyscope.index import Index, build_index
from copyscope.novelty.metrics import distinct_sequences
from copyscope.raven import supercopies
from copyscope.report import novelty as novelty_report
from copyscope.report import supercopies as report_supercopies
from support.corpora import CORPUS, synthetic_corpus

BENCH = {"items": 8, "words": 16, "planted_share": 0.5, "copies": [1, 3], "seed": 2}


def read(path) -> list[tuple[str, str]]:
    return [(json.loads(x)["id"], json.loads(x)["text"]) for x in open(path)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The synthetic corpus with duplicates, ladder and contamination set planted, in whitespace words
    (ids from one vocabulary), with indexes of the training split and of the natural text."""
    tmp = tmp_path_factory.mktemp("natural")
    synthetic_corpus(tmp / "docs.jsonl")
    cfg = copy.deepcopy(dict(CORPUS, path=str(tmp / "docs.jsonl")))
    cfg["inject"]["contamination"] = BENCH
    manifest = prepare_corpus(cfg, CorpusPaths.in_dir(tmp / "corpus"))
    vocab: dict[str, int] = {}

    def encode(text: str) -> np.ndarray:
        return np.array([vocab.setdefault(w, len(vocab)) for w in text.split()], np.int64)

    train = [encode(t) for _, t in read(tmp / "corpus/train.jsonl")]
    natural = [encode(t) for _, t in read(tmp / "corpus/natural.jsonl")]
    planted = {c: [encode(t) for t in texts] for c, texts in planted_texts(manifest).items()}
    indexes = {}
    for name, docs in (("train", train), ("natural", natural)):
        stream = np.concatenate([np.append(d, 65535) for d in docs]).astype(np.uint16)
        build_index(stream, tmp / name)
        indexes[name] = Index(tmp / name)
    return {
        "tmp": tmp,
        "manifest": manifest,
        "encode": encode,
        "train": train,
        "natural": natural,
        "planted": planted,
        "index": indexes,
    }


def test_natural_text_is_the_training_split_before_planting(corpus):
    tmp, m = corpus["tmp"], corpus["manifest"]
    natural = dict(read(tmp / "corpus/natural.jsonl"))
    original = {d["id"]: d["text"] for d in map(json.loads, open(tmp / "docs.jsonl"))}
    assert natural == {k: v for k, v in original.items() if k not in ("doc4", "doc5")}
    assert m["natural"]["path"] == "natural.jsonl"
    assert m["natural"]["documents"] == 4
    texts = planted_texts(m)
    assert list(texts) == ["duplicate", "ladder", "contamination", "excerpt", "benchmark"]
    assert texts["excerpt"] == texts["benchmark"] == []  # no excerpts, no planted benchmarks
    assert len(texts["duplicate"]) == 2
    assert len(texts["ladder"]) == 6  # controls (copies 0) are not planted
    assert len(texts["contamination"]) == 4  # nor the unplanted items
    # every planted text occurs in training, the ladder and contamination-set texts not in natural text
    train = dict(read(tmp / "corpus/train.jsonl"))
    for t in texts["ladder"] + texts["contamination"]:
        assert any(t in d for d in train.values())
        assert not any(" ".join(t.split()) in " ".join(d.split()) for d in natural.values())


def test_plants_anything():
    assert not plants_anything(None)
    assert not plants_anything({"duplicates": [{"k": 0, "m": 3}], "ladder": None})
    assert plants_anything({"duplicates": {"k": 1, "m": 1}})
    assert plants_anything({"ladder": {"copies": [1]}})
    assert not plants_anything({"ladder": {"copies": [0]}})


def _queries(corpus, n=30, seed=0) -> list[np.ndarray]:
    """Generations spliced from pieces of training documents (planted text included) and of
    random words: matches of every class, and ones crossing the seams."""
    rng = np.random.default_rng(seed)
    docs = corpus["train"] + [p for ps in corpus["planted"].values() for p in ps]
    out = []
    for _ in range(n):
        parts = []
        while sum(map(len, parts)) < 40:
            d = docs[int(rng.integers(len(docs)))]
            a = int(rng.integers(len(d)))
            parts.append(d[a : a + int(rng.integers(1, 25))])
            if rng.random() < 0.3:
                parts.append(rng.integers(0, 60, size=int(rng.integers(1, 3))))
            if rng.random() < 0.1:
                parts.append(np.array([65000]))  # in no text
        out.append(np.concatenate(parts)[:40].astype(np.int64))
    return out


def _ngrams(docs, n_max=41) -> set[tuple]:
    return {
        tuple(d[a : a + k].tolist())
        for d in docs
        for a in range(len(d))
        for k in range(1, n_max)
        if a + k <= len(d)
    }


def _brute_longest(q, t, grams) -> int:
    best = 0
    for k in range(1, t + 2):
        if tuple(q[t - k + 1 : t + 1].tolist()) in grams:
            best = k
    return best


def _count(gram, docs) -> int:
    k = len(gram)
    return sum(tuple(d[a : a + k].tolist()) == gram for d in docs for a in range(len(d) - k + 1))


def only_duplicated(gram, corpus) -> bool:
    """Brute force: ``gram`` is in a duplicated passage and all its natural occurrences can be
    those inside the duplicated passages (each counted once)."""
    inside = _count(gram, corpus["planted"]["duplicate"])
    return inside > 0 and _count(gram, corpus["natural"]) <= inside


def test_natural_lengths_counts_and_classes_equal_brute_force(corpus):
    queries = _queries(corpus)
    m = corpus["index"]["train"].longest_matches(queries)
    frame = pd.DataFrame({"L": m.length, "C": m.count})
    cols = natural_matches(
        frame,
        queries,
        corpus["index"]["natural"],
        planted_texts(corpus["manifest"]),
        corpus["encode"],
    )
    train, natural = _ngrams(corpus["train"]), _ngrams(corpus["natural"])
    planted = {c: _ngrams(ps) for c, ps in corpus["planted"].items()}
    seen, i = set(), 0
    for q in queries:
        for t in range(len(q)):
            L = _brute_longest(q, t, train)
            L_nat = _brute_longest(q, t, natural)
            assert (m.length[i], cols["L_nat"][i]) == (L, L_nat)
            if L_nat:
                gram = tuple(q[t - L_nat + 1 : t + 1].tolist())
                assert cols["C_nat"][i] == _count(gram, corpus["natural"])
            gram = tuple(q[t - L + 1 : t + 1].tolist())
            if L == 0:
                want = "none"
            elif gram in natural:
                want = "duplicate" if only_duplicated(gram, corpus) else "natural"
            else:
                want = next((c for c, g in planted.items() if gram in g), "mixed")
            assert cols["source_class"][i] == want, (q, t)
            seen.add(want)
            i += 1
    # the spliced queries reach every class
    assert seen == {"none", "natural", "duplicate", "ladder", "contamination", "mixed"}


def test_source_classes_hand_worked():
    length = np.array([0, 3, 3, 5, 5, 4, 2])
    natural = np.array([0, 3, 4, 2, 1, 0, 2])
    planted = {
        "duplicate": np.array([0, 0, 3, 5, 0, 0, 0]),
        "ladder": np.array([0, 0, 0, 0, 5, 3, 2]),
    }
    got = source_classes(length, natural, planted).tolist()
    assert got == ["none", "natural", "duplicate", "duplicate", "ladder", "mixed", "natural"]
    # an n-gram of a duplicated passage that the natural text also holds elsewhere is natural
    outside = np.array([False, False, True, False, False, False, False])
    got = source_classes(length, natural, planted, outside).tolist()
    assert got == ["none", "natural", "natural", "duplicate", "ladder", "mixed", "natural"]
    # spans: the class of a shorter n-gram ending at the same position
    assert span_classes([2, 3], [5, 5], natural, planted).tolist() == ["ladder", "ladder"]


def test_text_index_lengths_hand_worked():
    texts = [np.array([1, 2, 3]), np.array([], np.int64), np.array([7, 8])]
    got = text_index_lengths(texts, [np.array([1, 2, 3, 7, 8, 9]), np.array([2])])
    assert got.tolist() == [1, 2, 3, 1, 2, 0, 1]
    # query ids beyond the texts' (Moses word ids are large)
    got = text_index_lengths(texts, [np.array([7, 8, 337270690, 1])])
    assert got.tolist() == [1, 2, 0, 1]
    assert text_index_lengths([], [np.array([1, 2])]).tolist() == [0, 0]


def test_nothing_planted_natural_is_all():
    frame = pd.DataFrame({"L": [0, 2, 1], "C": [9, 3, 5]})
    cols = natural_matches(frame, [np.array([4, 5, 6])], None, {}, lambda t: np.zeros(0))
    assert cols["L_nat"].tolist() == [0, 2, 1]
    assert cols["C_nat"].tolist() == [9, 3, 5]
    assert cols["source_class"].tolist() == ["none", "natural", "natural"]


def test_supercopy_classes_and_natural_counts(corpus):
    queries = _queries(corpus, n=20, seed=1)
    # one generation that copies a whole ladder passage and one a natural stretch
    ladder = corpus["planted"]["ladder"][0]
    queries += [ladder.copy(), corpus["natural"][0][5:30].copy()]
    index, nat = corpus["index"]["train"], corpus["index"]["natural"]
    m = index.longest_matches(queries)
    frame = pd.DataFrame({"L_train": m.length})
    cols = natural_matches(
        frame, queries, nat, planted_texts(corpus["manifest"]), corpus["encode"], "L_train", None
    )
    sc = supercopies(index, queries, m.split_lengths(), min_len=12)
    out = supercopy_sources(sc, queries, cols, nat)
    assert list(out.columns) == [*sc.columns, "count_nat", "class"]
    natural = _ngrams(corpus["natural"])
    planted = {c: _ngrams(ps) for c, ps in corpus["planted"].items()}
    for _, r in out.iterrows():
        gram = tuple(queries[r["text"]][r["start"] : r["end"]].tolist())
        assert r["count_nat"] == _count(gram, corpus["natural"])
        if gram in natural:
            want = "duplicate" if only_duplicated(gram, corpus) else "natural"
        else:
            want = next((c for c, g in planted.items() if gram in g), "mixed")
        assert r["class"] == want
    last = out[out["text"] == len(queries) - 2]
    assert last["class"].tolist() == ["ladder"] and last["count_nat"].tolist() == [0]
    assert out[out["text"] == len(queries) - 1]["class"].tolist() == ["natural"]
    empty = supercopy_sources(sc.iloc[:0], queries, cols, nat)
    assert list(empty.columns) == list(out.columns) and empty.empty


def test_distinct_sequences_hand_worked():
    greedy = [np.array([3, 4, 5])] * 100
    assert distinct_sequences(greedy) == 1
    assert distinct_sequences([np.array([1, 2]), np.array([1, 2]), np.array([2, 1])]) == 2
    assert distinct_sequences([]) == 0


NOVELTY = {"n_max": 6, "bootstrap": 50, "seed": 0, "lower_bound": {"p": 0.9, "bits_per_token": 1.8}}
DECODINGS = {"greedy": {"kind": "greedy"}, "pure": {"kind": "sample", "temperature": 1.0}}


def _tokens(rows):
    """A per-token frame from (text, prompt length, ids, L, L_nat) rows."""
    out = []
    for text, plen, ids, L, L_nat in rows:
        for t, (i, a, b) in enumerate(zip(ids, L, L_nat, strict=True)):
            out.append({"text": text, "prompt_length": plen, "t": t, "id": i, "L": a, "L_nat": b})
    return pd.DataFrame(out)


def test_novelty_tables_carry_source_and_distinct_with_all_rows_unchanged():
    greedy = _tokens([(k, 0, [5, 6, 7], [1, 2, 3], [1, 1, 0]) for k in range(5)])
    pure = _tokens(
        [
            (0, 0, [1, 2, 3], [1, 2, 1], [1, 0, 1]),
            (1, 0, [1, 2, 3], [1, 2, 1], [1, 0, 1]),
            (2, 0, [4, 2], [1, 1], [1, 1]),
            (3, 4, [9, 9, 9], [0, 1, 2], [0, 1, 1]),
        ]
    )
    settings = [("m", "greedy", greedy), ("m", "pure", pure)]
    curves, nnsl = novelty_report.build(settings, {"m": 1000}, NOVELTY, DECODINGS, {"m": 600})
    old = [(m, d, f.drop(columns="L_nat")) for m, d, f in settings]
    old_curves, old_nnsl = novelty_report.build(old, {"m": 1000}, NOVELTY, DECODINGS)
    for new, before in ((curves, old_curves), (nnsl, old_nnsl)):
        assert list(new.columns[-3:]) == ["source", "distinct", "tokenizer"]
        assert set(new["tokenizer"]) == {""}  # frames without the column (older analyses)
        every = new[new["source"] == "all"].reset_index(drop=True)
        pd.testing.assert_frame_equal(every, before)
        assert new["source"].tolist() == ["all"] * len(before) + ["natural"] * len(before)
    # a set measured in a released index's tokenizer says so in every row of its own
    named = [("m", "greedy", greedy.assign(tokenizer="llama2")), ("m", "pure", pure)]
    for table in novelty_report.build(named, {"m": 1000}, NOVELTY, DECODINGS, {"m": 600}):
        by = dict(zip(table["decoding"], table["tokenizer"], strict=False))
        assert by == {"greedy": "llama2", "pure": ""}
    assert nnsl[["decoding", "prompt_length", "source", "distinct"]].values.tolist() == [
        ["greedy", 0, "all", 1],
        ["pure", 0, "all", 2],
        ["pure", 4, "all", 1],
        ["greedy", 0, "natural", 1],
        ["pure", 0, "natural", 2],
        ["pure", 4, "natural", 1],
    ]
    natural = nnsl[nnsl["source"] == "natural"]
    # pooled over tokens
    assert natural["mean_nnsl"].tolist() == pytest.approx([2 / 3, 6 / 8, 2 / 3])
    assert natural["corpus_tokens"].tolist() == [600] * 3
    n2 = curves[(curves["source"] == "natural") & (curves["n"] == 2)]
    assert n2["novelty"].tolist() == pytest.approx([1.0, 1.0, 1.0])


def test_supercopy_counts_by_source():
    table = pd.DataFrame(
        {
            "model": ["a", "a", "a", "b"],
            "decoding": ["x", "x", "x", "x"],
            "text": [0, 0, 3, 1],
            "class": ["natural", "ladder", "duplicate", "mixed"],
        }
    )
    c = report_supercopies.counts([("a", "x"), ("b", "x"), ("c", "x")], table)
    assert c.values.tolist() == [
        ["a", "x", "all", 3, 2],
        ["b", "x", "all", 1, 1],
        ["c", "x", "all", 0, 0],
        ["a", "x", "natural", 2, 2],
        ["b", "x", "natural", 0, 0],
        ["c", "x", "natural", 0, 0],
    ]


def test_summary_reports_natural_only_numbers():
    nnsl = pd.DataFrame(
        {
            "model": ["human", "m"] * 2,
            "decoding": ["reference", "pure"] * 2,
            "prompt_length": [8] * 4,
            "mean_nnsl": [2.0, 3.0, 1.5, 2.5],
            "mean_nnsl_lo": [1.0] * 4,
            "mean_nnsl_hi": [4.0] * 4,
            "source": ["all", "all", "natural", "natural"],
        }
    )
    curves = nnsl.loc[nnsl.index.repeat(2)].assign(n=[4, 8] * 4, novelty=[0.5, 1.0] * 4)
    params = {"sampling": {"prompt_length": 8}, "models": {"evaluator": "m"}}
    text = "\n".join(
        novelty_report.summary_section({"nnsl_samples": nnsl, "novelty_samples": curves}, params)
    )
    assert "| m | 3 [1, 4] | 0.5 | 1 | 2.5 [1, 4] | 0.5 | 1 |" in text
    assert "natural-only mean L_t" in text
    assert "mean L_t ranges from 3 (pure) to 3 (pure)" in text  # source all only
    table = pd.DataFrame({"text": [0, 1], "class": ["natural", "ladder"]})
    lines = report_supercopies.summary_section(
        {"supercopies": table}, {"analysis": {"supercopy_min": 6}}
    )
    assert "Natural-only" in lines[-1] and ": 1; by class: ladder 1, natural 1." in lines[-1]
