"""RAVEN's novel words (McCoy et al. 2023, §7): the well-formedness rule on hand-picked words,
the novel words of a set and its row, and the command on two small sample files."""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pytest

from copyscope.report.novel_words import (
    analyse_word,
    novel_words,
    set_row,
    stems,
    unescape,
    word_list,
)

TRAINING = {"king", "sword", "hand", "happy", "stop", "love", "know", "thee", "blood", "'tis",
            "the"}  # fmt: skip


def judge(word):
    return analyse_word(word, TRAINING)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("KING", (True, "case", "king")),
        ("Thee", (True, "case", "thee")),
        ("monster", (False, "none", "")),  # an unseen word: no rule relates it to training
        ("sword-hand", (True, "compound", "sword+hand")),
        ("Sword-Hand", (True, "compound", "sword+hand")),
        ("sword-monster", (False, "none", "")),  # every part a training word
        ("swordhand", (False, "none", "")),  # closed-up compounds are not taken
        ("kingHand", (False, "mixed", "")),  # two words run together
        ("hisGONZALO", (False, "mixed", "")),
        ("unkingly", (True, "affix", "un+king+ly")),
        ("happiness", (True, "affix", "happy+ness")),  # y → i
        ("stopped", (True, "affix", "stop+ed")),  # a doubled consonant
        ("loving", (True, "affix", "love+ing")),  # a dropped e
        ("know&apos;st", (True, "affix", "know+st")),  # the ending after an apostrophe
        ("bloodless", (True, "affix", "blood+less")),
        ("&apos;TIS", (True, "case", "'tis")),  # a leading apostrophe is an elision
        ("kingg", (False, "none", "")),
        ("thes", (False, "none", "")),  # the + es: es only after a sibilant, and a stop word
        ("ther", (False, "none", "")),  # th(e) + er: function words are no stems
        ("Se", (False, "short", "")),
        ("ab3", (False, "letters", "")),
        ("&apos;er-", (False, "letters", "")),
    ],
)
def test_well_formedness_rule_by_hand(word, expected):
    assert judge(word) == expected


def test_affixes_only_for_english():
    assert analyse_word("unkingly", TRAINING, english=False) == (False, "none", "")


def test_stems_undo_english_spelling():
    assert stems("happiness", "ness") == ["happi", "happy"]
    assert stems("stopped", "ed") == ["stopp", "stoppe", "stop"]
    assert stems("loving", "ing") == ["lov", "love"]
    assert stems("tos", "s") == ["to"]  # no e before a consonant suffix: not toe + s
    assert stems("kisses", "es") == ["kiss"] and stems("thes", "es") == []
    assert stems("king", "ness") == [] and stems("s", "s") == []
    assert unescape("don&apos;t &amp; &quot;") == "don't & \""


def test_novel_words_and_the_set_row_by_hand():
    """Two texts: 'the kingg , KING 42 the' and 'kingg unkingly'. Vocabulary {the, king, ','}:
    novel words with a letter are kingg (2), KING and unkingly (42 and ',' are not words).
    Types 3, two well-formed (KING case, unkingly affix): share 2/3, Wilson interval around
    it; generated words with a letter: 6 (the, kingg, KING, the, kingg, unkingly)."""
    texts = [["the", "kingg", ",", "KING", "42", "the"], ["kingg", "unkingly"]]
    counts = novel_words(texts, {"the", "king", ","})
    assert counts == Counter({"kingg": 2, "KING": 1, "unkingly": 1})
    listed = word_list("m", "top_k_40", counts, judge)
    assert listed["word"].tolist() == ["kingg", "KING", "unkingly"]  # by count, then a-z
    assert listed["well_formed"].tolist() == [False, True, True]
    row = set_row("m", "top_k_40", 2, 6, listed)
    assert (row["novel_tokens"], row["novel_types"], row["well_formed"]) == (4, 3, 2)
    assert row["novel_share"] == pytest.approx(4 / 6)
    assert row["well_formed_share"] == pytest.approx(2 / 3)
    assert row["well_formed_share_lo"] < 2 / 3 < row["well_formed_share_hi"]
    assert (row["rule_case"], row["rule_affix"], row["rule_compound"]) == (1, 1, 0)
    assert row["examples_well_formed"] == "KING · unkingly (un+king+ly)"
    assert row["examples_not"] == "kingg"
    empty = set_row("m", "pure", 0, 0, word_list("m", "pure", Counter(), judge))
    assert empty["novel_types"] == 0 and pd.isna(empty["well_formed_share"])


def test_novel_words_command(tmp_path):
    """Samples at two prompt lengths: only the main one (8) is read; the training vocabulary
    is the word tokenizer's."""
    from copyscope.cli import main
    from copyscope.tokenize.moses import WordVocab

    tok = tmp_path / "words"
    tok.mkdir()
    WordVocab(["the", "king", "."]).save(tok / "vocab.json")
    paths = {}
    for model, decoding, text in (("human", "reference", "the king ."),
                                  ("m", "top_k_40", "the kingg unkingly .")):  # fmt: skip
        p = tmp_path / f"{model}-{decoding}.jsonl"
        rows = [{"prompt_length": 8, "text": text}, {"prompt_length": 0, "text": "zzzq"}]
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths[(model, decoding)] = p
    argv = ["report", "novel-words"]
    for (model, decoding), p in paths.items():
        argv += ["--samples", model, decoding, str(p)]
    argv += ["--words", "words", str(tok), "--params-json",
             json.dumps({"prompt_length": 8, "raven_decoding": "top_k_40",
                         "pure_decoding": "pure"}),
             "--out-table", str(tmp_path / "t.csv"), "--out-list", str(tmp_path / "l.csv")]  # fmt: skip
    assert main(argv) == 0
    t = pd.read_csv(tmp_path / "t.csv").set_index("model")
    assert t.loc["human", "novel_types"] == 0 and t.loc["m", "novel_types"] == 2
    assert t.loc["m", "words"] == 3 and t.loc["m", "well_formed"] == 1
    listed = pd.read_csv(tmp_path / "l.csv")
    assert listed["word"].tolist() == ["kingg", "unkingly"]
    assert listed["rule"].tolist() == ["none", "affix"]
