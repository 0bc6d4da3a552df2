"""The explorer's page data (copyscope.explore) on a hand-made corpus: every span, count and
source is the index's own answer (``copyscope trace``) and a brute-force count; the per-token
values are the analysis files' (nothing is measured again); the page embeds the data intact."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from copyscope.analyze import natural_matches, token_matches, word_scores
from copyscope.cli import main
from copyscope.explore import (
    choose_windows,
    common_prompt_length,
    explorer_data,
    ladder_rows,
    page_html,
)
from copyscope.index import Index, build_index
from copyscope.index.query import open_with_tokenizer, query_rows, trace
from copyscope.tokenize import encode_split, from_spec, load
from support.index import brute_count, stream_of

CORPUS = [
    "Is this a dagger which I see before me, the handle toward my hand?",
    "Out, damned spot! out, I say! One: two: why, then, 'tis time to do't.",
    "Tomorrow, and tomorrow, and tomorrow, creeps in this petty pace from day to day.",
    "Out, damned spot! and the handle toward my hand, creeps in this petty pace.",
]
PROMPTS = ["Is this a", "Tomorrow, and", "One: two:"]
GENERATIONS = [
    " the handle toward my hand? Out, damned spot! zzq",
    " tomorrow, creeps in this petty pace qqx",
    " nothing known here",
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A BPE tokenizer and index of CORPUS (one document each), a Moses word tokenizer and
    word index, and one setting's samples and analysis files made by the analysis stage's
    own functions."""
    tmp = tmp_path_factory.mktemp("explore")
    docs = tmp / "train.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(CORPUS))
    )
    tok = from_spec({"kind": "bpe", "vocab_size": 300, "min_frequency": 1}, "bpe")
    tok.fit(CORPUS, tmp / "tok")
    encode_split(tok, docs, tmp / "train.npy", tmp / "train.json", "bpe")
    assert main(["index", "build", str(tmp / "train.npy"), str(tmp / "index"), "--meta",
                 str(tmp / "train.json"), "--tokenizer", str(tmp / "tok"),
                 "--tokenizer-name", "bpe", "--tokenizer-kind", "bpe"]) == 0  # fmt: skip
    index, tok = open_with_tokenizer(tmp / "index")
    words = from_spec({"kind": "moses"}, "words")
    words.fit(CORPUS, tmp / "words")
    words = load("moses", tmp / "words")
    word_index_dir = tmp / "word-index"
    build_index(stream_of([words.encode(t) for t in CORPUS], np.uint32), word_index_dir)
    samples = pd.DataFrame(
        {
            "model": "m",
            "decoding": "pure",
            "window": [0, 1, 2],
            "prompt_length": 3,
            "prompt": [tok.encode(p).tolist() for p in PROMPTS],
            "ids": [tok.encode(g).tolist() for g in GENERATIONS],
            "text": GENERATIONS,
        }
    )
    (tmp / "samples.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in samples.to_dict("records"))
    )
    tokens = token_matches(samples, index)
    cols = natural_matches(tokens, [np.asarray(x) for x in samples["ids"]], None, {}, tok.encode)
    tokens["source_class"] = cols["source_class"]
    tokens.to_parquet(tmp / "tokens.parquet", index=False)
    wframe, _, _ = word_scores(samples, words, Index(word_index_dir), tok.decode)
    wframe.to_parquet(tmp / "words.parquet", index=False)
    pd.DataFrame(
        {
            "text": [0, 0],
            "start": [0, 2],
            "end": [7, 6],
            "length": [7, 4],
            "count": [1, 1],
            "sources": ["d0@1", "d0@3"],
        }  # fmt: skip
    ).to_csv(tmp / "supercopies.csv", index=False)
    return tmp, index, tok, words


def _set(tmp, model="m", decoding="pure"):
    files = ("samples.jsonl", "tokens.parquet", "words.parquet", "supercopies.csv")
    return (model, decoding, *(str(tmp / f) for f in files))


def _data(corpus, **kw):
    tmp = corpus[0]
    params = {"min_span": 3, "sources": 5, "context": 4} | kw
    return explorer_data([_set(tmp)], {"m": str(tmp / "index")}, tmp / "words", **params)


