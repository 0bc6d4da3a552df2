"""The Creativity Index of Lu et al. (2024), "AI as Humanity's Salieri: Quantifying Linguistic
Creativity of Language Models via Systematic Attribution of Machine Text against Web Text"
(ICLR 2025), §2, in its exact-match form.

A word of a text is *covered at L* when some span of at least ``L`` consecutive words that
contains it occurs verbatim in the reference corpus. The text's L-uniqueness is the share of
its words not covered at L; its Creativity Index is the sum of its L-uniqueness over
L = ``L_min``..``L_max`` (the area under the uniqueness curve; the authors use 5..12 words).
A text all of whose spans are new scores ``L_max - L_min + 1``; one copied whole scores 0.

The authors find the spans with one corpus count per candidate span (DJ SEARCH, with an
optional semantic match, not built here). copyscope's longest-match lengths give every word at
once: with ``L_e`` the longest suffix of the words up to ``e`` found in the corpus, a span
``[s, e]`` occurs iff ``e - s + 1 <= L_e`` (every substring of a found span is found), so word
``i`` is covered at L iff some ``e >= i`` has ``L_e >= L`` and ``e - L_e + 1 <= i``.
"""

from __future__ import annotations

import numpy as np

LENGTHS = tuple(range(5, 13))
"""The span lengths L of the index: 5..12 words (Lu et al. 2024)."""


def covered(lengths, L: int) -> np.ndarray:
    """Per word of one text, whether a span of at least ``L`` words containing it occurs in
    the corpus, from its longest-match lengths ``lengths`` (``L_e`` per word ``e``; see the
    module docstring): the union of the intervals ``[e - L_e + 1, e]`` over ``L_e >= L``."""
    ends = np.asarray(lengths, dtype=np.int64)
    n = len(ends)
    last = np.flatnonzero(ends >= L)
    diff = np.zeros(n + 1, dtype=np.int64)
    np.add.at(diff, last - ends[last] + 1, 1)
    np.add.at(diff, last + 1, -1)
    return np.cumsum(diff[:n]) > 0


def l_uniqueness(lengths, Ls=LENGTHS) -> np.ndarray:
    """The L-uniqueness of one text for each L of ``Ls``: the share of its words not covered
    at L (:func:`covered`); NaN for a text without words."""
    n = len(lengths)
    if n == 0:
        return np.full(len(Ls), np.nan)
    return np.array([1.0 - covered(lengths, L).sum() / n for L in Ls])


def creativity_index(uniqueness) -> np.ndarray:
    """The Creativity Index of each text: the sum of its L-uniqueness over the lengths (the
    last axis of ``uniqueness``, one row per text from :func:`l_uniqueness`)."""
    return np.sum(np.asarray(uniqueness, dtype=float), axis=-1)
