"""Compiled kernel of the template-rate permutation test (numba).

:class:`copyscope.syntax.templates.TemplateRates` numbers a fixed list of texts' POS n-grams,
word spans and word n-grams once; :func:`subset_rates` then gives the template rate of many
subsets of those texts in one call, each subset's templates recomputed from its own texts (in
one compiled loop per subset; tested bit for bit against the earlier numpy steps, and against
:func:`~copyscope.syntax.templates.template_summary`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def subset_rates(
    masks, pair_t, pair_g, pair_count, trip_t, trip_g, trip_w, pos_t, pos_w,
    n_pos, n_spans, top_k,
):  # fmt: skip
    """The template rate of every row of ``masks`` (bool, subsets × texts); the arrays are a
    :class:`~copyscope.syntax.templates.TemplateRates`' (pairs sorted by n-gram, then first
    occurrence). Per subset: each POS n-gram's count in the subset's texts; its ``top_k``
    n-grams by count, ties by first occurrence in the subset; the word spans of their
    occurrences in the subset; the share of the subset's texts whose word n-grams hold one of
    them (0 for an empty subset)."""
    n_masks, n_texts = masks.shape
    out = np.zeros(n_masks)
    scale = len(trip_t) + 1
    count = np.zeros(max(n_pos, 1), np.int64)
    lead_g = np.empty(max(n_pos, 1), np.int64)
    is_top = np.zeros(max(n_pos, 1), np.bool_)
    spans = np.zeros(max(n_spans, 1), np.bool_)
    has = np.zeros(max(n_texts, 1), np.bool_)
    hist = np.zeros(scale + 1, np.int64)  # subsets' n-grams by count (a count is at most T)
    for b in range(n_masks):
        mask = masks[b]
        size = 0
        for t in range(n_texts):
            if mask[t]:
                size += 1
        if size == 0 or n_pos == 0:
            continue
        distinct = 0
        prev = -1
        for j in range(len(pair_t)):
            if mask[pair_t[j]]:
                g = pair_g[j]
                if g != prev:
                    lead_g[distinct] = g
                    distinct += 1
                    prev = g
                count[g] += pair_count[j]
        if distinct == 0:
            continue
        # the k-th largest count c: every n-gram counted more is a template, and of those
        # counted exactly c, the first ones to occur in the subset (its trips in order)
        k = min(top_k, distinct)
        c = 0
        for i in range(distinct):
            hist[count[lead_g[i]]] += 1
            c = max(c, count[lead_g[i]])
        above = 0
        while above + hist[c] < k:
            above += hist[c]
            c -= 1
        for i in range(distinct):
            g = lead_g[i]
            hist[count[g]] = 0
            if count[g] > c:
                is_top[g] = True
        wanted = k - above
        for j in range(len(trip_t)):
            if wanted == 0:
                break
            g = trip_g[j]
            if mask[trip_t[j]] and count[g] == c and not is_top[g]:
                is_top[g] = True
                wanted -= 1
        for j in range(len(trip_t)):
            if mask[trip_t[j]] and is_top[trip_g[j]]:
                spans[trip_w[j]] = True
        hits = 0
        for j in range(len(pos_t)):
            t = pos_t[j]
            if mask[t] and not has[t] and spans[pos_w[j]]:
                has[t] = True
                hits += 1
        out[b] = hits / size
        # reset the work arrays where this subset set them
        for i in range(distinct):
            count[lead_g[i]] = 0
            is_top[lead_g[i]] = False
        for j in range(len(trip_t)):
            spans[trip_w[j]] = False
        for j in range(len(pos_t)):
            has[pos_t[j]] = False
    return out
