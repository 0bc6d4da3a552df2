"""Verdict agreement across training seeds (issue: calibrated verdicts, §5).

One training run is one draw: a verdict that flips when only ``models.seed`` changes is not a
finding about the claim. ``make seeds`` runs the whole workflow once per seed (the config's
``models.seed`` replaced, each run in its own results folder) and this command reads the
scorecards (``findings.csv``) of those runs: per claim, the verdict of every seed, the verdict
most seeds reach and how many reach it, with each seed's numbers (``agreement.md``), and the
scorecard whose headline verdict is that majority, each seed's verdict and numbers beside it
(``findings.md`` of the seeds folder, in the scorecard's format).

Not a workflow rule of a single run (it reads several runs); ``copyscope report seeds``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import pandas as pd

from ..errors import InputError
from ..io import write_csv, write_text
from . import findings as F
from .jobs import Input, Output

NAME = "seeds"
HELP = "agreement of the scorecard's verdicts across runs that differ only in models.seed"
INPUTS = {
    "findings": Input(("SEED",), "findings.csv of the run trained with that seed"),
}
OUTPUTS = {  # no path: `make seeds` names them (<results>-seeds/agreement.{csv,md})
    "csv": Output(
        None, "agreement table: claim, each seed's verdict, majority verdict, seeds agreeing"
    ),
    "md": Output(None, "the same as markdown, with each claim's numbers per seed"),
    "findings": Output(
        None,
        "the scorecard (.md) whose verdict is each claim's majority over the seeds, each "
        "seed's verdict and numbers beside it",
    ),
}
PARAMS = None
NO_REPORT_JOB = "it reads the scorecards of several runs (make seeds)"
KEY = ("id", "claim", "paper")
ORDER = F.VERDICTS
UNDECIDED = (F.UNCLEAR, F.NOT_TESTED)
"""A tie that includes one of these verdicts goes to ``inconclusive`` (a verdict that most
seeds reach alone is the majority, ``not tested here`` too)."""


def seed_agreement(cards: Sequence[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """One row per claim (in the first scorecard's order): ``id``, ``claim``, ``paper``, one
    column ``seed <s>`` per scorecard with its verdict (and ``measured seed <s>`` with its
    numbers, where the scorecard has them), ``majority`` (the verdict most seeds reach; a tie
    goes to ``inconclusive`` if it or ``not tested here`` is among the tied, else to the first
    tied in :data:`copyscope.report.findings.VERDICTS` order), ``agree`` (how many seeds
    reach it), ``seeds`` and ``unanimous``. A claim missing from a scorecard is an error: the
    runs must be of the same configuration."""
    if not cards:
        raise InputError("--findings", "at least one findings.csv")
    labels = [str(seed) for seed, _ in cards]
    if len(set(labels)) != len(labels):
        raise InputError("--findings", f"distinct seed labels, got {labels}")
    first = cards[0][1]
    out = first[[*KEY, *(["related"] if "related" in first.columns else [])]].copy()
    for seed, card in cards:
        missing = set(out["id"]) - set(card["id"])
        if missing or len(card) != len(out):
            raise InputError(
                f"findings of seed {seed}",
                f"the same claims as seed {labels[0]} (a scorecard of the same config); "
                f"missing {sorted(missing)}, {len(card)} rows vs {len(out)}",
            )
        out[f"seed {seed}"] = out["id"].map(dict(zip(card["id"], card["verdict"], strict=True)))
    for seed, card in cards:
        if "measured" in card.columns:
            numbers = dict(zip(card["id"], card["measured"], strict=True))
            out[f"measured seed {seed}"] = out["id"].map(numbers)
    verdicts = out[[f"seed {s}" for s in labels]]
    majority, agree = [], []
    for row in verdicts.itertuples(index=False):
        counts = Counter(row)
        top = max(counts.values())
        tied = [v for v, c in counts.items() if c == top]
        undecided = len(tied) > 1 and any(v in UNDECIDED for v in tied)
        majority.append(F.UNCLEAR if undecided else min(tied, key=_rank))
        agree.append(top)
    out["majority"] = majority
    out["agree"] = agree
    out["seeds"] = len(labels)
    out["unanimous"] = out["agree"] == out["seeds"]
    return out


def _rank(verdict: str) -> int:
    return ORDER.index(verdict) if verdict in ORDER else len(ORDER)


def markdown(table: pd.DataFrame) -> str:
    """The agreement table as markdown, with a count of unanimous claims, then each claim's
    numbers per seed (``measured`` of each seed's scorecard)."""
    seeds = [c for c in table.columns if c.startswith("seed ")]
    n = int(table["seeds"].iloc[0]) if len(table) else 0
    lines = [
        "# Verdicts across training seeds",
        "",
        f"{int(table['unanimous'].sum())} of {len(table)} claims reach the same verdict with "
        f"all {n} seeds (runs that differ only in `models.seed`).",
        "",
        "| # | claim | paper | " + " | ".join(seeds) + " | majority | agree |",
        "|---|---|---|" + "---|" * len(seeds) + "---|---|",
    ]
    numbers = F.row_numbers(table)
    for i, r in zip(numbers, table.to_dict("records"), strict=True):
        cells = " | ".join(str(r[s]) for s in seeds)
        lines.append(
            f"| {i} | {r['claim']} | {r['paper']} | {cells} | **{r['majority']}** | "
            f"{r['agree']}/{r['seeds']} |"
        )
    if any(f"measured {s}" in table.columns for s in seeds):
        lines += ["", "## Numbers per seed", ""]
        for i, r in zip(numbers, table.to_dict("records"), strict=True):
            lines.append(f"{i}. `{r['id']}` — majority **{r['majority']}**:")
            for s in seeds:
                if f"measured {s}" in r:
                    lines.append(f"   - {s} ({r[s]}): {F.cell(r[f'measured {s}'])}")
    return "\n".join(lines) + "\n"


def majority_card(cards: Sequence[tuple[str, pd.DataFrame]], table: pd.DataFrame) -> pd.DataFrame:
    """The scorecard whose ``verdict`` is each claim's majority over the seeds
    (:func:`seed_agreement`'s ``table``), ``per_seed`` each seed's verdict beside it
    (``0: holds; 1: inconclusive``) and ``measured`` each seed's numbers (``[seed 0] …``); the
    other columns (conditions, rule, the null calibration and power) are the first seed's."""
    card = cards[0][1].copy().set_index("id").loc[table["id"]].reset_index()
    labels = [str(s) for s, _ in cards]
    card["verdict"] = table["majority"].to_numpy()
    card["per_seed"] = [
        "; ".join(f"{s}: {r[f'seed {s}']}" for s in labels) for r in table.to_dict("records")
    ]
    card["per_model"] = ""
    card["measured"] = [
        " ‖ ".join(f"[seed {s}] {r.get(f'measured seed {s}', '')}" for s in labels)
        for r in table.to_dict("records")
    ]
    for column in ("where", "conditions", "setting", "rule", "calibration", "power"):
        if column not in card.columns:
            card[column] = ""
    return card.fillna({"setting": ""})


def majority_markdown(card: pd.DataFrame) -> str:
    """:func:`majority_card` as the scorecard's markdown
    (:func:`copyscope.report.findings.markdown`), with a note that the verdict is the seeds'
    majority."""
    seeds = len(str(card["per_seed"].iloc[0]).split("; ")) if len(card) else 0
    note = (
        f"The verdict of each row is the majority over the {seeds} training seeds that ran "
        "(`make seeds`; a tie with inconclusive is inconclusive), each seed's verdict beside "
        "it and each seed's numbers in `measured`; the last two columns are the first seed's."
    )
    return F.markdown(card, note)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each seed's findings.csv, write the agreement table (.csv and .md)."""
    cards = []
    for seed, path in inputs["findings"]:
        try:
            card = pd.read_csv(path)
        except FileNotFoundError as exc:
            raise InputError(path, "file not found (a findings.csv of a finished run)") from exc
        missing = {"id", "claim", "paper", "verdict"} - set(card.columns)
        if missing:
            raise InputError(path, f"a findings.csv with columns {sorted(missing)}")
        cards.append((seed, card))
    table = seed_agreement(cards)
    write_csv(out["csv"], table)
    write_text(out["md"], markdown(table))
    write_text(out["findings"], majority_markdown(majority_card(cards, table)))
