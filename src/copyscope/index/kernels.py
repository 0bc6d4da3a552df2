"""Compiled kernels of the suffix-array index (numba).

The index sorts the suffixes of the *reversed* token stream.  A suffix of the reversed
stream that starts at reversed position ``r`` reads ``tokens[N-1-r], tokens[N-2-r], ...``,
i.e. it walks the original stream backwards from original position ``N-1-r``.  So the set of
corpus n-grams that *end* with a given token is one contiguous interval of the suffix array,
and the longest suffix of a query prefix ``x_1..x_t`` that occurs in the corpus is the longest
prefix of ``x_t, x_{t-1}, ..., x_1`` among the reversed suffixes: one binary search per query
position.  Positions are visited left to right as matching statistics (``L_{t+1} <= L_t + 1``:
a match with few occurrences is extended by checking the token after each of them, and a search
reads at most ``L_t + 1`` pattern tokens); queries are cut into segments processed in parallel.
Every search starts in a sampled layer of the suffix array (the next tokens of every 16th
suffix, one 64-bit key each), small enough to stay in cache.

The LCP array (longest common prefix of neighbouring suffixes) is stored as one byte per
entry, capped at 255.  Block minima of the capped LCP (blocks of 64, 64², 64³, computed when
the index is opened) let the occurrence interval of a match be widened in a few cache lines
even when it holds millions of occurrences.  For matches of 255 tokens or more the capped LCP
cannot decide, and the interval bounds are found exactly by binary search with direct
comparisons of the text (the exact fallback).

Text with short matches (new text: most positions need a search, and matching statistics saves
little) is answered by *batched* searches instead: a window of positions where matching
statistics searched at more than 3/4 of the positions hands the rest of its segment to
:func:`batched_matches_kernel`, which searches 32 positions at a time in lockstep, issuing the
memory loads of all 32 before using any of them (group prefetching, Chen et al. 2004), so the
cache misses of independent searches overlap instead of queueing.  Batched searches read at most
``cap`` pattern tokens; runs of positions whose match reaches the cap are answered again by
matching statistics.

A damaged index must never make a kernel read outside an array: every suffix-array entry is
checked where it is read (:func:`_position`: a position in ``[0, n)``, else the rank is recorded
in the shard's ``fault`` array, the last entry of its kernel arguments, and position 0 used in
its place), and token values of the stream are used as an index only by :func:`dense_buckets`,
which checks them.  The caller raises the error after the kernel returns
(``copyscope.index.core.Shard``).  Nothing else read from the files indexes an array: the LCP
values only move through blocks whose minima are derived from them, and an occurrence interval
they widen past its token's bucket is recorded as damage too (:func:`_within`).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

LCP_CAP = 255
SAMPLE_SHIFT = 4  # the sampled keys hold every 16th suffix-array rank
BLOCK_SHIFT = 6  # 64 entries per block at each level
N_LEVELS = 3
BATCH = 32  # positions searched in lockstep by batched_search


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the CPU to start loading ``arr[idx]`` into the cache (``llvm.prefetch``: read, keep)."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def _position(sa, r, n, fault):
    """``sa[r]``, the reversed-stream position of the suffix of rank ``r``, when it lies in
    ``[0, n)``; else 0, with ``fault = (1, r)`` recorded (a damaged suffix array)."""
    p = np.int64(sa[r])
    if p < 0 or p >= n:
        fault[0] = 1
        fault[1] = r
        return np.int64(0)
    return p


@njit(cache=True, nogil=True)
def _within(first, last, lo, hi, k, fault):
    """``(first, last)``, the interval an LCP scan widened around rank ``k``, clipped to the
    bucket ``[lo, hi)`` of the pattern's first token; an interval leaving it means damaged LCP
    values (a bucket starts with 0), recorded as ``fault = (2, k)``."""
    if first < lo or last >= hi:
        fault[0] = 2
        fault[1] = k
        return (first if first >= lo else lo), (last if last < hi else hi - 1)
    return first, last


@njit(cache=True, nogil=True)
def _has_prefix(tokens, sa, n, q, t, r, L, fault):
    """Whether the reversed suffix of rank ``r`` starts with q[t], q[t-1], ..., q[t-L+1]."""
    p = _position(sa, r, n, fault)
    if p + L > n:
        return False
    base = n - 1 - p
    for h in range(L):
        if tokens[base - h] != q[t - h]:
            return False
    return True


@njit(cache=True, nogil=True)
def _right_block(lcp, m1, m2, m3, k, L):
    """First stage of :func:`_widen_right` for L < LCP_CAP (the batched searches prefetch
    between the stages): scan the LCP from ``k + 1`` to the
    end of its block of 64, then skip whole blocks by their minima.  Returns ``(j, done)``:
    the last rank of the interval (done), or the start of the block of 64 holding it."""
    n = lcp.shape[0]
    j = k + 1
    while j < n and (j & 63) != 0:
        if lcp[j] < L:
            return j - 1, True
        j += 1
    while j < n:
        if (j & 262143) == 0 and m3[j >> 18] >= L:
            j += 262144
        elif (j & 4095) == 0 and m2[j >> 12] >= L:
            j += 4096
        elif m1[j >> 6] >= L:
            j += 64
        else:
            return j, False
    return n - 1, True


@njit(cache=True, nogil=True)
def _left_block(lcp, m1, m2, m3, k, L):
    """First stage of :func:`_widen_left` for L < LCP_CAP (the mirror of :func:`_right_block`):
    ``(first rank, True)`` or ``(end of the block of 64 holding it, False)``."""
    j = k
    while j > 0 and (j & 63) != 63:
        if lcp[j] < L:
            return j, True
        j -= 1
    while j > 0:
        if (j & 262143) == 262143 and m3[j >> 18] >= L:
            j -= 262144
        elif (j & 4095) == 4095 and m2[j >> 12] >= L:
            j -= 4096
        elif m1[j >> 6] >= L:
            j -= 64
        else:
            return j, False
    return 0, True


@njit(cache=True, nogil=True)
def _scan_right(lcp, j, L):
    """Second stage of :func:`_widen_right`: the last rank of the interval, scanning the block
    of 64 that starts at ``j`` and holds it."""
    while lcp[j] >= L:
        j += 1
    return j - 1


@njit(cache=True, nogil=True)
def _scan_left(lcp, j, L):
    """Second stage of :func:`_widen_left`: the first rank of the interval, scanning down the
    block of 64 that ends at ``j`` and holds it."""
    while lcp[j] >= L:
        j -= 1
    return j


@njit(cache=True, nogil=True)
def _widen_right(tokens, sa, lcp, m1, m2, m3, q, t, k, L, hi, fault):
    """Last rank j >= k of the interval of suffixes sharing the first L pattern tokens."""
    n = tokens.shape[0]
    if L >= LCP_CAP:
        # capped LCP cannot tell: binary search with direct comparisons (long matches only)
        a = k
        z = hi - 1
        while a < z:
            mid = (a + z + 1) >> 1
            if _has_prefix(tokens, sa, n, q, t, mid, L, fault):
                a = mid
            else:
                z = mid - 1
        return a
    j, done = _right_block(lcp, m1, m2, m3, k, L)
    return j if done else _scan_right(lcp, j, L)


@njit(cache=True, nogil=True)
def _widen_left(tokens, sa, lcp, m1, m2, m3, q, t, k, L, lo, fault):
    """First rank i <= k of the interval of suffixes sharing the first L pattern tokens."""
    if L >= LCP_CAP:
        n = tokens.shape[0]
        a = lo
        z = k
        while a < z:
            mid = (a + z) >> 1
            if _has_prefix(tokens, sa, n, q, t, mid, L, fault):
                z = mid
            else:
                a = mid + 1
        return a
    j, done = _left_block(lcp, m1, m2, m3, k, L)
    return j if done else _scan_left(lcp, j, L)


@njit(cache=True, nogil=True)
def _key_lcp(ks, kp, m, bits, per):
    """lcp of the pattern (key ``kp``, length ``m``) with a suffix (key ``ks``) of its bucket,
    when the keys differ or the pattern ends within the key."""
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    h = 1
    for i in range(per):
        shift = np.uint64(bits * (per - 1 - i))
        if (ks >> shift) & mask != (kp >> shift) & mask:
            break
        h += 1
    return h if h < m else m


@njit(cache=True, nogil=True)
def _sampled_range(keys, bits, q, t, m, lo, hi):
    """Narrow the bucket ``[lo, hi)`` with the sampled keys (see :func:`sample_keys`).

    Returns ``(a, z, llo, lhi)`` for the binary search: every suffix ranked below ``a`` is
    smaller than the pattern, every suffix from ``z`` on is at least the pattern (or has it
    as a prefix), and ``llo``/``lhi`` are the pattern's lcp with the suffixes at ``a - 1`` and
    ``z`` (1, never exceeding the truth, at a bucket end).
    """
    shift = SAMPLE_SHIFT
    per = 64 // bits
    kp = np.uint64(0)
    for h in range(1, per + 1):
        kp = kp << np.uint64(bits)
        if h < m:
            kp |= np.uint64(q[t - h] + 1)
    period = 1 << shift
    jlo = (lo + period - 1) >> shift
    jhi = (hi + period - 1) >> shift
    # A: first sample with key >= kp
    x = jlo
    y = jhi
    while x < y:
        mid = (x + y) >> 1
        if keys[mid] < kp:
            x = mid + 1
        else:
            y = mid
    A = x
    B = A
    if m > per + 1 and A < jhi and keys[A] == kp:
        # equal keys do not decide: B = first sample with key > kp (else B = A)
        y = jhi
        while x < y:
            mid = (x + y) >> 1
            if keys[mid] <= kp:
                x = mid + 1
            else:
                y = mid
        B = x
    if A > jlo:
        a = ((A - 1) << shift) + 1
        llo = _key_lcp(keys[A - 1], kp, m, bits, per)
    else:
        a = lo
        llo = 1
    if B < jhi:
        z = B << shift
        lhi = _key_lcp(keys[B], kp, m, bits, per)
    else:
        z = hi
        lhi = 1
    return a, z, llo, lhi


@njit(cache=True, nogil=True)
def _compare(tokens, sa, q, t, m, mid, h, fault):
    """One step of the binary search for the pattern ``q[t], q[t-1], ..., q[t-m+1]``: its lcp
    with the reversed suffix of rank ``mid`` (the first ``h`` tokens known to agree), and
    whether that suffix sorts below the pattern (a suffix with the whole pattern as prefix
    does not)."""
    n = tokens.shape[0]
    r = _position(sa, mid, n, fault)
    lim = n - r
    if lim > m:
        lim = m
    base = n - 1 - r
    while h < lim and q[t - h] == tokens[base - h]:
        h += 1
    below = h < m and (h == n - r or tokens[base - h] < q[t - h])
    return h, below


@njit(cache=True, nogil=True)
def match_one(tokens, sa, lcp, m1, m2, m3, bucket, keys, kbits, fault, q, qs, t):
    """Longest suffix of ``q[qs..t]`` that occurs in the corpus, and its occurrence interval.

    Returns ``(L, first, last)``: the length of the match and the inclusive suffix-array
    interval of its occurrences (``last - first + 1`` = count).  ``L == 0`` when ``q[t]``
    never occurs.
    """
    return match_capped(tokens, sa, lcp, m1, m2, m3, bucket, keys, kbits, fault, q, t, t - qs + 1)


@njit(cache=True, nogil=True)
def match_capped(tokens, sa, lcp, m1, m2, m3, bucket, keys, kbits, fault, q, t, m):
    """:func:`match_one` for the pattern ``q[t], q[t-1], ..., q[t-m+1]`` (its first ``m`` tokens).

    When the longest match is known to be at most ``m`` tokens, the answer equals that of the
    whole pattern, and no comparison reads beyond ``m`` tokens.
    """
    v = q[t]
    if v + 1 >= bucket.shape[0]:
        return 0, 0, -1
    lo = bucket[v]
    hi = bucket[v + 1]
    if lo == hi:
        return 0, 0, -1
    a, z, llo, lhi = _sampled_range(keys, kbits, q, t, m, lo, hi)
    while a < z:
        mid = (a + z) >> 1
        h, below = _compare(tokens, sa, q, t, m, mid, llo if llo < lhi else lhi, fault)
        if below:
            a = mid + 1
            llo = h
        else:
            z = mid
            lhi = h
    # a == z is the insertion point; the longest match is with one of its neighbours
    # (a bound that never moved holds the virtual value 1, which never exceeds the real one)
    if llo >= lhi and a > lo:
        L = llo
        k = a - 1
    else:
        L = lhi if lhi > llo else llo
        k = a
    if L == 1:  # the occurrences of one token: its whole bucket
        return 1, lo, hi - 1
    first = _widen_left(tokens, sa, lcp, m1, m2, m3, q, t, k, L, lo, fault)
    last = _widen_right(tokens, sa, lcp, m1, m2, m3, q, t, k, L, hi, fault)
    first, last = _within(first, last, lo, hi, k, fault)
    return L, first, last


@njit(cache=True, nogil=True)
def matching_statistics(
    tokens, sa, lcp, m1, m2, m3, bucket, keys, kbits, fault, q, qs, s, e, occ, probe, out_len,
    out_cnt,
):  # fmt: skip
    """L_t and C_t for the positions ``s <= t < e`` of one query starting at ``qs``, in order.

    Matching statistics (Chang & Lawler 1994): ``L_{t+1} <= L_t + 1``.  While the match at
    ``t`` has at most ``occ.shape[0]`` occurrences, their corpus positions are kept; the match
    at ``t+1`` is then ``L_t + 1`` with count = the number of them followed by ``q[t+1]`` if
    any is, with no search.  Otherwise the search for ``t+1`` reads at most ``L_t + 1``
    pattern tokens (``L_t`` when the kept occurrences all fail to extend).

    With ``probe > 0``, after every ``probe`` positions of which more than 3/4 needed a search,
    the remaining positions are left for :func:`batched_matches_kernel`.  Returns the first
    position not answered (``e`` when all were).
    """
    n = tokens.shape[0]
    K = occ.shape[0]
    L = 0
    k = 0  # number of kept occurrences (0: none kept)
    searches = 0
    for t in range(s, e):
        if probe > 0 and t > s and (t - s) % probe == 0:
            if 4 * searches > 3 * probe:
                return t
            searches = 0
        if t > s:
            if k > 0:
                v = q[t]
                j = 0
                for i in range(k):
                    p = occ[i] + 1
                    if p < n and tokens[p] == v:
                        occ[j] = p
                        j += 1
                if j > 0:
                    L += 1
                    k = j
                    out_len[t] = L
                    out_cnt[t] = j
                    continue
                m = L  # no occurrence extends: L_{t+1} <= L_t
            else:
                m = L + 1
            if m > t - qs + 1:
                m = t - qs + 1
            if m < 1:
                m = 1
        else:
            m = t - qs + 1
        searches += 1
        L, first, last = match_capped(
            tokens, sa, lcp, m1, m2, m3, bucket, keys, kbits, fault, q, t, m
        )
        if L == 0:
            out_len[t] = 0
            out_cnt[t] = 0
            k = 0
            continue
        c = last - first + 1
        out_len[t] = L
        out_cnt[t] = c
        if c <= K:
            for i in range(c):
                occ[i] = n - 1 - _position(sa, first + i, n, fault)
            k = c
        else:
            k = 0
    return e


@njit(cache=True, parallel=True)
def longest_matches_kernel(
    shard, q, seg_start, seg_end, seg_qs, keep, probe, stop, out_len, out_cnt
):
    """For every query position t: ``out_len[t] = L_t`` and ``out_cnt[t] = C_t`` (0 if L_t = 0).

    ``shard`` is the shard's arrays as one tuple, ``(tokens, sa, lcp, m1, m2, m3, bucket, keys,
    kbits, fault)`` (``Shard.kernel_args``), passed on unpacked.  The positions come in segments
    ``seg_start[i] <= t < seg_end[i]`` of the query that starts at ``seg_qs[i]`` (see
    :func:`query_segments`); segments run in parallel, each one left to right by
    :func:`matching_statistics`, keeping up to ``keep`` occurrences.  ``stop[i]`` is the first
    position of segment i left unanswered (see ``probe`` there).
    """
    for i in prange(seg_start.shape[0]):
        occ = np.empty(keep, dtype=np.int64)
        stop[i] = matching_statistics(
            *shard, q, seg_qs[i], seg_start[i], seg_end[i], occ, probe, out_len, out_cnt
        )


@njit(cache=True)
def pending_positions(stop, seg_end, seg_qs):
    """The positions ``stop[i] <= t < seg_end[i]`` of every segment, with their query's start."""
    total = 0
    for i in range(stop.shape[0]):
        total += seg_end[i] - stop[i]
    pos = np.empty(total, dtype=np.int64)
    pqs = np.empty(total, dtype=np.int64)
    j = 0
    for i in range(stop.shape[0]):
        for t in range(stop[i], seg_end[i]):
            pos[j] = t
            pqs[j] = seg_qs[i]
            j += 1
    return pos, pqs


