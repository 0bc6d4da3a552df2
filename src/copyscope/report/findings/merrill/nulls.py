"""Merrill et al. 2024: the nulls the n-gram novelty rows share: the novelty tables of a
null's (model, decoding, tokens) sets, built by the novelty report's builders
(:func:`novelty_nulls`), and two halves of the human continuations dealt into a claim's sets
(:func:`human_halves` with :func:`pure_half`, :func:`pure_half_contaminated`,
:func:`sized_halves` or :func:`constrained_half`)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ... import novelty as novelty_report
from ..core import Tables, model_size
from ..data import HUMAN, Data, NullBuilder, first_decoding, natural_tokens, split_windows, take


def novelty_nulls(
    sets: list[tuple[str, str, pd.DataFrame]],
    data: Data,
    params: Mapping,
    sources: tuple[str, ...] = ("all", "natural"),
    full: bool = False,
) -> Tables:
    """novelty_samples, nnsl_samples and novelty_texts of the given (model, decoding, tokens)
    sets, built by the novelty report's builders, for ``sources`` (the ones the claim reads);
    up to ``findings.n_max``, or with ``full`` up to ``novelty.n_max`` (the workflow's)."""
    sizes = {m: data.corpus_size for m, _, _ in sets}
    f = params["findings"]
    # most rules read novelty(n) up to findings.n_max only; the bootstrap resamples whole
    # texts, so the curve's first n_max points and their intervals are those of the full curve
    n_max = params["novelty"]["n_max"] if full else min(params["novelty"]["n_max"], f["n_max"])
    novelty = {**params["novelty"], "n_max": n_max}
    sets = [(m, d, natural_tokens(t)) for m, d, t in sets]
    curves, nnsl = novelty_report.build(
        sets, sizes, novelty, params["sampling"]["decodings"], sources=sources
    )
    texts = novelty_report.text_novelty_table(sets, params["sampling"], novelty["n_max"], sources)
    return {"novelty_samples": curves, "nnsl_samples": nnsl, "novelty_texts": texts}


def human_halves(sets_of, all_text: bool = False, full: bool = False) -> NullBuilder:
    """A null of two halves of the human continuations (model tokens): ``sets_of(a, b,
    params)`` deals the halves' tokens into the claim's (model, decoding, tokens) sets (None:
    no such null in this run); matched against all training text with ``all_text``, else
    ``findings.novelty_source``'s; the whole curves with ``full`` (:func:`novelty_nulls`)."""

    def build(rng, data, params):
        if data.tokens is None:
            return None
        f = params["findings"]
        a, b = split_windows(data.tokens["window"].to_numpy(), 2, rng)
        sets = sets_of(take(data.tokens, a), take(data.tokens, b), params)
        if sets is None:
            return None
        source = "all" if all_text else f["novelty_source"]
        return novelty_nulls(sets, data, params, (source,), full)

    return build


def pure_half(ta, tb, params):
    """Half A as a model's pure samples, half B as the human baseline."""
    return [(*HUMAN, tb), ("null", params["findings"]["pure_decoding"], ta)]


def pure_half_contaminated(ta, tb, params):
    """Half A as a model's pure samples, half B as both human baselines (clean and
    contaminated)."""
    return [(*HUMAN, tb), ("human", "contaminated", tb),
            ("null", params["findings"]["pure_decoding"], ta)]  # fmt: skip


def sized_halves(ta, tb, params):
    """The halves as the pure samples of the smallest and the largest gpt2 model of the zoo
    (None without two sizes)."""
    zoo, pure = params["models"]["zoo"], params["findings"]["pure_decoding"]
    sized = sorted((model_size(s), m) for m, s in zoo.items() if model_size(s))
    if len(sized) < 2 or sized[0][0] == sized[-1][0]:
        return None
    return [(sized[0][1], pure, ta), (sized[-1][1], pure, tb)]


def constrained_half(ta, tb, params):
    """Half A as a model's first greedy or beam decoding, half B as the human baseline (None
    without such a decoding)."""
    dec = first_decoding(params, ("greedy", "beam"))
    return None if dec is None else [(*HUMAN, tb), ("null", dec, ta)]
