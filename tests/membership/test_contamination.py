"""Benchmark contamination looked up in the index (copyscope.membership.contamination):
hand-worked windows, the 80% rule at its boundary, character lengths from a byte-level index
against a brute-force substring search (multi-byte characters included), the two rules on
items planted in a tiny corpus, and the Wilson interval by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from copyscope import index as cindex
from copyscope.membership import contamination as cm
from support.index import stream_of


def test_window_hits_hand_worked():
    # L_t = 1 2 3 1 2 3: the 3-grams ending at t = 2..5 are found where L_t >= 3
    hits = cm.window_hits([1, 2, 3, 1, 2, 3], 3)
    assert hits.tolist() == [True, False, False, True]
    assert cm.share(hits) == 0.5
    assert cm.longest([1, 2, 3, 1, 2, 3]) == 3
    assert cm.dirty_ngram(hits) and not cm.dirty_ngram([False, False])


def test_short_text_is_one_window_the_whole_text():
    assert cm.window_hits([1, 2], 3).tolist() == [True]  # both units found together
    assert cm.window_hits([1, 1], 3).tolist() == [False]  # each unit found, not the pair
    assert cm.window_hits([], 3).size == 0
    assert math.isnan(cm.share([]))
    assert not cm.dirty_chars([]) and not cm.dirty_ngram([])
    with pytest.raises(ValueError):
        cm.window_hits([1], 0)


@pytest.mark.parametrize("found, dirty", [(8, True), (7, False), (10, True), (0, False)])
def test_eighty_percent_rule_at_its_boundary(found, dirty):
    hits = np.arange(10) < found  # 10 windows, `found` of them in the corpus
    assert cm.dirty_chars(hits, 0.8) is dirty


def _byte_index(tmp_path, docs):
    cm.build_byte_index(docs, tmp_path / "bytes")
    return cindex.open(tmp_path / "bytes")


def _brute_char_lengths(docs, text):
    """Per character e, the longest c with text[e-c+1 : e+1] inside some document."""
    out = []
    for e in range(len(text)):
        c = 0
        while c <= e and any(text[e - c : e + 1] in d for d in docs):
            c += 1
        out.append(c)
    return out


def test_char_lengths_match_a_brute_force_search(tmp_path):
    rng = np.random.default_rng(0)
    alphabet = list("abcd é") + ["中", "ß", "😀"]  # 1-, 2-, 3- and 4-byte characters
    docs = ["".join(rng.choice(alphabet, size=int(rng.integers(5, 40)))) for _ in range(6)]
    index = _byte_index(tmp_path, docs)
    queries = [docs[0][3:20] + "".join(rng.choice(alphabet, size=9)) + docs[2][:12]]
    queries += ["".join(rng.choice(alphabet, size=30)) for _ in range(20)]
    lengths = index.longest_matches([cm.utf8_ids(q) for q in queries]).split_lengths()
    for q, L in zip(queries, lengths, strict=True):
        assert cm.char_lengths(q, L).tolist() == _brute_char_lengths(docs, q), q


def test_a_character_match_never_starts_inside_a_multibyte_character(tmp_path):
    # "é" is C3 A9; "©" is C2 A9: the query "©x" shares the bytes A9 78 with the corpus, but
    # no character of it occurs before "x"
    index = _byte_index(tmp_path, ["éx"])
    L = index.longest_matches([cm.utf8_ids("©x")]).split_lengths()[0]
    assert L.tolist() == [0, 1, 2]  # bytes C2, A9, 78: "A9" and "A9 78" are found
    assert cm.char_lengths("©x", L).tolist() == [0, 1]  # in characters only "x"


def test_the_eighty_percent_rule_on_a_real_byte_index(tmp_path):
    # an item of 59 characters has 10 windows of 50; its first k characters are in training
    item = "".join(chr(ord("a") + (i * 7) % 26) for i in range(59))
    for k, share, dirty in ((57, 0.8, True), (56, 0.7, False), (59, 1.0, True)):
        docs = ["0123 " + item[:k] + " 9876"]
        index = _byte_index(tmp_path / str(k), docs)
        L = index.longest_matches([cm.utf8_ids(item)]).split_lengths()[0]
        hits = cm.window_hits(cm.char_lengths(item, L), 50)
        assert len(hits) == 10
        assert cm.share(hits) == pytest.approx(share)
        assert cm.dirty_chars(hits, 0.8) is dirty


class Words:
    """A whitespace tokenizer over a fixed vocabulary; an unknown word gets an id absent
    from every test corpus."""

    def __init__(self, vocab):
        self.ids = {w: i for i, w in enumerate(vocab)}

    def encode(self, text):
        return np.array([self.ids.get(w, 60000) for w in text.split()], dtype=np.int64)


def _word(i: int) -> str:
    return "w" + "".join(chr(ord("a") + int(d)) for d in f"{i:04d}")  # 5 letters, unique


def test_items_planted_in_a_tiny_corpus_are_flagged_and_others_not(tmp_path):
    words = [_word(i) for i in range(400)]
    doc = words[:200]
    planted = words[300:320]  # 20 words placed into training
    docs = [" ".join(doc[:100] + planted + doc[100:]), " ".join(words[200:260])]
    tok = Words(words)
    index = cindex.build_index(stream_of([tok.encode(d) for d in docs]), tmp_path / "w")
    index = cindex.open(tmp_path / "w")
    byte_index = _byte_index(tmp_path, docs)
    items = {
        "planted": " ".join(planted),
        "unplanted": " ".join(words[330:350]),  # never in training
        # 13 training words in a row, then 7 new ones: one 13-gram, few character windows
        "one 13-gram": " ".join(doc[10:23] + words[360:367]),
        "12 words": " ".join(doc[30:42] + words[370:378]),  # the longest found span is 12
        "whole doc": docs[1],
    }
    params = {"ngram": 13, "ngram_unit": "words", "chars": 50, "char_share": 0.8}
    rows = cm.lookup_rows(list(items.values()), (index, tok), (index, tok), byte_index, params)
    got = dict(zip(items, rows, strict=True))
    p = got["planted"]
    assert (p["word_share"], p["char_share"], p["word_longest"]) == (1.0, 1.0, 20)
    assert p["char_longest"] == p["n_chars"] == len(items["planted"])
    assert p["dirty_ngram"] and p["dirty_chars"]
    u = got["unplanted"]
    assert (u["word_share"], u["char_share"], u["word_longest"]) == (0.0, 0.0, 0)
    assert not u["dirty_ngram"] and not u["dirty_chars"]
    one = got["one 13-gram"]
    assert one["word_share"] == pytest.approx(1 / 8) and one["word_longest"] == 13
    assert one["dirty_ngram"] and not one["dirty_chars"]  # the rules disagree
    twelve = got["12 words"]
    assert twelve["word_longest"] == 12 and twelve["word_share"] == 0
    assert not twelve["dirty_ngram"]
    assert got["whole doc"]["dirty_ngram"] and got["whole doc"]["dirty_chars"]
    # the n-gram rule in tokens: here the same units, so the same flag
    rows_t = cm.lookup_rows(
        list(items.values()), (index, tok), (index, tok), byte_index,
        {**params, "ngram_unit": "tokens"},
    )  # fmt: skip
    assert [r["dirty_ngram"] for r in rows_t] == [r["dirty_ngram"] for r in rows]


def test_window_shares_match_brute_force_enumeration(tmp_path, rng):
    docs = [rng.integers(0, 6, size=int(rng.integers(10, 60))) for _ in range(5)]
    index = cindex.build_index(stream_of(docs), tmp_path / "x")
    index = cindex.open(tmp_path / "x")
    grams = {tuple(d[s : s + 4].tolist()) for d in docs for s in range(len(d) - 3)}
    for _ in range(30):
        q = rng.integers(0, 7, size=int(rng.integers(4, 25)))
        L = index.longest_matches([q]).split_lengths()[0]
        want = [tuple(q[s : s + 4].tolist()) in grams for s in range(len(q) - 3)]
        assert cm.window_hits(L, 4).tolist() == want


def test_wilson_interval_by_hand():
    # 0 of 32: the upper bound is z^2 / (n + z^2)
    z2 = 1.959963984540054**2
    rate, lo, hi = cm.dirty_rate(0, 32)
    assert (rate, lo) == (0.0, 0.0) and hi == pytest.approx(z2 / (32 + z2))
    rate, lo, hi = cm.dirty_rate(5, 10)
    half = math.sqrt(z2) * math.sqrt(0.25 / 10 + z2 / 400) / (1 + z2 / 10)
    assert rate == 0.5 and (lo, hi) == pytest.approx((0.5 - half, 0.5 + half))
    assert all(math.isnan(x) for x in cm.dirty_rate(0, 0))


def test_byte_stream_is_bytes_and_separators():
    s = cm.byte_stream(["aé", ""])
    assert s.dtype == np.uint16
    assert s.tolist() == [97, 0xC3, 0xA9, cm.BYTE_SEP, cm.BYTE_SEP]


@pytest.mark.parametrize(
    "block, key",
    [({"char_share": 0}, "char_share"), ({"rule": "any"}, "rule"), ({"ngram": 0}, "ngram"),
     ({"ngram_unit": "chars"}, "ngram_unit"), ({"threshold": 0.5}, "threshold")],
)  # fmt: skip
def test_config_block_is_checked(block, key):
    import copy

    from copyscope.config import validate
    from copyscope.errors import ConfigError
    from support.configs import TINY

    cfg = copy.deepcopy(TINY)
    cfg["analysis"]["contamination"] = block
    with pytest.raises(ConfigError, match=key):
        validate(cfg)
