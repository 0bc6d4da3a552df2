"""Statistics shared by the stages (a base module: any stage may import it)."""

from __future__ import annotations

import numpy as np


def permutation_tails(null, observed: float, tol: float = 1e-12) -> tuple[float, float]:
    """One-sided Monte Carlo permutation p-values of ``observed`` against the statistics of
    ``len(null)`` random permutations: (P(T* ≥ T), P(T* ≤ T)), each (1 + hits) / (1 + draws)
    (Phipson & Smyth 2010: never 0, valid at any number of draws); ``tol`` counts a
    permutation within it of the observed value as a tie (floating-point sums)."""
    null = np.asarray(null, dtype=float)
    draws = len(null)
    up = (1 + int(np.sum(null >= observed - tol))) / (1 + draws)
    down = (1 + int(np.sum(null <= observed + tol))) / (1 + draws)
    return up, down
