"""Merrill, Smith & Elazar 2024, "Evaluating n-Gram Novelty of Language Models Using
Rusty-DAWG" (EMNLP): the claims on n-gram novelty against the training data and the
validation text, and on the completion loss (with the authors' analysis code's loss by
training frequency, a related claim). Each claim: its statement, rule and decision, its nulls
(halves and parts of the human continuations, permuted in-training labels, shuffled counts)
and its known positives (the copier sets: human continuations with a share of their spans
copied from training documents).

The claims live in two modules, registered in the order of :data:`PARTS`:

* :mod:`~copyscope.report.findings.merrill.novelty`: ``pure-more-novel-than-validation``,
  ``pure-vs-contaminated-baseline``, ``validation-below-lower-bound``, ``larger-less-novel``,
  ``constrained-less-novel``, ``constrained-small-n-below-validation``;
* :mod:`~copyscope.report.findings.merrill.completion`: ``completion-loss-in-training``,
  ``completion-loss-frequency``;

with what the novelty rows share: :mod:`~copyscope.report.findings.merrill.nulls` (the
novelty tables of a null's sets, the human halves) and
:mod:`~copyscope.report.findings.merrill.copiers` (the copier sets, their known positives).
"""

from __future__ import annotations

import importlib

PARTS = ("novelty", "completion")
"""The modules of Merrill et al.'s claims, in registry order (imported here, in this order: an
import sorter cannot reorder them); each registers its claims in the order written there."""
MODULES = tuple(importlib.import_module(f"{__name__}.{part}") for part in PARTS)

# the names read as copyscope.report.findings.merrill.<name> (after PARTS: registry order)
from .completion import permuted_in_training, shuffled_counts  # noqa: E402
from .copiers import Copier, copier_set, copier_vs_human  # noqa: E402
from .novelty import (  # noqa: E402
    bound_sides,
    copier_as_contaminated,
    lower_bound_positives,
    spans,
)
from .nulls import novelty_nulls  # noqa: E402

__all__ = [
    "MODULES",
    "PARTS",
    "Copier",
    "bound_sides",
    "copier_as_contaminated",
    "copier_set",
    "copier_vs_human",
    "lower_bound_positives",
    "novelty_nulls",
    "permuted_in_training",
    "shuffled_counts",
    "spans",
]