@njit(cache=True)
def capped_runs(pos, pqs, out_len, cap):
    """Maximal runs of consecutive positions (same query) whose batched match reached ``cap``
    tokens, as segments ``(start, end, query_start)`` for :func:`longest_matches_kernel`."""
    nrun = 0
    for i in range(pos.shape[0]):
        t = pos[i]
        if out_len[t] >= cap and (i == 0 or pos[i - 1] != t - 1 or out_len[t - 1] < cap):
            nrun += 1
    start = np.empty(nrun, dtype=np.int64)
    end = np.empty(nrun, dtype=np.int64)
    qs = np.empty(nrun, dtype=np.int64)
    r = -1
    for i in range(pos.shape[0]):
        t = pos[i]
        if out_len[t] < cap:
            continue
        if i == 0 or pos[i - 1] != t - 1 or out_len[t - 1] < cap:
            r += 1
            start[r] = t
            qs[r] = pqs[i]
        end[r] = t + 1
    return start, end, qs


@njit(cache=True, nogil=True)
def _lockstep_keys(keys, kp_, x_, y_, G, past_equal):
    """Binary searches of the sampled keys for lanes 0..G-1 in lockstep, each step's keys
    prefetched for every lane first: ``x_[g]`` ends at the first index in ``[x_[g], y_[g])``
    whose key is >= ``kp_[g]`` (> with ``past_equal``); keys ``kp_`` are stored as int64."""
    active = True
    while active:
        active = False
        for g in range(G):
            if x_[g] < y_[g]:
                prefetch(keys, (x_[g] + y_[g]) >> 1)
        for g in range(G):
            if x_[g] < y_[g]:
                mid = (x_[g] + y_[g]) >> 1
                k = keys[mid]
                kp = np.uint64(kp_[g])
                if k < kp or (past_equal and k == kp):
                    x_[g] = mid + 1
                else:
                    y_[g] = mid
                active = True


