"""The scorecard's writer: every claim of the registry decided on the run's tables, one row
each, with each rule's false-verdict rate on its nulls and its power on known positives
(``findings.csv``), and its markdown (``findings.md``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields

import pandas as pd

from . import registry  # noqa: F401  (imports the paper modules: registers every claim)
from .core import CLAIMS, TABLES, VERDICTS, Finding, Tables, g

CALIBRATION = "findings_calibration"
"""The null calibration table (:mod:`copyscope.report.calibration`): no claim reads it, the
scorecard shows each rule's measured false-verdict rate from it."""
TABLES.add(CALIBRATION)


def calibration_columns(ids: Sequence[str], cal: pd.DataFrame | None) -> pd.DataFrame:
    """Per claim id, its worst null of the calibration table ``cal``: ``null_false_rate``
    (the largest false-verdict rate, NaN when the rule has no null in this run) and
    ``calibration`` (that rate with its 95% interval, the null and its draws)."""
    rate, text = [], []
    for i in ids:
        rows = pd.DataFrame() if cal is None else cal[cal["claim"] == i]
        if not len(rows):
            rate.append(math.nan)
            text.append("no null in this run")
            continue
        w = rows.loc[rows["false_rate"].idxmax()]
        rate.append(float(w["false_rate"]))
        if "not_tested" in w.index and int(w["not_tested"]) == int(w["draws"]):
            text.append(f"not tested on {w['null']} ({int(w['draws'])} draws)")
            continue
        text.append(
            f"{w['false_rate']:.1%} [{w['false_rate_lo']:.1%}, {w['false_rate_hi']:.1%}] on "
            f"{w['null']} ({int(w['draws'])} draws)"
        )
    return pd.DataFrame({"null_false_rate": rate, "calibration": text})


POWER = "findings_power"
"""The power table (:mod:`copyscope.report.power`): the scorecard shows each rule's power on
its known positives at the largest measured size."""
TABLES.add(POWER)


def power_column(ids: Sequence[str], power: pd.DataFrame | None) -> pd.Series:
    """Per claim id: its power on each known positive at the run's own size (the largest
    measured one not above the ``observed`` column, where the table has it), and the smallest
    projected size that reaches 0.8 where the run's size does not (``planted ladder: 0.32 at
    8; 0.8 from 32 (projected)``) or that no projected size does (``planted ladder: 0 at 12;
    below 0.8 even at 32 (projected)``: the effect, not the sample size, is what is missing),
    or ``no known positive in this run``."""
    out = []
    for i in ids:
        rows = None if power is None else power[power["claim"] == i]
        parts = []
        for positive, sizes in [] if rows is None else rows.groupby("positive", sort=False):
            own = sizes
            if "observed" in sizes.columns:
                own = sizes[sizes["size"] <= sizes["observed"]]
                own = own if len(own) else sizes
            top = own.loc[own["size"].idxmax()]
            text = f"{positive}: {g(top['power'])} at {int(top['size'])}"
            beyond = sizes[(sizes["size"] > top["size"]) & (sizes["power"] >= 0.8)]
            largest = int(sizes["size"].max())
            if top["power"] < 0.8 and len(beyond):
                text += f"; 0.8 from {int(beyond['size'].min())} (projected)"
            elif top["power"] < 0.8 and largest > top["size"]:
                # more of the same does not power it: the effect, not the sample, is missing
                text += f"; below 0.8 even at {largest} (projected)"
            parts.append(text)
        out.append("; ".join(parts) or "no known positive in this run")
    return pd.Series(out, name="power")


NO_GROUND_TRUTH = tuple(c.id for c in CLAIMS.values() if not c.ground_truth)
"""The claims decided without training-data ground truth (``ground_truth=False`` in their
:func:`~copyscope.report.findings.core.claim`): generations against the human continuations
of the same prompts (templates), and name cloze accuracy against continuation overlap across
plays. Every other claim needs the model's training data (novelty, copying and
completion loss against the training index; planted passages, excerpts, the ladder, the
contamination set; training vs held-out plays)."""


NO_GROUND_TRUTH_NOTE = (
    "This run has no training-data ground truth (only pretrained models, whose training data "
    "is unknown, and nothing planted): the scorecard carries only the claims that need none "
    f"({', '.join(NO_GROUND_TRUTH)}); the index is a reference text, not the models' training "
    "data."
)


def scored_claims(params: Mapping) -> list[str]:
    """The claim ids of the scorecard: every registered claim, or with
    ``params["ground_truth"]`` false (no trained model, nothing planted) those of
    :data:`NO_GROUND_TRUTH`."""
    if params.get("ground_truth", True):
        return list(CLAIMS)
    return [c for c in CLAIMS if c in NO_GROUND_TRUTH]


def scorecard(tables: Tables, params: Mapping) -> pd.DataFrame:
    """Every claim of :func:`scored_claims` decided on ``tables``: one row per claim, in
    registry order, with the columns of :class:`Finding`, each rule's measured false-verdict
    rate on its nulls (:func:`calibration_columns`, from the ``findings_calibration`` table)
    and its power on known positives (:func:`power_column`, from ``findings_power``)."""
    rows = [asdict(CLAIMS[c](tables, params)) for c in scored_claims(params)]
    card = pd.DataFrame(rows, columns=[f.name for f in fields(Finding)])
    cal = calibration_columns(list(card["id"]), tables.get(CALIBRATION))
    return pd.concat([card, cal, power_column(list(card["id"]), tables.get(POWER))], axis=1)


