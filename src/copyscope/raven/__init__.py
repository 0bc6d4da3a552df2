"""RAVEN n-gram novelty of McCoy et al. (2023), "How much do language models copy from their
training data? Evaluating linguistic novelty in text generation using RAVEN" (code:
tommccoy1/raven), on Moses word ids.

A scored text is S = prompt + generation; only generated tokens are scored.  The *pointwise
(duplication) score* of generated token j (0-based within the generation) is

    score_j = min(1 + ℓ_j, j + 2)

where ℓ_j is the length of the longest suffix of S ending at that token that occurs in the
source — so 1 + ℓ_j is the size of the smallest novel n-gram ending there — and the clipping at
j + 2 ("whole generated prefix found") keeps every n-gram inside the generation.  Sources:

* ``train``: the training corpus (a copyscope suffix-array :class:`~copyscope.index.Index`);
* ``context``: S before the token (prompt + earlier generated tokens), see
  :func:`context_lengths`;
* ``union``: max(train, context) — the paper's headline source: a token is novel only if new
  with respect to both.

Aggregates pool token occurrences over all generations: the *truncated pointwise duplication
score* mean(min(score, 5)); dup(n) = #{tokens with score ≥ n + 1} / Σ_gen max(0, len − n + 1)
and novelty(n) = 1 − dup(n); *supercopying* = tokens with score ≥ 101 (a copied n-gram of ≥ 100
words), reported as maximal training passages with their training counts.

Differences from RAVEN's public code (the authors' repository, github.com/tommccoy1/raven)
and paper (McCoy et al. 2023, TACL):

* with an empty prompt, RAVEN's code scores every token of the *opening run* of the
  generation (the first word and each repetition of it that directly follows, e.g. the three
  ``a`` of ``a a a b``) one higher than copyscope: its loop tries the n-grams ending at position
  i only up to size i and, finding all of them in the context, gives i + 2 ("whole prefix
  found"), although the (i + 1)-gram — the whole text so far — cannot occur in the i tokens
  before it. ``a a a b`` → RAVEN 2, 3, 4, 1, copyscope 1, 2, 3, 1. After the opening run, and
  everywhere when the prompt is not empty, the two agree (after the j + 2 clipping). A bug
  copyscope does not copy;
* RAVEN streams the training lines as one sequence, so its training n-grams can cross document
  boundaries; copyscope's index separates documents (like Rusty-DAWG), so passages spanning two
  training documents do not count as found.  Indexing the corpus as a single document gives
  RAVEN's behaviour.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..index import maximal_spans
from ..novelty.metrics import bootstrap_mean, bootstrap_novelty, count_matrix, novelty_curve
from .kernels import MAX_TOKEN, context_lengths_flat, context_lengths_kernel

__all__ = [
    "SOURCES",
    "context_lengths",
    "context_lengths_batch",
    "dup_curve",
    "pointwise_scores",
    "raven_tables",
    "score_texts",
    "supercopies",
    "supercopy_rate",
    "text_counts",
    "truncated_score",
    "truncated_values",
]

SOURCES = ("train", "context", "union")


def _as_ids(seq, name="seq") -> np.ndarray:
    a = np.asarray(seq)
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence of token ids, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name}: expected integer token ids, got {a.dtype}")
    a = a.astype(np.int64, copy=False)
    if a.size and (a.min() < 0 or a.max() >= MAX_TOKEN):
        raise ValueError(f"{name}: token ids must lie in [0, 2**32)")
    return np.ascontiguousarray(a)


def context_lengths(seq: np.ndarray) -> np.ndarray:
    """Context match length of every position of ``seq`` (RAVEN's "context" source).

    out[i] = length of the longest suffix of seq[0..i] that occurs (token-aligned) entirely
    inside seq[:i], i.e. ending at a position < i; the earlier occurrence may overlap the
    current n-gram as long as it ends before i.  0 when seq[i] does not occur before i.
    Example: [a b a b a] → [0 0 1 2 3]; [a a a a] → [0 1 2 3].

    Computed with an online suffix automaton in compiled code (linear time; see
    :mod:`copyscope.raven.kernels`).  Token ids must lie in [0, 2^32).
    """
    s = _as_ids(seq)
    out = np.zeros(s.shape[0], dtype=np.int64)
    context_lengths_kernel(s, out)
    return out


def context_lengths_batch(seqs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """:func:`context_lengths` of many sequences in one compiled, parallel call (flat array +
    offsets, no Python work per sequence beyond concatenating and splitting)."""
    arrays = [_as_ids(s, f"seqs[{i}]") for i, s in enumerate(seqs)]
    if not arrays:
        return []
    lens = np.array([a.shape[0] for a in arrays], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    flat = np.concatenate(arrays)
    out = np.zeros(flat.shape[0], dtype=np.int64)
    context_lengths_flat(flat, offsets, out)
    return np.split(out, offsets[1:-1])


def _clipped(match_len: np.ndarray) -> np.ndarray:
    """Pointwise scores of generated tokens from their match lengths ℓ_j (longest suffix found
    in the source, possibly reaching into the prompt): min(1 + ℓ_j, j + 2)."""
    ell = np.asarray(match_len, dtype=np.int64)
    return np.minimum(1 + ell, np.arange(ell.shape[0], dtype=np.int64) + 2)


def _scores_from_lengths(train_len_gen, context_len_text, n_prompt: int) -> dict[str, np.ndarray]:
    train = _clipped(train_len_gen)
    context = _clipped(np.asarray(context_len_text)[n_prompt:])
    if train.shape != context.shape:
        raise ValueError(
            f"train_len_gen has {train.shape[0]} entries for a generation of "
            f"{context.shape[0]} tokens"
        )
    return {"train": train, "context": context, "union": np.maximum(train, context)}


def pointwise_scores(
    train_len_gen: np.ndarray, prompt: np.ndarray, generation: np.ndarray
) -> dict[str, np.ndarray]:
    """RAVEN's pointwise duplication scores of the generated tokens, per source.

    For generated token j (0-based), score_j = min(1 + ℓ_j, j + 2), where ℓ_j is the length of
    the longest suffix of S = prompt + generation ending at that token found in the source:
    the size of the smallest novel n-gram ending there, clipped so that no n-gram reaches into
    the prompt (a whole generated prefix found gives j + 2).  Returns int64 arrays (one per
    generated token) under

    * ``"train"`` — from ``train_len_gen``, the index's L_t (``Index.longest_matches``)
      computed on the *generation alone*.  That is exactly the clipped training score:
      1 + L_j ≤ j + 2 always, and since every substring of a corpus n-gram is in the corpus,
      the longest found suffix of S at that token, cut to its last j + 1 tokens, is the longest
      found suffix among those lying inside the generation, i.e. L_j
      (so min(1 + ℓ_j, j + 2) = 1 + min(ℓ_j, j + 1) = 1 + L_j);
    * ``"context"`` — from :func:`context_lengths` on S (matches of S before the token,
      prompt included), then clipped;
    * ``"union"`` — max(train, context), the paper's headline source.

    With an empty prompt the opening run of the generation (its first token and the copies of
    it that directly follow) has context scores 1, 2, 3, …; RAVEN's code gives 2, 3, 4, … there
    (``a a a b`` → RAVEN 2, 3, 4, 1, here 1, 2, 3, 1; see the module docstring), a bug copyscope
    does not copy.
    """
    p = _as_ids(prompt, "prompt")
    g = _as_ids(generation, "generation")
    return _scores_from_lengths(train_len_gen, context_lengths(np.concatenate([p, g])), len(p))


def score_texts(
    train_len: Sequence[np.ndarray],
    prompts: Sequence[np.ndarray],
    generations: Sequence[np.ndarray],
) -> dict[str, list[np.ndarray]]:
    """:func:`pointwise_scores` of many texts, with all context lengths in one compiled call.

    ``train_len`` are the per-generation L_t, e.g.
    ``index.longest_matches(generations).split_lengths()``.  Returns, per source, one score
    array per text.
    """
    if not (len(train_len) == len(prompts) == len(generations)):
        raise ValueError("train_len, prompts and generations must have the same length")
    ps = [_as_ids(p, f"prompts[{i}]") for i, p in enumerate(prompts)]
    gs = [_as_ids(g, f"generations[{i}]") for i, g in enumerate(generations)]
    ctx = context_lengths_batch([np.concatenate([p, g]) for p, g in zip(ps, gs, strict=True)])
    out: dict[str, list[np.ndarray]] = {s: [] for s in SOURCES}
    for tl, c, p in zip(train_len, ctx, ps, strict=True):
        for src, arr in _scores_from_lengths(tl, c, len(p)).items():
            out[src].append(arr)
    return out


def truncated_values(scores: Sequence[np.ndarray], cap: int = 5) -> list[np.ndarray]:
    """Per text, its pointwise scores truncated at ``cap``: min(score, cap), the values whose
    pooled mean is the truncated pointwise duplication score (:func:`truncated_score`)."""
    return [np.minimum(np.asarray(s), cap) for s in scores]


_truncated = truncated_values


def truncated_score(scores: Sequence[np.ndarray], cap: int = 5) -> float:
    """RAVEN's "truncated pointwise duplication score": mean(min(score, cap)) pooled over all
    generated tokens of all texts (NaN when there are none)."""
    return float(bootstrap_mean(_truncated(scores, cap), n_boot=0)[0])


def _as_lengths(scores: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Pointwise scores as Merrill-style match lengths L = score − 1 (see :func:`dup_curve`)."""
    return [np.asarray(s, dtype=np.int64) - 1 for s in scores]


def text_counts(scores: Sequence[np.ndarray], n_max: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(novel, total) n-gram counts per text, arrays of shape (texts, n_max): for each text
    and n = 1..n_max, its generated tokens that end a novel n-gram (score < n + 1) and all
    that end a full n-gram, the items whose pooled ratio is :func:`dup_curve`'s novelty(n)
    (:func:`copyscope.novelty.metrics.count_matrix` of L = score − 1)."""
    return count_matrix(_as_lengths(scores), n_max)


def dup_curve(scores: Sequence[np.ndarray], n_max: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """(novelty(n), dup(n)) for n = 1..n_max, RAVEN's n-gram duplication curve.

    dup(n) = #{tokens with score ≥ n + 1} / Σ_gen max(0, len − n + 1), pooled over texts, and
    novelty(n) = 1 − dup(n).  With L = score − 1 this is exactly Merrill et al.'s novelty(n)
    (:func:`copyscope.novelty.metrics.novelty_curve`): clipping gives score ≤ j + 2, so every
    token with score ≥ n + 1 has a full n-gram (j ≥ n − 1), and "L_j < n" is "score < n + 1".
    NaN where no text has n tokens.
    """
    with np.errstate(invalid="ignore"):
        novelty = novelty_curve(_as_lengths(scores), n_max)
    return novelty, 1.0 - novelty


def supercopy_rate(scores: Sequence[np.ndarray], min_score: int = 101) -> tuple[float, float]:
    """RAVEN's supercopying rate: (share of generated tokens with score ≥ ``min_score``, share
    of texts containing at least one such token).  score ≥ 101 means the token ends a copied
    n-gram of ≥ 100 words.  NaN for no tokens / no texts."""
    hits = [int(np.count_nonzero(np.asarray(s) >= min_score)) for s in scores]
    tokens = sum(len(s) for s in scores)
    token_rate = sum(hits) / tokens if tokens else float("nan")
    text_rate = float(np.mean([h > 0 for h in hits])) if hits else float("nan")
    return token_rate, text_rate


def supercopies(
    index,
    generations: Sequence[np.ndarray],
    train_len: Sequence[np.ndarray],
    min_len: int = 100,
    limit: int = 3,
) -> pd.DataFrame:
    """Every maximal passage of ≥ ``min_len`` tokens copied from training (RAVEN's
    supercopies: tokens with training score ≥ min_len + 1; passage length = score − 1).

    ``train_len`` are the L_t of each generation alone (as for :func:`pointwise_scores`);
    passages come from :func:`copyscope.index.maximal_spans`.  Columns: ``text`` (position of
    the generation in ``generations``), ``start``/``end`` ([start, end) token positions in the
    generation), ``length``, ``count`` (occurrences in the training corpus, ``index.count``),
    ``sources`` ("docid@offset" of up to ``limit`` occurrences, ``index.locate``, joined with
    ";").
    """
    rows, ngrams = [], []
    for k, (g, tl) in enumerate(zip(generations, train_len, strict=True)):
        g = np.asarray(g)
        for a, b in maximal_spans(np.asarray(tl), min_len):
            ngrams.append(g[a:b])
            rows.append({"text": k, "start": a, "end": b, "length": b - a})
    if rows:  # one batched count and one batched locate for every passage
        for row, count, where in zip(
            rows, index.count_many(ngrams), index.locate_many(ngrams, limit), strict=True
        ):
            row["count"] = int(count)
            row["sources"] = ";".join(f"{d}@{o}" for d, _, o in where)
    columns = ["text", "start", "end", "length", "count", "sources"]
    return pd.DataFrame(rows, columns=columns).astype({c: np.int64 for c in columns[:-1]})


def raven_tables(
    scores: Mapping[str, Sequence[np.ndarray]],
    label: Mapping | None = None,
    *,
    cap: int = 5,
    n_max: int = 10,
    min_score: int = 101,
    n_boot: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """Tidy RAVEN summary of one (model, decoding, …) setting: one row per source.

    ``scores`` maps source name ("train", "context", "union", as from :func:`score_texts`) to
    per-text score arrays; ``label`` (e.g. {"model": …, "decoding": …}) is prepended to every
    row, so rows of many settings concatenate with ``pd.concat``.  Columns: label keys,
    ``source``, ``texts``, ``tokens``, ``truncated_score`` (cap ``cap``) with bootstrap
    ``truncated_score_lo``/``truncated_score_hi`` over texts (NaN if ``n_boot`` = 0),
    ``supercopy_token_rate``, ``supercopy_text_rate``, and ``novelty_1`` … ``novelty_{n_max}``
    (with ``novelty_{n}_lo``/``_hi`` when ``n_boot`` > 0).
    """
    label = dict(label or {})
    rows = []
    for source, per_text in scores.items():
        per_text = list(per_text)
        point, lo, hi = bootstrap_mean(_truncated(per_text, cap), n_boot, seed)
        tok_rate, text_rate = supercopy_rate(per_text, min_score)
        novelty, _ = dup_curve(per_text, n_max)
        row = {
            **label,
            "source": source,
            "texts": len(per_text),
            "tokens": int(sum(len(s) for s in per_text)),
            "truncated_score": float(point),
            "truncated_score_lo": lo,
            "truncated_score_hi": hi,
            "supercopy_token_rate": tok_rate,
            "supercopy_text_rate": text_rate,
        }
        row.update({f"novelty_{n}": float(novelty[n - 1]) for n in range(1, n_max + 1)})
        if n_boot > 0:
            novel, total = text_counts(per_text, n_max)
            with warnings.catch_warnings():  # n with no full n-gram: all-NaN quantiles
                warnings.simplefilter("ignore", RuntimeWarning)
                nlo, nhi = bootstrap_novelty(novel, total, n_boot, seed)
            for n in range(1, n_max + 1):
                row[f"novelty_{n}_lo"] = float(nlo[n - 1])
                row[f"novelty_{n}_hi"] = float(nhi[n - 1])
        rows.append(row)
    return pd.DataFrame(rows)
