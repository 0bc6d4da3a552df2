"""Compiled kernels over an infini-gram index as its files lie on disk (numba).

An infini-gram shard (Liu et al. 2024, the ``infini_gram`` package's indexer) is a token
stream ``tokenized.*`` (``w`` = 1, 2 or 4 bytes per token, little-endian, every document
*preceded* by the separator ``2**(8w) - 1``) and a suffix array ``table.*`` of the *forward*
stream: ``n`` byte offsets into the stream, each stored little-endian in ``p`` bytes. Its
suffixes are sorted as byte strings, so a token compares by its bytes in memory order, least
significant first: by its byte-swapped value (:func:`_key`), not by its id. A suffix that
ends (the end of the stream) sorts before every longer one it is a prefix of.

In the forward order all occurrences of the n-grams that *start* with a pattern form one
interval. L_t (the longest suffix of ``x_1..x_t`` that occurs) is found left to right:
keep the interval of ``x_s..x_{t-1}`` (all its suffixes share those ``t - s`` tokens, so
their next tokens are sorted within it) and narrow it by ``x_t`` with two binary searches
that read one token each; where no occurrence continues with ``x_t``, drop ``x_s`` and
search ``x_{s+1}..x_{t-1}`` afresh (it occurs: it is part of an occurring n-gram). The
start ``s`` only moves right, so a query of ``m`` tokens costs at most ``m`` narrowings
that succeed, ``m`` that fail and ``m`` fresh searches. A fresh search starts inside the
interval of its first token (searched once per distinct token of a call, and kept per shard
for u8/u16 ids), a pattern that does not occur costs one binary search, and every binary
search skips the pattern prefix that both of its bounds are known to share (Manber & Myers'
mlr). Counts search 16 n-grams at a time in lockstep, each step's table entries and text
prefetched for all of them first.

A damaged table never makes a kernel read outside an array: every suffix-array entry is
checked where it is read (:func:`_position`: a byte offset of a whole token inside the
stream, else ``fault = (1, rank)`` is recorded and position 0 used), as the kernels of
copyscope's own index do (:mod:`copyscope.index.kernels`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .kernels import prefetch


@njit(cache=True, nogil=True, inline="always")
def _key(v, w):
    """The order key of token value ``v`` of width ``w`` bytes: its little-endian bytes read
    as a big-endian number (suffixes are sorted as byte strings)."""
    v = np.int64(v)
    if w == 1:
        return v
    if w == 2:
        return ((v & 0xFF) << 8) | (v >> 8)
    return ((v & 0xFF) << 24) | ((v & 0xFF00) << 8) | ((v >> 8) & 0xFF00) | (v >> 24)


@njit(cache=True, nogil=True)
def token_keys(values, w):
    """:func:`_key` of every value (the query's tokens, as the kernels compare them)."""
    out = np.empty(values.shape[0], dtype=np.int64)
    for i in range(values.shape[0]):
        out[i] = _key(values[i], w)
    return out


@njit(cache=True, nogil=True, inline="always")
def _position(sa, p, w, n, r, fault):
    """Token position of the suffix of rank ``r``: its ``p``-byte little-endian byte offset
    divided by ``w``, when it is a whole token inside the stream of ``n`` tokens; else 0,
    with ``fault = (1, r)`` recorded (a damaged table)."""
    base = r * p
    x = np.int64(0)
    for i in range(p):
        x |= np.int64(sa[base + i]) << (8 * i)
    if x < 0 or x >= n * w or x % w != 0:
        fault[0] = 1
        fault[1] = r
        return np.int64(0)
    return x // w


@njit(cache=True, nogil=True)
def _compare(ds, w, n, pos, qk, a, b, h):
    """``(h', c)``: compare the suffix at token ``pos`` with the pattern ``qk[a:b]`` (order
    keys) from depth ``h`` on (the first ``h`` tokens are known equal): ``h'`` is their common
    prefix, ``c`` -1 where the suffix sorts before the pattern, 0 where the pattern is a prefix
    of it, 1 where it sorts after."""
    m = b - a
    while h < m:
        i = pos + h
        if i >= n:
            return h, -1
        k = _key(ds[i], w)
        x = qk[a + h]
        if k != x:
            return h, (-1 if k < x else 1)
        h += 1
    return h, 0


@njit(cache=True, nogil=True)
def narrow(ds, sa, p, w, fault, qk, a, b, lo, hi, d):
    """``(first, end)``: the ranks in ``[lo, hi)`` of the suffixes that start with the
    pattern ``qk[a:b]``, given that every suffix in ``[lo, hi)`` starts with its first ``d``
    tokens (``lo, hi, d = 0, n, 0`` for a search of the whole shard); ``first == end``
    where none does."""
    n = ds.shape[0]
    if d >= b - a:
        return lo, hi
    # first rank whose suffix is >= the pattern
    x, z = lo, hi
    hx = d
    hz = d
    while x < z:
        mid = (x + z) >> 1
        h = hx if hx < hz else hz
        h, c = _compare(ds, w, n, _position(sa, p, w, n, mid, fault), qk, a, b, h)
        if c < 0:
            x = mid + 1
            hx = h
        else:
            z = mid
            hz = h
    first = x
    if x == hi:
        return first, x
    # the pattern occurs iff the suffix at ``first`` starts with it (one comparison spares the
    # second search for a pattern that does not occur: every failed extension)
    h, c = _compare(ds, w, n, _position(sa, p, w, n, x, fault), qk, a, b, hz)
    if c != 0:
        return first, x
    # first rank whose suffix sorts after the pattern (does not start with it)
    x += 1
    z = hi
    hx = b - a
    hz = d
    while x < z:
        mid = (x + z) >> 1
        h = hx if hx < hz else hz
        h, c = _compare(ds, w, n, _position(sa, p, w, n, mid, fault), qk, a, b, h)
        if c <= 0:
            x = mid + 1
        else:
            z = mid
            hz = h
    return first, x


@njit(cache=True, nogil=True)
def _occurs_back(ds, sa, p, w, fault, qk, blo, bhi, qs, t0):
    """``(l, first, end)``: the longest ``l <= t0 - qs`` such that ``qk[t0-l:t0]`` occurs,
    and its interval (binary search on ``l``: a suffix of an occurring n-gram occurs)."""
    n = ds.shape[0]
    lo_l, hi_l = 0, t0 - qs  # qk[t0-lo_l:t0] occurs; answer in [lo_l, hi_l]
    f0, e0 = 0, n
    while lo_l < hi_l:
        mid = (lo_l + hi_l + 1) >> 1
        a = t0 - mid
        f, e = narrow(ds, sa, p, w, fault, qk, a, t0, blo[a], bhi[a], 1)
        if f < e:
            lo_l = mid
            f0, e0 = f, e
        else:
            hi_l = mid - 1
    return lo_l, f0, e0


@njit(cache=True, nogil=True)
def _segment(ds, sa, p, w, fault, qk, blo, bhi, qs, ta, tb, out_len, out_cnt):
    """L_t and C_t (0 where L_t = 0) for ``ta <= t < tb`` of the query starting at ``qs``;
    ``[blo[i], bhi[i])`` are the ranks of the suffixes starting with the token at ``i``."""
    n = ds.shape[0]
    if ta == qs:
        d, lo, hi = 0, 0, n
    else:
        d, lo, hi = _occurs_back(ds, sa, p, w, fault, qk, blo, bhi, qs, ta)
    s = ta - d
    for t in range(ta, tb):
        while True:
            if d == 0:
                f, e = blo[t], bhi[t]
            else:
                f, e = narrow(ds, sa, p, w, fault, qk, s, t + 1, lo, hi, d)
            if f < e:
                lo, hi = f, e
                d += 1
                out_len[t] = d
                out_cnt[t] = e - f
                break
            if d == 0:
                out_len[t] = 0
                out_cnt[t] = 0
                s = t + 1
                lo, hi = 0, n
                break
            s += 1
            d -= 1
            if d == 0:
                lo, hi = 0, n
            else:
                lo, hi = narrow(ds, sa, p, w, fault, qk, s, t, blo[s], bhi[s], 1)


@njit(cache=True, parallel=True)
def longest_matches(
    ds, sa, p, w, fault, qk, blo, bhi, seg_start, seg_end, seg_qs, out_len, out_cnt
):
    """For every query position t: ``out_len[t] = L_t``, ``out_cnt[t] = C_t`` (0 where
    L_t = 0) against one shard; ``[blo[t], bhi[t])`` are the ranks of the suffixes starting
    with the token at t (:func:`count_batch` of the query's distinct tokens, so every fresh
    search starts inside its first token's interval). The positions come in segments
    ``seg_start[i] <= t < seg_end[i]`` of the query starting at ``seg_qs[i]``
    (``kernels.query_segments``), run in parallel; a segment that starts inside its query
    first finds the match ending just before it (:func:`_occurs_back`)."""
    for i in prange(seg_start.shape[0]):
        _segment(
            ds, sa, p, w, fault, qk, blo, bhi, seg_qs[i], seg_start[i], seg_end[i], out_len,
            out_cnt,
        )  # fmt: skip


BATCH = 16  # n-grams searched in lockstep by count_batch


@njit(cache=True, nogil=True)
def _count_group(
    ds, sa, p, w, fault, qk, starts, ends, glo, ghi, d0, g0, g1, out_first, out_cnt, st
):
    """:func:`narrow` of the n-grams ``g0 <= i < g1`` within ``[glo[i], ghi[i])`` (the ranks
    of the suffixes starting with their first ``d0`` tokens) in lockstep: each step of their
    binary searches first prefetches every n-gram's next table entry, then its text, then
    compares (group prefetching), so their cache misses overlap."""
    n = ds.shape[0]
    G = g1 - g0
    x_, z_, hx_, hz_, first_, hi_ = st
    for phase in range(2):
        for g in range(G):
            i = g0 + g
            z_[g] = ghi[i]
            hz_[g] = d0
            if phase == 0:
                # an n-gram of at most d0 tokens is its interval: no search
                x_[g] = glo[i] if ends[i] - starts[i] > d0 else ghi[i]
                hx_[g] = d0
            else:
                x_[g] = hi_[g] if hi_[g] >= 0 else ghi[i]  # absent: no second search
                hx_[g] = ends[i] - starts[i]
        active = True
        while active:
            active = False
            for g in range(G):
                if x_[g] < z_[g]:
                    prefetch(sa, ((x_[g] + z_[g]) >> 1) * p)
            for g in range(G):
                if x_[g] < z_[g]:
                    h = hx_[g] if hx_[g] < hz_[g] else hz_[g]
                    pos = _position(sa, p, w, n, (x_[g] + z_[g]) >> 1, fault) + h
                    if pos < n:
                        prefetch(ds, pos)
            for g in range(G):
                if x_[g] < z_[g]:
                    active = True
                    mid = (x_[g] + z_[g]) >> 1
                    h = hx_[g] if hx_[g] < hz_[g] else hz_[g]
                    i = g0 + g
                    h, c = _compare(
                        ds, w, n, _position(sa, p, w, n, mid, fault), qk, starts[i], ends[i], h
                    )
                    if c < 0 or (phase == 1 and c == 0):
                        x_[g] = mid + 1
                        if phase == 0:
                            hx_[g] = h
                    else:
                        z_[g] = mid
                        hz_[g] = h
        for g in range(G):
            if phase == 0 and ends[g0 + g] - starts[g0 + g] <= d0:
                first_[g] = glo[g0 + g]
                hi_[g] = ghi[g0 + g]
            elif phase == 0:
                first_[g] = x_[g]
                hi_[g] = -1  # where the second search starts: past first if it matches
                if x_[g] < ghi[g0 + g]:
                    i = g0 + g
                    pos = _position(sa, p, w, n, x_[g], fault)
                    _, c = _compare(ds, w, n, pos, qk, starts[i], ends[i], hz_[g])
                    hi_[g] = x_[g] + 1 if c == 0 else -1
            else:
                out_first[g0 + g] = first_[g]
                out_cnt[g0 + g] = x_[g] - first_[g] if hi_[g] >= 0 else 0


@njit(cache=True, parallel=True)
def count_batch(ds, sa, p, w, fault, qk, starts, ends, glo, ghi, d0, nt, out_first, out_cnt):
    """First rank and number of occurrences of every n-gram ``qk[starts[i]:ends[i]]`` in one
    shard, searched within ``[glo[i], ghi[i])``, the ranks starting with its first ``d0``
    tokens (0 and the whole shard, or 1 and its first token's interval) (:func:`_count_group`,
    :data:`BATCH` at a time, in ``nt`` threads)."""
    k = starts.shape[0]
    nb = (k + BATCH - 1) // BATCH
    for th in prange(nt):
        st = np.empty((6, BATCH), dtype=np.int64)
        for b in range(th, nb, nt):
            g0 = b * BATCH
            g1 = min(k, g0 + BATCH)
            _count_group(
                ds, sa, p, w, fault, qk, starts, ends, glo, ghi, d0, g0, g1, out_first, out_cnt,
                st,
            )  # fmt: skip


@njit(cache=True)
def count_serial(ds, sa, p, w, fault, qk, starts, ends, glo, ghi, d0, out_first, out_cnt):
    """:func:`count_batch` in the calling thread (a few n-grams)."""
    st = np.empty((6, BATCH), dtype=np.int64)
    k = starts.shape[0]
    for g0 in range(0, k, BATCH):
        g1 = min(k, g0 + BATCH)
        _count_group(
            ds, sa, p, w, fault, qk, starts, ends, glo, ghi, d0, g0, g1, out_first, out_cnt, st
        )  # fmt: skip


@njit(cache=True)
def positions(sa, p, w, n, ranks, fault):
    """Token position of the suffix of every rank of ``ranks`` (:func:`_position`)."""
    out = np.empty(ranks.shape[0], dtype=np.int64)
    for i in range(ranks.shape[0]):
        out[i] = _position(sa, p, w, n, ranks[i], fault)
    return out


@njit(cache=True)
def order_problem(ds, sa, p, w, ranks, depth, fault):
    """The first rank ``r`` of ``ranks`` whose suffix sorts after the suffix of rank ``r + 1``
    (compared over at most ``depth`` tokens), or -1: a sample of the table's order."""
    n = ds.shape[0]
    for j in range(ranks.shape[0]):
        r = ranks[j]
        a = _position(sa, p, w, n, r, fault)
        b = _position(sa, p, w, n, r + 1, fault)
        for h in range(depth):
            if a + h >= n:
                break  # a ended first: a < b
            if b + h >= n:
                return r
            ka = _key(ds[a + h], w)
            kb = _key(ds[b + h], w)
            if ka != kb:
                if ka > kb:
                    return r
                break
    return -1