@njit(cache=True, nogil=True)
def batched_search(
    tokens, sa, lcp, m1, m2, m3, bucket, keys, bits, fault, q, pos, pqs, cap, g0, g1, out_len,
    out_cnt, out_first, w,
):  # fmt: skip
    """:func:`match_capped` for the positions ``pos[g0:g1]`` (at most :data:`BATCH`), in lockstep.

    Each step of the binary searches first computes every position's next address and
    prefetches it, then reads them all (group prefetching), so the positions' cache misses
    overlap.  Pattern of position ``t``: its first ``min(cap, t - query start + 1)`` tokens.
    ``out_first[t]`` (unless ``out_first`` is empty) is the first rank of the interval (when
    ``out_len[t] > 0``).  With ``out_first`` (the n-gram counts), a match shorter than the
    pattern is not widened: ``out_cnt[t]`` is then 0, as the pattern does not occur.
    ``w`` is scratch space (10 rows of BATCH int64).
    """
    keep_first = out_first.shape[0] > 0
    n = tokens.shape[0]
    per = 64 // bits
    shift = SAMPLE_SHIFT
    period = 1 << shift
    G = g1 - g0
    lo_, hi_, x_, y_, a_, z_, llo_, lhi_, m_, kp_ = w  # rows of the scratch space
    for g in range(G):
        t = pos[g0 + g]
        m = t - pqs[g0 + g] + 1
        m_[g] = m if m < cap else cap
        v = q[t]
        if v + 1 >= bucket.shape[0]:
            lo_[g] = 0
            hi_[g] = 0
        else:
            lo_[g] = bucket[v]
            hi_[g] = bucket[v + 1]
        kp = np.uint64(0)
        for h in range(1, per + 1):
            kp = kp << np.uint64(bits)
            if h < m_[g]:
                kp |= np.uint64(q[t - h] + 1)
        kp_[g] = np.int64(kp)  # stored bit for bit; compared as uint64 below
        x_[g] = (lo_[g] + period - 1) >> shift
        y_[g] = (hi_[g] + period - 1) >> shift
    # the sampled keys: A = first sample with key >= kp ...
    _lockstep_keys(keys, kp_, x_, y_, G, False)
    # ... and B = first sample with key > kp where equal keys do not decide (m > per + 1)
    for g in range(G):
        a_[g] = x_[g]
        jhi = (hi_[g] + period - 1) >> shift
        A = x_[g]
        y_[g] = jhi if m_[g] > per + 1 and A < jhi and keys[A] == np.uint64(kp_[g]) else A
    _lockstep_keys(keys, kp_, x_, y_, G, True)
    for g in range(G):  # the window [a, z) of ranks, as in _sampled_range
        lo = lo_[g]
        hi = hi_[g]
        jlo = (lo + period - 1) >> shift
        jhi = (hi + period - 1) >> shift
        A = a_[g]
        B = x_[g]
        kp = np.uint64(kp_[g])
        if A > jlo:
            a_[g] = ((A - 1) << shift) + 1
            llo_[g] = _key_lcp(keys[A - 1], kp, m_[g], bits, per)
        else:
            a_[g] = lo
            llo_[g] = 1
        if B < jhi:
            z_[g] = B << shift
            lhi_[g] = _key_lcp(keys[B], kp, m_[g], bits, per)
        else:
            z_[g] = hi
            lhi_[g] = 1
    # binary search in the window: prefetch the suffix-array entries, then the text
    active = True
    while active:
        active = False
        for g in range(G):
            if a_[g] < z_[g]:
                prefetch(sa, (a_[g] + z_[g]) >> 1)
        for g in range(G):
            if a_[g] < z_[g]:
                h = llo_[g] if llo_[g] < lhi_[g] else lhi_[g]
                b = n - 1 - _position(sa, (a_[g] + z_[g]) >> 1, n, fault) - h
                if b >= 0:
                    prefetch(tokens, b)
        for g in range(G):
            a = a_[g]
            z = z_[g]
            if a < z:
                active = True
                t = pos[g0 + g]
                m = m_[g]
                mid = (a + z) >> 1
                h = llo_[g] if llo_[g] < lhi_[g] else lhi_[g]
                h, below = _compare(tokens, sa, q, t, m, mid, h, fault)
                if below:
                    a_[g] = mid + 1
                    llo_[g] = h
                else:
                    z_[g] = mid
                    lhi_[g] = h
    # the match and one rank k of it (as in match_capped); prefetch the LCP around k
    for g in range(G):
        t = pos[g0 + g]
        x_[g] = -1
        if lo_[g] == hi_[g]:
            out_len[t] = 0
            out_cnt[t] = 0
            continue
        a = a_[g]
        llo = llo_[g]
        lhi = lhi_[g]
        if llo >= lhi and a > lo_[g]:
            L = llo
            k = a - 1
        else:
            L = lhi if lhi > llo else llo
            k = a
        out_len[t] = L
        if keep_first and L < m_[g]:
            out_cnt[t] = 0  # an n-gram that does not occur: no interval to widen
        elif L == 1:
            out_cnt[t] = hi_[g] - lo_[g]
            if keep_first:
                out_first[t] = lo_[g]
        else:
            x_[g] = k
            prefetch(lcp, k)
            prefetch(m1, k >> BLOCK_SHIFT)
    # the interval: blocks of 64 holding its ends (prefetched), then the ends themselves
    for g in range(G):
        k = x_[g]
        if k < 0:
            continue
        t = pos[g0 + g]
        L = out_len[t]
        if L >= LCP_CAP:
            first = _widen_left(tokens, sa, lcp, m1, m2, m3, q, t, k, L, lo_[g], fault)
            last = _widen_right(tokens, sa, lcp, m1, m2, m3, q, t, k, L, hi_[g], fault)
            out_cnt[t] = last - first + 1
            if keep_first:
                out_first[t] = first
            x_[g] = -1
            continue
        j, done = _left_block(lcp, m1, m2, m3, k, L)
        a_[g] = j if done else -1 - j
        if not done:
            prefetch(lcp, j - 63)
        j, done = _right_block(lcp, m1, m2, m3, k, L)
        z_[g] = j if done else -1 - j
        if not done:
            prefetch(lcp, j)
    for g in range(G):
        if x_[g] < 0:
            continue
        t = pos[g0 + g]
        L = out_len[t]
        first = a_[g] if a_[g] >= 0 else _scan_left(lcp, -1 - a_[g], L)
        last = z_[g] if z_[g] >= 0 else _scan_right(lcp, -1 - z_[g], L)
        first, last = _within(first, last, lo_[g], hi_[g], x_[g], fault)
        out_cnt[t] = last - first + 1
        if keep_first:
            out_first[t] = first


