"""Which copied spans a trace shows, and which sources: the options OLMoTrace's users ask for.

``copyscope trace`` and the explorer list the maximal copied spans of at least ``min_len``
tokens (:func:`copyscope.index.maximal_spans` of L_t). :func:`select_spans` then keeps some
of them, in OLMoTrace's order (Liu et al. 2025, "OLMoTrace: Tracing Language Model Outputs
Back to Trillions of Training Tokens", §3 step 2; its service ``allenai/infinigram-api``,
pull requests #41 "maximum span density" and #51 "span ranking method, documents per span"):

1. :func:`rare` (``--max-span-count F``): only spans occurring at most F times in the index
   (OLMoTrace's ``maximum_frequency``, infini-gram's ``attribute(max_cnt=F)``);
2. :func:`span_cap` (``--max-span-density D``): at most ⌈D · n⌉ spans for a text of n tokens
   (``maximum_span_density``), the first of them in the order :func:`ranked`
   (``--rank-spans-by``): the longest (``length``) or the lowest sum of the tokens'
   unigram log-probabilities in the index (``unigram_logprob_sum``, :func:`unigram_logprob`,
   :func:`logprob_sum`: the rarest tokens);

and the sources of a span are either its first occurrences (``--limit``, ``explorer.sources``)
or, with ``--docs-per-span N``, one occurrence in each of its first N documents
(:func:`distinct_documents`, :meth:`copyscope.index.Index.locate_documents`). Spans are always
listed in text order. Every option off (:data:`OFF`, :class:`SpanOptions` ``()``) keeps every span:
the output of before.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import FlagError

RANKINGS = ("length", "unigram_logprob_sum")
"""How the density cap ranks spans (OLMoTrace's ``span_ranking_method``)."""


@dataclass(frozen=True)
class SpanOptions:
    """The span options of a trace (module docstring); ``None``: off. Checked on creation,
    an error naming the command-line flag."""

    max_count: int | None = None
    max_density: float | None = None
    rank_by: str = "length"
    docs_per_span: int | None = None

    def __post_init__(self):
        for flag, value in (("--max-span-count", self.max_count),
                            ("--docs-per-span", self.docs_per_span)):  # fmt: skip
            if value is not None and (not isinstance(value, int | np.integer) or value < 1):
                raise FlagError(flag, f"expected a positive integer, found {value!r}")
        d = self.max_density
        if d is not None and (isinstance(d, bool) or not isinstance(d, int | float) or not d > 0
                              or not math.isfinite(d)):  # fmt: skip
            raise FlagError("--max-span-density", f"expected a number > 0, found {d!r}")
        if self.rank_by not in RANKINGS:
            raise FlagError("--rank-spans-by", f"expected one of {', '.join(RANKINGS)}, found "
                            f"{self.rank_by!r}")  # fmt: skip

    @property
    def filters(self) -> bool:
        """Whether a span can be dropped (a frequency filter or a density cap is set)."""
        return self.max_count is not None or self.max_density is not None

    @property
    def needs_logprobs(self) -> bool:
        """Whether spans are ranked by their unigram log-probability sum (reported with them)."""
        return self.rank_by == "unigram_logprob_sum"

    def describe(self) -> str:
        """The options that are on, in words (empty when none is): for a trace's heading."""
        parts = []
        if self.max_count is not None:
            parts.append(f"at most {self.max_count} occurrence(s) each")
        if self.max_density is not None:
            by = "longest" if self.rank_by == "length" else "lowest unigram log-prob sum"
            parts.append(f"at most {self.max_density:g} per token ({by} first)")
        if self.docs_per_span is not None:
            parts.append(f"up to {self.docs_per_span} document(s) per span")
        return "; ".join(parts)


OFF = SpanOptions()
"""Every option off: every maximal span and its first occurrences (the default)."""


def rare(counts: Sequence[int], max_count: int | None) -> np.ndarray:
    """Which spans pass the frequency filter: count ≤ ``max_count`` (every span when ``None``).

    OLMoTrace's ``maximum_frequency`` (infini-gram's ``attribute``, ``max_cnt``): a maximal
    span found more than F times in the training data is dropped, so only rare spans remain.
    Dropping a maximal span never uncovers a shorter one: any copied span inside it that ends
    where it ends occurs at least as often, and one ending earlier is not maximal."""
    counts = np.asarray(counts, dtype=np.int64)
    if max_count is None:
        return np.ones(counts.shape[0], dtype=bool)
    return counts <= max_count


def span_cap(n_tokens: int, max_density: float | None) -> int | None:
    """The most spans a text of ``n_tokens`` tokens may show: ⌈D · n⌉ (``None``: no cap).

    OLMoTrace's ``maximum_span_density`` D, spans per response token (infinigram-api PR #41;
    the paper keeps ⌈0.05 · L⌉ spans of an L-token response). D is taken as the decimal it is
    written as, so 0.07 × 100 is 7 spans, not ⌈7.000000000000001⌉ = 8 of floating point."""
    if max_density is None:
        return None
    return math.ceil(Fraction(str(max_density)) * int(n_tokens))


def unigram_logprob(counts, total: int) -> np.ndarray:
    """ln(c / N) of every token count c in an index of N tokens (separators included), −∞
    for a token the index lacks (it is in no copied span).

    OLMoTrace's unigram log-probability (infini-gram's engine: log count − log total over its
    own unigram counts)."""
    counts = np.asarray(counts, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.log(counts) - np.log(float(total))


def logprob_sum(token_logprobs, start: int, end: int) -> float:
    """Σ ln p(x_t) over the span [start, end): its unigram log-probability sum (OLMoTrace's
    ``unigram_logprob_sum``, PR #51; lower = rarer tokens = more interesting), summed exactly
    rounded (``math.fsum``) so equal token multisets give equal sums."""
    return math.fsum(float(x) for x in token_logprobs[start:end])


def ranked(spans: Sequence[tuple[int, int]], rank_by: str, sums=None) -> list[int]:
    """The spans' indices, best first: ``length`` — longest first; ``unigram_logprob_sum`` —
    lowest ``sums[i]`` (:func:`logprob_sum`) first; ties: the earlier span first.

    OLMoTrace's ``span_ranking_method`` (a stable sort of spans in text order, PR #51)."""
    if rank_by == "length":
        return sorted(range(len(spans)), key=lambda i: (-(spans[i][1] - spans[i][0]), i))
    if rank_by == "unigram_logprob_sum":
        return sorted(range(len(spans)), key=lambda i: (sums[i], i))
    raise ValueError(f"unknown ranking {rank_by!r} (expected one of {RANKINGS})")


def select_spans(
    spans: Sequence[tuple[int, int]], counts, n_tokens: int, options: SpanOptions, sums=None
) -> list[int]:
    """Indices of the spans shown, in text order: those that pass :func:`rare`, and of them
    the first :func:`span_cap` by :func:`ranked` (``sums``: each span's :func:`logprob_sum`,
    needed for that ranking). Every span with the options off."""
    keep = np.flatnonzero(rare(counts, options.max_count)).tolist()
    cap = span_cap(n_tokens, options.max_density)
    if cap is None or cap >= len(keep):
        return keep
    order = ranked(
        [spans[i] for i in keep],
        options.rank_by,
        None if sums is None else [sums[i] for i in keep],
    )
    return sorted(keep[j] for j in order[:cap])


def distinct_documents(occurrences, n: int) -> list:
    """The first occurrence of each of the first ``n`` documents among ``occurrences``
    ((doc id, doc number, offset), in the order read; any iterable, read no further than
    needed), listed by position (document number, then offset), as :meth:`Index.locate` lists.

    OLMoTrace's ``maximum_documents_per_span`` caps the documents listed per span (PR #51);
    there every occurrence is a document card. Here two occurrences in one document list it
    once, so N documents are N different sources."""
    seen: set[int] = set()
    out = []
    for occ in occurrences:
        if len(seen) == n:
            break
        if occ[1] not in seen:
            seen.add(occ[1])
            out.append(occ)
    return sorted(out, key=lambda occ: (occ[1], occ[2]))
