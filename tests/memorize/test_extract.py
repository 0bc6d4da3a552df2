"""The one extraction implementation (copyscope.memorize.extraction): the measures by hand
under both end-of-text policies, and greedy extraction with a tiny model whose greedy
continuation repeats the prompt's last token."""

from __future__ import annotations

import numpy as np
import pytest

from copyscope.memorize.extraction import (
    extraction_measures,
    greedy_continuations,
    greedy_extract,
    position_matches,
)
from support.models import EOS, tiny_model

assert EOS == 0  # the hand-worked examples below write the eos id as 0


# --------------------------------------------------------------------------- position matches
@pytest.mark.parametrize(
    "generated, target, expected",
    [
        ([1, 2, 3], [1, 2, 3], [True, True, True]),
        ([1, 9, 3], [1, 2, 3], [True, False, True]),
        ([1, 2], [1, 2, 3], [True, True, False]),  # shorter: the absent position misses
        ([1, 2, 3, 4], [1, 2, 3], [True, True, True]),  # longer: the rest is ignored
        ([], [1, 2], [False, False]),
        (["to", "be"], ["to", "see", "or"], [True, False, False]),  # any symbols
        ([1], [], []),
    ],
)
def test_position_matches_by_hand(generated, target, expected):
    hit = position_matches(generated, target)
    assert hit.dtype == bool and hit.tolist() == expected


# --------------------------------------------------------------------------- measures
def measures(generated, target, eos_id=None):
    m = extraction_measures(generated, target, eos_id)
    return m["match_fraction"], m["lcp"], m["exact"]


@pytest.mark.parametrize(
    "generated, target, expected",
    [
        ([1, 2, 3, 4], [1, 2, 3, 4], (1.0, 4, True)),
        ([1, 2, 9, 4], [1, 2, 3, 4], (0.75, 2, False)),
        ([9, 2, 3, 4], [1, 2, 3, 4], (0.75, 0, False)),
        ([4, 3, 2, 1], [1, 2, 3, 4], (0.0, 0, False)),
        ([7], [7], (1.0, 1, True)),
        # "continue": eos is an ordinary token, a mismatch where the text has another token …
        ([1, 0, 3, 4], [1, 2, 3, 4], (0.75, 1, False)),
        # … and a match where the text has eos too; what follows it still counts
        ([1, 0, 3, 4], [1, 0, 3, 4], (1.0, 4, True)),
        ([1, 2], [1, 2, 3, 4], (0.5, 2, False)),  # a short generation misses the rest
        ([1, 2, 3, 4, 5], [1, 2, 3, 4], (1.0, 4, True)),  # tokens after S are ignored
    ],
)
def test_measures_continue_policy_by_hand(generated, target, expected):
    assert measures(generated, target) == expected


@pytest.mark.parametrize(
    "generated, target, expected",
    [
        ([1, 2, 3, 4], [1, 2, 3, 4], (1.0, 4, True)),
        ([1, 2, 9, 4], [1, 2, 3, 4], (0.75, 2, False)),
        ([1, 2], [1, 2, 3, 4], (0.5, 2, False)),  # ended early: 2 misses
        ([1, 0], [1, 2, 3, 4], (0.25, 1, False)),  # eos (id 0) and after: misses
        ([1, 0, 3, 4], [1, 2, 3, 4], (0.25, 1, False)),  # nothing after eos counts
        ([1, 0, 3, 4], [1, 0, 3, 4], (0.25, 1, False)),  # not even where the text has eos
        ([0, 2, 3, 4], [1, 2, 3, 4], (0.0, 0, False)),
        ([], [1, 2], (0.0, 0, False)),
        ([1, 2, 3, 4, 0], [1, 2, 3, 4], (1.0, 4, True)),  # an eos after S is never reached
    ],
)
def test_measures_stop_policy_by_hand(generated, target, expected):
    assert measures(generated, target, eos_id=0) == expected


def test_measures_types_and_errors():
    m = extraction_measures(np.array([3, 1]), np.array([3, 2]))
    assert list(m) == ["match_fraction", "lcp", "exact"]  # the column order of callers' rows
    assert type(m["match_fraction"]) is float and type(m["lcp"]) is int
    assert type(m["exact"]) is bool
    with pytest.raises(ValueError, match="at least one token"):
        extraction_measures([1], [])
    with pytest.raises(ValueError, match="at least one token"):
        extraction_measures([1], [[1]])


# --------------------------------------------------------------------------- greedy extraction
P, S = 3, 4


@pytest.fixture(scope="module")
def copier():
    """A tiny random GPT-2 whose greedy continuation repeats the prompt's last token (its
    embeddings are peaked): prompt [7, 9, 0] continues 0 0 0 0 — end-of-text right away."""
    return tiny_model("gpt2", seed=0)


def test_greedy_continuations_under_each_policy(copier):
    prompts = [np.array([7, 9, 0]), np.array([3, 4])]
    kw = {"eos_id": 0, "batch_size": 2, "device": "cpu"}
    cont = greedy_continuations(copier, prompts, S, at_eos="continue", **kw)
    assert [g.tolist() for g in cont] == [[0, 0, 0, 0], [4, 4, 4, 4]]
    stop = greedy_continuations(copier, prompts, S, at_eos="stop", **kw)
    assert [g.tolist() for g in stop] == [[], [4, 4, 4, 4]]
    with pytest.raises(ValueError, match="at_eos"):
        greedy_continuations(copier, prompts, S, at_eos="ignore", **kw)


@pytest.mark.parametrize(
    "at_eos, expected",
    [
        # generations 0 0 0 0 | 0 0 0 0 | 4 4 4 4 against targets 0 0 5 0 | 0 0 0 0 | 4 4 9 4
        ("continue", [(0.75, 2, False), (1.0, 4, True), (0.75, 2, False)]),
        ("stop", [(0.0, 0, False), (0.0, 0, False), (0.75, 2, False)]),
    ],
)
def test_greedy_extract_by_hand(copier, at_eos, expected):
    seqs = [[7, 9, 0, 0, 0, 5, 0], [1, 2, 0, 0, 0, 0, 0, 8], [3, 3, 4, 4, 4, 9, 4]]
    found = greedy_extract(
        copier,
        [np.array(x) for x in seqs],
        prompt_tokens=P,
        suffix_tokens=S,
        eos_id=0,
        at_eos=at_eos,
        batch_size=2,
        device="cpu",
    )
    got = [(m["match_fraction"], m["lcp"], m["exact"]) for _, m in found]
    assert got == expected
    lengths = [len(g) for g, _ in found]
    assert lengths == ([S, S, S] if at_eos == "continue" else [0, 0, S])


def test_greedy_extract_needs_prompt_and_suffix(copier):
    with pytest.raises(ValueError, match="sequence 1: expected at least 3 \\+ 4 ids"):
        greedy_extract(
            copier,
            [np.arange(1, 8), np.arange(1, 7)],
            prompt_tokens=P,
            suffix_tokens=S,
            eos_id=0,
            at_eos="continue",
            batch_size=2,
            device="cpu",
        )
