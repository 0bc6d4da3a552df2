"""Compiled kernels of the detector bootstraps (numba).

:func:`auc_differences` gives the replicates of
:func:`copyscope.membership.evaluate.paired_auc_difference` in one compiled call: per
replicate the AUC of :func:`~copyscope.membership.evaluate.fast_metrics` of both detectors on
the same resample. Every step is the same floating-point operation as there, in the same
order — the ROC points at the end of each run of equal scores after a stable descending sort,
the trapezoid terms ``Δfpr · (tpr + tpr') / 2``, and their sum in numpy's pairwise order
(:func:`pairwise_sum`, the order of ``np.sum`` on a contiguous float64 array) — so the
replicates are the same numbers bit for bit (tested against the numpy loop).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _block_sum(a, lo, n):
    """numpy's sum of at most 128 items: sequential below 8, else eight interleaved partial
    sums, combined pairwise, then the remainder."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r = np.empty(8)
    for j in range(8):
        r[j] = a[lo + j]
    i = 8
    while i < n - (n % 8):
        for j in range(8):
            r[j] += a[lo + i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def pairwise_sum(a, lo, n):
    """The sum of ``a[lo:lo + n]`` in the order of numpy's pairwise summation (``np.sum`` of
    a contiguous float64 array): :func:`_block_sum` up to 128 items, above that the sum of
    the two halves (the first a multiple of 8 long), each summed the same way. The halving
    runs on an explicit stack (numba's cache does not keep recursive functions safely)."""
    if n <= 128:
        return _block_sum(a, lo, n)
    f_lo = np.empty(64, np.int64)  # 64 levels of halving: far beyond any array
    f_n = np.empty(64, np.int64)
    f_state = np.zeros(64, np.int64)  # 0: not split yet, 1: left half pending, 2: right half
    f_left = np.empty(64)
    f_lo[0], f_n[0], f_state[0] = lo, n, 0
    sp = 1
    ret = 0.0
    returned = False
    while sp > 0:
        i = sp - 1
        half = f_n[i] // 2
        half -= half % 8
        if returned:
            if f_state[i] == 1:  # the left half's sum: now the right half
                f_left[i] = ret
                f_state[i] = 2
                f_lo[sp], f_n[sp], f_state[sp] = f_lo[i] + half, f_n[i] - half, 0
                sp += 1
                returned = False
            else:  # the right half's sum: this segment is done
                ret = f_left[i] + ret
                sp -= 1
        elif f_n[i] <= 128:
            ret = _block_sum(a, f_lo[i], f_n[i])
            sp -= 1
            returned = True
        else:
            f_state[i] = 1
            f_lo[sp], f_n[sp], f_state[sp] = f_lo[i], half, 0
            sp += 1
    return ret


@njit(cache=True, nogil=True)
def auc_differences(a, b, y, members, others, pick_members, pick_others):
    """Per replicate r: ``AUC(a) − AUC(b)`` (:func:`trapezoid_auc`) on the resample of the
    items ``members[pick_members[r]]`` followed by ``others[pick_others[r]]``."""
    n_boot = pick_members.shape[0]
    n1, n0 = members.size, others.size
    out = np.empty(n_boot)
    sa = np.empty(n1 + n0)
    sb = np.empty(n1 + n0)
    sy = np.empty(n1 + n0, np.int64)
    for r in range(n_boot):
        for i in range(n1):
            j = members[pick_members[r, i]]
            sa[i], sb[i], sy[i] = a[j], b[j], y[j]
        for i in range(n0):
            j = others[pick_others[r, i]]
            sa[n1 + i], sb[n1 + i], sy[n1 + i] = a[j], b[j], y[j]
        out[r] = trapezoid_auc(sa, sy) - trapezoid_auc(sb, sy)
    return out


@njit(cache=True, nogil=True)
def roc_metrics(s, y):
    """``fast_metrics(s, y)`` (scores ``s``, labels ``y`` 0/1 with both present): the AUC of
    :func:`trapezoid_auc`, the largest TPR of a ROC point (the origin included) whose FPR is
    ≤ 0.05, and the largest balanced accuracy ``(tpr + 1 − fpr) / 2`` of a ROC point, each
    the same floating-point operations as there."""
    order = np.argsort(-s, kind="mergesort")
    n = s.size
    tp = np.empty(n + 1, np.int64)
    fp = np.empty(n + 1, np.int64)
    tp[0] = 0
    fp[0] = 0
    m = 0
    cum = 0
    for i in range(n):
        cum += y[order[i]]
        if i == n - 1 or s[order[i + 1]] - s[order[i]] != 0:
            m += 1
            tp[m] = cum
            fp[m] = (i + 1) - cum
    terms = np.empty(m)
    prev_tpr = 0.0
    prev_fpr = 0.0
    best_tpr = 0.0  # the origin: fpr 0 <= 0.05
    best_bal = (0.0 + 1 - 0.0) / 2
    for k in range(1, m + 1):
        tpr = tp[k] / tp[m]
        fpr = fp[k] / fp[m]
        terms[k - 1] = (fpr - prev_fpr) * (tpr + prev_tpr) / 2
        if fpr <= 0.05 and tpr > best_tpr:
            best_tpr = tpr
        bal = (tpr + 1 - fpr) / 2
        if bal > best_bal:
            best_bal = bal
        prev_tpr, prev_fpr = tpr, fpr
    return pairwise_sum(terms, 0, m), best_tpr, best_bal


@njit(cache=True, nogil=True)
def trapezoid_auc(s, y):
    """The AUC of ``fast_metrics(s, y)`` (scores ``s``, labels ``y`` 0/1 with both present):
    the ROC points at every distinct score (a score differing from the next one after the
    stable descending sort), the area by the trapezoid rule (tied pairs half credit); the
    first value of :func:`roc_metrics`."""
    return roc_metrics(s, y)[0]


@njit(cache=True, nogil=True)
def metric_replicates(s, y, members, others, pick_members, pick_others):
    """Per replicate r: :func:`roc_metrics` (AUC, TPR at 5% FPR, best balanced accuracy) of
    the resample of the items ``members[pick_members[r]]`` followed by
    ``others[pick_others[r]]``; an array of ``n_boot`` rows and 3 columns."""
    n_boot = pick_members.shape[0]
    n1, n0 = members.size, others.size
    out = np.empty((n_boot, 3))
    ss = np.empty(n1 + n0)
    sy = np.empty(n1 + n0, np.int64)
    for r in range(n_boot):
        for i in range(n1):
            j = members[pick_members[r, i]]
            ss[i], sy[i] = s[j], y[j]
        for i in range(n0):
            j = others[pick_others[r, i]]
            ss[n1 + i], sy[n1 + i] = s[j], y[j]
        out[r, 0], out[r, 1], out[r, 2] = roc_metrics(ss, sy)
    return out
