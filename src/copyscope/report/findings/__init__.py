"""Findings scorecard: each claim of the papers, as the paper states it, decided from this run's
tables.

A claim is one :class:`~copyscope.report.findings.core.Claim`, registered in :data:`CLAIMS`
with :func:`~copyscope.report.findings.core.claim` in its paper's module: the paper's claim in
one sentence, where the paper makes it, the conditions it holds under (models, decoding,
baseline, data), a ``setting`` note where copyscope's configuration differs from the paper's in
a way that predicts another outcome, the rule, the decision, its nulls and its known
positives. The decision reads the named tables (``tables[name]`` is ``results/tables/<name>.csv``), computes
its numbers and applies an explicit rule whose text is the ``rule`` column. Verdicts are
``holds``, ``does not hold``, ``mixed`` (some models hold, others do not), ``inconclusive`` or
``not tested here`` (the run does not reproduce a condition the claim depends on — decoding,
baseline, what counts as training data, the models compared —, :class:`NotTested`, counted
apart from ``inconclusive``); each model's verdict is the ``per_model`` column; claims from
outside the five papers are marked ``related`` and listed apart. Nothing is written by hand.

The rules follow three principles:

* **"does not hold" needs an interval that excludes the paper's effect**, not only a null
  result: an interval on the wrong side of zero, or, where the paper gives an effect size
  (``findings.*_effect``), an interval whose upper bound lies below it (:func:`effect_verdict`);
* **a claimed absence of an effect holds only when an interval bounds it**: every difference's
  interval lies within a margin (``findings.*_margin``, :func:`equivalence_verdict`);
* **nothing is decided from too little**: a trend needs ``findings.trend_min_points`` points,
  and a sample set with fewer than ``findings.min_distinct`` distinct generated texts (100
  identical greedy continuations of an empty prompt are one sample) is left out.

A claim whose table is not an output of the run, or whose table holds no rows it can decide on,
stays a row, ``inconclusive`` with ``not measured: …`` in ``measured``, so the scorecard always
has the same rows. Claims evaluated per model (or per decoding, per n …) combine their parts
with :func:`combine`: ``holds`` only when every part holds, ``does not hold`` only when every
part does not hold, ``mixed`` when some parts hold and others do not.

Papers: Merrill, Smith & Elazar 2024, "Evaluating n-Gram Novelty of Language Models Using
Rusty-DAWG" (EMNLP); McCoy et al. 2023, "How Much Do Language Models Copy From Their Training
Data? Evaluating Linguistic Novelty in Text Generation Using RAVEN" (TACL); Shaib et al. 2024,
"Detection and Measurement of Syntactic Templates in Generated Text" (EMNLP); Li 2023,
"Estimating Contamination via Perplexity"; Carlini et al. 2023, "Quantifying Memorization
Across Neural Language Models" (ICLR); Shi et al. 2024, "Detecting Pretraining Data from Large
Language Models" (ICLR, Min-K% Prob); Chang et al. 2023, "Speak, Memory: An Archaeology of
Books Known to ChatGPT/GPT-4" (EMNLP); Zhang et al. 2024 (the literature-memorization study:
name cloze on English and French books with open LLMs, OLMo/Dolma).

One module per paper, each claim one unit in it (statement, conditions, rule, decision, nulls,
known positives): :mod:`~copyscope.report.findings.merrill`,
:mod:`~copyscope.report.findings.raven`, :mod:`~copyscope.report.findings.shaib`,
:mod:`~copyscope.report.findings.li`, :mod:`~copyscope.report.findings.literature` and
:mod:`~copyscope.report.findings.related`; the two largest are packages of a few modules each
(``merrill/novelty.py``, ``merrill/completion.py``, …; ``raven/ngrams.py``, ``raven/quality.py``,
…: their ``__init__`` lists which claim lives where); :mod:`~copyscope.report.findings.core` (verdicts, the
:class:`~copyscope.report.findings.core.Claim` and its registry, the decision helpers),
:mod:`~copyscope.report.findings.registry` (the order of the paper modules: the scorecard's),
:mod:`~copyscope.report.findings.data` (the data the nulls and positives are drawn from) and
:mod:`~copyscope.report.findings.writer` (the scorecard's rows and markdown); this
module declares the findings job (:mod:`copyscope.report.jobs`). The statistics (intervals,
permutation and trend tests) are :mod:`copyscope.stats`'. Adding a claim = one
``@claim`` in its paper's module and its test in ``tests/report/findings/``
(``docs/architecture.md``, "How to add a claim").
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ...errors import InputError
from ...io import write_csv, write_text
from ..jobs import Input, Output, Params, tables
from .core import (  # noqa: F401  (the claims' API, as copyscope.report.findings has it)
    BOTH,
    BROWN_XU,
    CARLINI,
    CHANG,
    CLAIMS,
    FAILS,
    HOLDS,
    JAGIELSKI,
    LI,
    LU,
    MERRILL,
    MIXED,
    NOT_TESTED,
    RAVEN,
    SHAIB,
    SHI,
    TABLES,
    TOKEN_N_MIN,
    UNCLEAR,
    VERDICTS,
    ZHANG,
    Claim,
    Finding,
    NotMeasured,
    NotTested,
    Null,
    Positive,
    claim,
    claimed_tables,
    combine,
    compare,
    decided,
    effect_verdict,
    equivalence_verdict,
    every_verdict,
    model_size,
    per_model,
    signs_verdict,
    token_ns,
    trend_verdict,
)
from .writer import (  # noqa: F401  (the scorecard's writer)
    CALIBRATION,
    NO_GROUND_TRUTH,
    NO_GROUND_TRUTH_NOTE,
    POWER,
    calibration_columns,
    cell,
    markdown,
    power_column,
    row_numbers,
    scorecard,
    scored_claims,
    verdict_cell,
    verdict_counts,
    without_unscored,
)

NAME = "findings"
HELP = "scorecard: each claim of the papers, stated with its conditions, decided by a rule"
INPUTS = {
    "table": Input(
        ("NAME",),
        "a table (.csv) the claims read, under its file name without .csv (e.g. novelty_samples)",
        files=tables(claimed_tables),
    ),
}
OUTPUTS = {
    "csv": Output("findings.csv", "the scorecard (.csv)", "findings", "summary"),
    "md": Output("findings.md", "the scorecard (.md)", "findings", "summary"),
}
PARAMS = Params(
    "the config blocks findings, analysis (syntax), sampling, models (zoo, evaluator, "
    "evaluators), timing: corpus.inject.timing (null without; the training-history rows read "
    "its window), unscored: the <model>/<decoding> sets left out (generations from outside), "
    "and ground_truth: false when the run has no training-data ground truth (only pretrained "
    "models, nothing planted; NO_GROUND_TRUTH claims only)",
    of=lambda p: {
        "findings": p.config["findings"],
        "analysis": {"syntax": p.config["analysis"]["syntax"]},
        "sampling": p.config["sampling"],
        "timing": p.timing_block(),
        **p.unscored(),
        # a trained model or planted text: the training data is known
        "ground_truth": bool(p.trained) or p.plants,
        "models": p.evaluators(),
    },
)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read the named tables, decide every claim, write the scorecard (.csv and .md); the
    sets of ``params["unscored"]`` are left out (:func:`without_unscored`)."""
    unknown = sorted({name for name, _ in inputs["table"]} - TABLES)
    if unknown:
        raise InputError(
            "--table",
            f"names of tables the claims read ({', '.join(sorted(TABLES))}), found {unknown}",
        )
    tables = {name: pd.read_csv(path) for name, path in inputs["table"]}
    card = scorecard(without_unscored(tables, params.get("unscored", ())), params)
    write_csv(out["csv"], card)
    note = "" if params.get("ground_truth", True) else NO_GROUND_TRUTH_NOTE
    write_text(out["md"], markdown(card, note))
