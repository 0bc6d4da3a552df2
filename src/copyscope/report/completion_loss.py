"""Completion loss (Merrill et al. 2024, Fig. 1 right) of each model on held-out text.

From each model's per-token losses on the human continuations (see
:func:`copyscope.analyze.completion_loss_file`): the mean loss of token i+1 by the length
n = L_i + 1 of the n-gram it completes, for n-grams in training and not in training (see
:func:`copyscope.novelty.completion_loss_table`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from ..io import write_csv
from ..novelty import completion_loss_table
from . import figures as fig
from . import per_text, require

NAME = "completion-loss"
HELP = "completion loss of each model on held-out text, by n-gram length"
INPUTS = {"losses": (("MODEL",), "completion_loss.parquet of a model (per-token L_t and loss)")}
OUTPUTS = {"table": "completion loss per model, curve and n (.csv)", "fig": "figure (.png)"}
PARAMS = None


def build(models: Iterable[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The completion-loss curves of every (model, per-token frame with ``text``, ``L``,
    ``loss``), concatenated in the given order."""
    return pd.concat(
        [completion_loss_table(per_text(f, "L"), per_text(f, "loss"), m) for m, f in models],
        ignore_index=True,
    )


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Read each model's per-token losses, write the table and the figure."""
    require(inputs["losses"], "--losses", "model")
    loss = build((m, pd.read_parquet(path)) for m, path in inputs["losses"])
    write_csv(out["table"], loss)
    fig.completion_loss(loss, out["fig"])
