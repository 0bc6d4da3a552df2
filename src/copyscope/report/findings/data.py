"""The run's per-item data that the scorecard's nulls and known positives are drawn from
(:class:`Data`, read by :func:`copyscope.report.calibration.load`), and the drawing helpers
the paper modules share: halves of the human windows, resampling with replacement, the sizes
a positive is measured at. Each claim's own null builders and positives live with the claim,
in its paper's module."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import family
from .. import templates as templates_report

HUMAN = templates_report.HUMAN


STATE: dict = {}
"""The process's state while the calibration draws: its data and parameters, and what the
nulls computed once per process (the completion points, the syntax items)."""


@dataclass(frozen=True)
class Data:
    """The per-item data the nulls are drawn from."""

    tokens: pd.DataFrame | None  # human/reference per-token L_t (tokens.parquet)
    words: pd.DataFrame | None  # human/reference per-word RAVEN scores (words.parquet)
    quality: pd.DataFrame | None  # human/reference per-text evaluator NLL (quality.csv)
    corpus_size: int  # tokens of the index the human tokens were matched against
    extraction: pd.DataFrame | None  # every model's per-passage ladder results
    membership: pd.DataFrame | None  # every model's per-item membership scores
    completion: pd.DataFrame | None = None  # every model's per-token completion losses
    cloze: pd.DataFrame | None = None  # every model's per-item name cloze results
    human_texts: list | None = None  # every human set's tagged generated texts (parses)
    training_ngrams: tuple | None = None  # (ranks, counts, cut): training POS n-grams
    syntax: tuple | None = None  # (units, novel, total): the human reference's syntax counts
    syntax_files: tuple | None = None  # (parses, training parses): where ``syntax`` comes from
    style: pd.DataFrame | None = None  # every model's per-passage style measures
    contamination: pd.DataFrame | None = None  # the looked-up items (contamination_items.csv)
    # (Moses words of each human reference text by prompt length, the training vocabulary,
    # the well-formedness judge): RAVEN's novel words (copyscope.report.novel_words)
    human_words: tuple | None = None
    own_scores: pd.DataFrame | None = None  # every model's own-benchmark scores (own/<b>.csv)
    dynamics: pd.DataFrame | None = None  # every checkpoint's scores (tables/dynamics.csv)


Tables = dict[str, pd.DataFrame]


NullBuilder = Callable[[np.random.Generator, Data, Mapping], Tables | None]


def split_windows(windows: np.ndarray, parts: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The distinct ``windows`` shuffled and dealt into ``parts`` groups of (nearly) equal
    size."""
    w = rng.permutation(np.unique(windows))
    return [np.sort(w[i::parts]) for i in range(parts)]


def take(frame: pd.DataFrame, windows: np.ndarray) -> pd.DataFrame:
    return frame[frame["window"].isin(windows)]


def natural_tokens(tok: pd.DataFrame) -> pd.DataFrame:
    """A per-token frame with ``L_nat`` (the natural-only L_t): its own where it has one, else
    ``L`` (text matched against a training split with nothing planted)."""
    return tok if "L_nat" in tok else tok.assign(L_nat=tok["L"])


def first_decoding(params: Mapping, families: tuple[str, ...]) -> str | None:
    """The first decoding of ``sampling.decodings`` in one of ``families``."""
    decodings = params["sampling"]["decodings"]
    for name in decodings:
        if family(name, decodings) in families:
            return name
    return None


def main_words(data: Data, params: Mapping) -> pd.DataFrame | None:
    if data.words is None or not len(data.words):
        return None
    return data.words[data.words["prompt_length"] == params["sampling"]["prompt_length"]]


def half_texts(data: Data, rng) -> tuple[list, list] | None:
    """Two random halves of the human sets' parsed texts (the reference and, where the run
    has it, the contaminated set's true continuations, pooled: halves as large as one set,
    the size the template rules compare; both are human text of held-out plays)."""
    if not data.human_texts:
        return None
    a, b = split_windows(np.arange(len(data.human_texts)), 2, rng)
    return [data.human_texts[i] for i in a], [data.human_texts[i] for i in b]


