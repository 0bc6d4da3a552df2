"""Training dynamics: the per-checkpoint scores of every trained model that keeps checkpoints
(:mod:`copyscope.dynamics`), as one long table and one figure per quantity (steps on a log
axis, 95% intervals).

The table carries, besides the curves, what known-answer timing needs
(:mod:`copyscope.corpus.timing`): extraction of the planted ladder passages and name cloze
accuracy of the training plays per timing group (sets ``timing early`` / ``timing late`` /
``timing spread``)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..io import write_csv
from ..lazy import lazy_module
from .jobs import Input, Output, per_model

fig = lazy_module("copyscope.report.figures")

NAME = "dynamics"
HELP = "training dynamics: every checkpoint of the trained models scored"
QUANTITIES = {
    "valid_loss": "validation loss (nats/token)",
    "extraction": "exact extraction rate",
    "nll_gap": "NLL unplanted − planted (nats)",
    "name_cloze": "name cloze accuracy",
    "template_ppl": "perplexity (template vs other tokens)",
    "novelty": "novel n-gram share",
}
"""Each quantity of :data:`copyscope.dynamics.QUANTITIES` with its axis label."""
COLUMNS = ["model", "step", "quantity", "set", "value", "value_lo", "value_hi", "n"]
INPUTS = {
    "scores": Input(
        ("MODEL",),
        "per-checkpoint scores of a model (.csv)",
        files=per_model("dynamics/{model}.csv", "dynamics_models"),
    ),
}
OUTPUTS = {
    "table": Output(
        "tables/dynamics.csv",
        "per-checkpoint scores, long: model, step, quantity, set, value, interval, n (.csv)",
        "dynamics_table",
        "models",
    ),
    **{
        f"fig_{q}": Output(
            f"figures/dynamics_{q}.png",
            f"figure: {label} by training step (.png)",
            f"dynamics_{q}",
            "models",
        )
        for q, label in QUANTITIES.items()
    },
}
PARAMS = None
SHOWN_WITH = "dynamics"  # in the HTML report only when some model is scored


def gather(inputs: Mapping) -> pd.DataFrame:
    """The models' tables concatenated (:data:`COLUMNS`), in the models' order."""
    frames = [pd.read_csv(path) for _, path in inputs["scores"]]
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def run(inputs: Mapping, out: Mapping, params: Mapping) -> None:
    """Write the table; draw one figure per quantity (a note where nothing was measured)."""
    table = gather(inputs)
    write_csv(out["table"], table)
    for q, label in QUANTITIES.items():
        part = table[table["quantity"] == q]
        if not len(part) or part["value"].isna().all():
            why = "no checkpoints scored (analysis.dynamics, models.train.checkpoints)"
            fig.not_measured(out[f"fig_{q}"], why if not len(table) else f"no {q} value (see the dynamics jobs' logs)")
            continue
        fig.dynamics(part, label, out[f"fig_{q}"])
