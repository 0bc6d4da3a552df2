"""Loops: a continuation that ends by repeating one span over and over.

Greedy and beam decoding of a small model often falls into a loop (the same line, the same
few words) and stays in it to the end of the continuation. Such a loop is novel text to the
n-gram measures of Merrill et al. (2024): every n-gram of a loop that is not in training
counts as novel, however often the loop repeats it. The loop share of a sample set says how
much of its text is such a repeat.

**Definition.** A continuation ``x`` (the generated token ids after the prompt, ``ids`` of a
sample record) of ``n`` tokens *ends in a loop* of length ``L`` when some period ``p``,
``1 <= p <= L``, has ``x[t] == x[t - p]`` for every one of its last ``L`` positions ``t``
(``n - L <= t < n``): its last ``L`` tokens are covered by repeats of one span of ``p`` tokens,
the span just before them. Period ``p`` needs ``n >= L + p`` tokens, so a continuation of fewer
than ``L + 1`` tokens cannot loop (nor, with ``p = L``, one of fewer than ``2L``). Its *period*
is the smallest such ``p`` (every multiple of it up to ``L`` holds as well).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["ends_in_loop", "loop_period"]


def loop_period(ids: Sequence[int], length: int) -> int:
    """The smallest period ``p`` (1..``length``) with which the continuation ``ids`` ends in a
    loop of ``length`` tokens (module docstring: ``ids[t] == ids[t - p]`` for each of the last
    ``length`` positions ``t``), or 0 when it does not (always 0 for fewer than ``length + 1``
    tokens). E.g. ``length`` 4: ``a b c c c c c`` → 1; ``a b a b a b`` → 2; ``a b c a b c a``
    → 3; ``a b c d a b c d`` → 4 (p = ``length``); ``a a a a`` → 0 (too short)."""
    if length < 1:
        raise ValueError(f"loop length {length}: expected at least 1")
    x = np.asarray(ids, dtype=np.int64)
    n = len(x)
    tail = x[n - length :]
    for p in range(1, min(length, n - length) + 1):
        if np.array_equal(tail, x[n - length - p : n - p]):
            return p
    return 0


def ends_in_loop(ids: Sequence[int], length: int) -> bool:
    """Whether the continuation ``ids`` ends in a loop of ``length`` tokens
    (:func:`loop_period` is not 0)."""
    return loop_period(ids, length) > 0
