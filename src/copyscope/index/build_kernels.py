"""Compiled kernels that build an index (numba): the capped LCP array from the suffix array
(the permuted-LCP algorithm of Kärkkäinen, Manzini & Puglisi 2009, capped at
:data:`~copyscope.index.kernels.LCP_CAP`), the byte strings the suffix sort reads, and the
alphabet of a token stream. The query kernels, which read a built index, are
:mod:`copyscope.index.kernels`."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def lcp_capped(text, sa, scratch, out, cap):
    """LCP array capped at ``cap``: out[k] = min(cap, lcp(suffix SA[k-1], suffix SA[k])), out[0] = 0.

    The permuted-LCP ("Phi") algorithm of Kärkkäinen, Manzini & Puglisi (2009): Phi[SA[k]] =
    SA[k-1]; PLCP[i] = lcp(i, Phi[i]) is computed in text order, where PLCP[i+1] >= PLCP[i] - 1
    makes it linear; then LCP[k] = PLCP[SA[k]].  The text-order pass runs in independent chunks
    (each restarting from 0), so all three passes are parallel.  ``scratch`` holds Phi, then PLCP.
    """
    n = text.shape[0]
    for k in prange(n):
        scratch[sa[k]] = sa[k - 1] if k > 0 else -1
    nchunks = 256
    size = (n + nchunks - 1) // nchunks
    for c in prange(nchunks):
        h = 0
        for i in range(c * size, min(n, (c + 1) * size)):
            j = scratch[i]
            if j < 0:
                scratch[i] = 0
                h = 0
                continue
            while i + h < n and j + h < n and text[i + h] == text[j + h]:
                h += 1
            scratch[i] = h
            if h > 0:
                h -= 1
    for k in prange(n):
        v = scratch[sa[k]]
        out[k] = v if v < cap else cap
    out[0] = 0


@njit(cache=True)
def top_two(seq):
    """The largest value of ``seq`` and the largest value below it (-1 where there is none)."""
    top = -1
    below = -1
    for i in range(seq.shape[0]):
        v = np.int64(seq[i])
        if v > top:
            below = top
            top = v
        elif below < v < top:
            below = v
    return top, below


@njit(cache=True)
def fixed_width_bytes(seq, top, code_top, width, out):
    """Write every value of ``seq`` as ``width`` big-endian bytes into ``out`` (``width`` bytes
    per value), the value ``top`` written as ``code_top`` instead."""
    for i in range(seq.shape[0]):
        v = np.int64(seq[i])
        if v == top:
            v = code_top
        base = i * width
        for k in range(width - 1, -1, -1):
            out[base + k] = v & 255
            v >>= 8


@njit(cache=True)
def aligned_suffixes(sa_bytes, width, out):
    """Keep the byte suffixes that start at multiples of ``width``, as token positions, in
    ``out`` (one more entry than tokens: the last write of the loop lands past the end)."""
    j = 0
    for i in range(sa_bytes.shape[0]):
        p = sa_bytes[i]
        out[j] = p // width
        j += 1 if p % width == 0 else 0


@njit(cache=True)
def alphabet_size(tokens, sep):
    """1 + the largest token id other than the separator (0 if there is none)."""
    mx = -1
    for i in range(tokens.shape[0]):
        v = np.int64(tokens[i])
        if v != sep and v > mx:
            mx = v
    return mx + 1