@njit(cache=True, parallel=True)
def batched_matches_kernel(shard, q, pos, pqs, cap, nt, out_len, out_cnt, out_first):
    """``out_len[t]``/``out_cnt[t]`` (and ``out_first[t]``, the interval's first rank, unless
    ``out_first`` is empty) for the positions ``pos`` (query starts ``pqs``), each one
    searched on its own by :func:`batched_search` with at most ``cap`` pattern tokens (a match
    of ``cap`` tokens may be longer, see :func:`capped_runs`), in ``nt`` threads; ``shard`` as
    in :func:`longest_matches_kernel`.

    N-gram counts are this kernel too: n-gram i laid out as a query ``flat[s_i:e_i]``,
    searched at its last position ``e_i - 1`` with ``cap`` at least its length, reads the whole
    n-gram backwards; it occurs iff ``out_len = e_i - s_i``, ``out_cnt`` times."""
    nb = (pos.shape[0] + BATCH - 1) // BATCH
    for th in prange(nt):  # batches dealt out in turn, so the threads get similar text
        w = np.empty((10, BATCH), dtype=np.int64)
        for b in range(th, nb, nt):
            g0 = b * BATCH
            g1 = min(pos.shape[0], g0 + BATCH)
            batched_search(*shard, q, pos, pqs, cap, g0, g1, out_len, out_cnt, out_first, w)