def test_spans_and_sources_are_the_index_answers(corpus):
    tmp, index, tok, _ = corpus
    data = _data(corpus)
    texts = data["settings"][0]["texts"]
    assert [t["w"] for t in texts] == [0, 1, 2]
    docs = [index.document(d) for d in range(len(CORPUS))]
    listed = 0
    for t, gen in zip(texts, GENERATIONS, strict=True):
        ids = tok.encode(gen)
        assert t["g"] == ids.tolist()
        traced = trace(index, tok, ids, 3, 5)["spans"]
        assert [sp[:3] for sp in t["s"]] == [[s["start"], s["end"], s["count"]] for s in traced]
        for sp, ref in zip(t["s"], traced, strict=True):
            start, end, count, cls, sources = sp
            assert count == brute_count(docs, ids[start:end]) > 0
            assert cls == "natural"  # nothing planted: every copied n-gram is natural text
            assert [f"{doc}@{off}" for doc, off, _, _ in sources] == ref["where"]
            for doc, _, before, after in sources:  # the context is the document's own text
                assert before + tok.decode(ids[start:end]) + after in CORPUS[int(doc[1:])]
            listed += 1
    assert listed >= 3 and texts[2]["s"] == []  # the planted copies are found, the novel not


def test_per_token_values_are_the_analysis_files(corpus):
    tmp, index, tok, words = corpus
    data = _data(corpus)
    tokens = pd.read_parquet(tmp / "tokens.parquet")
    wframe = pd.read_parquet(tmp / "words.parquet")
    for k, t in enumerate(data["settings"][0]["texts"]):
        L = tokens.loc[tokens["text"] == k, "L"].tolist()
        assert t["L"] == L == [r["L"] for r in query_rows(index, tok, np.asarray(t["g"]))]
        assert t["p"] == tok.encode(PROMPTS[k]).tolist()
        assert t["mL"] == pytest.approx(np.mean(L), abs=1e-3) and t["xL"] == max(L)
        w = wframe[wframe["text"] == k]
        assert t["W"] == w["word"].tolist()
        assert (t["rt"], t["rc"]) == (w["s_train"].tolist(), w["s_context"].tolist())
    assert [t["sc"] for t in data["settings"][0]["texts"]] == [7, 0, 0]  # longest supercopy
    vocab = data["vocab"]["t0"]
    used = {i for t in data["settings"][0]["texts"] for i in (*t["p"], *t["g"])}
    assert {int(i) for i in vocab} == used
    assert all(vocab[str(i)] == tok.piece(i) for i in used)
    first_word = data["settings"][0]["texts"][0]["W"][0]
    assert data["vocab"]["words"][str(first_word)] == words.piece(first_word)
    assert data["joiner"] == {"t0": "", "words": " "}


def test_a_span_takes_the_source_class_of_its_last_token(corpus, tmp_path):
    tmp = corpus[0]
    tokens = pd.read_parquet(tmp / "tokens.parquet")
    first = _data(corpus)["settings"][0]["texts"][0]["s"][0]
    end = tokens.index[(tokens["text"] == 0) & (tokens["t"] == first[1] - 1)]
    tokens.loc[end, "source_class"] = "ladder"
    tokens.to_parquet(tmp_path / "tokens.parquet", index=False)
    for f in ("samples.jsonl", "words.parquet", "supercopies.csv"):
        (tmp_path / f).write_bytes((tmp / f).read_bytes())
    data = explorer_data([_set(tmp_path)], {"m": str(tmp / "index")}, tmp / "words", min_span=3)
    assert data["settings"][0]["texts"][0]["s"][0][3] == "ladder"


def test_min_span_and_prompt_length_select(corpus):
    def lengths(**kw):
        return [[e - s for s, e, *_ in t["s"]] for t in _data(corpus, **kw)["settings"][0]["texts"]]

    every = lengths()
    assert min(n for t in every for n in t) >= 3 and max(n for t in every for n in t) >= 10
    assert lengths(min_span=10) == [[n for n in t if n >= 10] for t in every]
    assert lengths(min_span=99) == [[], [], []]
    assert _data(corpus, prompt_length=5)["settings"][0]["texts"] == []


def test_the_default_prompt_length_is_the_one_most_sets_have():
    def sets(*lengths):
        return [pd.DataFrame({"prompt_length": list(x)}) for x in lengths]

    assert common_prompt_length(sets([0, 8, 32, 96], [32, 32], [0, 32])) == 32
    assert common_prompt_length(sets([0, 0, 8], [8, 0])) == 0  # tie in sets: the most texts
    assert common_prompt_length(sets([4, 8])) == 8  # then the longer
    assert common_prompt_length(sets([])) == 0


