"""McCoy et al. 2023, "How Much Do Language Models Copy From Their Training Data? Evaluating
Linguistic Novelty in Text Generation Using RAVEN" (TACL): the claims on word n-gram novelty
against the human baseline, the LSTM, quality, prompt length, context, syntactic novelty and
novel words, each with its nulls (halves and parts of the human continuations, an effect of
exactly the margin planted for the claimed absences).

The claims live in five modules, registered in the order of :data:`PARTS`:

* :mod:`~copyscope.report.findings.raven.ngrams` (§5, Fig. 1, and what the RAVEN rows share):
  ``raven-top40-small-n``, ``raven-top40-large-n``, ``raven-pure-every-n``,
  ``lstm-less-novel-small-n``;
* :mod:`~copyscope.report.findings.raven.quality` (§5, Fig. 2): ``novelty-quality``;
* :mod:`~copyscope.report.findings.raven.contrasts` (supplementary materials, the
  ``raven_contrasts`` table): ``prompt-length-no-effect``, ``train-vs-union``;
* :mod:`~copyscope.report.findings.raven.syntax` (§6): ``syntax-local-less-novel``;
* :mod:`~copyscope.report.findings.raven.novel_words` (§7): ``novel-words-well-formed``.
"""

from __future__ import annotations

import importlib

PARTS = ("ngrams", "quality", "contrasts", "syntax", "novel_words")
"""The modules of McCoy et al.'s claims, in registry order (imported here, in this order: an
import sorter cannot reorder them); each registers its claims in the order written there."""
MODULES = tuple(importlib.import_module(f"{__name__}.{part}") for part in PARTS)

# the names read as copyscope.report.findings.raven.<name> (after PARTS: registry order)
from .contrasts import human_halves_prompt_length, planted_context  # noqa: E402
from .novel_words import run_together, run_together_positives  # noqa: E402
from .quality import trend_p_verdict  # noqa: E402
from .syntax import human_halves_syntax  # noqa: E402

__all__ = [
    "MODULES",
    "PARTS",
    "human_halves_prompt_length",
    "human_halves_syntax",
    "planted_context",
    "run_together",
    "run_together_positives",
    "trend_p_verdict",
]
