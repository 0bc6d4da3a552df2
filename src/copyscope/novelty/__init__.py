"""Novelty stage: query a text set against the training index and summarise n-gram novelty."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..corpus.windows import prompt_windows
from ..errors import InputError
from ..index import Index
from ..stats import safe_ratio
from .metrics import (
    bootstrap_mean,
    bootstrap_mean_difference,
    bootstrap_novelty,
    completion_loss_frequency,
    completion_loss_slope,
    completion_loss_table,
    count_matrix,
    length_histogram,
    lower_bound,
    novelty_counts,
    novelty_curve,
)

__all__ = [
    "bootstrap_mean",
    "bootstrap_mean_difference",
    "bootstrap_novelty",
    "completion_loss_frequency",
    "completion_loss_slope",
    "completion_loss_table",
    "count_matrix",
    "length_histogram",
    "lower_bound",
    "novelty_counts",
    "novelty_curve",
    "match_table",
    "novelty_tables",
    "validation_novelty",
    "write_validation_novelty",
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
    docs: list[np.ndarray], corpus_size: int, params: dict, label: dict
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(novelty curve with CI and lower bound, nnsl summary, L_t histogram) for one text set.

    ``params`` is the ``novelty:`` config block (``n_max``, ``bootstrap``, ``seed``,
    ``lower_bound: {p, bits_per_token}``).
    """
    n_max, n_boot, seed = params["n_max"], params["bootstrap"], params["seed"]
    lb_p, lb_bits = params["lower_bound"]["p"], params["lower_bound"]["bits_per_token"]
    novel, total = count_matrix(docs, n_max)
    n = np.arange(1, n_max + 1)
    with np.errstate(invalid="ignore"):
        point = safe_ratio(novel.sum(0), total.sum(0))  # the pooled curve, from the counts
    lo, hi = bootstrap_novelty(novel, total, n_boot, seed)
    curve = pd.DataFrame(
        {
            **label,
            "n": n,
            "novelty": point,
            "novelty_lo": lo,
            "novelty_hi": hi,
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
                "mean_nnsl_lo": mlo,
                "mean_nnsl_hi": mhi,
                "median_nnsl": float(np.median(np.concatenate(docs))) if docs else np.nan,
                "corpus_tokens": corpus_size,
            }
        ]
    )
    values, counts = length_histogram(docs)
    hist = pd.DataFrame({**label, "L": values, "tokens": counts})
    return curve, summary, hist


def validation_queries(
    docs: list[np.ndarray], params: dict, source="validation split"
) -> tuple[list[dict], list[np.ndarray]]:
    """(windows, continuations as int64): the windows of ``params.prompt_tokens`` +
    ``params.continuation_tokens`` cut from ``docs`` (:func:`prompt_windows`, at most
    ``params.max_windows``, ``params.seed``) and the continuations the index is queried with."""
    p = params
    windows = prompt_windows(
        docs, p["prompt_tokens"], p["continuation_tokens"], p["max_windows"], p["seed"]
    )
    if not windows:
        raise InputError(
            source,
            "no validation document is long enough for one prompt + continuation "
            f"({p['prompt_tokens']} + {p['continuation_tokens']} tokens)",
        )
    return windows, [np.asarray(w["continuation"], dtype=np.int64) for w in windows]


def write_validation_queries(valid_npy, valid_json, params: dict, out) -> int:
    """Write the continuations of :func:`validation_queries` (the queries of
    :func:`write_validation_novelty`) for the per-shard fan-out; returns their number."""
    from ..index.fanout import save_queries
    from ..tokenize import read_split

    _, _, docs = read_split(valid_npy, valid_json)
    _, conts = validation_queries(docs, params, valid_json)
    save_queries(out, conts)
    return len(conts)


def validation_novelty(
    index: Index,
    docs: list[np.ndarray],
    doc_ids: list[str],
    params: dict,
    label: dict,
    source="validation split",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(matches, curve, summary, histogram) of the validation split's continuations.

    Windows of ``params.prompt_tokens`` + ``params.continuation_tokens`` are cut from ``docs``
    (:func:`prompt_windows`, at most ``params.max_windows``, ``params.seed``); every
    continuation is matched against ``index`` (:func:`match_table`, with the ``doc_id`` of its
    document) and summarised by :func:`novelty_tables` (``n_max``, ``bootstrap``, ``seed``,
    ``lower_bound.p`` / ``.bits_per_token``; ``label`` columns first).  The curve also gets
    ``corpus_tokens``, the index size.  ``source`` names the split in errors.
    """
    p = params
    windows, conts = validation_queries(docs, params, source)
    frame = match_table(index, conts)
    frame.insert(1, "doc_id", [doc_ids[windows[i]["doc"]] for i in frame["text"]])
    lengths = np.split(frame["L"].to_numpy(), np.cumsum([len(c) for c in conts])[:-1])
    curve, summary, hist = novelty_tables(lengths, index.n_tokens, p, label)
    curve["corpus_tokens"] = index.n_tokens
    return frame, curve, summary, hist


def write_validation_novelty(
    index_dir, valid_npy, valid_json, params: dict, tokenizer_name: str, out: dict, matches=None
) -> pd.DataFrame:
    """:func:`validation_novelty` of a tokenized validation split against the index in
    ``index_dir``; writes ``out["matches"]`` (parquet), ``out["curve"]``, ``out["summary"]``,
    ``out["hist"]`` (csv) and returns the summary.  The label columns are ``text_set``
    (validation), ``tokenizer`` (``tokenizer_name``) and ``unit`` (of the split's tokenizer
    kind: tokens, words, …).  With ``matches`` (the merged per-shard fan-out file of
    :func:`write_validation_queries`'s queries) L_t and C_t are read from it."""
    from ..index import open as open_index
    from ..io import atomic_path, write_csv
    from ..tokenize import kind_class, read_split

    _, meta, docs = read_split(valid_npy, valid_json)
    if not docs:
        raise InputError(valid_json, "the validation split has no documents")
    unit = kind_class(meta["kind"]).unit
    label = {"text_set": "validation", "tokenizer": tokenizer_name, "unit": unit}
    tables = validation_novelty(
        open_index(index_dir, matches), docs, meta["doc_ids"], params, label, valid_json
    )
    with atomic_path(out["matches"], suffix=".parquet") as tmp:
        tables[0].to_parquet(tmp, index=False)
    for key, table in zip(("curve", "summary", "hist"), tables[1:], strict=True):
        write_csv(out[key], table)
    return tables[2]
