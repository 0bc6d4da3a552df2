"""Longest matches without compiled code, for the few tokens of an ad-hoc query.

The compiled kernels (:mod:`copyscope.index.kernels`) cost about a second of numba start-up per
process — most of what ``copyscope query`` on a short text would take. For a process that has
not loaded them and asks about at most :data:`SMALL_QUERY_TOKENS` tokens, :class:`Index`
answers with the functions here instead: the same definitions, found with plain binary searches
on the memory-mapped suffix array (numpy only, no LCP array, no derived tables), and tested
against the kernels position by position.

The suffix array sorts the suffixes of the *reversed* stream, so the suffix at rank ``i``
reads ``tokens[n-1-sa[i]], tokens[n-2-sa[i]], …`` and the corpus occurrences of the pattern
``x_t, x_{t-1}, …`` (the query prefix ending at ``t``, read backwards) form one contiguous
range of ranks (see :mod:`copyscope.index.kernels`).
"""

from __future__ import annotations

import numpy as np

SMALL_QUERY_TOKENS = 1024  # at most this many query tokens per call take the numpy path
NARROW = 16  # ranges of at most this many suffixes are finished by direct comparison


class BadSuffix(ValueError):
    """A suffix-array entry outside ``[0, n)`` (a damaged index) at suffix-array rank ``rank``."""

    def __init__(self, rank: int, value: int, n: int):
        self.rank = rank
        super().__init__(
            f"suffix array entry {value} at rank {rank} is outside the stream of {n} tokens"
        )


def suffix_position(sa, rank: int, n: int) -> int:
    """``sa[rank]``, checked to be a position of the reversed stream (else :class:`BadSuffix`)."""
    p = int(sa[rank])
    if not 0 <= p < n:
        raise BadSuffix(rank, p, n)
    return p


def _key(tokens: np.ndarray, sa: np.ndarray, n: int, rank: int, k: int) -> int:
    """Token at offset ``k`` of the reversed suffix at ``rank`` (-1 past its end, which sorts
    a suffix before every suffix it is a prefix of)."""
    pos = n - 1 - suffix_position(sa, rank, n) - k
    return int(tokens[pos]) if pos >= 0 else -1


def narrow(tokens, sa, lo: int, hi: int, k: int, c: int) -> tuple[int, int]:
    """The ranks ``[a, b)`` within ``[lo, hi)`` whose suffix has token ``c`` at offset ``k``,
    given that every suffix in ``[lo, hi)`` shares its first ``k`` tokens (two binary
    searches)."""
    n = tokens.shape[0]
    a, z = lo, hi
    while a < z:
        mid = (a + z) >> 1
        if _key(tokens, sa, n, mid, k) < c:
            a = mid + 1
        else:
            z = mid
    b, z = a, hi
    while b < z:
        mid = (b + z) >> 1
        if _key(tokens, sa, n, mid, k) <= c:
            b = mid + 1
        else:
            z = mid
    return a, b


def common_prefix(tokens: np.ndarray, start: int, pattern: np.ndarray) -> int:
    """Number of leading tokens of ``pattern`` equal to the reversed stream read from original
    position ``start`` backwards (``tokens[start], tokens[start-1], …``)."""
    m = min(len(pattern), start + 1)
    if m <= 0:
        return 0
    seen = np.asarray(tokens[start - m + 1 : start + 1])[::-1]
    differ = np.flatnonzero(seen != pattern[:m])
    return int(differ[0]) if differ.size else m


def match_interval(tokens, sa, pattern: np.ndarray) -> tuple[int, int, int]:
    """``(L, first, last)`` for a pattern read backwards from a query position: the length of
    its longest prefix that occurs in the reversed stream and the inclusive rank range of its
    occurrences (``last - first + 1`` is C_t); ``(0, 0, -1)`` when its first token never
    occurs. The same answer as :func:`copyscope.index.kernels.match_one`."""
    tokens, sa = np.asarray(tokens), np.asarray(sa)
    n = tokens.shape[0]
    pattern = np.asarray(pattern, dtype=np.int64)
    lo, hi, k = 0, n, 0
    while k < len(pattern):
        if hi - lo <= NARROW:
            # every suffix in [lo, hi) shares k tokens with the pattern: compare the rest
            starts = [n - 1 - suffix_position(sa, i, n) - k for i in range(lo, hi)]
            more = np.array([common_prefix(tokens, s, pattern[k:]) for s in starts])
            best = int(more.max())
            if k + best == 0:
                return 0, 0, -1
            hits = np.flatnonzero(more == best)  # contiguous: the suffixes are sorted
            return k + best, lo + int(hits[0]), lo + int(hits[-1])
        a, b = narrow(tokens, sa, lo, hi, k, int(pattern[k]))
        if a == b:
            break
        lo, hi, k = a, b, k + 1
    if k == 0:
        return 0, 0, -1
    return k, lo, hi - 1


def longest_matches_numpy(
    tokens, sa, q: np.ndarray, qstart: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """L_t and C_t (0 where L_t = 0) of every position ``t`` of the flat query ``q`` against one
    shard; ``qstart[t]`` is the first position of the query ``t`` belongs to (matches never
    reach into the previous query). The same answer as
    :func:`copyscope.index.kernels.longest_matches_kernel`."""
    length = np.zeros(len(q), dtype=np.int64)
    count = np.zeros(len(q), dtype=np.int64)
    for t in range(len(q)):
        L, first, last = match_interval(tokens, sa, q[qstart[t] : t + 1][::-1])
        length[t] = L
        count[t] = last - first + 1 if L > 0 else 0
    return length, count
