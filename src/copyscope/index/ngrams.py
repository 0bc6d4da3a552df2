"""Every n-gram of an index's training stream, counted by the index's batched path.

The analyses that need the counts of *all* training n-grams of one length (style memorization's
repeated spans, :mod:`copyscope.syntax.style`; the training ranks of Shaib et al.'s template
coverage, :mod:`copyscope.report.template_coverage`) take them from here: the n-gram at every
position of the stream goes through :meth:`copyscope.index.Index.count_and_key` in batches, so
counting a million-token stream is one pass of the lockstep search, not a Python dictionary
over a million tuples.
"""

from __future__ import annotations

import numpy as np


def training_stream(index) -> np.ndarray:
    """The whole token stream of an :class:`copyscope.index.Index` (its shards in order, every
    document followed by the separator)."""
    return np.concatenate([np.asarray(s.tokens) for s in index.shards])


def doc_starts(index) -> np.ndarray:
    """Start of every document (global document number) in :func:`training_stream`."""
    parts, base = [], 0
    for s in index.shards:
        parts.append(s.doc_starts[:-1] + base)
        base += s.n_tokens
    return np.concatenate(parts)


def window_counts(
    index, n: int, chunk: int = 1 << 16, tokens: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(count, key) of the n-gram starting at every position 0..len − n of the index's
    training stream (:func:`training_stream`, or ``tokens`` when the caller has read it), from
    the index's batched count (``Index.count_and_key``, ``chunk`` n-grams per call): its
    number of occurrences and a key naming it (equal n-grams, equal keys); (0, −1) where it
    holds a separator (n-grams across documents are not training n-grams)."""
    if tokens is None:
        tokens = training_stream(index)
    m = len(tokens) - n + 1
    if m <= 0 or n <= 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    seps = np.concatenate([[0], np.cumsum(tokens == index.sep)])
    pos = np.flatnonzero(seps[n : n + m] == seps[:m])
    counts = np.zeros(m, np.int64)
    keys = np.full(m, -1, np.int64)
    span = np.arange(n)
    for a in range(0, len(pos), chunk):
        p = pos[a : a + chunk]
        counts[p], keys[p] = index.count_and_key(tokens[p[:, None] + span])
    return counts, keys


def ngram_counts(index, n: int) -> dict[tuple[int, ...], int]:
    """Every distinct n-gram of the index's training stream (none across a document
    boundary) → its number of occurrences, keys in order of first occurrence in the stream:
    the same mapping, in the same order, as a :class:`collections.Counter` fed the stream's
    documents one n-gram at a time (what :func:`copyscope.syntax.templates.ngram_ranks`
    breaks ties by), from :func:`window_counts`."""
    tokens = training_stream(index)
    counts, keys = window_counts(index, n, tokens=tokens)
    pos = np.flatnonzero(keys >= 0)
    if not len(pos):
        return {}
    _, first = np.unique(keys[pos], return_index=True)
    starts = np.sort(pos[first])
    grams = tokens[starts[:, None] + np.arange(n)].tolist()
    return {tuple(g): int(c) for g, c in zip(grams, counts[starts].tolist(), strict=True)}