@njit(cache=True)
def batched_matches_serial(shard, q, pos, pqs, cap, out_len, out_cnt, out_first):
    """:func:`batched_matches_kernel` in the calling thread (for a few positions: waking the
    thread pool would cost more than the searches)."""
    w = np.empty((10, BATCH), dtype=np.int64)
    for g0 in range(0, pos.shape[0], BATCH):
        g1 = min(pos.shape[0], g0 + BATCH)
        batched_search(*shard, q, pos, pqs, cap, g0, g1, out_len, out_cnt, out_first, w)


@njit(cache=True)
def query_segments(offsets, size):
    """Split every query ``offsets[i] .. offsets[i+1]`` into pieces of at most ``size`` tokens.

    Returns ``(start, end, query_start)`` per piece; empty queries give no piece.
    """
    nseg = 0
    for i in range(offsets.shape[0] - 1):
        nseg += (offsets[i + 1] - offsets[i] + size - 1) // size
    start = np.empty(nseg, dtype=np.int64)
    end = np.empty(nseg, dtype=np.int64)
    qs = np.empty(nseg, dtype=np.int64)
    j = 0
    for i in range(offsets.shape[0] - 1):
        a = offsets[i]
        while a < offsets[i + 1]:
            b = min(a + size, offsets[i + 1])
            start[j] = a
            end[j] = b
            qs[j] = offsets[i]
            j += 1
            a = b
    return start, end, qs


