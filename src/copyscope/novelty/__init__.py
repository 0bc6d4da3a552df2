"""Novelty stage: query a text set against the training index and summarise n-gram novelty."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..index import Index
from ..sample import prompt_windows
from .metrics import (
    bootstrap_mean,
    bootstrap_novelty,
    completion_loss_table,
    count_matrix,
    length_histogram,
    lower_bound,
    novelty_counts,
    novelty_curve,
)

__all__ = [
    "bootstrap_mean",
    "bootstrap_novelty",
    "completion_loss_table",
    "count_matrix",
    "length_histogram",
    "lower_bound",
    "novelty_counts",
    "novelty_curve",
    "prompt_windows",
    "match_table",
    "novelty_tables",
]


def match_table(index: Index, texts: list[np.ndarray]) -> pd.DataFrame:
    """Per-token L_t and C_t of every text, as a tidy frame (text, t, token, L, C)."""
    m = index.longest_matches(texts)
    lens = np.diff(m.offsets)
    frame = pd.DataFrame(
        {
            "text": np.repeat(np.arange(len(texts)), lens),
            "t": np.concatenate([np.arange(n) for n in lens]) if len(lens) else [],
            "token": np.concatenate(texts) if texts else [],
            "L": m.length,
            "C": m.count,
        }
    )
    return frame


def novelty_tables(
    docs: list[np.ndarray],
    corpus_size: int,
    n_max: int,
    n_boot: int,
    seed: int,
    lb_p: float,
    lb_bits: float,
    label: dict,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(novelty curve with CI and lower bound, nnsl summary, L_t histogram) for one text set."""
    novel, total = count_matrix(docs, n_max)
    n = np.arange(1, n_max + 1)
    with np.errstate(invalid="ignore"):
        point = novelty_curve(docs, n_max)
    lo, hi = bootstrap_novelty(novel, total, n_boot, seed)
    curve = pd.DataFrame(
        {
            **label,
            "n": n,
            "novelty": point,
            "ci_low": lo,
            "ci_high": hi,
            "novel": novel.sum(0),
            "total": total.sum(0),
            "lower_bound": lower_bound(n, corpus_size, lb_p, lb_bits),
        }
    )
    mean, mlo, mhi = bootstrap_mean(docs, n_boot, seed)
    summary = pd.DataFrame(
        [
            {
                **label,
                "texts": len(docs),
                "tokens": int(sum(len(d) for d in docs)),
                "mean_nnsl": mean,
                "ci_low": mlo,
                "ci_high": mhi,
                "median_nnsl": float(np.median(np.concatenate(docs))) if docs else np.nan,
                "corpus_tokens": corpus_size,
            }
        ]
    )
    values, counts = length_histogram(docs)
    hist = pd.DataFrame({**label, "L": values, "tokens": counts})
    return curve, summary, hist
