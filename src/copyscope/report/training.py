"""Training curves: the validation loss of each trained model during training, from the
training logs written by ``lm train`` (one CSV per model)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..lazy import lazy_module
from . import fmt
from .jobs import Input, Output, per_model

fig = lazy_module("copyscope.report.figures")

NAME = "training"
HELP = "validation loss of each trained model during training"
INPUTS = {
    "log": Input(("MODEL",), "training log of a model (.csv)", files=per_model("tables/training/{model}.csv", "trained")),
}
OUTPUTS = {
    "fig": Output(
        "figures/training.png",
        "figure: validation loss by training tokens (.png)",
        "training",
        "models",
    ),
}
PARAMS = None
SUMMARY_TABLES = ("training",)  # read by summary_section


def logs(models: Sequence[tuple[str, str]]) -> pd.DataFrame:
    """The training logs ``(model, path)`` concatenated, with a ``model`` column (last); an
    empty frame when no model is trained."""
    if not models:
        return pd.DataFrame()
    return pd.concat([pd.read_csv(path).assign(model=m) for m, path in models], ignore_index=True)


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Draw the validation loss of every model."""
    fig.training(logs(inputs["log"]), out["fig"])


def summary_section(tables: Mapping[str, pd.DataFrame], params: Mapping) -> list[str]:
    """The final validation loss of each trained model; nothing when no model is trained."""
    training = tables["training"]
    if not len(training):
        return []
    last = training.sort_values("step").groupby("model").tail(1)
    return [
        "",
        "## Models",
        "",
        "; ".join(
            f"{r['model']}: validation loss {fmt(r['valid_loss'])} nats/token"
            for _, r in last.iterrows()
        )
        + ".",
    ]