def resample_windows(frame: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    """``size`` windows of a per-token frame drawn with replacement, renumbered as texts: the
    i-th drawn window's rows (in their order in ``frame``) with ``text`` and ``window`` i, one
    window after the other (rows gathered by one index, not a frame per window)."""
    pick = rng.choice(np.unique(frame["window"].to_numpy()), size=size, replace=True)
    return gather_windows(frame, pick)


def gather_windows(frame: pd.DataFrame, pick: np.ndarray) -> pd.DataFrame:
    """The rows of the windows ``pick`` (in that order, a window as often as it is picked),
    each window's rows in their order in ``frame``, renumbered as texts: the i-th picked
    window's rows get ``text`` and ``window`` i (``pd.concat`` of ``frame``'s window groups
    with ``assign(text=i, window=i)``, the same frame, gathered by one index)."""
    w = frame["window"].to_numpy()
    order = np.argsort(w, kind="stable")
    starts = np.searchsorted(w[order], pick, side="left")
    ends = np.searchsorted(w[order], pick, side="right")
    rows = np.concatenate([order[a:b] for a, b in zip(starts, ends, strict=True)] or [[]])
    label = np.repeat(np.arange(len(pick), dtype=np.int64), ends - starts)
    return frame.iloc[rows.astype(np.int64)].reset_index(drop=True).assign(text=label, window=label)


def copied_words(words: pd.DataFrame, share: float, span: int, rng) -> pd.DataFrame:
    """A per-word frame (columns text, L_train, L_nat, in word order within a text) in which
    round(share · slots) of the ``span``-word slots (each text cut into whole slots from its
    start), drawn at random over all texts, are copied from training: the j-th word of a
    copied slot (j = 0..span−1) gets a longest match of at least j + 1 words in both columns
    (``max(L, j + 1)``), what a verbatim training span gives it against the index (the bound
    :func:`copyscope.report.findings.merrill.copiers.copier_set`'s test checks on a real
    index; the words before the slot can only lengthen the match). Where the frame has RAVEN's
    pointwise scores they are raised with the matches: the training score to 1 + L_train
    (:func:`copyscope.raven.pointwise_scores`), training ∪ context to the larger of it and
    its own, and the natural source is left to follow from ``L_nat``
    (:func:`copyscope.report.raven.with_natural`). The copied words of Lu et al.'s creativity
    row and of RAVEN's n-gram rows."""
    out = words.copy()
    texts = out["text"].to_numpy()
    starts = np.flatnonzero(np.r_[True, texts[1:] != texts[:-1]])
    ends = np.r_[starts[1:], len(texts)]
    slots = [
        s + k for s, e in zip(starts, ends, strict=True) for k in range(0, e - s - span + 1, span)
    ]
    chosen = rng.choice(len(slots), size=round(share * len(slots)), replace=False)
    ramp = np.arange(1, span + 1)
    for column in ("L_train", "L_nat"):
        if column not in out:
            continue
        L = out[column].to_numpy(np.int64).copy()
        for k in chosen:
            L[slots[k] : slots[k] + span] = np.maximum(L[slots[k] : slots[k] + span], ramp)
        out[column] = L
    if {"L_train", "s_train", "s_union"} <= set(out.columns):
        train = np.maximum(out["s_train"].to_numpy(np.int64), 1 + out["L_train"].to_numpy(np.int64))
        union = np.maximum(out["s_union"].to_numpy(np.int64), train)
        out = out.assign(s_train=train, s_union=union).drop(columns="s_natural", errors="ignore")
    return out


class CopiedWords:
    """The copied-words sets: the human continuations' words at the main prompt length dealt
    into two halves (seeded by ``seed``), one copied at each of ``shares``
    (:func:`copied_words`, ``findings.power.copier_span``-word slots), the other the human
    baseline; ``max_size`` the smaller half's windows."""

    def __init__(self, data: Data, params: Mapping, seed: int, shares):
        p = params["findings"]["power"]
        words = data.words[data.words["prompt_length"] == params["sampling"]["prompt_length"]]
        words = words.sort_values(["text", "t"], kind="stable")
        a, b = split_windows(words["window"].to_numpy(), 2, np.random.default_rng([seed, 5]))
        self.human = words[words["window"].isin(b)]
        model = words[words["window"].isin(a)]
        self.sets = {
            share: copied_words(model, share, p["copier_span"], np.random.default_rng([seed, 6, i]))
            for i, share in enumerate(sorted(shares))
        }
        self.max_size = min(len(a), len(b))


def copied_words_of(data: Data, params: Mapping, shared: dict, needs) -> CopiedWords | None:
    """The run's :class:`CopiedWords` at every ``findings.power.copier_shares`` (built once,
    kept in ``shared``); None without the human words' columns ``needs`` or without windows."""
    if data.words is None or not set(needs) <= set(data.words.columns):
        return None
    if "copied_words" not in shared:
        p = params["findings"]["power"]
        copied = CopiedWords(data, params, p["seed"], p["copier_shares"])
        shared["copied_words"] = copied if copied.max_size else None
    return shared["copied_words"]


def dynamics_of(data: Data, quantity: str) -> pd.DataFrame | None:
    """The rows of ``quantity`` of the run's dynamics table (None when it has none)."""
    t = data.dynamics
    if t is None or not len(t):
        return None
    rows = t[t["quantity"] == quantity]
    return rows if len(rows) else None


def sizes_up_to(sizes, largest: int) -> list[int]:
    return sorted({s for s in sizes if s <= largest} | {largest})


def projected_sizes(sizes, observed: int) -> list[int]:
    """Every configured size and the run's own one: the larger ones are projections."""
    return sorted(set(sizes) | {observed})
