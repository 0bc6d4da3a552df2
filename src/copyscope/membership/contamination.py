"""Benchmark contamination looked up in the training data: exact n-gram and character-window
overlap of each item with the training split, and a dirty flag by a stated rule.

Two rules of the literature, both computed exactly from the index's longest matches
(:meth:`copyscope.index.core.Index.longest_matches`: per position t of a text, L_t = the length
of the longest suffix ending at t that occurs in the corpus; a window of length n ending at t
occurs iff L_t ≥ n, since every substring of a found string is found):

* **n-gram overlap** (Brown et al. 2020, GPT-3, §4 and Appendix C): an item is dirty when any
  of its 13-grams occurs in the training data (or, for an item shorter than 13 units, when the
  whole item does). GPT-3 counted lower-cased words without punctuation; copyscope counts the
  run's own units exactly — the trained models' tokens (token index) and Moses words (word
  index) — so its n-grams keep case and punctuation.
* **Character windows** (Xu et al. 2025, infini-gram mini, §5 and its benchmark contamination
  bulletin): an item is dirty when at least 80% of its 50-character windows occur in the
  corpus. copyscope takes every window (stride 1); an item shorter than 50 characters has one
  window, the whole item.

Character windows need character-level matching: :func:`build_byte_index` builds a copyscope
index (the same suffix-array builder, :func:`copyscope.index.build_index`) over the UTF-8
bytes of the training documents, one byte per token (ids 0..255; the separator 65535).
UTF-8 is self-synchronising, so a valid UTF-8 string occurs in the byte stream exactly where
its characters occur in the text; :func:`char_lengths` turns the per-byte L_t into per-character
lengths.

The windows of a text (:func:`window_hits`) are all its n-unit windows, or the whole text when
it is shorter than n: a text of m ≥ n units has m − n + 1 windows, one of 0 < m < n units has
one, an empty text none. Per benchmark the dirty rate carries a Wilson score interval
(:func:`dirty_rate`, :func:`copyscope.stats.wilson`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..stats import wilson

NGRAM = 13
"""The n of the n-gram rule (GPT-3's 13-grams)."""
CHARS = 50
"""The window of the character rule, in characters (infini-gram mini's 50)."""
CHAR_SHARE = 0.8
"""The share of an item's character windows found that makes it dirty (infini-gram mini's 80%)."""
RULES = ("ngram", "chars")
"""The two dirty rules: ``ngram`` (any n-gram found) and ``chars`` (a share of the character
windows found)."""
BYTE_SEP = 65535
"""The document separator of the byte index (the uint16 separator; bytes are 0..255)."""

COLUMNS = [
    "n_tokens", "token_share", "token_longest",
    "n_words", "word_share", "word_longest",
    "n_chars", "char_share", "char_longest",
    "dirty_ngram", "dirty_chars",
]  # fmt: skip
"""The lookup columns of one item (:func:`lookup_rows`)."""


def window_hits(lengths, n: int) -> np.ndarray:
    """Whether each n-unit window of a text occurs in the corpus, from its per-unit longest
    matches ``lengths`` (L_t): the window ending at t (t ≥ n − 1) occurs iff L_t ≥ n. A text of
    0 < m < n units has one window, the whole text (found iff L_{m−1} ≥ m); an empty text has
    none."""
    if n < 1:
        raise ValueError(f"expected n >= 1, got {n}")
    L = np.asarray(lengths, dtype=np.int64)
    m = L.shape[0]
    if m == 0:
        return np.zeros(0, dtype=bool)
    if m < n:
        return np.array([L[-1] >= m])
    return L[n - 1 :] >= n


def share(hits) -> float:
    """The share of windows found (NaN without a window)."""
    hits = np.asarray(hits, dtype=bool)
    return float(hits.mean()) if hits.size else math.nan


def longest(lengths) -> int:
    """The text's longest match: the longest of its substrings that occurs in the corpus, in
    units (the largest L_t; 0 for an empty text)."""
    L = np.asarray(lengths)
    return int(L.max()) if L.size else 0


def dirty_ngram(hits) -> bool:
    """The n-gram rule (GPT-3): some window found."""
    return bool(np.any(hits))


def dirty_chars(hits, threshold: float = CHAR_SHARE) -> bool:
    """The character rule (infini-gram mini): at least ``threshold`` of the windows found
    (False without a window)."""
    hits = np.asarray(hits, dtype=bool)
    return bool(hits.size) and bool(hits.mean() >= threshold)


def utf8_ids(text: str) -> np.ndarray:
    """The UTF-8 bytes of ``text`` as ids (int64, 0..255): a query of the byte index."""
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64)


