"""Brute-force references for the index: documents as a token stream, n-gram counts and longest
matches by enumeration."""

from __future__ import annotations

import numpy as np


def stream_of(docs, dtype=np.uint16) -> np.ndarray:
    """Concatenate documents, each followed by the dtype's largest value (the separator)."""
    sep = np.iinfo(dtype).max
    parts = []
    for d in docs:
        parts.append(np.asarray(d, dtype=dtype))
        parts.append(np.array([sep], dtype=dtype))
    return np.concatenate(parts)


def brute_count(docs, pattern) -> int:
    """Occurrences of ``pattern`` inside documents (never across a document boundary)."""
    m = len(pattern)
    if m == 0:
        return sum(len(d) + 1 for d in docs)
    pat = list(pattern)
    return sum(1 for d in docs for s in range(len(d) - m + 1) if list(d[s : s + m]) == pat)


def brute_matches(docs, query):
    """Reference L_t, C_t: the longest suffix of query[:t+1] occurring in a document, its count.

    For L_t = 0 the count is the corpus size in tokens, separators included (as rusty-dawg).
    """
    docs = [list(map(int, d)) for d in docs]
    total = sum(len(d) + 1 for d in docs)
    grams: dict[tuple, int] = {}
    for d in docs:
        for s in range(len(d)):
            for e in range(s + 1, len(d) + 1):
                grams[tuple(d[s:e])] = grams.get(tuple(d[s:e]), 0) + 1
    L, C = [], []
    q = list(map(int, query))
    for t in range(len(q)):
        best, cnt = 0, total
        for length in range(1, t + 2):
            c = grams.get(tuple(q[t - length + 1 : t + 1]), 0)
            if c == 0:
                break
            best, cnt = length, c
        L.append(best)
        C.append(cnt)
    return np.array(L, dtype=np.int64), np.array(C, dtype=np.int64)
