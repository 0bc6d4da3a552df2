"""copyscope.stats: hand-worked permutation p-values."""

from __future__ import annotations

from copyscope.stats import permutation_tails


def test_permutation_tails_hand_worked():
    null = [0.1, 0.2, 0.2, 0.5]
    # T = 0.2: 3 of 4 at or above (ties count), 3 of 4 at or below: (1 + 3) / 5 each
    assert permutation_tails(null, 0.2) == (0.8, 0.8)
    # above every permutation: P(≥) = 1/5 (never 0), P(≤) = 5/5
    assert permutation_tails(null, 0.9) == (0.2, 1.0)
    # a float sum a hair above a tie still ties; with a tolerance of 0 it does not
    assert permutation_tails(null, 0.2 + 1e-15) == (0.8, 0.8)
    assert permutation_tails(null, 0.2 + 1e-15, tol=0.0) == (0.4, 0.8)
