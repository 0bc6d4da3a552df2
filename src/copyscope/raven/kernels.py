"""Compiled kernels of RAVEN's context source (numba): an online suffix automaton.

For a sequence x_0..x_{n-1} the context length at position i is the length of the longest
suffix of x_0..x_i that occurs (token-aligned) entirely inside x_0..x_{i-1}, i.e. ending at a
position < i.  It falls out of the online suffix-automaton construction (Blumer et al. 1985):
before x_i is appended, the automaton recognises exactly the substrings of x_0..x_{i-1}, and
every suffix of x_0..x_{i-1} lies in a state on the suffix-link path from ``last``.  The first
state ``p`` on that path with an x_i-transition holds the longest suffix s of x_0..x_{i-1}
such that s·x_i is a substring of x_0..x_{i-1}; so the answer is len(p) + 1 (0 when no state,
not even the root, has the transition).  That ``p`` is the state the standard extension step
looks for anyway, so the lengths cost nothing beyond building the automaton: O(n) states and
transitions, amortised O(n) time.

Transitions are stored in one open-addressing hash table (linear probing, load ≤ 1/2) keyed by
``state << 32 | token`` in an int64, so token ids may be anything in [0, 2^32).  Each state
also keeps a singly linked list of its outgoing tokens (needed to copy transitions when a
state is cloned).  A string of length n has at most 2n − 1 states and 3n − 4 transitions
(n ≥ 3), and transitions are never deleted (only redirected), which bounds every array.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

MAX_TOKEN = 2**32  # token ids must lie in [0, MAX_TOKEN)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier


@njit(cache=True, nogil=True, inline="always")
def _slot(keys, key, shift, mask):
    """Slot of ``key`` in the table, or the empty slot (-1) where it would be inserted."""
    s = np.int64((np.uint64(key) * _GOLDEN) >> np.uint64(shift))
    while keys[s] != -1 and keys[s] != key:
        s = (s + 1) & mask
    return s


@njit(cache=True, nogil=True, inline="always")
def _add_transition(keys, vals, head, etok, enext, slot, key, state, token, target, edge):
    """Store the transition ``state --token--> target`` (``key`` = ``state << 32 | token``) in
    the table's empty ``slot`` and push it as edge number ``edge`` onto ``state``'s list of
    outgoing tokens."""
    keys[slot] = key
    vals[slot] = target
    etok[edge] = token
    enext[edge] = head[state]
    head[state] = edge


@njit(cache=True, nogil=True)
def context_lengths_kernel(seq, out):
    """Write into ``out[i]`` the context length of position i of ``seq`` (see module doc)."""
    n = seq.shape[0]
    if n == 0:
        return
    max_states = 2 * n + 2
    max_edges = 3 * n + 4
    bits = 2
    while (1 << bits) < 2 * max_edges:
        bits += 1
    cap = 1 << bits
    mask = cap - 1
    shift = 64 - bits
    keys = np.full(cap, -1, dtype=np.int64)
    vals = np.empty(cap, dtype=np.int64)
    length = np.empty(max_states, dtype=np.int64)
    link = np.empty(max_states, dtype=np.int64)
    head = np.empty(max_states, dtype=np.int64)  # first outgoing edge of each state (-1: none)
    etok = np.empty(max_edges, dtype=np.int64)  # token of each edge
    enext = np.empty(max_edges, dtype=np.int64)  # next edge of the same state

    length[0] = 0
    link[0] = -1
    head[0] = -1
    size = 1
    last = 0
    ne = 0
    for i in range(n):
        c = np.int64(seq[i])
        cur = size
        size += 1
        length[cur] = length[last] + 1
        head[cur] = -1
        p = last
        q = -1
        # walk the suffix links of `last` until a state has a c-transition; the states passed
        # get a new c-transition to `cur`
        while p != -1:
            key = (p << 32) | c
            s = _slot(keys, key, shift, mask)
            if keys[s] == key:
                q = vals[s]
                break
            _add_transition(keys, vals, head, etok, enext, s, key, p, c, cur, ne)
            ne += 1
            p = link[p]
        if p == -1:
            out[i] = 0
            link[cur] = 0
        else:
            out[i] = length[p] + 1
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = size
                size += 1
                length[clone] = length[p] + 1
                link[clone] = link[q]
                head[clone] = -1
                e = head[q]
                while e != -1:
                    t = etok[e]
                    v = vals[_slot(keys, (q << 32) | t, shift, mask)]
                    ck = (np.int64(clone) << 32) | t
                    s = _slot(keys, ck, shift, mask)
                    _add_transition(keys, vals, head, etok, enext, s, ck, clone, t, v, ne)
                    ne += 1
                    e = enext[e]
                while p != -1:
                    key = (p << 32) | c
                    s = _slot(keys, key, shift, mask)
                    if keys[s] != key or vals[s] != q:
                        break
                    vals[s] = clone
                    p = link[p]
                link[q] = clone
                link[cur] = clone
        last = cur


@njit(cache=True, parallel=True)
def context_lengths_flat(flat, offsets, out):
    """:func:`context_lengths_kernel` for every sequence flat[offsets[k]:offsets[k+1]] (parallel
    over sequences; each builds its own automaton)."""
    for k in prange(offsets.shape[0] - 1):
        a = offsets[k]
        b = offsets[k + 1]
        context_lengths_kernel(flat[a:b], out[a:b])
