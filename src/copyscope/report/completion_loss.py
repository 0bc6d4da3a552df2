"""Completion loss (Merrill et al. 2024, Fig. 1 right, and loss vs frequency) of each model on
held-out text.

From each model's per-token losses on the human continuations (see
:func:`copyscope.analyze.completion_loss_file`, which also carries each token's L_t and C_t):

* ``completion_loss.csv`` — the mean loss by n-gram size for n-grams in training (every token
  at its own L_t, as the authors' code groups them), not in training, and copyscope's earlier
  "extended match" variant (:func:`copyscope.novelty.completion_loss_table`);
* ``completion_loss_frequency.csv`` — for fixed n ∈ {4, 8, …, 128}, the mean loss of tokens
  with L_t = n by round(log10 C_t), with bootstrap intervals over texts
  (:func:`copyscope.novelty.completion_loss_frequency`);
* ``completion_loss_slope.csv`` — for the same n and the same tokens, the OLS slope of the loss
  on log10 C_t with a bootstrap interval over texts
  (:func:`copyscope.novelty.completion_loss_slope`): one decidable number per model and n.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from ..novelty import completion_loss_frequency, completion_loss_slope, completion_loss_table
from ..novelty.metrics import (
    COMPLETION_COLUMNS,
    FREQUENCY_COLUMNS,
    FREQUENCY_LENGTHS,
    SLOPE_COLUMNS,
)
from . import fmt, per_text
from .jobs import Input, Output, Params

fig = lazy_module("copyscope.report.figures")

NAME = "completion-loss"
HELP = "completion loss of each model on held-out text, by n-gram length and frequency"
INPUTS = {
    "losses": Input(
        ("MODEL",),
        "completion_loss.parquet of a model (per-token L_t, C_t and loss)",
        files=lambda p: (p.completion_models, p.completion_outputs()),
    ),
}
OUTPUTS = {
    "table": Output("tables/completion_loss.csv", "completion loss per model, curve and n (.csv)"),
    "fig": Output(
        "figures/completion_loss.png",
        "figure (.png)",
        "completion_loss",
        "merrill",
    ),
    "frequency": Output(
        "tables/completion_loss_frequency.csv",
        "completion loss per model, n and log10 training count (.csv)",
    ),
    "fig_frequency": Output(
        "figures/completion_loss_frequency.png",
        "figure: completion loss vs. training count (.png)",
        "completion_loss_frequency",
        "merrill",
    ),
    "slope": Output(
        "tables/completion_loss_slope.csv",
        "slope of completion loss on log10 training count per model and n (.csv)",
        "completion_loss_slope",
        "merrill",
    ),
}
PARAMS = Params(
    "the config block novelty (bootstrap, seed)",
    of=lambda p: {"novelty": p.config["novelty"]},
)
SUMMARY_TABLES = ("completion_loss_frequency", "completion_loss_slope")  # summary_section


def build(models: Iterable[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The completion-loss curves of every (model, per-token frame with ``text``, ``L``,
    ``loss``), concatenated in the given order."""
    return pd.concat(
        [completion_loss_table(per_text(f, "L"), per_text(f, "loss"), m) for m, f in models],
        ignore_index=True,
    )


def build_frequency(
    models: Iterable[tuple[str, pd.DataFrame]], novelty: Mapping, table=completion_loss_frequency
) -> pd.DataFrame:
    """Completion loss vs training count of every (model, per-token frame with ``text``,
    ``L``, ``C``, ``loss``), in the given order; ``novelty`` is the config block (its
    ``bootstrap`` and ``seed``); ``table`` the per-model function (by bucket, or
    :func:`build_slope`'s slopes)."""
    return pd.concat(
        [
            table(
                per_text(f, "L"),
                per_text(f, "C"),
                per_text(f, "loss"),
                m,
                n_boot=novelty["bootstrap"],
                seed=novelty["seed"],
            )
            for m, f in models
        ],
        ignore_index=True,
    )


def build_slope(models: Iterable[tuple[str, pd.DataFrame]], novelty: Mapping) -> pd.DataFrame:
    """The slope of completion loss on log10 training count of every (model, per-token frame)
    in the given order, with the tokens of :func:`build_frequency` and the bootstrap of the
    ``novelty`` config block (``bootstrap`` draws, ``seed``)."""
    return build_frequency(models, novelty, completion_loss_slope)


NO_MODEL = (
    "no model's own tokenizer is models.tokenizer (the tokens of the index and the held-out "
    "text), so no per-token loss lines up with the n-grams"
)
"""Why a run measures no completion loss: :attr:`copyscope.plan.Plan.completion_models` is
empty (e.g. Pythia against infini-gram's Llama-2 index of the Pile)."""


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each model's per-token losses, write the three tables and two figures; a run
    without a completion model (:data:`NO_MODEL`) writes the tables' headers and says so in
    the figures."""
    if not inputs.get("losses"):
        for name, cols in (
            ("table", COMPLETION_COLUMNS),
            ("frequency", FREQUENCY_COLUMNS),
            ("slope", SLOPE_COLUMNS),
        ):
            write_csv(out[name], pd.DataFrame(columns=list(cols)))
        for name in ("fig", "fig_frequency"):
            fig.not_measured(out[name], NO_MODEL)
        return
    frames = [(m, pd.read_parquet(path)) for m, path in inputs["losses"]]
    loss = build(frames)
    write_csv(out["table"], loss)
    fig.completion_loss(loss, out["fig"])
    freq = build_frequency(frames, params["novelty"])
    write_csv(out["frequency"], freq)
    fig.completion_loss_frequency(freq, out["fig_frequency"], min_tokens=SUMMARY_MIN_TOKENS)
    write_csv(out["slope"], build_slope(frames, params["novelty"]))


SUMMARY_MIN_TOKENS = 10  # buckets with fewer tokens are left out of summary.md (and the figure)


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """Per model and n, the mean completion loss in the lowest and the highest training-count
    bucket with at least :data:`SUMMARY_MIN_TOKENS` tokens (the frequency effect Merrill et al.
    report), or the statement that no bucket is that large, or that the run measures no model
    (:data:`NO_MODEL`: the slope table, one row per model and n, is empty)."""
    freq = tables["completion_loss_frequency"]
    head = "Completion loss vs training count (held-out text, tokens t ≥ 1 with L_t = n"
    if not len(tables["completion_loss_slope"]):
        return ["", f"{head}): not measured: {NO_MODEL}."]
    freq = freq[freq["tokens"] >= SUMMARY_MIN_TOKENS]
    if not len(freq):
        sizes = ", ".join(map(str, FREQUENCY_LENGTHS))
        return ["", f"{head}): no bucket of n ∈ {{{sizes}}} has ≥ {SUMMARY_MIN_TOKENS} tokens."]
    parts = []
    for (model, n), g in freq.groupby(["model", "n"], sort=False):
        g = g.sort_values("log10_count")
        lo, hi = g.iloc[0], g.iloc[-1]
        if len(g) == 1:
            parts.append(
                f"{model}, {n}-grams: {fmt(lo['loss'])} nats (all at ~10^{int(lo['log10_count'])})"
            )
            continue
        parts.append(
            f"{model}, {n}-grams: {fmt(lo['loss'])} nats at ~10^{int(lo['log10_count'])} "
            f"occurrences → {fmt(hi['loss'])} at ~10^{int(hi['log10_count'])}"
        )
    return ["", f"{head}, buckets of ≥ {SUMMARY_MIN_TOKENS} tokens): " + "; ".join(parts) + "."]
