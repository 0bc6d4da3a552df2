"""Planted vs natural copying: the source class of a copied n-gram.

The corpus stage plants text into the training split (:func:`copyscope.corpus.planted_texts`:
duplicated passages, the memorization ladder, the contamination set) and writes the
natural text, the training split before any planting (``corpus/natural.jsonl``). A generated
n-gram found in training is attributed here to where it occurs, exactly, from longest-match
lengths: ``natural[t]``, the longest suffix ending at t found in the natural text's index,
and for each planted class c, ``planted[c][t]``, the longest found in an index of that class's
texts alone (one document each, :func:`planted_lengths`). A suffix of ℓ tokens ending at t
occurs in a text set iff that set's longest match at t is at least ℓ long (suffixes of a
match are matches), so no position lookup is needed.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

NONE = "none"
NATURAL = "natural"
DUPLICATE = "duplicate"
MIXED = "mixed"


def source_classes(
    length: np.ndarray,
    natural: np.ndarray,
    planted: Mapping[str, np.ndarray],
    natural_outside: np.ndarray | None = None,
) -> np.ndarray:
    """The source class of the n-gram of ``length[i]`` tokens ending at each position i.

    ``natural[i]``: longest suffix ending at i found in the natural text; ``planted[c][i]``:
    longest found in the texts of planted class c (in attribution order);
    ``natural_outside[i]``: whether the n-gram also occurs in the natural text outside the
    duplicated passages (:func:`natural_outside_duplicates`; None: nowhere else). The class is

    * ``none`` — ``length[i] == 0`` (nothing copied);
    * ``duplicate`` — ``natural[i] ≥ length[i]``, ``planted["duplicate"][i] ≥ length[i]`` and
      not ``natural_outside[i]``: the n-gram is found in the natural text only inside the
      passages that planting duplicated (Merrill et al.'s inflated duplicates), so the model
      may have it from the planted copies;
    * ``natural`` — ``natural[i] ≥ length[i]`` otherwise (a common n-gram, e.g. one word, that
      a duplicated passage also holds stays natural);
    * ``c`` — the first planted class with ``planted[c][i] ≥ length[i]`` (the n-gram occurs in
      planted text of class c only);
    * ``mixed`` — no single source holds the whole n-gram (it crosses the seam between
      natural text and a planted passage, or between two planted documents of the stream).
    """
    length = np.asarray(length, dtype=np.int64)
    out = np.full(length.shape, MIXED, dtype=object)
    done = length == 0
    out[done] = NONE
    nat = ~done & (np.asarray(natural) >= length)
    dup = planted.get(DUPLICATE)
    inflated = nat & (np.asarray(dup) >= length) if dup is not None else np.zeros_like(nat)
    if natural_outside is not None:
        inflated &= ~np.asarray(natural_outside, dtype=bool)
    out[nat & inflated] = DUPLICATE
    out[nat & ~inflated] = NATURAL
    done |= nat
    for name, lens in planted.items():
        hit = ~done & (np.asarray(lens) >= length)
        out[hit] = name
        done |= hit
    return out


_INDEXES: dict[tuple[str, str], tuple[tempfile.TemporaryDirectory, object]] = {}
"""Indexes of planted texts built in this process, by stream (``copyscope each`` analyses a
model's sets in one process: the same texts are indexed once)."""


def _text_index(stream: np.ndarray):
    from ..index import build_index
    from ..index import open as open_index

    key = (stream.dtype.str, hashlib.sha256(stream.tobytes()).hexdigest())
    if key not in _INDEXES:
        tmp = tempfile.TemporaryDirectory()
        build_index(stream, Path(tmp.name) / "texts")
        _INDEXES[key] = (tmp, open_index(Path(tmp.name) / "texts"))
    return _INDEXES[key][1]


def _texts_index(texts: Sequence[np.ndarray], queries: Sequence[np.ndarray]):
    """An index of ``texts`` (one document each, separated by an id no query holds), or None
    when no text is non-empty; ``queries`` are the id arrays it will be asked about."""
    texts = [np.asarray(x, dtype=np.int64) for x in texts if len(x)]
    if not texts:
        return None
    high = max(int(np.max(x)) for x in [*texts, *(q for q in queries if len(q))])
    dtype = np.uint16 if high < 65535 else np.uint32  # the queries' ids must fit too
    sep = np.iinfo(dtype).max
    return _text_index(np.concatenate([np.append(x, sep).astype(dtype) for x in texts]))


def text_index_lengths(texts: Sequence[np.ndarray], queries: Sequence[np.ndarray]) -> np.ndarray:
    """Flat L_t of every position of ``queries`` against an index of ``texts`` (one document
    each; all zeros when there is no non-empty text)."""
    n = int(sum(len(q) for q in queries))
    queries = [np.asarray(q, dtype=np.int64) for q in queries]
    index = _texts_index(texts, queries) if n else None
    if index is None:
        return np.zeros(n, dtype=np.int64)
    return np.asarray(index.longest_matches(queries).length, dtype=np.int64)


def text_index_counts(texts: Sequence[np.ndarray], ngrams: Sequence[np.ndarray]) -> np.ndarray:
    """Occurrences of each n-gram in ``texts`` (one document each; none crosses two texts)."""
    ngrams = [np.asarray(g, dtype=np.int64) for g in ngrams]
    index = _texts_index(texts, ngrams) if ngrams else None
    if index is None:
        return np.zeros(len(ngrams), dtype=np.int64)
    return np.asarray(index.count_many(ngrams), dtype=np.int64)


def natural_outside_duplicates(
    ngrams: Sequence[np.ndarray],
    natural_count: np.ndarray,
    duplicated: Sequence[np.ndarray],
) -> np.ndarray:
    """Whether each n-gram occurs in the natural text outside the duplicated passages:
    ``natural_count`` (its occurrences in the natural text) exceeds its occurrences in the
    passages ``duplicated`` (each once). Planting duplicates passages of the natural training
    text, so every occurrence inside a passage is also one in the natural text; more natural
    occurrences than that are elsewhere."""
    inside = text_index_counts(duplicated, ngrams)
    return np.asarray(natural_count, dtype=np.int64) > inside


def planted_lengths(
    planted: Mapping[str, Sequence[str]],
    encode: Callable[[str], np.ndarray],
    queries: Sequence[np.ndarray],
) -> dict[str, np.ndarray]:
    """Class → flat longest-match lengths of ``queries`` against that class's planted texts,
    each encoded with ``encode`` (the units of the queries), in the order of ``planted``."""
    return {
        name: text_index_lengths([np.asarray(encode(t), dtype=np.int64) for t in texts], queries)
        for name, texts in planted.items()
    }


def span_classes(
    lengths: np.ndarray,
    positions: np.ndarray,
    natural: np.ndarray,
    planted: Mapping[str, np.ndarray],
    natural_outside: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`source_classes` of whole copied spans (e.g. supercopies): span j is the n-gram of
    ``lengths[j]`` tokens ending at flat position ``positions[j]`` of the per-position arrays
    ``natural`` and ``planted[c]``; ``natural_outside[j]`` is about span j itself."""
    pos = np.asarray(positions, dtype=np.int64)
    return source_classes(
        lengths,
        np.asarray(natural)[pos],
        {c: np.asarray(v)[pos] for c, v in planted.items()},
        natural_outside,
    )
