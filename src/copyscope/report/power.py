"""Power of the scorecard's rules on known positives: how often each rule reaches the right
verdict where the answer is known, at increasing sample sizes.

* **copier** — a synthetic sample set with a known share of copying: the held-out
  continuations of one half of the windows with a seeded share of their ``span``-token spans
  replaced by spans of training documents
  (:func:`copyscope.report.findings.merrill.copiers.copier_set`), matched against the index like
  any sample set. Against the other half's true continuations it is *less* novel, so Merrill
  et al.'s "pure samples are more novel than validation text at every n" must come out
  ``does not hold``; a copier with a larger share plays the larger of two models, so "larger
  models are less novel" must ``hold``; the copier of the smallest share as the contaminated
  held-out set (spans of more than 20 tokens) must lie below the lower bound (``hold``).
* **run-together words** — half of the human continuations' Moses words with one pair of
  words per ``copier_span`` words run together (``hisGONZALO``, never well-formed), against the
  other half: RAVEN's "novel words nearly as well-formed as the human text's" must come out
  ``does not hold``.
* **multiple-choice labels permuted** — the labelled own benchmarks resampled, the
  multiple-choice items' labels permuted: Li's per-format pattern must ``hold`` where the run
  separates the other formats' members.
* **ladder** — the memorization ladder's per-passage extraction results resampled with
  k passages per rung: extraction does grow with planted copies in the run, so "extraction
  grows with duplication" must ``hold``.
* **contamination** — k planted and k unplanted items of the contamination set resampled: the
  planted ones were trained on, so Li's placement ("contaminated items have lower
  perplexity") must ``hold``.
* **excerpt plays** — k excerpt plays of the highest copy count and the run's fully held-out
  plays of the name cloze resampled as whole plays (each with its items): a share of the
  excerpt plays' speeches was planted, so Zhang et al.'s "excerpts raise name cloze accuracy"
  must ``hold``;
* **training plays** — the same with k training plays: they were trained on, so Chang et
  al.'s "name cloze reveals books seen in training" must ``hold``;
* **templater** — k texts of one half of the parsed human continuations, a share of them
  (the largest of ``copier_shares``) given one more sentence, the same ``n``-word span of
  human text (words and tags) in each, as a model's greedy samples, against k texts of the
  other half: a syntactic pattern repeated across a share of the texts is a template of that
  set by construction, so Shaib et al.'s "models produce templated text at a higher rate than
  human references" must ``hold``;
* **copied words** — k texts of one half of the human continuations' words, a share (the
  largest of ``copier_shares``) of their ``copier_span``-word slots given the longest matches
  a verbatim training span gives them (:func:`copyscope.report.findings.data.copied_words`), as a model's pure samples,
  against k texts of the other half: copied words are covered, so Lu et al.'s "human text is
  more creative than model text" must ``hold``;
* on the training history (``tables/dynamics.csv``, sizes in template tokens, items or
  passages per group): the **paper's template ratio** (200 vs 500) planted at every checkpoint
  with the run's noise ("templates are learned early"), the run's own name cloze gains
  **planted with the claimed timing** (a jump of the late plays after the late window, a
  steady rise of the excerpt plays: "full text seen late rises suddenly"), and **complete
  forgetting** planted at the run's rates (early passages as the controls, late ones as the
  passages seen throughout: "text seen only early is forgotten") must each ``hold``.

Each claim declares its known positives with itself, in its paper's module
(:class:`copyscope.report.findings.core.Positive`); the builders above live there. Each
(claim, positive, size) is decided on ``draws`` seeded resamples (with replacement, the
bootstrap of the experiment) by the scorecard's own rule and table builders; the power is the
share of draws with the right verdict, with its 95% Wilson interval. :func:`size_for_power`
reads off the smallest size whose power reaches the target (0.8).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from ..stats import wilson
from . import findings as F
from . import workers
from .calibration import INPUTS as CALIBRATION_INPUTS
from .calibration import load
from .findings.data import Data
from .jobs import Output, Params

fig = lazy_module("copyscope.report.figures")

log = logging.getLogger(__name__)

NAME = "power"


HELP = (
    "power of the scorecard's rules on known positives (copier set, ladder, contamination set, "
    "excerpt plays) by sample size"
)


# the run's files the positives are built from: the null calibration's, the same declarations
INPUTS = {
    k: CALIBRATION_INPUTS[k]
    for k in ("tokens", "words", "quality", "index_manifest", "extraction", "membership", "cloze",
              "parses", "contaminated", "samples", "word_tokenizer", "own_scores", "dynamics",
              "completion", "contamination", "style", "training_parses")
}  # fmt: skip


OUTPUTS = {
    "csv": Output(
        "tables/findings_power.csv",
        "findings_power.csv: claim, positive, size, draws, right verdict, power and interval",
        "findings_power",
        "related",
    ),
    "fig": Output(
        "figures/findings_power.png",
        "figure: power against sample size per rule and positive (.png)",
        "findings_power",
        "related",
    ),
}


PARAMS = Params(
    "the config blocks findings (with power), novelty, sampling, models, analysis (syntax, "
    "style, memorization, membership), syntax (backend) and timing (corpus.inject.timing, null "
    "without)",
    of=lambda p: {
        "findings": p.config["findings"],
        "timing": p.timing_block(),
        "novelty": p.config["novelty"],
        "sampling": p.config["sampling"],
        "syntax": p.with_language({"backend": p.config["syntax"]["backend"]}),
        "models": {"zoo": p.config["models"]["zoo"]},
        "analysis": {
            k: p.config["analysis"][k] for k in ("syntax", "style", "memorization", "membership")
        },
    },
)


COLUMNS = [
    "claim",
    "positive",
    "size",
    "observed",
    "draws",
    "right",
    "hits",
    "power",
    "power_lo",
    "power_hi",
]
"""``observed``: the run's own sample size for that positive; rows of a larger ``size`` are
projections (resamples with replacement of a larger experiment with the effect the run shows)."""


def power_at(claim, builder, right, data, params, size, draws, seed) -> dict | None:
    """The share of ``draws`` resamples of ``size`` on which ``claim`` reaches the ``right``
    verdict, with its 95% Wilson interval; None without data."""
    decide, hits = F.CLAIMS[claim], 0
    for i in range(draws):
        tables = builder(np.random.default_rng([seed, size, i]), data, params, size)
        if tables is None:
            return None
        hits += decide(tables, params).verdict == right
    p, lo, hi = wilson(hits, draws)
    return {"draws": draws, "right": right, "hits": hits, "power": p, "power_lo": lo,
            "power_hi": hi}  # fmt: skip


TABLE_ORDER = (
    "pure-more-novel-than-validation",
    "larger-less-novel",
    "extraction-duplication",
    "benchmark-placement",
    "cloze-excerpts",
    "more-templates",
    "cloze-training-plays",
    "human-more-creative",
)
"""The claims whose positives the power table lists first, in this order (the table's order
before the claims moved into their paper modules, kept so that tables compare across
versions); the positives of any other claim follow in registry order."""


def positives(data: Data, index, params: Mapping) -> list[tuple[str, F.Positive]]:
    """(claim id, :class:`~copyscope.report.findings.core.Positive`) of every claim's known
    positives this run has data for (``Claim.positives``), claims in :data:`TABLE_ORDER`; what
    several positives share (the copier sets) is built once."""
    rank = {c: i for i, c in enumerate(TABLE_ORDER)}
    claims = sorted(F.CLAIMS.values(), key=lambda c: rank.get(c.id, len(rank)))
    shared: dict = {}
    return [(c.id, p) for c in claims for p in c.known_positives(data, index, params, shared)]


THREADS = 2  # its job's threads: PROCESSES, the workers that draw the resamples
PROCESSES = workers.PROCESSES
"""Environment variable: how many processes draw the resamples (the rule sets its threads)."""
STATE: dict = {}
"""What the workers of :func:`power_table` read: the positives, data and params (set before
they fork)."""


def _power_task(task: tuple[int, int]) -> dict | None:
    """:func:`power_at` of positive ``task[0]`` of ``STATE["positives"]`` at size ``task[1]``."""
    claim, positive = STATE["positives"][task[0]]
    p = STATE["params"]["findings"]["power"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return power_at(claim, positive.build, positive.right, STATE["data"], STATE["params"],
                        task[1], p["draws"], p["seed"])  # fmt: skip


def power_table(data: Data, index, params: Mapping, processes: int = 1) -> pd.DataFrame:
    """One row per (claim, positive, size) this run has data for (``findings.power``), the
    (positive, size) pairs drawn by ``processes`` forked workers (every resample is seeded by
    itself, so the table does not depend on them)."""
    found = positives(data, index, params)
    tasks = [(k, size) for k, (_, positive) in enumerate(found) for size in positive.sizes]
    STATE.update(positives=found, data=data, params=params)
    try:
        results = workers.forked_map(_power_task, tasks, processes, "power")
    finally:
        STATE.clear()
    rows = []
    for (k, size), r in zip(tasks, results, strict=True):
        if r is None:
            continue
        claim, positive = found[k]
        log.info("%s, %s, size %d: power %.2f", claim, positive.name, size, r["power"])
        rows.append({"claim": claim, "positive": positive.name, "size": size,
                     "observed": positive.observed, **r})  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS)


def size_for_power(table: pd.DataFrame, target: float = 0.8) -> pd.DataFrame:
    """Per (claim, positive): the smallest size whose power reaches ``target`` (NaN when no
    size does)."""
    out = []
    for (claim, positive), g in table.groupby(["claim", "positive"], sort=False):
        ok = g.loc[g["power"] >= target, "size"]
        out.append({"claim": claim, "positive": positive,
                    "size_for_power": float(ok.min()) if len(ok) else np.nan})  # fmt: skip
    return pd.DataFrame(out, columns=["claim", "positive", "size_for_power"])


SUMMARY_COLUMNS = ["claim", "positive", "size", "power", "power_lo", "power_hi",
                   "size_for_power", "largest", "projected"]  # fmt: skip


def power_summary(table: pd.DataFrame, target: float = 0.8) -> pd.DataFrame:
    """Per (claim, positive), in the table's order: its power at the run's own sample size
    (``observed``; the largest size where the table has no ``observed``) with the 95%
    interval, the smallest size whose power reaches ``target`` (:func:`size_for_power`;
    NaN when none does) with ``projected`` True when that size is beyond the run's own, and
    the ``largest`` size drawn."""
    sizes = size_for_power(table, target).set_index(["claim", "positive"])["size_for_power"]
    out = []
    for (claim, positive), g in table.groupby(["claim", "positive"], sort=False):
        g = g.sort_values("size")
        own = g["observed"].iloc[0] if "observed" in g.columns else np.nan
        at = g[g["size"] == own] if pd.notna(own) and (g["size"] == own).any() else g.iloc[[-1]]
        r = at.iloc[0]
        need = sizes[(claim, positive)]
        out.append({"claim": claim, "positive": positive, "size": int(r["size"]),
                    "power": r["power"], "power_lo": r["power_lo"], "power_hi": r["power_hi"],
                    "size_for_power": need, "largest": int(g["size"].max()),
                    "projected": bool(pd.notna(need) and need > r["size"])})  # fmt: skip
    return pd.DataFrame(out, columns=SUMMARY_COLUMNS)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Measure every positive this run has data for; write the power table and its figure."""
    from .. import index as index_stage

    data = load(inputs, params)
    manifests = inputs.get("index_manifest") or []
    index = index_stage.open(manifests[0][-1]) if manifests else None
    table = power_table(data, index, params, workers.processes())
    write_csv(out["csv"], table)
    target = params["findings"]["power"]["target"]
    fig.power(power_summary(table, target), target, out["fig"])