def cell(text: str) -> str:
    """``text`` as one markdown table cell: ``|`` escaped, newlines as spaces."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def verdict_counts(card: pd.DataFrame) -> str:
    """The count of each verdict of ``card``'s rows (every verdict of :data:`VERDICTS`, ``not
    tested here`` apart from ``inconclusive``): ``holds: 3, does not hold: 0, …``."""
    counts = card["verdict"].value_counts()
    return ", ".join(f"{v}: {int(counts.get(v, 0))}" for v in VERDICTS) + "."


def verdict_cell(row) -> str:
    """The verdict of a scorecard row in bold, with each model's verdict beside it where the
    models' verdicts differ (a model that refutes is never hidden under ``inconclusive``) and,
    in a scorecard over seeds (column ``per_seed``), each seed's verdict."""
    text = f"**{row.verdict}**"
    for column, label in (("per_model", ""), ("per_seed", "seeds ")):
        per = str(getattr(row, column, "") or "")
        if column == "per_seed" and per and per != "nan":
            text += f" ({label}{per})"
        elif per and per != "nan" and len({p.rsplit(": ", 1)[-1] for p in per.split("; ")}) > 1:
            text += f" ({per})"
    return text


def _is_related(card: pd.DataFrame) -> pd.Series:
    if "related" not in card.columns:
        return pd.Series(False, index=card.index)
    return card["related"].astype(str).str.lower().isin(["true", "1"])


def _table(card: pd.DataFrame, numbers: Sequence[str]) -> list[str]:
    lines = [
        "| # | claim | paper | verdict | measured | false verdicts on nulls | power |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, r in zip(numbers, card.itertuples(), strict=True):
        lines.append(
            f"| {i} | {cell(r.claim)} ({cell(r.where)}) | {cell(r.paper)} | "
            f"{cell(verdict_cell(r))} | {cell(r.measured)} | {cell(r.calibration)} | "
            f"{cell(r.power)} |"
        )
    return lines


def row_numbers(card: pd.DataFrame) -> list[str]:
    """The number of each row of ``card`` in the markdown: 1, 2, … for the five papers' claims
    and R1, R2, … for the related claims, each in registry order."""
    related = _is_related(card).tolist()
    own, other, out = 0, 0, []
    for r in related:
        if r:
            other += 1
            out.append(f"R{other}")
        else:
            own += 1
            out.append(str(own))
    return out


def markdown(card: pd.DataFrame, note: str = "") -> str:
    """The scorecard as markdown: a count of the verdicts of the five papers' claims, their
    table (claim with where the paper makes it, paper, verdict with each model's where they
    differ, measured), the related claims (from outside the five papers) in a section and
    count of their own, and, per claim, its conditions, copyscope's setting and the rule;
    ``note``, when given, is a paragraph after the title."""
    related = _is_related(card)
    numbers = row_numbers(card)
    own = [n for n, r in zip(numbers, related, strict=True) if not r]
    other = [n for n, r in zip(numbers, related, strict=True) if r]
    lines = [
        "# Findings scorecard",
        "",
        *([note, ""] if note else []),
        "Each row is a claim of the papers as the paper states it, decided from this run's "
        "tables by the rule listed under the table (95% intervals over texts, passages or "
        'items). "does not hold" needs an interval that excludes the paper\'s effect; a claimed '
        "absence of an effect holds only within a stated margin. A claim is decided only where "
        "the run reproduces the conditions it depends on (decoding, baseline, what counts as "
        'training data, the models compared); otherwise it is "not tested here", with the '
        'reason, counted apart from "inconclusive". Where models disagree, the verdict is '
        '"mixed" or shows each model\'s verdict beside it.',
        "",
        verdict_counts(card[~related]),
        "",
        "The last two columns are the rule's measured false-verdict rate — how often it "
        "reaches a verdict on tables where the claim is false by construction (tables/"
        "findings_calibration.csv) — and its power: how often it reaches the right verdict on "
        "known positives, at the run's own sample size, with the projected size that would reach "
        "0.8 where it does not, or a note that no projected size does (then the effect is "
        "missing in this run, not the sample; tables/findings_power.csv).",
        "",
        *_table(card[~related], own),
    ]
    if related.any():
        lines += [
            "",
            "## Related claims",
            "",
            "Claims from outside the five papers (another paper, or the authors' analysis code "
            "rather than their text), decided by the same rules and not counted with the "
            "papers' claims above.",
            "",
            verdict_counts(card[related]),
            "",
            *_table(card[related], other),
        ]
    lines += ["", "## Conditions, setting and rules", ""]
    for i, r in zip(numbers, card.itertuples(), strict=True):
        lines.append(f"{i}. `{r.id}` — the paper's conditions: {r.conditions}.")
        if r.setting:
            lines.append(f"   - copyscope's setting: {r.setting}.")
        lines.append(f"   - rule: {r.rule}.")
    return "\n".join(lines) + "\n"


def without_unscored(tables: Mapping[str, pd.DataFrame], unscored) -> dict[str, pd.DataFrame]:
    """``tables`` without the rows of the sets named ``<model>/<decoding>`` in ``unscored``
    (generations from outside copyscope and their references): every claim is about
    copyscope's own models, trained (or used) with a known training text, against the
    held-out human baselines; a table without ``model`` and ``decoding`` columns is kept."""
    out = {}
    for name, t in tables.items():
        if unscored and {"model", "decoding"} <= set(t.columns):
            names = t["model"].astype(str) + "/" + t["decoding"].astype(str)
            t = t[~names.isin(list(unscored))].reset_index(drop=True)
        out[name] = t
    return out
