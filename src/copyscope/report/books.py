"""Name cloze on a researcher's own books (:mod:`copyscope.membership.books`; Chang et al.
2023; Zhang et al. 2024): per model and book, the items, top-1 accuracy case-insensitive and
case-sensitive with 95% percentile bootstrap intervals over items
(:func:`copyscope.report.memorization.bootstrap_means`), the chance level (mean of 1 /
candidates) and whether the book is known to be in training. Without books
(``analysis.membership.books`` empty) the table is empty and summary.md has no section. A
book without a scored item (no names, no passage with one name, every item longer than the
model's context) has its row with 0 items and the reason
(:func:`copyscope.membership.books.no_item_reason`), in the table and in summary.md.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..io import write_csv
from . import fmt
from .jobs import Input, Output, Params, per_model
from .memorization import bootstrap_means

NAME = "books"
HELP = "name cloze accuracy on the researcher's own books"
INPUTS = {
    "books": Input(("MODEL",), "per-item name cloze on the books (.csv) of a model", files=per_model("membership/{model}/books.csv", "book_models")),
    "status": Input(("MODEL",), "one row per book of a model: names, passages, items, scored, why none (.csv)", files=per_model("membership/{model}/books_status.csv", "book_models")),
}
OUTPUTS = {
    "table": Output(
        "tables/membership_books.csv",
        "name cloze accuracy per model and book with 95 percent CIs (.csv)",
        "membership_books",
        "literature",
    ),
}
SHOWN_WITH = "books"  # its files are in the HTML report only when books are given
PARAMS = Params(
    "the config block analysis.membership (bootstrap, seed)",
    of=lambda p: {k: p.membership[k] for k in ("bootstrap", "seed")},
)
SUMMARY_TABLES = ("membership_books",)

COLUMNS = [
    "model",
    "book",
    "items",
    "acc_insensitive",
    "acc_insensitive_lo",
    "acc_insensitive_hi",
    "acc_sensitive",
    "acc_sensitive_lo",
    "acc_sensitive_hi",
    "chance",
    "in_training",
    "reason",
]


def books_table(
    cloze: pd.DataFrame, n_boot: int, seed: int, status: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per model and book of a books cloze table
    (:data:`copyscope.membership.books.BOOK_COLUMNS`): :data:`COLUMNS`, in table order; with
    ``status`` (the models' ``books_status.csv`` with a ``model`` column,
    :data:`copyscope.membership.books.STATUS_COLUMNS`), in its order, a book without a scored
    item a row of 0 items, no accuracy and its ``reason``."""
    rows = {}
    for (model, book), g in cloze.groupby(["model", "play"], sort=False):
        hits = g[["correct_insensitive", "correct_sensitive"]].to_numpy(float)
        point, lo, hi = bootstrap_means(hits, n_boot, seed)
        known = g["in_training"].dropna()
        rows[model, book] = (
            {
                "model": model,
                "book": book,
                "items": len(g),
                "acc_insensitive": point[0],
                "acc_insensitive_lo": lo[0],
                "acc_insensitive_hi": hi[0],
                "acc_sensitive": point[1],
                "acc_sensitive_lo": lo[1],
                "acc_sensitive_hi": hi[1],
                "chance": float((1 / g["n_candidates"]).mean()),
                "in_training": int(known.iloc[0]) if len(known) else None,
                "reason": "",
            }
        )
    if status is not None:
        rows = {
            (r.model, r.book): rows.get((r.model, r.book)) or _no_items(r)
            for r in status.itertuples()
        }
    frame = pd.DataFrame(list(rows.values()), columns=COLUMNS)
    frame["in_training"] = frame["in_training"].astype("Int64")
    return frame


def _no_items(status) -> dict:
    """The row of a book without a scored item (a row of ``books_status.csv``)."""
    row = dict.fromkeys(COLUMNS)
    known = status.in_training
    return row | {
        "model": status.model,
        "book": status.book,
        "items": 0,
        "in_training": None if pd.isna(known) else int(known),
        "reason": status.reason if isinstance(status.reason, str) else "",
    }


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """The table from every model's books cloze table and book status (none: an empty
    table)."""
    statuses = [
        pd.read_csv(p, keep_default_na=False, na_values={"in_training": [""]}).assign(model=m)
        for m, p in inputs["status"]
    ]
    if not statuses:
        write_csv(out["table"], pd.DataFrame(columns=COLUMNS))
        return
    parts = [p for p in (pd.read_csv(p) for _, p in inputs["books"]) if len(p)]
    cloze = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["model", "play"])
    status = pd.concat(statuses, ignore_index=True)
    write_csv(out["table"], books_table(cloze, params["bootstrap"], params["seed"], status))


def _known(value) -> str:
    if pd.isna(value):
        return "membership not known"
    return "in training" if int(value) else "not in training"


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Per model and book: items, case-insensitive and case-sensitive accuracy with their
    95% CIs, chance, known membership; nothing without books."""
    table = tables["membership_books"]
    if not len(table):
        return []
    lines = [
        "",
        "## Name cloze on your books",
        "",
        "Top-1 accuracy, case-insensitive and case-sensitive (95% CIs over items), against "
        "chance (1 / candidates):",
        "",
    ]
    for r in table.itertuples():
        if not r.items:
            lines.append(f"- {r.model} on {r.book}: no items: {r.reason}")
            continue
        lines.append(
            f"- {r.model} on {r.book}: {r.items} items; accuracy {fmt(r.acc_insensitive, 2)} "
            f"[{fmt(r.acc_insensitive_lo, 2)}, {fmt(r.acc_insensitive_hi, 2)}], "
            f"case-sensitive {fmt(r.acc_sensitive, 2)} [{fmt(r.acc_sensitive_lo, 2)}, "
            f"{fmt(r.acc_sensitive_hi, 2)}]; chance {fmt(r.chance, 2)}; {_known(r.in_training)}"
        )
    return lines