def byte_stream(texts: Sequence[str]) -> np.ndarray:
    """The byte index's token stream: each text's UTF-8 bytes followed by :data:`BYTE_SEP`
    (uint16), written into one preallocated array (2 bytes per byte of text)."""
    encoded = [t.encode("utf-8") for t in texts]
    out = np.full(sum(map(len, encoded)) + len(encoded), BYTE_SEP, dtype=np.uint16)
    at = 0
    for e in encoded:
        out[at : at + len(e)] = np.frombuffer(e, dtype=np.uint8)
        at += len(e) + 1
    return out


def build_byte_index(texts: Sequence[str], out_dir, doc_ids: Sequence[str] | None = None) -> dict:
    """A copyscope index of the UTF-8 bytes of ``texts`` (:func:`byte_stream`) at ``out_dir``,
    built by :func:`copyscope.index.build_index` (7 bytes on disk per byte of text); returns
    its manifest."""
    from ..index import build_index

    ids = None if doc_ids is None else [str(i) for i in doc_ids]
    return build_index(byte_stream(texts), out_dir, doc_ids=ids)


def char_lengths(text: str, byte_lengths) -> np.ndarray:
    """Per character e of ``text``, the longest suffix ending at e that occurs in the corpus,
    in characters, from the byte index's L_t of its UTF-8 bytes (``byte_lengths``): with
    ``b`` the byte just after e, it is the number of characters that start in ``[b − L, b)``
    where L is L_t at byte b − 1 (a suffix of whole characters is found iff its bytes are)."""
    if not text:
        return np.zeros(0, dtype=np.int64)
    widths = np.fromiter((len(c.encode("utf-8")) for c in text), dtype=np.int64, count=len(text))
    ends = np.cumsum(widths)
    starts = ends - widths
    L = np.asarray(byte_lengths, dtype=np.int64)[ends - 1]
    return np.arange(1, len(text) + 1) - np.searchsorted(starts, ends - L, side="left")


def item_measures(
    token_lengths,
    word_lengths,
    text: str,
    byte_lengths,
    *,
    ngram: int,
    chars: int,
    char_share: float,
    ngram_unit: str = "words",
) -> dict:
    """The lookup columns (:data:`COLUMNS`) of one item from its per-unit longest matches in
    tokens, words and bytes: the share of its ``ngram``-unit windows found and its longest
    match, in tokens and in words; the share of its ``chars``-character windows found and its
    longest match in characters; the n-gram flag (in ``ngram_unit``: ``words`` or ``tokens``)
    and the character flag (share ≥ ``char_share``)."""
    lengths = {
        "token": token_lengths,
        "word": word_lengths,
        "char": char_lengths(text, byte_lengths),
    }
    n = {"token": ngram, "word": ngram, "char": chars}
    hits = {u: window_hits(lengths[u], n[u]) for u in lengths}
    row = {}
    for unit, count in (("token", "n_tokens"), ("word", "n_words"), ("char", "n_chars")):
        row[count] = int(len(lengths[unit]))
        row[f"{unit}_share"] = share(hits[unit])
        row[f"{unit}_longest"] = longest(lengths[unit])
    row["dirty_ngram"] = dirty_ngram(hits["word" if ngram_unit == "words" else "token"])
    row["dirty_chars"] = dirty_chars(hits["char"], char_share)
    return row


def lookup_rows(
    texts: Sequence[str], token: tuple, word: tuple, byte_index, params: Mapping
) -> list[dict]:
    """:func:`item_measures` of every text, each index asked once for the whole batch:
    ``token`` and ``word`` are ``(index, tokenizer)`` pairs (the tokenizer's ``encode(text)``
    gives the index's ids), ``byte_index`` the index of :func:`build_byte_index`; ``params``
    the config block ``analysis.contamination`` (``ngram``, ``ngram_unit``, ``chars``,
    ``char_share``)."""
    per_unit = []
    for index, tokenizer in (token, word):
        ids = [np.asarray(tokenizer.encode(t), dtype=np.int64) for t in texts]
        per_unit.append(index.longest_matches(ids).split_lengths())
    by = byte_index.longest_matches([utf8_ids(t) for t in texts]).split_lengths()
    kw = {k: params[k] for k in ("ngram", "chars", "char_share", "ngram_unit")}
    return [
        item_measures(tl, wl, t, bl, **kw)
        for t, tl, wl, bl in zip(texts, per_unit[0], per_unit[1], by, strict=True)
    ]


def dirty_rate(k: int, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """The dirty rate k/n with its Wilson score interval at ``level``
    (:func:`copyscope.stats.wilson`); NaNs for n = 0."""
    return wilson(k, n, level)