@njit(cache=True, parallel=True)
def sample_keys(tokens, sa, bits, fault):
    """Key of every ``2**SAMPLE_SHIFT``-th suffix-array rank, for :func:`_sampled_range`.

    A sampled top layer of the suffix array (small enough to stay in cache): the key packs
    tokens 2 .. 1 + 64 // bits of the reversed suffix (the first is fixed by its bucket), each
    as ``value + 1`` in ``bits`` bits, 0 past the start of the stream, so keys compare like
    the suffixes' next tokens. A suffix-array entry outside the stream is recorded in
    ``fault`` (see :func:`_position`).
    """
    n = tokens.shape[0]
    per = 64 // bits
    ns = (n + (1 << SAMPLE_SHIFT) - 1) >> SAMPLE_SHIFT
    out = np.empty(ns, dtype=np.uint64)
    for j in prange(ns):
        base = n - 1 - _position(sa, j << SAMPLE_SHIFT, n, fault)
        key = np.uint64(0)
        for h in range(1, per + 1):
            key = key << np.uint64(bits)
            if h <= base:
                key |= np.uint64(tokens[base - h]) + np.uint64(1)
        out[j] = key
    return out


@njit(cache=True, parallel=True)
def block_minima(values, shift):
    """Minimum of each block of ``2**shift`` consecutive entries (last block may be short)."""
    size = 1 << shift
    nb = (values.shape[0] + size - 1) >> shift
    out = np.empty(nb, dtype=values.dtype)
    for b in prange(nb):
        s = b << shift
        e = min(s + size, values.shape[0])
        mn = values[s]
        for i in range(s + 1, e):
            if values[i] < mn:
                mn = values[i]
        out[b] = mn
    return out


@njit(cache=True)
def dense_buckets(tokens, sep, size):
    """``(start, bad)``: start[v] .. start[v+1] are the suffix-array ranks of the reversed
    suffixes starting with v, and ``bad`` the first position whose token is neither the
    separator nor below ``size`` (the alphabet size the shard records; -1 when there is none,
    else ``start`` is incomplete).

    Requires ``sep`` to be the largest token value, so separator suffixes sort last.
    """
    counts = np.zeros(size + 1, dtype=np.int64)
    for i in range(tokens.shape[0]):
        v = np.int64(tokens[i])
        if v != sep:
            if v >= size:
                return counts, i
            counts[v + 1] += 1
    for v in range(size):
        counts[v + 1] += counts[v]
    return counts, -1