def test_windows_are_shared_and_sampled_with_a_seed():
    assert choose_windows([[0, 1, 2, 3], [1, 2, 3, 4]], 10, 0) == ([1, 2, 3], 3)
    assert choose_windows([[0, 1], [5]], 10, 0) == ([0, 1, 5], 3)  # nothing shared: all
    chosen, available = choose_windows([list(range(50)), list(range(50))], 7, 3)
    assert available == 50 and len(chosen) == 7 and chosen == sorted(chosen)
    assert choose_windows([list(range(50))], 7, 3)[0] == chosen  # seeded
    assert choose_windows([list(range(50))], 7, 4)[0] != chosen
    assert choose_windows([[], []], 5, 0) == ([], 0)


def test_the_page_embeds_the_data_intact():
    data = {"settings": [], "vocab": {"t0": {"1": "</script><script>alert(1)</script>\u2028"}}}
    html = page_html(data)
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", html, re.S)
    assert len(scripts) == 2  # the data and the code: the piece did not close the element
    assert json.loads(scripts[0]) == data
    assert "http://" not in html and "https://" not in html and "<link" not in html  # offline


def test_trace_batch_json_has_the_texts_the_page_opens(corpus, tmp_path, capsys):
    tmp, index, tok, _ = corpus
    batch = tmp_path / "mine.jsonl"
    batch.write_text(
        "".join(json.dumps({"id": f"g{i}", "text": g}) + "\n" for i, g in enumerate(GENERATIONS))
    )
    capsys.readouterr()
    argv = ["trace", str(tmp / "index"), "--batch", str(batch), "--format", "json"]
    assert main([*argv, "--min-len", "3", "--limit", "5"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == ["g0", "g1", "g2"]
    for row, gen in zip(rows, GENERATIONS, strict=True):
        ids = tok.encode(gen)
        ref = trace(index, tok, ids, 3, 5)
        assert row["pieces"] == ref["pieces"] and row["joiner"] == ""
        assert row["copied"] == ref["spans"] and row["spans"] == len(ref["spans"])
        assert row["L"] == [r["L"] for r in query_rows(index, tok, ids)]
    assert main([*argv[:-1], "csv", "--min-len", "3"]) == 0  # csv keeps its summary columns
    assert capsys.readouterr().out.splitlines()[0] == "id,tokens,spans,covered"


def test_ladder_rows_keep_the_extraction_test(corpus):
    tok = corpus[2]
    frame = pd.DataFrame(
        {
            "model": "m",
            "passage": ["ladder-1-0", "control-0", "ladder-8-0"],
            "kind": ["planted", "control", "planted"],
            "copies": [1, 0, 8],
            "n_tokens": 20,
            "exact": [0, 0, 1],
            "match_fraction": [0.5, 0.0, 1.0],
            "lcp": [2, 0, 4],
            "prompt": "Is this",
            "target": [" a dagger", " which I", " see before"],
            "generated": [" a dog", " the", " see before"],
        }  # fmt: skip
    )
    rows = ladder_rows(frame, tok)
    assert [r["id"] for r in rows] == ["ladder-8-0", "ladder-1-0", "control-0"]  # most copies
    assert [(r["lcp"], r["exact"], r["copies"]) for r in rows] == [(4, 1, 8), (2, 0, 1), (0, 0, 0)]
    assert rows[1]["target"] == tok.encode(" a dagger").tolist()
    assert rows[1]["S"] == len(rows[1]["target"])


def test_explore_command_writes_the_page_and_names_a_missing_file(corpus, tmp_path, capsys):
    tmp = corpus[0]
    out = tmp_path / "page" / "index.html"
    argv = ["explore", "--set", *_set(tmp), "--index", "m", str(tmp / "index"),
            "--word-tokenizer", str(tmp / "words"), "--min-span", "3", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(re.search(r'<script id="data"[^>]*>(.*?)</script>', out.read_text(), re.S)[1])
    assert data == json.loads(json.dumps(_data(corpus, sources=3, context=16)))
    assert main([*argv, "--max-span-density", "0.04", "--docs-per-span", "1"]) == 0
    data = json.loads(re.search(r'<script id="data"[^>]*>(.*?)</script>', out.read_text(), re.S)[1])
    want = _data(corpus, sources=3, context=16, max_span_density=0.04, docs_per_span=1)
    assert data == json.loads(json.dumps(want)) and "span_options" in data
    bad = list(argv)
    bad[bad.index(str(tmp / "tokens.parquet"))] = str(tmp_path / "gone.parquet")
    capsys.readouterr()
    assert main(bad) == 2
    assert (
        f"{tmp_path / 'gone.parquet'}: file not found (expected tokens.parquet)"
        in capsys.readouterr().err
    )
    assert main(["explore", "--out", str(out)]) == 2
    assert "expected --results DIR or --set" in capsys.readouterr().err


@pytest.mark.parametrize(
    "options",
    [
        {"max_span_count": 1},
        {"max_span_density": 0.1},
        {"max_span_density": 0.1, "rank_spans_by": "unigram_logprob_sum"},
        {"docs_per_span": 1},
        {"max_span_count": 2, "max_span_density": 0.05, "docs_per_span": 2},
    ],
)
def test_span_options_are_those_of_trace(corpus, options):
    """The explorer keeps the spans and sources `copyscope trace` shows with the same options
    (copyscope.index.spans), and records the options it was given; spans of one token and
    more, so that some occur often and in several documents."""
    from copyscope.index.spans import SpanOptions

    tmp, index, tok, _ = corpus
    data = _data(corpus, min_span=1, **options)
    assert data["span_options"] == {
        {"max_span_count": "max_count", "max_span_density": "max_density",
         "rank_spans_by": "rank_by", "docs_per_span": "docs_per_span"}[k]: v
        for k, v in options.items()
    }  # fmt: skip
    opts = SpanOptions(options.get("max_span_count"), options.get("max_span_density"),
                       options.get("rank_spans_by", "length"), options.get("docs_per_span"))  # fmt: skip
    every = _data(corpus, min_span=1)["settings"][0]["texts"]
    dropped = shortened = 0
    for t, full, gen in zip(data["settings"][0]["texts"], every, GENERATIONS, strict=True):
        ref = trace(index, tok, tok.encode(gen), 1, 5, opts)["spans"]
        assert [sp[:3] for sp in t["s"]] == [[s["start"], s["end"], s["count"]] for s in ref]
        assert [[f"{d}@{o}" for d, o, _, _ in sp[4]] for sp in t["s"]] == [s["where"] for s in ref]
        dropped += len(full["s"]) - len(t["s"])
        listed = {(sp[0], sp[1]): len(sp[4]) for sp in full["s"]}
        shortened += sum(len(sp[4]) < listed[sp[0], sp[1]] for sp in t["s"])
    assert (shortened if list(options) == ["docs_per_span"] else dropped) > 0  # the page changes


def test_span_options_off_leave_the_page_as_it_was(corpus):
    off = {"max_span_count": None, "max_span_density": None, "rank_spans_by": "length",
           "docs_per_span": None}  # fmt: skip
    data = _data(corpus)
    assert "span_options" not in data and data["sampled"] == {"windows": 3, "available": 3,
                                                              "seed": 0}  # fmt: skip
    assert page_html(_data(corpus, **off)) == page_html(data)
    # ranking alone drops nothing: the page is the same
    assert _data(corpus, rank_spans_by="unigram_logprob_sum")["settings"] == data["settings"]


def test_prompts_in_the_model_tokens_are_shown_in_the_index_tokens(tmp_path):
    """A model measured in its index's tokenizer (index_tokenizer): its prompts, sampled in its
    own ids, are encoded as their text is in the index's tokenizer."""
    from copyscope.explore import in_index_tokens
    from copyscope.tokenize import from_spec, load
    from support.tokenizers import tokenizer_file

    texts = ["to be or not to be, that is the question"] * 40
    own = from_spec({"kind": "bpe", "vocab_size": 300}, "own").fit(texts, tmp_path / "own")
    file = tokenizer_file(tmp_path / "idx" / "tokenizer.json", texts, 290)
    index_tok = load(f"hf:{file}", from_spec({"kind": f"hf:{file}"}, "i").fit([], tmp_path / "i")
                     and tmp_path / "i")  # fmt: skip
    prompts = [own.encode("to be or not").tolist(), []]
    got = in_index_tokens(prompts, tmp_path / "own", index_tok)
    assert got == [index_tok.encode("to be or not").tolist(), []]
    assert got[0] != prompts[0]  # other ids than the model's
