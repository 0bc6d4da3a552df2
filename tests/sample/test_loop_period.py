"""Loops (copyscope.sample.loops): a continuation ends in a loop when its last L tokens repeat
one span of p <= L tokens; hand-worked tails, and a brute-force reference on random ones."""

from __future__ import annotations

import numpy as np
import pytest

from copyscope.sample.loops import ends_in_loop, loop_period

L = 32


def brute(ids, length):
    """The definition word for word: the smallest p in 1..length with ids[t] == ids[t - p] for
    every t of the last length positions, t - p >= 0; 0 when none."""
    n = len(ids)
    for p in range(1, length + 1):
        ts = range(n - length, n)
        if n - length - p >= 0 and all(ids[t] == ids[t - p] for t in ts):
            return p
    return 0


def test_a_period_one_tail():
    """7 varied tokens, then 33 copies of token 9: the last 32 equal the one before each."""
    ids = [1, 2, 3, 4, 5, 6, 7] + [9] * (L + 1)
    assert loop_period(ids, L) == 1 and ends_in_loop(ids, L)
    # 32 copies are not enough: the first of the last 32 follows a 7
    assert loop_period([1, 2, 3] + [9] * L, L) == 0


def test_a_period_five_tail():
    """A newline-like span of 5 tokens repeated 8 times (40 tokens) after a prompt-like start:
    the last 32 tokens each equal the token 5 before; no shorter period holds."""
    span = [11, 12, 13, 14, 15]
    ids = [1, 2, 3] + span * 8
    assert loop_period(ids, L) == 5
    # the repeats of a period hold too, but the smallest is reported
    assert brute(ids, L) == 5
    # period 10 needs 42 periodic tokens; with 9 repeats (45) it holds as well, 5 still reported
    longer = [1, 2, 3] + span * 9
    assert all(longer[t] == longer[t - 10] for t in range(len(longer) - L, len(longer)))
    assert loop_period(longer, L) == 5


def test_a_tail_broken_at_one_position():
    """The period-5 tail with one token changed among its last 32: no period holds. A change
    among the 5 tokens just before the last 32 (their partners) breaks it too; one further
    back leaves it whole."""
    span = [11, 12, 13, 14, 15]
    ids = [1, 2, 3] + span * 8
    broken = list(ids)
    broken[-10] = 99  # within the last 32
    assert loop_period(broken, L) == 0 and not ends_in_loop(broken, L)
    # a change before the last 32 + 5 tokens leaves the loop whole
    early = list(ids)
    early[len(ids) - L - 5 - 1] = 99
    assert loop_period(early, L) == 5
    # a change among the 5 tokens just before the last 32 breaks period 5 (they are partners)
    partner = list(ids)
    partner[len(ids) - L - 2] = 99
    assert loop_period(partner, L) == 0


def test_period_equal_to_the_loop_length():
    """A span of 32 distinct tokens said twice (64 tokens): period 32 = L, and nothing shorter;
    63 tokens are one short of it."""
    span = list(range(100, 100 + L))
    assert loop_period(span * 2, L) == L
    assert loop_period((span * 2)[1:], L) == 0
    assert loop_period([7] + span * 2, L) == L


def test_too_short_to_loop():
    """At most L tokens cannot loop, however repetitive; L + 1 equal tokens can (period 1)."""
    assert loop_period([], L) == 0
    assert loop_period([5] * L, L) == 0
    assert loop_period([5] * (L + 1), L) == 1
    assert loop_period([5, 6] * (L // 2), L) == 0  # 32 tokens: period 2 needs 34


def test_the_docstring_examples():
    a, b, c, d = 1, 2, 3, 4
    assert loop_period([a, b, c, c, c, c, c], 4) == 1
    assert loop_period([a, b, a, b, a, b], 4) == 2
    assert loop_period([a, b, c, a, b, c, a], 4) == 3
    assert loop_period([a, b, c, d, a, b, c, d], 4) == 4
    assert loop_period([a, a, a, a], 4) == 0
    with pytest.raises(ValueError, match="loop length 0"):
        loop_period([a, a], 0)


def test_matches_the_definition_on_random_tails():
    """Random continuations over a small alphabet, some with a planted periodic tail."""
    rng = np.random.default_rng(0)
    looped = 0
    for _ in range(2000):
        length = int(rng.integers(1, 9))
        n = int(rng.integers(0, 30))
        ids = rng.integers(0, 3, n).tolist()
        if n and rng.random() < 0.5:
            p = int(rng.integers(1, length + 1))
            for t in range(p, n):
                if t >= n - length - int(rng.integers(0, 3)):
                    ids[t] = ids[t - p]
        expected = brute(ids, length)
        looped += expected > 0
        assert loop_period(ids, length) == expected, (ids, length)
    assert 200 < looped < 1800  # both outcomes are exercised
